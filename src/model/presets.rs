//! Model and GPU presets as plain data, each with its source.
//!
//! Parameter counts are not typed in: they are computed from the architecture
//! (`Architecture::exact_parameter_count`), exactly; a preset uses a rounded
//! count only where its source quotes one (the explainer's 6.74B for Llama 2 7B).

use super::activations::Attention;
use super::precision::Fp8;
use super::units::{Bytes, BytesPerSecond, FlopPerSecond};

/// The feed-forward block of a transformer layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mlp {
    /// Two matrices h×f and f×h with a GELU between (GPT-2, GPT-3).
    Gelu,
    /// Three matrices: gate and up h×f, down f×h (SwiGLU; Shazeer 2020, used by Llama).
    SwiGlu,
}

/// The normalisation layers, which carry a few parameters each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norm {
    /// LayerNorm: a gain and a bias of width h.
    LayerNorm,
    /// RMSNorm: a gain of width h.
    RmsNorm,
}

/// A decoder-only transformer's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Architecture {
    pub layers: u32,
    /// Model width h.
    pub hidden: u32,
    /// Feed-forward width f.
    pub ffn: u32,
    /// Attention heads a.
    pub heads: u32,
    /// Key/value heads (grouped-query attention when fewer than `heads`).
    pub kv_heads: u32,
    pub vocab: u32,
    /// Training sequence length s, in tokens.
    pub seq: u32,
    pub mlp: Mlp,
    pub norm: Norm,
    /// Biases on every linear layer (GPT-3) or none (Llama).
    pub biases: bool,
    /// Whether the output projection shares the input embedding's matrix.
    pub tied_embeddings: bool,
    /// Learned absolute position embeddings (GPT-3) rather than rotary ones.
    pub learned_positions: bool,
    /// Experts in each layer's MLP: 1 for a dense model (Mixtral 8x7B has 8).
    pub experts: u32,
    /// Experts each token is routed to (top-k; Mixtral's 2).
    pub top_k: u32,
    /// Trained with dropout, so its masks are stored for the backward pass
    /// (GPT-3 as Megatron-LM trains it, 0.1; Llama's configs set attention
    /// and residual dropout to 0, and Mixtral's attention dropout is 0).
    pub dropout: bool,
    /// Multi-head latent attention's low-rank projections, in place of the
    /// usual Q, K, V and output matrices (DeepSeek-V2 and V3).
    pub mla: Option<Mla>,
    /// Experts every token goes through besides its top-k (DeepSeek's
    /// shared experts), each of width `ffn`.
    pub shared_experts: u32,
    /// Leading layers with a dense MLP of width `dense_ffn` in place of the
    /// experts (DeepSeek-V3's `first_k_dense_replace`, 3).
    pub dense_layers: u32,
    pub dense_ffn: u32,
    /// A learned bias a router adds to each expert's score, one a layer an
    /// expert (DeepSeek-V3's `e_score_correction_bias`).
    pub router_bias: bool,
}

/// Multi-head latent attention's shape (DeepSeek-AI 2024, DeepSeek-V3,
/// section 2.1.1; its configuration's `q_lora_rank`, `kv_lora_rank`,
/// `qk_nope_head_dim`, `qk_rope_head_dim`, `v_head_dim`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mla {
    /// The queries' compressed width d'_c.
    pub q_rank: u32,
    /// The keys' and values' compressed width d_c.
    pub kv_rank: u32,
    /// A head's query and key width without and with the rotary part.
    pub head_dim: u32,
    pub rope_dim: u32,
    /// A head's value width.
    pub v_dim: u32,
}

impl Architecture {
    fn h(&self) -> f64 {
        f64::from(self.hidden)
    }

    /// Width of the key and value projections: kv_heads × head dimension.
    fn kv_width(&self) -> f64 {
        self.h() * f64::from(self.kv_heads) / f64::from(self.heads.max(1))
    }

    /// Parameters in one expert's MLP matrices (the MLP of a dense model).
    pub fn expert_params(&self) -> f64 {
        let mlp_matrices = match self.mlp {
            Mlp::Gelu => 2.0,
            Mlp::SwiGlu => 3.0,
        };
        mlp_matrices * self.h() * f64::from(self.ffn)
    }

    /// Experts in a layer (1 when dense).
    pub fn experts(&self) -> f64 {
        f64::from(self.experts.max(1))
    }

    /// Experts a token passes through: top-k, at most the experts.
    pub fn experts_used(&self) -> f64 {
        f64::from(self.top_k.clamp(1, self.experts.max(1)))
    }

    /// The router's matrix, h × experts, when there is more than one expert
    /// (Fedus et al. 2021, section 2.1), and its bias where it has one.
    fn router_params(&self) -> f64 {
        if self.experts > 1 {
            let bias = if self.router_bias {
                self.experts()
            } else {
                0.0
            };
            self.h() * self.experts() + bias
        } else {
            0.0
        }
    }

    /// The attention's matrices: Q, K, V and the output, 2h² + 2h·kv; or
    /// multi-head latent attention's, the queries compressed to d'_c and
    /// expanded to a heads of (d_h + d_r), the keys and values compressed to
    /// d_c (with the shared rotary key, d_r) and expanded to a heads of
    /// (d_h + d_v), and the output from a·d_v (DeepSeek-V3, section 2.1.1).
    fn attention_params(&self) -> f64 {
        let h = self.h();
        match self.mla {
            None => 2.0 * h * h + 2.0 * h * self.kv_width(),
            Some(mla) => {
                let a = f64::from(self.heads);
                let [q, kv, d, r, v] = [
                    mla.q_rank,
                    mla.kv_rank,
                    mla.head_dim,
                    mla.rope_dim,
                    mla.v_dim,
                ]
                .map(f64::from);
                h * q + q * a * (d + r) + h * (kv + r) + kv * a * (d + v) + a * v * h
            }
        }
    }

    /// The width attention's scores work at, h for the usual attention: the
    /// scores QKᵀ and their product with V take 2·2·s·(this) FLOP a token a
    /// layer; under MLA each head's query and key are d_h + d_r wide and
    /// its value d_v, so a(d_h + d_r + d_v)/2.
    pub fn attention_width(&self) -> f64 {
        match self.mla {
            None => self.h(),
            Some(mla) => {
                f64::from(self.heads) * f64::from(mla.head_dim + mla.rope_dim + mla.v_dim) / 2.0
            }
        }
    }

    /// Layers with experts, and leading dense ones.
    fn layer_counts(&self) -> (f64, f64) {
        let dense = if self.experts > 1 {
            self.dense_layers.min(self.layers)
        } else {
            0
        };
        (f64::from(self.layers - dense), f64::from(dense))
    }

    /// The dense MLP of a leading dense layer, against the experts' layer's.
    fn dense_mlp_params(&self) -> f64 {
        self.expert_params() * f64::from(self.dense_ffn) / f64::from(self.ffn.max(1))
    }

    /// Parameters in an expert layer's matrices every expert-parallel rank
    /// keeps: the attention, the router and any shared experts.
    fn expert_layer_dense_params(&self) -> f64 {
        self.attention_params()
            + self.router_params()
            + f64::from(self.shared_experts) * self.expert_params()
    }

    /// Per layer, averaged over all of them (the leading dense layers and
    /// the expert layers), in matrices every expert-parallel rank keeps.
    pub fn layer_dense_matrix_params(&self) -> f64 {
        let (moe, dense) = self.layer_counts();
        (moe * self.expert_layer_dense_params()
            + dense * (self.attention_params() + self.dense_mlp_params()))
            / f64::from(self.layers.max(1))
    }

    /// The routed experts' parameters a layer, averaged over all layers.
    pub fn layer_expert_params(&self) -> f64 {
        let (moe, _) = self.layer_counts();
        moe * self.experts() * self.expert_params() / f64::from(self.layers.max(1))
    }

    /// Parameters in one layer's weight matrices (attention, router and
    /// every expert's MLP), which tensor parallelism splits (Shoeybi et al.
    /// 2019, section 3), averaged over the layers.
    pub fn layer_matrix_params(&self) -> f64 {
        self.layer_dense_matrix_params() + self.layer_expert_params()
    }

    /// Parameters in the matrices one token multiplies by in a layer: the
    /// attention, the router, its top-k experts' MLPs and the shared
    /// experts (a dense layer's MLP), averaged over the layers.
    pub fn layer_active_matrix_params(&self) -> f64 {
        self.layer_dense_matrix_params()
            + self.layer_expert_params() * self.experts_used() / self.experts()
    }

    /// Parameters in one layer that every tensor-parallel rank keeps whole:
    /// the norms (MLA's two on its compressed widths too), and the biases
    /// of row-parallel layers.
    pub fn layer_replicated_params(&self) -> f64 {
        let h = self.h();
        let norms = match self.norm {
            Norm::LayerNorm => 4.0 * h,
            Norm::RmsNorm => 2.0 * h,
        };
        let latent = self
            .mla
            .map_or(0.0, |mla| f64::from(mla.q_rank + mla.kv_rank));
        let row_biases = if self.biases { 2.0 * h } else { 0.0 };
        norms + latent + row_biases
    }

    /// Biases of the column-parallel layers (QKV and the MLP's first matrix),
    /// which are split with their columns.
    fn layer_split_biases(&self) -> f64 {
        if self.biases {
            self.h() + 2.0 * self.kv_width() + self.experts() * f64::from(self.ffn)
        } else {
            0.0
        }
    }

    /// All parameters of one layer.
    pub fn layer_params(&self) -> f64 {
        self.layers_params() / f64::from(self.layers.max(1))
    }

    /// Every layer's parameters, summed kind by kind (so the count stays an
    /// exact integer): the expert layers' and the leading dense layers'.
    fn layers_params(&self) -> f64 {
        let (moe, dense) = self.layer_counts();
        moe * self.expert_layer_params() + dense * self.leading_dense_layer_params()
    }

    /// All parameters of a layer with experts (of any layer of a dense model).
    pub fn expert_layer_params(&self) -> f64 {
        self.expert_layer_dense_params()
            + self.experts() * self.expert_params()
            + self.layer_split_biases()
            + self.layer_replicated_params()
    }

    /// All parameters of a leading dense layer (DeepSeek-V3's first three).
    pub fn leading_dense_layer_params(&self) -> f64 {
        self.attention_params() + self.dense_mlp_params() + self.layer_replicated_params()
    }

    /// How many of `range`'s layers are leading dense layers.
    pub fn dense_layers_in(&self, range: &std::ops::Range<u32>) -> u32 {
        let (_, dense) = self.layer_counts();
        (dense as u32).min(range.end).saturating_sub(range.start)
    }

    /// The parameters of one layer a token uses (its top-k experts of all).
    pub fn layer_active_params(&self) -> f64 {
        self.layer_params()
            - self.layer_expert_params() * (self.experts() - self.experts_used()) / self.experts()
    }

    /// Embeddings, output head, positions and the final norm.
    pub fn outside_layer_params(&self) -> f64 {
        let h = self.h();
        let embedding = f64::from(self.vocab) * h;
        let head = if self.tied_embeddings { 0.0 } else { embedding };
        let positions = if self.learned_positions {
            f64::from(self.seq) * h
        } else {
            0.0
        };
        embedding + head + positions + self.final_norm_params()
    }

    /// The share of the parameters in the layers' weight matrices (FP8's
    /// share of the weights, `precision.rs`).
    pub fn matrix_share(&self) -> f64 {
        f64::from(self.layers) * self.layer_matrix_params()
            / self.exact_parameter_count().max(f64::MIN_POSITIVE)
    }

    /// Total parameters, exactly as the architecture adds up.
    pub fn exact_parameter_count(&self) -> f64 {
        self.layers_params() + self.outside_layer_params()
    }

    /// The share of the parameters one token uses: 1 for a dense model.
    pub fn active_share(&self) -> f64 {
        self.active_parameter_count() / self.exact_parameter_count()
    }

    /// Parameters one token uses: all but the experts it is not routed to
    /// (for a dense model, all of them).
    pub fn active_parameter_count(&self) -> f64 {
        let (moe, _) = self.layer_counts();
        let unused = moe * (self.experts() - self.experts_used()) * self.expert_params();
        self.exact_parameter_count() - unused
    }

    /// Parameters in the input embedding (and learned positions), which the
    /// first pipeline stage holds.
    pub fn input_embedding_params(&self) -> f64 {
        let positions = if self.learned_positions {
            f64::from(self.seq) * self.h()
        } else {
            0.0
        };
        f64::from(self.vocab) * self.h() + positions
    }

    /// Parameters of the output layer: its own matrix when untied; when
    /// tied, the last pipeline stage keeps a copy of the embedding's (as
    /// Megatron-LM does) unless it is also the first.
    pub fn output_params(&self, stages: u32) -> f64 {
        let matrix = f64::from(self.vocab) * self.h();
        if self.tied_embeddings && stages <= 1 {
            0.0
        } else {
            matrix
        }
    }

    /// The final norm's parameters, on the last stage.
    pub fn final_norm_params(&self) -> f64 {
        match self.norm {
            Norm::LayerNorm => 2.0 * self.h(),
            Norm::RmsNorm => self.h(),
        }
    }

    /// Width of the key and value projections: kv_heads × head dimension.
    pub fn kv_heads_width(&self) -> f64 {
        self.kv_width()
    }

    /// Whether t tensor-parallel GPUs can split the attention as Megatron-LM
    /// requires (`TransformerConfig.__post_init__`,
    /// `megatron/core/transformer/transformer_config.py`): both of its rules.
    pub fn splits_attention(&self, t: u32) -> bool {
        self.splits_heads(t) && self.splits_kv_heads(t)
    }

    /// Megatron-LM's first rule: t divides the attention heads.
    pub fn splits_heads(&self, t: u32) -> bool {
        self.heads.is_multiple_of(t.max(1))
    }

    /// Megatron-LM's second rule: the key-value heads are a multiple or a
    /// divisor of t. Multi-head latent attention's compressed keys are not
    /// split by heads, so it holds for them at any t.
    pub fn splits_kv_heads(&self, t: u32) -> bool {
        let (t, kv) = (t.max(1), self.kv_heads.max(1));
        self.mla.is_some() || kv.is_multiple_of(t) || t.is_multiple_of(kv)
    }
}

/// A named model preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelPreset {
    pub id: &'static str,
    pub name: &'static str,
    /// The size in the model's name (70B for both 70B models), in parameters.
    pub nominal: f64,
    /// The parameter count its source quotes, where the figures use that
    /// rather than the exact count (the explainer's 6.74B for Llama 2 7B:
    /// its "98 days on 64 GPUs" needs 6.74B; the exact 6,738,415,616 gives 97.49).
    pub quoted: Option<f64>,
    pub arch: Architecture,
    /// The attention kernel the model was trained with.
    pub attention: Attention,
    pub source: &'static str,
}

impl ModelPreset {
    /// Ψ, the parameter count the estimator uses: the quoted one, else the exact one.
    pub fn params(&self) -> f64 {
        self.quoted
            .unwrap_or_else(|| self.arch.exact_parameter_count())
    }
}

const LLAMA: Architecture = Architecture {
    layers: 32,
    hidden: 4096,
    ffn: 11008,
    heads: 32,
    kv_heads: 32,
    vocab: 32000,
    seq: 4096,
    mlp: Mlp::SwiGlu,
    norm: Norm::RmsNorm,
    biases: false,
    tied_embeddings: false,
    learned_positions: false,
    experts: 1,
    top_k: 1,
    dropout: false,
    mla: None,
    shared_experts: 0,
    dense_layers: 0,
    dense_ffn: 0,
    router_bias: false,
};

/// The spec's model presets, in the spec's order.
pub const MODELS: [ModelPreset; 9] = [
    ModelPreset {
        id: "llama2-7b",
        name: "Llama 2 7B",
        nominal: 7e9,
        quoted: Some(6.74e9),
        arch: LLAMA,
        attention: Attention::Flash,
        source: "Touvron et al. 2023, Llama 2, Table 1; Hugging Face config of meta-llama/Llama-2-7b-hf",
    },
    ModelPreset {
        id: "llama2-13b",
        name: "Llama 2 13B",
        nominal: 13e9,
        quoted: None,
        arch: Architecture { layers: 40, hidden: 5120, ffn: 13824, heads: 40, kv_heads: 40, ..LLAMA },
        attention: Attention::Flash,
        source: "Touvron et al. 2023, Llama 2, Table 1; config of meta-llama/Llama-2-13b-hf",
    },
    ModelPreset {
        id: "llama2-70b",
        name: "Llama 2 70B",
        nominal: 70e9,
        quoted: None,
        arch: Architecture { layers: 80, hidden: 8192, ffn: 28672, heads: 64, kv_heads: 8, ..LLAMA },
        attention: Attention::Flash,
        source: "Touvron et al. 2023, Llama 2, Table 1; config of meta-llama/Llama-2-70b-hf",
    },
    ModelPreset {
        id: "llama3-8b",
        name: "Llama 3 8B",
        nominal: 8e9,
        quoted: None,
        arch: Architecture { ffn: 14336, kv_heads: 8, vocab: 128256, seq: 8192, ..LLAMA },
        attention: Attention::Flash,
        source: "Llama Team 2024, The Llama 3 Herd of Models, Table 3; config of meta-llama/Meta-Llama-3-8B",
    },
    ModelPreset {
        id: "llama3-70b",
        name: "Llama 3 70B",
        nominal: 70e9,
        quoted: None,
        arch: Architecture {
            layers: 80,
            hidden: 8192,
            ffn: 28672,
            heads: 64,
            kv_heads: 8,
            vocab: 128256,
            seq: 8192,
            ..LLAMA
        },
        attention: Attention::Flash,
        source: "Llama Team 2024, The Llama 3 Herd of Models, Table 3; config of meta-llama/Meta-Llama-3-70B",
    },
    ModelPreset {
        id: "llama3-405b",
        name: "Llama 3 405B",
        nominal: 405e9,
        quoted: None,
        arch: Architecture {
            layers: 126,
            hidden: 16384,
            ffn: 53248,
            heads: 128,
            kv_heads: 8,
            vocab: 128256,
            seq: 8192,
            ..LLAMA
        },
        attention: Attention::Flash,
        source: "Llama Team 2024, The Llama 3 Herd of Models, Table 3",
    },
    ModelPreset {
        id: "gpt3-175b",
        name: "GPT-3 175B",
        nominal: 175e9,
        quoted: None,
        arch: Architecture {
            layers: 96,
            hidden: 12288,
            ffn: 49152,
            heads: 96,
            kv_heads: 96,
            vocab: 50257,
            seq: 2048,
            mlp: Mlp::Gelu,
            norm: Norm::LayerNorm,
            biases: true,
            tied_embeddings: true,
            learned_positions: true,
            experts: 1,
            top_k: 1,
            dropout: true,
            mla: None,
            shared_experts: 0,
            dense_layers: 0,
            dense_ffn: 0,
            router_bias: false,
        },
        attention: Attention::Standard,
        source: "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1 (GPT-2 layout, Radford et al. 2019)",
    },
    ModelPreset {
        id: "mixtral-8x7b",
        name: "Mixtral 8x7B",
        nominal: 46.7e9,
        quoted: None,
        arch: Architecture {
            ffn: 14336,
            kv_heads: 8,
            seq: 32768,
            experts: 8,
            top_k: 2,
            ..LLAMA
        },
        attention: Attention::Flash,
        source: "Jiang et al. 2024, Mixtral of Experts, Table 1 (32 layers, width 4,096, FFN 14,336, 32 heads, 8 K/V heads, 8 experts, top-2, 32,768-token context); config of mistralai/Mixtral-8x7B-v0.1",
    },
    ModelPreset {
        id: "deepseek-v3",
        name: "DeepSeek-V3",
        nominal: 671e9,
        quoted: None,
        arch: Architecture {
            layers: 61,
            hidden: 7168,
            ffn: 2048,
            heads: 128,
            kv_heads: 128,
            vocab: 129280,
            seq: 4096,
            experts: 256,
            top_k: 8,
            mla: Some(Mla {
                q_rank: 1536,
                kv_rank: 512,
                head_dim: 128,
                rope_dim: 64,
                v_dim: 128,
            }),
            shared_experts: 1,
            dense_layers: 3,
            dense_ffn: 18432,
            router_bias: true,
            ..LLAMA
        },
        attention: Attention::Flash,
        source: "DeepSeek-AI 2024, DeepSeek-V3 Technical Report, sections 2.1 and 4.2 (671B parameters, 37B a token; 61 layers, width 7,168, 128 heads, MLA, 1 shared and 256 routed experts of width 2,048, 8 a token, the first 3 layers dense; sequence 4,096 in pre-training); config of deepseek-ai/DeepSeek-V3 (q_lora_rank 1,536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, intermediate_size 18,432, vocabulary 129,280); the multi-token prediction module left out, as the report's 671B leaves it out; DeepSeek's README_WEIGHTS.md gives 36.7B activated, 0.85B below what the configuration adds up to here",
    },
];

/// The default model: Llama 2 7B, the seeds' example.
pub const DEFAULT_MODEL: &ModelPreset = &MODELS[0];

/// Looks a model preset up by id.
pub fn model_preset(id: &str) -> Option<&'static ModelPreset> {
    MODELS.iter().find(|preset| preset.id == id)
}

/// The preset whose nominal size is nearest to `params` on a log scale; a tie
/// goes to the preset listed first (so 70B picks Llama 2 70B, as the spec says).
pub fn nearest_model(params: f64) -> &'static ModelPreset {
    let target = params.max(1.0).ln();
    let distance = |preset: &ModelPreset| (preset.nominal.ln() - target).abs();
    // A size alone is a dense model's: mixtures of experts are chosen by name.
    MODELS
        .iter()
        .filter(|preset| preset.arch.experts <= 1)
        .min_by(|a, b| distance(a).total_cmp(&distance(b)))
        .unwrap_or(DEFAULT_MODEL)
}

/// An accelerator and the links around it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuPreset {
    pub id: &'static str,
    pub name: &'static str,
    /// Memory per GPU, in bytes as the device reports it.
    pub memory: Bytes,
    /// Dense bf16 peak.
    pub peak: FlopPerSecond,
    /// The fraction of the peak a large training run sustains while its
    /// GPUs compute, the figures' default for `busy-util`.
    pub busy: f64,
    /// The fraction of the dense peak whole runs sustained on it, model
    /// FLOP (6ND) over GPU-hours × peak: what a run's calendar time takes
    /// (bubbles, communication, restarts and evaluation included); `None`
    /// where no run's hours are published (`illustrative`).
    pub whole_run: Option<f64>,
    /// GPU-to-GPU bandwidth inside a node, one direction: the datasheet's
    /// line rate, which a collective approaches but does not reach, so
    /// times on it are lower bounds.
    pub nvlink: BytesPerSecond,
    /// Bandwidth per GPU between nodes, one direction, the line rate too.
    pub network: BytesPerSecond,
    pub gpus_per_node: u32,
    /// GPUs whose NVLink reaches one another: the node on HGX boards, the
    /// rack on GB200 NVL72. Groups inside it run at `nvlink`.
    pub nvlink_domain: u32,
    /// Its FP8 peak and the bytes a parameter its FP8 weights take
    /// (`precision.rs`); `None` where it has no FP8 matrix multiplies.
    pub fp8: Option<Fp8>,
    pub source: &'static str,
}

impl GpuPreset {
    /// Whose GPU-hours its whole-run share comes from, in words.
    pub fn whole_run_basis(&self) -> &'static str {
        match self.id {
            "a100-80gb" => "Llama 2's A100-hours",
            "h100-sxm" | "h800" | "h200" => "Llama 3.1's H100-hours and DeepSeek-V3's H800-hours",
            _ => "Llama 3.1's H100-hours and DeepSeek-V3's H800-hours, for want of this GPU's own",
        }
    }

    /// What one NVLink domain is called: the node on HGX boards, the rack
    /// where NVLink switches join more GPUs than a node holds (GB200 NVL72).
    pub fn domain_name(&self) -> &'static str {
        if self.nvlink_domain > self.gpus_per_node {
            "rack"
        } else {
            "node"
        }
    }
}

/// The fraction of the dense peak a large run sustains while its GPUs
/// compute, under Megatron-LM and the tuned stacks (`software.rs`), by GPU
/// generation: on each, the one rate that, under the planner's whole step
/// (arithmetic, bubble and the communication that does not hide), comes
/// closest in least squares to the step times of the published BF16 runs
/// on it whose layout and MFU are both given. On the A100, Narayanan et
/// al. 2021's four runs (Table 1); fitted, and each run's residual shown,
/// in `tests/published_runs.rs` (`each_generations_rate_is_fitted_to_its_runs`).
const AMPERE_BUSY: f64 = 0.64;

/// On the H100, Llama 3 405B's two runs (Llama Team 2024, Table 4, one
/// layer a model chunk), fitted as [`AMPERE_BUSY`] is. The newer GPUs
/// (H200, B200, GB200, MI300X) have no such report and take it too.
const HOPPER_BUSY: f64 = 0.73;

/// The share of the A100's dense peak whole runs sustained: the geometric
/// mean of Llama 2 7B's and 70B's, 6ND over their published A100-hours
/// (Touvron et al. 2023, Table 2: 184,320 and 1,720,320 hours for 2T
/// tokens), 39.1% and 42.8%; fitted in `tests/published_runs.rs`
/// (`whole_run_rates_are_the_published_runs_hours`).
const AMPERE_WHOLE_RUN: f64 = 0.41;

/// On Hopper: Llama 3.1 405B's (30.84M H100-hours for 15.6T tokens, its
/// model card) and DeepSeek-V3's (2,664K H800-hours for 14.8T tokens of
/// pre-training, 37B parameters a token, its report's Table 1), 34.5% and
/// 34.6%; DeepSeek-V3's ran FP8, whose gain the figures apply on top.
/// The newer GPUs take it too.
const HOPPER_WHOLE_RUN: f64 = 0.35;

/// Binary units, as devices report their memory.
const MIB: f64 = Bytes::GIB / 1024.0;

/// NVIDIA's H100 SXM, which the H800 shares but for its NVLink, and the
/// H200 but for its memory.
const H100: GpuPreset = GpuPreset {
    id: "h100-sxm",
    name: "NVIDIA H100 SXM",
    memory: Bytes(81_559.0 * MIB),
    peak: FlopPerSecond(989e12),
    busy: HOPPER_BUSY,
    whole_run: Some(HOPPER_WHOLE_RUN),
    nvlink: BytesPerSecond(450e9),
    network: BytesPerSecond(50e9),
    gpus_per_node: 8,
    nvlink_domain: 8,
    fp8: Some(Fp8 {
        peak: FlopPerSecond(1979e12),
        weight_bytes: HOPPER_FP8_WEIGHT,
    }),
    source: "NVIDIA H100 datasheet: 80 GB HBM3, which nvidia-smi reports as 81,559 MiB (79.6 GiB); 989 TFLOP/s dense BF16, 1,979 dense FP8 (3,958 with sparsity); NVLink 4 900 GB/s both ways; one 400 Gb/s NDR port per GPU",
};

/// The spec's GPU presets.
pub const GPUS: [GpuPreset; 8] = [
    GpuPreset {
        id: "illustrative",
        name: "Illustrative 80 GB GPU",
        memory: Bytes(80e9),
        peak: FlopPerSecond(150e12),
        // The explainer states the sustained rate itself, 150 TFLOP/s.
        busy: 1.0,
        whole_run: None,
        nvlink: BytesPerSecond(450e9),
        network: BytesPerSecond(50e9),
        gpus_per_node: 8,
        nvlink_domain: 8,
        fp8: Some(Fp8 {
            peak: FlopPerSecond(300e12),
            weight_bytes: HOPPER_FP8_WEIGHT,
        }),
        source: "Round numbers for teaching, not a product: 80 GB (10⁹ bytes each), 150 TFLOP/s sustained (FP8 twice that, its weights kept as Hopper keeps them), NVLink 450 GB/s, network 50 GB/s, 8 GPUs a node",
    },
    GpuPreset {
        id: "a100-80gb",
        name: "NVIDIA A100 80GB SXM",
        memory: Bytes(81_920.0 * MIB),
        peak: FlopPerSecond(312e12),
        busy: AMPERE_BUSY,
        whole_run: Some(AMPERE_WHOLE_RUN),
        nvlink: BytesPerSecond(300e9),
        network: BytesPerSecond(25e9),
        gpus_per_node: 8,
        nvlink_domain: 8,
        fp8: None,
        source: "NVIDIA A100 datasheet: 80 GB HBM2e, which nvidia-smi reports as 81,920 MiB (80 GiB); 312 TFLOP/s dense BF16; NVLink 3 600 GB/s both ways; one 200 Gb/s HDR InfiniBand port per GPU",
    },
    H100,
    // The H100's chip with DeepSeek-V3's links.
    GpuPreset {
        id: "h800",
        name: "NVIDIA H800 SXM",
        nvlink: BytesPerSecond(160e9),
        source: "DeepSeek-AI 2024, DeepSeek-V3 Technical Report, sections 3.1 and 3.2.2: 8 H800s a node on NVLink and NVSwitch, 160 GB/s, and InfiniBand between nodes, 50 GB/s; the H100's Hopper chip, so its 80 GB (taken as the H100's 81,559 MiB), 989 TFLOP/s dense BF16 and 1,979 dense FP8",
        ..H100
    },
    // The H100's chip and links with more memory.
    GpuPreset {
        id: "h200",
        name: "NVIDIA H200 SXM",
        memory: Bytes(143_771.0 * MIB),
        source: "NVIDIA H200 datasheet: 141 GB HBM3e, which nvidia-smi reports as 143,771 MiB (140.4 GiB); 989 TFLOP/s dense BF16, 1,979 dense FP8; NVLink 900 GB/s both ways; 400 Gb/s per GPU",
        ..H100
    },
    GpuPreset {
        id: "b200",
        name: "NVIDIA B200 (HGX)",
        memory: Bytes(183_359.0 * MIB),
        peak: FlopPerSecond(2250e12),
        busy: HOPPER_BUSY,
        whole_run: Some(HOPPER_WHOLE_RUN),
        nvlink: BytesPerSecond(900e9),
        network: BytesPerSecond(50e9),
        gpus_per_node: 8,
        nvlink_domain: 8,
        fp8: Some(Fp8 {
            peak: FlopPerSecond(4500e12),
            weight_bytes: BLACKWELL_FP8_WEIGHT,
        }),
        source: "NVIDIA HGX B200 datasheet: 180 GB HBM3e a GPU, which nvidia-smi reports as 183,359 MiB (179.1 GiB); 2.25 PFLOP/s dense BF16, 4.5 dense FP8 (72 PFLOP/s with sparsity for 8 GPUs); NVLink 5 1.8 TB/s both ways; 400 Gb/s per GPU",
    },
    GpuPreset {
        id: "mi300x",
        name: "AMD Instinct MI300X",
        memory: Bytes(205_822_885_888.0),
        peak: FlopPerSecond(1307e12),
        busy: HOPPER_BUSY,
        whole_run: Some(HOPPER_WHOLE_RUN),
        nvlink: BytesPerSecond(448e9),
        network: BytesPerSecond(50e9),
        gpus_per_node: 8,
        nvlink_domain: 8,
        fp8: Some(Fp8 {
            peak: FlopPerSecond(2614.9e12),
            weight_bytes: HOPPER_FP8_WEIGHT,
        }),
        source: "AMD MI300X datasheet: 192 GB HBM3, which rocm-smi reports as 205,822,885,888 bytes (191.7 GiB); 1,307 TFLOP/s dense BF16, 2,614.9 dense FP8 (ROCm's TransformerEngine keeps the transposed FP8 weights, as on Hopper: keep_fp8_weight_transpose_cache, ROCm/TransformerEngine#218, defaults to true); 7 Infinity Fabric links of 64 GB/s each way; 400 Gb/s per GPU",
    },
    GpuPreset {
        id: "gb200-nvl72",
        name: "NVIDIA GB200 NVL72",
        memory: Bytes(189_471.0 * MIB),
        peak: FlopPerSecond(2500e12),
        busy: HOPPER_BUSY,
        whole_run: Some(HOPPER_WHOLE_RUN),
        nvlink: BytesPerSecond(900e9),
        network: BytesPerSecond(50e9),
        gpus_per_node: 4,
        nvlink_domain: 72,
        fp8: Some(Fp8 {
            peak: FlopPerSecond(5000e12),
            weight_bytes: BLACKWELL_FP8_WEIGHT,
        }),
        source: "NVIDIA GB200 NVL72 datasheet, per GPU of the rack's 72: 13.4 TB HBM3e; nvidia-smi reports 189,471 MiB a GPU on GB200 compute trays (185.0 GiB, 198.7 GB), as published outputs of it show; 2.5 PFLOP/s dense BF16 and 5 dense FP8 (360 and 720 PFLOP/s with sparsity for the rack); NVLink 5 1.8 TB/s both ways, all 72 GPUs in one NVLink domain; 4 GPUs a compute tray, each with a 400 Gb/s ConnectX-7 port",
    },
];

/// The bytes a parameter FP8 weights take where an FP8 matrix multiply
/// reads its operands in one layout only ("TN", Hopper), so the backward
/// pass keeps a transposed copy too: 2 (TransformerEngine#1261).
const HOPPER_FP8_WEIGHT: f64 = 2.0;
/// Blackwell multiplies FP8 in either layout: 1 byte a parameter with
/// per-tensor scaling (TransformerEngine#1880), Megatron-LM's default
/// recipe (`--fp8-recipe delayed`); TransformerEngine's own default there,
/// MXFP8, keeps both layouts' scalings, 2.
const BLACKWELL_FP8_WEIGHT: f64 = 1.0;

/// The default GPU: the seeds' illustrative one.
pub const DEFAULT_GPU: &GpuPreset = &GPUS[0];

/// Looks a GPU preset up by id.
pub fn gpu_preset(id: &str) -> Option<&'static GpuPreset> {
    GPUS.iter().find(|preset| preset.id == id)
}

/// (id, source) of every model preset, for showing where its numbers come from.
pub fn model_sources() -> Vec<(&'static str, &'static str)> {
    MODELS.iter().map(|m| (m.id, m.source)).collect()
}

/// (id, source) of every GPU preset.
pub fn gpu_sources() -> Vec<(&'static str, &'static str)> {
    GPUS.iter().map(|g| (g.id, g.source)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published totals, to three significant figures.
    #[test]
    fn parameter_counts_match_the_published_sizes() {
        let expected = [
            ("llama2-7b", 6.74e9),
            ("llama3-8b", 8.03e9),
            ("llama2-13b", 13.0e9),
            ("llama2-70b", 69.0e9),
            ("llama3-70b", 70.6e9),
            ("gpt3-175b", 175e9),
            ("llama3-405b", 406e9),
            ("deepseek-v3", 671e9),
        ];
        for (id, published) in expected {
            let count = model_preset(id).unwrap().arch.exact_parameter_count();
            assert!(
                (count / published - 1.0).abs() < 0.005,
                "{id}: {count} vs {published}"
            );
        }
    }

    #[test]
    fn llama2_7b_adds_up_exactly_and_is_quoted_rounded() {
        assert_eq!(DEFAULT_MODEL.arch.exact_parameter_count(), 6_738_415_616.0);
        assert_eq!(DEFAULT_MODEL.params(), 6.74e9);
    }

    /// Brown et al. 2020, Table D.1: GPT-3 175B took 3.14e23 training FLOP
    /// for 300B tokens; 6 × the exact count × 300e9 gives it (the count
    /// rounded to 175B would give 3.15e23).
    #[test]
    fn gpt3_compute_from_its_exact_count() {
        let gpt3 = model_preset("gpt3-175b").unwrap();
        assert_eq!(gpt3.params(), gpt3.arch.exact_parameter_count());
        assert_eq!(format!("{:.2e}", 6.0 * gpt3.params() * 300e9), "3.14e23");
    }

    #[test]
    fn nearest_model_by_size() {
        assert_eq!(nearest_model(70e9).id, "llama2-70b");
        assert_eq!(nearest_model(7e9).id, "llama2-7b");
        assert_eq!(nearest_model(1e12).id, "llama3-405b");
        assert_eq!(nearest_model(0.0).id, "llama2-7b");
    }
}
