//! How much memory does ZeRO save, and at what cost? Each of N
//! data-parallel GPUs keeps only its shard of the optimizer state, then of
//! the gradients, then of the weights.

use leptos::prelude::*;

use super::cells::Cells;
use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::memory_bar::CENTRED_LABEL;
use super::param::{set_option, whole, Param};
use super::shared;
use crate::model::choice::{options, Choice};
use crate::model::comm::{data_parallel_ratio, data_parallel_sent};
use crate::model::memory::{fits, TrainingState, ZeroStage};
use crate::model::query::NumberSpec;
use crate::model::scenario::Scenario;
use crate::model::units::{format_ratio, group_thousands, Bytes};
use crate::widgets::{rows, Equation, Piece, Readout, ReadoutData};

pub const FIGURE: Figure = Figure::of::<ZeroParams>(
    About {
        slug: "zero",
        title: "ZeRO: sharding the training state",
        subtitle:
            "Keep one shard of the optimizer state, then of the gradients, then of the weights",
        part: Part::Explainer,
        example: "gpus=64&stage=3",
    },
    true,
);

/// Data-parallel GPUs N; the slider shows 1 to 64, a URL may ask for up to 4,096.
pub const GPUS: NumberSpec = NumberSpec::whole("gpus", 1.0, 4096.0);

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ZeroParams {
    pub scenario: Scenario,
    pub gpus: u32,
    pub stage: ZeroStage,
}

impl Default for ZeroParams {
    fn default() -> Self {
        Self {
            scenario: Scenario::default(),
            gpus: 8,
            stage: ZeroStage::One,
        }
    }
}

/// One tensor group's bar: the whole group, with GPU 0's part highlighted.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupBar {
    pub name: &'static str,
    /// CSS modifier naming the group.
    pub class: &'static str,
    /// The whole group's length, in percent of the longest group.
    pub length_percent: f64,
    /// GPU 0's share of the group, in percent of the group.
    pub kept_percent: f64,
    /// Shards drawn as cells; 1 when the group is not sharded.
    pub shards: u32,
    pub label: String,
    pub readout: ReadoutData,
}

/// Everything the `zero` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ZeroData {
    pub groups: Vec<GroupBar>,
    /// GPU 0's total, in percent of the total bar's scale.
    pub total_percent: f64,
    pub capacity_percent: f64,
    pub capacity_label: String,
    pub state_per_gpu: ReadoutData,
    pub smaller_by: ReadoutData,
    pub sent_per_gpu: ReadoutData,
    pub fits: ReadoutData,
    /// The chosen stage's per-GPU state, with the current values.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &ZeroParams) -> ZeroData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let n = params.gpus.max(1);
    let psi = scenario.params();
    let bytes = scenario.state_bytes();
    let full = TrainingState::full(psi, bytes);
    let kept = TrainingState::zero(psi, bytes, params.stage, n);
    let longest = full.optimizer().value();
    let group = |name, class, id, whole: Bytes, part: Bytes| {
        let sharded = part.value() < whole.value();
        GroupBar {
            name,
            class,
            length_percent: whole.value() / longest * 100.0,
            kept_percent: if whole.value() > 0.0 {
                part.value() / whole.value() * 100.0
            } else {
                100.0
            },
            shards: if sharded { n } else { 1 },
            label: if sharded {
                format!("{whole} / {} = {part}", group_thousands(f64::from(n)))
            } else {
                format!("{whole}, full copy")
            },
            readout: ReadoutData::bytes(id, format!("{name} on GPU 0"), part),
        }
    };
    let groups = vec![
        group(
            "bf16 weights",
            "weights",
            "weights-per-gpu",
            full.weights,
            kept.weights,
        ),
        group(
            bytes.gradients_label,
            "gradients",
            "gradients-per-gpu",
            full.gradients,
            kept.gradients,
        ),
        group(
            "Adam states",
            "optimizer",
            "optimizer-per-gpu",
            full.optimizer(),
            kept.optimizer(),
        ),
    ];
    let total = kept.total();
    let scale = total.value().max(gpu.memory.value());
    let smaller = full.times_larger_than(&kept);
    // The figure's step is one micro-batch.
    let sent = data_parallel_sent(bytes, psi, n, params.stage, 1);
    let fit = fits(total, gpu.memory);
    let floor = match params.stage {
        ZeroStage::None => "nothing is sharded, so every GPU keeps the whole state".to_string(),
        ZeroStage::One => format!(
            "the {} of weights and gradients left whole sets the floor",
            kept.weights + kept.gradients
        ),
        ZeroStage::Two => format!("the {} of weights left whole sets the floor", kept.weights),
        ZeroStage::Three => "nothing is left whole, so more GPUs keep shrinking it".to_string(),
    };
    let summary = format!(
        "{stage} on {n} GPUs leaves GPU 0 with {total} of training state, {smaller} less than the full {whole}, \
         and {fits} in its {capacity}; {floor}. Each GPU sends {sent} a step{extra}.",
        stage = if params.stage == ZeroStage::None { "Plain data parallelism" } else { params.stage.label() },
        n = group_thousands(f64::from(n)),
        smaller = format_ratio(smaller, 1),
        whole = full.total(),
        fits = if fit { "fits" } else { "does not fit" },
        capacity = gpu.memory.capacity_in_gb(),
        extra = sent_against_plain(params.stage, data_parallel_ratio(bytes, params.stage, 1)),
    );
    let state_per_gpu = ReadoutData::bytes("state-per-gpu", "State per GPU", total);
    ZeroData {
        equations: vec![equation(params, &state_per_gpu)],
        groups,
        total_percent: total.value() / scale * 100.0,
        capacity_percent: gpu.memory.value() / scale * 100.0,
        capacity_label: format!("{} GPU", gpu.memory.capacity_in_gb()),
        state_per_gpu,
        smaller_by: ReadoutData::ratio("smaller-by", "Smaller by", smaller, 1),
        sent_per_gpu: ReadoutData::bytes("sent-per-gpu", "Sent per GPU, per step", sent),
        fits: ReadoutData::yes_no("fits", format!("Fits {}", gpu.memory.capacity_in_gb()), fit),
        summary,
    }
}

/// How the bytes a stage sends compare with plain data parallelism's
/// (`ratio`, from the model), in words after "Each GPU sends 23.6 GB a step".
fn sent_against_plain(stage: ZeroStage, ratio: f64) -> String {
    if stage == ZeroStage::None || !ratio.is_finite() {
        return String::new();
    }
    let how = if (ratio - 1.0).abs() < 0.005 {
        "the same as plain data parallelism".to_string()
    } else {
        format!(
            "{} what plain data parallelism sends",
            format_ratio(ratio, 2)
        )
    };
    let why = match stage {
        ZeroStage::Three => {
            "the weights are gathered for the forward and again for the backward pass"
        }
        _ => "the gradients are reduce-scattered and the updated weights gathered",
    };
    format!(", {how}: {why}")
}

/// The chosen stage's formula (Rajbhandari et al. 2020, section 5.1).
fn equation(params: &ZeroParams, state: &ReadoutData) -> Equation {
    equations::state(
        params.scenario.state_bytes(),
        params.stage,
        ("N", "gpus", params.gpus.max(1)),
        vec![var("Ψ", "model")],
        vec![Piece::Sci(params.scenario.params())],
        state,
    )
}

impl Params for ZeroParams {
    type Data = ZeroData;

    const TABLE: &'static [Param<Self>] = &[
        Param::<Self>::number("Data-parallel GPUs N", GPUS, |p| f64::from(p.gpus), |p, v| p.gpus = v as u32)
            .slider(1.0, |_| 64.0, 1.0, whole)
            .help("GPUs the state is sharded over; a URL may go beyond the slider's 64."),
        Param::<Self>::choice("stage", "Sharding", options::<ZeroStage>, |p| p.stage.id(), |p, id| {
            set_option(&mut p.stage, id)
        })
        .toggle()
        .help("ZeRO stage: 0 shards nothing, 1 the optimizer state, 2 the gradients too, 3 the weights too."),
        shared::model().assumed(),
        shared::gpu().assumed(),
    ];

    fn data(&self) -> ZeroData {
        data(self)
    }

    fn readouts(d: &ZeroData) -> Vec<ReadoutData> {
        let mut all = vec![d.state_per_gpu.clone()];
        all.extend(d.groups.iter().map(|g| g.readout.clone()));
        all.extend([d.smaller_by.clone(), d.sent_per_gpu.clone(), d.fits.clone()]);
        all
    }

    fn panel(d: &ZeroData) -> Vec<ReadoutData> {
        vec![
            d.state_per_gpu.clone(),
            d.smaller_by.clone(),
            d.sent_per_gpu.clone(),
            d.fits.clone(),
        ]
    }

    fn summary(d: &ZeroData) -> String {
        d.summary.clone()
    }

    fn equations(d: &ZeroData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.scenario)
    }

    fn diagram(_params: Cells<Self>, data: Memo<ZeroData>) -> AnyView {
        view! {
            <div class="figure__diagram fig-zero">
                <p class="fig-zero__caption">
                    "Each tensor group of the training state: GPU 0 keeps the part in full colour; the pale cells are the shards the other GPUs keep."
                </p>
                {rows(data, |d| &d.groups, |group| {
                    let class = move |part: &str| group.with(|g| format!("fig-zero__{part} fig-zero__{part}--{}", g.class));
                    view! {
                        <div class="fig-zero__group">
                            <div class="fig-zero__group-head">
                                <span class="fig-zero__group-name">{move || group.with(|g| g.name)}</span>
                                <span class="fig-zero__group-label">{move || group.with(|g| g.label.clone())}</span>
                            </div>
                            <div class="fig-zero__track">
                                <div
                                    class=move || class("whole")
                                    style:width=move || group.with(|g| format!("{:.3}%", g.length_percent))
                                    style:background-size=move || group.with(|g| format!("{:.4}% 100%", 100.0 / f64::from(g.shards.min(64))))
                                    class:fig-zero__whole--sharded=move || group.with(|g| g.shards > 1)
                                >
                                    <div class=move || class("kept") style:width=move || group.with(|g| format!("{:.3}%", g.kept_percent))></div>
                                </div>
                            </div>
                        </div>
                    }
                })}
                <div class="fig-zero__total">
                    <span class="fig-zero__group-name">"GPU 0 total"</span>
                    <div class="fig-zero__total-track">
                        <div
                            class="fig-zero__total-bar"
                            class:fig-zero__total-bar--over=move || data.with(|d| d.fits.value == 0.0)
                            style:width=move || format!("{:.3}%", data.with(|d| d.total_percent))
                        ></div>
                        <div
                            class="fig-zero__capacity"
                            class:capacity--end=move || data.with(|d| d.capacity_percent > CENTRED_LABEL.1)
                            class:capacity--start=move || data.with(|d| d.capacity_percent < CENTRED_LABEL.0)
                            style:left=move || format!("{:.3}%", data.with(|d| d.capacity_percent))
                        >
                            <span class="fig-zero__capacity-label">{move || data.with(|d| d.capacity_label.clone())}</span>
                        </div>
                    </div>
                </div>
                <ul class="fig-zero__legend">
                    {rows(data, |d| &d.groups, |group| view! {
                        <li><Readout data=Signal::derive(move || group.with(|g| g.readout.clone()))/></li>
                    })}
                </ul>
                <p class="fig-zero__note">"Activations and communication buffers come on top and are not counted here."</p>
            </div>
        }
        .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stage 3 divides all 16 bytes by N: 16 × 6.74e9 / 8 = 13.48 GB; it
    /// sends 3(N − 1)/N of the gradient where stages 0 to 2 send 2(N − 1)/N.
    #[test]
    fn stage_3_shards_everything_and_sends_half_as_much_again() {
        let d = data(&ZeroParams {
            stage: ZeroStage::Three,
            ..ZeroParams::default()
        });
        assert_eq!(d.state_per_gpu.value, 16.0 * 6.74e9 / 8.0);
        let gradient = 2.0 * 6.74e9;
        assert!((d.sent_per_gpu.value / (3.0 * gradient * 7.0 / 8.0) - 1.0).abs() < 1e-12);
        assert_eq!(d.smaller_by.text, "8.0×");
        assert!(d.groups.iter().all(|g| g.shards == 8));
    }

    /// Without sharding nothing shrinks, whatever N; stage 2 at 64 GPUs keeps
    /// (2 + 14/64) × 6.74e9 = 14.96 GB.
    #[test]
    fn no_sharding_does_not_fit_and_stage_2_keeps_the_weights() {
        let d = data(&ZeroParams {
            stage: ZeroStage::None,
            gpus: 64,
            ..ZeroParams::default()
        });
        assert_eq!(d.state_per_gpu.value, 16.0 * 6.74e9);
        assert_eq!((d.fits.value, d.smaller_by.text.as_str()), (0.0, "1.0×"));
        let z2 = data(&ZeroParams {
            stage: ZeroStage::Two,
            gpus: 64,
            ..ZeroParams::default()
        });
        assert!((z2.state_per_gpu.value / ((2.0 + 14.0 / 64.0) * 6.74e9) - 1.0).abs() < 1e-12);
    }
}
