//! Why is one GPU not enough? Two reasons, drawn side by side: the training
//! state (16 bytes a parameter) is larger than the GPU's memory, and the
//! arithmetic (6ND FLOP) would take years on one GPU.

use leptos::prelude::*;

use super::memory_bar::{MemoryBar, MemoryBarData};
use super::preset_choices::PresetChoices;
use super::ReadoutData;
use crate::model::compute::{training_flop, training_time};
use crate::model::memory::{fits, TrainingState};
use crate::model::query::{Notice, Query};
use crate::model::scenario::{Scenario, TOKENS};
use crate::model::units::{format_ratio, group_thousands, Count, Seconds};
use crate::widgets::{rows, InWords, Readout, ReadoutPanel, Slider};

/// The GPU counts the time bars compare.
pub const GPU_COUNTS: [u32; 3] = [1, 64, 1024];

/// Slider step for training tokens.
pub const TOKENS_STEP: f64 = 50e9;

/// The figure's parameters: the shared ones (`tokens`, `model`, `gpu`, ...).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct WhyParams {
    pub scenario: Scenario,
}

impl WhyParams {
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        Self {
            scenario: Scenario::from_query(query, notices),
        }
    }

    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.scenario.write(pairs);
    }
}

/// One row of the time chart.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeBar {
    pub gpus: u32,
    /// Length on the log axis, in percent of its width.
    pub percent: f64,
    /// Whether the time runs past the axis and the bar is cut.
    pub clipped: bool,
    pub readout: ReadoutData,
}

/// A tick of the log time axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub label: &'static str,
    pub percent: f64,
    /// Minor ticks are hidden on narrow screens.
    pub minor: bool,
}

/// Everything the `why` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct WhyData {
    /// The training state's parts against the GPU's memory.
    pub memory: MemoryBarData,
    pub fits: bool,
    /// How the training state adds up, for the memory bar's caption.
    pub state_caption: String,
    /// What the time chart assumes, for its caption.
    pub time_caption: String,
    pub training_state: ReadoutData,
    pub over_gpu: ReadoutData,
    pub compute: ReadoutData,
    pub time_bars: Vec<TimeBar>,
    pub ticks: Vec<Tick>,
    /// The "In words" sentence.
    pub summary: String,
}

/// The log time axis runs from one second to ten thousand years.
const AXIS_SECONDS: (f64, f64) = (1.0, 1e4 * Seconds::YEAR);

const TICKS: [(&str, f64, bool); 9] = [
    ("1 s", 1.0, true),
    ("1 min", Seconds::MINUTE, false),
    ("1 h", Seconds::HOUR, true),
    ("1 day", Seconds::DAY, false),
    ("1 month", Seconds::YEAR / 12.0, true),
    ("1 yr", Seconds::YEAR, false),
    ("10 yr", 10.0 * Seconds::YEAR, true),
    ("100 yr", 100.0 * Seconds::YEAR, false),
    ("1k yr", 1000.0 * Seconds::YEAR, true),
];

/// Position of `seconds` on the log axis, in percent (clamped to the axis).
fn log_percent(seconds: f64) -> f64 {
    let (low, high) = (AXIS_SECONDS.0.log10(), AXIS_SECONDS.1.log10());
    ((seconds.max(AXIS_SECONDS.0).log10() - low) / (high - low) * 100.0).clamp(0.0, 100.0)
}

/// Computes the figure from its parameters.
pub fn data(params: &WhyParams) -> WhyData {
    let scenario = &params.scenario;
    let psi = scenario.params();
    let gpu = scenario.gpu();
    let bytes = scenario.bytes_per_param;
    let state = TrainingState::full(psi, bytes);
    let total = state.total();
    let weights_label = format!("fp16 weights, {} B each", bytes.weights);
    let gradients_label = format!("{}, {} B each", bytes.gradients_label, bytes.gradients);
    let optimizer_label = format!("fp32 master weights and Adam moments, {} B each", bytes.k());
    let memory = MemoryBarData::new(
        &[
            ("weights", "weights", &weights_label, state.weights),
            ("gradients", "gradients", &gradients_label, state.gradients),
            (
                "optimizer",
                "optimizer-state",
                &optimizer_label,
                state.optimizer(),
            ),
        ],
        gpu.memory,
    );
    let over = total.value() / gpu.memory.value();
    let compute = training_flop(psi, scenario.tokens, false);
    let rate = gpu.sustained();
    let time_bars: Vec<TimeBar> = GPU_COUNTS
        .iter()
        .map(|&gpus| {
            let time = training_time(compute, gpus, rate, 0.0);
            let id = match gpus {
                1 => "time-1-gpu",
                64 => "time-64-gpus",
                _ => "time-1024-gpus",
            };
            let label = format!(
                "{} {}",
                group_thousands(f64::from(gpus)),
                if gpus == 1 { "GPU" } else { "GPUs" }
            );
            TimeBar {
                gpus,
                percent: log_percent(time.value()),
                clipped: time.value() > AXIS_SECONDS.1,
                readout: ReadoutData::new(id, label, time.value(), time.to_string()),
            }
        })
        .collect();
    let ticks = TICKS
        .iter()
        .map(|&(label, seconds, minor)| Tick {
            label,
            percent: log_percent(seconds),
            minor,
        })
        .collect();
    let fits = fits(total, gpu.memory);
    let times: Vec<&str> = time_bars
        .iter()
        .map(|bar| bar.readout.text.as_str())
        .collect();
    let summary = format!(
        "{model} has {psi} parameters. Trained on {tokens} tokens it needs {compute}: {t1} on one GPU \
         sustaining {rate}, {t64} on 64 and {t1024} on 1,024 if the work divided perfectly. Its training \
         state, {per_param} bytes a parameter, comes to {total}, {over} the GPU's {memory}, so {verdict}",
        model = scenario.model.name,
        psi = Count(psi),
        tokens = Count(scenario.tokens),
        compute = compute,
        t1 = times[0],
        t64 = times[1],
        t1024 = times[2],
        rate = rate,
        per_param = bytes.total(),
        total = total,
        over = format_ratio(over, 2),
        memory = gpu.memory.capacity_text(),
        verdict = if fits {
            "it fits, though activations still need room beside it."
        } else {
            "it does not fit before the first step even starts."
        },
    );
    WhyData {
        memory,
        fits,
        state_caption: format!(
            "Training state at {} bytes a parameter: {} + {} + {} B = {total}",
            bytes.total(),
            bytes.weights,
            bytes.gradients,
            bytes.k()
        ),
        time_caption: format!("Time to train at {rate} per GPU, with perfect scaling"),
        training_state: ReadoutData::bytes("training-state", "Training state", total),
        over_gpu: ReadoutData::new(
            "over-gpu",
            format!("Over one {} GPU", gpu.memory.capacity_text()),
            over,
            format_ratio(over, 2),
        ),
        compute: ReadoutData::new(
            "compute",
            "Compute, 6ND",
            compute.value(),
            compute.to_string(),
        ),
        time_bars,
        ticks,
        summary,
    }
}

/// The `why` figure: a tokens slider, model and GPU choices, the memory bar,
/// the time bars, readouts and the "In words" summary.
#[component]
pub fn WhyFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<WhyParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    let tokens = Signal::derive(move || params.with(|p| p.scenario.tokens));
    let set_tokens = Callback::new(move |value: f64| {
        if let Ok(value) = TOKENS.validate(value) {
            params.update(|p| p.scenario.tokens = value);
        }
    });
    view! {
        <div class="figure__controls">
            <Slider
                label="Training tokens"
                param="tokens"
                min=TOKENS.min
                max=TOKENS.max
                step=TOKENS_STEP
                value=tokens
                text=Signal::derive(move || Count(tokens.get()).to_string())
                on_input=set_tokens
            />
            <PresetChoices params=params/>
        </div>
        <div class="figure__diagram fig-why">
            <p class="fig-why__caption">{move || data.with(|d| d.state_caption.clone())}</p>
            <MemoryBar data=Memo::new(move |_| data.with(|d| d.memory.clone()))/>
            <p class="fig-why__caption">
                {move || data.with(|d| d.time_caption.clone())}
            </p>
            <div class="fig-why__times">
                {rows(data, |d| &d.time_bars, |bar| view! {
                    <div class="fig-why__time-row">
                        <div class="fig-why__track">
                            <div
                                class="fig-why__bar"
                                class:fig-why__bar--clipped=move || bar.with(|b| b.clipped)
                                style:width=move || bar.with(|b| format!("{:.3}%", b.percent.max(0.5)))
                            ></div>
                        </div>
                        <Readout data=Signal::derive(move || bar.with(|b| b.readout.clone()))/>
                    </div>
                })}
                <div class="fig-why__axis" aria-hidden="true">
                    {rows(data, |d| &d.ticks, |tick| view! {
                        <span
                            class="fig-why__tick"
                            class:fig-why__tick--minor=move || tick.with(|t| t.minor)
                            style:left=move || tick.with(|t| format!("{:.3}%", t.percent))
                        >
                            {move || tick.with(|t| t.label)}
                        </span>
                    })}
                </div>
            </div>
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.training_state.clone(), |d| d.over_gpu.clone(), |d| d.compute.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
    }
}

/// The explanation under the figure, in our own words.
#[component]
pub fn WhyText() -> impl IntoView {
    view! {
        <p>
            "Two walls stand in the way of training a large model on one GPU. The first is memory. "
            "Mixed-precision training with Adam keeps, for every parameter, a 2-byte copy of the weight "
            "for the forward and backward passes, a 2-byte gradient, and 12 bytes of optimizer state: a "
            "4-byte master weight and Adam's two 4-byte running averages. That is the 16 bytes a "
            "parameter counted by the ZeRO paper, and for Llama 2 7B it is already more than an 80 GB "
            "GPU holds, before a single activation is stored."
        </p>
        <p>
            "The second wall is time. A forward pass costs about 2 floating-point operations per "
            "parameter per token and the backward pass about twice that, so training costs roughly 6ND "
            "operations for N parameters and D tokens. Move the tokens slider and watch the bars: the "
            "time axis is logarithmic, so each tick is a jump from seconds to minutes, days, years. Even "
            "1,024 GPUs only help if the work and the memory can be divided among them, which is what the "
            "rest of this explainer is about."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_reproduce_the_seed() {
        let d = data(&WhyParams::default());
        assert_eq!(d.training_state.text, "107.8 GB");
        assert_eq!(d.over_gpu.text, "1.35×");
        assert_eq!(d.compute.text, "8.1e22 FLOP");
        let times: Vec<&str> = d
            .time_bars
            .iter()
            .map(|b| b.readout.text.as_str())
            .collect();
        assert_eq!(times, ["17.1 years", "98 days", "6 days"]);
        assert!(!d.fits);
        assert!(d.memory.capacity_percent < 100.0);
        let segment_sum: f64 = d.memory.segments.iter().map(|s| s.percent).sum();
        assert!((segment_sum - 100.0).abs() < 1e-9);
    }

    #[test]
    fn fewer_tokens_take_less_time_but_the_same_memory() {
        let mut params = WhyParams::default();
        params.scenario.tokens = 50e9;
        let d = data(&params);
        assert_eq!(d.training_state.text, "107.8 GB");
        assert_eq!(d.compute.text, "2.0e21 FLOP");
        assert_eq!(d.time_bars[0].readout.text, "156 days");
        assert!(d.time_bars[0].percent < data(&WhyParams::default()).time_bars[0].percent);
    }

    #[test]
    fn a_larger_gpu_moves_the_line() {
        let mut params = WhyParams::default();
        params.scenario.gpu = crate::model::presets::gpu_preset("mi300x").unwrap();
        let d = data(&params);
        assert!(d.fits);
        assert_eq!(d.over_gpu.text, "0.56×");
        assert!((d.memory.capacity_percent - 100.0).abs() < 1e-9);
        assert!(d.summary.contains("it fits"));
    }
}
