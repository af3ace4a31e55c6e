//! Capability-4 document retrievers: what the reference's combined MCP server adds to the
//! REST-BIRD tools of a domain (`query_<domain>` tools for the domain and its distractors), and
//! the retriever HTTP API behind them.
//!
//! The reference embeds questions with IBM Granite and searches Chroma collections. That model
//! is not available offline, so vakra-rs ranks with BM25 over per-domain tantivy indexes built
//! once from the same documents (`vakra index`); dense and hybrid ranking with a local
//! sentence-embedding model are available behind the `dense` feature. Everything around the
//! ranking is the reference's: tool names, descriptions and schemas, the
//! `{"results": [{"id", "text", "distance", "metadata"}]}` shape (ascending `distance`), the
//! texts agents read, and the HTTP API's bodies and statuses.
//!
//! Data-root layout: documents come from `documents/chroma.sqlite3` (the benchmark's Chroma
//! store, read with SQLite only) or `documents/<domain>.jsonl`; the reference's
//! `domain_negatives.json` and `domain_description_dict.json` are read from `retrievers/`;
//! indexes are written to `indexes/<domain>/`.

mod chroma;
mod dense;
mod document;
pub(crate) use document::Document;
mod error;
mod files;
mod http;
mod indexer;
mod jsonl;
mod layout;
mod manifest;
mod request;
mod retrievers;
mod schema;
mod search;
mod tools;
mod vectors;

pub use error::RetrievalError;
pub use http::http_router;
pub use indexer::{
    BuildOptions, DomainReport, IndexReport, Source, build_indexes, build_indexes_with,
};
pub use retrievers::{RetrieverOptions, Retrievers, SearchMode};
pub use search::{QueryResult, results_json};
pub use tools::DEFAULT_BASE_URL;
