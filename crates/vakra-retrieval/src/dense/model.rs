//! A sentence-embedding model read from a local folder and run on the CPU: the
//! sentence-transformers pipeline of all-MiniLM-L6-v2 (tokenize, BERT-encode, mean-pool over
//! the attention mask, L2-normalise).

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::bert::{Bert, BertConfig, mean_pool_normalised};

use crate::RetrievalError;

/// Texts embedded per forward pass.
const BATCH: usize = 32;

/// A loaded embedding model.
pub(crate) struct Embedder {
    model: Bert,
    tokenizer: Tokenizer,
    /// The folder's name, recorded in index manifests.
    pub(crate) name: String,
    /// Identifies the exact files, so that an index is only queried with its own model.
    pub(crate) fingerprint: String,
    pub(crate) dimension: usize,
}

fn dense_error(dir: &Path, what: impl std::fmt::Display) -> RetrievalError {
    RetrievalError::Dense(format!("embedding model {}: {what}", dir.display()))
}

impl Embedder {
    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from `dir`; the maximum
    /// sequence length comes from `sentence_bert_config.json` when present.
    pub(crate) fn load(dir: &Path) -> Result<Self, RetrievalError> {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| dense_error(dir, format_args!("{name}: {e}")))
        };
        let config_bytes = read("config.json")?;
        let tokenizer_bytes = read("tokenizer.json")?;
        let weights = read("model.safetensors")?;
        let config: BertConfig = serde_json::from_slice(&config_bytes)
            .map_err(|e| dense_error(dir, format_args!("config.json: {e}")))?;
        let max_length = std::fs::read(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("max_seq_length")?.as_u64())
            .map_or(config.max_position_embeddings, |n| n as usize)
            .min(config.max_position_embeddings);
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| dense_error(dir, format_args!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|e| dense_error(dir, format_args!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        let fingerprint = format!(
            "{:016x}",
            fnv1a(&[
                &config_bytes,
                &tokenizer_bytes,
                &weights.len().to_le_bytes()
            ])
        );
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| dense_error(dir, format_args!("model.safetensors: {e}")))?;
        let model = Bert::load(vb, &config)
            .map_err(|e| dense_error(dir, format_args!("model.safetensors: {e}")))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            model,
            tokenizer,
            name,
            fingerprint,
            dimension: config.hidden_size,
        })
    }

    /// Unit-length embeddings of `texts`, in order.
    pub(crate) fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RetrievalError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(
                self.embed_batch(chunk)
                    .map_err(|e| RetrievalError::Dense(format!("embedding failed: {e}")))?,
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
                .map(|r| Tensor::new(r, self.model.device()))
                .collect::<candle_core::Result<Vec<_>>>()?;
            Tensor::stack(&rows, 0)
        };
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let ids = tensor(encodings.iter().map(|e| e.get_ids()).collect())?;
            let types = tensor(encodings.iter().map(|e| e.get_type_ids()).collect())?;
            let mask = tensor(encodings.iter().map(|e| e.get_attention_mask()).collect())?;
            let hidden = self.model.forward(&ids, &types, &mask)?;
            mean_pool_normalised(&hidden, &mask)?.to_vec2::<f32>()
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
