//! Every checked answer of the course module (`003_feea78fdd7cca756.txt`).

use parallax::model::compute::{training_flop, training_time};
use parallax::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use parallax::model::pipeline::{bubble, micro_batches_for_bubble_below, Schedule};
use parallax::model::units::{FlopPerSecond, Seconds};

const ADAM: BytesPerParam = BytesPerParam::MIXED_PRECISION_ADAM;

fn gb(stage: ZeroStage, params: f64, gpus: u32) -> f64 {
    TrainingState::zero(params, ADAM, stage, gpus)
        .total()
        .value()
        / 1e9
}

#[test]
fn seventy_billion_parameters_need_1120_gb_with_plain_data_parallelism() {
    assert_eq!(gb(ZeroStage::None, 70e9, 1), 1120.0);
    assert_eq!(gb(ZeroStage::None, 70e9, 8), 1120.0);
    assert_eq!(gb(ZeroStage::None, 70e9, 4096), 1120.0);
}

#[test]
fn zero_3_divides_it_by_the_gpu_count() {
    assert_eq!(gb(ZeroStage::Three, 70e9, 8), 140.0);
    assert_eq!(gb(ZeroStage::Three, 70e9, 16), 70.0);
    assert_eq!(gb(ZeroStage::Three, 70e9, 64), 17.5);
}

#[test]
fn zero_1_for_7b_on_8_gpus_is_38_5_gb() {
    assert!((gb(ZeroStage::One, 7e9, 8) - 38.5).abs() < 1e-9);
}

#[test]
fn the_bubble_for_4_stages_and_8_micro_batches() {
    assert!((bubble(Schedule::GPipe, 4, 8, 1) - 0.2727).abs() < 0.0001);
}

#[test]
fn twenty_eight_micro_batches_for_a_bubble_under_10_percent() {
    let m = micro_batches_for_bubble_below(Schedule::GPipe, 4, 1, 0.1, 1 << 16);
    assert_eq!(m, Some(28));
}

#[test]
fn eight_billion_parameters_on_15_trillion_tokens() {
    let compute = training_flop(8e9, 15e12, false);
    assert_eq!(format!("{:.0e}", compute.value()), "7e23");
    let years = training_time(compute, 1, FlopPerSecond(4e14), 0.0).value() / Seconds::YEAR;
    assert!((years / 55.0 - 1.0).abs() < 0.05, "{years} years");
}
