//! Two plans side by side: every readout of plan A beside plan B's, with
//! the change marked better or worse in words (never by colour alone), and
//! the URL form of the pair (plan B's keys prefixed `b.`, a key absent for
//! B taking A's value).

use super::cells::AnyParams;
use crate::model::query::{Pairs, Query};
use crate::model::units::{group_thousands, Bytes, Seconds};
use crate::widgets::{Better, ReadoutData, Unit};

/// The prefix of plan B's keys and readouts.
pub const PLAN_B: &str = "b.";

/// Whether a change is for the better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Same,
    Better,
    Worse,
    /// Different, neither better nor worse (the GPU count, the device's memory).
    Different,
}

impl Mark {
    pub fn word(self) -> &'static str {
        match self {
            Mark::Same => "same",
            Mark::Better => "better",
            Mark::Worse => "worse",
            Mark::Different => "",
        }
    }
}

/// One row: a readout in both plans and how B differs from A.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub a: ReadoutData,
    pub b: ReadoutData,
    /// B against A, in the readout's unit (`−70.0 GB, −50%`), empty when equal.
    pub change: String,
    pub mark: Mark,
}

/// B − A in the readout's unit, with the relative change for sizes and times.
fn difference(a: &ReadoutData, b: &ReadoutData) -> String {
    let delta = b.value - a.value;
    let sign = if delta < 0.0 { "−" } else { "+" };
    let relative = |text: String| {
        if a.value == 0.0 {
            text
        } else {
            match (delta / a.value * 100.0).abs() {
                share if share < 1.0 => format!("{text}, under 1%"),
                share => format!("{text}, {sign}{share:.0}%"),
            }
        }
    };
    match a.unit {
        Unit::Bytes => relative(format!("{sign}{}", Bytes(delta.abs()))),
        Unit::Seconds => relative(format!("{sign}{}", Seconds(delta.abs()))),
        Unit::Fraction => format!("{sign}{:.1} points", (delta * 100.0).abs()),
        Unit::YesNo => format!("{} → {}", a.text, b.text),
        Unit::Ratio => format!("{:.2}×", b.value / a.value),
        Unit::Count | Unit::Flop => relative(format!("{sign}{}", group_thousands(delta.abs()))),
    }
}

/// Plan A's and plan B's readouts, paired by id (a readout only one plan
/// has is left out), each marked in the direction the readout carries.
pub fn rows(a: Vec<ReadoutData>, mut b: Vec<ReadoutData>) -> Vec<Row> {
    a.into_iter()
        .filter(|a| a.better != Better::NotCompared)
        .filter_map(|a| {
            let found = b.iter().position(|b| b.id == a.id)?;
            Some((a, b.swap_remove(found)))
        })
        .map(|(a, b)| {
            let b = b.of_plan_b();
            let mark = match (a.better, b.value.partial_cmp(&a.value)) {
                (_, Some(std::cmp::Ordering::Equal)) => Mark::Same,
                (Better::Higher, Some(std::cmp::Ordering::Greater))
                | (Better::Lower, Some(std::cmp::Ordering::Less)) => Mark::Better,
                (Better::Higher | Better::Lower, Some(_)) => Mark::Worse,
                _ => Mark::Different,
            };
            let change = if mark == Mark::Same {
                String::new()
            } else {
                difference(&a, &b)
            };
            Row { a, b, change, mark }
        })
        .collect()
}

/// Whether a query names a plan B.
pub fn has_plan_b(query: &Query) -> bool {
    query.pairs().iter().any(|(key, _)| key.starts_with(PLAN_B))
}

/// Plan A's query (its keys, without `b.` ones) and plan B's (A's, with
/// `b.` keys in their place).
pub fn split(query: &Query) -> (Query, Query) {
    let (b, a): (Pairs, Pairs) = query
        .pairs()
        .iter()
        .cloned()
        .partition(|(key, _)| key.starts_with(PLAN_B));
    let mut merged: Pairs = a
        .iter()
        .filter(|(key, _)| !b.iter().any(|(k, _)| k[PLAN_B.len()..] == **key))
        .cloned()
        .collect();
    merged.extend(
        b.into_iter()
            .map(|(key, value)| (key[PLAN_B.len()..].to_string(), value)),
    );
    (Query::from_pairs(a), Query::from_pairs(merged))
}

/// The URL pairs of two plans: A's, then B's keys that differ from A's, prefixed.
pub fn pairs(a: &dyn AnyParams, b: &dyn AnyParams) -> Pairs {
    let mut pairs = Vec::new();
    a.write_pairs(None, &mut pairs);
    let mut changed = Vec::new();
    b.write_pairs(Some(a), &mut changed);
    pairs.extend(
        changed
            .into_iter()
            .map(|(key, value)| (format!("{PLAN_B}{key}"), value)),
    );
    pairs
}

/// The comparison's answer in words: which plan is faster, by the step
/// time (the planner) or the training's time (3d), and which fit.
pub fn verdict(rows: &[Row]) -> String {
    let find = |id: &str| rows.iter().find(|r| r.a.id == id);
    let mut text = String::new();
    if let Some(time) = find("step-time").or_else(|| find("train-time")) {
        let faster = match time.mark {
            Mark::Better => "Plan B is faster",
            Mark::Worse => "Plan A is faster",
            _ => "The two plans take as long",
        };
        let by = if time.change.is_empty() {
            String::new()
        } else {
            format!(" ({})", time.change)
        };
        text = format!(
            "{faster}{by}: {} {} for plan A, {} for plan B. ",
            time.a.label.to_ascii_lowercase(),
            time.a.text,
            time.b.text
        );
    }
    if let Some(fits) = find("fits") {
        text.push_str(match (fits.a.value > 0.0, fits.b.value > 0.0) {
            (true, true) => "Both fit. ",
            (true, false) => "Only plan A fits. ",
            (false, true) => "Only plan B fits. ",
            (false, false) => "Neither fits its GPUs. ",
        });
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(id: &'static str, value: f64) -> ReadoutData {
        ReadoutData::bytes(id, id, Bytes(value))
    }

    /// 140 GB against 70 GB of training state: 70 GB less, half, better; a
    /// GPU count is only different; "fits" going from No to Yes is better.
    #[test]
    fn changes_are_marked_in_words() {
        let found = rows(
            vec![
                bytes("state-per-gpu", 140e9),
                ReadoutData::count("gpus", "GPUs", 8.0),
                ReadoutData::yes_no("fits", "Fits", false),
            ],
            vec![
                bytes("state-per-gpu", 70e9),
                ReadoutData::count("gpus", "GPUs", 16.0),
                ReadoutData::yes_no("fits", "Fits", true),
            ],
        );
        assert_eq!(
            (found[0].change.as_str(), found[0].mark),
            ("−70.0 GB, −50%", Mark::Better)
        );
        assert_eq!(found[0].b.key(), "b.state-per-gpu");
        let tiny = rows(
            vec![bytes("weights", 140e9)],
            vec![bytes("weights", 140e9 - 111e3)],
        );
        assert_eq!(tiny[0].change, "−111 KB, under 1%");
        assert_eq!(
            (found[1].change.as_str(), found[1].mark),
            ("+8, +100%", Mark::Different)
        );
        assert_eq!(
            (found[2].change.as_str(), found[2].mark),
            ("No → Yes", Mark::Better)
        );
        let same = rows(vec![bytes("weights", 1e9)], vec![bytes("weights", 1e9)]);
        assert_eq!((same[0].change.as_str(), same[0].mark), ("", Mark::Same));
    }

    /// Rows pair by id whatever the order; a readout of a selection (a
    /// selected rank) is left out; the search's "A layout fits" going from
    /// No to Yes is better, and more layouts that fit is better.
    #[test]
    fn rows_pair_by_id_and_follow_each_readouts_direction() {
        let rank = |value| {
            ReadoutData::count("rank-tp", "Selected rank", value).better(Better::NotCompared)
        };
        let fit =
            |value: f64| ReadoutData::count("layouts-fit", "Fit", value).better(Better::Higher);
        let found = rows(
            vec![
                rank(0.0),
                ReadoutData::yes_no("best-fits", "A layout fits", false),
                fit(0.0),
                bytes("weights", 2e9),
            ],
            vec![
                bytes("weights", 1e9),
                fit(12.0),
                ReadoutData::yes_no("best-fits", "A layout fits", true),
                rank(3.0),
            ],
        );
        let marks: Vec<(&str, Mark)> = found.iter().map(|r| (r.a.id, r.mark)).collect();
        assert_eq!(
            marks,
            [
                ("best-fits", Mark::Better),
                ("layouts-fit", Mark::Better),
                ("weights", Mark::Better)
            ]
        );
        assert_eq!(found[2].change, "−1.00 GB, −50%");
    }

    /// `?stage=1&gpus=64&b.stage=3&b.gpus=16`: A has stage 1 on 64 GPUs; B
    /// keeps A's other keys and takes stage 3 on 16.
    #[test]
    fn plan_b_takes_a_s_keys_unless_it_has_its_own() {
        let query = Query::parse("model=llama2-70b&stage=1&gpus=64&b.stage=3&b.gpus=16");
        assert!(has_plan_b(&query));
        let (a, b) = split(&query);
        assert_eq!(
            (a.get("stage"), a.get("gpus"), a.get("b.stage")),
            (Some("1"), Some("64"), None)
        );
        assert_eq!(
            (b.get("model"), b.get("stage"), b.get("gpus")),
            (Some("llama2-70b"), Some("3"), Some("16"))
        );
        assert!(!has_plan_b(&Query::parse("stage=1")));
    }
}
