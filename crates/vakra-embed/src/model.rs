//! A sentence-embedding model read from a local folder and run on the CPU: the
//! sentence-transformers pipeline (tokenize, encode with BERT or ModernBERT as `config.json`'s
//! `model_type` says, pool and normalise as `modules.json` says).

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use serde::Deserialize;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::bert::{Bert, Dimensions};
use super::modernbert::ModernBert;
use super::pooling::Pooling;

use crate::EmbedError;

/// Texts embedded per forward pass.
const BATCH: usize = 32;

/// What the loader needs from `config.json` whatever the architecture.
#[derive(Deserialize)]
struct CommonConfig {
    #[serde(default)]
    model_type: Option<String>,
    /// The id the tokenizer pads with, when its own file does not say.
    #[serde(default)]
    pad_token_id: Option<u32>,
    #[serde(flatten)]
    dims: Dimensions,
}

/// The transformer that turns tokens into states.
enum Encoder {
    Bert(Bert),
    ModernBert(ModernBert),
}

impl Encoder {
    /// Reads `config.json` for `model_type` (absent: BERT, as older checkpoints write) and
    /// loads that architecture; returns the settings both architectures share too.
    fn load(config: &[u8], vb: VarBuilder) -> Result<(Self, CommonConfig), String> {
        fn parse<T: serde::de::DeserializeOwned>(config: &[u8]) -> Result<T, String> {
            serde_json::from_slice(config).map_err(|e| format!("config.json: {e}"))
        }
        let weights = |e: String| format!("model.safetensors: {e}");
        let common: CommonConfig = parse(config)?;
        let encoder = match common.model_type.as_deref() {
            None | Some("bert") => Self::Bert(Bert::load(vb, &parse(config)?).map_err(weights)?),
            Some("modernbert") => {
                Self::ModernBert(ModernBert::load(vb, &parse(config)?).map_err(weights)?)
            }
            Some(other) => {
                return Err(format!(
                    "config.json: model_type {other:?} is not supported (bert or modernbert)"
                ));
            }
        };
        Ok((encoder, common))
    }

    fn device(&self) -> &Device {
        match self {
            Self::Bert(model) => model.device(),
            Self::ModernBert(model) => model.device(),
        }
    }

    fn forward(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::Bert(model) => model.forward(ids, types, mask),
            Self::ModernBert(model) => model.forward(ids, mask),
        }
    }
}

/// A loaded embedding model.
pub struct Embedder {
    encoder: Encoder,
    pooling: Pooling,
    tokenizer: Tokenizer,
    name: String,
    fingerprint: String,
    dimension: usize,
}

fn model_error(dir: &Path, what: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model(format!("embedding model {}: {what}", dir.display()))
}

impl Embedder {
    /// Loads `config.json`, `tokenizer.json`, `model.safetensors` and the pooling modules from
    /// `dir`; the maximum sequence length comes from `sentence_bert_config.json` when present.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        if !dir.is_dir() {
            return Err(model_error(dir, "not a folder"));
        }
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| model_error(dir, format_args!("{name}: {e}")))
        };
        let config_bytes = read("config.json")?;
        let tokenizer_bytes = read("tokenizer.json")?;
        let weights = read("model.safetensors")?;
        let (pooling, pooling_bytes) = Pooling::read(dir).map_err(|e| model_error(dir, e))?;
        let fingerprint = format!(
            "{:016x}",
            fnv1a(&[
                &config_bytes,
                &tokenizer_bytes,
                &pooling_bytes,
                &weights.len().to_le_bytes()
            ])
        );
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| model_error(dir, format_args!("model.safetensors: {e}")))?;
        let (encoder, config) =
            Encoder::load(&config_bytes, vb).map_err(|e| model_error(dir, e))?;
        let max_positions = config.dims.max_position_embeddings;
        let max_length = std::fs::read(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("max_seq_length")?.as_u64())
            .map_or(max_positions, |n| n as usize)
            .min(max_positions);
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| model_error(dir, format_args!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|e| model_error(dir, format_args!("tokenizer.json: {e}")))?;
        // Padding only has to be masked; the file's own pad token is kept when it names one.
        let mut padding = tokenizer
            .get_padding()
            .cloned()
            .unwrap_or_else(|| PaddingParams {
                pad_id: config.pad_token_id.unwrap_or_default(),
                ..PaddingParams::default()
            });
        padding.strategy = PaddingStrategy::BatchLongest;
        tokenizer.with_padding(Some(padding));
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            encoder,
            pooling,
            tokenizer,
            name,
            fingerprint,
            dimension: config.dims.hidden_size,
        })
    }

    /// The folder's name, recorded in index manifests.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Identifies the exact files, so that an index is only queried with its own model.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The length of each embedding.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Embeddings of `texts`, in order (unit length when the model normalises).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(
                self.embed_batch(chunk)
                    .map_err(|e| EmbedError::Model(format!("embedding failed: {e}")))?,
            );
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| e.to_string())?;
        let tensor = |rows: Vec<&[u32]>| -> candle_core::Result<Tensor> {
            let rows = rows
                .into_iter()
                .map(|r| Tensor::new(r, self.encoder.device()))
                .collect::<candle_core::Result<Vec<_>>>()?;
            Tensor::stack(&rows, 0)
        };
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let ids = tensor(encodings.iter().map(|e| e.get_ids()).collect())?;
            let types = tensor(encodings.iter().map(|e| e.get_type_ids()).collect())?;
            let mask = tensor(encodings.iter().map(|e| e.get_attention_mask()).collect())?;
            let hidden = self.encoder.forward(&ids, &types, &mask)?;
            self.pooling.apply(&hidden, &mask)?.to_vec2::<f32>()
        };
        run().map_err(|e| e.to_string())
    }
}

/// FNV-1a over several byte strings: a stable, dependency-free file fingerprint.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in *part {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compares with the embeddings sentence-transformers gave for the tiny random ModernBERT
    /// models of `scripts/modernbert-reference.py`: the committed fixture
    /// `tests/fixtures/modernbert-tiny`, or the folder `VAKRA_MODERNBERT_DIR` names.
    #[test]
    fn modernbert_matches_transformers() {
        let dir = std::env::var_os("VAKRA_MODERNBERT_DIR").map_or_else(
            || {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/modernbert-tiny")
            },
            std::path::PathBuf::from,
        );
        for variant in ["cls", "mean"] {
            let folder = dir.join(variant);
            let reference: serde_json::Value = serde_json::from_slice(
                &std::fs::read(folder.join("reference.json")).expect("reference.json"),
            )
            .expect("reference json");
            let texts: Vec<&str> = reference["texts"]
                .as_array()
                .expect("texts")
                .iter()
                .map(|t| t.as_str().expect("text"))
                .collect();
            let expected: Vec<Vec<f32>> =
                serde_json::from_value(reference["embeddings"].clone()).expect("embeddings");
            let embedder = Embedder::load(&folder).expect("load");
            assert!(matches!(embedder.encoder, Encoder::ModernBert(_)));
            let batched = embedder.embed(&texts).expect("embed");
            let single: Vec<Vec<f32>> = texts
                .iter()
                .map(|t| embedder.embed(&[t]).expect("embed").remove(0))
                .collect();
            let mut worst = 0f32;
            for got in [&batched, &single] {
                assert_eq!(got.len(), expected.len());
                for (row, want) in got.iter().zip(&expected) {
                    assert_eq!(row.len(), want.len());
                    for (a, b) in row.iter().zip(want) {
                        worst = worst.max((a - b).abs());
                    }
                }
            }
            eprintln!("{variant}: max abs diff to sentence-transformers {worst:.2e}");
            assert!(worst <= 1e-4, "{variant}: max abs diff {worst}");
        }
    }
}
