//! What a figure is to the rest of the app: a [`Figure`] value in the
//! registry (`figures/mod.rs`), made from the figure's parameter type, which
//! implements [`Params`]. The shell, the settings, the URL writer, the embed
//! page, the tests and the benchmark only ever see [`Figure`].

use std::sync::Arc;

use leptos::prelude::*;

use super::cells::{Cell, Cells};
use super::compare;
use super::memory_bar::{MemoryBar, MemoryBarData};
use super::notation::GLOSSARY;
use super::param::{self, Assumed, Param};
#[cfg(not(target_arch = "wasm32"))]
use super::param::{KeyDoc, SliderDoc};
use crate::hooks::use_scoped_memo;
use crate::model::memory::BytesPerParam;
use crate::model::query::{Notice, Pairs, Query};
use crate::model::scenario::Scenario;
use crate::model::units::Bytes;
use crate::widgets::{rows, use_tie, Equation, Equations, InWords, Readout, ReadoutData};

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

    /// The ids of the readouts that answer the figure's questions, which a
    /// page shows only when the reader asks: the document's numbers before
    /// the app (`tests/page.rs`) leave them out.
    const ANSWERS: &'static [&'static str] = &[];

    /// The "In words" sentence.
    fn summary(data: &Self::Data) -> String;

    /// The governing equations with the current values, each ending in a readout's value.
    fn equations(_data: &Self::Data) -> Vec<Equation> {
        Vec::new()
    }

    /// The diagram between the controls and the readouts.
    fn diagram(_params: Cells<Self>, _data: Memo<Self::Data>) -> AnyView {
        ().into_any()
    }

    /// The module's "Try" questions, if any: shown under the controls,
    /// before the diagram and the readouts that answer them, so that a
    /// reader meets the question first.
    fn questions(_params: Cells<Self>, _data: Memo<Self::Data>) -> Option<AnyView> {
        None
    }

    /// Everything under the controls: the questions, the diagram, the
    /// panel of readouts, the equations and "In words". A figure whose readouts depend on
    /// more than its parameters (the lab's measurements) gives its own.
    fn body(params: Cells<Self>, data: Memo<Self::Data>) -> AnyView {
        let under = Memo::new(move |_| {
            data.with(|d| Under {
                panel: Self::panel(d),
                equations: Self::equations(d),
                summary: Self::summary(d),
            })
        });
        standard_body(
            Self::questions(params, data),
            Self::diagram(params, data),
            under,
        )
    }

    /// Whether two plans can be compared side by side (the planner and 3d).
    const COMPARE: bool = false;

    /// Whether any of its readouts is a byte count, so that the GB/GiB
    /// setting matters to it (`tests/docs.rs` checks it against the readouts).
    const SHOWS_BYTES: bool = true;

    /// The memory bar, for two plans' bars on one scale.
    fn memory(_data: &Self::Data) -> Option<MemoryBarData> {
        None
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
        self.write_against(&Self::default(), pairs);
    }

    /// Appends the keys whose values differ from `reference`'s (plan B's against plan A's).
    fn write_against(&self, reference: &Self, pairs: &mut Pairs) {
        if let (Some(scenario), Some(other)) = (self.scenario(), reference.scenario()) {
            scenario.write_against(other, pairs);
        }
        param::write(Self::TABLE, self, reference, pairs);
    }
}

/// What every figure shows under its diagram, computed from its data in
/// one memo: one type for all figures, so that the views below exist once
/// in the bundle rather than once per figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Under {
    /// The readouts of the panel.
    pub panel: Vec<ReadoutData>,
    pub equations: Vec<Equation>,
    /// "In words".
    pub summary: String,
}

/// The questions, the diagram, the panel of readouts, the equations and "In
/// words": built once for every figure, not once per figure's parameter type.
pub fn standard_body(questions: Option<AnyView>, diagram: AnyView, under: Memo<Under>) -> AnyView {
    // `quiz=0`: the author asks their own questions. Checked here, in the
    // one body every figure shares, not in each figure's own code.
    let quiz = crate::settings::use_settings().with_untracked(|s| s.quiz);
    view! {
        {questions.filter(|_| quiz)}
        {diagram}
        <div class="figure__readouts">
            {rows(under, |u| u.panel.as_slice(), |readout| view! { <Readout data=readout/> })}
        </div>
        <Equations equations=Signal::derive(move || under.with(|u| u.equations.clone())) glossary=GLOSSARY/>
        <InWords text=Signal::derive(move || under.with(|u| u.summary.clone()))/>
    }
    .into_any()
}

/// The nearest control key, readout id or equation symbol's tie at or
/// above `element`, if any.
fn tie_of(element: &web_sys::Element) -> Option<String> {
    let tied = element
        .closest("[data-tie],[data-param],[data-readout]")
        .ok()??;
    ["data-tie", "data-param", "data-readout"]
        .into_iter()
        .find_map(|name| tied.get_attribute(name))
        .map(|key| key.trim_start_matches("b.").to_string())
}

/// What the pointer or focus is on. Where the pointer rests on nothing
/// tied, the focused control in the same figure keeps its tie: a browser
/// also fires `mouseover` when the page moves under a still pointer (a
/// disclosure opening), which must not undo a keyboard's focus.
fn pointed_at(event: &web_sys::Event) -> Option<String> {
    use wasm_bindgen::JsCast;
    let element = event.target()?.dyn_into::<web_sys::Element>().ok()?;
    tie_of(&element).or_else(|| {
        let body = element.closest(".figure__body").ok()??;
        let focused = web_sys::window()?.document()?.active_element()?;
        body.contains(Some(&focused))
            .then(|| tie_of(&focused))
            .flatten()
    })
}

/// The controls above everything else; pointing at (or focusing) a
/// control, a readout or a symbol ties the three together.
fn frame(controls: AnyView, body: AnyView) -> AnyView {
    let tie = use_tie();
    let point = move |event: web_sys::Event| {
        let key = pointed_at(&event);
        if tie.with_untracked(|t| *t != key) {
            tie.set(key);
        }
    };
    view! {
        <div
            class="figure__body"
            on:mouseover=move |e| point(e.into())
            on:focusin=move |e| point(e.into())
            on:mouseleave=move |_| tie.set(None)
            on:focusout=move |_| tie.set(None)
        >
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
}

/// A figure as the registry lists it.
pub struct Figure {
    pub about: About,
    /// Reads its parameters from the URL and puts them in a signal.
    pub start: fn(&Query, &mut Vec<Notice>) -> Live,
    /// Whether it reads the shared model, GPU and run keys.
    pub shared_keys: bool,
    /// Whether any of its readouts is a byte count ([`Params::SHOWS_BYTES`]).
    pub shows_bytes: bool,
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
    /// Its equations for a query.
    pub equations: fn(&Query, &mut Vec<Notice>) -> Vec<Equation>,
    /// Its "In words" for a query (plan A's).
    pub summary: fn(&Query, &mut Vec<Notice>) -> String,
    /// The ids of the readouts that answer its questions ([`Params::ANSWERS`]).
    pub answers: &'static [&'static str],
    /// The slider of one of its keys, at the defaults (a number in the prose that drives it).
    pub slider: fn(&str) -> Option<SliderDoc>,
}

impl Figure {
    /// The registry entry of the figure whose parameters are `P`.
    pub const fn of<P: Params>(about: About, shared_keys: bool) -> Self {
        Self {
            about,
            start: start::<P>,
            shared_keys,
            shows_bytes: P::SHOWS_BYTES,
            #[cfg(not(target_arch = "wasm32"))]
            native: Native {
                readouts: readouts_for::<P>,
                canonical: canonical::<P>,
                keys: keys_of::<P>,
                equations: equations_for::<P>,
                summary: summary_for::<P>,
                answers: P::ANSWERS,
                slider: slider_of::<P>,
            },
        }
    }

    pub fn slug(&self) -> &'static str {
        self.about.slug
    }
}

/// Plan A and, when the query has `b.` keys that make a different plan (and
/// the figure compares), plan B. A plan B the same as A is no comparison:
/// the URL written for it has no `b.` keys, so reading it must not have one.
fn plans<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> (P, Option<P>) {
    if P::COMPARE && compare::has_plan_b(query) {
        let (a_query, b_query) = compare::split(query);
        let a = P::from_query(&a_query, notices);
        // B reads A's keys again: their notices once, B's own as plan B's.
        let mut own = Vec::new();
        let b = P::from_query(&b_query, &mut own);
        let fresh: Vec<Notice> = own.into_iter().filter(|n| !notices.contains(n)).collect();
        notices.extend(fresh.into_iter().map(|notice| Notice {
            message: format!("Plan B: {}", notice.message),
            ..notice
        }));
        let b = (b != a).then_some(b);
        (a, b)
    } else {
        (P::from_query(query, notices), None)
    }
}

fn start<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Live {
    let (a, b) = plans::<P>(query, notices);
    Arc::new(LiveFigure::new(
        Box::new(a),
        b.map(|b| Box::new(b) as Cell),
        P::COMPARE,
        mount::<P>,
    ))
}

/// The figure's typed part, wired to the shell's signal of its parameters:
/// the one place where the shell meets a figure's type.
///
/// The body, and plan B's part of a comparison, may be dropped and built
/// again (the figure's own body goes while two plans are compared). Each
/// reads the parameters through a relay of its own and computes its data
/// in a memo of its own (`Cells::scoped`), so nothing it read keeps a
/// reader of it once it is gone; parts inside it that come and go read it
/// through `hooks::use_scoped` in turn.
fn mount<P: Params>(cell: RwSignal<Cell>) -> Mounted {
    let params = Cells::<P>::new(cell);
    let part = move || {
        let params = params.scoped();
        (params, Memo::new(move |_| params.with(P::data)))
    };
    Mounted {
        controls: param::erase(P::TABLE, params),
        body: Arc::new(move || {
            let (params, data) = part();
            P::body(params, data)
        }),
        // Only the figures that compare carry plan B's part, and its code.
        plan_b: P::COMPARE.then(|| {
            Arc::new(move || {
                let (params, data) = part();
                PlanB {
                    diagram: Arc::new(move || P::diagram(params, data)),
                    readouts: Signal::derive(move || data.with(P::readouts)),
                    memory: Signal::derive(move || data.with(P::memory)),
                    summary: Signal::derive(move || data.with(P::summary)),
                }
            }) as Arc<dyn Fn() -> PlanB + Send + Sync>
        }),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn readouts_for<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Vec<ReadoutData> {
    let (a, b) = plans::<P>(query, notices);
    let mut all = P::readouts(&a.data());
    if let Some(b) = b {
        all.extend(
            P::readouts(&b.data())
                .into_iter()
                .map(ReadoutData::of_plan_b),
        );
    }
    all
}

#[cfg(not(target_arch = "wasm32"))]
fn equations_for<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Vec<Equation> {
    P::equations(&P::from_query(query, notices).data())
}

#[cfg(not(target_arch = "wasm32"))]
fn summary_for<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> String {
    P::summary(&P::from_query(query, notices).data())
}

#[cfg(not(target_arch = "wasm32"))]
fn canonical<P: Params>(query: &Query, notices: &mut Vec<Notice>) -> Pairs {
    match plans::<P>(query, notices) {
        (a, Some(b)) => compare::pairs(&a, &b),
        (a, None) => {
            let mut pairs = Vec::new();
            a.write(&mut pairs);
            pairs
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn keys_of<P: Params>() -> Vec<KeyDoc> {
    param::docs(P::TABLE, &P::default())
}

#[cfg(not(target_arch = "wasm32"))]
fn slider_of<P: Params>(key: &str) -> Option<SliderDoc> {
    param::slider_doc(P::TABLE, &P::default(), key)
}

/// A figure on the page: its parameters, their type erased, and its typed
/// part to draw them with. One shell for every figure.
pub struct LiveFigure {
    /// What the controls move: the only plan, or plan B.
    cell: RwSignal<Cell>,
    /// Plan A, pinned, while comparing (the figures that compare only).
    pinned: Option<RwSignal<Option<Cell>>>,
    mount: fn(RwSignal<Cell>) -> Mounted,
}

pub type Live = Arc<LiveFigure>;

/// What the shell draws of a figure, wired to its parameters.
struct Mounted {
    controls: Vec<param::Erased>,
    /// The diagram, readouts, equations and "In words" of one plan.
    body: Arc<dyn Fn() -> AnyView + Send + Sync>,
    /// What the comparison shows of plan B, made with it (the figures that compare only).
    plan_b: Option<Arc<dyn Fn() -> PlanB + Send + Sync>>,
}

struct PlanB {
    /// Its diagram (the 3D grid), which the controls move.
    diagram: Arc<dyn Fn() -> AnyView + Send + Sync>,
    readouts: Signal<Vec<ReadoutData>>,
    memory: Signal<Option<MemoryBarData>>,
    summary: Signal<String>,
}

impl LiveFigure {
    /// Plan A and, when comparing, plan B (which the controls then move).
    fn new(a: Cell, b: Option<Cell>, compares: bool, mount: fn(RwSignal<Cell>) -> Mounted) -> Self {
        let (pinned, current) = match b {
            Some(b) => (Some(a), b),
            None => (None, a),
        };
        Self {
            cell: RwSignal::new(current),
            pinned: compares.then(|| RwSignal::new(pinned)),
            mount,
        }
    }

    /// Its parameters as URL pairs (a tracked read).
    pub fn pairs(&self) -> Pairs {
        let b = self.cell;
        if let Some(pairs) = self.pinned.and_then(|pinned| {
            pinned.with(|a| {
                a.as_ref()
                    .map(|a| b.with(|b| compare::pairs(a.as_ref(), b.as_ref())))
            })
        }) {
            return pairs;
        }
        let mut pairs = Vec::new();
        b.with(|p| p.write_pairs(None, &mut pairs));
        pairs
    }

    /// Controls, diagram, readouts and "In words".
    pub fn view(&self) -> AnyView {
        let Mounted {
            controls,
            body,
            plan_b,
        } = (self.mount)(self.cell);
        let body = match self.pinned.zip(plan_b) {
            Some((pinned, plan_b)) => comparable(self.cell, pinned, body, plan_b),
            None => body(),
        };
        frame(param::render(controls), body)
    }

    /// Its assumptions' values, by key (a tracked read).
    pub fn assumptions(&self) -> Vec<(&'static str, Assumed)> {
        self.cell.with(|p| p.assumptions())
    }

    pub fn assumptions_untracked(&self) -> Vec<(&'static str, Assumed)> {
        self.cell.with_untracked(|p| p.assumptions())
    }

    /// Takes an assumption another figure changed, where this one assumes
    /// that key (plan B's, while comparing: the plan the controls move).
    /// Whether it changed.
    pub fn assume(&self, key: &str, value: Assumed) -> bool {
        let mut changed = false;
        self.cell.maybe_update(|p| {
            changed = p.assume(key, value);
            changed
        });
        changed
    }

    pub fn set_bytes_per_param(&self, bytes: BytesPerParam) {
        if self
            .cell
            .with_untracked(|p| p.bytes_per_param().is_some_and(|b| b != bytes))
        {
            self.cell.update(|p| p.set_bytes_per_param(bytes));
            if let Some(pinned) = self.pinned {
                pinned.update(|a| a.iter_mut().for_each(|a| a.set_bytes_per_param(bytes)));
            }
        }
    }
}

/// The body of a figure that compares: its own while there is one plan;
/// two plans side by side once plan A is pinned.
fn comparable(
    cell: RwSignal<Cell>,
    pinned: RwSignal<Option<Cell>>,
    own: Arc<dyn Fn() -> AnyView + Send + Sync>,
    plan_b: Arc<dyn Fn() -> PlanB + Send + Sync>,
) -> AnyView {
    let comparing = Memo::new(move |_| pinned.with(Option::is_some));
    let body = move || {
        if !comparing.get() {
            return own();
        }
        let PlanB {
            diagram,
            readouts,
            memory,
            summary,
        } = plan_b();
        let a = use_scoped_memo(move |_| pinned.with(|a| a.as_ref().map(|a| a.compared())));
        compare_body(
            diagram.clone(),
            Memo::new(move |_| {
                a.with(|a| a.as_ref().map(|a| a.readouts.clone()).unwrap_or_default())
            })
            .into(),
            readouts,
            Memo::new(move |_| {
                a.with(|a| a.as_ref().and_then(|a| a.memory.clone()))
                    .zip(memory.get())
            })
            .into(),
            summary,
        )
    };
    let toggle = Callback::new(move |()| {
        pinned.update(|pinned| {
            *pinned = match pinned {
                Some(_) => None,
                None => Some(cell.with_untracked(|c| c.clone_cell())),
            }
        })
    });
    view! { {compare_button(toggle, comparing)} {body} }.into_any()
}

/// "Compare": pins the current plan as A (the controls then move plan B),
/// or stops comparing and keeps plan B.
fn compare_button(toggle: Callback<()>, comparing: Memo<bool>) -> AnyView {
    view! {
        <div class="compare__bar">
            <button
                type="button"
                class="button"
                aria-pressed=move || comparing.get().to_string()
                on:click=move |_| toggle.run(())
            >
                {move || if comparing.get() { "Stop comparing (keep plan B)" } else { "Compare: pin this plan as A" }}
            </button>
            <span class="compare__hint" role="status">
                {move || comparing.get().then_some("Plan A is pinned; the controls change plan B.")}
            </span>
        </div>
    }
    .into_any()
}

/// Two plans: plan B's diagram, their memory bars on one scale, every readout side by side
/// with its change, and plan B in words. Built once for every figure.
fn compare_body(
    diagram: Arc<dyn Fn() -> AnyView + Send + Sync>,
    a: Signal<Vec<ReadoutData>>,
    b: Signal<Vec<ReadoutData>>,
    bars: Signal<Option<(MemoryBarData, MemoryBarData)>>,
    summary: Signal<String>,
) -> AnyView {
    let rows = Memo::new(move |_| compare::rows(a.get(), b.get()));
    let bar = move |plan_b: bool| {
        Signal::derive(move || {
            bars.with(|bars| {
                let (a, b) = bars.as_ref()?;
                let scale = a.scale.max(b.scale);
                Some(if plan_b {
                    b.on_scale(scale)
                } else {
                    a.on_scale(scale)
                })
            })
            .unwrap_or_else(|| MemoryBarData::new(&[], Bytes(1.0)))
        })
    };
    // A figure with a memory bar (the planner) pictures the two plans by
    // their bars, on one scale; one without (3d) shows plan B's diagram.
    let diagram = bars.with_untracked(Option::is_none).then(|| {
        view! {
            <p class="compare__plan">"Plan B, which the controls move"</p>
            {diagram()}
        }
    });
    view! {
        {diagram}
        {move || bars.with(Option::is_some).then(|| view! {
            <div class="compare__bars">
                <p class="compare__plan">"Plan A"</p>
                <MemoryBar data=bar(false) bare=true/>
                <p class="compare__plan">"Plan B"</p>
                <MemoryBar data=bar(true) bare=true/>
            </div>
        })}
        <CompareTable rows=rows/>
        <InWords text=Signal::derive(move || format!("{}Plan B: {}", rows.with(|r| compare::verdict(r)), summary.get()))/>
    }
    .into_any()
}

/// Every readout of plan A beside plan B's, and how B differs.
#[component]
fn CompareTable(#[prop(into)] rows: Signal<Vec<compare::Row>>) -> impl IntoView {
    let cell = |data: Signal<ReadoutData>| {
        view! {
            <td
                class="compare__value"
                data-readout=move || data.with(ReadoutData::key)
                data-value=move || data.with(|d| d.value.to_string())
                data-unit=move || data.with(|d| d.unit.name())
                data-label=move || data.with(|d| d.label.clone())
            >
                <span class="readout__value">{move || data.with(|d| d.text.clone())}</span>
            </td>
        }
    };
    view! {
        <div class="compare__scroll" tabindex="0" role="region" aria-label="Plan A beside plan B">
        <table class="compare__table">
            <thead>
                <tr><th scope="col">"Readout"</th><th scope="col">"Plan A"</th><th scope="col">"Plan B"</th><th scope="col">"B against A"</th></tr>
            </thead>
            <tbody>
                {crate::widgets::rows(rows, |r| r.as_slice(), move |row| view! {
                    <tr class=move || row.with(|r| format!("compare__row compare__row--{}", r.mark.word()))>
                        <th scope="row">{move || row.with(|r| r.a.label.clone())}</th>
                        {cell(Signal::derive(move || row.with(|r| r.a.clone())))}
                        {cell(Signal::derive(move || row.with(|r| r.b.clone())))}
                        <td class="compare__change">
                            {move || row.with(|r| if r.change.is_empty() { "same".to_string() } else if r.mark.word().is_empty() { r.change.clone() } else { format!("{}: {}", r.mark.word(), r.change) })}
                        </td>
                    </tr>
                })}
            </tbody>
        </table>
        </div>
    }
}
