//! The explainer's one notation: every letter its equations use, with the
//! one meaning it has in all of them, and the prose writes the same letters
//! (`src/content`). Under a figure's equations the page lists the letters
//! they use, in this order, each lit when its symbol, control or readout is
//! pointed at (`widgets::math`); `tests/equations.rs` checks that every
//! letter of every figure's equations, at many settings, is defined here.

use crate::widgets::Symbol;

const fn symbol(letter: &'static str, subscript: &'static str, meaning: &'static str) -> Symbol {
    Symbol {
        letter,
        subscript,
        meaning,
    }
}

/// The letters, in the order a reader of the whole page meets them.
pub const GLOSSARY: &[Symbol] = &[
    symbol("M", "", "the training state a GPU holds, in bytes"),
    symbol("Ψ", "", "the model's parameters"),
    symbol("Ψ", "active", "the parameters a token uses"),
    symbol("Ψ", "mm", "the parameters in matrix multiplies"),
    symbol("Ψ", "dense", "the parameters outside the experts"),
    symbol("Ψ", "experts", "the experts' parameters"),
    symbol(
        "Ψ",
        "s",
        "the parameters the most loaded GPU keeps: its stage's, split across its tensor-parallel group",
    ),
    symbol("C", "", "the training's FLOP"),
    symbol("C", "step", "a step's FLOP"),
    symbol("D", "", "the training tokens"),
    symbol("T", "", "time"),
    symbol("T", "step", "the time of one step"),
    symbol("T", "comm", "the communication layers wait for"),
    symbol("T", "dp", "the data-parallel reduction not hidden"),
    symbol("w", "", "the slowest pipeline stage's work over the mean"),
    symbol(
        "f",
        "",
        "the share of its BF16 time the arithmetic takes with FP8 multiplies",
    ),
    symbol("N", "", "GPUs"),
    symbol(
        "n",
        "dense",
        "GPUs sharing the parameters outside the experts",
    ),
    symbol("n", "experts", "GPUs sharing an expert's state"),
    symbol("X", "", "the FLOP per second a GPU sustains"),
    symbol("L", "", "layers"),
    symbol("h", "", "the hidden size (the model's width)"),
    symbol(
        "h",
        "attn",
        "the width attention's scores work at: multi-head latent attention's heads are wider than h",
    ),
    symbol("s", "", "tokens a sequence"),
    symbol("B", "", "sequences a step (the global batch)"),
    symbol("G", "", "the gradient, in bytes"),
    symbol("S", "", "bytes each GPU sends"),
    symbol("x", "", "a layer's input"),
    symbol(
        "W",
        "",
        "a weight matrix: W₁ the MLP's first, W₂ its second; a second index names a GPU's block",
    ),
    symbol(
        "φ",
        "",
        "the MLP's activation function, applied entry by entry",
    ),
    symbol("Z", "", "the MLP's output"),
    symbol("t", "", "the tensor-parallel degree"),
    symbol("p", "", "pipeline stages"),
    symbol("m", "", "micro-batches a step"),
    symbol("v", "", "model chunks on each GPU (interleaved)"),
    symbol("b", "", "the bubble: the idle share of a step"),
    symbol("d", "", "the data-parallel degree"),
    symbol(
        "d·cp",
        "",
        "the GPUs ZeRO shards over: data times context parallelism",
    ),
    symbol("A", "", "the activations a GPU holds, in bytes"),
    symbol("a", "", "one layer's activations, in bytes"),
    symbol("L", "s", "layers on a stage"),
    symbol("n", "f", "micro-batches in flight on the first stage"),
    symbol("e", "", "the embedding's activations"),
    symbol("o", "", "the output layer's activations and fp32 logits"),
    symbol("k", "", "layers between checkpoints"),
    symbol("k", "*", "the interval that keeps the least, near √L"),
    symbol(
        "n",
        "peak",
        "tensors held at the peak: L + 1 kept whole, L/k + k when k divides L",
    ),
];
