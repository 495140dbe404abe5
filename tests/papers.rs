//! Numbers from the papers the seeds cite.

use parallax::model::activations::{per_layer, ActivationSetup, Recompute};
use parallax::model::compute::{training_flop, training_time};
use parallax::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use parallax::model::pipeline::{bubble, peak_in_flight, Schedule};
use parallax::model::presets::model_preset;
use parallax::model::units::{FlopPerSecond, Seconds};

/// Narayanan et al. 2021, section 5.1: end-to-end time ≈ 8TP/(nX).
#[test]
fn narayanan_gpt3_trains_in_about_34_days() {
    let compute = training_flop(175e9, 300e9, true);
    let time = training_time(compute, 1024, FlopPerSecond(140e12), 0.0);
    assert_eq!(time.to_string(), "34 days");
}

/// The same section: a 1T-parameter model, 450B tokens, 3,072 GPUs at 163 TFLOP/s, about 84 days.
#[test]
fn narayanan_one_trillion_parameters_in_about_84_days() {
    let compute = training_flop(1e12, 450e9, true);
    let days = training_time(compute, 3072, FlopPerSecond(163e12), 0.0).value() / Seconds::DAY;
    assert!((days / 84.0 - 1.0).abs() < 0.02, "{days} days");
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
    assert_eq!(peak_in_flight(Schedule::GPipe, 4, 32), 32);
    assert_eq!(peak_in_flight(Schedule::OneFOneB, 4, 32), 4);
    assert_eq!(
        bubble(Schedule::GPipe, 4, 32, 1),
        bubble(Schedule::OneFOneB, 4, 32, 1)
    );
}
