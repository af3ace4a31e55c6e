//! A ModernBERT encoder (the architecture of the reference's granite-embedding-english-r2) over
//! candle-core/candle-nn, for checkpoints in the Hugging Face layout (`embeddings.*`,
//! `layers.<i>.*`, `final_norm`, with or without a `model.` prefix): bias-free pre-norm layers,
//! rotary positions, GeGLU feed-forward, and sliding-window attention on all but every
//! `global_attn_every_n_layers`-th layer. Written here for the same reason as the BERT encoder.

use std::collections::HashMap;

use candle_core::{D, DType, Device, IndexOp, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, linear_b};
use serde::Deserialize;

use super::bert::{Activation, Dimensions, attend, padding_bias};

/// The fields of a Hugging Face ModernBERT `config.json` that the encoder needs, in either of
/// the two forms transformers writes: per-kind rope thetas and a global-layer period (4.x), or
/// `layer_types` and `rope_parameters` (5.x).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ModernBertConfig {
    #[serde(flatten)]
    dims: Dimensions,
    #[serde(default = "default_norm_eps")]
    norm_eps: f64,
    #[serde(default)]
    norm_bias: bool,
    #[serde(default)]
    attention_bias: bool,
    #[serde(default)]
    mlp_bias: bool,
    #[serde(default = "default_activation")]
    hidden_activation: String,
    #[serde(default = "default_global_every")]
    global_attn_every_n_layers: usize,
    #[serde(default = "default_local_attention")]
    local_attention: usize,
    #[serde(default = "default_global_theta")]
    global_rope_theta: f64,
    #[serde(default = "default_local_theta")]
    local_rope_theta: f64,
    #[serde(default)]
    layer_types: Option<Vec<String>>,
    #[serde(default)]
    rope_parameters: Option<HashMap<String, RopeParameters>>,
}

#[derive(Debug, Clone, Deserialize)]
struct RopeParameters {
    rope_theta: f64,
    #[serde(default)]
    rope_type: Option<String>,
}

fn default_norm_eps() -> f64 {
    1e-5
}

fn default_activation() -> String {
    "gelu".into()
}

fn default_global_every() -> usize {
    3
}

fn default_local_attention() -> usize {
    128
}

fn default_global_theta() -> f64 {
    160_000.0
}

fn default_local_theta() -> f64 {
    10_000.0
}

const FULL_ATTENTION: &str = "full_attention";
const SLIDING_ATTENTION: &str = "sliding_attention";

impl ModernBertConfig {
    /// Whether each layer attends within the sliding window (`true`) or globally.
    fn sliding_layers(&self) -> Result<Vec<bool>, String> {
        match &self.layer_types {
            Some(types) => {
                if types.len() != self.dims.num_hidden_layers {
                    return Err("layer_types does not have num_hidden_layers entries".into());
                }
                types
                    .iter()
                    .map(|t| match t.as_str() {
                        FULL_ATTENTION => Ok(false),
                        SLIDING_ATTENTION => Ok(true),
                        other => Err(format!("unsupported layer type {other:?}")),
                    })
                    .collect()
            }
            None if self.global_attn_every_n_layers == 0 => {
                Err("global_attn_every_n_layers must be positive".into())
            }
            None => Ok((0..self.dims.num_hidden_layers)
                .map(|i| !i.is_multiple_of(self.global_attn_every_n_layers))
                .collect()),
        }
    }

    /// The rope base of global and of sliding-window layers.
    fn rope_thetas(&self) -> Result<(f64, f64), String> {
        let Some(parameters) = &self.rope_parameters else {
            return Ok((self.global_rope_theta, self.local_rope_theta));
        };
        let theta = |kind: &str, default: f64| match parameters.get(kind) {
            None => Ok(default),
            Some(p) if p.rope_type.as_deref().is_none_or(|t| t == "default") => Ok(p.rope_theta),
            Some(p) => Err(format!(
                "unsupported rope_type {:?} for {kind}",
                p.rope_type.as_deref().unwrap_or_default()
            )),
        };
        Ok((
            theta(FULL_ATTENTION, self.global_rope_theta)?,
            theta(SLIDING_ATTENTION, self.local_rope_theta)?,
        ))
    }
}

/// Cosine and sine tables `(max_positions, head_size / 2)` of one rope base.
struct Rotary {
    cos: Tensor,
    sin: Tensor,
}

impl Rotary {
    fn new(
        theta: f64,
        head_size: usize,
        positions: usize,
        device: &Device,
    ) -> Result<Self, String> {
        let build = || -> candle_core::Result<Self> {
            let inverse: Vec<f32> = (0..head_size)
                .step_by(2)
                .map(|i| (1.0 / theta.powf(i as f64 / head_size as f64)) as f32)
                .collect();
            let inverse = Tensor::from_vec(inverse, (1, head_size / 2), device)?;
            let t = Tensor::arange(0u32, positions as u32, device)?
                .to_dtype(DType::F32)?
                .reshape((positions, 1))?;
            let angles = t.matmul(&inverse)?;
            Ok(Self {
                cos: angles.cos()?,
                sin: angles.sin()?,
            })
        };
        build().map_err(|e| e.to_string())
    }

    /// Rotates `(batch, heads, sequence, head_size)` query or key states (the half-split form
    /// Hugging Face uses).
    fn apply(&self, xs: &Tensor) -> candle_core::Result<Tensor> {
        let sequence = xs.dim(2)?;
        candle_nn::rotary_emb::rope(
            &xs.contiguous()?,
            &self.cos.narrow(0, 0, sequence)?,
            &self.sin.narrow(0, 0, sequence)?,
        )
    }
}

struct Layer {
    /// Absent on the first layer, whose input is the normalised embedding.
    attention_norm: Option<LayerNorm>,
    qkv: Linear,
    attention_output: Linear,
    mlp_norm: LayerNorm,
    mlp_in: Linear,
    mlp_out: Linear,
    sliding: bool,
}

/// The encoder: token embeddings and their norm, the layers, the final norm.
pub(crate) struct ModernBert {
    embeddings: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    final_norm: LayerNorm,
    global_rotary: Rotary,
    local_rotary: Rotary,
    /// Tokens at most this far apart attend to each other in sliding-window layers.
    window: usize,
    heads: usize,
    activation: Activation,
    max_positions: usize,
    device: Device,
}

fn norm(size: usize, eps: f64, bias: bool, vb: VarBuilder) -> candle_core::Result<LayerNorm> {
    let weight = vb.get(size, "weight")?;
    Ok(if bias {
        LayerNorm::new(weight, vb.get(size, "bias")?, eps)
    } else {
        LayerNorm::new_no_bias(weight, eps)
    })
}

impl ModernBert {
    /// Loads the weights; a checkpoint with a `model.` prefix (masked-LM heads) is accepted.
    pub(crate) fn load(vb: VarBuilder, config: &ModernBertConfig) -> Result<Self, String> {
        let activation = Activation::parse(&config.hidden_activation)?;
        let heads = config.dims.num_attention_heads;
        let head_size = config.dims.head_size()?;
        if !head_size.is_multiple_of(2) {
            return Err("the attention head size must be even for rotary positions".into());
        }
        let sliding = config.sliding_layers()?;
        let (global_theta, local_theta) = config.rope_thetas()?;
        let vb = if vb.contains_tensor("model.embeddings.tok_embeddings.weight") {
            vb.pp("model")
        } else {
            vb
        };
        let device = vb.device().clone();
        let positions = config.dims.max_position_embeddings;
        let global_rotary = Rotary::new(global_theta, head_size, positions, &device)?;
        let local_rotary = Rotary::new(local_theta, head_size, positions, &device)?;
        let (hidden, eps, norm_bias) = (config.dims.hidden_size, config.norm_eps, config.norm_bias);
        let load = || -> candle_core::Result<Self> {
            let layers = sliding
                .iter()
                .enumerate()
                .map(|(i, &sliding)| {
                    let l = vb.pp(format!("layers.{i}"));
                    Ok(Layer {
                        attention_norm: if i == 0 {
                            None
                        } else {
                            Some(norm(hidden, eps, norm_bias, l.pp("attn_norm"))?)
                        },
                        qkv: linear_b(
                            hidden,
                            3 * hidden,
                            config.attention_bias,
                            l.pp("attn.Wqkv"),
                        )?,
                        attention_output: linear_b(
                            hidden,
                            hidden,
                            config.attention_bias,
                            l.pp("attn.Wo"),
                        )?,
                        mlp_norm: norm(hidden, eps, norm_bias, l.pp("mlp_norm"))?,
                        mlp_in: linear_b(
                            hidden,
                            2 * config.dims.intermediate_size,
                            config.mlp_bias,
                            l.pp("mlp.Wi"),
                        )?,
                        mlp_out: linear_b(
                            config.dims.intermediate_size,
                            hidden,
                            config.mlp_bias,
                            l.pp("mlp.Wo"),
                        )?,
                        sliding,
                    })
                })
                .collect::<candle_core::Result<Vec<_>>>()?;
            let e = vb.pp("embeddings");
            Ok(Self {
                embeddings: embedding(config.dims.vocab_size, hidden, e.pp("tok_embeddings"))?,
                embedding_norm: norm(hidden, eps, norm_bias, e.pp("norm"))?,
                layers,
                final_norm: norm(hidden, eps, norm_bias, vb.pp("final_norm"))?,
                global_rotary,
                local_rotary,
                window: config.local_attention / 2,
                heads,
                activation,
                max_positions: positions,
                device: device.clone(),
            })
        };
        load().map_err(|e| e.to_string())
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// Hidden states `(batch, sequence, hidden)` for token ids and the attention mask (1 for
    /// tokens, 0 for padding), both `(batch, sequence)`.
    pub(crate) fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (_, sequence) = ids.dims2()?;
        if sequence > self.max_positions {
            candle_core::bail!(
                "{sequence} tokens exceed max_position_embeddings ({})",
                self.max_positions
            );
        }
        let global = padding_bias(mask)?;
        // A key outside the window is masked like padding; the minimum keeps every score
        // finite, so that rows with nothing to attend to stay finite too.
        let outside: Vec<f32> = (0..sequence)
            .flat_map(|i| {
                (0..sequence).map(move |j| {
                    if i.abs_diff(j) > self.window {
                        f32::MIN
                    } else {
                        0.0
                    }
                })
            })
            .collect();
        let local = Tensor::from_vec(outside, (sequence, sequence), &self.device)?
            .broadcast_minimum(&global)?;
        let mut hidden = self
            .embedding_norm
            .forward(&self.embeddings.forward(ids)?)?;
        for layer in &self.layers {
            let (bias, rotary) = if layer.sliding {
                (&local, &self.local_rotary)
            } else {
                (&global, &self.global_rotary)
            };
            hidden = self.layer(layer, &hidden, bias, rotary)?;
        }
        self.final_norm.forward(&hidden)
    }

    fn layer(
        &self,
        layer: &Layer,
        hidden: &Tensor,
        bias: &Tensor,
        rotary: &Rotary,
    ) -> candle_core::Result<Tensor> {
        let (batch, sequence, size) = hidden.dims3()?;
        let head_size = size / self.heads;
        let normed = match &layer.attention_norm {
            Some(norm) => norm.forward(hidden)?,
            None => hidden.clone(),
        };
        let qkv = layer
            .qkv
            .forward(&normed)?
            .reshape((batch, sequence, 3, self.heads, head_size))?
            .permute((2, 0, 3, 1, 4))?;
        let query = rotary.apply(&qkv.i(0)?)?;
        let key = rotary.apply(&qkv.i(1)?)?;
        let value = qkv.i(2)?.contiguous()?;
        let context = attend(&query, &key, &value, bias)?;
        let attended = (layer.attention_output.forward(&context)? + hidden)?;
        let gates = layer
            .mlp_in
            .forward(&layer.mlp_norm.forward(&attended)?)?
            .chunk(2, D::Minus1)?;
        let mixed = (self.activation.apply(&gates[0])? * &gates[1])?;
        layer.mlp_out.forward(&mixed)? + attended
    }
}
