//! The published runs of the page's "Checked against published runs",
//! through the planner as their cards enter them. What each test expects
//! is worked out here from the source's own numbers and formulas (Narayanan
//! et al. 2021's eq. 3, Llama 3's Table 3 and 4, Llama 2's Table 2), never
//! read back from the estimator.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::query::Query;
use parallax::model::runs::{PublishedRun, RUNS};
use parallax::model::software::Software;
use parallax::runs::compare;

fn run(name: &str) -> PublishedRun {
    RUNS.into_iter().find(|r| r.name.starts_with(name)).unwrap()
}

/// The planner's readout `id` for a run's card.
fn readout(run: &PublishedRun, id: &str) -> f64 {
    common::readout("planner", run.query, id)
}

const A100_PEAK: f64 = 312e12;
const H100_PEAK: f64 = 989e12;

/// Narayanan et al.'s GPT shapes (Table 1) at sequence 2,048, vocabulary 51,200.
struct Gpt {
    layers: f64,
    hidden: f64,
}

impl Gpt {
    /// Eq. 3 per token, with their full recomputation (96) or without (72):
    /// c·l·h²(1 + s/6h + V/(c/6·l·h)).
    fn per_token(&self, factor: f64) -> f64 {
        let (l, h, s, v) = (self.layers, self.hidden, 2048.0, 51200.0);
        factor * l * h * h * (1.0 + s / (6.0 * h) + v / (factor / 6.0 * l * h))
    }

    /// The MFU, model FLOP only, that a rate counting recomputation makes.
    fn mfu(&self, rate: f64) -> f64 {
        rate / A100_PEAK * self.per_token(72.0) / self.per_token(96.0)
    }
}

const NARAYANAN: [(&str, Gpt); 4] = [
    (
        "GPT-3 175B",
        Gpt {
            layers: 96.0,
            hidden: 12288.0,
        },
    ),
    (
        "145.6B",
        Gpt {
            layers: 80.0,
            hidden: 12288.0,
        },
    ),
    (
        "530B",
        Gpt {
            layers: 105.0,
            hidden: 20480.0,
        },
    ),
    (
        "1T GPT",
        Gpt {
            layers: 128.0,
            hidden: 25600.0,
        },
    ),
];

/// Table 1's rate counts recomputation's FLOP; entered as the MFU it makes
/// by eq. 3, the card's MFU is that, and the rate the GPUs run at over the
/// whole step, recomputation counted, is Table 1's again.
#[test]
fn narayanan_cards_run_at_table_1s_rates() {
    for (name, shape) in NARAYANAN {
        let run = run(name);
        let rate = run.published.flop_per_gpu.unwrap();
        let expected_mfu = shape.mfu(rate);
        let mfu = readout(&run, "mfu");
        // The query gives the MFU to three figures.
        assert!(
            (mfu / expected_mfu - 1.0).abs() < 0.002,
            "{name}: {mfu} vs {expected_mfu}"
        );
        let tokens_per_gpu = readout(&run, "tokens-per-gpu-per-second");
        let hardware_rate = tokens_per_gpu * shape.per_token(96.0);
        assert!(
            (hardware_rate / rate - 1.0).abs() < 0.003,
            "{name}: {hardware_rate:e} FLOP/s vs {rate:e}"
        );
    }
}

/// GPT-3 on 1,024 GPUs: their "about 34 days" is 8TP/(nX) with T = 300B,
/// P = 175B, X = 140 TFLOP/s. At the same rate eq. 3 in full takes
/// 96lh²(1 + s/6h + V/16lh) a token where 8P is 1,400B: 2.4% more.
#[test]
fn gpt3_takes_the_days_eq_3_gives_at_table_1s_rate() {
    let card = compare(run("GPT-3 175B"));
    let gpt3 = Gpt {
        layers: 96.0,
        hidden: 12288.0,
    };
    let days = 300e9 * gpt3.per_token(96.0) / (1024.0 * 140e12) / 86_400.0;
    let expected = days / 34.0;
    let ratio = card.time_ratio.unwrap();
    assert!(
        (ratio / expected - 1.0).abs() < 0.005,
        "{ratio} vs {expected}"
    );
    assert!(ratio > 1.0 && ratio < 1.05);
}

/// The 1T model: 84 days by 8TP/(nX), P = 1,008B, 450B tokens, 163 TFLOP/s.
#[test]
fn one_trillion_takes_the_days_eq_3_gives() {
    let card = compare(run("1T GPT"));
    let shape = Gpt {
        layers: 128.0,
        hidden: 25600.0,
    };
    let days = 450e9 * shape.per_token(96.0) / (3072.0 * 163e12) / 86_400.0;
    let ratio = card.time_ratio.unwrap();
    assert!(
        (ratio / (days / 84.0) - 1.0).abs() < 0.005,
        "{ratio} vs {}",
        days / 84.0
    );
}

/// Every Narayanan et al. run trained on 80 GB A100s.
#[test]
fn the_megatron_runs_fit() {
    for (name, _) in NARAYANAN {
        assert!(compare(run(name)).fits, "{name}");
    }
}

/// Llama 3 405B (Table 3: 126 layers, width 16,384, FFN 53,248, 128 heads,
/// 8 K/V heads, vocabulary 128,256): model FLOP a token at sequence 8,192,
/// attention counted as PaLM counts it, 6 × the matmul parameters + 12·L·h·s.
fn llama3_405b_flop_per_token() -> f64 {
    let (l, h, f, v, s) = (126.0, 16384.0, 53248.0, 128256.0, 8192.0);
    let kv = h * 8.0 / 128.0;
    let matmul = l * (2.0 * h * h + 2.0 * h * kv + 3.0 * h * f) + v * h;
    6.0 * matmul + 12.0 * l * h * s
}

/// Table 4's MFU is the card's, and the GPU's rate over the step is the
/// published TFLOP/s: 43% and 430 on 8,192 GPUs, 41% and 400 on 16,384.
#[test]
fn llama_3_cards_show_table_4s_mfu_and_rate() {
    for (name, mfu, tflops) in [
        ("Llama 3 405B on 8,192", 0.43, 430e12),
        ("Llama 3 405B on 16,384", 0.41, 400e12),
    ] {
        let run = run(name);
        assert!((readout(&run, "mfu") - mfu).abs() < 1e-9, "{name}");
        let rate = readout(&run, "tokens-per-gpu-per-second") * llama3_405b_flop_per_token();
        // 0.43 × 989 = 425 and 0.41 × 989 = 405.5: Table 4 rounds to tens.
        assert!((rate / tflops - 1.0).abs() < 0.015, "{name}: {rate:e}");
        assert!(
            (rate / (mfu * H100_PEAK) - 1.0).abs() < 1e-6,
            "{name}: {rate:e}"
        );
    }
}

/// Llama 3 405B trained on 16,384 H100s (Table 4); with the paper's own
/// settings (section 3.3.2: FSDP keeping the weights gathered, fp32
/// gradients, 7 layers on the end stages) it fits here too: the given case.
#[test]
fn llama_3_405b_fits_on_16384_h100s() {
    let run = run("Llama 3 405B on 16,384");
    assert_eq!(readout(&run, "fits"), 1.0);
    assert!(compare(run)
        .layout
        .contains("7 layers on the end stages and 8 on the others"));
}

/// Llama 3 405B trained on 8,192 H100s too (Table 4: 32 sequences a
/// replica): with one layer a model chunk, as section 3.3.2 implies (v = 8),
/// the interleaved schedule's warm-up holds few enough micro-batches that
/// every stage's state and activations come to 82.4 GB, within the 82.5 we
/// let an H100 use (issue 26). With the buffers of a GPU's peak, the
/// allocator's cache, the CUDA context and NCCL's (`peak_memory.rs`) our
/// count no longer fits it, where the run fit (issue 51's note): the card
/// says so, with the number it shows, and that the state and activations
/// alone are within what an H100 gives.
#[test]
fn llama_3_405b_on_8192_h100s_is_at_the_edge() {
    let run = run("Llama 3 405B on 8,192");
    let usable = readout(&run, "capacity") - readout(&run, "reserve");
    let state = readout(&run, "state-per-gpu");
    assert!(state < usable);
    let shown = compare(run).memory;
    let fullest = shown
        .split(" needed at its peak by the fullest GPU")
        .next()
        .unwrap();
    let fullest = fullest.rsplit("; ").next().unwrap();
    assert_eq!(readout(&run, "fits"), 0.0);
    assert!(
        run.explanation.contains(&format!("needs {fullest}")),
        "{fullest}"
    );
}

/// Its card says that reducing the gradients once a step, which keeps them
/// whole (FSDP's second way, PyTorch pull request 126166: `stage=1`), would
/// not fit. Worked out here: each GPU of t 8 × p 16 holds about 405B/128 =
/// 3.2B parameters, and whole fp32 gradients add 4 bytes of each, less the
/// 1/64 shard stage 2 keeps: about 12.4 GB, where stage 2 leaves less than
/// 1 GB to spare.
#[test]
fn llama_3_on_8192_h100s_would_not_fit_reducing_once() {
    let run = run("Llama 3 405B on 8,192");
    let once = run.query.replace("stage=2", "stage=1");
    let memory = |query: &str| common::readout("planner", query, "state-per-gpu");
    let whole_gradients = 4.0 * 405e9 / 128.0 * (1.0 - 1.0 / 64.0);
    let more = memory(&once) - memory(run.query);
    assert!((more / whole_gradients - 1.0).abs() < 0.05, "{more}");
    assert_eq!(common::readout("planner", &once, "fits"), 0.0);
    assert!(run.explanation.contains("would not fit"));
}

/// The model card's 30.84M GPU-hours cover all of pre-training; all 15.6T
/// tokens at Table 4's 41% take 15.6e12 × FLOP a token / (989e12 × 0.41)
/// seconds of one GPU.
#[test]
fn llama_3_gpu_hours() {
    let card = compare(run("Llama 3 405B on 16,384"));
    let hours = 15.6e12 * llama3_405b_flop_per_token() / (H100_PEAK * 0.41) / 3600.0;
    let ratio = card.time_ratio.unwrap();
    assert!(
        (ratio / (hours / 30.84e6) - 1.0).abs() < 0.002,
        "{ratio} vs {}",
        hours / 30.84e6
    );
    assert!(ratio < 1.0);
}

/// Llama 2 states no MFU; its GPU-hours imply 6ND / (hours × peak) over
/// the whole run. Ours over theirs is that implied MFU over our default
/// 64% while busy, times our whole step over its arithmetic:
/// - 7B (6.74B, the paper's count) on 512 A100s, ZeRO-3, 2 sequences of
///   4,096 a GPU, one micro-batch: 6Ψ × 8,192 FLOP at 0.64 × 312 TFLOP/s
///   is 1.659 s; ZeRO-3 gathers the 2-byte weights for the forward pass,
///   2Ψ × 511/512 = 13.5 GB at the network's 25 GB/s (0.538 s, inside the
///   forward's 0.553 s), and again with the 2-byte gradients' reduction in
///   the backward pass (1.076 s, inside its 1.106 s): nothing waits.
/// - 70B (N added up from its configuration), with FlashAttention and no
///   recomputation (selective would recompute nothing), adds four ring all-reduces
///   a layer a micro-batch of 4,096 × 8,192 × 2 B, 2 × 7/8 of it each, for
///   80 layers and 4 micro-batches at NVLink's 300 GB/s; ZeRO-1's
///   (2 + 2)Ψ/8 × 255/256 = 34.4 GB over the network go once a step, during
///   the last micro-batch's backward pass.
#[test]
fn llama_2_gpu_hours() {
    let seven = compare(run("Llama 2 7B")).time_ratio.unwrap();
    let implied_7b = 6.0 * 6.74e9 * 2e12 / (184_320.0 * 3600.0 * A100_PEAK);
    let computing = 6.0 * 6.74e9 * 8192.0 / (A100_PEAK * 0.64);
    let gathered = 2.0 * 6.74e9 * 511.0 / 512.0 / 25e9;
    assert!(gathered < computing / 3.0 && 2.0 * gathered < 2.0 / 3.0 * computing);
    let expected = implied_7b / 0.64;
    assert!(
        (seven / expected - 1.0).abs() < 0.002,
        "{seven} vs {expected}"
    );
    let (l, h, f, v, s) = (80.0, 8192.0, 28672.0, 32000.0, 4096.0);
    let params = l * (2.0 * h * h + 2.0 * h * h / 8.0 + 3.0 * h * f + 2.0 * h) + 2.0 * v * h + h;
    let implied_70b = 6.0 * params * 2e12 / (1_720_320.0 * 3600.0 * A100_PEAK);
    // A GPU's arithmetic a step: 1,024 sequences over 2,048 GPUs.
    let computing = 6.0 * params * 1024.0 * s / 2048.0 / (A100_PEAK * 0.64);
    let tensor = 4.0 * 2.0 * 7.0 / 8.0 * s * h * 2.0 * l * 4.0 / 300e9;
    let reduced = 4.0 * params / 8.0 * 255.0 / 256.0 / 25e9 - 2.0 / 3.0 * computing / 4.0;
    let seventy = compare(run("Llama 2 70B")).time_ratio.unwrap();
    let expected = implied_70b / 0.64 * (computing + tensor + reduced) / computing;
    assert!(
        (seventy / expected - 1.0).abs() < 0.01,
        "{seventy} vs {expected}"
    );
    assert!(compare(run("Llama 2 7B")).fits && compare(run("Llama 2 70B")).fits);
}

/// Each card says what its run used: the schedule, ZeRO stage, bytes, FLOP
/// count and recomputation, as the query sets them.
#[test]
fn cards_state_their_settings() {
    let card = compare(run("Llama 3 405B on 16,384"));
    assert_eq!(
        card.settings,
        "micro-batches of 1 sequence; Interleaved 1F1B, 8 chunks a GPU; ZeRO-2; 18 bytes a parameter; \
         FLOP 6ΨD + attention, recomputation none; MFU over the step 41.0%, as published."
    );
    let card = compare(run("GPT-3 175B"));
    assert!(
        card.settings
            .contains("Interleaved 1F1B, 2 chunks a GPU; No ZeRO; 18 bytes"),
        "{}",
        card.settings
    );
}

/// The cards whose layout and MFU are both published, by GPU generation:
/// Narayanan et al.'s four on A100s (Table 1) and Llama 3's two on H100s (Table 4).
const FITTED_A100: [&str; 4] = ["GPT-3 175B", "145.6B", "530B", "1T GPT"];
const FITTED_H100: [&str; 2] = ["Llama 3 405B on 8,192", "Llama 3 405B on 16,384"];

/// A card's query at the rate while busy `rate`, its published MFU left out.
fn at_rate(run: &PublishedRun, rate: f64) -> String {
    let kept: Vec<&str> = run
        .query
        .split('&')
        .filter(|pair| !pair.starts_with("step-mfu="))
        .collect();
    format!("{}&busy-util={rate}", kept.join("&"))
}

/// The value in hundredths from 0.20 to 1.00 at which `squares` is least.
fn least(squares: impl Fn(f64) -> f64) -> f64 {
    (20..=100)
        .map(|hundredths| f64::from(hundredths) / 100.0)
        .min_by(|a, b| squares(*a).total_cmp(&squares(*b)))
        .unwrap()
}

/// The rate while busy that brings `names`' steps closest to their
/// published ones in least squares (each card's step at the rate over its
/// published step, less one), to a hundredth, each residual printed.
fn fitted_rate(names: &[&str]) -> f64 {
    let runs: Vec<PublishedRun> = names.iter().map(|name| run(name)).collect();
    // The published step: the card entered with its MFU gives it (the
    // cards' own tests check that MFU against the sources).
    let published: Vec<f64> = runs.iter().map(|r| readout(r, "step-time")).collect();
    let ratios = |rate: f64| -> Vec<f64> {
        runs.iter()
            .zip(&published)
            .map(|(run, step)| common::readout("planner", &at_rate(run, rate), "step-time") / step)
            .collect()
    };
    let best = least(|rate| ratios(rate).iter().map(|r| (r - 1.0).powi(2)).sum());
    for (run, ratio) in runs.iter().zip(ratios(best)) {
        eprintln!("{} at {best}: {:+.3}", run.name, ratio - 1.0);
    }
    best
}

/// Each GPU generation's default rate while busy is the least-squares fit
/// of one rate to its cards (issue 26, by generation since issue 51): the
/// A100's to Narayanan et al.'s four, the H100's to Llama 3's two, which
/// the later GPUs, with no such report, take too.
#[test]
fn each_generations_rate_is_fitted_to_its_runs() {
    let (ampere, hopper) = (fitted_rate(&FITTED_A100), fitted_rate(&FITTED_H100));
    for gpu in parallax::model::presets::GPUS
        .iter()
        .filter(|g| g.id != "illustrative")
    {
        let fit = if gpu.id == "a100-80gb" {
            ampere
        } else {
            hopper
        };
        assert!(
            (gpu.busy - fit).abs() < 0.005,
            "{}: {} against {fit}",
            gpu.id,
            gpu.busy
        );
    }
}

/// The FP8 runs on Megatron-LM's software whose speed is logged: MLPerf
/// v4.0's two GPT-3 runs and Megatron-Bridge's two Llama runs.
const FP8_RUNS: [&str; 4] = [
    "GPT-3 175B on 512 H100s",
    "GPT-3 175B on 11,616 H100s",
    "Llama 3.1 405B on 1,024 H100s",
    "Llama 3 70B on 64 H100s",
];

/// A card's step over its logged one (MLPerf's seconds a step; Bridge's
/// tokens a second, a step taking their inverse) with the FP8 matrix
/// multiplies going `share` of the way to the FP8 peak.
fn fp8_ratio(run: &PublishedRun, share: f64) -> f64 {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(run.query), &mut notices);
    assert!(notices.is_empty(), "{}: {notices:?}", run.name);
    let mut plan = params.plan();
    plan.numerics.fp8_gain_share = share;
    let estimate = plan.estimate();
    match (
        run.published.step_seconds,
        run.published.tokens_per_gpu_per_second,
    ) {
        (Some(step), _) => estimate.step_time.value() / step,
        (None, Some(tokens)) => tokens / estimate.tokens_per_gpu_per_second,
        (None, None) => panic!("{}: nothing logged", run.name),
    }
}

/// Megatron's FP8 share is the least-squares fit to its four FP8 runs at
/// the H100's fitted rate (TransformerEngine#131's "30-40%" end to end,
/// NeMo's of 2023, is below what these runs log from 2024 on); every run
/// is then within 15% of its log.
#[test]
fn the_fp8_gain_is_fitted_to_the_fp8_runs() {
    let runs: Vec<PublishedRun> = FP8_RUNS.iter().map(|name| run(name)).collect();
    let best = least(|share| {
        runs.iter()
            .map(|r| (fp8_ratio(r, share) - 1.0).powi(2))
            .sum()
    });
    let fitted = Software::Megatron.fp8_gain_share();
    assert!((fitted - best).abs() < 0.005, "{fitted} against {best}");
    for run in &runs {
        let ratio = fp8_ratio(run, fitted);
        eprintln!("{} at {fitted}: {:+.3}", run.name, ratio - 1.0);
        assert!((ratio - 1.0).abs() < 0.15, "{}: {ratio}", run.name);
        let card = compare(*run);
        assert_eq!(
            card.time_ratio.map(|r| (r * 100.0).round()),
            Some((ratio * 100.0).round())
        );
        assert!(card.fits, "{} ran, so it must fit", run.name);
    }
}

/// GPT-3's PaLM-count FLOP a token at sequence 2,048 (Narayanan et al.
/// 2021, eq. 3 without recomputation): 6 × its matrices, 96 layers of 12h²
/// and the output layer's V·h (V 50,257), plus 12·L·h·s.
fn gpt3_flop_per_token() -> f64 {
    let (l, h, s, v) = (96.0, 12288.0, 2048.0, 50257.0);
    6.0 * (l * 12.0 * h * h + v * h) + 12.0 * l * h * s
}

/// MLPerf Training v4.0's logs (mlcommons/training_results_v4.0, NVIDIA's
/// GPT-3 runs): the global batch and the seconds a step from block_start to
/// block_stop. On 512 H100s, 2,304 sequences in 10.902 s; on 11,616, 2,904
/// in 0.924 s. Worked out here: 910 and 596 TFLOP/s a GPU, 92% and 60% of
/// the BF16 peak, the larger run keeping 0.655 of the smaller's rate. Both
/// fit as they ran; ours are within 15% of the logs (the cards say by how
/// much); and our strong scaling keeps within 0.08 of the logged 0.655,
/// the bubble of 6 micro-batches on 6 stages included (within 0.03 before
/// issue 51 fitted the FP8 gain: ours is 0.58, the card says so).
#[test]
fn mlperf_gpt3_steps() {
    let logged = |sequences: f64, gpus: f64, step: f64| {
        sequences * 2048.0 * gpt3_flop_per_token() / gpus / step
    };
    let small = logged(2304.0, 512.0, 10.902);
    let large = logged(2904.0, 11616.0, 0.924);
    assert!((small / 1e12 - 910.0).abs() < 5.0, "{small}");
    assert!((large / 1e12 - 596.0).abs() < 5.0, "{large}");
    assert_eq!(
        [small, large].map(|rate| (rate / H100_PEAK * 100.0).round()),
        [92.0, 60.0]
    );
    let logged_scaling = large / small;
    assert!((logged_scaling - 0.655).abs() < 0.005, "{logged_scaling}");
    let (a, b) = (
        run("GPT-3 175B on 512 H100s"),
        run("GPT-3 175B on 11,616 H100s"),
    );
    for card in [a, b] {
        assert_eq!(readout(&card, "fits"), 1.0, "{}", card.name);
        let ratio = readout(&card, "step-time") / card.published.step_seconds.unwrap();
        assert!((ratio - 1.0).abs() < 0.15, "{}: {ratio}", card.name);
        assert!(
            card.explanation.contains(&format!("{ratio:.2}×")),
            "{}: {ratio:.2} not in its words",
            card.name
        );
    }
    let ours_scaling = readout(&b, "mfu") / readout(&a, "mfu");
    assert!(
        (ours_scaling - logged_scaling).abs() < 0.08,
        "{ours_scaling}"
    );
    assert!(
        b.explanation.contains(&format!("ours {ours_scaling:.2}")),
        "{ours_scaling}"
    );
}

/// DeepSeek-V3's report (Table 1): 2,664K H800 GPU-hours for 14.8T tokens
/// of pre-training on 2,048 GPUs. Ours are within 15% (the card shows the
/// ratio in its words); our fullest GPU fits, as the run did on its 80 GB
/// GPUs, and the card says what it needs, with the number it shows.
#[test]
fn deepseek_v3_gpu_hours() {
    let card = run("DeepSeek-V3");
    let hours = readout(&card, "train-time") * 2048.0 / 3600.0;
    let ratio = hours / 2_664_000.0;
    assert!((ratio - 1.0).abs() < 0.15, "{ratio}");
    assert!(
        card.explanation
            .contains(&format!("{ratio:.2} of the report's")),
        "{ratio:.2}"
    );
    assert_eq!(readout(&card, "fits"), 1.0);
    let shown = compare(card);
    let fullest = shown
        .memory
        .split(" needed at its peak by the fullest GPU")
        .next()
        .unwrap();
    let fullest = fullest.rsplit("; ").next().unwrap();
    assert!(
        card.explanation.contains(&format!("needs {fullest}")),
        "{fullest}"
    );
    // The all-to-all seconds DualPipe does not hide, as its words give them.
    let mut notices = Vec::new();
    let plan = PlannerParams::from_query(&Query::parse(card.query), &mut notices).plan();
    let exposed = plan.estimate().breakdown.exchange;
    assert!(
        card.explanation
            .contains(&format!("{exposed:.1} s of it outlasts")),
        "{exposed:.1}"
    );
}

/// What whole runs sustained, 6ND over their published GPU-hours × the
/// dense peak, by generation: on the A100 Llama 2 7B (6.74B) and 70B
/// (68.98B, its configuration's count), 2T tokens each in 184,320 and
/// 1,720,320 hours (Touvron et al. 2023, Table 2); on Hopper Llama 3.1
/// 405B, 15.6T tokens in 30.84M H100-hours (its model card), and
/// DeepSeek-V3, 37B parameters a token, 14.8T tokens in 2,664K H800-hours
/// (its report's Table 1). Each preset takes its generation's geometric
/// mean, to a hundredth; and the first figure at that rate puts Llama 3.1
/// 405B on 1,024 H100s within 5% of what its hours make it (issue 51's
/// 1.08e8 s, where the rate while computing gives 5.86e7).
#[test]
fn whole_run_rates_are_the_published_runs_hours() {
    let mfu = |params: f64, tokens: f64, hours: f64, peak: f64| {
        6.0 * params * tokens / (hours * 3600.0 * peak)
    };
    let mean = |a: f64, b: f64| ((a * b).sqrt() * 100.0).round() / 100.0;
    let ampere = mean(
        mfu(6.74e9, 2e12, 184_320.0, A100_PEAK),
        mfu(68.98e9, 2e12, 1_720_320.0, A100_PEAK),
    );
    let hopper = mean(
        mfu(405e9, 15.6e12, 30.84e6, H100_PEAK),
        mfu(37e9, 14.8e12, 2_664_000.0, H100_PEAK),
    );
    assert_eq!((ampere, hopper), (0.41, 0.35));
    for gpu in parallax::model::presets::GPUS {
        let expected = match gpu.id {
            "illustrative" => None,
            "a100-80gb" => Some(ampere),
            _ => Some(hopper),
        };
        assert_eq!(gpu.whole_run, expected, "{}", gpu.id);
    }
    let query = "model=llama3-405b&gpu=h100-sxm&tokens=15.6T";
    let hours_make = 30.84e6 * 3600.0 / 1024.0;
    let whole = common::readout("why", &format!("{query}&rate=run"), "time-1024-gpus");
    assert!(
        (whole / hours_make - 1.0).abs() < 0.05,
        "{whole} against {hours_make}"
    );
    let busy = common::readout("why", query, "time-1024-gpus");
    assert!(busy < 0.6 * hours_make, "{busy}");
}
