//! The planner's step and its layout search, as the page shows them: where
//! a step's time goes (a stacked bar of `StepBreakdown`), and the best
//! layouts `model::search` finds, each of which the reader can use.

use leptos::prelude::*;

use crate::hooks::use_scoped;
use crate::model::activations::Recompute;
use crate::model::choice::Choice;
use crate::model::compare::{compare, Outcome, Setting};
use crate::model::memory::ZeroStage;
use crate::model::pipeline::Schedule;
use crate::model::planner::{Plan, StepBreakdown};
use crate::model::search::{search, Rejection, TIED_WITHIN};
use crate::model::units::{group_thousands, significant, Fraction, Seconds};
use crate::widgets::{rows, Better, ReadoutData, Unit};

/// One part of the step's bar.
#[derive(Clone, Debug, PartialEq)]
pub struct StepPart {
    pub class: &'static str,
    pub label: &'static str,
    pub time: Seconds,
    pub percent: f64,
}

/// The step's parts, each a share of its total.
pub fn step_parts(step: &StepBreakdown) -> Vec<StepPart> {
    let total = step.total().max(f64::MIN_POSITIVE);
    [
        ("compute", "compute", step.compute),
        ("recompute", "recomputation", step.recompute),
        ("tensor", "tensor-parallel all-reduces", step.tensor),
        // Whichever of the pipeline's, the context ring's and the experts'
        // sends the layout has: the words name each that matters.
        ("exchange", "other sends the layers wait for", step.exchange),
        ("bubble", "pipeline bubble", step.bubble),
        ("data", "data-parallel traffic not hidden", step.data),
    ]
    .into_iter()
    .filter(|(_, _, time)| *time > 0.0)
    .map(|(class, label, time)| StepPart {
        class,
        label,
        time: Seconds(time),
        percent: time / total * 100.0,
    })
    .collect()
}

/// A found layout, as a row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutRow {
    /// Its place, fastest first: 1 to 10.
    pub rank: usize,
    /// Its degrees: `t 8 × p 8 × d 16`.
    pub degrees: String,
    /// Its stage, micro-batch, recomputation and schedule.
    pub settings: String,
    pub memory: String,
    pub step: Seconds,
    /// Within the model's error of the fastest (`search::TIED_WITHIN`).
    pub tied: bool,
    pub plan: Plan,
}

/// The search's results, ready to show.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchData {
    pub rows: Vec<LayoutRow>,
    /// How many were set aside, and why, in words.
    pub rejected: String,
    /// The reader's layout against the first, in words; none when nothing fits.
    pub comparison: Option<ComparisonWords>,
    /// `best-*`, `layouts-tried`, `layouts-fit`.
    pub readouts: Vec<ReadoutData>,
}

fn degrees(plan: &Plan) -> String {
    let mut text = format!("t {} × p {}", plan.tensor, plan.pipeline);
    if plan.context > 1 {
        text.push_str(&format!(" × cp {}", plan.context));
    }
    text.push_str(&format!(
        " × d {}",
        group_thousands(f64::from(plan.data_parallel()))
    ));
    if plan.experts > 1 {
        text.push_str(&format!(", ep {}", plan.experts));
    }
    text
}

/// One setting of `plan` in words, as the table and the comparison name it.
fn phrase(setting: Setting, plan: &Plan) -> String {
    match setting {
        Setting::Degrees => degrees(plan),
        // One stage has no schedule to name (a newcomer read "1F1B" at p 1).
        Setting::Schedule => match plan.schedule {
            _ if plan.pipeline == 1 => "one stage".to_string(),
            Schedule::Interleaved => format!("interleaved, {} chunks", plan.chunks),
            other => other.label().to_string(),
        },
        Setting::Recompute => match plan.activations.recompute {
            Recompute::None => "no recomputation",
            Recompute::Selective => "selective recomputation",
            Recompute::Op => "op-level recomputation",
            Recompute::Full => "full recomputation",
        }
        .to_string(),
        Setting::SequenceParallel => if plan.activations.sequence_parallel {
            "sequence parallelism"
        } else {
            "no sequence parallelism"
        }
        .to_string(),
        // Lower case, as the other phrases, where the stage is none.
        Setting::Sharding => match plan.stage {
            ZeroStage::None => "no ZeRO".to_string(),
            stage => stage.label().to_string(),
        },
        Setting::MicroBatch => format!("micro-batch {}", plan.activations.micro_batch),
    }
}

fn settings(plan: &Plan) -> String {
    let mut parts = vec![
        phrase(Setting::Sharding, plan),
        phrase(Setting::MicroBatch, plan),
        phrase(Setting::Recompute, plan),
    ];
    if plan.activations.sequence_parallel {
        parts.push(phrase(Setting::SequenceParallel, plan));
    }
    if plan.pipeline > 1 {
        parts.push(phrase(Setting::Schedule, plan));
    }
    parts.join(", ")
}

/// The reader's layout against the search's first, in words
/// (`model::compare`): both steps, then each setting they differ in with
/// what it gives taken alone onto the reader's, then the one that decides.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ComparisonWords {
    pub lead: String,
    pub changes: Vec<String>,
    pub verdict: String,
}

/// A step to three figures, fine enough to tell apart steps 10% apart:
/// `28.2 s`, `1.42 min`.
fn step_in_words(seconds: f64) -> String {
    if seconds < Seconds::MINUTE {
        format!("{} s", significant(seconds, 3))
    } else {
        format!("{} min", significant(seconds / Seconds::MINUTE, 3))
    }
}

fn outcome_in_words(outcome: Outcome, against: Option<f64>) -> String {
    match outcome {
        Outcome::Runs(step) => {
            let than = match against {
                Some(yours) if step < yours => ", faster",
                Some(yours) if step > yours => ", slower",
                _ => "",
            };
            format!("{} a step{than}", step_in_words(step))
        }
        Outcome::DoesNotFit => "does not fit".to_string(),
        Outcome::CannotRun => "cannot run".to_string(),
    }
}

fn comparison_words(yours: &Plan, first: &Plan, first_step: f64) -> ComparisonWords {
    let comparison = compare(yours, first);
    let first_in_words = step_in_words(first_step);
    let lead = format!(
        "Your layout, {} with {}: {}; the first: {first_in_words} a step.",
        degrees(yours),
        settings(yours),
        outcome_in_words(comparison.yours, None)
    );
    if comparison.changes.is_empty() {
        return ComparisonWords {
            lead: "Your layout is the first.".to_string(),
            ..ComparisonWords::default()
        };
    }
    let your_step = comparison.yours.step();
    // Yours may be faster than every layout tried: the search leaves out
    // some settings (op-level recomputation, micro-batches past 8).
    let faster = your_step.is_some_and(|step| step * (1.0 + TIED_WITHIN) < first_step);
    if faster || your_step.is_some_and(|step| step <= first_step * (1.0 + TIED_WITHIN)) {
        let verdict = if faster {
            "Yours is faster than the first: it takes a setting the search does not try."
                .to_string()
        } else {
            format!(
                "Yours is within {} of the first: tied with it, closer than this model can tell apart.",
                Fraction(TIED_WITHIN)
            )
        };
        return ComparisonWords {
            lead,
            changes: Vec::new(),
            verdict,
        };
    }
    let changes = comparison
        .changes
        .iter()
        .map(|change| {
            format!(
                "{} instead of {}: {}",
                phrase(change.setting, first),
                phrase(change.setting, yours),
                outcome_in_words(change.outcome, your_step)
            )
        })
        .collect();
    let verdict = match (
        comparison.deciding(first_step, TIED_WITHIN),
        comparison.nearest(),
    ) {
        (Some(change), _) => format!(
            "The first's {} alone brings yours within {} of it: that is the setting that decides.",
            phrase(change.setting, first),
            Fraction(TIED_WITHIN)
        ),
        (None, Some(change)) => format!(
            "No one setting closes the gap; the nearest, {}, leaves yours at {}.",
            phrase(change.setting, first),
            outcome_in_words(change.outcome, None)
        ),
        (None, None) => "No one of the first's settings alone lets yours run and fit.".to_string(),
    };
    // A setting slower alone can still be the first's: it may be what lets
    // its other settings fit, or pay off only beside them.
    let slower: Vec<String> = comparison
        .changes
        .iter()
        .filter(|change| {
            change
                .outcome
                .step()
                .zip(your_step)
                .is_some_and(|(step, yours)| step > yours)
        })
        .map(|change| phrase(change.setting, first))
        .collect();
    let verdict = if slower.is_empty() {
        verdict
    } else {
        let (them, they_work) = if slower.len() == 1 {
            ("it", "it works")
        } else {
            ("them", "they work")
        };
        format!(
            "{verdict} Slower alone, the first takes {them} for how {they_work} with its other settings: {}.",
            slower.join("; ")
        )
    };
    ComparisonWords {
        lead,
        changes,
        verdict,
    }
}

/// Searches every layout for `base`'s model and cluster.
pub fn search_data(base: &Plan) -> SearchData {
    let result = search(base);
    let rows: Vec<LayoutRow> = result
        .best
        .iter()
        .enumerate()
        .map(|(i, found)| LayoutRow {
            rank: i + 1,
            degrees: degrees(&found.plan),
            settings: settings(&found.plan),
            memory: format!(
                "{} of {}",
                found.estimate.peak.needed(),
                found.plan.capacity.capacity_in_gb()
            ),
            step: Seconds(found.step()),
            tied: found.tied,
            plan: found.plan,
        })
        .collect();
    let reasons: Vec<String> = Rejection::ALL
        .iter()
        .zip(result.rejected)
        .filter(|(_, count)| *count > 0)
        .map(|(why, count)| format!("{}: {}", why.words(), group_thousands(f64::from(count))))
        .collect();
    let tied = rows.iter().filter(|r| r.tied).count();
    let ranking = if tied > 1 {
        format!(
            " The first {tied} are within {} of the fastest step, closer than this model can tell \
             apart, so they are tied: the smallest t × p first, then the fewest stages, then the most \
             memory to spare.",
            Fraction(TIED_WITHIN)
        )
    } else {
        String::new()
    };
    let rejected = format!(
        "{} of {} layouts fit; set aside: {}.{ranking}",
        group_thousands(f64::from(result.fit)),
        group_thousands(f64::from(result.tried)),
        reasons.join("; ")
    );
    let best = result.best.first();
    // With no layout that fits, the best's readouts say so in words; their
    // value stays a number (0), as the URL contract's data-value requires.
    let none = |id, label, unit| ReadoutData::new(id, label, 0.0, "None fits", unit);
    let count = |id, label, value: Option<f64>| {
        value.map_or_else(
            || none(id, label, Unit::Count),
            |v| ReadoutData::count(id, label, v),
        )
    };
    let readouts = vec![
        count(
            "best-tp",
            "Best: tensor parallel",
            best.map(|f| f64::from(f.plan.tensor)),
        ),
        count(
            "best-pp",
            "Best: pipeline stages",
            best.map(|f| f64::from(f.plan.pipeline)),
        ),
        count(
            "best-dp",
            "Best: data parallel",
            best.map(|f| f64::from(f.plan.data_parallel())),
        ),
        count(
            "best-stage",
            "Best: ZeRO stage",
            best.map(|f| f64::from(f.plan.stage.index())),
        ),
        count(
            "best-micro-batch",
            "Best: micro-batch",
            best.map(|f| f.plan.activations.micro_batch),
        ),
        best.map_or_else(
            || {
                none(
                    "best-step-time",
                    "Best: step, communication included",
                    Unit::Seconds,
                )
            },
            |f| {
                ReadoutData::seconds(
                    "best-step-time",
                    "Best: step, communication included",
                    Seconds(f.step()),
                )
            },
        ),
        ReadoutData::yes_no("best-fits", "A layout fits", best.is_some()),
        count(
            "layouts-tried",
            "Layouts tried",
            Some(f64::from(result.tried)),
        ),
        count(
            "layouts-fit",
            "Layouts that fit",
            Some(f64::from(result.fit)),
        )
        .better(Better::Higher),
    ];
    SearchData {
        comparison: best.map(|f| comparison_words(base, &f.plan, f.step())),
        rows,
        rejected,
        readouts,
    }
}

/// The step as a stacked bar, each part labelled with its time.
#[component]
pub fn StepBar(
    #[prop(into)] parts: Signal<Vec<StepPart>>,
    #[prop(into)] total: Signal<String>,
) -> impl IntoView {
    view! {
        <div class="stepbar">
            <p class="stepbar__title">{move || total.get()}</p>
            <div class="stepbar__bar" aria-hidden="true">
                {rows(parts, |p| p.as_slice(), |part| view! {
                    <div
                        class=move || part.with(|p| format!("stepbar__part stepbar__part--{}", p.class))
                        style:width=move || part.with(|p| format!("{:.3}%", p.percent))
                    ></div>
                })}
            </div>
            <ul class="stepbar__legend">
                {rows(parts, |p| p.as_slice(), |part| view! {
                    <li class=move || part.with(|p| format!("stepbar__key stepbar__key--{}", p.class))>
                        {move || part.with(|p| format!("{}: {} ({})", p.label, p.time, Fraction(p.percent / 100.0)))}
                    </li>
                })}
            </ul>
        </div>
    }
}

/// The ten best layouts, each with a button that applies it.
#[component]
pub fn LayoutTable(
    #[prop(into)] data: Signal<Option<SearchData>>,
    /// Applies a found layout to the planner.
    apply: Callback<Plan>,
) -> impl IntoView {
    // Shown only while the search is on: it reads the planner's data
    // through a memo that leaves with it.
    let data = use_scoped(data);
    let found = Signal::derive(move || {
        data.with(|d| d.as_ref().map(|d| d.rows.clone()).unwrap_or_default())
    });
    let comparison = Signal::derive(move || {
        data.with(|d| d.as_ref().and_then(|d| d.comparison.clone()))
            .unwrap_or_default()
    });
    let changes = Signal::derive(move || comparison.with(|c| c.changes.clone()));
    view! {
        <section class="layouts" aria-label="The best layouts">
            <p class="layouts__summary" role="status">{move || data.with(|d| d.as_ref().map(|d| d.rejected.clone()))}</p>
            // A table, so that the columns align; it scrolls sideways on a
            // phone rather than wrapping a row's numbers onto two lines.
            // "Use" beside the layout it applies, so that a phone shows it unscrolled.
            <div class="layouts__scroll" tabindex="0" role="region" aria-label="The best layouts, in the search's order">
                <table class="layouts__table">
                    <thead>
                        <tr>
                            <th scope="col" class="layouts__number">"#"</th>
                            <th scope="col">"Layout"</th>
                            <th scope="col"><span class="visually-hidden">"Apply"</span></th>
                            <th scope="col" class="layouts__number">"Step"</th>
                            <th scope="col" class="layouts__number">"Memory a GPU"</th>
                            <th scope="col">"Settings"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {rows(found, |r| r.as_slice(), move |row| view! {
                            <tr>
                                <td class="layouts__number">{move || row.with(|r| r.rank)}</td>
                                <th scope="row" class="layouts__degrees">{move || row.with(|r| r.degrees.clone())}</th>
                                <td>
                                    <button
                                        type="button"
                                        class="button"
                                        aria-label=move || row.with(|r| format!("Use layout {}, {}", r.rank, r.degrees))
                                        on:click=move |_| apply.run(row.with_untracked(|r| r.plan))
                                    >"Use"</button>
                                </td>
                                <td class="layouts__number">{move || row.with(|r| format!("{}{}", r.step, if r.tied { " (tied)" } else { "" }))}</td>
                                <td class="layouts__number">{move || row.with(|r| r.memory.clone())}</td>
                                <td class="layouts__settings">{move || row.with(|r| r.settings.clone())}</td>
                            </tr>
                        })}
                    </tbody>
                </table>
            </div>
            // After the table, so that its changing length never moves a
            // row from under the pointer that pressed "Use".
            <div class="layouts__compare">
                <p aria-live="polite">{move || comparison.with(|c| c.lead.clone())}</p>
                <ul>
                    {rows(changes, |c| c.as_slice(), move |change| view! { <li>{move || change.get()}</li> })}
                </ul>
                <p>{move || comparison.with(|c| c.verdict.clone())}</p>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts of 6 s of compute, 2 s of recomputation and 2 s of bubble: 60%, 20%, 20%.
    #[test]
    fn the_step_in_parts() {
        let parts = step_parts(&StepBreakdown {
            compute: 6.0,
            recompute: 2.0,
            bubble: 2.0,
            ..Default::default()
        });
        let shares: Vec<(&str, f64)> = parts.iter().map(|p| (p.class, p.percent)).collect();
        assert_eq!(
            shares,
            [("compute", 60.0), ("recompute", 20.0), ("bubble", 20.0)]
        );
        assert!(parts.iter().all(|p| p.time.value() > 0.0));
    }

    /// 70B parameters on one 80 GB GPU: 16 bytes a parameter is 1.12 TB of
    /// state, so no layout fits; the best's readouts say so, not "0".
    #[test]
    fn no_layout_that_fits_is_said_in_words() {
        let params = crate::figures::planner::PlannerParams {
            gpus: 1,
            ..Default::default()
        };
        let data = search_data(&params.plan());
        let readout = |id| data.readouts.iter().find(|r| r.id == id).unwrap();
        for id in [
            "best-tp",
            "best-pp",
            "best-dp",
            "best-stage",
            "best-micro-batch",
            "best-step-time",
        ] {
            assert_eq!(
                (readout(id).text.as_str(), readout(id).value),
                ("None fits", 0.0),
                "{id}"
            );
        }
        assert_eq!(readout("best-fits").text, "No");
        assert_eq!(readout("layouts-fit").value, 0.0);
    }
}
