//! One retrievable chunk, as both sources provide it and as results return it.

use serde_json::{Map, Value};

/// A chunk of a domain's collection. `id` is the chunk id agents see (the reference's
/// `<doc_id>_<i>`), `metadata` is returned verbatim (in the benchmark `doc_id` and
/// `from_clapnq`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    pub(crate) id: String,
    pub(crate) text: String,
    pub(crate) metadata: Map<String, Value>,
}
