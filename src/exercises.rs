//! The course module's exercises and more in the same vein, as cards: the
//! numeric answers are computed by the estimator, never typed in. Drawn
//! into the page at build time (tests/page.rs), not in the wasm: nothing in
//! them changes with the reader, and `src/boot.js` checks the answers.

use leptos::prelude::*;

use crate::model::checkpoint::predicted_peak_tensors;
use crate::model::comm::ring_allreduce_sent;
use crate::model::compute::training_flop;
use crate::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use crate::model::pipeline::{bubble, Schedule};
use crate::model::presets::DEFAULT_MODEL;
use crate::model::tensor::sent_per_gpu_per_layer;
use crate::model::three_d::Layout;
use crate::model::units::group_thousands;
use crate::widgets::NumberQuestion;

/// A numeric exercise: its answer and worked solution come from the estimator.
pub struct Exercise {
    pub id: &'static str,
    pub prompt: &'static str,
    /// The unit the prompt asks for, which the reader may type after the number.
    pub unit: &'static str,
    pub tolerance: f64,
    pub hint: &'static str,
    /// The answer, in the unit the prompt asks for.
    pub answer: fn() -> f64,
    /// The answer is in units of 10^power (0: plain).
    pub power: i32,
    /// The worked solution, given the answer.
    pub solution: fn(f64) -> String,
}

fn zero_gb(params: f64, stage: ZeroStage, gpus: u32) -> f64 {
    TrainingState::zero(params, BytesPerParam::MIXED_PRECISION_ADAM, stage, gpus)
        .total()
        .value()
        / 1e9
}

/// The run of the 3D exercise: Narayanan et al.'s GPT-3 layout.
const RUN_3D: Layout = Layout {
    tensor: 8,
    pipeline: 8,
    data: 16,
    zero: ZeroStage::One,
};

/// Every numeric exercise, the module's three first.
pub const EXERCISES: [Exercise; 9] = [
    Exercise {
        id: "zero3-70b-64",
        prompt: "A 70-billion-parameter model trains with ZeRO stage 3 on 64 GPUs. How many GB of training state does each GPU hold, at 16 bytes a parameter?",
        unit: "GB",
        tolerance: 0.1,
        hint: "Stage 3 shards all 16 bytes of every parameter across the GPUs.",
        answer: || zero_gb(70e9, ZeroStage::Three, 64),
        power: 0,
        solution: |a| format!("16 × 70 × 10⁹ / 64 = {a:.1} × 10⁹ bytes: {a:.1} GB a GPU, room to spare on an 80 GB device."),
    },
    Exercise {
        id: "bubble-4-8",
        prompt: "What is the pipeline bubble, as a fraction, for 4 stages and 8 micro-batches? Work it out before you look back: the bubble figure opens at these settings, and its readout is the answer.",
        unit: "",
        tolerance: 0.001,
        hint: "Use (p − 1)/(m + p − 1).",
        answer: || bubble(Schedule::GPipe, 4, 8, 1),
        power: 0,
        solution: |a| format!("(4 − 1)/(8 + 4 − 1) = 3/11 ≈ {a:.4}: a GPU idles for just over a quarter of each step."),
    },
    Exercise {
        id: "zero1-7b-8",
        prompt: "With ZeRO stage 1 each GPU keeps full bf16 weights and gradients but only its share of the 12 bytes a parameter of master weights and Adam state. For a 7-billion-parameter model on 8 GPUs, how many GB is that?",
        unit: "GB",
        tolerance: 0.1,
        hint: "Weights and gradients are 4 bytes a parameter, whole; the 12 bytes are divided by 8.",
        answer: || zero_gb(7e9, ZeroStage::One, 8),
        power: 0,
        solution: |a| format!("(4 + 12/8) × 7 × 10⁹ = 5.5 × 7 × 10⁹ = {a:.1} GB."),
    },
    Exercise {
        id: "zero2-13b-16",
        prompt: "A 13-billion-parameter model trains with ZeRO stage 2 on 16 GPUs. How many GB of training state does each GPU hold?",
        unit: "GB",
        tolerance: 0.1,
        hint: "Stage 2 keeps the 2-byte weights whole and shards the gradients and the optimizer state: (2 + 14/N) bytes a parameter.",
        answer: || zero_gb(13e9, ZeroStage::Two, 16),
        power: 0,
        solution: |a| format!("(2 + (2 + 12)/16) × 13 × 10⁹ = 2.875 × 13 × 10⁹ = {a:.1} GB."),
    },
    Exercise {
        id: "ring-64",
        prompt: "Llama 2 7B's bf16 gradient is 13.5 GB. In a ring all-reduce over 64 GPUs, how many GB does each GPU send?",
        unit: "GB",
        tolerance: 0.1,
        hint: "A ring all-reduce sends 2(N − 1)/N of the message from every GPU.",
        answer: || {
            let gradient = TrainingState::full(DEFAULT_MODEL.params(), BytesPerParam::MIXED_PRECISION_ADAM).gradients;
            ring_allreduce_sent(gradient, 64).value() / 1e9
        },
        power: 0,
        solution: |a| format!("2 × 63/64 × 13.48 GB (the 13.5 GB of the question, to four figures) = {a:.1} GB: almost exactly twice the gradient, whatever N is."),
    },
    Exercise {
        id: "tp-8-layer",
        prompt: "Llama 2 7B (width 4,096) runs with 8-way tensor parallelism. For one 4,096-token sequence, how many MB does each GPU send per layer in its four all-reduces?",
        unit: "MB",
        tolerance: 1.0,
        hint: "Each all-reduce sums an s × h tensor of 2-byte values, and a ring sends 2(t − 1)/t of it.",
        answer: || sent_per_gpu_per_layer(&DEFAULT_MODEL.arch, 8, 4096.0).value() / 1e6,
        power: 0,
        solution: |a| format!("4 × 2 × 7/8 × (4,096 × 4,096 × 2 B = 33.6 MB) = {a:.0} MB."),
    },
    Exercise {
        id: "3d-gpus",
        prompt: "A run uses 8-way tensor parallelism, 8 pipeline stages and 16 data-parallel replicas. How many GPUs is that?",
        unit: "",
        tolerance: 0.0,
        hint: "The three degrees multiply.",
        answer: || f64::from(RUN_3D.gpus()),
        power: 0,
        solution: |a| format!("8 × 8 × 16 = {} GPUs, or {} nodes of 8.", group_thousands(a), RUN_3D.nodes(8)),
    },
    Exercise {
        id: "compute-70b",
        prompt: "Using C ≈ 6ΨD, how much compute does a 70-billion-parameter model need for 2 trillion tokens, in units of 10²³ FLOP?",
        unit: "",
        tolerance: 0.05,
        hint: "Multiply 6 by the parameters and by the tokens, then give how many 10²³ that is (1.5 for 1.5 × 10²³).",
        answer: || training_flop(70e9, 2e12).value() / 1e23,
        power: 23,
        solution: |a| format!("6 × 7 × 10¹⁰ × 2 × 10¹² = {a:.1} × 10²³ FLOP."),
    },
    Exercise {
        id: "checkpoint-64-8",
        prompt: "A 64-layer network keeps a checkpoint every 8 layers. How many layers' worth of activations does it hold at the peak of the backward pass?",
        unit: "",
        tolerance: 0.0,
        hint: "Count the checkpoints, plus the network's output, plus the layers of one segment recomputed.",
        answer: || predicted_peak_tensors(64, 8) as f64,
        power: 0,
        solution: |a| format!("64/8 = 8 checkpoints (the input among them) and the output, plus 7 recomputed outputs inside the last segment: {a:.0}, against 65 when every activation is kept."),
    },
];

/// The numeric exercises, in the place `src/content/exercises.md` gives
/// them between its written questions.
#[component]
pub fn Exercises() -> impl IntoView {
    EXERCISES
        .iter()
        .map(|exercise| {
            let answer = (exercise.answer)();
            view! {
                <NumberQuestion
                    id=exercise.id
                    prompt=exercise.prompt
                    answer=answer
                    unit=exercise.unit
                    tolerance=exercise.tolerance
                    power=exercise.power
                    hint=exercise.hint
                    solution=(exercise.solution)(answer)
                />
            }
        })
        .collect_view()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: &str) -> f64 {
        (EXERCISES.iter().find(|e| e.id == id).unwrap().answer)()
    }

    /// The course module's checked answers.
    #[test]
    fn the_modules_answers() {
        assert!((answer("zero3-70b-64") - 17.5).abs() < 1e-9);
        assert!((answer("bubble-4-8") - 3.0 / 11.0).abs() < 1e-12);
        assert!((answer("zero1-7b-8") - 38.5).abs() < 1e-9);
    }

    /// Each further answer, derived here from its prompt's numbers.
    #[test]
    fn the_further_answers() {
        assert!((answer("zero2-13b-16") - (2.0 + 14.0 / 16.0) * 13.0).abs() < 1e-9);
        // Llama 2 7B's gradient, 2 × 6.74e9 bytes, sent 2 × 63/64 of it.
        assert!((answer("ring-64") - 2.0 * 6.74 * 2.0 * 63.0 / 64.0).abs() < 1e-9);
        // 4 all-reduces of 4,096 × 4,096 × 2 bytes, each sending 2 × 7/8 of it.
        assert!(
            (answer("tp-8-layer") - 4.0 * 2.0 * 7.0 / 8.0 * 4096.0 * 4096.0 * 2.0 / 1e6).abs()
                < 1e-6
        );
        assert_eq!(answer("3d-gpus"), 1024.0);
        assert!((answer("compute-70b") - 6.0 * 70e9 * 2e12 / 1e23).abs() < 1e-9);
        // 8 checkpoints (the input among them), the output and 7 recomputed outputs.
        assert_eq!(answer("checkpoint-64-8"), 16.0);
    }
}
