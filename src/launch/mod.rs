//! A plan as the tools that launch training runs take it: Megatron-LM's
//! command line, Megatron-Bridge's overrides, torchtitan's command line and
//! TOML, DeepSpeed's JSON with Megatron-DeepSpeed's flags (one module
//! each). Pure Rust, like `model/`, which it reads: the planner's "Run it
//! with" part only shows what [`export`] returns.
//!
//! Each tool's keys are its own, read at its source (file and line in each
//! module's documentation). What a tool cannot take of a plan is said in
//! words beside the text ([`Launch::unsaid`]), never dropped in silence;
//! where the plan breaks one of the tool's own checks, the tool's message
//! is quoted with the plan's numbers ([`Launch::refusals`]).

mod bridge;
mod deepspeed;
mod megatron;
mod read;
mod torchtitan;
pub mod wire;

pub use read::{read, Reading, Unreadable, LONGEST};

use crate::model::activations::Recompute;
use crate::model::choice::Choice;
use crate::model::memory::ZeroStage;
use crate::model::pipeline::Schedule;
use crate::model::planner::Plan;
use crate::model::precision::{Moments, Precision};
use crate::model::software::Software;
use crate::model::units::group_thousands;

/// A tool a run is launched with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    MegatronLm,
    MegatronBridge,
    Torchtitan,
    DeepSpeed,
}

impl Choice for Tool {
    const ALL: &'static [Self] = &[
        Self::MegatronLm,
        Self::MegatronBridge,
        Self::Torchtitan,
        Self::DeepSpeed,
    ];

    fn id(self) -> &'static str {
        match self {
            Self::MegatronLm => "megatron-lm",
            Self::MegatronBridge => "megatron-bridge",
            Self::Torchtitan => "torchtitan",
            Self::DeepSpeed => "deepspeed",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::MegatronLm => "Megatron-LM",
            Self::MegatronBridge => "Megatron-Bridge",
            Self::Torchtitan => "torchtitan",
            Self::DeepSpeed => "DeepSpeed",
        }
    }
}

/// A plan to launch, with what the planner knows beside it.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    pub plan: &'a Plan,
    /// The software the plan's rates are for: torchtitan with or without
    /// torch.compile.
    pub software: Software,
    /// The model preset's id, where the plan's model is one as published
    /// (torchtitan names a model by its configuration, not its shape).
    pub preset: Option<&'static str>,
}

/// One file or command line of a launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// What it is: a command line's or a file's name.
    pub name: String,
    /// The text to paste, exactly as the tool reads it.
    pub text: String,
}

/// A plan in one tool's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub tool: Tool,
    /// The tool's version the text is written for, with where it is read.
    pub written_for: String,
    pub parts: Vec<Part>,
    /// What of the plan the tool cannot take, or takes otherwise, in words.
    pub unsaid: Vec<String>,
    /// The tool's own checks that the plan fails, in its words with the
    /// plan's numbers: it will stop at launch with these.
    pub refusals: Vec<String>,
}

/// The plan in every tool's terms, in [`Tool::ALL`]'s order.
pub fn launches(run: &Run) -> Vec<Launch> {
    Tool::ALL.iter().map(|&tool| export(tool, run)).collect()
}

/// The plan in `tool`'s terms.
pub fn export(tool: Tool, run: &Run) -> Launch {
    let layout = Layout::of(run);
    let mut launch = Launch {
        tool,
        written_for: String::new(),
        parts: Vec::new(),
        unsaid: layout.common_unsaid(),
        refusals: Vec::new(),
    };
    match tool {
        Tool::MegatronLm => megatron::write(&layout, &mut launch),
        Tool::MegatronBridge => bridge::write(&layout, &mut launch),
        Tool::Torchtitan => torchtitan::write(&layout, &mut launch),
        Tool::DeepSpeed => deepspeed::write(&layout, &mut launch),
    }
    launch
}

/// A plan's numbers as every tool asks for them, as the planner runs
/// them: the GPUs at work, the batch that divides.
#[derive(Clone, Copy, Debug)]
struct Layout<'a> {
    run: &'a Run<'a>,
    /// GPUs at work, t·p·cp·d: the world size.
    world: u32,
    t: u32,
    p: u32,
    cp: u32,
    d: u32,
    ep: u32,
    /// Model chunks a GPU holds: 1 but for the interleaved schedule.
    chunks: u32,
    /// Sequences in a micro-batch.
    micro_batch: u32,
    /// Micro-batches a pipeline runs a step.
    micro_batches: u32,
    /// Sequences a step: micro_batch × micro_batches × d.
    global_batch: u32,
    seq: u32,
}

impl<'a> Layout<'a> {
    fn of(run: &'a Run<'a>) -> Self {
        let plan = run.plan;
        let micro_batch = plan.micro_batch() as u32;
        let micro_batches = plan.micro_batches();
        let d = plan.data_parallel();
        Self {
            run,
            world: plan.gpus_used(),
            t: plan.tensor.max(1),
            p: plan.pipeline.max(1),
            cp: plan.context.max(1),
            d,
            ep: plan.experts.max(1),
            chunks: if plan.schedule == Schedule::Interleaved && plan.pipeline > 1 {
                plan.chunks.max(1)
            } else {
                1
            },
            micro_batch,
            micro_batches,
            global_batch: micro_batch * micro_batches * d,
            seq: plan.activations.seq as u32,
        }
    }

    fn plan(&self) -> &Plan {
        self.run.plan
    }

    fn recompute(&self) -> Recompute {
        self.plan().activations.recompute
    }

    fn stage(&self) -> ZeroStage {
        self.plan().stage
    }

    fn precision(&self) -> Precision {
        self.plan().numerics.precision
    }

    fn bf16_moments(&self) -> bool {
        self.plan().numerics.moments == Moments::Bf16
    }

    fn schedule(&self) -> Schedule {
        if self.p > 1 {
            self.plan().schedule
        } else {
            Schedule::OneFOneB
        }
    }

    /// Sequence parallelism as it runs: only with t > 1.
    fn sequence_parallel(&self) -> bool {
        self.plan().activations.sequence_parallel && self.t > 1
    }

    fn experts(&self) -> u32 {
        self.plan().arch.experts
    }

    /// The first and last stages' layers where the planner's split is
    /// uneven and its middle stages are alike, as Megatron-Core takes an
    /// uneven split without a layout string; `None` for an even split or
    /// one it cannot take so.
    fn uneven_ends(&self) -> Option<(u32, u32)> {
        let layers = self.plan().arch.layers;
        if self.chunks > 1 || self.p < 2 || layers.is_multiple_of(self.p) {
            return None;
        }
        let sizes: Vec<u32> = crate::model::pipeline::stage_layers(layers, self.p)
            .iter()
            .map(|r| r.end - r.start)
            .collect();
        let middle = &sizes[1..sizes.len() - 1];
        middle
            .windows(2)
            .all(|w| w[0] == w[1])
            .then(|| (sizes[0], sizes[sizes.len() - 1]))
    }

    /// What every tool is told of the plan that differs from what was asked.
    fn common_unsaid(&self) -> Vec<String> {
        let plan = self.plan();
        let mut unsaid = Vec::new();
        if self.world < plan.gpus {
            unsaid.push(format!(
                "Written for the {} GPUs the layout uses: {} of the {} asked for would be idle.",
                grouped(self.world),
                grouped(plan.gpus - self.world),
                grouped(plan.gpus)
            ));
        } else if self.world > plan.gpus {
            unsaid.push(format!(
                "Written for the {} GPUs the layout needs, {} more than the {} asked for: as asked, the plan cannot run.",
                grouped(self.world),
                grouped(self.world - plan.gpus),
                grouped(plan.gpus)
            ));
        }
        if f64::from(self.global_batch) < plan.batch.round() {
            unsaid.push(format!(
                "The global batch is {} sequences, what the planner runs: the {} asked for do not divide into micro-batches of {} on {} data-parallel replicas.",
                grouped(self.global_batch),
                group_thousands(plan.batch.round()),
                grouped(self.micro_batch),
                grouped(self.d)
            ));
        }
        unsaid
    }
}

/// A command line written one argument a line, each line but the last
/// continued with a backslash, as shells read it.
#[derive(Default)]
struct Command {
    arguments: Vec<String>,
}

impl Command {
    fn new(first: impl Into<String>) -> Self {
        Self {
            arguments: vec![first.into()],
        }
    }

    fn push(&mut self, argument: impl Into<String>) {
        self.arguments.push(argument.into());
    }

    fn text(&self) -> String {
        self.arguments.join(" \\\n  ")
    }
}

/// Nodes of 8 GPUs, the HGX boards the presets' runs use, or one node
/// for fewer (or a count 8 does not divide).
fn gpus_per_node(world: u32) -> u32 {
    if world.is_multiple_of(8) {
        8
    } else {
        world.max(1)
    }
}

/// torchrun's start of a command line for `world` GPUs running `program`.
fn torchrun(world: u32, program: &str) -> String {
    let per_node = gpus_per_node(world);
    format!(
        "torchrun --nnodes {} --nproc-per-node {per_node} {program}",
        world / per_node
    )
}

/// Layers per stage as the planner splits them when p does not divide
/// them, in words: the first and last stages give up layers first.
fn uneven_split(layers: u32, p: u32) -> String {
    let ranges = crate::model::pipeline::stage_layers(layers, p);
    let counts: Vec<String> = ranges
        .iter()
        .map(|r| (r.end - r.start).to_string())
        .collect();
    counts.join(", ")
}

/// A count in words, its thousands grouped.
fn grouped(count: u32) -> String {
    group_thousands(f64::from(count))
}
