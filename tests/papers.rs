//! Numbers from the papers the seeds cite.

use parallax::model::activations::{
    first_stage, in_flight, per_layer, ActivationSetup, Attention, Recompute,
};
use parallax::model::compute::{
    flop_per_token, recompute_flop_per_token, training_flop, training_time, FlopCount,
};
use parallax::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use parallax::model::pipeline::{bubble, Schedule};
use parallax::model::presets::{model_preset, Architecture};
use parallax::model::units::{Flop, FlopPerSecond, Seconds};

/// GPT-3's shape with another depth, width and head count, and Megatron-LM's
/// padded vocabulary of 51,200 (Narayanan et al. 2021, section 5.1).
fn gpt(layers: u32, hidden: u32, heads: u32) -> Architecture {
    Architecture {
        layers,
        hidden,
        ffn: 4 * hidden,
        heads,
        kv_heads: heads,
        vocab: 51_200,
        ..model_preset("gpt3-175b").unwrap().arch
    }
}

/// Training FLOP a token with full recomputation, counted as Narayanan et
/// al. 2021's eq. 3 counts it: the `6nd-attn` count and one more forward pass of every layer.
fn with_recompute(arch: &Architecture, seq: f64) -> f64 {
    flop_per_token(FlopCount::SixNdAttention, 0.0, arch, seq)
        + recompute_flop_per_token(Recompute::Full, arch, seq)
}

/// Section 5.1: end-to-end time ≈ 8TP/(nX); GPT-3 (175B) on 300B tokens,
/// 1,024 GPUs at 140 TFLOP/s: "about 34 days". Their 8 is 6 plus
/// recomputation's 2, the attention and vocabulary terms of eq. 3 dropped;
/// our count with them, for GPT-3's shape, is 8.2 a parameter.
#[test]
fn narayanan_gpt3_trains_in_about_34_days() {
    let arch = model_preset("gpt3-175b").unwrap().arch;
    let per_parameter = with_recompute(&arch, 2048.0) / 175e9;
    assert!((per_parameter / 8.0 - 1.0).abs() < 0.03, "{per_parameter}");
    let time = training_time(Flop(8.0 * 175e9 * 300e9), 1024, FlopPerSecond(140e12), 0.0);
    assert_eq!(time.to_string(), "34 days");
}

/// The same section: a 1T-parameter model (Table 1's last row: 128 layers,
/// width 25,600, 160 heads), 450B tokens, 3,072 GPUs at 163 TFLOP/s, about
/// 84 days by 8TP/(nX); eq. 3's attention and vocabulary terms add 2%.
#[test]
fn narayanan_one_trillion_parameters_in_about_84_days() {
    let arch = gpt(128, 25_600, 160);
    // P as Table 1 prints it: 1,008.0 billion.
    let approximate = training_time(Flop(8.0 * 1008e9 * 450e9), 3072, FlopPerSecond(163e12), 0.0);
    assert_eq!(approximate.to_string(), "84 days");
    let flop = Flop(with_recompute(&arch, 2048.0) * 450e9);
    let days = training_time(flop, 3072, FlopPerSecond(163e12), 0.0).value() / Seconds::DAY;
    assert!((days / 84.0 - 1.0).abs() < 0.03, "{days} days");
}

/// Table 1 of Narayanan et al. 2021: (parameters in billions as printed,
/// heads, width, layers). Their count, 12lh²(1 + 13/12h + (V + s)/12lh), is
/// our architecture's count to the printed decimal.
const NARAYANAN_TABLE_1: [(f64, u32, u32, u32); 10] = [
    (1.7, 24, 2304, 24),
    (3.6, 32, 3072, 30),
    (7.5, 32, 4096, 36),
    (18.4, 48, 6144, 40),
    (39.1, 64, 8192, 48),
    (76.1, 80, 10240, 60),
    (145.6, 96, 12288, 80),
    (310.1, 128, 16384, 96),
    (529.6, 128, 20480, 105),
    (1008.0, 160, 25600, 128),
];

#[test]
fn narayanan_table_1_parameter_counts() {
    for (billions, heads, hidden, layers) in NARAYANAN_TABLE_1 {
        let count = gpt(layers, hidden, heads).exact_parameter_count() / 1e9;
        assert_eq!(
            format!("{count:.1}"),
            format!("{billions:.1}"),
            "{layers} × {hidden}"
        );
    }
}

/// Eq. 3 of Narayanan et al. 2021, the FLOP of one iteration of batch B
/// with full recomputation, 96·B·s·l·h²(1 + s/6h + V/16lh), against the
/// `6nd-attn` count plus recomputation, for every row of Table 1: the count
/// behind its TFLOP/s column (and behind the planner's MFU).
#[test]
fn the_flop_count_is_narayanans_equation_3_for_every_row_of_table_1() {
    let s = 2048.0;
    for (_, heads, hidden, layers) in NARAYANAN_TABLE_1 {
        let arch = gpt(layers, hidden, heads);
        let (l, h, v) = (f64::from(layers), f64::from(hidden), 51_200.0);
        let equation_3 = 96.0 * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
        let ours = with_recompute(&arch, s) * s;
        assert!(
            (ours / equation_3 - 1.0).abs() < 1e-12,
            "{layers} × {hidden}: {ours} vs {equation_3}"
        );
    }
}

/// Brown et al. 2020, Table D.1: GPT-3 175B took 3.14e23 FLOP on 300B tokens
/// (6ND with its parameter count as the architecture adds it up, 174.6B).
#[test]
fn gpt3_compute_is_brown_et_als() {
    let gpt3 = model_preset("gpt3-175b").unwrap();
    assert_eq!(
        format!("{:.2e}", training_flop(gpt3.params(), 300e9).value()),
        "3.14e23"
    );
}

/// Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, N_d = 64.
#[test]
fn zero_figure_1() {
    let per_gpu = |stage| {
        TrainingState::zero(7.5e9, BytesPerParam::MIXED_PRECISION_ADAM, stage, 64)
            .total()
            .value()
            / 1e9
    };
    assert_eq!(format!("{:.0}", per_gpu(ZeroStage::None)), "120");
    assert_eq!(format!("{:.1}", per_gpu(ZeroStage::One)), "31.4");
    assert_eq!(format!("{:.1}", per_gpu(ZeroStage::Two)), "16.6");
    assert_eq!(format!("{:.1}", per_gpu(ZeroStage::Three)), "1.9");
}

fn gpt3_setup(t: u32, sequence_parallel: bool, recompute: Recompute) -> ActivationSetup {
    ActivationSetup {
        seq: 2048.0,
        micro_batch: 1.0,
        tensor_parallel: t,
        sequence_parallel,
        recompute,
        attention: Attention::Standard,
        fp8_inputs: false,
        kept_share: 1.0,
    }
}

/// Korthikanti et al. 2022, section 4: at GPT-3's a = 96, s = 2048, h = 12288,
/// the attention term 5as/h is 80, larger than the other 34.
#[test]
fn korthikanti_gpt3_attention_term_is_80() {
    let arch = model_preset("gpt3-175b").unwrap().arch;
    let sbh = 2048.0 * f64::from(arch.hidden);
    let plain = per_layer(&arch, &gpt3_setup(1, false, Recompute::None));
    assert_eq!(plain.value(), sbh * (34.0 + 80.0));
}

/// Section 5: selective recomputation drops the 5as/h term, saving 70% of
/// the activation memory at GPT-3's settings (with tensor and sequence parallelism).
#[test]
fn korthikanti_selective_recompute_saves_70_percent() {
    let arch = model_preset("gpt3-175b").unwrap().arch;
    let all = per_layer(&arch, &gpt3_setup(8, true, Recompute::None));
    let selective = per_layer(&arch, &gpt3_setup(8, true, Recompute::Selective));
    let saving = 1.0 - selective.value() / all.value();
    assert_eq!(format!("{:.0}%", saving * 100.0), "70%");
}

/// With FlashAttention there are no stored scores for selective
/// recomputation to drop (Dao et al. 2022, section 3.1): Megatron-LM
/// checkpoints the core attention only without flash attention
/// (`ParallelAttention.forward`, `megatron/model/transformer.py`), so at
/// GPT-3's settings selective keeps what no recomputation keeps,
/// (34 + 4a/h)·sbh/t with sequence parallelism (the softmax statistics, 4asb,
/// for the kernel's backward pass), and costs no FLOP; with the scores
/// stored it costs their forward again, 4sh a token a layer, a third of the
/// attention core's forward and backward.
#[test]
fn selective_recomputation_does_nothing_with_flash_attention() {
    let arch = model_preset("gpt3-175b").unwrap().arch;
    let (a, h, s) = (f64::from(arch.heads), f64::from(arch.hidden), 2048.0);
    let flash = |recompute| ActivationSetup {
        attention: Attention::Flash,
        ..gpt3_setup(8, true, recompute)
    };
    let kept = per_layer(&arch, &flash(Recompute::Selective)).value();
    assert_eq!(kept, per_layer(&arch, &flash(Recompute::None)).value());
    assert!((kept / (s * h * (34.0 + 4.0 * a / h) / 8.0) - 1.0).abs() < 1e-12);
    assert_eq!(flash(Recompute::Selective).recompute_run(), Recompute::None);
    let standard = gpt3_setup(8, true, Recompute::Selective);
    assert_eq!(standard.recompute_run(), Recompute::Selective);
    let layers = f64::from(arch.layers);
    let extra = recompute_flop_per_token(standard.recompute_run(), &arch, s);
    assert!(
        (extra / (layers * 4.0 * s * h) - 1.0).abs() < 1e-12,
        "{extra}"
    );
}

/// Table 2: the tensor-parallel baseline keeps 10 sbh unsplit; full
/// recomputation keeps only each layer's input, 2sbh (a 1/t slice of it
/// under sequence parallelism).
#[test]
fn korthikanti_table_2_forms() {
    let arch = model_preset("gpt3-175b").unwrap().arch;
    let sbh = 2048.0 * f64::from(arch.hidden);
    let tp = per_layer(&arch, &gpt3_setup(8, false, Recompute::None)).value();
    assert!((tp - sbh * (10.0 + 24.0 / 8.0 + 80.0 / 8.0)).abs() < 1.0);
    let tp_selective = per_layer(&arch, &gpt3_setup(8, false, Recompute::Selective)).value();
    assert_eq!(tp_selective, sbh * (10.0 + 3.0));
    assert_eq!(
        per_layer(&arch, &gpt3_setup(8, false, Recompute::Full)).value(),
        2.0 * sbh
    );
    assert_eq!(
        per_layer(&arch, &gpt3_setup(8, true, Recompute::Full)).value(),
        2.0 * sbh / 8.0
    );
}

/// GPipe keeps every micro-batch in flight, 1F1B at most p (Narayanan et al. 2021, section 2.2.1),
/// with the same bubble.
#[test]
fn one_f_one_b_bounds_the_micro_batches_in_flight() {
    assert_eq!(in_flight(Schedule::GPipe, 4, 32, 1), 32.0);
    assert_eq!(in_flight(Schedule::OneFOneB, 4, 32, 1), 4.0);
    assert_eq!(
        bubble(Schedule::GPipe, 4, 32, 1),
        bubble(Schedule::OneFOneB, 4, 32, 1)
    );
}

/// Korthikanti et al. 2022, sections 4.2.3 and 4.3, for the four models of
/// their Table 3 (heads, width, layers, pipeline stages; t = 8, s = 2048,
/// one sequence a micro-batch, V = 51,200). The first stage holds p
/// micro-batches of its L/p layers: L layers' worth, sbh·34/t each with
/// sequence parallelism and selective recomputation; the interleaved
/// schedule with v chunks multiplies that by 1 + (p − 1)/(pv); the input
/// embedding adds its dropout mask (sbh/t) and token ids (8sb/t) for each
/// micro-batch; a single stage also holds the output layer's 4sbh(1 + V/h)/t.
/// Figure 1 plots these totals against 80 GB; its bar heights are not
/// printed as numbers, so the test pins the totals from the paper's
/// formulas, each one written out here rather than taken from the code.
#[test]
fn korthikanti_first_stage_totals_for_table_3() {
    let (t, s) = (8.0, 2048.0);
    for (heads, hidden, layers, p) in [
        (64, 6144, 48, 1),
        (96, 12288, 96, 8),
        (128, 20480, 105, 35),
        (160, 25600, 128, 64),
    ] {
        let arch = gpt(layers, hidden, heads);
        let setup = ActivationSetup {
            seq: s,
            micro_batch: 1.0,
            tensor_parallel: 8,
            sequence_parallel: true,
            recompute: Recompute::Selective,
            attention: Attention::Standard,
            fp8_inputs: false,
            kept_share: 1.0,
        };
        let (h, l, pf, v) = (f64::from(hidden), f64::from(layers), f64::from(p), 51_200.0);
        let sbh = s * h;
        let embedding = (sbh + 8.0 * s) / t * pf;
        let output = if p == 1 {
            4.0 * sbh * (1.0 + v / h) / t
        } else {
            0.0
        };
        for chunks in [1, 2] {
            let schedule = if chunks == 1 {
                Schedule::OneFOneB
            } else {
                Schedule::Interleaved
            };
            let factor = if chunks == 1 {
                1.0
            } else {
                1.0 + (pf - 1.0) / (pf * 2.0)
            };
            let expected = (sbh * 34.0 / t * l + embedding) * factor + output;
            let ours = first_stage(&arch, &setup, p, schedule, 4 * p, chunks).value();
            assert!(
                (ours / expected - 1.0).abs() < 1e-12,
                "{layers} layers, p = {p}, v = {chunks}: {ours} vs {expected}"
            );
        }
    }
}

/// Mixtral 8x7B (Jiang et al. 2024, Table 1; Mistral's announcement: 46.7B
/// parameters in all, 12.9B used a token). Added up here from its
/// configuration: a layer's attention 2h² + 2h·1,024 (8 K/V heads of 128),
/// 8 SwiGLU experts of 3·h·14,336, a router of h·8 and two RMSNorms of h;
/// untied embedding and output of 32,000·h; a final norm.
#[test]
fn mixtral_counts() {
    let mixtral = model_preset("mixtral-8x7b").unwrap();
    let h = 4096.0;
    let attention = 2.0 * h * h + 2.0 * h * 1024.0;
    let expert = 3.0 * h * 14336.0;
    let rest = h * 8.0 + 2.0 * h;
    let outside = 2.0 * 32000.0 * h + h;
    let all = 32.0 * (attention + 8.0 * expert + rest) + outside;
    let active = 32.0 * (attention + 2.0 * expert + rest) + outside;
    assert_eq!(mixtral.arch.exact_parameter_count(), all);
    assert_eq!(mixtral.arch.active_parameter_count(), active);
    assert_eq!((all, active), (46_702_792_704.0, 12_879_925_248.0));
    // 6ND counts the parameters a token uses.
    let query = parallax::model::query::Query::parse("model=mixtral-8x7b");
    let scenario = parallax::model::scenario::Scenario::from_query(&query, &mut Vec::new());
    assert_eq!(scenario.flop_per_token(), 6.0 * active);
}
