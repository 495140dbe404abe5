//! The figures, one module each, named after the question they answer.
//!
//! Each module owns its parameters (read from and written to the URL), a
//! pure `data()` that turns them into everything the view draws (tested
//! natively), and a thin `#[component]` that maps that data to the page.

pub mod beyond;
pub mod bubble;
pub mod checkpoint_lab;
pub mod data_parallel;
pub mod memory_bar;
pub mod pipeline_parallel;
pub mod planner;
pub mod preset_choices;
pub mod tensor_parallel;
pub mod three_d;
pub mod why;
pub mod zero;

use leptos::prelude::*;

use crate::model::memory::BytesPerParam;
use crate::model::query::{Notice, Query};
use crate::model::scenario::{read_bytes_per_param, Scenario};
use crate::model::units::Bytes;

/// A figure's parameters that hold the shared scenario (model, GPU, run size).
pub trait HasScenario {
    fn scenario(&self) -> &Scenario;
    fn scenario_mut(&mut self) -> &mut Scenario;
}

macro_rules! has_scenario {
    ($($params:ty),*) => {$(
        impl HasScenario for $params {
            fn scenario(&self) -> &Scenario {
                &self.scenario
            }
            fn scenario_mut(&mut self) -> &mut Scenario {
                &mut self.scenario
            }
        }
    )*};
}

has_scenario!(
    why::WhyParams,
    data_parallel::DpParams,
    zero::ZeroParams,
    tensor_parallel::TpParams,
    pipeline_parallel::PpParams,
    three_d::ThreeDParams,
    planner::PlannerParams
);

/// A readout as a figure's `data()` computes it: the contract of
/// `shared/spec/figures.md` (`data-readout`, `data-value`, formatted text).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadoutData {
    /// The spec's readout id.
    pub id: &'static str,
    /// What the number is, for people.
    pub label: String,
    /// The exact value in base units (bytes, seconds, FLOP, a count, a ratio).
    pub value: f64,
    /// The value formatted as the seeds format it.
    pub text: String,
    /// A byte count, which the reader may ask to see in GiB.
    pub bytes: bool,
}

impl ReadoutData {
    pub fn new(
        id: &'static str,
        label: impl Into<String>,
        value: f64,
        text: impl Into<String>,
    ) -> Self {
        Self {
            id,
            label: label.into(),
            value,
            text: text.into(),
            bytes: false,
        }
    }

    /// A byte count, written in GB (the page may show it in GiB).
    pub fn bytes(id: &'static str, label: impl Into<String>, bytes: Bytes) -> Self {
        Self {
            bytes: true,
            ..Self::new(id, label, bytes.value(), bytes.to_string())
        }
    }
}

/// Every figure, in the order the explainer shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FigureId {
    Why,
    Dp,
    Zero,
    Tp,
    Pp,
    ThreeD,
    Planner,
    Bubble,
    Checkpoint,
}

impl FigureId {
    pub const ALL: [FigureId; 9] = [
        FigureId::Why,
        FigureId::Dp,
        FigureId::Zero,
        FigureId::Tp,
        FigureId::Pp,
        FigureId::ThreeD,
        FigureId::Planner,
        FigureId::Bubble,
        FigureId::Checkpoint,
    ];

    /// The explainer's six steps.
    pub const STEPS: [FigureId; 6] = [
        FigureId::Why,
        FigureId::Dp,
        FigureId::Zero,
        FigureId::Tp,
        FigureId::Pp,
        FigureId::ThreeD,
    ];

    /// The course module's figures, the page's second part.
    pub const COURSE: [FigureId; 3] = [FigureId::Planner, FigureId::Bubble, FigureId::Checkpoint];

    /// The slug used by `?fig=` and `?step=`.
    pub fn slug(self) -> &'static str {
        match self {
            FigureId::Why => "why",
            FigureId::Dp => "dp",
            FigureId::Zero => "zero",
            FigureId::Tp => "tp",
            FigureId::Pp => "pp",
            FigureId::ThreeD => "3d",
            FigureId::Planner => "planner",
            FigureId::Bubble => "bubble",
            FigureId::Checkpoint => "checkpoint",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|figure| figure.slug() == slug)
    }

    pub fn title(self) -> &'static str {
        match self {
            FigureId::Why => "Why one GPU is not enough",
            FigureId::Dp => "Data parallelism",
            FigureId::Zero => "ZeRO: sharding the training state",
            FigureId::Tp => "Tensor parallelism",
            FigureId::Pp => "Pipeline parallelism",
            FigureId::ThreeD => "3D parallelism",
            FigureId::Planner => "The parallelism planner",
            FigureId::Bubble => "The pipeline bubble",
            FigureId::Checkpoint => "Activation checkpointing lab",
        }
    }

    pub fn subtitle(self) -> &'static str {
        match self {
            FigureId::Why => {
                "The training state outgrows its memory, and the arithmetic outlasts any deadline"
            }
            FigureId::Dp => {
                "A full copy on every GPU, a slice of the batch each, gradients summed round a ring"
            }
            FigureId::Zero => {
                "Keep one shard of the optimizer state, then of the gradients, then of the weights"
            }
            FigureId::Tp => "Cut every matrix multiplication across the GPUs of one node",
            FigureId::Pp => "Give each GPU a run of layers and stream micro-batches through",
            FigureId::ThreeD => {
                "Tensor inside a node, pipeline across nodes, data parallelism over it all"
            }
            FigureId::Planner => {
                "Will it fit? One GPU's memory and traffic for any model and layout"
            }
            FigureId::Bubble => "How many micro-batches it takes to keep the pipeline busy",
            FigureId::Checkpoint => {
                "A real network in your browser, trading memory for recomputation"
            }
        }
    }
}

/// Every figure's parameters, each in its own signal: the app's state.
#[derive(Clone, Copy)]
pub struct FigureSet {
    pub why: RwSignal<why::WhyParams>,
    pub dp: RwSignal<data_parallel::DpParams>,
    pub zero: RwSignal<zero::ZeroParams>,
    pub tp: RwSignal<tensor_parallel::TpParams>,
    pub pp: RwSignal<pipeline_parallel::PpParams>,
    pub three_d: RwSignal<three_d::ThreeDParams>,
    pub planner: RwSignal<planner::PlannerParams>,
    pub bubble: RwSignal<pipeline_parallel::PpParams>,
    pub checkpoint: RwSignal<checkpoint_lab::LabParams>,
}

impl FigureSet {
    /// Reads the parameters of `from_url` from the query (noting bad values);
    /// every other figure starts at its defaults.
    pub fn new(query: &Query, from_url: FigureId, notices: &mut Vec<Notice>) -> Self {
        // An empty query yields defaults and no notices.
        let pick = |id: FigureId| {
            if id == from_url {
                query.clone()
            } else {
                Query::default()
            }
        };
        let figures = Self {
            why: RwSignal::new(why::WhyParams::from_query(&pick(FigureId::Why), notices)),
            dp: RwSignal::new(data_parallel::DpParams::from_query(
                &pick(FigureId::Dp),
                notices,
            )),
            zero: RwSignal::new(zero::ZeroParams::from_query(&pick(FigureId::Zero), notices)),
            tp: RwSignal::new(tensor_parallel::TpParams::from_query(
                &pick(FigureId::Tp),
                notices,
            )),
            pp: RwSignal::new(pipeline_parallel::PpParams::from_query(
                &pick(FigureId::Pp),
                notices,
            )),
            three_d: RwSignal::new(three_d::ThreeDParams::from_query(
                &pick(FigureId::ThreeD),
                notices,
            )),
            planner: RwSignal::new(planner::PlannerParams::from_query(
                &pick(FigureId::Planner),
                notices,
            )),
            bubble: RwSignal::new(bubble::read_params(&pick(FigureId::Bubble), notices)),
            checkpoint: RwSignal::new(checkpoint_lab::LabParams::from_query(
                &pick(FigureId::Checkpoint),
                notices,
            )),
        };
        // The convention is the page's: the figure in the URL sets it for all.
        // (Its notice, if any, came with the figure's own parameters.)
        let shared = read_bytes_per_param(query, &mut Vec::new());
        figures.set_bytes_per_param(shared);
        figures
    }

    /// The training state's bytes a parameter, which every figure shares (a tracked read).
    pub fn bytes_per_param(&self) -> BytesPerParam {
        self.why.with(|p| p.scenario.bytes_per_param)
    }

    /// Sets the training state's convention in every figure that holds a training state.
    pub fn set_bytes_per_param(&self, bytes: BytesPerParam) {
        fn set<P: HasScenario + Send + Sync + 'static>(params: RwSignal<P>, bytes: BytesPerParam) {
            params.update(|p| p.scenario_mut().bytes_per_param = bytes);
        }
        set(self.why, bytes);
        set(self.dp, bytes);
        set(self.zero, bytes);
        set(self.tp, bytes);
        set(self.pp, bytes);
        set(self.three_d, bytes);
        set(self.planner, bytes);
        set(self.bubble, bytes);
    }

    /// One figure's parameters as URL pairs (a tracked read).
    pub fn pairs(&self, id: FigureId) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        match id {
            FigureId::Why => self.why.with(|p| p.write(&mut pairs)),
            FigureId::Dp => self.dp.with(|p| p.write(&mut pairs)),
            FigureId::Zero => self.zero.with(|p| p.write(&mut pairs)),
            FigureId::Tp => self.tp.with(|p| p.write(&mut pairs)),
            FigureId::Pp => self.pp.with(|p| p.write(&mut pairs)),
            FigureId::ThreeD => self.three_d.with(|p| p.write(&mut pairs)),
            FigureId::Planner => self.planner.with(|p| p.write(&mut pairs)),
            FigureId::Bubble => self.bubble.with(|p| bubble::write_params(p, &mut pairs)),
            FigureId::Checkpoint => self.checkpoint.with(|p| p.write(&mut pairs)),
        }
        pairs
    }

    /// The figure itself: controls, diagram, readouts and "In words", its
    /// controls' ids scoped by its slug.
    pub fn view(&self, id: FigureId) -> AnyView {
        crate::widgets::scoped(id.slug(), move || self.unscoped_view(id)).into_any()
    }

    fn unscoped_view(&self, id: FigureId) -> AnyView {
        match id {
            FigureId::Why => view! { <why::WhyFigure params=self.why/> }.into_any(),
            FigureId::Dp => view! { <data_parallel::DpFigure params=self.dp/> }.into_any(),
            FigureId::Zero => view! { <zero::ZeroFigure params=self.zero/> }.into_any(),
            FigureId::Tp => view! { <tensor_parallel::TpFigure params=self.tp/> }.into_any(),
            FigureId::Pp => view! { <pipeline_parallel::PpFigure params=self.pp/> }.into_any(),
            FigureId::ThreeD => view! { <three_d::ThreeDFigure params=self.three_d/> }.into_any(),
            FigureId::Planner => view! { <planner::PlannerFigure params=self.planner/> }.into_any(),
            FigureId::Bubble => view! { <bubble::BubbleFigure params=self.bubble/> }.into_any(),
            FigureId::Checkpoint => {
                view! { <checkpoint_lab::CheckpointLab params=self.checkpoint/> }.into_any()
            }
        }
    }
}

/// The explanation under a figure in the explainer.
pub fn explanation(id: FigureId) -> AnyView {
    match id {
        FigureId::Why => view! { <why::WhyText/> }.into_any(),
        FigureId::Dp => view! { <data_parallel::DpText/> }.into_any(),
        FigureId::Zero => view! { <zero::ZeroText/> }.into_any(),
        FigureId::Tp => view! { <tensor_parallel::TpText/> }.into_any(),
        FigureId::Pp => view! { <pipeline_parallel::PpText/> }.into_any(),
        FigureId::ThreeD => view! { <three_d::ThreeDText/> }.into_any(),
        FigureId::Planner => view! { <planner::PlannerText/> }.into_any(),
        FigureId::Bubble => view! { <bubble::BubbleText/> }.into_any(),
        FigureId::Checkpoint => view! { <checkpoint_lab::LabText/> }.into_any(),
    }
}
