//! A figure's parameters, declared once. Each entry of a figure's table
//! gives a URL key, its range or its choices, its label and help, the
//! control that sets it, and how it is read from and written to the
//! figure's parameters. From the table alone, generic code here reads the
//! URL (with a plain-language notice for each bad value), writes it back,
//! renders the controls and documents the keys (the embed page, the README).

use leptos::prelude::*;

use super::cells::Cells;
use super::figure::Params;
use crate::model::choice::Choice;
use crate::model::query::{read_choice, Notice, NumberSpec, Pairs, Query};
use crate::model::units::group_thousands;
use crate::widgets::{is_tied, use_tie, Buttons, NumberInput, Select, Slider, Toggle};

/// An option of a choice: (id in the URL, label).
pub type Opt = (&'static str, &'static str);

/// Where each preset's numbers come from: (id, source).
pub type Sources = fn() -> Vec<(&'static str, &'static str)>;

/// A top that depends on the other parameters, and what sets it.
pub type Limit<P> = (fn(&P) -> f64, &'static str);

/// How a parameter's value is kept.
pub enum Value<P: 'static> {
    /// A number read with `spec`'s range; `limit` lowers its top from the
    /// parameters read so far (the lab's interval is at most its layers),
    /// with what lowered it, said when a value is refused.
    Number {
        spec: NumberSpec,
        get: fn(&P) -> f64,
        set: fn(&mut P, f64),
        limit: Option<Limit<P>>,
    },
    /// One of a fixed set of ids.
    Choice {
        options: fn() -> Vec<Opt>,
        get: fn(&P) -> &'static str,
        set: fn(&mut P, &str),
    },
}

/// The control that sets a parameter.
pub enum Control<P: 'static> {
    /// Only in the URL.
    Hidden,
    /// A range input from `min` to `max(params)` (the URL may go beyond the
    /// slider's end; the slider then widens to show the value), with its
    /// value written by `text`.
    Slider {
        min: f64,
        max: fn(&P) -> f64,
        step: f64,
        text: fn(f64) -> String,
    },
    /// A range input on a log scale over the key's whole range, with tick
    /// marks at `ticks` (values the prose names): for a quantity that spans
    /// decades, such as training tokens from 1B to 1,000T.
    LogSlider {
        text: fn(f64) -> String,
        ticks: &'static [f64],
    },
    /// A box for a number written the way people write them (`70B`);
    /// `beside` when it sits beside another control of the same key (a
    /// slider whose range it goes beyond), with an id of its own.
    TextBox { beside: bool },
    /// Segmented buttons (native radios).
    Toggle,
    /// A drop-down list; `sources` gives where a preset's numbers come from.
    Select { sources: Option<Sources> },
    /// A row of buttons, each applying an option (presets); it is pressed
    /// when the parameters are what the option sets.
    Buttons,
}

/// One parameter of a figure.
pub struct Param<P: 'static> {
    pub key: &'static str,
    /// The control's label, its accessible name.
    pub label: &'static str,
    /// One sentence for the embed page and the README's table of keys,
    /// which are generated natively (`tests/docs.rs`): not in the bundle.
    #[cfg(not(target_arch = "wasm32"))]
    pub help: &'static str,
    pub value: Value<P>,
    pub control: Control<P>,
    /// Whether the control shows for these parameters (the interleaved schedule's chunks).
    pub shown: Option<fn(&P) -> bool>,
    /// Read and written with the shared scenario (`model/scenario.rs`); the
    /// entry places its control and documents nothing of its own.
    pub shared: bool,
    /// One of the assumptions (model, GPU, share of peak, FLOP count) that
    /// an explainer figure keeps under its "Assumptions" disclosure, and
    /// that the full page carries from figure to figure.
    pub assumed: bool,
    /// Whether the URL carries it (a preset is read, but the values it sets are what is written).
    pub written: bool,
}

// Tables hold only fn pointers and static text: copies are free, whatever `P` is.
impl<P> Clone for Value<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for Value<P> {}
impl<P> Clone for Control<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for Control<P> {}
impl<P> Clone for Param<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for Param<P> {}

impl<P> Param<P> {
    /// A number with `spec`'s key and range, only in the URL until a control is given.
    pub const fn number(
        label: &'static str,
        spec: NumberSpec,
        get: fn(&P) -> f64,
        set: fn(&mut P, f64),
    ) -> Self {
        Self {
            key: spec.key,
            label,
            #[cfg(not(target_arch = "wasm32"))]
            help: "",
            value: Value::Number {
                spec,
                get,
                set,
                limit: None,
            },
            control: Control::Hidden,
            shown: None,
            shared: false,
            assumed: false,
            written: true,
        }
    }

    /// One of `options`, only in the URL until a control is given.
    pub const fn choice(
        key: &'static str,
        label: &'static str,
        options: fn() -> Vec<Opt>,
        get: fn(&P) -> &'static str,
        set: fn(&mut P, &str),
    ) -> Self {
        Self {
            key,
            label,
            #[cfg(not(target_arch = "wasm32"))]
            help: "",
            value: Value::Choice { options, get, set },
            control: Control::Hidden,
            shown: None,
            shared: false,
            assumed: false,
            written: true,
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub const fn help(mut self, help: &'static str) -> Self {
        self.help = help;
        self
    }

    /// The help sentence is the docs' alone: the bundle drops it.
    #[cfg(target_arch = "wasm32")]
    pub const fn help(self, _help: &'static str) -> Self {
        self
    }

    pub const fn slider(
        mut self,
        min: f64,
        max: fn(&P) -> f64,
        step: f64,
        text: fn(f64) -> String,
    ) -> Self {
        self.control = Control::Slider {
            min,
            max,
            step,
            text,
        };
        self
    }

    /// A log-scale slider over the key's whole range, ticked at `ticks`.
    pub const fn log_slider(mut self, text: fn(f64) -> String, ticks: &'static [f64]) -> Self {
        self.control = Control::LogSlider { text, ticks };
        self
    }

    pub const fn text_box(mut self) -> Self {
        self.control = Control::TextBox { beside: false };
        self
    }

    /// A text box beside the key's slider, for values beyond its range.
    pub const fn text_box_beside(mut self) -> Self {
        self.control = Control::TextBox { beside: true };
        self
    }

    pub const fn toggle(mut self) -> Self {
        self.control = Control::Toggle;
        self
    }

    pub const fn select(mut self, sources: Option<Sources>) -> Self {
        self.control = Control::Select { sources };
        self
    }

    pub const fn buttons(mut self) -> Self {
        self.control = Control::Buttons;
        self
    }

    pub const fn shown_when(mut self, shown: fn(&P) -> bool) -> Self {
        self.shown = Some(shown);
        self
    }

    pub const fn limited_by(mut self, limit: fn(&P) -> f64, why: &'static str) -> Self {
        if let Value::Number { spec, get, set, .. } = self.value {
            self.value = Value::Number {
                spec,
                get,
                set,
                limit: Some((limit, why)),
            };
        }
        self
    }

    pub const fn shared(mut self) -> Self {
        self.shared = true;
        self
    }

    /// Under the figure's "Assumptions" disclosure, carried to the other figures that assume it.
    pub const fn assumed(mut self) -> Self {
        self.assumed = true;
        self
    }

    pub const fn not_written(mut self) -> Self {
        self.written = false;
        self
    }

    /// The number's range for these parameters (its limit applied).
    fn range(spec: NumberSpec, limit: Option<Limit<P>>, params: &P) -> NumberSpec {
        match limit {
            Some((limit, why)) if limit(params) < spec.max => NumberSpec {
                max: limit(params),
                lowered_by: Some(why),
                ..spec
            },
            _ => spec,
        }
    }
}

/// Sets `field` to the option with this id, if there is one.
pub fn set_option<C: Choice>(field: &mut C, id: &str) {
    if let Some(option) = C::from_id(id) {
        *field = option;
    }
}

/// The id of `value` among numeric ids (`"1"`, `"2"`, `"4"`, `"8"`): choices between numbers.
pub fn number_id(ids: &'static [&'static str], value: u32) -> &'static str {
    ids.iter()
        .copied()
        .find(|id| id.parse() == Ok(value))
        .unwrap_or(ids[0])
}

/// Numeric ids as options labelled by themselves.
pub fn plain_options(ids: &'static [&'static str]) -> Vec<Opt> {
    ids.iter().map(|&id| (id, id)).collect()
}

/// A whole number as a slider shows it: `1,024`.
pub fn whole(value: f64) -> String {
    group_thousands(value)
}

/// Reads the table's own keys (not the shared ones) from `query` into
/// `params`, noting every bad value; keys the query lacks keep `params`' values.
pub fn read<P>(table: &[Param<P>], mut params: P, query: &Query, notices: &mut Vec<Notice>) -> P {
    for param in table.iter().filter(|p| !p.shared) {
        match param.value {
            Value::Number {
                spec,
                get,
                set,
                limit,
            } => {
                let spec = Param::range(spec, limit, &params);
                if let Some(value) = spec.read_optional(query, get(&params), notices) {
                    set(&mut params, value);
                }
                if let Some(Err((used, reason))) =
                    (get(&params) > spec.max).then(|| spec.validate(get(&params)))
                {
                    // A default past what the link's other values allow
                    // (8 GPUs for a batch of 3 sequences), kept or fallen
                    // back to from a bad value, is brought down, and the
                    // reader told why; only a top is checked (the planner's
                    // `step-mfu` is 0 while unset, below its range).
                    notices.push(Notice {
                        key: spec.key.to_string(),
                        message: format!(
                            "{}: the default, {}, {reason}, so {} is used.",
                            spec.key,
                            spec.show(get(&params)),
                            spec.show(used)
                        ),
                    });
                    set(&mut params, used);
                }
            }
            Value::Choice { options, set, .. } => {
                let ids: Vec<&str> = options().iter().map(|o| o.0).collect();
                if let Some(id) = read_choice(query, param.key, &ids, notices) {
                    set(&mut params, id);
                }
            }
        }
    }
    params
}

/// Appends the table's own keys whose values differ from `defaults`.
pub fn write<P>(table: &[Param<P>], params: &P, defaults: &P, pairs: &mut Pairs) {
    for param in table.iter().filter(|p| !p.shared && p.written) {
        let value = match param.value {
            Value::Number { spec, get, .. } => {
                (get(params) != get(defaults)).then(|| spec.url_text(get(params)))
            }
            Value::Choice { get, .. } => {
                (get(params) != get(defaults)).then(|| get(params).to_string())
            }
        };
        if let Some(value) = value {
            pairs.push((param.key.to_string(), value));
        }
    }
}

/// An assumption's value as its control sets it: a number, or an option's id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Assumed {
    Number(f64),
    Choice(&'static str),
}

/// The values of the table's assumptions (`Param::assumed`), by key.
pub fn assumptions<P>(table: &[Param<P>], params: &P) -> Vec<(&'static str, Assumed)> {
    table
        .iter()
        .filter(|param| param.assumed)
        .map(|param| {
            let value = match param.value {
                Value::Number { get, .. } => Assumed::Number(get(params)),
                Value::Choice { get, .. } => Assumed::Choice(get(params)),
            };
            (param.key, value)
        })
        .collect()
}

/// Sets the assumption `key` to `value` as its control would (a number
/// outside its range is left alone), where the table assumes that key;
/// returns whether the parameters changed.
pub fn assume<P>(table: &[Param<P>], params: &mut P, key: &str, value: Assumed) -> bool {
    let Some(param) = table.iter().find(|p| p.assumed && p.key == key) else {
        return false;
    };
    match (param.value, value) {
        (
            Value::Number {
                spec,
                get,
                set,
                limit,
            },
            Assumed::Number(v),
        ) => {
            let fits = Param::range(spec, limit, params).check(v).is_ok();
            let changed = fits && get(params) != v;
            if changed {
                set(params, v);
            }
            changed
        }
        (Value::Choice { get, set, .. }, Assumed::Choice(id)) => {
            let changed = get(params) != id;
            if changed {
                set(params, id);
            }
            changed
        }
        _ => false,
    }
}

/// A key as the embed page and the README document it.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug, PartialEq)]
pub struct KeyDoc {
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    /// Its values and default, in words: "1 to 64 (default 8)", "`gpipe` (default), `1f1b`".
    pub values: String,
    /// A shared key (every figure reads it) that this figure has a control for.
    pub shared: bool,
}

#[cfg(not(target_arch = "wasm32"))]
/// Documents the table's keys, with the defaults of `defaults`.
pub fn docs<P>(table: &[Param<P>], defaults: &P) -> Vec<KeyDoc> {
    table
        .iter()
        .map(|param| KeyDoc {
            shared: param.shared,
            key: param.key,
            label: param.label,
            help: param.help,
            values: match param.value {
                Value::Number { spec, get, .. } => {
                    // A default below the range stands for "not given" (the planner's `step-mfu`).
                    let default = get(defaults);
                    format!(
                        "{} to {} (default {})",
                        spec.show(spec.min),
                        spec.show(spec.max),
                        if default < spec.min {
                            "none".to_string()
                        } else {
                            spec.show(default)
                        }
                    )
                }
                Value::Choice { options, get, .. } => {
                    let default = get(defaults);
                    let ids: Vec<String> = options()
                        .iter()
                        .map(|&(id, _)| {
                            if id == default {
                                format!("`{id}` (default)")
                            } else {
                                format!("`{id}`")
                            }
                        })
                        .collect();
                    ids.join(", ")
                }
            },
        })
        .collect()
}

/// A slider as a number in the prose that drives it is written at build
/// time: its label, its range and value at the defaults, and the value as
/// the slider writes it.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug, PartialEq)]
pub struct SliderDoc {
    pub label: &'static str,
    pub min: f64,
    pub max: f64,
    pub value: f64,
    pub text: String,
}

/// The slider of `key` in the table, at `defaults`; `None` when the key has another control.
#[cfg(not(target_arch = "wasm32"))]
pub fn slider_doc<P>(table: &[Param<P>], defaults: &P, key: &str) -> Option<SliderDoc> {
    let param = table.iter().find(|p| p.key == key)?;
    let (Value::Number { spec, get, .. }, control) = (param.value, param.control) else {
        return None;
    };
    let value = get(defaults);
    let (label, shown) = (param.label, |text: fn(f64) -> String| text(value));
    match control {
        Control::Slider {
            min, max, text: t, ..
        } => Some(SliderDoc {
            label,
            min,
            max: max(defaults).max(value),
            value,
            text: shown(t),
        }),
        // Its positions are log10 of the value, as the range input's are.
        Control::LogSlider { text: t, .. } => Some(SliderDoc {
            label,
            min: spec.min.log10(),
            max: spec.max.log10(),
            value: value.log10(),
            text: shown(t),
        }),
        _ => None,
    }
}

/// A control with its figure's parameter type erased: what the widgets
/// need. The code that knows `P` makes these (a few closures a parameter);
/// the views are built once for all figures, in [`render`].
pub struct Erased {
    pub label: &'static str,
    pub key: &'static str,
    /// Whether it sits under the "Assumptions" disclosure.
    pub assumed: bool,
    /// Whether it shows, when that depends on the parameters.
    pub shown: Option<Signal<bool>>,
    pub kind: ErasedKind,
}

#[derive(Clone)]
pub enum ErasedKind {
    Slider {
        min: Signal<f64>,
        max: Signal<f64>,
        step: Signal<f64>,
        value: Signal<f64>,
        text: Signal<String>,
        on_input: Callback<f64>,
        /// Positions with a tick mark.
        ticks: Vec<f64>,
    },
    TextBox {
        text: Signal<String>,
        /// Whether a value typed so far is refused, with the reason, said as the reader types.
        check: Callback<f64, Result<(), String>>,
        on_change: Callback<f64, Result<(), String>>,
        beside: bool,
    },
    Toggle {
        options: Vec<Opt>,
        selected: Signal<String>,
        on_change: Callback<String>,
    },
    Select {
        options: Vec<Opt>,
        sources: Vec<(&'static str, &'static str)>,
        selected: Signal<String>,
        on_change: Callback<String>,
    },
    Buttons {
        options: Vec<Opt>,
        selected: Signal<String>,
        on_change: Callback<String>,
    },
}

/// Every control of the table, in its order, wired to `params`.
pub fn erase<P: Params>(table: &'static [Param<P>], params: Cells<P>) -> Vec<Erased> {
    table
        .iter()
        .filter(|param| !matches!(param.control, Control::Hidden))
        .map(|param| Erased {
            label: param.label,
            key: param.key,
            assumed: param.assumed,
            shown: param
                .shown
                .map(|shown| Signal::derive(move || params.with(shown))),
            kind: erase_one(param, params),
        })
        .collect()
}

/// The part of a control that knows the figure's type: how its value is
/// read and set. The rest is built by [`number_control`] and
/// [`choice_control`], once for every figure.
fn erase_one<P: Params>(param: &'static Param<P>, params: Cells<P>) -> ErasedKind {
    match (param.value, param.control) {
        (
            Value::Number {
                spec,
                get,
                set,
                limit,
            },
            control,
        ) => {
            let value = Signal::derive(move || params.with(get));
            let check = Callback::new(move |v: f64| {
                params
                    .with_untracked(|p| Param::range(spec, limit, p))
                    .check(v)
            });
            let accept = Callback::new(move |v: f64| -> Result<(), String> {
                let checked = check.run(v);
                if checked.is_ok() {
                    params.update(|p| set(p, v));
                }
                checked
            });
            let shape = match control {
                Control::Slider {
                    min,
                    max,
                    step,
                    text,
                } => NumberShape::Slider(SliderShape {
                    min,
                    max: Signal::derive(move || params.with(max)),
                    step,
                    text,
                }),
                Control::LogSlider { text, ticks } => NumberShape::LogSlider { text, ticks },
                control => NumberShape::TextBox {
                    beside: matches!(control, Control::TextBox { beside: true }),
                },
            };
            number_control(spec, value, check, accept, shape)
        }
        (Value::Choice { options, get, set }, control) => {
            let selected = Signal::derive(move || params.with(get).to_string());
            let on_change = Callback::new(move |id: String| params.update(|p| set(p, &id)));
            let shape = match control {
                Control::Select { sources } => ChoiceShape::Select(sources),
                Control::Buttons => ChoiceShape::Buttons,
                _ => ChoiceShape::Toggle,
            };
            choice_control(options(), selected, on_change, shape)
        }
    }
}

/// A slider's shape, its top read from the parameters.
struct SliderShape {
    min: f64,
    max: Signal<f64>,
    step: f64,
    text: fn(f64) -> String,
}

enum NumberShape {
    Slider(SliderShape),
    LogSlider {
        text: fn(f64) -> String,
        ticks: &'static [f64],
    },
    TextBox {
        beside: bool,
    },
}

enum ChoiceShape {
    Select(Option<Sources>),
    Buttons,
    Toggle,
}

/// A number's control: `check` checks a value against the key's range,
/// `accept` checks it and sets it.
fn number_control(
    spec: NumberSpec,
    value: Signal<f64>,
    check: Callback<f64, Result<(), String>>,
    accept: Callback<f64, Result<(), String>>,
    shape: NumberShape,
) -> ErasedKind {
    match shape {
        NumberShape::Slider(SliderShape {
            min,
            max,
            step,
            text,
        }) => ErasedKind::Slider {
            min: Signal::stored(min),
            max: Signal::derive(move || max.get().max(value.get())),
            step: Signal::stored(step),
            value,
            text: Signal::derive(move || text(value.get())),
            on_input: Callback::new(move |v| _ = accept.run(v)),
            ticks: Vec::new(),
        },
        NumberShape::LogSlider { text, ticks } => log_slider(spec, value, text, accept, ticks),
        NumberShape::TextBox { beside } => ErasedKind::TextBox {
            text: Signal::derive(move || spec.box_text(value.get())),
            // Not a value too small while it is typed: "1" may yet become "15T".
            check: Callback::new(move |v| if v < spec.min { Ok(()) } else { check.run(v) }),
            on_change: accept,
            beside,
        },
    }
}

fn choice_control(
    options: Vec<Opt>,
    selected: Signal<String>,
    on_change: Callback<String>,
    shape: ChoiceShape,
) -> ErasedKind {
    match shape {
        ChoiceShape::Select(sources) => ErasedKind::Select {
            options,
            sources: sources.map(|s| s()).unwrap_or_default(),
            selected,
            on_change,
        },
        ChoiceShape::Buttons => ErasedKind::Buttons {
            options,
            selected,
            on_change,
        },
        ChoiceShape::Toggle => ErasedKind::Toggle {
            options,
            selected,
            on_change,
        },
    }
}

/// Positions a log-scale slider has a decade: 100 (steps of 2.3%).
const LOG_STEPS_PER_DECADE: f64 = 100.0;

/// A slider whose positions are log10 of the value, over `spec`'s whole
/// range, each position's value rounded to three significant figures. A
/// position that rounds back to the value it left (the thumb snapped to the
/// step grid from 2T, which is between two positions) goes one position
/// further the same way, so that every step moves the value.
fn log_slider(
    spec: NumberSpec,
    value: Signal<f64>,
    text: fn(f64) -> String,
    accept: Callback<f64, Result<(), String>>,
    ticks: &'static [f64],
) -> ErasedKind {
    let step = 1.0 / LOG_STEPS_PER_DECADE;
    ErasedKind::Slider {
        min: Signal::stored(spec.min.log10()),
        max: Signal::stored(spec.max.log10()),
        step: Signal::stored(step),
        value: Signal::derive(move || value.get().log10()),
        text: Signal::derive(move || text(value.get())),
        on_input: Callback::new(move |position: f64| {
            let current = value.get_untracked();
            let mut chosen = three_figures(10f64.powf(position));
            if chosen == current {
                let onward = position + (position - current.log10()).signum() * step;
                chosen = three_figures(10f64.powf(onward));
            }
            _ = accept.run(chosen.clamp(spec.min, spec.max));
        }),
        ticks: ticks.iter().map(|tick| tick.log10()).collect(),
    }
}

/// `x` rounded to three significant figures (15.6T, not 15.5596T).
fn three_figures(x: f64) -> f64 {
    let scale = 10f64.powi(x.abs().log10().floor() as i32 - 2);
    (x / scale).round() * scale
}

/// One control's view.
fn build(label: &'static str, param: &'static str, kind: ErasedKind) -> AnyView {
    match kind {
        ErasedKind::Slider { min, max, step, value, text, on_input, ticks } => {
            view! { <Slider label=label param=param min=min max=max step=step value=value text=text on_input=on_input ticks=ticks/> }.into_any()
        }
        ErasedKind::TextBox { text, check, on_change, beside } => {
            view! { <NumberInput label=label param=param text=text check=check on_change=on_change beside=beside/> }.into_any()
        }
        ErasedKind::Toggle { options, selected, on_change } => {
            view! { <Toggle label=label param=param options=options selected=selected on_change=on_change/> }.into_any()
        }
        ErasedKind::Select { options, sources, selected, on_change } => {
            view! { <Select label=label param=param options=options sources=sources selected=selected on_change=on_change/> }.into_any()
        }
        ErasedKind::Buttons { options, selected, on_change } => {
            view! { <Buttons label=label param=param options=options selected=selected on_change=on_change/> }.into_any()
        }
    }
}

/// The controls' views, in order; one that depends on the parameters is
/// there only while it applies. The assumptions follow the figure's own
/// controls, under a disclosure whose summary states their values while it
/// is closed (open, the controls show them, and a drag rewrites one text).
pub fn render(controls: Vec<Erased>) -> AnyView {
    let (assumed, own): (Vec<Erased>, Vec<Erased>) =
        controls.into_iter().partition(|control| control.assumed);
    if assumed.is_empty() {
        return views(own);
    }
    let values: Vec<_> = assumed.iter().map(value_in_words).collect();
    let open = RwSignal::new(false);
    let line = move || {
        (!open.get()).then(|| {
            // Each value kept on one line (no-break spaces): a phone breaks the line between them.
            let shown: Vec<String> = values
                .iter()
                .filter_map(|value| value().map(|v| v.replace(' ', "\u{a0}")))
                .collect();
            format!(": {}", shown.join(", "))
        })
    };
    let toggled = move |event: leptos::ev::Event| {
        let details = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok());
        open.set(details.is_some_and(|d| d.has_attribute("open")));
    };
    view! {
        {views(own)}
        <details class="assumptions" on:toggle=toggled>
            <summary class="assumptions__summary">
                <span class="assumptions__title">"Assumptions"</span>
                <span class="assumptions__values">{line}</span>
            </summary>
            <div class="assumptions__controls">{views(assumed)}</div>
        </details>
    }
    .into_any()
}

/// How a control's value reads in the assumptions' line: a list's option
/// as it is named, a toggle's with its label, a slider's as it writes it.
fn value_in_words(control: &Erased) -> impl Fn() -> Option<String> + Send + Sync + 'static {
    let label = control.label;
    let shown = control.shown;
    let kind = control.kind.clone();
    let named = |options: &[Opt], id: &str| {
        options
            .iter()
            .find(|(option, _)| *option == id)
            .map_or_else(|| id.to_string(), |(_, name)| name.to_string())
    };
    move || {
        if shown.is_some_and(|shown| !shown.get()) {
            return None;
        }
        Some(match &kind {
            ErasedKind::Slider { text, .. } | ErasedKind::TextBox { text, .. } => text.get(),
            ErasedKind::Select {
                options, selected, ..
            }
            | ErasedKind::Buttons {
                options, selected, ..
            } => selected.with(|id| named(options, id)),
            ErasedKind::Toggle {
                options, selected, ..
            } => {
                format!("{label} {}", selected.with(|id| named(options, id)))
            }
        })
    }
}

/// The views of `controls`, each lit while its symbol is pointed at.
fn views(controls: Vec<Erased>) -> AnyView {
    let tie = use_tie();
    controls
        .into_iter()
        .map(|Erased { label, key, shown, kind, .. }| {
            let control = match shown {
                Some(shown) => view! { <Show when=move || shown.get()>{build(label, key, kind.clone())}</Show> }.into_any(),
                None => build(label, key, kind),
            };
            view! {
                <div class="control-tie" class:tied=move || tie.with(|t| is_tied(t, key))>{control}</div>
            }
        })
        .collect_view()
        .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::data_parallel::DpParams;
    use crate::figures::pipeline_parallel::PpParams;

    /// The assumptions, in the order the disclosure lists them: the
    /// model, the GPU, the share of peak, the software (issue 51) and the
    /// FLOP count (dp has all five).
    #[test]
    fn a_figure_lists_its_assumptions_in_its_tables_order() {
        let keys: Vec<&str> = assumptions(DpParams::TABLE, &DpParams::default())
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        assert_eq!(keys, ["model", "gpu", "busy-util", "software", "flop"]);
        let pp = assumptions(PpParams::TABLE, &PpParams::default());
        assert_eq!(pp, [("model", Assumed::Choice("llama2-7b"))]);
    }

    #[test]
    fn an_assumption_is_taken_only_where_it_is_assumed_and_in_range() {
        let mut dp = DpParams::default();
        assert!(assume(
            DpParams::TABLE,
            &mut dp,
            "gpu",
            Assumed::Choice("h100-sxm")
        ));
        assert_eq!(dp.scenario.gpu.id, "h100-sxm");
        // The same value again changes nothing, so carrying it on stops.
        assert!(!assume(
            DpParams::TABLE,
            &mut dp,
            "gpu",
            Assumed::Choice("h100-sxm")
        ));
        // The share of peak is 0.01 to 1 (model/scenario.rs BUSY): 1.5 is refused.
        assert!(!assume(
            DpParams::TABLE,
            &mut dp,
            "busy-util",
            Assumed::Number(1.5)
        ));
        assert!(assume(
            DpParams::TABLE,
            &mut dp,
            "busy-util",
            Assumed::Number(0.4)
        ));
        assert_eq!(dp.scenario.rate().busy, 0.4);
        // A figure's own control is not an assumption: N stays dp's.
        assert!(!assume(
            DpParams::TABLE,
            &mut dp,
            "gpus",
            Assumed::Number(16.0)
        ));
        // pp's numbers do not depend on the GPU, and it does not take one.
        let mut pp = PpParams::default();
        assert!(!assume(
            PpParams::TABLE,
            &mut pp,
            "gpu",
            Assumed::Choice("h100-sxm")
        ));
        assert!(assume(
            PpParams::TABLE,
            &mut pp,
            "model",
            Assumed::Choice("llama3-8b")
        ));
    }
}
