//! Why is one GPU not enough? Two reasons, drawn side by side: the training
//! state (16 bytes a parameter) is larger than the GPU's memory, and the
//! arithmetic (6ND FLOP) would take years on one GPU.

use leptos::prelude::*;

use super::cells::Cells;
use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::memory_bar::{MemoryBar, MemoryBarData};
use super::param::{set_option, Param};
use super::shared;
use crate::model::choice::{options, Choice};
use crate::model::compute::{training_time, Pace};
use crate::model::memory::{fill, fits, TrainingState, ZeroStage};
use crate::model::scenario::Scenario;
use crate::model::units::{format_ratio, group_thousands, trimmed, Count, FlopPerSecond, Seconds};
use crate::widgets::{num, rows, Equation, Piece, Readout, ReadoutData};

pub const FIGURE: Figure = Figure::of::<WhyParams>(
    About {
        slug: "why",
        title: "Why one GPU is not enough",
        subtitle:
            "The training state outgrows its memory, and the arithmetic outlasts any deadline",
        part: Part::Explainer,
        example: "model=llama3-8b&tokens=1T",
    },
    true,
);

/// The GPU counts the time bars compare, with their readout ids.
pub const GPU_COUNTS: [(u32, &str); 3] = [
    (1, "time-1-gpu"),
    (64, "time-64-gpus"),
    (1024, "time-1024-gpus"),
];

/// The figure's parameters: the shared ones (`tokens`, `model`, `gpu`, ...)
/// and the rate its times are quoted at (`rate`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct WhyParams {
    pub scenario: Scenario,
    pub pace: Pace,
}

impl WhyParams {
    /// Whether the times take the rate while computing (`busy-util`'s),
    /// not a whole run's.
    fn rate_while_computing(&self) -> bool {
        self.pace == Pace::Busy || self.scenario.whole_run_sustained().is_none()
    }

    /// The rate the times take, with the words that say which it is: a whole
    /// run's where asked and known, else the rate while computing (on a GPU
    /// whose whole runs are known, said as such).
    fn rate(&self) -> (FlopPerSecond, String) {
        let scenario = &self.scenario;
        match (self.pace, scenario.whole_run_sustained()) {
            (Pace::WholeRun, Some(rate)) => (rate, shared::whole_run_note(scenario)),
            (_, whole_run) => {
                let note = shared::rate_note(scenario);
                if whole_run.is_some() {
                    (scenario.sustained(), note + ", while computing")
                } else {
                    (scenario.sustained(), note)
                }
            }
        }
    }
}

/// One row of the time chart.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeBar {
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
    /// How the training state adds up, for the memory bar's caption.
    pub state_caption: String,
    pub training_state: ReadoutData,
    pub over_gpu: ReadoutData,
    pub compute: ReadoutData,
    pub time_bars: Vec<TimeBar>,
    pub ticks: Vec<Tick>,
    /// M = 16Ψ, C = 6ND and T = C/(NX), with the current values.
    pub equations: Vec<Equation>,
    /// The "In words" sentence.
    pub summary: String,
}

/// The log time axis runs from one second to ten thousand years.
const AXIS_SECONDS: (f64, f64) = (1.0, 1e4 * Seconds::YEAR);

/// Ticks of the time axis; on a phone only the major ones show, two decades or more apart.
const TICKS: [(&str, f64, bool); 9] = [
    ("1 s", 1.0, false),
    ("1 min", Seconds::MINUTE, true),
    ("1 h", Seconds::HOUR, false),
    ("1 day", Seconds::DAY, true),
    ("1 month", Seconds::YEAR / 12.0, false),
    ("1 yr", Seconds::YEAR, true),
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
    let bytes = scenario.state_bytes();
    let state = TrainingState::full(psi, bytes);
    let total = state.total();
    let memory = MemoryBarData::new(
        &[
            (
                "weights",
                "weights",
                &format!(
                    "{}, {} B each",
                    scenario.numerics().weights_label(),
                    trimmed(bytes.all_weights(), 3)
                ),
                state.weights + state.fp8_copies,
            ),
            (
                "gradients",
                "gradients",
                &format!(
                    "{}, {} B each",
                    bytes.gradients_label,
                    bytes.all_gradients()
                ),
                state.all_gradients(),
            ),
            (
                "optimizer",
                "optimizer-state",
                &format!(
                    "fp32 master weights and {}, {} B each",
                    bytes.moments_label(),
                    bytes.k()
                ),
                state.optimizer(),
            ),
        ],
        gpu.memory,
    );
    let over = fill(total, gpu.memory);
    let compute = scenario.training_flop();
    let (rate, note) = params.rate();
    let time_bars: Vec<TimeBar> = GPU_COUNTS
        .iter()
        .map(|&(gpus, id)| {
            let time = training_time(compute, gpus, rate, 0.0);
            let label = format!(
                "{} {}",
                group_thousands(f64::from(gpus)),
                if gpus == 1 { "GPU" } else { "GPUs" }
            );
            let readout = ReadoutData::seconds(id, label, time);
            TimeBar {
                percent: log_percent(time.value()),
                clipped: time.value() > AXIS_SECONDS.1,
                // The rate, once: under the first bar (each bar's note read as the caption thrice over).
                readout: if gpus == 1 {
                    readout.with_note(note.clone())
                } else {
                    readout
                },
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
    let summary = format!(
        "{model} needs {compute} to train on {tokens} tokens: {t1} on one GPU sustaining {rate}, {t64} on 64 and \
         {t1024} on 1,024 {scaling}. Its training state, {per_param} bytes a parameter, comes to \
         {total}, {over} the GPU's {memory}, so {verdict}",
        model = shared::model_phrase(scenario),
        tokens = Count(scenario.tokens),
        t1 = time_bars[0].readout.text,
        t64 = time_bars[1].readout.text,
        t1024 = time_bars[2].readout.text,
        scaling = if params.rate_while_computing() {
            "if the work divided perfectly"
        } else {
            "at the same rate a GPU"
        },
        per_param = trimmed(bytes.total(), 3),
        over = format_ratio(over, 2),
        // In GB like the total beside it (79.6 GiB against 107.8 GB read as a mix).
        memory = gpu.memory.capacity_in_gb(),
        verdict = if fits {
            "it fits, though activations still need room beside it."
        } else {
            "it does not fit before the first step even starts."
        },
    );
    let training_state = ReadoutData::bytes("training-state", "Training state", total);
    let compute_readout = ReadoutData::flop(
        "compute",
        format!("Compute, {}", scenario.flop.label()),
        compute,
    );
    let equations = equations(
        scenario,
        rate,
        &training_state,
        &compute_readout,
        &time_bars[0].readout,
    );
    WhyData {
        equations,
        memory,
        state_caption: format!(
            "Training state at {} bytes a parameter: {} + {} + {} B = {total}",
            trimmed(bytes.total(), 3),
            trimmed(bytes.all_weights(), 3),
            trimmed(bytes.all_gradients(), 3),
            trimmed(bytes.k(), 3)
        ),
        training_state,
        over_gpu: ReadoutData::ratio(
            "over-gpu",
            format!("Over one GPU of {}", gpu.memory.capacity_in_gb()),
            over,
            2,
        ),
        compute: compute_readout,
        time_bars,
        ticks,
        summary,
    }
}

/// M = 16Ψ; C = 6ND (or eq. 3's count); the time on one GPU, T = C/(N·X).
fn equations(
    scenario: &Scenario,
    rate: FlopPerSecond,
    state: &ReadoutData,
    compute: &ReadoutData,
    one_gpu: &ReadoutData,
) -> Vec<Equation> {
    let psi = scenario.params();
    let (token_symbol, token_value) = equations::per_token(scenario);
    let tokens = var("D", "tokens");
    vec![
        equations::state(
            scenario.state_bytes(),
            ZeroStage::None,
            ("N", "", 1),
            vec![var("Ψ", "model")],
            vec![Piece::Sci(psi)],
            state,
        ),
        Equation {
            words: format!(
                "Compute C equals the FLOP a token times the tokens D: {}",
                compute.text
            ),
            left: vec![var("C", "compute")],
            rows: vec![
                [token_symbol, vec![Piece::Op("×"), tokens]].concat(),
                [
                    token_value,
                    vec![Piece::Op("×"), Piece::Sci(scenario.tokens)],
                ]
                .concat(),
                // To three figures, as the time's equation below takes it,
                // then as the readout rounds it (the seed's 8.1e22 FLOP):
                // a reader met 8.09 × 10²² there and 8.1e22 here.
                vec![Piece::Sci(compute.value), Piece::Unit("FLOP")],
                [vec![Piece::Op("≈")], equations::result(compute)].concat(),
            ],
        },
        Equation {
            words: format!(
                "Time T equals C over N GPUs times the rate X each sustains; on one GPU, {}",
                one_gpu.text
            ),
            left: vec![var("T", "time-1-gpu")],
            rows: vec![
                vec![Piece::Frac(
                    vec![var("C", "compute")],
                    vec![var("N", ""), var("X", "gpu busy-util")],
                )],
                vec![Piece::Frac(
                    vec![Piece::Sci(compute.value), Piece::Unit("FLOP")],
                    vec![
                        num(1),
                        Piece::Op("×"),
                        Piece::Sci(rate.value()),
                        Piece::Unit("FLOP/s"),
                    ],
                )],
                equations::result(one_gpu),
            ],
        },
    ]
}

impl Params for WhyParams {
    type Data = WhyData;

    const TABLE: &'static [Param<Self>] = &[
        shared::tokens(),
        shared::tokens_typed("Or type the tokens (1B to 1000T)").text_box_beside(),
        Param::<Self>::choice(
            "rate",
            "Times at the rate",
            options::<Pace>,
            |p| p.pace.id(),
            |p, id| set_option(&mut p.pace, id),
        )
        .toggle()
        .shown_when(|p: &Self| p.scenario.whole_run_sustained().is_some())
        .help("The rate the times take: the GPUs' while they compute, or what whole runs on this GPU sustained, from published runs' GPU-hours (restarts, evaluation and communication included)."),
        shared::model().assumed(),
        shared::gpu().assumed(),
        // Not at a whole run's rate, which it does not set.
        shared::busy()
            .shown_when(|p: &Self| p.rate_while_computing() && p.scenario.step_mfu.is_none() && p.scenario.tflops_override.is_none())
            .assumed(),
        shared::software().assumed(),
        shared::flop().assumed(),
    ];

    fn data(&self) -> WhyData {
        data(self)
    }

    fn readouts(d: &WhyData) -> Vec<ReadoutData> {
        let mut all = vec![d.training_state.clone()];
        all.extend(d.memory.segments.iter().map(|s| s.readout.clone()));
        all.extend([d.over_gpu.clone(), d.compute.clone()]);
        all.extend(d.time_bars.iter().map(|b| b.readout.clone()));
        all
    }

    fn panel(d: &WhyData) -> Vec<ReadoutData> {
        vec![
            d.training_state.clone(),
            d.over_gpu.clone(),
            d.compute.clone(),
        ]
    }

    fn summary(d: &WhyData) -> String {
        d.summary.clone()
    }

    fn equations(d: &WhyData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.scenario)
    }

    /// The memory bar, and the time bars on their log axis.
    fn diagram(_params: Cells<Self>, data: Memo<WhyData>) -> AnyView {
        view! {
            <div class="figure__diagram fig-why">
                <p class="fig-why__caption">{move || data.with(|d| d.state_caption.clone())}</p>
                <MemoryBar data=Memo::new(move |_| data.with(|d| d.memory.clone()))/>
                <p class="fig-why__caption">"Time to train, the work split evenly over the GPUs, each at the rate under the first bar (a log axis)"</p>
                <div class="fig-why__times">
                    {rows(data, |d| &d.time_bars, |bar| view! {
                        <div class="fig-why__time-row">
                            <div class="fig-why__track">
                                <div
                                    class="fig-why__bar"
                                    class:fig-why__bar--clipped=move || bar.with(|b| b.clipped)
                                    // Its length as a scale, which the compositor animates: a
                                    // width's transition laid the page out again every frame.
                                    style:transform=move || bar.with(|b| format!("scaleX({:.5})", b.percent.max(0.5) / 100.0))
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
        }
        .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::param::Value;
    use crate::model::presets::gpu_preset;
    use crate::model::query::Query;

    /// C = 6 × 6.74e9 × 2e12 = 8.088e22 FLOP: the compute equation shows it
    /// to three figures, 8.09 × 10²², the value the time's equation divides,
    /// and then "≈" the seed's 8.1e22 FLOP.
    #[test]
    fn the_compute_is_one_number_in_both_equations() {
        let d = data(&WhyParams::default());
        let compute = &d.equations[1].rows;
        assert_eq!(compute[2], [Piece::Sci(8.088e22), Piece::Unit("FLOP")]);
        assert_eq!(
            compute[3],
            [
                Piece::Op("≈"),
                Piece::Value("8.1e22 FLOP".to_string(), "compute")
            ]
        );
        let Piece::Frac(numerator, _) = &d.equations[2].rows[1][0] else {
            panic!("the time is a fraction");
        };
        assert_eq!(numerator[0], Piece::Sci(8.088e22));
    }

    /// FP8 beside BF16 on an H100 adds 2 bytes for each parameter of the
    /// layers' matrices (Llama 2 7B's 6.476B of 6.74B, a share 0.961:
    /// `tests/precision.rs`), so 16 + 1.92 bytes a parameter, the weights
    /// 3.92 of them: the caption and the words say so to three figures.
    #[test]
    fn fp8_bytes_a_parameter_read_to_three_figures() {
        let mut notices = Vec::new();
        let params = WhyParams::from_query(
            &Query::parse("model=llama2-7b&gpu=h100-sxm&precision=fp8"),
            &mut notices,
        );
        assert!(notices.is_empty(), "{notices:?}");
        let d = data(&params);
        assert!(
            d.state_caption
                .starts_with("Training state at 17.9 bytes a parameter: 3.92 + 2 + 12 B"),
            "{}",
            d.state_caption
        );
        assert!(d.summary.contains("17.9"), "{}", d.summary);
        assert!(!d.summary.contains("17.92"), "{}", d.summary);
    }

    /// On a real GPU the times say which rate they take, and `rate=run`
    /// takes what whole runs sustained: Llama 2 7B on an H100 at 2T tokens,
    /// 6 × 6.74e9 × 2e12 FLOP at 35% of 989 TFLOP/s is 2.337e8 s on one
    /// GPU. On `illustrative`, which has no whole run's hours, the rate
    /// is unchanged and the choice is not offered.
    #[test]
    fn the_times_take_a_whole_runs_rate_where_asked() {
        let read = |search: &str| {
            let mut notices = Vec::new();
            let params = WhyParams::from_query(&Query::parse(search), &mut notices);
            assert!(notices.is_empty(), "{notices:?}");
            params
        };
        let note = |params: &WhyParams| data(params).time_bars[0].readout.note.clone().unwrap();
        let busy = read("gpu=h100-sxm");
        assert!(
            note(&busy).ends_with(", while computing"),
            "{}",
            note(&busy)
        );
        let run = read("gpu=h100-sxm&rate=run");
        assert!(
            note(&run).starts_with("at 35% of 989 TFLOP/s over a whole run"),
            "{}",
            note(&run)
        );
        let expected = 6.0 * 6.74e9 * 2e12 / (0.35 * 989e12);
        let time = data(&run).time_bars[0].readout.value;
        assert!(
            (time / expected - 1.0).abs() < 1e-12,
            "{time} against {expected}"
        );
        let rate = WhyParams::TABLE.iter().find(|p| p.key == "rate").unwrap();
        // A GPU with no run's hours of its own says whose it takes.
        let mi300x = read("gpu=mi300x&rate=run");
        assert!(
            note(&mi300x).contains("for want of this GPU's own"),
            "{}",
            note(&mi300x)
        );
        // At a whole run's rate the share while computing is not offered: it sets nothing.
        let busy_param = WhyParams::TABLE
            .iter()
            .find(|p| p.key == "busy-util")
            .unwrap();
        assert!(!(busy_param.shown.unwrap())(&run));
        assert!((busy_param.shown.unwrap())(&busy));
        let shown = rate.shown.unwrap();
        assert!(shown(&run));
        let illustrative = read("rate=run");
        assert!(!shown(&illustrative));
        assert_eq!(
            data(&illustrative).time_bars,
            data(&WhyParams::default()).time_bars
        );
    }

    /// Choosing a software gives the share of peak its fit: one set by hand
    /// before gives way (H100: 0.73 × torchtitan's 0.58), and choosing the
    /// same software again keeps it.
    #[test]
    fn a_software_chosen_replaces_a_share_set_by_hand() {
        let mut params =
            WhyParams::from_query(&Query::parse("gpu=h100-sxm&busy-util=0.5"), &mut Vec::new());
        let software = WhyParams::TABLE
            .iter()
            .find(|p| p.key == "software")
            .unwrap();
        let Value::Choice { set, .. } = software.value else {
            panic!("software is a choice");
        };
        set(&mut params, "megatron");
        assert_eq!(params.scenario.rate().busy, 0.5);
        set(&mut params, "torchtitan");
        assert!((params.scenario.rate().busy - 0.73 * 0.58).abs() < 1e-12);
    }

    /// 50B tokens instead of 2T: 40 times less compute and time (6ND is
    /// linear in D), the same memory. 6 × 6.74e9 × 50e9 = 2.02e21 FLOP; at
    /// 150e12 FLOP/s that is 1.348e7 s, 156 days.
    #[test]
    fn fewer_tokens_take_less_time_but_the_same_memory() {
        let mut params = WhyParams::default();
        params.scenario.tokens = 50e9;
        let d = data(&params);
        assert_eq!(d.training_state.value, 16.0 * 6.74e9);
        assert_eq!(d.compute.value, 6.0 * 6.74e9 * 50e9);
        assert_eq!(d.time_bars[0].readout.text, "156 days");
        assert!(d.time_bars[0].percent < data(&WhyParams::default()).time_bars[0].percent);
    }

    /// The course module's example, past the old 2T wall: 8B parameters
    /// (Llama 3 8B's 8,030,261,248) on 15T tokens is 6 × 8.03e9 × 15e12 =
    /// 7.2e23 FLOP; at 4e14 FLOP/s that is 1.81e9 s, 57.3 years.
    #[test]
    fn fifteen_trillion_tokens() {
        let mut notices = Vec::new();
        let params = WhyParams::from_query(
            &Query::parse("model=llama3-8b&tokens=15T&tflops=400"),
            &mut notices,
        );
        assert!(notices.is_empty(), "{notices:?}");
        let d = data(&params);
        assert_eq!(d.compute.text, "7.2e23 FLOP");
        assert_eq!(d.time_bars[0].readout.text, "57.3 years");
        assert_eq!(
            d.time_bars[0].readout.note.as_deref(),
            Some("at 400 TFLOP/s sustained")
        );
        let largest = WhyParams::from_query(&Query::parse("tokens=1000T"), &mut notices);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(largest.scenario.tokens, 1e15);
    }

    /// MI300X has 192 GiB, 206.16e9 bytes: 107.84 / 206.16 = 0.52, and the state fits.
    #[test]
    fn a_larger_gpu_moves_the_line() {
        let mut params = WhyParams::default();
        params.scenario.gpu = gpu_preset("mi300x").unwrap();
        let d = data(&params);
        assert_eq!(d.over_gpu.text, "0.52×");
        assert!((d.memory.capacity_percent - 100.0).abs() < 1e-9);
        assert!(d.summary.contains("it fits"));
    }
}
