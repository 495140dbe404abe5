//! The reader's layout against the search's first: where the two differ,
//! and which one difference, laid alone on the reader's layout, brings its
//! step closest to the first's. A published run's layout is rarely the
//! search's first (GPT-3 175B on 1,024 A100s ran t 8 × p 16 with full
//! recomputation, Narayanan et al. 2021; the planner's search prefers
//! fewer stages and selective recomputation), and the reader should see
//! which of the planner's assumptions makes the difference.

use super::planner::Plan;

/// A setting in which two layouts can differ. The degrees go together: d
/// follows from t·p·cp and the GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// t, p, cp and ep.
    Degrees,
    /// The pipeline schedule and its chunks.
    Schedule,
    Recompute,
    SequenceParallel,
    /// The ZeRO stage.
    Sharding,
    MicroBatch,
}

impl Setting {
    /// Every setting, in the order the words name them.
    pub const ALL: [Self; 6] = [
        Self::Degrees,
        Self::Schedule,
        Self::Recompute,
        Self::SequenceParallel,
        Self::Sharding,
        Self::MicroBatch,
    ];

    /// Whether `a` and `b` differ in this setting.
    fn differs(self, a: &Plan, b: &Plan) -> bool {
        match self {
            Self::Degrees => {
                (a.tensor, a.pipeline, a.context, a.experts)
                    != (b.tensor, b.pipeline, b.context, b.experts)
            }
            // A schedule orders stages: one stage on either side has none
            // to change (the degrees carry the difference).
            Self::Schedule => {
                a.pipeline.min(b.pipeline) > 1 && (a.schedule, a.chunks) != (b.schedule, b.chunks)
            }
            Self::Recompute => a.activations.recompute != b.activations.recompute,
            Self::SequenceParallel => {
                a.activations.sequence_parallel != b.activations.sequence_parallel
            }
            Self::Sharding => a.stage != b.stage,
            Self::MicroBatch => a.activations.micro_batch != b.activations.micro_batch,
        }
    }

    /// `base` with this setting taken from `other`, the rest its own.
    pub fn applied(self, base: &Plan, other: &Plan) -> Plan {
        let mut plan = *base;
        match self {
            Self::Degrees => {
                plan.tensor = other.tensor;
                plan.pipeline = other.pipeline;
                plan.context = other.context;
                plan.experts = other.experts;
                plan.activations.tensor_parallel = other.tensor;
            }
            Self::Schedule => {
                plan.schedule = other.schedule;
                plan.chunks = other.chunks;
            }
            Self::Recompute => plan.activations.recompute = other.activations.recompute,
            Self::SequenceParallel => {
                plan.activations.sequence_parallel = other.activations.sequence_parallel;
            }
            Self::Sharding => plan.stage = other.stage,
            Self::MicroBatch => plan.activations.micro_batch = other.activations.micro_batch,
        }
        plan
    }
}

/// What a layout comes to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// It runs and fits: its step, in seconds.
    Runs(f64),
    /// It runs, but its fullest GPU needs more memory than it may use.
    DoesNotFit,
    /// It cannot run as laid out (`Plan::problem`).
    CannotRun,
}

impl Outcome {
    /// Its step, in seconds, where it runs and fits.
    pub fn step(self) -> Option<f64> {
        match self {
            Self::Runs(step) => Some(step),
            _ => None,
        }
    }

    fn of(plan: &Plan) -> Self {
        if plan.problem().is_some() {
            return Self::CannotRun;
        }
        let estimate = plan.estimate();
        if estimate.fits {
            Self::Runs(estimate.step_time.value())
        } else {
            Self::DoesNotFit
        }
    }
}

/// One setting of the first layout laid alone on the reader's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingleChange {
    pub setting: Setting,
    pub outcome: Outcome,
}

/// The reader's layout against the search's first.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub yours: Outcome,
    /// Each setting in which the two differ, the first's laid alone on the reader's.
    pub changes: Vec<SingleChange>,
}

impl Comparison {
    /// The single change that brings the reader's step lowest, where one
    /// runs and fits.
    pub fn nearest(&self) -> Option<SingleChange> {
        self.changes
            .iter()
            .filter_map(|change| change.outcome.step().map(|step| (step, *change)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, change)| change)
    }

    /// The single change that decides between the two layouts: the
    /// nearest, when it brings the reader's step within `tied` (a share)
    /// of the first's, `first_step`; none when no one setting closes the gap.
    pub fn deciding(&self, first_step: f64, tied: f64) -> Option<SingleChange> {
        self.nearest().filter(|change| {
            change
                .outcome
                .step()
                .is_some_and(|step| step <= first_step * (1.0 + tied))
        })
    }
}

/// `yours` against `first`: what it comes to, and each setting they differ
/// in taken alone from `first`.
pub fn compare(yours: &Plan, first: &Plan) -> Comparison {
    Comparison {
        yours: Outcome::of(yours),
        changes: Setting::ALL
            .into_iter()
            .filter(|setting| setting.differs(yours, first))
            .map(|setting| SingleChange {
                setting,
                outcome: Outcome::of(&setting.applied(yours, first)),
            })
            .collect(),
    }
}
