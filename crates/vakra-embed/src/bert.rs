//! A BERT encoder over candle-core/candle-nn, for sentence-embedding checkpoints in the Hugging
//! Face layout (`embeddings.*`, `encoder.layer.<i>.*`). Written here rather than taken from
//! candle-transformers, whose hundreds of other models would dominate the feature's build time.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The sizes every transformer `config.json` states, BERT's and ModernBERT's alike.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Dimensions {
    pub(crate) vocab_size: usize,
    pub(crate) hidden_size: usize,
    pub(crate) num_hidden_layers: usize,
    pub(crate) num_attention_heads: usize,
    pub(crate) intermediate_size: usize,
    pub(crate) max_position_embeddings: usize,
}

impl Dimensions {
    /// The size of one attention head; refuses a hidden size the heads do not divide.
    pub(crate) fn head_size(&self) -> Result<usize, String> {
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err("hidden_size is not a multiple of num_attention_heads".into());
        }
        Ok(self.hidden_size / self.num_attention_heads)
    }
}

/// The fields of a Hugging Face BERT `config.json` that the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BertConfig {
    #[serde(flatten)]
    pub(crate) dims: Dimensions,
    #[serde(default = "default_type_vocab_size")]
    pub(crate) type_vocab_size: usize,
    #[serde(default = "default_layer_norm_eps")]
    pub(crate) layer_norm_eps: f64,
    #[serde(default = "default_hidden_act")]
    pub(crate) hidden_act: String,
}

fn default_type_vocab_size() -> usize {
    2
}

fn default_layer_norm_eps() -> f64 {
    1e-12
}

fn default_hidden_act() -> String {
    "gelu".into()
}

/// The feed-forward activation named by a config's `hidden_act` / `hidden_activation`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Activation {
    /// Hugging Face's `gelu`: the exact, erf-based GELU.
    GeluErf,
    /// `gelu_new` / `gelu_pytorch_tanh`: the tanh approximation.
    GeluTanh,
    Relu,
}

impl Activation {
    pub(crate) fn parse(name: &str) -> Result<Self, String> {
        match name {
            "gelu" => Ok(Self::GeluErf),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Ok(Self::GeluTanh),
            "relu" => Ok(Self::Relu),
            other => Err(format!("unsupported hidden_act {other:?}")),
        }
    }

    pub(crate) fn apply(self, xs: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::GeluErf => xs.gelu_erf(),
            Self::GeluTanh => xs.gelu(),
            Self::Relu => xs.relu(),
        }
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_output: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// The encoder: token, position and segment embeddings, then the transformer layers.
pub(crate) struct Bert {
    word_embeddings: Embedding,
    position_embeddings: Embedding,
    token_type_embeddings: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    activation: Activation,
    device: Device,
}

impl Bert {
    /// Loads the weights; a checkpoint with a `bert.` prefix (pre-training heads) is accepted.
    pub(crate) fn load(vb: VarBuilder, config: &BertConfig) -> Result<Self, String> {
        let activation = Activation::parse(&config.hidden_act)?;
        config.dims.head_size()?;
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let hidden = config.dims.hidden_size;
        let eps = config.layer_norm_eps;
        let load = || -> candle_core::Result<Self> {
            let e = vb.pp("embeddings");
            let layers = (0..config.dims.num_hidden_layers)
                .map(|i| {
                    let l = vb.pp(format!("encoder.layer.{i}"));
                    Ok(Layer {
                        query: linear(hidden, hidden, l.pp("attention.self.query"))?,
                        key: linear(hidden, hidden, l.pp("attention.self.key"))?,
                        value: linear(hidden, hidden, l.pp("attention.self.value"))?,
                        attention_output: linear(hidden, hidden, l.pp("attention.output.dense"))?,
                        attention_norm: layer_norm(
                            hidden,
                            eps,
                            l.pp("attention.output.LayerNorm"),
                        )?,
                        intermediate: linear(
                            hidden,
                            config.dims.intermediate_size,
                            l.pp("intermediate.dense"),
                        )?,
                        output: linear(
                            config.dims.intermediate_size,
                            hidden,
                            l.pp("output.dense"),
                        )?,
                        output_norm: layer_norm(hidden, eps, l.pp("output.LayerNorm"))?,
                    })
                })
                .collect::<candle_core::Result<Vec<_>>>()?;
            Ok(Self {
                word_embeddings: embedding(
                    config.dims.vocab_size,
                    hidden,
                    e.pp("word_embeddings"),
                )?,
                position_embeddings: embedding(
                    config.dims.max_position_embeddings,
                    hidden,
                    e.pp("position_embeddings"),
                )?,
                token_type_embeddings: embedding(
                    config.type_vocab_size,
                    hidden,
                    e.pp("token_type_embeddings"),
                )?,
                embedding_norm: layer_norm(hidden, eps, e.pp("LayerNorm"))?,
                layers,
                heads: config.dims.num_attention_heads,
                activation,
                device: vb.device().clone(),
            })
        };
        load().map_err(|e| e.to_string())
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// Hidden states `(batch, sequence, hidden)` for token ids, segment ids and the attention
    /// mask (1 for tokens, 0 for padding), all `(batch, sequence)`.
    pub(crate) fn forward(
        &self,
        ids: &Tensor,
        type_ids: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (_, sequence) = ids.dims2()?;
        let positions = Tensor::arange(0u32, sequence as u32, &self.device)?.unsqueeze(0)?;
        let embedded = self
            .word_embeddings
            .forward(ids)?
            .broadcast_add(&self.position_embeddings.forward(&positions)?)?
            .add(&self.token_type_embeddings.forward(type_ids)?)?;
        let mut hidden = self.embedding_norm.forward(&embedded)?;
        let bias = padding_bias(mask)?;
        for layer in &self.layers {
            hidden = self.layer(layer, &hidden, &bias)?;
        }
        Ok(hidden)
    }

    fn layer(&self, layer: &Layer, hidden: &Tensor, bias: &Tensor) -> candle_core::Result<Tensor> {
        let (batch, sequence, size) = hidden.dims3()?;
        let head_size = size / self.heads;
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((batch, sequence, self.heads, head_size))?
                .transpose(1, 2)?
                .contiguous()
        };
        let query = split(layer.query.forward(hidden)?)?;
        let key = split(layer.key.forward(hidden)?)?;
        let value = split(layer.value.forward(hidden)?)?;
        let context = attend(&query, &key, &value, bias)?;
        let attended = layer
            .attention_norm
            .forward(&(layer.attention_output.forward(&context)? + hidden)?)?;
        let intermediate = self
            .activation
            .apply(&layer.intermediate.forward(&attended)?)?;
        layer
            .output_norm
            .forward(&(layer.output.forward(&intermediate)? + &attended)?)
    }
}

/// The attention bias `(batch, 1, 1, sequence)` of a mask `(batch, sequence)`: padding gets the
/// most negative score before the softmax, as Hugging Face does.
pub(crate) fn padding_bias(mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?;
    ((mask.ones_like()? - mask)? * f64::from(f32::MIN))?
        .unsqueeze(1)?
        .unsqueeze(1)
}

/// Scaled dot-product attention: query, key and value states `(batch, heads, sequence,
/// head_size)` and an additive bias broadcast to the scores give the context
/// `(batch, sequence, heads * head_size)`.
pub(crate) fn attend(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    bias: &Tensor,
) -> candle_core::Result<Tensor> {
    let (batch, heads, sequence, head_size) = query.dims4()?;
    let scores = (query.matmul(&key.t()?)? / (head_size as f64).sqrt())?.broadcast_add(bias)?;
    candle_nn::ops::softmax_last_dim(&scores)?
        .matmul(value)?
        .transpose(1, 2)?
        .reshape((batch, sequence, heads * head_size))
}
