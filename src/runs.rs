//! "Checked against published runs": each run of `model/runs.rs` through
//! the planner, ours beside what its source publishes, with a link that
//! opens the run in the planner.

use leptos::prelude::*;

use crate::figures::figure::Params;
use crate::figures::planner::{peak_stage, room, PlannerParams};
use crate::figures::shared::percent;
use crate::model::choice::Choice;
use crate::model::measured::{MeasuredRun, MEASURED};
use crate::model::pipeline::Schedule;
use crate::model::query::Query;
use crate::model::runs::{PublishedRun, RUNS};
use crate::model::units::Bytes;
use crate::model::units::{counted, group_thousands, significant, Count, Fraction};

/// One run, ours beside the published numbers, as its card shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub run: PublishedRun,
    /// `t × p × d` and the GPU count.
    pub layout: String,
    /// The schedule, chunks, ZeRO stage, bytes, FLOP count and MFU the card runs with.
    pub settings: String,
    /// What the source publishes: throughput, days or GPU-hours.
    pub published: String,
    /// The most loaded GPU: training state + activations against the device.
    pub memory: String,
    pub fits: bool,
    pub step: String,
    /// Our days or GPU-hours against the published ones, where the source gives them.
    pub time: Option<String>,
    /// Ours over published, for days, GPU-hours or a step, where the source gives one.
    pub time_ratio: Option<f64>,
    /// What `time` compares: the whole run's time, or one step.
    pub time_term: &'static str,
    /// Model FLOP over the whole step, as the planner's `mfu` readout.
    pub mfu: f64,
    /// Whether the layers multiply in FP8, which runs past the BF16 peak MFU is measured against.
    pub fp8: bool,
    pub link: String,
}

/// Computes one run's card through the planner.
pub fn compare(run: PublishedRun) -> Comparison {
    let params = PlannerParams::from_query(&Query::parse(run.query), &mut Vec::new());
    let plan = params.plan();
    let estimate = plan.estimate();
    let gpus = f64::from(plan.gpus_used());
    let published = run.published;
    let tokens = Count(published.tokens.unwrap_or(plan.tokens));
    let gpu_hours = plan.gpu_hours(&estimate);
    let (time, time_ratio) = match (published.days, published.gpu_hours) {
        (Some(days), _) => {
            let ratio = estimate.train_time.in_days() / days;
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
        (None, None) if published.tokens_per_gpu_per_second.is_some() => {
            let logged = published.tokens_per_gpu_per_second.unwrap_or(1.0);
            let ours = estimate.tokens_per_gpu_per_second;
            // A step's time goes as one over the tokens a second.
            let ratio = logged / ours.max(f64::MIN_POSITIVE);
            (
                Some(format!(
                    "{} tokens a second a GPU, against {} published: a step {ratio:.2}× as long",
                    group_thousands(ours.round()),
                    group_thousands(logged)
                )),
                Some(ratio),
            )
        }
        (None, None) => published.step_seconds.map_or((None, None), |seconds| {
            let ratio = estimate.step_time.value() / seconds;
            // Three figures: the log's step is known to them, and "11 s" would hide the 10.90.
            (
                Some(format!(
                    "{} s a step, against {} s logged ({ratio:.2}×)",
                    significant(estimate.step_time.value(), 3),
                    significant(seconds, 3)
                )),
                Some(ratio),
            )
        }),
    };
    let mut said = Vec::new();
    if let Some(rate) = published.flop_per_gpu {
        said.push(format!(
            "{} TFLOP/s a GPU, {} of peak{}",
            group_thousands(rate / 1e12),
            Fraction(published.utilisation),
            if published.counts_recomputation {
                ", recomputation's FLOP counted"
            } else {
                " (MFU)"
            }
        ));
    }
    if let Some(days) = published.days {
        said.push(format!("{days:.0} days for {tokens} tokens"));
    }
    if let Some(seconds) = published.step_seconds {
        said.push(format!("{} s a step", significant(seconds, 3)));
    }
    if let Some(tokens) = published.tokens_per_gpu_per_second {
        said.push(format!("{} tokens a second a GPU", group_thousands(tokens)));
    }
    if let Some(hours) = published.gpu_hours {
        said.push(format!(
            "{} GPU-hours for {tokens} tokens",
            group_thousands(hours)
        ));
    }
    let chunks = if plan.schedule == Schedule::Interleaved {
        format!(", {} chunks a GPU", plan.chunks)
    } else {
        String::new()
    };
    let mfu = match plan.step_mfu {
        Some(_) if published.counts_recomputation => format!(
            "MFU over the step {}, the published rate without recomputation's FLOP",
            Fraction(estimate.mfu)
        ),
        Some(_) => format!("MFU over the step {}, as published", Fraction(estimate.mfu)),
        None => format!("{} of the peak while computing", Fraction(estimate.busy)),
    };
    let stages: Vec<u32> = plan
        .stage_ranges()
        .iter()
        .map(|r| r.end - r.start)
        .collect();
    let uneven = stages.first() != stages.iter().max();
    Comparison {
        run,
        layout: format!(
            "{} GPUs: t {} × p {} × d {}{}.",
            group_thousands(gpus),
            plan.tensor,
            plan.pipeline,
            group_thousands(f64::from(estimate.data)),
            if uneven {
                format!(", {} layers on the end stages and {} on the others", stages[0], stages.iter().max().unwrap_or(&0))
            } else {
                String::new()
            }
        ),
        settings: format!(
            "micro-batches of {}; {}{chunks}; {}; {} bytes a parameter; FLOP {}, recomputation {}; {mfu}.",
            counted(plan.micro_batch(), "sequence", "sequences"),
            plan.schedule.label(),
            plan.stage.label(),
            plan.bytes.id(),
            plan.flop.label(),
            plan.activations.recompute.label().to_ascii_lowercase(),
        ),
        published: said.join("; "),
        memory: format!(
            "up to {} of training state a GPU, {} of activations on the first stage; {} needed at its peak by the \
             fullest GPU{} within {}: {}",
            estimate.state.total(),
            estimate.activations,
            estimate.peak.needed(),
            peak_stage(&plan, &estimate),
            room(&plan),
            if estimate.fits { "fits" } else { "does not fit" }
        ),
        fits: estimate.fits,
        step: format!(
            "{}, the bubble {} of it: {} {} of their peak while busy",
            estimate.step_time,
            Fraction(estimate.bubble),
            if plan.step_mfu.is_some() {
                "to give this MFU over the whole step, the GPUs compute at"
            } else {
                "the GPUs compute at our default"
            },
            Fraction(estimate.busy)
        ),
        time,
        time_ratio,
        time_term: if published.step_seconds.is_some()
            || published.tokens_per_gpu_per_second.is_some()
        {
            "Step against the log"
        } else {
            "Training"
        },
        mfu: estimate.mfu,
        fp8: plan.numerics.fp8(),
        link: format!("?step=planner&{}#planner", run.query),
    }
}

const LEDE: &str = "Each card is a run whose layout and throughput were published, entered in the planner with the \
settings its source states and ours where it is silent. A published MFU is entered as the MFU over the step, so the \
step is the one the run took and the planner works out how fast the GPUs computed while busy. Memory is what the \
fullest GPU needs at its peak, against what the device reports less the memory kept in reserve.";

/// One labelled fact of a card.
fn fact(term: &'static str, detail: String) -> impl IntoView {
    view! {
        <dt>{term}</dt>
        <dd>{detail}</dd>
    }
}

/// One measured run, ours beside the measurement, as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredComparison {
    pub run: MeasuredRun,
    /// The allocator's reservation at the fullest GPU's peak, ours, in GiB.
    pub reserved_gib: f64,
    /// Ours over the measured reservation.
    pub ratio: f64,
    pub tokens_per_gpu_per_second: f64,
    /// Our tokens a second over the log's.
    pub speed_ratio: f64,
    /// What the planner's `reserved-memory` shows: the allocator's
    /// reservation with the CUDA context and NCCL's buffers, in words.
    pub reserved_with_context: String,
    /// Why our memory differs by more than a tenth, when it does.
    pub why: Option<String>,
    /// Why our tokens a second differ by more than 15%, when they do.
    pub why_speed: Option<String>,
    pub link: String,
}

/// Within this share of a measured reservation, ours agrees with it.
pub const MEASURED_WITHIN: f64 = 0.10;
/// Within this share of logged tokens a second, ours agrees with them.
pub const SPEED_WITHIN: f64 = 0.15;

/// Ours at `ratio` × the measurement, and why when it is more than
/// `within` off: the row's own reason, or that there is none yet.
fn explain(ratio: f64, within: f64, gap: &str) -> Option<String> {
    ((ratio - 1.0).abs() > within).then(|| {
        format!(
            "Ours is {ratio:.2}× the measurement, more than {} off: {}.",
            percent(within),
            if gap.is_empty() {
                "not yet accounted for"
            } else {
                gap
            }
        )
    })
}

/// Computes one measured run's card through the planner.
pub fn measured(run: MeasuredRun) -> MeasuredComparison {
    let params = PlannerParams::from_query(&Query::parse(run.query), &mut Vec::new());
    let estimate = params.plan().estimate();
    let reserved_gib = estimate.peak.allocator_reserved().value() / Bytes::GIB;
    let ratio = reserved_gib / run.reserved_gib;
    let speed_ratio = estimate.tokens_per_gpu_per_second / run.tokens_per_gpu_per_second;
    MeasuredComparison {
        run,
        reserved_gib,
        ratio,
        tokens_per_gpu_per_second: estimate.tokens_per_gpu_per_second,
        speed_ratio,
        reserved_with_context: estimate.peak.reserved().to_string(),
        why: explain(ratio, MEASURED_WITHIN, run.memory_gap),
        why_speed: explain(speed_ratio, SPEED_WITHIN, run.speed_gap),
        link: format!("?step=planner&{}#planner", run.query),
    }
}

const MEASURED_LEDE: &str = "Each card is a run measured on the GPU: what PyTorch's caching allocator had \
reserved at the peak, the largest across the run's GPUs (torch.cuda.max_memory_reserved, in GiB as torchtitan \
reports it, without the CUDA context and NCCL's buffers), and the tokens a second its table gives, beside ours for \
the same layout. torchtitan ran them on H100s with 96 GB held to 500 W; the links open the 80 GB H100, as the cards \
compare bytes, so a run that reserved more than its 79.6 GiB does not fit there. Ours run at torchtitan's rates, \
fitted to these rows: its share of the H100's rate while computing, with torch.compile and without, how much of \
FP8's gain its Float8 multiplies get, and how much less memory a compiled run's activations cost.";

/// The measured runs, a card each.
fn measured_runs() -> impl IntoView {
    view! {
        <h3>"Memory and speed as measured"</h3>
        <p>{format!(
            "{MEASURED_LEDE} A card with a red edge is one whose memory is more than {:.0}% from the measurement \
             or whose speed is more than {:.0}% from it, and it says why.",
            MEASURED_WITHIN * 100.0,
            SPEED_WITHIN * 100.0
        )}</p>
        {MEASURED.into_iter().map(measured).map(|card| {
            let off = card.why.is_some() || card.why_speed.is_some();
            view! {
            <article class="run run--measured" class:run--over=off>
                <h4 class="run__name"><a href=card.link.clone()>{card.run.name}</a></h4>
                <p class="run__source">{card.run.source}</p>
                <dl class="run__facts">
                    {fact("Measured", format!("{:.1} GiB reserved at the peak", card.run.reserved_gib))}
                    {fact("Ours", format!(
                        "{:.1} GiB reserved at the peak, {:.2}× the measurement (the planner's reserved memory, {}, adds the CUDA context and NCCL's buffers)",
                        card.reserved_gib, card.ratio, card.reserved_with_context
                    ))}
                    {fact("Tokens a second a GPU", format!(
                        "{} measured, ours {} ({:.2}×)",
                        group_thousands(card.run.tokens_per_gpu_per_second),
                        group_thousands(card.tokens_per_gpu_per_second.round()),
                        card.speed_ratio
                    ))}
                    {(!card.run.left_out.is_empty()).then(|| fact("Not set in the planner", card.run.left_out.to_string()))}
                    {card.why.map(|why| fact("Why our memory differs", why))}
                    {card.why_speed.map(|why| fact("Why our speed differs", why))}
                </dl>
            </article>
            }
        }).collect_view()}
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
                        {fact("As the source states", card.run.stated.to_string())}
                        {fact("Where it is silent", card.run.assumed.to_string())}
                        {fact("Settings", card.settings)}
                        {fact("Published", card.published)}
                        {fact("Most loaded GPU", card.memory)}
                        {fact("Step", card.step)}
                        {card.time.map(|time| fact(card.time_term, time))}
                        {fact("MFU over the step", format!(
                            "{}{}",
                            Fraction(card.mfu),
                            if card.fp8 { " of the BF16 peak, which FP8's multiplies run past" } else { "" }
                        ))}
                        {(!card.run.explanation.is_empty()).then(|| fact("Why ours differs", card.run.explanation.to_string()))}
                    </dl>
                    <a class="run__open" href=card.link>"Open in the planner"</a>
                </article>
            }).collect_view()}
            {measured_runs()}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A measured run's card says why ours differs exactly when it is more
    /// than a tenth off in memory, or 15% in speed, in the row's own words.
    #[test]
    fn a_measured_card_explains_a_gap_beyond_its_tolerance() {
        for run in MEASURED {
            let card = measured(run);
            for (ratio, within, why, gap) in [
                (card.ratio, 0.10, &card.why, run.memory_gap),
                (card.speed_ratio, 0.15, &card.why_speed, run.speed_gap),
            ] {
                assert_eq!(
                    why.is_some(),
                    (ratio - 1.0).abs() > within,
                    "{}: {ratio}",
                    run.name
                );
                if let Some(why) = why {
                    assert!(why.contains(&format!("{ratio:.2}")), "{why}");
                    assert!(why.contains(gap), "{why}");
                }
            }
        }
    }

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
