//! "Checked against published runs": each run of `model/runs.rs` through
//! the planner, ours beside what its source publishes, with a link that
//! opens the run in the planner.

use leptos::prelude::*;

use crate::figures::figure::Params;
use crate::figures::planner::{data, PlannerParams};
use crate::model::query::Query;
use crate::model::runs::{PublishedRun, RUNS};
use crate::model::units::{group_thousands, Count, Fraction, Seconds};

/// One run, ours beside the published numbers, as its card shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub run: PublishedRun,
    /// `t × p × d` and the GPU count.
    pub layout: String,
    /// What the source publishes: throughput, days or GPU-hours.
    pub published: String,
    /// The most loaded GPU: training state + activations against the device.
    pub memory: String,
    pub fits: bool,
    /// Our step, and the step the published rate gives where there is one.
    pub step: String,
    /// Our days or GPU-hours against the published ones, where the source gives them.
    pub time: Option<String>,
    /// Ours over published, for days or GPU-hours where the source gives one.
    pub time_ratio: Option<f64>,
    pub mfu: String,
    pub link: String,
}

/// Computes one run's card through the planner.
pub fn compare(run: PublishedRun) -> Comparison {
    let params = PlannerParams::from_query(&Query::parse(run.query), &mut Vec::new());
    let plan = params.plan();
    let estimate = plan.estimate();
    let fits = data(&params).fits.value == 1.0;
    let gpus = f64::from(plan.gpus_used());
    let published = run.published;
    let tokens = Count(published.tokens.unwrap_or(plan.tokens));
    let gpu_hours = estimate.train_time.value() * gpus / Seconds::HOUR;
    let (time, time_ratio) = match (published.days, published.gpu_hours) {
        (Some(days), _) => {
            let ratio = estimate.train_time.value() / Seconds::DAY / days;
            (
                Some(format!(
                    "{} for {tokens} tokens, against {days:.0} days published ({ratio:.2}×)",
                    estimate.train_time
                )),
                Some(ratio),
            )
        }
        (None, Some(hours)) => {
            let ratio = gpu_hours / hours;
            (
                Some(format!(
                    "{} GPU-hours for {tokens} tokens, against {} published ({ratio:.2}×)",
                    Count(gpu_hours),
                    Count(hours)
                )),
                Some(ratio),
            )
        }
        (None, None) => (None, None),
    };
    let step = match published.flop_per_gpu {
        Some(rate) => format!(
            "{}; the published rate, which already includes the bubble, gives {}",
            estimate.step_time,
            Seconds(estimate.step_flop.value() / (gpus * rate))
        ),
        None => estimate.step_time.to_string(),
    };
    let mut said = Vec::new();
    if let Some(rate) = published.flop_per_gpu {
        said.push(format!(
            "{} TFLOP/s a GPU, {} of peak",
            group_thousands(rate / 1e12),
            Fraction(published.utilisation)
        ));
    }
    if let Some(days) = published.days {
        said.push(format!("{days:.0} days for {tokens} tokens"));
    }
    if let Some(hours) = published.gpu_hours {
        said.push(format!(
            "{} GPU-hours for {tokens} tokens",
            group_thousands(hours)
        ));
    }
    Comparison {
        run,
        layout: format!(
            "{} GPUs: t {} × p {} × d {}. Assumed: {}.",
            group_thousands(gpus),
            plan.tensor,
            plan.pipeline,
            group_thousands(f64::from(estimate.data)),
            run.assumed
        ),
        published: said.join("; "),
        memory: format!(
            "{} of training state + {} of activations = {} of {}: {}",
            estimate.state.total(),
            estimate.activations,
            estimate.total,
            plan.capacity.capacity_in_gb(),
            if fits { "fits" } else { "does not fit" }
        ),
        fits,
        step,
        time,
        time_ratio,
        mfu: Fraction(estimate.mfu).to_string(),
        link: format!("?step=planner&{}#planner", run.query),
    }
}

const LEDE: &str = "Each card is a run whose layout and throughput were published, put through the planner. Memory is \
the most loaded GPU's. Time takes the published utilisation as the rate while busy and adds the pipeline bubble, as \
every figure here does; a published rate is measured over whole steps, bubble included, so where the bubble is large \
our time is the longer. Narayanan et al. count recomputation's arithmetic in their TFLOP/s; our MFU counts the \
model's FLOP only, as Meta's does.";

/// One labelled fact of a card.
fn fact(term: &'static str, detail: String) -> impl IntoView {
    view! {
        <dt>{term}</dt>
        <dd>{detail}</dd>
    }
}

/// The section.
#[component]
pub fn PublishedRuns() -> impl IntoView {
    view! {
        <section class="runs" id="published-runs" aria-labelledby="published-runs-title">
            <h2 id="published-runs-title">"Checked against published runs"</h2>
            <p>{LEDE}</p>
            {RUNS.into_iter().map(compare).map(|card| view! {
                <article class="run" class:run--over=!card.fits>
                    <h3 class="run__name"><a href=card.link.clone()>{card.run.name}</a></h3>
                    <p class="run__source">{card.run.source}</p>
                    <dl class="run__facts">
                        {fact("Layout", card.layout)}
                        {fact("Published", card.published)}
                        {fact("Most loaded GPU", card.memory)}
                        {fact("Step", card.step)}
                        {card.time.map(|time| fact("Training", time))}
                        {fact("MFU over the step", card.mfu)}
                        {(!card.run.explanation.is_empty()).then(|| fact("Why ours differs", card.run.explanation.to_string()))}
                    </dl>
                    <a class="run__open" href=card.link>"Open in the planner"</a>
                </article>
            }).collect_view()}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_run_opens_in_the_planner_without_a_notice() {
        for run in RUNS {
            let mut notices = Vec::new();
            PlannerParams::from_query(&Query::parse(run.query), &mut notices);
            assert!(notices.is_empty(), "{}: {notices:?}", run.name);
            assert!(compare(run).link.starts_with("?step=planner&"));
        }
    }
}
