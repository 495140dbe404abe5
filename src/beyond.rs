//! Beyond the three splits: expert parallelism for mixtures of experts and
//! context parallelism for long sequences, each a small live example
//! computed by the planner (its `ep` and `cp`), with a link that opens the
//! example in the planner. The sliders are local to the page (not in the
//! URL contract); the planner's keys carry the same settings.

use leptos::prelude::*;

use crate::figures::figure::Params;
use crate::figures::planner::{data, PlannerParams};
use crate::model::comm::routed_away;
use crate::model::planner::Plan;
use crate::model::query::Query;
use crate::model::units::{group_thousands, Fraction};
use crate::widgets::{scoped, InWords, Readout, ReadoutData, Slider};

/// The expert-parallel example: Mixtral 8x7B on 64 H100s, one 4,096-token sequence a GPU.
pub fn expert_query(ep: u32, top_k: u32) -> String {
    format!("model=mixtral-8x7b&gpu=h100-sxm&gpus=64&ep={ep}&top-k={top_k}&batch=64&seq=4096")
}

/// The context-parallel example: Llama 3 8B at 131,072 tokens on 64 GPUs, selective recomputation.
pub fn context_query(cp: u32) -> String {
    format!("model=llama3-8b&gpus=64&cp={cp}&seq=131072&batch=16&recompute=selective")
}

/// The planner's readouts `ids` for `query`, and its plan.
fn planner(query: &str, ids: &[&str]) -> (Vec<ReadoutData>, Plan) {
    let params = PlannerParams::from_query(&Query::parse(query), &mut Vec::new());
    let all = PlannerParams::readouts(&data(&params));
    let readouts = ids
        .iter()
        .filter_map(|id| all.iter().find(|r| r.id == *id).cloned())
        .collect();
    (readouts, params.plan())
}

/// Bytes each GPU sends a step in the experts' all-to-alls, and that in words.
pub fn expert(ep: u32, top_k: u32) -> (Vec<ReadoutData>, String) {
    let (readouts, _) = planner(&expert_query(ep, top_k), &["all-to-all-per-step"]);
    let words = readouts.first().map_or_else(String::new, |sent| {
        format!(
            "With {ep} expert-parallel GPUs and top-{top_k} routing, each GPU sends {} a step: each token's hidden \
             state to its {top_k} experts and back, forward and backward, in all 32 layers, {} of the routes leaving \
             the GPU ({}).",
            sent.text,
            Fraction(routed_away(ep)),
            sent.note.clone().unwrap_or_default()
        )
    });
    (readouts, words)
}

/// Activations and the K/V ring a GPU sends a step at 131,072 tokens split
/// `cp` ways, and that in words.
pub fn context(cp: u32) -> (Vec<ReadoutData>, String) {
    let (readouts, plan) = planner(&context_query(cp), &["activations", "cp-traffic-per-step"]);
    let words = match readouts.as_slice() {
        [activations, ring] => format!(
            "{}, each GPU keeps {} of activations for its {} tokens and sends {} of keys and values round the ring a step.",
            if cp <= 1 { "Unsplit".to_string() } else { format!("Split {cp} ways") },
            activations.text,
            group_thousands(plan.tokens_per_context_rank()),
            ring.text
        ),
        _ => String::new(),
    };
    (readouts, words)
}

/// A whole-number slider's value as its label shows it, and its setter.
fn whole(signal: RwSignal<f64>) -> (Signal<String>, Callback<f64>) {
    (
        Signal::derive(move || group_thousands(signal.get())),
        Callback::new(move |v: f64| signal.set(v)),
    )
}

/// The readout at `index` of an example's list.
fn nth(list: Memo<(Vec<ReadoutData>, String)>, index: usize) -> Signal<ReadoutData> {
    Signal::derive(move || {
        list.with(|l| {
            l.0.get(index)
                .cloned()
                .unwrap_or_else(|| ReadoutData::count("", "", 0.0))
        })
    })
}

/// The expert-parallel example's controls, readout and words, in the place
/// `src/content/beyond.md` gives them.
#[component]
pub fn ExpertExample() -> impl IntoView {
    let ep = RwSignal::new(8.0);
    let top_k = RwSignal::new(2.0);
    let experts = Memo::new(move |_| expert(ep.get() as u32, top_k.get() as u32));
    let ((ep_text, set_ep), (top_k_text, set_top_k)) = (whole(ep), whole(top_k));
    scoped("beyond", move || {
        view! {
            <div class="figure__controls">
                <Slider label="Expert-parallel GPUs" param="ep" min=1.0 max=8.0 step=1.0 value=ep text=ep_text on_input=set_ep/>
                <Slider label="Experts per token (top-k)" param="top-k" min=1.0 max=8.0 step=1.0 value=top_k text=top_k_text on_input=set_top_k/>
            </div>
            <div class="figure__readouts"><Readout data=nth(experts, 0)/></div>
            <InWords text=Signal::derive(move || experts.with(|e| e.1.clone()))/>
            <a href=move || format!("?step=planner&{}#planner", expert_query(ep.get() as u32, top_k.get() as u32))>"Open this in the planner"</a>
        }
    })
}

/// The context-parallel example's control, readouts and words, in the
/// place `src/content/beyond.md` gives them.
#[component]
pub fn ContextExample() -> impl IntoView {
    let cp = RwSignal::new(1.0);
    let contexts = Memo::new(move |_| context(cp.get() as u32));
    let (cp_text, set_cp) = whole(cp);
    scoped("beyond", move || {
        view! {
            <div class="figure__controls">
                <Slider label="Context-parallel GPUs c" param="cp" min=1.0 max=16.0 step=1.0 value=cp text=cp_text on_input=set_cp/>
            </div>
            <div class="figure__readouts">
                <Readout data=nth(contexts, 0)/>
                <Readout data=nth(contexts, 1)/>
            </div>
            <InWords text=Signal::derive(move || contexts.with(|c| c.1.clone()))/>
            <a href=move || format!("?step=planner&{}#planner", context_query(cp.get() as u32))>"Open this in the planner"</a>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The planner's numbers: Mixtral's all-to-all with 8-way expert
    /// parallelism (2 × 4,096 × 2 × 4,096 values of 2 B × 7/8 a layer and
    /// direction, forward and backward, 32 layers); none with one GPU; the
    /// K/V ring's and activations' split over cp.
    #[test]
    fn readouts() {
        let (sent, words) = expert(8, 2);
        assert_eq!(
            sent[0].value,
            2.0 * 4096.0 * 2.0 * 4096.0 * 2.0 * 7.0 / 8.0 * 2.0 * 32.0
        );
        assert!(words.contains("87.5%"), "{words}");
        assert_eq!(expert(1, 2).0[0].value, 0.0);
        let (one, _) = context(1);
        let (eight, words) = context(8);
        assert!((eight[0].value / one[0].value - 1.0 / 8.0).abs() < 1e-9);
        assert_eq!(one[1].value, 0.0);
        assert!(eight[1].value > 0.0 && words.starts_with("Split 8 ways"));
    }
}
