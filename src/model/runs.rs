//! Published training runs the planner is checked against: each with the
//! layout, batch and throughput its source prints, and the planner's URL
//! keys that describe it. The page's "Checked against published runs"
//! section and `tests/published_runs.rs` compute ours beside them; where a
//! source leaves a setting out, `assumed` says what we chose.

/// What a source publishes about a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// GPUs in the run.
    pub gpus: u32,
    /// Throughput a GPU over whole steps, FLOP/s, as the source counts
    /// FLOP (Narayanan et al. include recomputation's; Meta counts model FLOP).
    pub flop_per_gpu: Option<f64>,
    /// That throughput as a fraction of the GPU's dense peak.
    pub utilisation: f64,
    /// Training tokens, where the source gives them.
    pub tokens: Option<f64>,
    /// Days to train `tokens`, as the source estimates them.
    pub days: Option<f64>,
    /// GPU-hours for `tokens`, as the source reports them.
    pub gpu_hours: Option<f64>,
}

/// One published run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PublishedRun {
    pub name: &'static str,
    pub source: &'static str,
    /// The planner's URL keys for the run; its `mfu` is the published
    /// throughput over the GPU's peak, to three figures, which the planner
    /// applies while busy (see `explanation`).
    pub query: &'static str,
    pub published: Published,
    /// Settings the source does not state, as we chose them.
    pub assumed: &'static str,
    /// Why ours differs from the published numbers, where it does.
    pub explanation: &'static str,
}

/// The runs, oldest first.
pub const RUNS: [PublishedRun; 8] = [
    PublishedRun {
        name: "GPT-3 175B on 1,024 A100s",
        source: "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, section 5.1",
        query: "model=gpt3-175b&gpus=1024&tp=8&pp=8&batch=1536&mfu=0.449&tokens=300B&gpu=a100-80gb&micro-batch=1&recompute=full&flop=6nd-attn&bytes=18&attention=standard",
        published: Published {
            gpus: 1024,
            flop_per_gpu: Some(140e12),
            utilisation: 0.449,
            tokens: Some(300e9),
            days: Some(34.0),
            gpu_hours: None,
        },
        assumed: "t = 8 and p = 8 (the paper gives the GPU count and batch, not this layout)",
        explanation: "Their 34 days is 8TP/(nX), dropping eq. 3's attention and vocabulary terms (2.4% here); we also add the 1F1B bubble on top of a rate that already includes it.",
    },
    PublishedRun {
        name: "145.6B GPT on 1,536 A100s",
        source: "Narayanan et al. 2021, Table 1",
        query: "model=gpt3-175b&layers=80&vocab=51200&gpus=1536&tp=8&pp=8&batch=2304&mfu=0.474&gpu=a100-80gb&micro-batch=1&recompute=full&flop=6nd-attn&bytes=18&attention=standard",
        published: Published {
            gpus: 1536,
            flop_per_gpu: Some(148e12),
            utilisation: 0.474,
            tokens: None,
            days: None,
            gpu_hours: None,
        },
        assumed: "1F1B",
        explanation: "The published rate is over whole steps, bubble included; we apply it while busy and add the bubble, so our step is longer by 1/(1 − bubble).",
    },
    PublishedRun {
        name: "530B GPT on 2,520 A100s",
        source: "Narayanan et al. 2021, Table 1",
        query: "model=gpt3-175b&layers=105&hidden=20480&heads=128&ffn=81920&vocab=51200&gpus=2520&tp=8&pp=35&batch=2520&mfu=0.522&gpu=a100-80gb&micro-batch=1&recompute=full&flop=6nd-attn&bytes=18&attention=standard",
        published: Published {
            gpus: 2520,
            flop_per_gpu: Some(163e12),
            utilisation: 0.522,
            tokens: None,
            days: None,
            gpu_hours: None,
        },
        assumed: "1F1B",
        explanation: "The published rate is over whole steps, bubble included; we apply it while busy and add the bubble.",
    },
    PublishedRun {
        name: "1T GPT on 3,072 A100s",
        source: "Narayanan et al. 2021, Table 1 and section 5.1",
        query: "model=gpt3-175b&layers=128&hidden=25600&heads=160&ffn=102400&vocab=51200&gpus=3072&tp=8&pp=64&batch=3072&mfu=0.522&tokens=450B&gpu=a100-80gb&micro-batch=1&recompute=full&flop=6nd-attn&bytes=18&attention=standard",
        published: Published {
            gpus: 3072,
            flop_per_gpu: Some(163e12),
            utilisation: 0.522,
            tokens: Some(450e9),
            days: Some(84.0),
            gpu_hours: None,
        },
        assumed: "1F1B",
        explanation: "Their 84 days is 8TP/(nX), a rate that includes the bubble; we add the bubble on top of it.",
    },
    PublishedRun {
        name: "Llama 2 7B",
        source: "Touvron et al. 2023, Llama 2, Table 2 (184,320 A100-80GB GPU-hours for 2T tokens)",
        query: "model=llama2-7b&gpu=a100-80gb&gpus=512&stage=3&batch=1024&micro-batch=2&tokens=2T",
        published: Published {
            gpus: 0,
            flop_per_gpu: None,
            utilisation: 0.0,
            tokens: Some(2e12),
            days: None,
            gpu_hours: Some(184_320.0),
        },
        assumed: "512 GPUs, ZeRO-3 (fully sharded data parallelism), micro-batches of 2; the preset's 40% MFU",
        explanation: "",
    },
    PublishedRun {
        name: "Llama 2 70B",
        source: "Touvron et al. 2023, Llama 2, Table 2 (1,720,320 A100-80GB GPU-hours for 2T tokens)",
        query: "model=llama2-70b&gpu=a100-80gb&gpus=2048&tp=8&sp=1&recompute=selective&stage=1&batch=1024&micro-batch=1&tokens=2T",
        published: Published {
            gpus: 0,
            flop_per_gpu: None,
            utilisation: 0.0,
            tokens: Some(2e12),
            days: None,
            gpu_hours: Some(1_720_320.0),
        },
        assumed: "2,048 GPUs, t = 8 with sequence parallelism and selective recomputation, ZeRO-1; the preset's 40% MFU",
        explanation: "",
    },
    PublishedRun {
        name: "Llama 3 405B on 8,192 H100s",
        source: "Llama Team 2024, The Llama 3 Herd of Models, Table 4 (TP 8, PP 16, DP 64, sequence 8,192, 32 sequences a replica, 430 TFLOP/s, 43% MFU)",
        query: "model=llama3-405b&gpu=h100-sxm&gpus=8192&tp=8&pp=16&sp=1&schedule=interleaved&chunks=2&stage=1&batch=2048&micro-batch=1&mfu=0.435&tokens=15.6T",
        published: Published {
            gpus: 8192,
            flop_per_gpu: Some(430e12),
            utilisation: 0.43,
            tokens: Some(15.6e12),
            days: None,
            gpu_hours: None,
        },
        assumed: "the interleaved schedule with 2 chunks, no recomputation, ZeRO-1",
        explanation: "The run trained; we say its activations do not fit. We keep 1 + (p − 1)/(pv) pipelines' worth of micro-batches in flight on the first stage, each a full 8,192-token sequence with no recomputation. The paper reports a tuned schedule with fewer micro-batches in flight, one layer fewer on the first and last stages, and activations freed as soon as they are used, none of which the planner models.",
    },
    PublishedRun {
        name: "Llama 3 405B on 16,384 H100s",
        source: "Llama Team 2024, The Llama 3 Herd of Models, Table 4 (DP 128, 16 sequences a replica, 400 TFLOP/s, 41% MFU) and the model card's 30.84M H100 GPU-hours",
        query: "model=llama3-405b&gpu=h100-sxm&gpus=16384&tp=8&pp=16&sp=1&schedule=interleaved&chunks=2&stage=1&batch=2048&micro-batch=1&mfu=0.404&tokens=15.6T",
        published: Published {
            gpus: 16384,
            flop_per_gpu: Some(400e12),
            utilisation: 0.41,
            tokens: Some(15.6e12),
            days: None,
            gpu_hours: Some(30.84e6),
        },
        assumed: "the interleaved schedule with 2 chunks, no recomputation, ZeRO-1",
        explanation: "As on 8,192 GPUs, we say the activations do not fit a run that trained. With 16 micro-batches a step against 16 stages the interleaved schedule runs every forward first, so the first stage holds all 16; our bubble is large; the published MFU already includes whatever bubble the run had, so our time is an upper bound. The GPU-hours cover the whole training, not only this configuration.",
    },
];
