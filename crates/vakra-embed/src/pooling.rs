//! How token states become one sentence vector: the `Pooling` and `Normalize` modules that a
//! sentence-transformers folder lists in `modules.json`, so that vectors are the ones the
//! model's own pipeline (`SentenceTransformer.encode`) would give.

use std::path::Path;

use candle_core::{D, DType, IndexOp, Tensor};
use serde::Deserialize;

const POOLING_MODULE: &str = "sentence_transformers.models.Pooling";
const NORMALIZE_MODULE: &str = "sentence_transformers.models.Normalize";

/// Which token states are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolingMode {
    /// The first token's state (`pooling_mode_cls_token`).
    Cls,
    /// The mean over the tokens of the text, padding excluded (`pooling_mode_mean_tokens`).
    Mean,
}

/// The pooling of one model folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pooling {
    pub(crate) mode: PoolingMode,
    /// Whether a `Normalize` module follows (unit-length vectors).
    pub(crate) normalize: bool,
}

#[derive(Deserialize)]
struct ModuleEntry {
    #[serde(default)]
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

impl Pooling {
    /// Reads `modules.json` and the pooling module's `config.json`. A folder without
    /// `modules.json` is a plain Hugging Face model, which sentence-transformers mean-pools
    /// without normalising. Returns the bytes read too, for the model fingerprint.
    pub(crate) fn read(dir: &Path) -> Result<(Self, Vec<u8>), String> {
        let modules_bytes = match std::fs::read(dir.join("modules.json")) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let plain = Self {
                    mode: PoolingMode::Mean,
                    normalize: false,
                };
                return Ok((plain, Vec::new()));
            }
            Err(e) => return Err(format!("modules.json: {e}")),
        };
        let modules: Vec<ModuleEntry> =
            serde_json::from_slice(&modules_bytes).map_err(|e| format!("modules.json: {e}"))?;
        let pooling = modules
            .iter()
            .find(|m| m.kind == POOLING_MODULE)
            .ok_or_else(|| "modules.json: no Pooling module".to_owned())?;
        if pooling.path.split(['/', '\\']).any(|part| part == "..") {
            return Err(format!(
                "modules.json: pooling path {:?} leaves the model folder",
                pooling.path
            ));
        }
        let config_path = Path::new(&pooling.path).join("config.json");
        let config_bytes = std::fs::read(dir.join(&config_path))
            .map_err(|e| format!("{}: {e}", config_path.display()))?;
        let config: PoolingConfig = serde_json::from_slice(&config_bytes)
            .map_err(|e| format!("{}: {e}", config_path.display()))?;
        let unsupported = config.pooling_mode_max_tokens
            || config.pooling_mode_mean_sqrt_len_tokens
            || config.pooling_mode_weightedmean_tokens
            || config.pooling_mode_lasttoken;
        let mode = match (
            config.pooling_mode_cls_token,
            config.pooling_mode_mean_tokens,
            unsupported,
        ) {
            (true, false, false) => PoolingMode::Cls,
            (false, true, false) => PoolingMode::Mean,
            _ => {
                return Err(format!(
                    "{}: only CLS or mean pooling (one of them) is supported",
                    config_path.display()
                ));
            }
        };
        let normalize = modules.iter().any(|m| m.kind == NORMALIZE_MODULE);
        let mut fingerprint = modules_bytes;
        fingerprint.extend_from_slice(&config_bytes);
        Ok((Self { mode, normalize }, fingerprint))
    }

    /// Sentence vectors `(batch, hidden)` from hidden states `(batch, sequence, hidden)` and
    /// the attention mask `(batch, sequence)` (1 for tokens, 0 for padding).
    pub(crate) fn apply(&self, hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let pooled = match self.mode {
            PoolingMode::Cls => hidden.i((.., 0))?.contiguous()?,
            PoolingMode::Mean => {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
                summed.broadcast_div(&counts)?
            }
        };
        if !self.normalize {
            return Ok(pooled);
        }
        let norms = pooled
            .sqr()?
            .sum_keepdim(D::Minus1)?
            .sqrt()?
            .clamp(1e-12, f64::MAX)?;
        pooled.broadcast_div(&norms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(modules: Option<&str>, pooling: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        if let Some(modules) = modules {
            std::fs::write(dir.path().join("modules.json"), modules).expect("write");
        }
        std::fs::create_dir(dir.path().join("1_Pooling")).expect("mkdir");
        std::fs::write(dir.path().join("1_Pooling/config.json"), pooling).expect("write");
        dir
    }

    const WITH_NORMALIZE: &str = r#"[{"path": "", "type": "sentence_transformers.models.Transformer"},
        {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]"#;
    const WITHOUT_NORMALIZE: &str = r#"[{"path": "", "type": "sentence_transformers.models.Transformer"},
        {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]"#;

    #[test]
    fn the_modules_decide_pooling_and_normalisation() {
        let cls = r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#;
        let mean = r#"{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true}"#;
        let read = |modules, pooling| Pooling::read(folder(modules, pooling).path()).map(|p| p.0);
        assert_eq!(
            read(Some(WITH_NORMALIZE), cls),
            Ok(Pooling {
                mode: PoolingMode::Cls,
                normalize: true
            })
        );
        assert_eq!(
            read(Some(WITHOUT_NORMALIZE), mean),
            Ok(Pooling {
                mode: PoolingMode::Mean,
                normalize: false
            })
        );
        // A plain Hugging Face folder: sentence-transformers mean-pools, without Normalize.
        assert_eq!(
            read(None, cls),
            Ok(Pooling {
                mode: PoolingMode::Mean,
                normalize: false
            })
        );
        let max = r#"{"pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": true}"#;
        let error = read(Some(WITH_NORMALIZE), max).expect_err("max pooling");
        assert!(error.contains("only CLS or mean pooling"), "{error}");
        let error = read(Some("[]"), cls).expect_err("no pooling module");
        assert!(error.contains("no Pooling module"), "{error}");
        let escaping = WITH_NORMALIZE.replace("\"1_Pooling\"", "\"../1_Pooling\"");
        let error = read(Some(&escaping), cls).expect_err("outside the folder");
        assert!(error.contains("leaves the model folder"), "{error}");
        let error = read(Some("{"), cls).expect_err("bad json");
        assert!(error.starts_with("modules.json:"), "{error}");
    }

    #[test]
    fn cls_and_mean_pool_the_right_tokens() {
        let device = candle_core::Device::Cpu;
        // One text of two tokens and one padding position.
        let hidden =
            Tensor::new(&[[[3f32, 4.0], [1.0, 0.0], [100.0, 100.0]]], &device).expect("tensor");
        let mask = Tensor::new(&[[1u32, 1, 0]], &device).expect("tensor");
        let pool = |mode, normalize| {
            Pooling { mode, normalize }
                .apply(&hidden, &mask)
                .and_then(|t| t.to_vec2::<f32>())
                .expect("pool")
        };
        assert_eq!(pool(PoolingMode::Cls, false), [[3.0, 4.0]]);
        assert_eq!(pool(PoolingMode::Cls, true), [[0.6, 0.8]]);
        assert_eq!(pool(PoolingMode::Mean, false), [[2.0, 2.0]]);
    }
}
