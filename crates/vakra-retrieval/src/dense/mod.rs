//! Dense and hybrid search (feature `dense`): documents and questions embedded with a local
//! sentence-transformers model, ranked by squared L2 distance of unit vectors (Chroma's `l2`
//! space), or fused with BM25 by reciprocal rank fusion.

mod bert;
mod model;
mod rank;

pub(crate) use model::Embedder;
pub(crate) use rank::{Vectors, check_compatible, hybrid, search, store_vectors};
