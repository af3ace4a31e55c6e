//! Dense and hybrid search (feature `dense`): documents and questions embedded with a local
//! sentence-transformers model (BERT or ModernBERT), ranked by squared L2 distance (Chroma's
//! `l2` space; unit vectors when the model normalises), or fused with BM25 by reciprocal rank
//! fusion.

mod bert;
mod locate;
mod model;
mod modernbert;
mod pooling;
mod rank;

pub use locate::{Located, ModelRef, ModelSource, SHORTLIST_MODEL, hub_cache, locate, model_hash};
pub use model::Embedder;
pub(crate) use rank::{Vectors, check_compatible, hybrid, search, store_vectors};
