//! What a figure is to the rest of the app: a [`Figure`] value in the
//! registry (`figures/mod.rs`), made from the figure's parameter type, which
//! implements [`Params`]. The shell, the settings, the URL writer, the embed
//! page, the tests and the benchmark only ever see [`Figure`].

use std::sync::Arc;

use leptos::prelude::*;

#[cfg(not(target_arch = "wasm32"))]
use super::param::KeyDoc;
use super::param::{self, Param};
use crate::model::memory::BytesPerParam;
use crate::model::query::{Notice, Pairs, Query};
use crate::model::scenario::Scenario;
use crate::widgets::{InWords, ReadoutData, ReadoutPanel, Unit};

/// A figure's parameters: everything it needs to read the URL, compute and draw.
pub trait Params: Clone + PartialEq + Default + Send + Sync + 'static {
    /// Everything the figure draws, computed from its parameters.
    type Data: Clone + PartialEq + Send + Sync + 'static;

    /// The parameter table: keys, ranges, labels, controls.
    const TABLE: &'static [Param<Self>];

    /// Computes the figure (pure; tested natively).
    fn data(&self) -> Self::Data;

    /// Every readout of the figure, in the order the page lists them.
    fn readouts(data: &Self::Data) -> Vec<ReadoutData>;

    /// The readouts of the panel under the figure (those its diagram does not already show).
    fn panel(data: &Self::Data) -> Vec<ReadoutData> {
        Self::readouts(data)
    }

    /// The "In words" sentence.
    fn summary(data: &Self::Data) -> String;

    /// The diagram between the controls and the readouts.
    fn diagram(_params: RwSignal<Self>, _data: Memo<Self::Data>) -> AnyView {
        ().into_any()
    }

    /// What comes after "In words" (the module's "Try" questions), if anything.
    fn after(_params: RwSignal<Self>, _data: Memo<Self::Data>) -> Option<AnyView> {
        None
    }

    /// Everything under the controls: the diagram, the panel of readouts,
    /// "In words" and what comes after. A figure whose readouts depend on
    /// more than its parameters (the lab's measurements) gives its own.
    fn body(params: RwSignal<Self>, data: Memo<Self::Data>) -> AnyView {
        standard_body(
            Self::diagram(params, data),
            Memo::new(move |_| data.with(Self::panel)).into(),
            Signal::derive(move || data.with(Self::summary)),
            Self::after(params, data),
        )
    }

    /// The shared model, GPU and run, for figures whose numbers depend on them.
    fn scenario(&self) -> Option<&Scenario> {
        None
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        None
    }

    /// Reads the parameters: the shared scenario, then the table's keys.
    fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let mut params = Self::default();
        if let Some(scenario) = params.scenario_mut() {
            *scenario = Scenario::read(query, &scenario.clone(), notices);
        }
        param::read(Self::TABLE, params, query, notices)
    }

    /// Appends the keys whose values differ from the defaults.
    fn write(&self, pairs: &mut Pairs) {
        let defaults = Self::default();
        if let (Some(scenario), Some(default)) = (self.scenario(), defaults.scenario()) {
            scenario.write_against(default, pairs);
        }
        param::write(Self::TABLE, self, &defaults, pairs);
    }
}

/// The diagram, the panel of readouts, "In words" and what follows: built
/// once for every figure, not once per figure's parameter type.
fn standard_body(
    diagram: AnyView,
    panel: Signal<Vec<ReadoutData>>,
    summary: Signal<String>,
    after: Option<AnyView>,
) -> AnyView {
    view! {
        {diagram}
        <ReadoutPanel readouts=panel/>
        <InWords text=summary/>
        {after}
    }
    .into_any()
}

/// The controls above everything else.
fn frame(controls: AnyView, body: AnyView) -> AnyView {
    view! {
        <div class="figure__body">
            <div class="figure__controls">{controls}</div>
            {body}
        </div>
    }
    .into_any()
}

/// Which part of the page a figure belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The explainer's six steps.
    Explainer,
    /// The course module's planner and lab.
    Course,
}

/// What a figure module says about its figure, besides its parameters.
pub struct About {
    /// Its name in `?fig=` and `?step=`.
    pub slug: &'static str,
    pub title: &'static str,
    pub subtitle: &'static str,
    pub part: Part,
    /// A query showing it off (after `fig=<slug>&`), for the embed page.
    pub example: &'static str,
    /// The explanation under it on the full page: static HTML, written for Parallax.
    pub text: &'static str,
}

/// A figure as the registry lists it.
pub struct Figure {
    pub about: About,
    /// Reads its parameters from the URL and puts them in a signal.
    pub start: fn(&Query, &mut Vec<Notice>) -> Live,
    /// Whether it reads the shared model, GPU and run keys.
    pub shared_keys: bool,
    /// What the tests, the benchmark and the generated documentation ask of
    /// a figure without a page. Native only: in the browser nothing calls
    /// them, and a pointer to them would keep their code in the bundle.
    #[cfg(not(target_arch = "wasm32"))]
    pub native: Native,
}

/// A figure's computations without a page.
#[cfg(not(target_arch = "wasm32"))]
pub struct Native {
    /// Its readouts for a query.
    pub readouts: fn(&Query, &mut Vec<Notice>) -> Vec<ReadoutData>,
    /// Its parameters read from a query and written back (URLs round-trip).
    pub canonical: fn(&Query, &mut Vec<Notice>) -> Pairs,
    /// Its own URL keys (the shared ones are the scenario's), documented.
    pub keys: fn() -> Vec<KeyDoc>,
}

impl Figure {
    /// The registry entry of the figure whose parameters are `P`.
    pub const fn of<P: Params>(about: About, shared_keys: bool) -> Self {
        Self {
            about,
            start: start::<P>,
            shared_keys,
            #[cfg(not(target_arch = "wasm32"))]
            native: Native {
                readouts: readouts_for::<P>,
                canonical: canonical::<P>,
                keys: keys_of::<P>,
            },
        }
    }

    pub fn slug(&self) -> &'static str {
        self.about.slug
    }
}

fn start<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Live {
    Arc::new(RwSignal::new(P::from_query(query, notices)))
}

#[cfg(not(target_arch = "wasm32"))]
fn readouts_for<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Vec<ReadoutData> {
    P::readouts(&P::from_query(query, notices).data())
}

#[cfg(not(target_arch = "wasm32"))]
fn canonical<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Pairs {
    let mut pairs = Vec::new();
    P::from_query(query, notices).write(&mut pairs);
    pairs
}

#[cfg(not(target_arch = "wasm32"))]
fn keys_of<P: Params>() -> Vec<KeyDoc> {
    param::docs(P::TABLE, &P::default())
}

/// A figure on the page: its parameters, behind what the shell needs of them.
pub trait LiveFigure: Send + Sync {
    /// Its parameters as URL pairs (a tracked read).
    fn pairs(&self) -> Pairs;
    /// Controls, diagram, readouts and "In words".
    fn view(&self) -> AnyView;
    /// The training state's bytes a parameter, for figures that hold a training state (a tracked read).
    fn bytes_per_param(&self) -> Option<BytesPerParam>;
    fn set_bytes_per_param(&self, bytes: BytesPerParam);
    /// Whether any of its readouts is a byte count (the GB/GiB setting matters to it).
    fn shows_bytes(&self) -> bool;
}

pub type Live = Arc<dyn LiveFigure>;

impl<P: Params> LiveFigure for RwSignal<P> {
    fn pairs(&self) -> Pairs {
        let mut pairs = Vec::new();
        self.with(|p| p.write(&mut pairs));
        pairs
    }

    fn view(&self) -> AnyView {
        let params = *self;
        let data = Memo::new(move |_| params.with(P::data));
        let controls = param::erase(P::TABLE, params);
        frame(param::render(controls), P::body(params, data))
    }

    fn bytes_per_param(&self) -> Option<BytesPerParam> {
        self.with(|p| p.scenario().map(|s| s.bytes_per_param))
    }

    fn shows_bytes(&self) -> bool {
        self.with_untracked(|p| P::readouts(&p.data()).iter().any(|r| r.unit == Unit::Bytes))
    }

    fn set_bytes_per_param(&self, bytes: BytesPerParam) {
        if self.with_untracked(|p| p.scenario().is_some_and(|s| s.bytes_per_param != bytes)) {
            self.update(|p| {
                if let Some(scenario) = p.scenario_mut() {
                    scenario.bytes_per_param = bytes;
                }
            });
        }
    }
}
