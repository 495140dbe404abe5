//! The planner's "Try": three predictions about a 70B model's training
//! state, each revealed with the answer the estimator computes.

use super::*;

/// The answers to the module's "Try" for this figure: does 70B fit at 8 GPUs
/// with plain data parallelism, with ZeRO-3, and how many GPUs does ZeRO-3
/// need (training state only).
#[derive(Clone, Debug, PartialEq)]
pub struct TryAnswers {
    pub plain: Bytes,
    pub plain_fits: bool,
    pub zero3: Bytes,
    pub zero3_fits: bool,
    /// The fewest GPUs at which ZeRO-3's training state fits, and the first power of two from there.
    pub fewest: Option<u32>,
    pub power_of_two: Option<u32>,
    pub at_power_of_two: Option<Bytes>,
}

/// The answers for a GPU of `capacity`.
pub fn try_answers(capacity: Bytes) -> TryAnswers {
    let adam = BytesPerParam::MIXED_PRECISION_ADAM;
    let state = |stage, gpus| TrainingState::zero(DEFAULT_PARAMS, adam, stage, gpus).total();
    let fewest = fewest_gpus(DEFAULT_PARAMS, adam, ZeroStage::Three, capacity, MAX_GPUS);
    let power_of_two = fewest.map(u32::next_power_of_two);
    TryAnswers {
        plain: state(ZeroStage::None, TRY_GPUS),
        plain_fits: fits(state(ZeroStage::None, TRY_GPUS), capacity),
        zero3: state(ZeroStage::Three, TRY_GPUS),
        zero3_fits: fits(state(ZeroStage::Three, TRY_GPUS), capacity),
        fewest,
        power_of_two,
        at_power_of_two: power_of_two.map(|n| state(ZeroStage::Three, n)),
    }
}

/// The questions, predict first, then reveal: on 80 GB GPUs, as the
/// module asks them, whichever GPU the planner shows; closed while `folded`.
pub(super) fn view(folded: Memo<bool>) -> AnyView {
    let answers = try_answers(Bytes(80e9));
    let yes_no = |fits: bool| if fits { "yes" } else { "no" };
    let count = match answers.power_of_two {
        Some(8) => "8",
        Some(16) => "16",
        Some(64) => "64",
        _ => "never",
    };
    let why_count = match (answers.power_of_two, answers.at_power_of_two, answers.fewest) {
        (Some(n), Some(each), Some(fewest)) => format!(
            "{n} GPUs: {each} each. Counting the training state alone against the whole 80 GB, the bare minimum is {fewest} GPUs; \
             but a GPU keeps a reserve for the CUDA context and buffers (the planner's verdict counts it) and activations come on top, \
             so real runs add more GPUs or tensor and pipeline parallelism."
        ),
        _ => "No number of GPUs is enough for this GPU's memory.".to_string(),
    };
    view! {
        <details class="figure__try" aria-label="Try the planner" prop:open=move || !folded.get()>
            <summary class="figure__try-title">"Try: predict first"</summary>
            <p>"A 70B model, training state only, on 80 GB GPUs, whatever the planner shows. Commit to an answer, then reveal it."</p>
            <Prediction
                id="planner-plain"
                prompt="On 8 GPUs with plain data parallelism, does each GPU's training state fit?"
                options=vec![("yes", "It fits"), ("no", "It does not fit")]
                correct=yes_no(answers.plain_fits)
                explanation=format!(
                    "Every GPU keeps all 16 bytes of each parameter: {}, however many GPUs there are.", answers.plain
                )
            />
            <Prediction
                id="planner-zero3"
                prompt="On the same 8 GPUs with ZeRO stage 3, does it fit?"
                options=vec![("yes", "It fits"), ("no", "It does not fit")]
                correct=yes_no(answers.zero3_fits)
                explanation=format!("Stage 3 divides the state by the GPU count: {} a GPU at 8 GPUs.", answers.zero3)
            />
            <Prediction
                id="planner-count"
                prompt="In powers of two, how many GPUs does ZeRO stage 3 need before each GPU's training state fits?"
                options=vec![("8", "8"), ("16", "16"), ("64", "64"), ("never", "No number is enough")]
                correct=count
                explanation=why_count
            />
        </details>
    }
    .into_any()
}
