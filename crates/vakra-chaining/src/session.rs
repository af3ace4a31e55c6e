//! One capability-1 session: the reference's `RouterMCPServer` state and its `call_tool`
//! handler, after the MCP SDK's own argument validation (which the MCP layer does).
//!
//! State: the current universe and its table, the toolset, the handle store and its per-prefix
//! counters, and the accumulated column getters. Tables are immutable and shared (`Arc`), so a
//! handle costs nothing until a tool produces a new table; new tables count against the
//! session's memory cap.

use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use vakra_frame::{
    CalcOperand, Cell, DirectLimits, InitArgs, KeyName, Table, ToolError, ToolValue,
    aggregate_data, calculator, concatenate_data, filter_data, getter, initialize_active_data,
    load_universe, peek, retrieve_data, select_unique_values, sort_data, transform_data,
    transform_data_to_absolute_value, transform_data_to_datetime_part, transform_data_to_substring,
    truncate,
};
use vakra_pyjson::{DumpOptions, dumps, py_repr};
use vakra_sql::{Database, DatabaseSet};

use crate::ChainingError;
use crate::mapping::{Toolset, Universes};
use vakra_pyjson::pydantic::{LineError, validation_error};

use crate::pydantic::{self as py, ArgValue, kwargs_repr};
use crate::texts::ToolTexts;
use crate::tools::{
    DATA_RENAMES, SLOT_FILLING, ToolKind, get_data_schema, getter_description, getter_schema,
    selection_base,
};

/// Which server class runs (the reference's `MCP_SERVER_TYPE`); the benchmark uses `Router`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerMode {
    /// Switches toolsets with the universe.
    #[default]
    Router,
    /// Always SLOT-BIRD, with its own descriptions for every tool.
    SlotFilling,
    /// Always SEL-BIRD; getters are callable but never listed.
    Selection,
}

impl FromStr for ServerMode {
    type Err = ChainingError;

    fn from_str(s: &str) -> Result<Self, ChainingError> {
        match s {
            "router" => Ok(ServerMode::Router),
            "slot_filling" => Ok(ServerMode::SlotFilling),
            "selection" => Ok(ServerMode::Selection),
            other => Err(ChainingError::Startup(format!(
                "Unknown server_type: {other}. Must be 'slot_filling', 'selection', or 'router'"
            ))),
        }
    }
}

/// Settings of a capability-1 server.
#[derive(Debug, Clone)]
pub struct ChainingOptions {
    pub mode: ServerMode,
    /// The project's one quirk switch: list getters from the start, drop stale getters, no
    /// empty descriptions, `initialize_active_data` confined to the server's database.
    pub fix_quirks: bool,
    /// The most table data (estimated bytes) one session may hold before tools refuse to store
    /// more.
    pub max_session_bytes: usize,
    /// Statements running longer are interrupted.
    pub sql_time_limit: Duration,
}

impl Default for ChainingOptions {
    fn default() -> Self {
        Self {
            mode: ServerMode::Router,
            fix_quirks: false,
            max_session_bytes: 2 << 30,
            sql_time_limit: Duration::from_secs(60),
        }
    }
}

/// What a session of one domain shares with every other: the mapping, the texts, the database
/// and the startup universe's table.
pub struct ChainingEnv {
    universes: Arc<Universes>,
    texts: Arc<ToolTexts>,
    db: Arc<Database>,
    /// Where `initialize_active_data` may read databases from.
    db_root: PathBuf,
    options: ChainingOptions,
    startup_id: String,
    startup_table: Arc<Table>,
    schemas: HashMap<String, Arc<Map<String, Value>>>,
    getter_schema: Arc<Map<String, Value>>,
    get_data_schema: Arc<Map<String, Value>>,
    /// Each toolset's function map by name (getters aside).
    slot_filling_tools: HashMap<String, ToolKind>,
    selection_tools: HashMap<String, ToolKind>,
    /// Universe tables already loaded, shared by all sessions: the database is read-only and
    /// the load deterministic, so a table is the same every time it is built.
    loaded: std::sync::Mutex<TableCache>,
}

/// Loaded universe tables, dropped oldest first beyond a byte budget.
#[derive(Default)]
struct TableCache {
    tables: IndexMap<String, (Arc<Table>, usize)>,
    bytes: usize,
}

/// How much universe data the cache keeps per domain.
const TABLE_CACHE_BYTES: usize = 256 << 20;

impl std::fmt::Debug for ChainingEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChainingEnv")
            .field("database", &self.db.path())
            .field("startup", &self.startup_id)
            .finish_non_exhaustive()
    }
}

impl ChainingEnv {
    /// Loads what a domain's sessions need, and its startup universe (the domain's first id);
    /// a startup universe that cannot be loaded is an error, as the reference exits then.
    pub fn open(
        universes: Arc<Universes>,
        texts: Arc<ToolTexts>,
        db_root: PathBuf,
        domain: &str,
        options: ChainingOptions,
    ) -> Result<Self, ChainingError> {
        let Some(first) = universes.ids_of_domain(domain).next().map(str::to_owned) else {
            return Err(ChainingError::Startup(format!(
                "No tool universes found for domain '{domain}' in {}",
                crate::mapping::UNIVERSES_FILE
            )));
        };
        let db = DatabaseSet::new(db_root.clone(), options.sql_time_limit)
            .get(domain)
            .map_err(|e| ChainingError::Startup(e.to_string()))?;
        let universe = universes.get(&first).expect("listed id");
        let table = load_universe(&db, &universe.init_args).map_err(|e| {
            ChainingError::Startup(format!("universe {first} of domain {domain}: {e}"))
        })?;
        let schemas = SLOT_FILLING
            .iter()
            .copied()
            .chain(selection_base())
            .filter_map(|t| Some((t.name(), Arc::new(t.input_schema(&texts)?))))
            .collect();
        let by_name = |kinds: Vec<ToolKind>| kinds.into_iter().map(|k| (k.name(), k)).collect();
        Ok(Self {
            slot_filling_tools: by_name(SLOT_FILLING.to_vec()),
            selection_tools: by_name(selection_base()),
            getter_schema: Arc::new(getter_schema(&texts)),
            get_data_schema: Arc::new(get_data_schema(&texts)),
            universes,
            texts,
            db,
            db_root,
            options,
            startup_id: first,
            startup_table: Arc::new(table),
            schemas,
            loaded: Default::default(),
        })
    }

    /// A universe's table, from the cache or loaded from the database.
    fn load(&self, id: &str) -> Result<Arc<Table>, String> {
        if let Some((table, _)) = self.lock_cache().tables.get(id) {
            return Ok(Arc::clone(table));
        }
        let universe = self
            .universes
            .get(id)
            .ok_or_else(|| format!("Unknown universe ID: {id}"))?;
        let table =
            Arc::new(load_universe(&self.db, &universe.init_args).map_err(|e| e.to_string())?);
        let size = table.estimated_bytes();
        let mut cache = self.lock_cache();
        if size <= TABLE_CACHE_BYTES {
            while cache.bytes + size > TABLE_CACHE_BYTES {
                let Some((_, (_, freed))) = cache.tables.shift_remove_index(0) else {
                    break;
                };
                cache.bytes -= freed;
            }
            cache.bytes += size;
            cache
                .tables
                .insert(id.to_owned(), (Arc::clone(&table), size));
        }
        Ok(table)
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, TableCache> {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The mapping this server answers from.
    pub fn universes(&self) -> &Universes {
        &self.universes
    }
}

/// A listed tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    pub name: String,
    pub description: String,
    pub input_schema: Arc<Map<String, Value>>,
}

/// A tool's answer: one text content, and whether the reference marks it `isError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
}

impl Reply {
    fn ok(text: String) -> Self {
        Self {
            text,
            is_error: false,
        }
    }

    fn error(text: String) -> Self {
        Self {
            text,
            is_error: true,
        }
    }

    /// `json.dumps({"error": message})`, returned as a normal result.
    fn error_json(message: String) -> Self {
        let mut object = Map::new();
        object.insert("error".into(), Value::String(message));
        Self::ok(dumps(&Value::Object(object), &DumpOptions::python_default()).unwrap_or_default())
    }
}

/// A column getter, `get_<column>s`.
#[derive(Debug, Clone)]
struct Getter {
    name: String,
    column: String,
    description: String,
}

/// The state of one session.
pub struct Session {
    env: Arc<ChainingEnv>,
    universe_id: String,
    active: Arc<Table>,
    toolset: Toolset,
    handles: IndexMap<String, Arc<Table>>,
    counters: HashMap<&'static str, u64>,
    getters: Vec<Getter>,
    /// Whether the getters have input models (and so are listed): only after a switch into a
    /// selection universe that happened after startup.
    getters_registered: bool,
    stored_bytes: usize,
    /// Bumped whenever something the listing depends on changes (toolset, getters, their
    /// registration), so that changes can be announced without comparing listings.
    listing_generation: u64,
}

/// A callable name of the active toolset.
enum Callable {
    Tool(ToolKind),
    Getter(String),
}

impl Session {
    /// A fresh session in the domain's startup universe.
    pub fn new(env: Arc<ChainingEnv>) -> Self {
        let universe = env.universes.get(&env.startup_id).expect("startup id");
        let toolset = match env.options.mode {
            ServerMode::Router => universe.toolset(),
            ServerMode::SlotFilling => Toolset::SlotFilling,
            ServerMode::Selection => Toolset::Selection,
        };
        let mut session = Self {
            universe_id: env.startup_id.clone(),
            active: Arc::clone(&env.startup_table),
            toolset,
            handles: IndexMap::new(),
            counters: HashMap::new(),
            getters: Vec::new(),
            getters_registered: false,
            stored_bytes: 0,
            listing_generation: 0,
            env,
        };
        if toolset == Toolset::Selection {
            session.regenerate_getters();
            session.getters_registered =
                session.env.options.fix_quirks && session.env.options.mode == ServerMode::Router;
        }
        session
    }

    /// The universe currently loaded.
    pub fn universe_id(&self) -> &str {
        &self.universe_id
    }

    /// Changes whenever the listing may have changed.
    pub fn listing_generation(&self) -> u64 {
        self.listing_generation
    }

    /// The handles stored so far, oldest first.
    pub fn handles(&self) -> impl Iterator<Item = &str> {
        self.handles.keys().map(String::as_str)
    }

    /// `tools/list`, computed from the current state as the reference does on every request.
    pub fn list_tools(&self) -> Vec<ListedTool> {
        let env = &self.env;
        let mut tools = Vec::new();
        let kinds: Vec<ToolKind> = match self.toolset {
            Toolset::SlotFilling => SLOT_FILLING.to_vec(),
            Toolset::Selection => {
                if self.getters_registered && env.options.mode == ServerMode::Router {
                    for g in &self.getters {
                        tools.push(ListedTool {
                            name: g.name.clone(),
                            description: g.description.clone(),
                            input_schema: Arc::clone(&env.getter_schema),
                        });
                    }
                }
                selection_base()
            }
        };
        for kind in kinds {
            let name = kind.name();
            let Some(schema) = env.schemas.get(&name) else {
                continue;
            };
            tools.push(ListedTool {
                description: self.description(kind, schema),
                name,
                input_schema: Arc::clone(schema),
            });
        }
        tools.push(ListedTool {
            name: "get_data".into(),
            description: env.texts.get_data.clone().unwrap_or_default(),
            input_schema: Arc::clone(&env.get_data_schema),
        });
        tools
    }

    /// The listed description: the router's docstring map has SLOT-BIRD's texts overwritten by
    /// SEL-BIRD's empty ones, so only five tools keep theirs.
    fn description(&self, kind: ToolKind, schema: &Map<String, Value>) -> String {
        let own = self.env.texts.tools.get(&kind.name()).cloned();
        let keeps_own = match self.env.options.mode {
            ServerMode::SlotFilling => true,
            ServerMode::Selection => false,
            ServerMode::Router => matches!(
                kind,
                ToolKind::AggregateData
                    | ToolKind::FilterData
                    | ToolKind::RetrieveData
                    | ToolKind::SortData
                    | ToolKind::TransformData
            ),
        };
        let text = if keeps_own { own.clone() } else { None };
        match text {
            Some(t) => t,
            None if self.env.options.fix_quirks => own.unwrap_or_else(|| {
                schema
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            }),
            None => String::new(),
        }
    }

    fn callable(&self, name: &str) -> Option<Callable> {
        let tools = match self.toolset {
            Toolset::SlotFilling => &self.env.slot_filling_tools,
            Toolset::Selection => {
                if let Some(g) = self.getters.iter().find(|g| g.name == name) {
                    return Some(Callable::Getter(g.column.clone()));
                }
                &self.env.selection_tools
            }
        };
        tools.get(name).copied().map(Callable::Tool)
    }

    /// Runs one `tools/call` after the SDK's validation.
    pub fn call(&mut self, name: &str, arguments: Map<String, Value>) -> Reply {
        if name == "get_data" {
            return self.get_data(&arguments);
        }
        let Some(callable) = self.callable(name) else {
            return Reply::error(format!("Unknown tool: {name}"));
        };
        let args = self.resolve(arguments);
        let takes_data = match &callable {
            Callable::Tool(kind) => kind.takes_data(),
            Callable::Getter(_) => true,
        };
        let has = |k: &str| args.iter().any(|(n, _)| n == k);
        if takes_data && !has("data") && !has("data_1") {
            let handles: Vec<Value> = self
                .handles
                .keys()
                .map(|h| Value::String(h.clone()))
                .collect();
            return Reply::error_json(format!(
                "Missing required argument 'data_label'. Pass the handle string returned by a previous tool call as data_label=<handle>. Available handles: {}",
                py_repr(&Value::Array(handles))
            ));
        }
        if let Some(error) = self.check_key_name(&args) {
            return error;
        }
        let outcome = match &callable {
            Callable::Tool(ToolKind::InitializeActiveData) => self.initialize_active_data(&args),
            Callable::Tool(kind) => run_tool(*kind, args),
            Callable::Getter(column) => run_getter(column, args),
        };
        match outcome {
            Err(text) => Reply::ok(format!("Input validation error: {text}")),
            Ok(ToolValue::Table(table)) => {
                let prefix = match &callable {
                    Callable::Tool(kind) => kind.handle_prefix(),
                    Callable::Getter(_) => "retrieved",
                };
                self.store(prefix, Arc::new(table), true)
            }
            Ok(value) => match value.text() {
                Some(Ok(text)) => Reply::ok(text),
                Some(Err(e)) => Reply::error(e.to_string()),
                None => Reply::error_json(format!("Tool {name} returned None")),
            },
        }
    }

    /// Replaces handle strings by their tables, then renames `data_label*` to `data*`.
    fn resolve(&self, arguments: Map<String, Value>) -> Vec<(String, ArgValue)> {
        let mut out: Vec<(String, ArgValue)> = Vec::with_capacity(arguments.len());
        for (key, value) in arguments {
            let is_data_key = DATA_RENAMES
                .iter()
                .any(|(internal, label)| key == *internal || key == *label);
            let value = match (&value, is_data_key) {
                (Value::String(h), true) => match self.handles.get(h) {
                    Some(table) => ArgValue::Table(Arc::clone(table)),
                    None => ArgValue::Json(value),
                },
                _ => ArgValue::Json(value),
            };
            let key = DATA_RENAMES
                .iter()
                .find(|(_, label)| key == *label)
                .map_or(key.clone(), |(internal, _)| (*internal).to_owned());
            // A Python dict comprehension: a later key replaces an earlier one in place.
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => out.push((key, value)),
            }
        }
        out
    }

    /// The server's own `key_name` check against the source table (data, else data_1, else
    /// the active table), before the tool runs.
    fn check_key_name(&self, args: &[(String, ArgValue)]) -> Option<Reply> {
        let key_name = args.iter().find(|(k, _)| k == "key_name").map(|(_, v)| v)?;
        let get = |k: &str| args.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let active = ArgValue::Table(Arc::clone(&self.active));
        let source = [get("data"), get("data_1")]
            .into_iter()
            .flatten()
            .find(|v| v.is_truthy())
            .unwrap_or(&active);
        let valid: Vec<String> = match source {
            ArgValue::Table(t) => t.column_names().map(str::to_owned).collect(),
            ArgValue::Json(Value::Object(o)) => {
                o.keys().filter(|k| *k != "_dtypes").cloned().collect()
            }
            ArgValue::Json(_) => return None,
        };
        let invalid: Vec<Value> = match key_name {
            ArgValue::Json(Value::String(k)) if !valid.contains(k) => {
                vec![Value::String(k.clone())]
            }
            ArgValue::Json(Value::Array(keys)) => keys
                .iter()
                .filter(|k| !k.as_str().is_some_and(|k| valid.iter().any(|v| v == k)))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        if invalid.is_empty() {
            return None;
        }
        let valid: Vec<Value> = valid.into_iter().map(Value::String).collect();
        Some(Reply::error_json(format!(
            "Invalid key_name {}. Valid keys in current universe ('{}'): {}",
            py_repr(&Value::Array(invalid)),
            self.universe_id,
            py_repr(&Value::Array(valid))
        )))
    }

    fn get_data(&mut self, arguments: &Map<String, Value>) -> Reply {
        match arguments.get("tool_universe_id") {
            None | Some(Value::Null) => {}
            Some(Value::String(id)) => {
                if self.env.universes.get(id).is_none() {
                    let first: Vec<Value> = self
                        .env
                        .universes
                        .ids()
                        .take(10)
                        .map(|i| Value::String(i.to_owned()))
                        .collect();
                    return Reply::error_json(format!(
                        "Error: Unknown universe ID '{id}'. Available IDs (first 10): {}...",
                        py_repr(&Value::Array(first))
                    ));
                }
                if *id != self.universe_id
                    && let Err(message) = self.switch_universe(id)
                {
                    return Reply::error_json(format!("Error switching to universe: {message}"));
                }
            }
            Some(other) => {
                let value = ArgValue::Json(other.clone());
                return Reply::error(validation_error(
                    "GetDataInput",
                    &[py::wrong_type(
                        "tool_universe_id",
                        &value,
                        "string_type",
                        "Input should be a valid string",
                    )],
                ));
            }
        }
        self.store("retrieved", Arc::clone(&self.active), false)
    }

    /// `_load_tool_universe`: handles and counters go first, then the id and toolset change,
    /// then the table loads; a failed load leaves that mixed state, as in the reference.
    fn switch_universe(&mut self, id: &str) -> Result<(), String> {
        let env = Arc::clone(&self.env);
        let universe = env.universes.get(id).expect("checked id");
        self.handles.clear();
        self.counters.clear();
        self.stored_bytes = 0;
        self.universe_id = id.to_owned();
        if env.options.mode == ServerMode::Router && self.toolset != universe.toolset() {
            self.toolset = universe.toolset();
            self.listing_generation += 1;
        }
        self.active = env.load(id)?;
        match (env.options.mode, self.toolset) {
            (ServerMode::SlotFilling, _) => {}
            (_, Toolset::Selection) => {
                self.regenerate_getters();
                self.getters_registered = true;
                if env.options.mode == ServerMode::Router {
                    self.listing_generation += 1;
                }
            }
            (_, Toolset::SlotFilling) => self.getters_registered = false,
        }
        Ok(())
    }

    /// New getters for the active table's columns, followed (unless quirks are fixed) by the
    /// earlier ones that the new set does not replace.
    fn regenerate_getters(&mut self) {
        let texts = &self.env.texts;
        let fresh: Vec<Getter> = self
            .active
            .column_names()
            .map(|column| {
                let dtype = self.active.dtype(column).map_or("object", |d| d.as_str());
                Getter {
                    name: format!("get_{column}s"),
                    column: column.to_owned(),
                    description: getter_description(texts, column, dtype),
                }
            })
            .collect();
        let old = std::mem::take(&mut self.getters);
        self.getters = fresh;
        if !self.env.options.fix_quirks {
            for g in old {
                if !self.getters.iter().any(|n| n.name == g.name) {
                    self.getters.push(g);
                }
            }
        }
    }

    /// Stores a table under `<prefix>_<suffix>_<n>` and answers with its peek. A table a tool
    /// produced (`produced`) counts against the memory cap; the universe's own table does not.
    fn store(&mut self, prefix: &'static str, table: Arc<Table>, produced: bool) -> Reply {
        if produced {
            let size = table.estimated_bytes();
            if self.stored_bytes + size > self.env.options.max_session_bytes {
                return Reply::error_json(format!(
                    "Session data limit reached: storing this result ({size} bytes) would exceed the limit of {} bytes for this session's handles. Switch universes with get_data to start over.",
                    self.env.options.max_session_bytes
                ));
            }
            self.stored_bytes += size;
        }
        let counter = self.counters.entry(prefix).or_insert(0);
        *counter += 1;
        let handle = format!("{prefix}_{}_{counter}", vakra_frame::handle_suffix(&table));
        let text = peek(&table, &handle);
        self.handles.insert(handle, table);
        match text {
            Ok(text) => Reply::ok(text),
            Err(e) => Reply::error(e.to_string()),
        }
    }

    /// The hidden `initialize_active_data`: the raw function, called with whatever arguments
    /// came, reading any database under the database root (the server's own database with
    /// quirks fixed).
    fn initialize_active_data(&self, args: &[(String, ArgValue)]) -> Result<ToolValue, String> {
        const PARAMS: [&str; 3] = ["condition_sequence", "alias_to_table_dict", "database_path"];
        if let Some((extra, _)) = args.iter().find(|(k, _)| !PARAMS.contains(&k.as_str())) {
            return Err(format!(
                "initialize_active_data() got an unexpected keyword argument '{extra}'"
            ));
        }
        let missing: Vec<String> = PARAMS
            .iter()
            .filter(|p| !args.iter().any(|(k, _)| k == *p))
            .map(|p| format!("'{p}'"))
            .collect();
        if !missing.is_empty() {
            let list = match missing.len() {
                1 => missing[0].clone(),
                n => format!("{} and {}", missing[..n - 1].join(", "), missing[n - 1]),
            };
            return Err(format!(
                "initialize_active_data() missing {} required positional argument{}: {list}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" }
            ));
        }
        let mut object = Map::new();
        for (k, v) in args {
            let ArgValue::Json(v) = v else {
                return Err("'dict' object has no attribute 'startswith'".into());
            };
            object.insert(k.clone(), v.clone());
        }
        let mut init: InitArgs = serde_json::from_value(Value::Object(object))
            .map_err(|e| format!("invalid initialize_active_data arguments: {e}"))?;
        if self.env.options.fix_quirks {
            init.database_path = self.env.db.path().display().to_string();
        }
        // The table will count against the session's cap: fetching stops once it cannot fit.
        let limits = DirectLimits {
            time_limit: self.env.options.sql_time_limit,
            max_bytes: self
                .env
                .options
                .max_session_bytes
                .saturating_sub(self.stored_bytes),
        };
        initialize_active_data(&init, &self.env.db_root, limits)
            .map(ToolValue::Table)
            .map_err(|e| e.to_string())
    }
}

/// The arguments of one input-model call, taken field by field in model order so that errors
/// come out in pydantic's order.
struct Inputs {
    model: &'static str,
    args: Vec<(String, ArgValue)>,
    taken: Vec<String>,
    errors: Vec<LineError>,
}

impl Inputs {
    fn new(model: &'static str, args: Vec<(String, ArgValue)>) -> Self {
        Self {
            model,
            args,
            taken: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn take(&mut self, field: &str) -> Option<ArgValue> {
        self.taken.push(field.to_owned());
        self.args
            .iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v.clone())
    }

    fn missing(&mut self, field: &str) {
        let error = py::missing(field, &self.args);
        self.errors.push(error);
    }

    fn table(&mut self, field: &str) -> Option<Arc<Table>> {
        match self.take(field) {
            None => {
                self.missing(field);
                None
            }
            Some(ArgValue::Table(t)) => Some(t),
            Some(ArgValue::Json(Value::Object(o))) => match inline_table(&o) {
                Some(t) => Some(Arc::new(t)),
                None => {
                    let v = ArgValue::Json(Value::Object(o));
                    self.errors.push(py::wrong_type(
                        field,
                        &v,
                        "list_type",
                        "Input should be a valid list",
                    ));
                    None
                }
            },
            Some(other) => {
                self.errors.push(py::wrong_type(
                    field,
                    &other,
                    "dict_type",
                    "Input should be a valid dictionary",
                ));
                None
            }
        }
    }

    fn json(&mut self, field: &str, default: Option<Value>) -> Option<Value> {
        match self.take(field) {
            Some(ArgValue::Json(v)) => Some(v),
            Some(ArgValue::Table(_)) => {
                self.wrong(field, "Input should be a valid value", "value_error");
                None
            }
            None if default.is_some() => default,
            None => {
                self.missing(field);
                None
            }
        }
    }

    fn wrong(&mut self, field: &str, message: &str, kind: &'static str) {
        if let Some(v) = self
            .args
            .iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v.clone())
        {
            self.errors.push(py::wrong_type(field, &v, kind, message));
        }
    }

    fn string(&mut self, field: &str, default: Option<&str>) -> Option<String> {
        match self.json(field, default.map(|d| Value::String(d.into())))? {
            Value::String(s) => Some(s),
            _ => {
                self.wrong(field, "Input should be a valid string", "string_type");
                None
            }
        }
    }

    fn int(&mut self, field: &str, default: Option<i64>) -> Option<i64> {
        let value = self.json(field, default.map(Value::from))?;
        match &value {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            Value::Number(n)
                if n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.2e18) =>
            {
                n.as_f64().map(|f| f as i64)
            }
            _ => {
                self.wrong(field, "Input should be a valid integer", "int_type");
                None
            }
        }
    }

    fn boolean(&mut self, field: &str, default: Option<bool>) -> Option<bool> {
        match self.json(field, default.map(Value::Bool))? {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong(field, "Input should be a valid boolean", "bool_type");
                None
            }
        }
    }

    /// An enum field, or a preset constant when `preset` is given.
    fn choice<T: FromStr + Copy>(
        &mut self,
        field: &str,
        preset: Option<T>,
        all: &[&str],
    ) -> Option<T> {
        let default = preset.is_some().then(|| Value::Null);
        let value = self.json(field, default)?;
        if value.is_null()
            && let Some(p) = preset
        {
            return Some(p);
        }
        match value.as_str().and_then(|s| s.parse::<T>().ok()) {
            Some(t) => Some(t),
            None => {
                let quoted: Vec<String> = all.iter().map(|a| format!("'{a}'")).collect();
                let list = match quoted.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => quoted.join(""),
                };
                self.wrong(field, &format!("Input should be {list}"), "enum");
                None
            }
        }
    }

    /// Extra arguments, then the collected errors as `str(ValidationError)`.
    fn finish(&mut self) -> Result<(), String> {
        let extras: Vec<(String, ArgValue)> = self
            .args
            .iter()
            .filter(|(k, _)| !self.taken.contains(k))
            .cloned()
            .collect();
        for (k, v) in &extras {
            self.errors.push(py::extra(k, v));
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(validation_error(self.model, &self.errors))
        }
    }
}

/// An inline table (only reachable for tools the SDK does not validate): a dict of lists.
fn inline_table(object: &Map<String, Value>) -> Option<Table> {
    let mut columns = Vec::new();
    for (name, values) in object {
        if name == "_dtypes" {
            continue;
        }
        let cells: Option<Vec<Cell>> = values.as_array()?.iter().map(Cell::from_json).collect();
        columns.push((name.clone(), cells?));
    }
    Some(Table::from_columns(columns))
}

fn tool_error(e: ToolError) -> String {
    e.message().to_owned()
}

fn run_getter(column: &str, args: Vec<(String, ArgValue)>) -> Result<ToolValue, String> {
    let mut inputs = Inputs::new("GetterInput", args);
    let data = inputs.table("data");
    inputs.finish()?;
    getter(&data.expect("validated"), column).map_err(tool_error)
}

fn run_tool(kind: ToolKind, args: Vec<(String, ArgValue)>) -> Result<ToolValue, String> {
    use vakra_frame::{
        AggregationOperation, CalculatorOperation, FilterCondition, TransformOperation,
    };
    let model = kind.model().unwrap_or("Input");
    let mut i = Inputs::new(model, args);
    let agg: Vec<&str> = AggregationOperation::ALL
        .iter()
        .map(|o| o.as_str())
        .collect();
    let cond: Vec<&str> = FilterCondition::ALL.iter().map(|o| o.as_str()).collect();
    macro_rules! done {
        ($($v:ident),*) => {{
            i.finish()?;
            ($($v.expect("validated")),*)
        }};
    }
    match kind {
        ToolKind::AggregateData | ToolKind::ComputeData(_) => {
            let preset = match kind {
                ToolKind::ComputeData(op) => Some(op),
                _ => None,
            };
            let data = i.table("data");
            let key = i.string("key_name", Some(""));
            let op = i.choice::<AggregationOperation>("aggregation_operation", preset, &agg);
            let distinct = i.boolean("distinct", Some(false));
            let limit = i.int("limit", Some(-1));
            let (data, key, op, distinct, limit) = done!(data, key, op, distinct, limit);
            aggregate_data(&data, &key, op, distinct, limit).map_err(tool_error)
        }
        ToolKind::Calculator => {
            let ops: Vec<&str> = CalculatorOperation::ALL
                .iter()
                .map(|o| o.as_str())
                .collect();
            let a = i.json("input_1", None);
            let b = i.json("input_2", None);
            let op = i.choice::<CalculatorOperation>("operation", None, &ops);
            let (a, b, op) = done!(a, b, op);
            let operand = |v: &Value| {
                CalcOperand::from_json(v)
                    .ok_or_else(|| format!("unsupported operand: {}", py_repr(v)))
            };
            calculator(&operand(&a)?, &operand(&b)?, op).map_err(tool_error)
        }
        ToolKind::ConcatenateData => {
            let a = i.table("data_1");
            let b = i.table("data_2");
            let (a, b) = done!(a, b);
            concatenate_data(&a, &b).map_err(tool_error)
        }
        ToolKind::FilterData | ToolKind::SelectData(_) => {
            let preset = match kind {
                ToolKind::SelectData(c) => Some(c),
                _ => None,
            };
            let data = i.table("data");
            let key = i.string("key_name", None);
            let value = i.json("value", None);
            let condition = i.choice::<FilterCondition>("condition", preset, &cond);
            let (data, key, value, condition) = done!(data, key, value, condition);
            let value = Cell::from_json(&value)
                .ok_or_else(|| format!("unsupported filter value: {}", py_repr(&value)))?;
            filter_data(&data, &key, &value, condition).map_err(tool_error)
        }
        ToolKind::InitializeActiveData => Err("initialize_active_data runs in the session".into()),
        ToolKind::RetrieveData => {
            let data = i.table("data");
            let key = i.json("key_name", None);
            let distinct = i.boolean("distinct", Some(false));
            let limit = i.int("limit", Some(-1));
            let (data, key, distinct, limit) = done!(data, key, distinct, limit);
            let key: KeyName = serde_json::from_value(key.clone())
                .map_err(|_| format!("invalid key_name: {}", py_repr(&key)))?;
            retrieve_data(&data, &key, distinct, limit).map_err(tool_error)
        }
        ToolKind::SelectUniqueValues => {
            let array = i.json("unique_array", None);
            let array = done!(array);
            match array.as_array() {
                Some(items) => select_unique_values(items).map_err(tool_error),
                None => Err(format!("invalid unique_array: {}", py_repr(&array))),
            }
        }
        ToolKind::SortData | ToolKind::SortDataPreset(_) => {
            let data = i.table("data");
            let key = i.string("key_name", Some(""));
            let ascending = match kind {
                ToolKind::SortDataPreset(a) => i.boolean("ascending", Some(a)).map(|_| a),
                _ => i.boolean("ascending", Some(false)),
            };
            let ranking = i.json("ranking_array", Some(Value::Null));
            let (data, key, ascending, ranking) = done!(data, key, ascending, ranking);
            if key.is_empty() && ranking.is_null() {
                let item = LineError {
                    loc: String::new(),
                    message: "Value error, Either key_name or ranking_array must be provided"
                        .into(),
                    kind: "value_error",
                    input_repr: kwargs_repr(&i.args),
                    input_type: "dict",
                };
                return Err(validation_error(model, &[item]));
            }
            let ranking: Option<Vec<Cell>> = match &ranking {
                Value::Array(items) => Some(items.iter().filter_map(Cell::from_json).collect()),
                _ => None,
            };
            sort_data(&data, &key, ascending, ranking.as_deref()).map_err(tool_error)
        }
        ToolKind::TransformData => {
            let ops: Vec<&str> = TransformOperation::ALL.iter().map(|o| o.as_str()).collect();
            let data = i.table("data");
            let key = i.string("key_name", None);
            let op = i.choice::<TransformOperation>("operation_type", None, &ops);
            let op_args = i.json("operation_args", Some(Value::Null));
            let (data, key, op, op_args) = done!(data, key, op, op_args);
            transform_data(&data, &key, op, op_args.as_object()).map_err(tool_error)
        }
        ToolKind::TransformDataToSubstring => {
            let data = i.table("data");
            let key = i.string("key_name", None);
            let start = i.int("start_index", None);
            let end = i.int("end_index", None);
            let (data, key, start, end) = done!(data, key, start, end);
            transform_data_to_substring(&data, &key, start, end).map_err(tool_error)
        }
        ToolKind::TransformDataToAbsoluteValue => {
            let data = i.table("data");
            let key = i.string("key_name", None);
            let (data, key) = done!(data, key);
            transform_data_to_absolute_value(&data, &key).map_err(tool_error)
        }
        ToolKind::TransformDataToDatetimePart => {
            let data = i.table("data");
            let key = i.string("key_name", None);
            let pattern = i.string("datetime_pattern", None);
            let (data, key, pattern) = done!(data, key, pattern);
            transform_data_to_datetime_part(&data, &key, &pattern).map_err(tool_error)
        }
        ToolKind::Truncate => {
            let array = i.json("truncate_array", None);
            let n = i.int("n", None);
            let (array, n) = done!(array, n);
            truncate(&array, n).map_err(tool_error)
        }
    }
}
