//! The planner's sentences: the verdicts with the smallest change that
//! fits, the step and the run in words with what they take for granted.

use super::*;
use crate::model::comm::Link;
use crate::model::planner::{Group, Routing};
use crate::model::tensor;
use crate::model::units::format_ratio;

pub(super) fn describe(fix: Fix, plan: &Plan) -> String {
    match fix {
        Fix::Recompute(Recompute::Selective) => {
            "turn on selective recomputation (the attention core again, a few percent more arithmetic)".to_string()
        }
        Fix::Recompute(_) => "turn on full recomputation (every layer's forward again, about a third more arithmetic)".to_string(),
        Fix::Stage(stage) => format!("move to {}", stage.label()),
        Fix::Tensor(t) => format!("split each layer over {t} GPUs (tensor parallelism)"),
        Fix::Gpus(gpus) => format!(
            "use {} GPUs at {}",
            group_thousands(f64::from(gpus)),
            if plan.stage == ZeroStage::None {
                "this setting"
            } else {
                plan.stage.label()
            }
        ),
    }
}

/// A parameter count written as readers know it, `46.7B`, with its exact value kept.
pub(super) fn in_billions(readout: ReadoutData) -> ReadoutData {
    ReadoutData {
        text: Count(readout.value).to_string(),
        ..readout
    }
}

/// What the training may use of a GPU, in words: the capacity less the
/// reserve, named (`the 77.0 GB of 80 GB left after 3.00 GB kept in reserve`).
pub fn room(plan: &Plan) -> String {
    let capacity = plan.capacity.capacity_in_gb();
    if plan.reserve.value() > 0.0 {
        format!(
            "the {} of {capacity} left after {} kept in reserve",
            plan.usable_memory(),
            plan.reserve
        )
    } else {
        capacity
    }
}

/// Which stage's GPU is the fullest at its peak, when it is not the first,
/// set off by commas: `, on stage 2 of 16,`.
pub fn peak_stage(plan: &Plan, estimate: &PlanEstimate) -> String {
    if estimate.peak.stage == 0 {
        String::new()
    } else {
        format!(
            ", on stage {} of {},",
            estimate.peak.stage + 1,
            plan.pipeline
        )
    }
}

/// Why t GPUs cannot split the attention, with Megatron-LM's own message for
/// each rule the model breaks (`TransformerConfig.__post_init__`): each GPU
/// takes whole heads, and whole key-value heads or an equal share of one.
fn attention_does_not_split(plan: &Plan, heads: u32, kv_heads: u32) -> String {
    let t = plan.tensor;
    let mut broken = Vec::new();
    if !plan.arch.splits_heads(t) {
        broken.push(format!(
            "t must divide the {heads} attention heads (\"num_attention_heads ({heads}) must be a multiple of \
             tensor_model_parallel_size ({t})\")"
        ));
    }
    if !plan.arch.splits_kv_heads(t) {
        broken.push(format!(
            "the {kv_heads} key-value heads must be a multiple or a divisor of t (\"num_query_groups ({kv_heads}) \
             must be a multiple or divisor of tensor_model_parallel_size ({t})\")"
        ));
    }
    // The degrees the planner offers that do split them.
    let splitting: Vec<String> = tensor::DEGREES
        .iter()
        .filter_map(|degree| degree.parse::<u32>().ok())
        .filter(|&degree| plan.arch.splits_attention(degree))
        .map(|degree| degree.to_string())
        .collect();
    let choose = match splitting.as_slice() {
        [only] => format!("Of the tensor degrees here, only {only} splits them: choose it."),
        [rest @ .., last] => format!(
            "Choose a tensor degree that splits them: {} or {last}.",
            rest.join(", ")
        ),
        [] => "None of the tensor degrees here splits them.".to_string(),
    };
    format!(
        "Tensor parallelism over {t} GPUs cannot split this model's attention: Megatron-LM gives each GPU whole \
         heads, so {}. {choose}",
        broken.join(", and ")
    )
}

/// Both verdicts in words, with the smallest single changes that fit.
pub(super) fn verdict(plan: &Plan, estimate: &PlanEstimate) -> String {
    // Amounts in GB, as the readouts write them, against the memory in GB too: "85.9 GB (80 GiB)".
    let amount = |bytes: Bytes| bytes.to_string();
    // What decides: what the fullest GPU needs at its peak.
    let (state, needed) = (
        amount(estimate.state.total()),
        amount(estimate.peak.needed()),
    );
    match plan.problem() {
        Some(LayoutProblem::ShortOfGpus(short)) => {
            return format!(
                "This layout needs {} GPUs (tensor {} × pipeline {} × context {}), {} more than the {} given: add GPUs, \
                 or lower a degree.",
                group_thousands(f64::from(plan.gpus + short)),
                plan.tensor,
                plan.pipeline,
                plan.context,
                group_thousands(f64::from(short)),
                group_thousands(f64::from(plan.gpus)),
            )
        }
        Some(LayoutProblem::ExpertsDoNotDivide { grid, stage_gpus }) => {
            return format!(
                "The experts' grid, expert tensor {} × expert parallel {} = {grid} GPUs, must fit a whole number of times \
                 into the {stage_gpus} GPUs of a pipeline stage (tensor × context × data): choose ep and etp whose product \
                 divides {stage_gpus}.",
                plan.expert_tensor(),
                plan.experts.max(1),
            )
        }
        Some(LayoutProblem::AttentionDoesNotSplit { heads, kv_heads }) => {
            return attention_does_not_split(plan, heads, kv_heads);
        }
        Some(LayoutProblem::DualPipeOddStages(p)) => {
            return format!(
                "DualPipe pairs each pipeline GPU with its mirror from the other end, so it needs an even number of \
                 stages, not {p}: choose {}, or another schedule.",
                if p > 1 { format!("{} or {}", p - 1, p + 1) } else { "2".to_string() }
            )
        }
        None => {}
    }
    let room = room(plan);
    if estimate.fits {
        return format!(
            "Fits: up to {state} of training state a GPU and {} of activations on the first stage; at its peak the \
             fullest GPU{} needs {needed}, its buffers, the CUDA context and NCCL's included, within {room}, with {} \
             to spare.",
            amount(estimate.activations),
            peak_stage(plan, estimate),
            amount(plan.spare_memory(estimate.peak.needed()))
        );
    }
    let first = if estimate.state_fits {
        format!(
            "The training state fits, {state} within {room}; with the activations at sequence {} and the buffers of \
             its peak the fullest GPU{} needs {needed}",
            group_thousands(plan.activations.seq),
            peak_stage(plan, estimate)
        )
    } else {
        format!(
            "The training state alone, {state}, does not fit within {room}; with activations and buffers the fullest \
             GPU needs {needed}"
        )
    };
    let found = fixes(plan);
    if found.is_empty() {
        format!(
            "{first}, and no single change is enough (recomputation, a later ZeRO stage, tensor parallelism up to 8, \
             or more GPUs): combine them, or add pipeline stages."
        )
    } else {
        let options: Vec<String> = found.iter().map(|&f| describe(f, plan)).collect();
        format!(
            "{first}. The smallest change that fits: {}.",
            options.join("; or ")
        )
    }
}

/// Megatron-LM's report counts 4·ffn/h a layer for the MLP, right for a
/// GELU MLP; a gated one keeps a third value (6·ffn/h here).
pub(super) fn caveat(params: &PlannerParams) -> Option<String> {
    (params.scenario.arch().mlp == Mlp::SwiGlu).then(|| {
        "This model's MLP is gated (SwiGLU): its activations count three hidden values a token, 6·ffn/h bytes, where \
         Megatron-LM's theoretical memory report counts two (4·ffn/h) for any MLP, so ours are the larger."
            .to_string()
    })
}

/// The step and the run in words, with what the numbers take for granted:
/// a micro-batch no larger than a replica's share of the batch, and traffic
/// that the network can carry while the step computes.
pub(super) fn timing(params: &PlannerParams, plan: &Plan, estimate: &PlanEstimate) -> String {
    let micro_batch = plan.micro_batch();
    let d = f64::from(estimate.data);
    let mut text = format!(
        "A step of {} runs {} of {} through {} in {}, {}{}. {} tokens take {}: {} tokens a second on each GPU, {} \
         of the {}peak over the whole step.",
        counted(plan.sequences_run(), "sequence", "sequences"),
        counted(f64::from(estimate.micro_batches), "micro-batch", "micro-batches"),
        counted(micro_batch, "sequence", "sequences"),
        if plan.pipeline > 1 { format!("each pipeline ({})", plan.schedule.label()) } else { "each replica".to_string() },
        estimate.step_time,
        rate_note(params, estimate),
        // The bubble's share of the whole step, as the bar draws it.
        if plan.pipeline > 1 {
            format!("; the bubble idles {} of it", Fraction(estimate.breakdown.bubble / estimate.step_time.value()))
        } else {
            String::new()
        },
        Count(plan.tokens),
        estimate.train_time,
        group_thousands(estimate.tokens_per_gpu_per_second.round()),
        Fraction(estimate.mfu),
        // FP8's multiplies run past the BF16 peak MFU is measured against.
        if plan.numerics.fp8() { "BF16 " } else { "" },
    );
    let routing = plan.routing;
    if plan.arch.experts > 1 && routing != Routing::EVEN {
        let dropped = routing.dropped();
        text.push_str(&format!(
            " The experts' arithmetic and all-to-alls take {} an even split's, {}{}.",
            format_ratio(routing.pace(), 2),
            match routing.capacity_factor {
                Some(c) => format!(
                    "waiting for the busiest expert, {} the mean, capped at the capacity of {} the mean",
                    format_ratio(routing.imbalance, 2),
                    format_ratio(c, 2)
                ),
                None => format!(
                    "waiting for the busiest expert, {} the mean",
                    format_ratio(routing.imbalance, 2)
                ),
            },
            if dropped > 0.0 {
                format!("; the busiest drops {} of its tokens", Fraction(dropped))
            } else {
                String::new()
            }
        ));
    }
    let run = plan.sequences_run();
    if run != plan.batch {
        text.push_str(&format!(
            " The batch asked for, {} sequences, does not divide into whole micro-batches of {} on each of the {} replicas: each runs {}, so a step runs {} and the numbers here are for those{}.",
            group_thousands(plan.batch),
            group_thousands(micro_batch),
            group_thousands(d),
            counted(f64::from(estimate.micro_batches), "micro-batch", "micro-batches"),
            group_thousands(run),
            if run < plan.batch {
                format!(" ({} for a later step)", counted(plan.batch - run, "sequence waits", "sequences wait"))
            } else {
                String::new()
            }
        ));
    }
    if let Some(cut) = micro_batch_cut(params, plan) {
        text.push_str(&format!(
            " A micro-batch of {} is {cut}.",
            group_thousands(f64::from(params.micro_batch))
        ));
    }
    // Name, with its bytes, link and bandwidth, the data-parallel traffic
    // that outlasts the passes hiding it (`StepBreakdown::data`), and each
    // group the layers wait for over the network a tenth of the step or more.
    let step = estimate.step_time.value();
    for sent in estimate.groups {
        let group = sent.group;
        let waited = estimate.waited(group).value();
        let named = match group {
            Group::Data => waited > 0.0,
            _ => sent.link == Link::Network && waited >= 0.1 * step,
        };
        // ZeRO-2 and 3 send more than a reduction: say what.
        let what = match (group, plan.stage) {
            (Group::Data, ZeroStage::Two) => "ZeRO-2's reduce-scatter after every micro-batch",
            (Group::Data, ZeroStage::Three) => {
                "ZeRO-3's gathers of the weights for every micro-batch's forward and backward passes, and its reduce-scatters"
            }
            _ => group.traffic(),
        };
        if named {
            text.push_str(&format!(
                " {}: {} a GPU a step over {} at {}; the step waits {} for {}.",
                capitalised(what),
                sent.sent,
                sent.link.phrase(),
                plan.links.bandwidth(sent.link),
                Seconds(waited),
                if group == Group::Data {
                    "what its passes do not hide"
                } else if waited < sent.time.value() {
                    // DualPipe's exchanges run beside the arithmetic.
                    "what the arithmetic beside them does not hide"
                } else {
                    "them"
                },
            ));
        }
    }
    text
}

/// Why the micro-batch run is smaller than the one set, when it is: "more
/// than the 1 sequence each of the 8 replicas runs a step, so it is 1" (a
/// replica runs at least one sequence, whatever the batch).
pub(super) fn micro_batch_cut(params: &PlannerParams, plan: &Plan) -> Option<String> {
    let run = plan.micro_batch();
    let d = f64::from(plan.data_parallel());
    (run < f64::from(params.micro_batch)).then(|| {
        if plan.batch < d {
            // Fewer sequences than replicas: each still runs one.
            format!(
                "more than the batch of {} gives each of the {} replicas, under one sequence, so each runs one sequence a step ({} in all) in micro-batches of 1",
                group_thousands(plan.batch),
                group_thousands(d),
                group_thousands(d)
            )
        } else {
            format!(
                "more than the {} each of the {} replicas runs a step, so it is {}",
                counted(run, "sequence", "sequences"),
                group_thousands(d),
                group_thousands(run)
            )
        }
    })
}

/// The rate a time assumes: the scenario's, or with a published MFU given
/// (`step-mfu`) the share of the peak while computing that gives it.
pub(super) fn rate_note(params: &PlannerParams, estimate: &PlanEstimate) -> String {
    match params.scenario.step_mfu {
        Some(mfu) => format!(
            "at {} of {} while computing, for {} MFU over the step{}",
            Fraction(estimate.busy),
            params.scenario.rate().peak,
            Fraction(mfu),
            shared::fp8_note(&params.scenario)
        ),
        None => shared::rate_note(&params.scenario),
    }
}

/// `text` with its first letter a capital (every sentence here starts in ASCII).
pub(super) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}
