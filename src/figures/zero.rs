//! How much memory does ZeRO save, and what does it cost? Each stage shards
//! one more part of the training state across the N data-parallel GPUs:
//! first the optimizer state, then the gradients, then the weights.

use leptos::prelude::*;

use super::preset_choices::PresetChoices;

use super::ReadoutData;
use crate::model::comm::data_parallel_sent;
use crate::model::memory::{fits, TrainingState, ZeroStage};
use crate::model::query::{Notice, NumberSpec, Query};
use crate::model::scenario::Scenario;
use crate::model::units::{format_ratio, group_thousands, Bytes};
use crate::widgets::{rows, InWords, Readout, ReadoutPanel, Slider, Toggle};

/// Data-parallel GPUs N; the slider shows 1 to 64, a URL may ask for up to 4,096.
pub const GPUS: NumberSpec = NumberSpec::whole("gpus", 1.0, 4096.0);
pub const SLIDER_MAX: f64 = 64.0;
pub const DEFAULT_GPUS: u32 = 8;
/// The ZeRO stage, 0 (none) to 3.
pub const STAGE: NumberSpec = NumberSpec::whole("stage", 0.0, 3.0);
pub const DEFAULT_STAGE: ZeroStage = ZeroStage::One;

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
            gpus: DEFAULT_GPUS,
            stage: DEFAULT_STAGE,
        }
    }
}

impl ZeroParams {
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let stage = STAGE.read(query, f64::from(DEFAULT_STAGE.index()), notices) as u32;
        Self {
            scenario: Scenario::from_query(query, notices),
            gpus: GPUS.read(query, f64::from(DEFAULT_GPUS), notices) as u32,
            stage: ZeroStage::from_index(stage).unwrap_or(DEFAULT_STAGE),
        }
    }

    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.scenario.write(pairs);
        if self.gpus != DEFAULT_GPUS {
            pairs.push(("gpus".into(), self.gpus.to_string()));
        }
        if self.stage != DEFAULT_STAGE {
            pairs.push(("stage".into(), self.stage.index().to_string()));
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
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &ZeroParams) -> ZeroData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let n = params.gpus.max(1);
    let psi = scenario.params();
    let bytes = scenario.bytes_per_param;
    let full = TrainingState::full(psi, bytes);
    let kept = TrainingState::zero(psi, bytes, params.stage, n);
    let longest = full.optimizer().value();
    let group = |name, class, id, whole: Bytes, part: Bytes| {
        let sharded = part.value() < whole.value();
        let label = if sharded {
            format!("{whole} / {} = {part}", group_thousands(f64::from(n)))
        } else {
            format!("{whole}, full copy")
        };
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
            label,
            readout: ReadoutData::bytes(id, format!("{name} on GPU 0"), part),
        }
    };
    let groups = vec![
        group(
            "fp16 weights",
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
    let smaller = full.total().value() / total.value();
    let sent = data_parallel_sent(bytes.reduced_gradient_of(psi), n, params.stage);
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
        stage = if params.stage == ZeroStage::None { "Plain data parallelism".to_string() } else { params.stage.label().to_string() },
        n = group_thousands(f64::from(n)),
        smaller = format_ratio(smaller, 1),
        whole = full.total(),
        fits = if fit { "fits" } else { "does not fit" },
        capacity = gpu.memory.capacity_text(),
        extra = if params.stage == ZeroStage::Three {
            ", 1.5 times plain data parallelism, because the weights are gathered in both passes"
        } else {
            ", the same as plain data parallelism"
        },
    );
    ZeroData {
        groups,
        total_percent: total.value() / scale * 100.0,
        capacity_percent: gpu.memory.value() / scale * 100.0,
        capacity_label: format!("{} GPU", gpu.memory.capacity_text()),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", total),
        smaller_by: ReadoutData::new(
            "smaller-by",
            "Smaller by",
            smaller,
            format_ratio(smaller, 1),
        ),
        sent_per_gpu: ReadoutData::bytes("sent-per-gpu", "Sent per GPU, per step", sent),
        fits: ReadoutData::new(
            "fits",
            format!("Fits {}", gpu.memory.capacity_text()),
            f64::from(u8::from(fit)),
            if fit { "Yes" } else { "No" },
        ),
        summary,
    }
}

/// The `zero` figure.
#[component]
pub fn ZeroFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<ZeroParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    let gpus = Signal::derive(move || f64::from(params.with(|p| p.gpus)));
    let set_gpus = Callback::new(move |value: f64| {
        if let Ok(value) = GPUS.validate(value) {
            params.update(|p| p.gpus = value as u32);
        }
    });
    let set_stage = Callback::new(move |id: String| {
        if let Some(stage) = id.parse().ok().and_then(ZeroStage::from_index) {
            params.update(|p| p.stage = stage);
        }
    });
    let stages = ZeroStage::ALL
        .iter()
        .map(|s| (s.index().to_string(), s.label().to_string()))
        .collect();
    view! {
        <div class="figure__controls">
            <Slider
                label="Data-parallel GPUs N"
                param="gpus"
                min=GPUS.min
                max=Signal::derive(move || gpus.get().max(SLIDER_MAX))
                step=1.0
                value=gpus
                text=Signal::derive(move || group_thousands(gpus.get()))
                on_input=set_gpus
            />
            <Toggle
                label="Sharding"
                param="stage"
                options=stages
                selected=Signal::derive(move || params.with(|p| p.stage.index().to_string()))
                on_change=set_stage
            />
            <PresetChoices params=params/>
        </div>
        <div class="figure__diagram fig-zero">
            <p class="fig-zero__caption">"What GPU 0 keeps of each tensor group (solid), and the shards other GPUs keep (hatched)"</p>
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
                                <div
                                    class=move || class("kept")
                                    style:width=move || group.with(|g| format!("{:.3}%", g.kept_percent))
                                ></div>
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
                        class:capacity--end=move || data.with(|d| d.capacity_percent > 85.0)
                    class:capacity--start=move || data.with(|d| d.capacity_percent < 15.0)
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
        <ReadoutPanel data=data picks=vec![|d| d.state_per_gpu.clone(), |d| d.smaller_by.clone(), |d| d.sent_per_gpu.clone(), |d| d.fits.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
    }
}

/// The explanation under the figure, in our own words.
#[component]
pub fn ZeroText() -> impl IntoView {
    view! {
        <p>
            "Data parallelism keeps N identical copies of everything, yet a GPU only ever updates the "
            "parameters it is responsible for, and only needs a layer's full weights while it computes that "
            "layer. ZeRO, from Rajbhandari and colleagues at Microsoft, removes the copies in three stages. "
            "Stage 1 gives each GPU the optimizer state (the fp32 master weights and Adam's two averages, K = "
            "12 bytes a parameter) for only 1/N of the parameters: (4 + K/N)Ψ bytes a GPU. Stage 2 shards the "
            "gradients too: (2 + (2 + K)/N)Ψ. Stage 3 shards the fp16 weights as well, (4 + K)Ψ/N, and gathers "
            "each layer's weights just before it is used. Their own example, a 7.5B model on 64 GPUs, drops from "
            "120 GB a GPU to 1.9 GB."
        </p>
        <p>
            "The first two stages are free in communication. An all-reduce is already a reduce-scatter "
            "followed by an all-gather, and ZeRO simply updates each GPU's shard in between, so the bytes on "
            "the wire are unchanged. Stage 3 pays about 1.5 times as much, because the weights must be "
            "gathered once for the forward pass and again for the backward pass. PyTorch's FSDP is the same "
            "idea as stage 3."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_reproduce_the_seed() {
        let d = data(&ZeroParams::default());
        assert_eq!(d.state_per_gpu.text, "37.1 GB");
        assert_eq!(d.smaller_by.text, "2.9×");
        assert_eq!(d.sent_per_gpu.text, "23.6 GB");
        assert_eq!((d.fits.value, d.fits.text.as_str()), (1.0, "Yes"));
        let labels: Vec<&str> = d.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "13.5 GB, full copy",
                "13.5 GB, full copy",
                "80.9 GB / 8 = 10.1 GB"
            ]
        );
        assert_eq!(d.groups[2].readout.text, "10.1 GB");
    }

    #[test]
    fn stage_3_shards_everything_and_sends_half_as_much_again() {
        let d = data(&ZeroParams {
            stage: ZeroStage::Three,
            ..ZeroParams::default()
        });
        assert_eq!(d.state_per_gpu.text, "13.5 GB");
        assert_eq!(d.sent_per_gpu.text, "35.4 GB");
        assert_eq!(d.smaller_by.text, "8.0×");
        assert!(d.groups.iter().all(|g| g.shards == 8));
    }

    #[test]
    fn no_sharding_does_not_fit() {
        let d = data(&ZeroParams {
            stage: ZeroStage::None,
            gpus: 64,
            ..ZeroParams::default()
        });
        assert_eq!(d.state_per_gpu.text, "107.8 GB");
        assert_eq!((d.fits.value, d.fits.text.as_str()), (0.0, "No"));
        assert_eq!(d.smaller_by.text, "1.0×");
        let z2 = data(&ZeroParams {
            stage: ZeroStage::Two,
            gpus: 64,
            ..ZeroParams::default()
        });
        assert_eq!(z2.state_per_gpu.text, "15.0 GB");
    }
}
