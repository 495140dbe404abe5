//! What the planner draws, computed from its parameters through the
//! model's plan: the memory bar, the verdicts, the step and its parts, the
//! readouts and the search's table.

use super::formulas::equations;
use super::words::{capitalised, caveat, in_billions, rate_note, timing, verdict};
use super::*;
use crate::model::planner::Group;
use crate::model::precision::Moments;

/// Everything the `planner` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerData {
    /// The most loaded GPU's memory, part by part, against its capacity.
    pub memory: MemoryBarData,
    /// Where a step's time goes, communication included, and its total in words.
    pub step: Vec<StepPart>,
    pub step_total: String,
    /// All parameters, and those one token uses (they differ for a mixture of experts).
    pub params: ReadoutData,
    pub active_params: ReadoutData,
    pub all_to_all: ReadoutData,
    pub cp_traffic: ReadoutData,
    /// The layout search's results, while it is open.
    pub search: Option<SearchData>,
    /// The plan as each launch tool takes it, while "Run it with" is open.
    pub launch: Option<LaunchData>,
    pub layout: String,
    /// The architecture behind the activations, named, so that a size typed
    /// in says which preset's shape (and sequence length) it took.
    pub shape: String,
    pub state_per_gpu: ReadoutData,
    /// The fullest GPU's bytes allocated at its peak, and what `nvidia-smi`
    /// shows for it: the allocator's reservation, the CUDA context and NCCL's buffers.
    pub peak_memory: ReadoutData,
    pub reserved_memory: ReadoutData,
    pub capacity: ReadoutData,
    /// Of the capacity, what the training may not use.
    pub reserve: ReadoutData,
    pub state_fits: ReadoutData,
    pub fits: ReadoutData,
    pub traffic: ReadoutData,
    pub micro_batches: ReadoutData,
    pub bubble: ReadoutData,
    pub step_time: ReadoutData,
    pub nvlink_traffic: ReadoutData,
    pub network_traffic: ReadoutData,
    pub tokens_per_gpu_per_second: ReadoutData,
    pub train_time: ReadoutData,
    pub mfu: ReadoutData,
    /// Both verdicts and the smallest fix, in words.
    pub verdict: String,
    /// The answer in one line, which stays in view while the reader sets
    /// the controls (issue 37): whether it fits, with the fullest GPU's
    /// memory against what it may use (hidden while the "Try" asking just
    /// that is open) ...
    pub answer_fit: String,
    /// ... and the step and the run.
    pub answer_time: String,
    /// The step and the run, in words.
    pub timing: String,
    /// Where the activations' count differs from Megatron-LM's report, if it does.
    pub caveat: Option<String>,
    /// The state, the activations and the step, with the current values.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// The weights' part of the bar, named by what FP8 keeps when it runs,
/// with what its FP8 copies take on this GPU.
fn weights_label(plan: &Plan) -> String {
    match plan.numerics.fp8_weight_bytes() {
        Some(bytes) => format!(
            "Weights ({}; FP8 takes {bytes} B a matrix parameter on this GPU)",
            plan.numerics.weights_label()
        ),
        None => "Weights".to_string(),
    }
}

/// Adam's part of the bar, with the moments' format when it is not FP32.
fn optimizer_label(plan: &Plan) -> &'static str {
    match plan.numerics.moments {
        Moments::Fp32 => "Optimizer state (Adam)",
        Moments::Bf16 => "Optimizer state (Adam, bf16 moments)",
    }
}

/// Computes the figure from its parameters.
pub fn data(params: &PlannerParams) -> PlannerData {
    let plan = params.plan();
    let estimate = plan.estimate();
    let state = estimate.state;
    let memory = MemoryBarData::new(
        &[
            (
                "weights",
                "weights",
                &weights_label(&plan),
                state.weights + state.fp8_copies,
            ),
            ("gradients", "gradients", "Gradients", state.all_gradients()),
            (
                "master",
                "master-weights",
                "Master weights",
                state.master_weights,
            ),
            (
                "optimizer",
                "optimizer-state",
                optimizer_label(&plan),
                state.moments,
            ),
            (
                "activations",
                "activations",
                "Activations, first stage",
                estimate.activations,
            ),
            (
                "buffers",
                "peak-buffers",
                "More at the peak: the loss's, a recomputed layer's, ZeRO's, the optimizer's and the pipeline's buffers",
                // What the fullest GPU holds at its busiest moment beyond the
                // parts before (the most loaded stage's state, the first's activations).
                Bytes(
                    (estimate.peak.allocated.value()
                        - state.total().value()
                        - estimate.activations.value())
                    .max(0.0),
                ),
            ),
            (
                "overheads",
                "peak-overheads",
                "CUDA context and NCCL's buffers",
                estimate.peak.outside,
            ),
        ],
        plan.capacity,
    )
    .with_reserve(plan.reserve);
    let capacity = plan.capacity.capacity_in_gb();
    let verdict = verdict(&plan, &estimate);
    let timing = timing(params, &plan, &estimate);
    let layout = match plan.problem() {
        Some(LayoutProblem::ShortOfGpus(short)) => format!(
            "{} tensor × {} pipeline × {} context needs {}: {} short",
            plan.tensor,
            plan.pipeline,
            plan.context,
            counted(f64::from(plan.model_group()), "GPU", "GPUs"),
            group_thousands(f64::from(short))
        ),
        _ => format!(
            "{} = {} tensor × {} pipeline{} × {} data-parallel{}{}",
            counted(f64::from(plan.gpus), "GPU", "GPUs"),
            plan.tensor,
            plan.pipeline,
            if plan.context > 1 {
                format!(" × {} context", plan.context)
            } else {
                String::new()
            },
            group_thousands(f64::from(estimate.data)),
            if plan.experts > 1 {
                format!(" (experts over {})", plan.experts)
            } else {
                String::new()
            },
            match plan.idle_gpus() {
                0 => String::new(),
                idle => format!("; {} left idle", counted(f64::from(idle), "GPU", "GPUs")),
            }
        ),
    };
    let resized = params.scenario.params_override.is_some();
    let shape = if params.model_chosen && !resized {
        params.scenario.model.name.to_string()
    } else {
        format!(
            "a {}-parameter model in {}'s shape",
            Count(plan.params),
            params.scenario.model.name
        )
    };
    let summary = format!(
        "{shape} on {layout}. A GPU holds up to {} of training state, the first stage {} of activations, and the \
         fullest GPU{} needs {} at its peak against its {capacity}; each sends {} a step. {verdict} {timing}",
        state.total(),
        estimate.activations,
        peak_stage(&plan, &estimate),
        estimate.peak.needed(),
        estimate.traffic,
    );
    let summary = capitalised(&summary);
    let rate = rate_note(params, &estimate);
    let over_its_link = |group: Group| {
        let traffic = estimate.group(group);
        format!("{} over {}", traffic.time, traffic.link.phrase())
    };
    let arch = plan.arch;
    let dimensions = format!(
        "{} layers, width {}, sequence {}",
        arch.layers,
        group_thousands(f64::from(arch.hidden)),
        group_thousands(f64::from(arch.seq))
    );
    let shape = if params.model_chosen && resized {
        // A size typed over a chosen preset: its layers, width and
        // activations stay the preset's, and the reader is told so.
        format!(
            "{} parameters in {}'s shape (its size is {}): {dimensions}",
            Count(plan.params),
            params.scenario.model.name,
            Count(params.scenario.model.params())
        )
    } else if params.model_chosen && params.scenario.reshaped() {
        format!(
            "{} parameters in {}'s shape, resized by the link: {dimensions}",
            Count(plan.params),
            params.scenario.model.name
        )
    } else if params.model_chosen {
        format!("{}: {dimensions}", params.scenario.model.name)
    } else {
        format!(
            "{} parameters in the shape of the nearest preset, {}: {dimensions}",
            Count(plan.params),
            params.scenario.model.name
        )
    };
    let mut figure = PlannerData {
        equations: Vec::new(),
        memory,
        layout,
        shape,
        state_per_gpu: ReadoutData::bytes(
            "state-per-gpu",
            "Training state, most loaded GPU",
            state.total(),
        ),
        peak_memory: ReadoutData::bytes(
            "peak-memory",
            "Allocated at the peak, fullest GPU",
            estimate.peak.allocated,
        ),
        reserved_memory: ReadoutData::bytes(
            "reserved-memory",
            "Reserved, as nvidia-smi shows it",
            estimate.peak.reserved(),
        )
        .with_note(
            "what a GPU with room to spare would show; the allocator frees its cache when short",
        ),
        capacity: ReadoutData {
            // As the device reports it: "80 GiB", not "85.9 GB".
            text: capacity,
            ..ReadoutData::bytes("capacity", "GPU memory", plan.capacity).better(Better::Neither)
        },
        reserve: ReadoutData::bytes("reserve", "Kept in reserve", plan.reserve)
            .better(Better::Neither),
        state_fits: ReadoutData::yes_no("state-fits", "Training state fits", estimate.state_fits),
        fits: ReadoutData::yes_no("fits", "Fits with activations", estimate.fits),
        traffic: ReadoutData::bytes(
            "traffic-per-step",
            "Sent per GPU, per step",
            estimate.traffic,
        ),
        nvlink_traffic: ReadoutData::bytes(
            "nvlink-traffic-per-step",
            "Over NVLink, per GPU, per step",
            estimate.nvlink_traffic,
        )
        .with_note(format!("at {}", plan.links.nvlink)),
        network_traffic: ReadoutData::bytes(
            "network-traffic-per-step",
            "Over the network, per GPU, per step",
            estimate.network_traffic,
        )
        .with_note(format!("at {}", plan.links.network)),
        micro_batches: ReadoutData::count(
            "micro-batches",
            "Micro-batches a step",
            f64::from(estimate.micro_batches),
        ),
        bubble: ReadoutData::fraction("bubble", "Bubble", estimate.bubble),
        step_time: ReadoutData::seconds("step-time", "Step time", estimate.step_time)
            .with_note(rate.clone()),
        tokens_per_gpu_per_second: ReadoutData::new(
            "tokens-per-gpu-per-second",
            "Tokens per GPU per second",
            estimate.tokens_per_gpu_per_second,
            group_thousands(estimate.tokens_per_gpu_per_second.round()),
            Unit::Count,
        )
        .better(Better::Higher),
        train_time: ReadoutData::seconds(
            "train-time",
            format!("{} tokens take", Count(plan.tokens)),
            estimate.train_time,
        )
        .with_note(rate),
        mfu: {
            let mfu = ReadoutData::fraction("mfu", "MFU over the step", estimate.mfu)
                .better(Better::Higher);
            // FP8's multiplies run past the BF16 peak it is measured against.
            if plan.numerics.fp8() {
                mfu.with_note("of the BF16 peak, as MFU is published")
            } else {
                mfu
            }
        },
        step: step_parts(&estimate.breakdown),
        step_total: format!(
            "Where the step's {} go (the parts add up to the step time){}:",
            estimate.step_time,
            if plan.step_mfu.is_some() {
                "; the rate while computing is the one for which this whole step gives the published MFU"
            } else {
                ""
            }
        ),
        params: in_billions(ReadoutData::count("params", "Parameters", plan.params)),
        active_params: in_billions(ReadoutData::count(
            "active-params",
            "Parameters a token uses",
            plan.params * plan.arch.active_share(),
        )),
        all_to_all: ReadoutData::bytes(
            "all-to-all-per-step",
            "Experts' all-to-all per GPU, per step",
            estimate.all_to_all,
        )
        .with_note(over_its_link(Group::Experts)),
        cp_traffic: ReadoutData::bytes(
            "cp-traffic-per-step",
            "Context ring per GPU, per step",
            estimate.context_traffic,
        )
        .with_note(over_its_link(Group::Context)),
        search: params.search.then(|| search_data(&plan)),
        launch: params.export.map(|shown| LaunchData {
            shown,
            query: params.to_query(),
        }),
        // A layout that cannot run (the verdict says why) is not a memory verdict.
        // Where the verdict is, above or below this line, depends on the
        // screen: it is named, not pointed at.
        answer_fit: if plan.problem().is_some() {
            "Cannot run as laid out: the verdict says why.".to_string()
        } else {
            format!(
                "{}: {} of {} usable; ",
                if estimate.fits {
                    "Fits"
                } else {
                    "Does not fit"
                },
                estimate.peak.needed(),
                Bytes(plan.capacity.value() - plan.reserve.value()),
            )
        },
        // A layout that cannot run has no step to quote.
        answer_time: if plan.problem().is_some() {
            String::new()
        } else {
            format!(
                "Step {}; {} tokens in {}.",
                estimate.step_time,
                Count(plan.tokens),
                estimate.train_time
            )
        },
        verdict,
        timing,
        caveat: caveat(params),
        summary,
    };
    figure.equations = equations(&plan, &estimate, &figure);
    figure
}
