//! Every readout of the explainer seed (`000_3a03997580fba279.txt`) at its
//! stated positions, to the digits the seed shows, computed by the estimator.

use parallax::model::activations::hidden_state;
use parallax::model::comm::{data_parallel_sent, ring_allreduce_sent, transfer_time};
use parallax::model::compute::{training_flop, training_time};
use parallax::model::memory::{fits, BytesPerParam, TrainingState, ZeroStage};
use parallax::model::pipeline::{bubble, busy_units, layers_per_stage, total_units, Schedule};
use parallax::model::presets::{DEFAULT_GPU, DEFAULT_MODEL};
use parallax::model::tensor::{
    flop_per_gpu_per_layer, sent_per_gpu_per_layer, weights_per_gpu_per_layer,
};
use parallax::model::three_d::{estimate, Layout};
use parallax::model::units::{format_ratio, Bytes, Count, Fraction, Seconds};

const ADAM: BytesPerParam = BytesPerParam::MIXED_PRECISION_ADAM;
const TOKENS: f64 = 2e12;
const BATCH: u32 = 1024;

fn psi() -> f64 {
    DEFAULT_MODEL.arch.parameter_count()
}

fn seq() -> f64 {
    f64::from(DEFAULT_MODEL.arch.seq)
}

#[test]
fn step_1_why_one_gpu_is_not_enough() {
    assert_eq!(Count(psi()).to_string(), "6.74B");
    let state = TrainingState::full(psi(), ADAM);
    assert_eq!(state.total().to_string(), "107.8 GB");
    assert_eq!(state.weights.to_string(), "13.5 GB");
    assert_eq!(state.gradients.to_string(), "13.5 GB");
    assert_eq!(state.optimizer().to_string(), "80.9 GB");
    assert_eq!(
        format_ratio(state.total().value() / DEFAULT_GPU.memory.value(), 2),
        "1.35×"
    );
    let compute = training_flop(psi(), TOKENS, false);
    assert_eq!(compute.to_string(), "8.1e22 FLOP");
    let rate = DEFAULT_GPU.sustained();
    assert_eq!(
        training_time(compute, 1, rate, 0.0).to_string(),
        "17.1 years"
    );
    assert_eq!(training_time(compute, 64, rate, 0.0).to_string(), "98 days");
    assert_eq!(
        training_time(compute, 1024, rate, 0.0).to_string(),
        "6 days"
    );
}

#[test]
fn step_2_data_parallelism_at_8_gpus() {
    let gpus = 8;
    let state = TrainingState::full(psi(), ADAM);
    assert_eq!(state.total().to_string(), "107.8 GB");
    assert_eq!(BATCH / gpus, 128);
    assert_eq!(state.gradients.to_string(), "13.5 GB");
    let sent = ring_allreduce_sent(state.gradients, gpus);
    assert_eq!(sent.to_string(), "23.6 GB");
    let per_step = training_flop(psi(), f64::from(BATCH / gpus) * seq(), false);
    assert_eq!(per_step.at(DEFAULT_GPU.sustained()).to_string(), "2.4 min");
    assert_eq!(
        transfer_time(sent, DEFAULT_GPU.network).to_string(),
        "0.47 s"
    );
}

#[test]
fn step_3_zero_1_at_8_gpus() {
    let state = TrainingState::zero(psi(), ADAM, ZeroStage::One, 8);
    assert_eq!(state.total().to_string(), "37.1 GB");
    assert_eq!(state.optimizer().to_string(), "10.1 GB");
    let full = TrainingState::full(psi(), ADAM).total();
    assert_eq!(
        format_ratio(full.value() / state.total().value(), 1),
        "2.9×"
    );
    let sent = data_parallel_sent(
        TrainingState::full(psi(), ADAM).gradients,
        8,
        ZeroStage::One,
    );
    assert_eq!(sent.to_string(), "23.6 GB");
    assert!(fits(state.total(), DEFAULT_GPU.memory));
    // The unsharded floor: fp16 weights and gradients.
    assert_eq!((state.weights + state.gradients).to_string(), "27.0 GB");
}

#[test]
fn step_3_the_zero_papers_example() {
    let before = TrainingState::full(7.5e9, ADAM).total();
    let after = TrainingState::zero(7.5e9, ADAM, ZeroStage::Three, 64).total();
    assert_eq!(before, Bytes(120e9));
    assert_eq!(format!("{:.1} GB", after.value() / 1e9), "1.9 GB");
}

#[test]
fn step_4_tensor_parallelism_at_4_gpus_over_nvlink() {
    let arch = DEFAULT_MODEL.arch;
    assert_eq!(weights_per_gpu_per_layer(&arch, 4).to_string(), "50.6M");
    assert_eq!(
        (TrainingState::full(psi(), ADAM).total() / 4.0).to_string(),
        "27.0 GB"
    );
    let sent = sent_per_gpu_per_layer(&arch, 4, seq());
    assert_eq!(sent.to_string(), "201 MB");
    let comm = transfer_time(sent, DEFAULT_GPU.nvlink);
    assert_eq!(comm.to_string(), "0.45 ms");
    let compute = flop_per_gpu_per_layer(&arch, 4, seq()).at(DEFAULT_GPU.sustained());
    assert_eq!(compute.to_string(), "8.3 ms");
    assert_eq!(format_ratio(comm.value() / compute.value(), 2), "0.05×");
}

#[test]
fn step_5_gpipe_with_4_stages_and_4_micro_batches() {
    assert_eq!(
        Fraction(bubble(Schedule::GPipe, 4, 4, 1)).to_string(),
        "42.9%"
    );
    assert_eq!(layers_per_stage(DEFAULT_MODEL.arch.layers, 4), 8);
    assert_eq!(
        (TrainingState::full(psi(), ADAM).total() / 4.0).to_string(),
        "27.0 GB"
    );
    assert_eq!((busy_units(4), total_units(4, 4)), (12, 21));
    assert_eq!(
        hidden_state(&DEFAULT_MODEL.arch, seq()).to_string(),
        "34 MB"
    );
}

#[test]
fn step_6_3d_parallelism_8_by_4_by_8() {
    let layout = Layout {
        tensor: 8,
        pipeline: 4,
        data: 8,
        zero: ZeroStage::One,
    };
    let result = estimate(
        &layout,
        psi(),
        TOKENS,
        BATCH,
        DEFAULT_GPU.sustained(),
        DEFAULT_GPU.gpus_per_node,
        BytesPerParam::MIXED_PRECISION_ADAM,
    );
    assert_eq!((result.gpus, result.nodes), (256, 32));
    assert_eq!(result.state.total().to_string(), "1.16 GB");
    assert_eq!(result.micro_batches, 128);
    assert_eq!(Fraction(result.bubble).to_string(), "2.3%");
    assert_eq!(result.time.to_string(), "25 days");
    assert!(result.time.value() > 24.5 * Seconds::DAY);
}
