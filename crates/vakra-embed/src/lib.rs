//! Sentence embeddings as the reference computes them, and where their models come from.
//!
//! - [`Embedder`]: a sentence-transformers folder (BERT or ModernBERT as `config.json` says,
//!   pooling and normalisation as `modules.json` says) run on the CPU with candle;
//!   [`Embedder::embed`] gives the vectors `SentenceTransformer.encode` gives (within float
//!   rounding).
//! - [`locate`]: the one lookup of a model folder, shared by capability 4's retriever
//!   ([`EMBEDDING_MODEL`]) and the runner's tool shortlist ([`SHORTLIST_MODEL`]): a flag, the
//!   model's environment variable, the Hugging Face cache in its own layout, then a download
//!   from the hub (`HF_ENDPOINT`, `HF_HUB_OFFLINE`) into that cache; else an error naming each.
//!   [`load`] finds, loads and describes a model ([`ModelInfo`], with [`model_hash`] naming
//!   the exact weights) for comparability records.

mod bert;
mod error;
mod loaded;
mod locate;
mod model;
mod modernbert;
mod pooling;

pub use error::EmbedError;
pub use loaded::{ModelInfo, load};
pub use locate::{
    EMBEDDING_MODEL, Located, ModelRef, ModelSource, SHORTLIST_MODEL, hub_cache, locate, model_hash,
};
pub use model::Embedder;
