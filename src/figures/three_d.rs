//! How do the three splits combine? Tensor parallelism inside a node,
//! pipeline stages across nodes, data parallelism (with ZeRO) on top:
//! t × p × d GPUs.

use leptos::prelude::*;

use super::preset_choices::PresetChoices;

use super::ReadoutData;
use crate::model::memory::ZeroStage;
use crate::model::pipeline::stage_layers;
use crate::model::query::{read_choice, Notice, NumberSpec, Query};
use crate::model::scenario::Scenario;
use crate::model::three_d::{estimate, Layout};
use crate::model::units::{group_thousands, Fraction};
use crate::widgets::{InWords, ReadoutPanel, Slider, Toggle};

pub const TENSOR_DEGREES: [&str; 4] = ["1", "2", "4", "8"];
pub const PIPELINE_DEGREES: [&str; 5] = ["1", "2", "4", "8", "16"];
/// Data-parallel replicas: the slider shows 1 to 64, a URL may ask for up to 1,024.
pub const REPLICAS: NumberSpec = NumberSpec::whole("dp", 1.0, 1024.0);
pub const SLIDER_MAX: f64 = 64.0;
pub const ZERO: NumberSpec = NumberSpec::whole("zero", 0.0, 3.0);
/// Replica rows drawn before the grid summarises the rest.
pub const ROWS_DRAWN: u32 = 6;

/// A named layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub layout: Layout,
}

const fn layout(tensor: u32, pipeline: u32, data: u32, zero: ZeroStage) -> Layout {
    Layout {
        tensor,
        pipeline,
        data,
        zero,
    }
}

/// The named layouts, the explainer's default first.
pub const PRESETS: [Preset; 4] = [
    Preset {
        id: "explainer",
        label: "8 × 4 × 8",
        layout: layout(8, 4, 8, ZeroStage::One),
    },
    Preset {
        id: "course",
        label: "1,024 GPUs",
        layout: layout(8, 4, 32, ZeroStage::One),
    },
    Preset {
        id: "fsdp",
        label: "FSDP only",
        layout: layout(1, 1, 64, ZeroStage::Three),
    },
    Preset {
        id: "one-node",
        label: "One node",
        layout: layout(8, 1, 1, ZeroStage::None),
    },
];

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreeDParams {
    pub scenario: Scenario,
    pub layout: Layout,
}

impl Default for ThreeDParams {
    fn default() -> Self {
        Self {
            scenario: Scenario::default(),
            layout: PRESETS[0].layout,
        }
    }
}

impl ThreeDParams {
    /// A `preset` sets the whole layout; `tp`, `pp`, `dp` and `zero` then override its parts.
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let preset_ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
        let base = read_choice(query, "preset", &preset_ids, notices)
            .and_then(|id| PRESETS.iter().find(|p| p.id == id))
            .map_or(PRESETS[0].layout, |p| p.layout);
        let degree = |key: &str, ids: &[&str], default: u32, notices: &mut Vec<Notice>| {
            read_choice(query, key, ids, notices)
                .and_then(|t| t.parse().ok())
                .unwrap_or(default)
        };
        let layout = Layout {
            tensor: degree("tp", &TENSOR_DEGREES, base.tensor, notices),
            pipeline: degree("pp", &PIPELINE_DEGREES, base.pipeline, notices),
            data: REPLICAS.read(query, f64::from(base.data), notices) as u32,
            zero: ZeroStage::from_index(
                ZERO.read(query, f64::from(base.zero.index()), notices) as u32
            )
            .unwrap_or(base.zero),
        };
        Self {
            scenario: Scenario::from_query(query, notices),
            layout,
        }
    }

    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.scenario.write(pairs);
        let default = PRESETS[0].layout;
        let parts = [
            ("tp", self.layout.tensor, default.tensor),
            ("pp", self.layout.pipeline, default.pipeline),
            ("dp", self.layout.data, default.data),
            ("zero", self.layout.zero.index(), default.zero.index()),
        ];
        for (key, value, default) in parts {
            if value != default {
                pairs.push((key.into(), value.to_string()));
            }
        }
    }
}

/// One tensor-parallel group in the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The node that holds this group.
    pub node: u32,
}

/// Everything the `3d` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreeDData {
    /// Column headings: stage and its layers.
    pub stages: Vec<String>,
    /// Drawn replica rows (at most `ROWS_DRAWN`), each a row of cells.
    pub rows: Vec<Vec<Cell>>,
    /// Replicas not drawn.
    pub hidden_rows: u32,
    pub tensor: u32,
    pub equation: String,
    pub gpus: ReadoutData,
    pub nodes: ReadoutData,
    pub state_per_gpu: ReadoutData,
    pub bubble: ReadoutData,
    pub train_time: ReadoutData,
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &ThreeDParams) -> ThreeDData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let layout = params.layout;
    let result = estimate(
        &layout,
        scenario.params(),
        scenario.tokens,
        scenario.batch.max(1.0) as u32,
        gpu.sustained(),
        gpu.gpus_per_node,
        scenario.bytes_per_param,
    );
    let (t, p, d) = (
        layout.tensor.max(1),
        layout.pipeline.max(1),
        layout.data.max(1),
    );
    let stages = stage_layers(scenario.arch().layers, p)
        .into_iter()
        .enumerate()
        .map(|(stage, layers)| {
            format!(
                "stage {stage}, L{}–{}",
                layers.start,
                layers.end.saturating_sub(1)
            )
        })
        .collect();
    let per_node = gpu.gpus_per_node.max(1);
    let rows = (0..d.min(ROWS_DRAWN))
        .map(|replica| {
            (0..p)
                .map(|stage| Cell {
                    node: (replica * p + stage) * t / per_node,
                })
                .collect()
        })
        .collect();
    let state = result.state.total();
    let zero = if layout.zero == ZeroStage::None {
        "no ZeRO".to_string()
    } else {
        format!("{} on data parallelism", layout.zero.label())
    };
    let summary = format!(
        "{t} tensor-parallel × {p} pipeline × {d} data-parallel GPUs make {gpus} GPUs on {nodes} nodes. With {zero}, \
         each GPU holds {state} of training state. Each pipeline gets {m} micro-batches of the {batch}-sequence batch, \
         so the bubble is {bubble}, and {tokens} tokens take about {time} with ideal scaling, bubble included.",
        gpus = group_thousands(f64::from(result.gpus)),
        nodes = group_thousands(f64::from(result.nodes)),
        m = group_thousands(f64::from(result.micro_batches)),
        batch = group_thousands(scenario.batch),
        bubble = Fraction(result.bubble),
        tokens = crate::model::units::Count(scenario.tokens),
        time = result.time,
    );
    ThreeDData {
        stages,
        rows,
        hidden_rows: d.saturating_sub(ROWS_DRAWN),
        tensor: t,
        equation: format!(
            "{t} TP × {p} PP × {} DP = {} GPUs on {} nodes",
            group_thousands(f64::from(d)),
            group_thousands(f64::from(result.gpus)),
            group_thousands(f64::from(result.nodes))
        ),
        gpus: ReadoutData::new(
            "gpus",
            "GPUs",
            f64::from(result.gpus),
            group_thousands(f64::from(result.gpus)),
        ),
        nodes: ReadoutData::new(
            "nodes",
            "Nodes",
            f64::from(result.nodes),
            group_thousands(f64::from(result.nodes)),
        ),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", state),
        bubble: ReadoutData::new(
            "bubble",
            "Pipeline bubble",
            result.bubble,
            Fraction(result.bubble).to_string(),
        ),
        train_time: ReadoutData::new(
            "train-time",
            format!(
                "{} tokens take",
                crate::model::units::Count(scenario.tokens)
            ),
            result.time.value(),
            result.time.to_string(),
        ),
        summary,
    }
}

/// The `3d` figure.
#[component]
pub fn ThreeDFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<ThreeDParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    // The grid depends on the layout alone: rebuilt when it changes, not on every input.
    let grid = Memo::new(move |_| data.with(|d| (d.tensor, d.stages.clone(), d.rows.clone())));
    let options = |ids: &[&str]| {
        ids.iter()
            .map(|d| (d.to_string(), d.to_string()))
            .collect::<Vec<_>>()
    };
    let set_degree = move |apply: fn(&mut Layout, u32)| {
        Callback::new(move |id: String| {
            if let Ok(value) = id.parse::<u32>() {
                params.update(|p| apply(&mut p.layout, value));
            }
        })
    };
    let replicas = Signal::derive(move || f64::from(params.with(|p| p.layout.data)));
    let set_replicas = Callback::new(move |value: f64| {
        if let Ok(value) = REPLICAS.validate(value) {
            params.update(|p| p.layout.data = value as u32);
        }
    });
    let zero_options = ZeroStage::ALL
        .iter()
        .map(|s| (s.index().to_string(), s.label().to_string()))
        .collect();
    view! {
        <div class="figure__controls">
            <div class="control fig-3d__presets" role="group" aria-label="Presets">
                <span class="control__label">"Presets"</span>
                <div class="fig-3d__preset-buttons">
                    {PRESETS.iter().map(|preset| {
                        let layout = preset.layout;
                        view! {
                            <button
                                type="button"
                                class="button"
                                data-param="preset"
                                data-preset=preset.id
                                aria-pressed=move || params.with(|p| (p.layout == layout).to_string())
                                on:click=move |_| params.update(|p| p.layout = layout)
                            >
                                {preset.label}
                            </button>
                        }
                    }).collect_view()}
                </div>
            </div>
            <Toggle
                label="Tensor parallel"
                param="tp"
                options=options(&TENSOR_DEGREES)
                selected=Signal::derive(move || params.with(|p| p.layout.tensor.to_string()))
                on_change=set_degree(|layout, value| layout.tensor = value)
            />
            <Toggle
                label="Pipeline stages"
                param="pp"
                options=options(&PIPELINE_DEGREES)
                selected=Signal::derive(move || params.with(|p| p.layout.pipeline.to_string()))
                on_change=set_degree(|layout, value| layout.pipeline = value)
            />
            <Toggle
                label="ZeRO on data parallelism"
                param="zero"
                options=zero_options
                selected=Signal::derive(move || params.with(|p| p.layout.zero.index().to_string()))
                on_change=set_degree(|layout, value| layout.zero = ZeroStage::from_index(value).unwrap_or(layout.zero))
            />
            <Slider
                label="Data-parallel replicas"
                param="dp"
                min=REPLICAS.min
                max=Signal::derive(move || replicas.get().max(SLIDER_MAX))
                step=1.0
                value=replicas
                text=Signal::derive(move || group_thousands(replicas.get()))
                on_input=set_replicas
            />
            <PresetChoices params=params/>
        </div>
        <div class="figure__diagram fig-3d">
            <p class="fig-3d__caption">
                {move || data.with(|d| format!(
                    "Data-parallel replicas run down, pipeline stages across. Each box is one tensor-parallel group of {} GPUs, kept inside one node.",
                    d.tensor
                ))}
            </p>
            <div class="fig-3d__scroll">
                <table class="fig-3d__grid">
                    <thead>
                        <tr>
                            <th scope="col"><span class="visually-hidden">"Replica"</span></th>
                            {move || grid.with(|(_, stages, _)| stages.iter().map(|s| view! { <th scope="col">{s.clone()}</th> }).collect_view())}
                        </tr>
                    </thead>
                    <tbody>
                        {move || grid.with(|(tensor, _, rows)| {
                            let tensor = *tensor;
                            rows.iter().enumerate().map(|(replica, row)| view! {
                                <tr>
                                    <th scope="row">{format!("DP {replica}")}</th>
                                    {row.iter().map(|cell| view! {
                                        <td>
                                            <span class="fig-3d__group">
                                                <span class="fig-3d__gpus" aria-hidden="true">
                                                    {(0..tensor).map(|_| view! { <span class="fig-3d__gpu"></span> }).collect_view()}
                                                </span>
                                                <span class="fig-3d__node">{format!("node {}", cell.node)}</span>
                                            </span>
                                        </td>
                                    }).collect_view()}
                                </tr>
                            }).collect_view()
                        })}
                    </tbody>
                </table>
            </div>
            <p class="fig-3d__more">
                {move || data.with(|d| (d.hidden_rows > 0).then(|| format!("… and {} more replicas like these", group_thousands(f64::from(d.hidden_rows)))))}
            </p>
            <p class="fig-3d__equation">{move || data.with(|d| d.equation.clone())}</p>
            <p class="fig-3d__note">"Days assume the GPU's sustained rate and ignore communication."</p>
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.gpus.clone(), |d| d.nodes.clone(), |d| d.state_per_gpu.clone(), |d| d.bubble.clone(), |d| d.train_time.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
    }
}

/// The explanation under the figure, in our own words.
#[component]
pub fn ThreeDText() -> impl IntoView {
    view! {
        <p>
            "Real runs use all three splits at once, each where it fits best. Tensor parallelism talks in every "
            "layer, so it stays inside a node, on NVLink. Pipeline parallelism only passes activations between "
            "neighbouring stages, so it can cross nodes. Data parallelism, usually with ZeRO, talks once a step "
            "and hides that behind the backward pass, so it spans the rest of the cluster. Narayanan and "
            "colleagues give this recipe in their Megatron-LM paper and used it to train a trillion-parameter "
            "model on 3,072 GPUs. The GPU count is the product of the three degrees."
        </p>
        <p>
            "The three interact. At a fixed global batch, more data-parallel replicas leave fewer sequences for "
            "each pipeline, hence fewer micro-batches and a bigger bubble, so growing the cluster slowly erodes "
            "its own efficiency. Try the presets, then push the replicas up and watch the bubble."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_reproduce_the_seed() {
        let d = data(&ThreeDParams::default());
        assert_eq!((d.gpus.text.as_str(), d.nodes.text.as_str()), ("256", "32"));
        assert_eq!(d.state_per_gpu.text, "1.16 GB");
        assert_eq!(d.bubble.text, "2.3%");
        assert_eq!(d.train_time.text, "25 days");
        assert_eq!(
            d.stages,
            [
                "stage 0, L0–7",
                "stage 1, L8–15",
                "stage 2, L16–23",
                "stage 3, L24–31"
            ]
        );
        assert_eq!(d.rows.len(), 6);
        assert_eq!(d.hidden_rows, 2);
        assert_eq!(d.rows[1][2].node, 6);
    }

    #[test]
    fn the_course_layout_is_1024_gpus() {
        let d = data(&ThreeDParams {
            layout: PRESETS[1].layout,
            ..ThreeDParams::default()
        });
        assert_eq!((d.gpus.value, d.nodes.value), (1024.0, 128.0));
        assert_eq!(d.bubble.text, "8.6%");
        assert_eq!(d.train_time.text, "7 days");
    }

    #[test]
    fn a_preset_then_overrides_from_the_url() {
        let mut notices = Vec::new();
        let params =
            ThreeDParams::from_query(&Query::parse("preset=fsdp&dp=128&tp=3"), &mut notices);
        assert_eq!(
            params.layout,
            Layout {
                data: 128,
                ..PRESETS[2].layout
            }
        );
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].key, "tp");
    }
}
