//! Beyond the three splits: expert parallelism for mixture-of-experts
//! models, and sequence (context) parallelism for long sequences, each with
//! a live readout. Their controls are local to the page (not in the URL
//! contract).

use leptos::prelude::*;

use crate::model::activations::{per_layer, ActivationSetup, Recompute};
use crate::model::comm::{expert_all_to_all_sent, routed_away};
use crate::model::presets::{model_preset, DEFAULT_MODEL};
use crate::model::units::{group_thousands, Fraction};
use crate::widgets::{scoped, InWords, Readout, ReadoutData, Slider};

/// Tokens a GPU routes per MoE layer: one 4,096-token sequence.
pub const TOKENS_PER_GPU: f64 = 4096.0;
/// The width of the experts' hidden state (Mixtral 8x7B's, 4,096).
pub const HIDDEN: f64 = 4096.0;
/// Sequence length for the context-parallel example: 128K tokens.
pub const LONG_SEQ: f64 = 131_072.0;

/// Bytes each GPU sends per MoE layer for `ep`-way expert parallelism and
/// top-`k` routing, and that in words.
pub fn expert(ep: u32, top_k: u32) -> (ReadoutData, String) {
    let sent = expert_all_to_all_sent(TOKENS_PER_GPU, HIDDEN, top_k, ep);
    let words = format!(
        "With {ep} expert-parallel GPUs and top-{top_k} routing, each GPU sends {sent} per MoE layer: 2 × tokens × k × \
         width × 2 bytes, times the {} of routes that leave the GPU.",
        Fraction(routed_away(ep))
    );
    (
        ReadoutData::bytes("alltoall-per-layer", "Sent per GPU, per MoE layer", sent),
        words,
    )
}

/// Activations per GPU per layer of Llama 3 8B at 128K tokens, split `cp`
/// ways along the sequence (each GPU keeps 1/cp of the tokens; Korthikanti
/// et al.'s per-layer bytes for its tokens, with selective recomputation),
/// and that in words.
pub fn context(cp: u32) -> (ReadoutData, String) {
    let model = model_preset("llama3-8b").unwrap_or(DEFAULT_MODEL);
    let arch = model.arch;
    let tokens = LONG_SEQ / f64::from(cp.max(1));
    let setup = ActivationSetup {
        seq: tokens,
        micro_batch: 1.0,
        tensor_parallel: 1,
        sequence_parallel: false,
        recompute: Recompute::Selective,
        attention: model.attention,
    };
    let bytes = per_layer(&arch, &setup);
    let words = format!(
        "{}, each GPU holds {bytes} of activations per layer for its {} tokens.",
        if cp <= 1 {
            "Unsplit".to_string()
        } else {
            format!("Split {cp} ways")
        },
        group_thousands(tokens)
    );
    (
        ReadoutData::bytes(
            "activations-per-gpu-layer",
            "Activations per GPU, per layer",
            bytes,
        ),
        words,
    )
}

#[component]
pub fn Beyond() -> impl IntoView {
    let ep = RwSignal::new(8.0);
    let top_k = RwSignal::new(2.0);
    let cp = RwSignal::new(1.0);
    let experts = Memo::new(move |_| expert(ep.get() as u32, top_k.get() as u32));
    let contexts = Memo::new(move |_| context(cp.get() as u32));
    let whole = |signal: RwSignal<f64>| Signal::derive(move || group_thousands(signal.get()));
    let setter = |signal: RwSignal<f64>| Callback::new(move |v: f64| signal.set(v));
    scoped("beyond", move || {
        view! {
            <section class="beyond" id="beyond" aria-labelledby="beyond-title">
                <h2 id="beyond-title">"Beyond three dimensions"</h2>
                <div class="figure">
                    <h3 class="figure__title">"Expert parallelism"</h3>
                    <p>
                        "A mixture-of-experts layer holds many feed-forward networks, the experts, and sends each token to only a "
                        "few of them. Expert parallelism puts different experts on different GPUs, so every token's hidden state "
                        "travels to its experts' GPUs and back: two all-to-all exchanges a layer. Here each GPU routes one "
                        "4,096-token sequence of width 4,096."
                    </p>
                    <div class="figure__controls">
                        <Slider label="Expert-parallel GPUs" param="ep" min=1.0 max=64.0 step=1.0 value=ep text=whole(ep) on_input=setter(ep)/>
                        <Slider label="Experts per token (top-k)" param="top-k" min=1.0 max=8.0 step=1.0 value=top_k text=whole(top_k) on_input=setter(top_k)/>
                    </div>
                    <div class="figure__readouts"><Readout data=Signal::derive(move || experts.with(|e| e.0.clone()))/></div>
                    <InWords text=Signal::derive(move || experts.with(|e| e.1.clone()))/>
                </div>
                <div class="figure">
                    <h3 class="figure__title">"Sequence and context parallelism"</h3>
                    <p>
                        "Activations grow with the sequence. Sequence parallelism splits the norms and dropouts of a tensor-parallel "
                        "group along the sequence; context parallelism goes further and gives each GPU a slice of the tokens for "
                        "the whole layer, exchanging keys and values for attention. Either way a GPU keeps 1/c of the activations. "
                        "Here: Llama 3 8B at 128K tokens, with selective recomputation."
                    </p>
                    <div class="figure__controls">
                        <Slider label="Context-parallel GPUs c" param="cp" min=1.0 max=16.0 step=1.0 value=cp text=whole(cp) on_input=setter(cp)/>
                    </div>
                    <div class="figure__readouts"><Readout data=Signal::derive(move || contexts.with(|c| c.0.clone()))/></div>
                    <InWords text=Signal::derive(move || contexts.with(|c| c.1.clone()))/>
                </div>
            </section>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4,096 tokens, top-2, width 4,096, 8-way: 2 × 4096 × 2 × 4096 × 2 B × 7/8 = 117.4 MB.
    #[test]
    fn readouts() {
        assert_eq!(
            expert(8, 2).0.value,
            2.0 * 4096.0 * 2.0 * 4096.0 * 2.0 * 7.0 / 8.0
        );
        assert_eq!(expert(1, 2).0.value, 0.0);
        let one = context(1).0.value;
        assert_eq!(context(8).0.value, one / 8.0);
        assert!(expert(8, 2).1.contains("87.5%"));
    }
}
