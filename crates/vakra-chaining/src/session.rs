//! One capability-1 session: the reference's `RouterMCPServer` state and its `call_tool`
//! handler, after the MCP SDK's own argument validation (which the MCP layer does); what the
//! domain's sessions share is `env.rs`, a tool's run is `dispatch.rs`.
//!
//! State: the current universe and its table, the toolset, the handle store and its per-prefix
//! counters, and the accumulated column getters. Tables are immutable and shared (`Arc`), so a
//! handle costs nothing until a tool produces a new table; new tables count against the
//! session's memory cap.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use vakra_frame::{DirectLimits, InitArgs, Table, ToolValue, initialize_active_data, peek};
use vakra_pytext::py_repr;
use vakra_pytext::pydantic::{STRING_TYPE, validation_error};

use crate::dispatch::{run_getter, run_tool};
use crate::env::{ChainingEnv, ServerMode};
use crate::pydantic::{self as py, ArgValue};
use crate::reply::{ListedTool, Reply};
use crate::tools::{DATA_RENAMES, SLOT_FILLING, ToolKind, getter_description, selection_base};
use vakra_catalog::Toolset;

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

    /// What the handles' tables count against the session's memory cap
    /// ([`ChainingOptions::max_session_bytes`](crate::ChainingOptions)), in estimated bytes.
    pub fn stored_bytes(&self) -> usize {
        self.stored_bytes
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
            Callable::Tool(kind) => run_tool(*kind, args, self.env.options.pandas),
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
                    &[py::wrong("tool_universe_id", &value, STRING_TYPE)],
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
        initialize_active_data(&init, &self.env.db_root, limits, self.env.options.pandas)
            .map(ToolValue::Table)
            .map_err(|e| e.to_string())
    }
}
