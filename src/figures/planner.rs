//! Will it fit? The planner stacks one GPU's memory (weights, gradients,
//! master weights, optimizer state, activations) against its capacity for a
//! model on N GPUs with ZeRO, tensor and pipeline parallelism, reports the
//! traffic each GPU sends a step, and names the smallest change that fits.

use leptos::prelude::*;

use super::preset_choices::PresetChoices;

use super::memory_bar::{MemoryBar, MemoryBarData};
use super::ReadoutData;
use crate::model::activations::{ActivationSetup, Recompute};
use crate::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use crate::model::planner::{fixes, Fix, Plan, MAX_GPUS};
use crate::model::presets::{model_preset, model_sources, nearest_model, MODELS};
use crate::model::query::{read_choice, url_number, Notice, NumberSpec, Pairs, Query};
use crate::model::scenario::{Scenario, PARAMS, SEQ};
use crate::model::units::{group_thousands, Bytes, Count};
use crate::widgets::{Choice, InWords, NumberInput, Prediction, ReadoutPanel, Toggle};

pub const GPUS: NumberSpec = NumberSpec::whole("gpus", 1.0, MAX_GPUS as f64);
pub const STAGE: NumberSpec = NumberSpec::whole("stage", 0.0, 3.0);
pub const MICRO_BATCH: NumberSpec = NumberSpec::whole("micro-batch", 1.0, 1024.0);
pub const DEGREES: [&str; 4] = ["1", "2", "4", "8"];
pub const PIPELINE_DEGREES: [&str; 6] = ["1", "2", "4", "8", "16", "32"];
/// The module's example: a 70-billion-parameter model.
pub const DEFAULT_PARAMS: f64 = 70e9;
pub const DEFAULT_GPUS: u32 = 8;

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerParams {
    /// Model (preset or nearest to `params`), GPU and batch.
    pub scenario: Scenario,
    /// Whether the reader chose a model preset (else the architecture is the nearest preset).
    pub model_chosen: bool,
    pub gpus: u32,
    pub stage: ZeroStage,
    pub tensor: u32,
    pub pipeline: u32,
    pub micro_batch: u32,
    pub sequence_parallel: bool,
    pub recompute: Recompute,
}

impl Default for PlannerParams {
    fn default() -> Self {
        Self::from_query(&Query::default(), &mut Vec::new())
    }
}

impl PlannerParams {
    /// `params` alone picks the nearest preset's architecture; `model` gives
    /// both architecture and parameter count unless `params` is also given.
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let mut scenario = Scenario::from_query(query, notices);
        let model_chosen = query
            .get("model")
            .is_some_and(|id| model_preset(id).is_some());
        if !model_chosen {
            let params = scenario.params_override.unwrap_or(DEFAULT_PARAMS);
            scenario.model = nearest_model(params);
            scenario.params_override = Some(params);
        }
        let degree = |key: &str, ids: &[&str], notices: &mut Vec<Notice>| {
            read_choice(query, key, ids, notices)
                .and_then(|t| t.parse().ok())
                .unwrap_or(1)
        };
        let recompute_ids: Vec<&str> = Recompute::ALL.iter().map(|r| r.id()).collect();
        Self {
            model_chosen,
            gpus: GPUS.read(query, f64::from(DEFAULT_GPUS), notices) as u32,
            stage: ZeroStage::from_index(STAGE.read(query, 0.0, notices) as u32)
                .unwrap_or(ZeroStage::None),
            tensor: degree("tp", &DEGREES, notices),
            pipeline: degree("pp", &PIPELINE_DEGREES, notices),
            micro_batch: MICRO_BATCH.read(query, 1.0, notices) as u32,
            sequence_parallel: read_choice(query, "sp", &["0", "1"], notices) == Some("1"),
            recompute: read_choice(query, "recompute", &recompute_ids, notices)
                .and_then(Recompute::from_id)
                .unwrap_or(Recompute::None),
            scenario,
        }
    }

    pub fn write(&self, pairs: &mut Pairs) {
        let mut scenario = self.scenario.clone();
        if !self.model_chosen {
            // The architecture follows from `params`; write the size, not the preset.
            scenario.model = crate::model::presets::DEFAULT_MODEL;
            if scenario.params_override == Some(DEFAULT_PARAMS) {
                scenario.params_override = None;
            }
        }
        // The scenario leaves out its own default model, Llama 2 7B; here it
        // is a choice (the planner's default is the 70B example), so it is kept.
        if self.model_chosen && scenario.model.id == crate::model::presets::DEFAULT_MODEL.id {
            pairs.push(("model".to_string(), scenario.model.id.to_string()));
        }
        scenario.write(pairs);
        let mut put = |key: &str, value: String| pairs.push((key.to_string(), value));
        if self.gpus != DEFAULT_GPUS {
            put("gpus", self.gpus.to_string());
        }
        if self.stage != ZeroStage::None {
            put("stage", self.stage.index().to_string());
        }
        if self.tensor != 1 {
            put("tp", self.tensor.to_string());
        }
        if self.pipeline != 1 {
            put("pp", self.pipeline.to_string());
        }
        if self.micro_batch != 1 {
            put("micro-batch", self.micro_batch.to_string());
        }
        if self.sequence_parallel {
            put("sp", "1".into());
        }
        if self.recompute != Recompute::None {
            put("recompute", self.recompute.id().into());
        }
    }

    /// The plan the estimator evaluates.
    pub fn plan(&self) -> Plan {
        let arch = self.scenario.arch();
        let gpu = self.scenario.gpu();
        Plan {
            params: self.scenario.params(),
            arch,
            gpus: self.gpus,
            stage: self.stage,
            tensor: self.tensor,
            pipeline: self.pipeline,
            activations: ActivationSetup {
                seq: f64::from(arch.seq),
                micro_batch: f64::from(self.micro_batch),
                tensor_parallel: self.tensor,
                sequence_parallel: self.sequence_parallel,
                recompute: self.recompute,
            },
            batch: self.scenario.batch,
            capacity: gpu.memory,
            bytes: self.scenario.bytes_per_param,
        }
    }
}

/// Everything the `planner` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerData {
    /// One GPU's memory, part by part, against its capacity.
    pub memory: MemoryBarData,
    pub layout: String,
    pub state_per_gpu: ReadoutData,
    pub capacity: ReadoutData,
    pub fits: ReadoutData,
    pub traffic: ReadoutData,
    pub verdict: String,
    pub summary: String,
}

fn describe(fix: Fix, plan: &Plan) -> String {
    match fix {
        Fix::Recompute(Recompute::Selective) => "turn on selective recomputation".to_string(),
        Fix::Recompute(_) => "turn on full recomputation".to_string(),
        Fix::Stage(stage) => format!("move to {}", stage.label()),
        Fix::Gpus(gpus) => format!(
            "use {} GPUs at {}",
            group_thousands(f64::from(gpus)),
            if plan.stage == ZeroStage::None {
                "this setting".to_string()
            } else {
                plan.stage.label().to_string()
            }
        ),
    }
}

/// Computes the figure from its parameters.
pub fn data(params: &PlannerParams) -> PlannerData {
    let plan = params.plan();
    let estimate = plan.estimate();
    let state = estimate.state;
    let total = estimate.total;
    let memory = MemoryBarData::new(
        &[
            ("weights", "weights", "Weights", state.weights),
            ("gradients", "gradients", "Gradients", state.gradients),
            (
                "master",
                "master-weights",
                "Master weights",
                state.master_weights,
            ),
            (
                "optimizer",
                "optimizer-state",
                "Optimizer state (Adam)",
                state.moments,
            ),
            (
                "activations",
                "activations",
                "Activations, first stage",
                estimate.activations,
            ),
        ],
        plan.capacity,
    );
    let found = fixes(&plan);
    let verdict = if estimate.fits {
        format!(
            "Fits: {} of {}, with {} to spare.",
            total,
            plan.capacity.capacity_text(),
            Bytes(plan.capacity.value() - total.value())
        )
    } else if found.is_empty() {
        format!(
            "Does not fit: {total} against {}, and no single change is enough; combine them, or add tensor and pipeline parallelism.",
            plan.capacity.capacity_text()
        )
    } else {
        let options: Vec<String> = found.iter().map(|&f| describe(f, &plan)).collect();
        format!(
            "Does not fit: {total} against {}. The smallest change that fits: {}.",
            plan.capacity.capacity_text(),
            options.join("; or ")
        )
    };
    let group = plan.tensor.max(1) * plan.pipeline.max(1);
    let layout = format!(
        "{} GPUs = {} tensor × {} pipeline × {} data-parallel{}",
        group_thousands(f64::from(plan.gpus)),
        plan.tensor,
        plan.pipeline,
        group_thousands(f64::from(estimate.data)),
        if plan.gpus.is_multiple_of(group) {
            String::new()
        } else {
            format!("; {} GPUs left idle", plan.gpus % group)
        }
    );
    let summary = format!(
        "A {psi}-parameter model ({arch}'s shape) on {layout}. Each GPU holds {state} of training state and {acts} of \
         activations, {total} in all against its {capacity}, and sends {traffic} a step. {verdict}",
        psi = Count(plan.params),
        arch = params.scenario.model.name,
        state = state.total(),
        acts = estimate.activations,
        capacity = plan.capacity.capacity_text(),
        traffic = estimate.traffic,
    );
    PlannerData {
        memory,
        layout,
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "Training state per GPU", state.total()),
        capacity: ReadoutData {
            // As the maker states it: "80 GB", not "80.0 GB".
            text: plan.capacity.capacity_text(),
            ..ReadoutData::bytes("capacity", "GPU memory", plan.capacity)
        },
        fits: ReadoutData::new(
            "fits",
            "Fits",
            f64::from(u8::from(estimate.fits)),
            if estimate.fits { "Yes" } else { "No" },
        ),
        traffic: ReadoutData::bytes(
            "traffic-per-step",
            "Sent per GPU, per step",
            estimate.traffic,
        ),
        verdict,
        summary,
    }
}

/// The answers to the module's "Try" for this figure, computed: does 70B fit
/// in 80 GB at 8 GPUs with plain data parallelism, with ZeRO-3, and how many
/// GPUs does ZeRO-3 need (training state only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TryAnswers {
    pub plain: Bytes,
    pub zero3: Bytes,
    /// The fewest GPUs at which ZeRO-3's training state fits, and the first power of two.
    pub fewest: u32,
    pub power_of_two: u32,
}

pub fn try_answers(capacity: Bytes) -> TryAnswers {
    let state = |stage, gpus| {
        TrainingState::zero(
            DEFAULT_PARAMS,
            BytesPerParam::MIXED_PRECISION_ADAM,
            stage,
            gpus,
        )
        .total()
    };
    let fits = |gpus| state(ZeroStage::Three, gpus).value() <= capacity.value();
    let fewest = (1..=MAX_GPUS).find(|&n| fits(n)).unwrap_or(MAX_GPUS);
    TryAnswers {
        plain: state(ZeroStage::None, 8),
        zero3: state(ZeroStage::Three, 8),
        fewest,
        power_of_two: fewest.next_power_of_two(),
    }
}

/// The `planner` figure.
#[component]
pub fn PlannerFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<PlannerParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    let mut model_options = vec![("custom", "By size (nearest architecture)".to_string())];
    model_options.extend(MODELS.iter().map(|m| (m.id, m.name.to_string())));
    let set_model = Callback::new(move |id: String| {
        params.update(|p| match model_preset(&id) {
            Some(model) => {
                p.scenario.model = model;
                p.scenario.params_override = None;
                p.model_chosen = true;
            }
            None => {
                p.scenario.params_override = Some(p.scenario.params());
                p.model_chosen = false;
            }
        })
    });
    let set_params = Callback::new(move |value: f64| {
        params.update(|p| {
            p.scenario.params_override = Some(value);
            if !p.model_chosen {
                p.scenario.model = nearest_model(value);
            }
        })
    });
    let check_params = Callback::new(|value: f64| PARAMS.check(value));
    let set_gpus = Callback::new(move |value: f64| params.update(|p| p.gpus = value as u32));
    let check_gpus = Callback::new(|value: f64| GPUS.check(value));
    let check_seq = Callback::new(|value: f64| SEQ.check(value));
    let set_seq = Callback::new(move |value: f64| {
        params.update(|p| _ = p.scenario.set_arch_field("seq", value))
    });
    let check_micro = Callback::new(|value: f64| MICRO_BATCH.check(value));
    let set_micro =
        Callback::new(move |value: f64| params.update(|p| p.micro_batch = value as u32));
    let options = |ids: &[&str]| {
        ids.iter()
            .map(|d| (d.to_string(), d.to_string()))
            .collect::<Vec<_>>()
    };
    let stages = ZeroStage::ALL
        .iter()
        .map(|s| (s.index().to_string(), s.label().to_string()))
        .collect();
    let recompute = Recompute::ALL
        .iter()
        .map(|r| (r.id().to_string(), r.id().to_string()))
        .collect();
    let on_off = vec![
        ("0".to_string(), "Off".to_string()),
        ("1".to_string(), "On".to_string()),
    ];
    let set = move |apply: fn(&mut PlannerParams, &str)| {
        Callback::new(move |id: String| params.update(|p| apply(p, &id)))
    };
    let answers = Memo::new(move |_| params.with(|p| try_answers(p.scenario.gpu().memory)));
    view! {
        <div class="figure__controls">
            <NumberInput
                label="Model size (parameters)"
                param="params"
                text=Signal::derive(move || params.with(|p| url_number(p.scenario.params())))
                check=check_params
                on_change=set_params
            />
            <Choice
                label="Model"
                param="model"
                options=model_options
                sources=model_sources()
                selected=Signal::derive(move || params.with(|p| if p.model_chosen { p.scenario.model.id.to_string() } else { "custom".to_string() }))
                on_change=set_model
            />
            <NumberInput
                label="GPUs"
                param="gpus"
                text=Signal::derive(move || params.with(|p| p.gpus.to_string()))
                check=check_gpus
                on_change=set_gpus
            />
            <PresetChoices params=params model=false/>
            <Toggle label="ZeRO stage" param="stage" options=stages
                selected=Signal::derive(move || params.with(|p| p.stage.index().to_string()))
                on_change=set(|p, id| p.stage = id.parse().ok().and_then(ZeroStage::from_index).unwrap_or(p.stage))/>
            <Toggle label="Tensor parallel" param="tp" options=options(&DEGREES)
                selected=Signal::derive(move || params.with(|p| p.tensor.to_string()))
                on_change=set(|p, id| p.tensor = id.parse().unwrap_or(p.tensor))/>
            <Toggle label="Pipeline stages" param="pp" options=options(&PIPELINE_DEGREES)
                selected=Signal::derive(move || params.with(|p| p.pipeline.to_string()))
                on_change=set(|p, id| p.pipeline = id.parse().unwrap_or(p.pipeline))/>
            <NumberInput
                label="Sequence length (tokens)"
                param="seq"
                text=Signal::derive(move || params.with(|p| p.scenario.arch().seq.to_string()))
                check=check_seq
                on_change=set_seq
            />
            <NumberInput
                label="Micro-batch (sequences)"
                param="micro-batch"
                text=Signal::derive(move || params.with(|p| p.micro_batch.to_string()))
                check=check_micro
                on_change=set_micro
            />
            <Toggle label="Sequence parallelism" param="sp" options=on_off
                selected=Signal::derive(move || params.with(|p| if p.sequence_parallel { "1" } else { "0" }.to_string()))
                on_change=set(|p, id| p.sequence_parallel = id == "1")/>
            <Toggle label="Recomputation" param="recompute" options=recompute
                selected=Signal::derive(move || params.with(|p| p.recompute.id().to_string()))
                on_change=set(|p, id| p.recompute = Recompute::from_id(id).unwrap_or(p.recompute))/>
        </div>
        <div class="figure__diagram fig-planner">
            <p class="fig-planner__caption">{move || data.with(|d| d.layout.clone())}</p>
            <MemoryBar data=Memo::new(move |_| data.with(|d| d.memory.clone()))/>
            <p class="fig-planner__verdict" class:fig-planner__verdict--over=move || data.with(|d| d.fits.value == 0.0)>
                {move || data.with(|d| d.verdict.clone())}
            </p>
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.state_per_gpu.clone(), |d| d.capacity.clone(), |d| d.fits.clone(), |d| d.traffic.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
        <section class="figure__try" aria-label="Try the planner">
            <p class="figure__try-title">"Try: predict first"</p>
            <p>"A 70B model, training state only, on GPUs of the chosen size. Commit to an answer, then reveal it."</p>
            <Prediction
                id="planner-plain"
                prompt="On 8 GPUs with plain data parallelism, does each GPU's training state fit?"
                options=vec![("yes", "It fits"), ("no", "It does not fit")]
                correct=Signal::derive(move || answers.with(|a| if a.plain.value() <= params.with(|p| p.scenario.gpu().memory.value()) { "yes" } else { "no" }))
                explanation=Signal::derive(move || answers.with(|a| format!(
                    "Every GPU keeps all 16 bytes of each parameter: {}, however many GPUs there are.", a.plain
                )))
            />
            <Prediction
                id="planner-zero3"
                prompt="On the same 8 GPUs with ZeRO stage 3, does it fit?"
                options=vec![("yes", "It fits"), ("no", "It does not fit")]
                correct=Signal::derive(move || answers.with(|a| if a.zero3.value() <= params.with(|p| p.scenario.gpu().memory.value()) { "yes" } else { "no" }))
                explanation=Signal::derive(move || answers.with(|a| format!(
                    "Stage 3 divides the state by the GPU count: {} a GPU at 8 GPUs.",
                    a.zero3
                )))
            />
            <Prediction
                id="planner-count"
                prompt="In powers of two, how many GPUs does ZeRO stage 3 need before each GPU's training state fits?"
                options=vec![("8", "8"), ("16", "16"), ("64", "64"), ("never", "No number is enough")]
                correct=Signal::derive(move || answers.with(|a| match a.power_of_two {
                    8 => "8",
                    16 => "16",
                    64 => "64",
                    _ => "never",
                }))
                explanation=Signal::derive(move || answers.with(|a| format!(
                    "{} GPUs: {} each. The exact minimum is {} GPUs; activations come on top, so real runs add more GPUs or tensor and pipeline parallelism.",
                    a.power_of_two,
                    TrainingState::zero(DEFAULT_PARAMS, BytesPerParam::MIXED_PRECISION_ADAM, ZeroStage::Three, a.power_of_two).total(),
                    a.fewest
                )))
            />
        </section>
    }
}

/// The explanation under the figure.
#[component]
pub fn PlannerText() -> impl IntoView {
    view! {
        <p>
            "The planner puts the pieces of the explainer together for one GPU. The training state is the 16 bytes a "
            "parameter of the model's 1/(t·p) slice, sharded by ZeRO over the data-parallel degree d = N/(t·p). "
            "Activations follow Korthikanti and colleagues: about sbh(34 + 5as/h) bytes a layer, divided by t where "
            "tensor and sequence parallelism split them, down to sbh·34/t when the attention core is recomputed, "
            "and to 2sbh when only each layer's input is kept. The first pipeline stage is the fullest, holding p "
            "micro-batches of its layers under 1F1B."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_modules_70b_example() {
        let params = PlannerParams::default();
        assert_eq!(params.scenario.model.id, "llama2-70b");
        let d = data(&params);
        assert_eq!(d.state_per_gpu.text, "1,120 GB");
        assert_eq!(d.state_per_gpu.value, 1120e9);
        assert_eq!(d.fits.value, 0.0);
        assert!(d.verdict.contains("no single change"));
        assert_eq!(
            d.memory
                .segments
                .iter()
                .map(|s| s.readout.id)
                .collect::<Vec<_>>(),
            [
                "weights",
                "gradients",
                "master-weights",
                "optimizer-state",
                "activations"
            ]
        );
    }

    #[test]
    fn zero_3_at_8_and_16_gpus() {
        let at = |gpus| {
            data(&PlannerParams {
                gpus,
                stage: ZeroStage::Three,
                ..PlannerParams::default()
            })
            .state_per_gpu
            .text
        };
        assert_eq!(at(8), "140.0 GB");
        assert_eq!(at(16), "70.0 GB");
        assert_eq!(at(64), "17.5 GB");
    }

    #[test]
    fn the_try_answers_are_computed() {
        let answers = try_answers(Bytes(80e9));
        assert_eq!(
            (answers.plain, answers.zero3),
            (Bytes(1120e9), Bytes(140e9))
        );
        assert_eq!((answers.fewest, answers.power_of_two), (14, 16));
    }

    /// Found by the full-page controls test: choosing Llama 2 7B (the shared
    /// default model, not the planner's) wrote no `model`, and the link
    /// opened on the 70B example.
    #[test]
    fn a_chosen_default_model_is_kept_in_the_url() {
        let mut notices = Vec::new();
        let chosen = PlannerParams::from_query(&Query::parse("model=llama2-7b"), &mut notices);
        let mut pairs = Vec::new();
        chosen.write(&mut pairs);
        let again = PlannerParams::from_query(
            &Query::parse(&crate::model::query::to_search(&pairs)),
            &mut notices,
        );
        assert_eq!(again, chosen);
        assert_eq!(again.scenario.params(), 6.74e9);
        assert!(notices.is_empty());
    }

    #[test]
    fn a_model_preset_brings_its_own_size_unless_params_is_given() {
        let mut notices = Vec::new();
        let p = PlannerParams::from_query(&Query::parse("model=llama3-8b"), &mut notices);
        assert_eq!(p.scenario.params(), 8.03e9);
        let p = PlannerParams::from_query(&Query::parse("model=llama3-8b&params=9B"), &mut notices);
        assert_eq!(p.scenario.params(), 9e9);
        let p = PlannerParams::from_query(&Query::parse("params=175B"), &mut notices);
        assert_eq!(p.scenario.model.id, "gpt3-175b");
        let mut pairs = Vec::new();
        p.write(&mut pairs);
        assert_eq!(pairs, [("params".to_string(), "175B".to_string())]);
        assert!(notices.is_empty());
    }

    #[test]
    fn the_smallest_fix_is_named() {
        let mut notices = Vec::new();
        let query = Query::parse("model=llama2-7b&gpus=64&stage=3");
        let tight = PlannerParams::from_query(&query, &mut notices);
        let d = data(&tight);
        assert_eq!(d.fits.value, 0.0);
        assert!(
            d.verdict.contains("turn on selective recomputation"),
            "{}",
            d.verdict
        );
        let relaxed = data(&PlannerParams {
            recompute: Recompute::Selective,
            ..tight
        });
        assert_eq!(relaxed.fits.text, "Yes");
        assert!(relaxed.verdict.starts_with("Fits"));
    }
}
