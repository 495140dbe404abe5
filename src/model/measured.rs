//! Runs whose memory was measured on the GPU, as planner URLs: the check
//! of `peak_memory.rs` against what a run's allocator reserved.
//!
//! torchtitan's benchmark of Llama 3.1 on H100s (`benchmarks/llama3_h100_202412_torchtitan.md`
//! in pytorch/torchtitan, run at its commit 9dec370 of 2024-12-26 with
//! torch 1963fc8): "Memory (GiB)" is `reserved_bytes.all.peak` of
//! `torch.cuda.memory_stats`, the largest across ranks (its footnote 1),
//! which leaves out the CUDA context and NCCL's buffers: our
//! [`PeakMemory::allocator_reserved`](super::planner::PeakMemory::allocator_reserved).
//! Its GPUs are H100s with 96 GB of HBM2e at 500 W; the rows are judged
//! by bytes, so the URLs take the 80 GB H100's preset (several rows
//! reserve more than its 79.6 GiB, so do not fit there). torchtitan's local batch is a data-parallel rank's batch,
//! one micro-batch without a pipeline; with one, torch's pipelining splits
//! it into as many micro-batches as there are stages. The rows run on
//! torchtitan's software (`software=torchtitan`: torch.compile and, where
//! the table says so, torchao's Float8, `precision=fp8`; the rows without
//! torch.compile on `software=torchtitan-eager`), with attention's
//! FLOP counted (`flop=6nd-attn`), as the GPUs compute them.

/// One measured run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredRun {
    pub name: &'static str,
    /// Where the measurement is published, with its table.
    pub source: &'static str,
    /// The run as a planner URL's query.
    pub query: &'static str,
    /// What the allocator reserved at the peak, in GiB, as published.
    pub reserved_gib: f64,
    /// Tokens a second a GPU, as published.
    pub tokens_per_gpu_per_second: f64,
    /// What of the run's setting the planner cannot express, in words;
    /// empty when it expresses all of it.
    pub left_out: &'static str,
    /// Why our memory is more than a tenth off the measurement, where it
    /// is: empty where it is not (`tests/measured_runs.rs` holds both ways).
    pub memory_gap: &'static str,
    /// Why our tokens a second are more than 15% off the log, where they
    /// are: empty where they are not.
    pub speed_gap: &'static str,
}

const TORCHTITAN: &str = "torchtitan, benchmarks/llama3_h100_202412_torchtitan.md (commit 9dec370)";

/// Why the rows whose sequence is split over four or eight GPUs made fewer
/// tokens than ours: what torch's ring attention did that the planner's
/// ring does not.
const TORCH_RING: &str = "not accounted for: with the sequence split over the GPUs the run made fewer tokens than ours, \
though our K/V ring's BF16 sends wait on the critical path; torch's ring attention of December 2024 \
(torch/distributed/tensor/experimental/_attention.py) also merges each step's partial outputs in FP32, rotates the \
K/V gradients in FP32 with a wait at every step, and overlaps only its first, local block, none of which we count \
(how much each costs is not published)";

/// torchtitan's measured rows that the planner can lay out: FSDP as
/// ZeRO-3 (weights resharded after the forward pass, its default without
/// a pipeline); with a pipeline, FSDP keeping the weights gathered and
/// the gradients whole in FP32 until the last micro-batch (torch's
/// pipelining and FSDP2's `set_requires_gradient_sync`: ZeRO-1's memory
/// with 18 bytes a parameter); its tensor parallelism shards the norms
/// along the sequence (`sp=1`); selective recomputation is its op-level
/// policy (`recompute=op`).
pub const MEASURED: [MeasuredRun; 17] = [
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 8, no torch.compile",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&stage=3&batch=16&micro-batch=2&recompute=op&software=torchtitan-eager&flop=6nd-attn",
        reserved_gib: 82.4,
        tokens_per_gpu_per_second: 5762.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 8, torch.compile",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&stage=3&batch=16&micro-batch=2&recompute=op&software=torchtitan&flop=6nd-attn",
        reserved_gib: 77.0,
        tokens_per_gpu_per_second: 6667.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 8, torch.compile and Float8",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&stage=3&batch=16&micro-batch=2&recompute=op&software=torchtitan&flop=6nd-attn&precision=fp8",
        reserved_gib: 76.8,
        tokens_per_gpu_per_second: 8532.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 128, no torch.compile",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=128&stage=3&batch=256&micro-batch=2&recompute=op&software=torchtitan-eager&flop=6nd-attn",
        reserved_gib: 67.0,
        tokens_per_gpu_per_second: 5605.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 128, torch.compile",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=128&stage=3&batch=256&micro-batch=2&recompute=op&software=torchtitan&flop=6nd-attn",
        reserved_gib: 62.0,
        tokens_per_gpu_per_second: 6514.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 128, torch.compile and Float8",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=128&stage=3&batch=256&micro-batch=2&recompute=op&software=torchtitan&flop=6nd-attn&precision=fp8",
        reserved_gib: 61.8,
        tokens_per_gpu_per_second: 8380.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 8 × CP 1, sequence 32,768",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&stage=3&batch=8&micro-batch=1&seq=32768&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 83.9,
        tokens_per_gpu_per_second: 3890.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 4 × CP 2, sequence 65,536",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&cp=2&stage=3&batch=4&micro-batch=1&seq=65536&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 84.2,
        tokens_per_gpu_per_second: 2540.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 2 × CP 4, sequence 131,072",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&cp=4&stage=3&batch=2&micro-batch=1&seq=131072&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 84.0,
        tokens_per_gpu_per_second: 1071.0,
        left_out: "",
        memory_gap: "",
        speed_gap: TORCH_RING,
    },
    MeasuredRun {
        name: "Llama 3.1 8B, FSDP 1 × CP 8, sequence 262,144",
        source: TORCHTITAN,
        query: "model=llama3-8b&gpu=h100-sxm&gpus=8&cp=8&stage=3&batch=1&micro-batch=1&seq=262144&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 84.5,
        tokens_per_gpu_per_second: 548.0,
        left_out: "",
        memory_gap: "",
        speed_gap: TORCH_RING,
    },
    MeasuredRun {
        name: "Llama 3.1 70B, FSDP 32 × TP 8",
        source: TORCHTITAN,
        query: "model=llama3-70b&gpu=h100-sxm&gpus=256&tp=8&sp=1&stage=3&batch=512&micro-batch=16&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 71.9,
        tokens_per_gpu_per_second: 829.0,
        left_out: "",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 405B, FSDP 8 × TP 8 × PP 8, 1F1B",
        source: TORCHTITAN,
        query: "model=llama3-405b&gpu=h100-sxm&gpus=512&tp=8&sp=1&pp=8&stage=1&bytes=18&batch=256&micro-batch=4&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 82.5,
        tokens_per_gpu_per_second: 100.0,
        left_out: "asynchronous tensor parallelism",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 405B, FSDP 8 × TP 8 × PP 8, interleaved",
        source: TORCHTITAN,
        query: "model=llama3-405b&gpu=h100-sxm&gpus=512&tp=8&sp=1&pp=8&schedule=interleaved&chunks=2&stage=1&bytes=18&batch=256&micro-batch=2&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 72.7,
        tokens_per_gpu_per_second: 128.0,
        left_out: "asynchronous tensor parallelism; two stages a GPU taken for the interleaving, which the table does not give",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 405B, FSDP 8 × TP 8 × PP 8 × CP 1, sequence 32,768",
        source: TORCHTITAN,
        query: "model=llama3-405b&gpu=h100-sxm&gpus=512&tp=8&sp=1&pp=8&stage=1&bytes=18&batch=64&micro-batch=1&seq=32768&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 75.3,
        tokens_per_gpu_per_second: 76.0,
        left_out: "asynchronous tensor parallelism",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 405B, FSDP 4 × TP 8 × PP 8 × CP 2, sequence 65,536",
        source: TORCHTITAN,
        query: "model=llama3-405b&gpu=h100-sxm&gpus=512&tp=8&sp=1&pp=8&cp=2&stage=1&bytes=18&batch=32&micro-batch=1&seq=65536&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 75.9,
        tokens_per_gpu_per_second: 47.0,
        left_out: "asynchronous tensor parallelism",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 405B, FSDP 2 × TP 8 × PP 8 × CP 4, sequence 131,072",
        source: TORCHTITAN,
        query: "model=llama3-405b&gpu=h100-sxm&gpus=512&tp=8&sp=1&pp=8&cp=4&stage=1&bytes=18&batch=16&micro-batch=1&seq=131072&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 77.1,
        tokens_per_gpu_per_second: 31.0,
        left_out: "asynchronous tensor parallelism",
        memory_gap: "",
        speed_gap: "",
    },
    MeasuredRun {
        name: "Llama 3.1 405B, FSDP 1 × TP 8 × PP 8 × CP 8, sequence 262,144",
        source: TORCHTITAN,
        query: "model=llama3-405b&gpu=h100-sxm&gpus=512&tp=8&sp=1&pp=8&cp=8&stage=1&bytes=18&batch=8&micro-batch=1&seq=262144&recompute=full&precision=fp8&software=torchtitan&flop=6nd-attn",
        reserved_gib: 84.9,
        tokens_per_gpu_per_second: 16.0,
        left_out: "asynchronous tensor parallelism",
        memory_gap: "not accounted for: the measured reservation grows with the whole sequence, from 75.3 GiB at 32,768 tokens to 84.9 at 262,144, with the same 32,768 tokens on each GPU, where nothing in our count does; buffers sized to the whole sequence in torch's context parallelism of December 2024 would do it, which we do not model",
        speed_gap: TORCH_RING,
    },
];
