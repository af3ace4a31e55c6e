//! [`load`]: a model found by [`locate`], loaded, and described for the records that say which
//! model ranked or searched.

use std::path::Path;

use crate::{EmbedError, Embedder, ModelRef, locate, model_hash};

/// Which model, from where, with which weights: for logs and comparability records.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModelInfo {
    /// The hub's name of the model.
    pub model: String,
    /// The folder it was loaded from.
    pub folder: String,
    /// How the folder was found: flag, environment, cache or download.
    pub source: String,
    /// [`model_hash`] of its weights.
    pub hash: String,
}

/// Finds `model` (`explicit` is a folder a flag names), loads it and hashes its weights.
pub fn load(
    model: &ModelRef,
    explicit: Option<&Path>,
) -> Result<(Embedder, ModelInfo), EmbedError> {
    let located = locate(model, explicit)?;
    let embedder = Embedder::load(&located.dir)?;
    let info = ModelInfo {
        model: model.repo_id.to_owned(),
        folder: located.dir.display().to_string(),
        source: located.source.name().to_owned(),
        hash: model_hash(&located.dir)?,
    };
    Ok((embedder, info))
}
