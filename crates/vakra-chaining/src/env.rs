//! What every capability-1 session of one domain shares: the server's settings, the mapping and
//! texts, the database, the listing's schemas and the cache of loaded universe tables.

use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use vakra_frame::{Pandas, Table, load_universe};
use vakra_sql::{Database, DatabaseSet};

use crate::ChainingError;
use crate::tools::{SLOT_FILLING, ToolKind, get_data_schema, getter_schema, selection_base};
use vakra_catalog::files::UNIVERSES;
use vakra_catalog::{ToolTexts, Universes};

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
    /// The pandas whose semantics the tools reproduce (3 unless switched to 2).
    pub pandas: Pandas,
}

impl Default for ChainingOptions {
    fn default() -> Self {
        Self {
            mode: ServerMode::Router,
            fix_quirks: false,
            max_session_bytes: 2 << 30,
            sql_time_limit: Duration::from_secs(60),
            pandas: Pandas::default(),
        }
    }
}

/// What a session of one domain shares with every other: the mapping, the texts, the database
/// and the startup universe's table.
pub struct ChainingEnv {
    pub(crate) universes: Arc<Universes>,
    pub(crate) texts: Arc<ToolTexts>,
    pub(crate) db: Arc<Database>,
    /// Where `initialize_active_data` may read databases from.
    pub(crate) db_root: PathBuf,
    pub(crate) options: ChainingOptions,
    pub(crate) startup_id: String,
    pub(crate) startup_table: Arc<Table>,
    pub(crate) schemas: HashMap<String, Arc<Map<String, Value>>>,
    pub(crate) getter_schema: Arc<Map<String, Value>>,
    pub(crate) get_data_schema: Arc<Map<String, Value>>,
    /// Each toolset's function map by name (getters aside).
    pub(crate) slot_filling_tools: HashMap<String, ToolKind>,
    pub(crate) selection_tools: HashMap<String, ToolKind>,
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
                UNIVERSES.relative()
            )));
        };
        let db = DatabaseSet::new(db_root.clone(), options.sql_time_limit)
            .get(domain)
            .map_err(|e| ChainingError::Startup(e.to_string()))?;
        let universe = universes.get(&first).expect("listed id");
        let table = load_universe(&db, &universe.init_args, options.pandas).map_err(|e| {
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
    pub(crate) fn load(&self, id: &str) -> Result<Arc<Table>, String> {
        if let Some((table, _)) = self.lock_cache().tables.get(id) {
            return Ok(Arc::clone(table));
        }
        let universe = self
            .universes
            .get(id)
            .ok_or_else(|| format!("Unknown universe ID: {id}"))?;
        let table = Arc::new(
            load_universe(&self.db, &universe.init_args, self.options.pandas)
                .map_err(|e| e.to_string())?,
        );
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
