//! Every number the two source documents print (`tests/seeds.tsv`, the one
//! table of them), computed by the figure that shows it, through the figure
//! registry, as the page would: same query, same readout, same text.
#![cfg(not(target_arch = "wasm32"))]

use parallax::exercises::EXERCISES;
use parallax::figures::find;
use parallax::model::number::parse_number;
use parallax::model::query::Query;

/// One row of the table.
struct Row<'a> {
    figure: &'a str,
    query: &'a str,
    readout: &'a str,
    text: &'a str,
    value: Option<f64>,
    within: f64,
    source: &'a str,
}

fn rows(table: &str) -> Vec<Row<'_>> {
    table
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            assert_eq!(cells.len(), 7, "seeds.tsv: {line}");
            let number = |cell: &str| {
                (!cell.is_empty())
                    .then(|| parse_number(cell).unwrap_or_else(|_| panic!("{cell} in {line}")))
            };
            Row {
                figure: cells[0],
                query: cells[1],
                readout: cells[2],
                text: cells[3],
                value: number(cells[4]),
                within: number(cells[5]).unwrap_or(0.0),
                source: cells[6],
            }
        })
        .collect()
}

#[test]
fn every_seed_number_is_on_its_figure() {
    let table = include_str!("seeds.tsv");
    let rows = rows(table);
    assert!(rows.len() >= 40, "the table has {} rows", rows.len());
    for row in &rows {
        let context = format!(
            "{} {} {} ({})",
            row.figure, row.query, row.readout, row.source
        );
        let value = if row.figure == "exercise" {
            let exercise = EXERCISES
                .iter()
                .find(|e| e.id == row.query)
                .unwrap_or_else(|| panic!("{context}: no such exercise"));
            (exercise.answer)()
        } else {
            let (_, figure) =
                find(row.figure).unwrap_or_else(|| panic!("{context}: no such figure"));
            let mut notices = Vec::new();
            let readouts = (figure.native.readouts)(&Query::parse(row.query), &mut notices);
            assert!(notices.is_empty(), "{context}: {notices:?}");
            let readout = readouts
                .iter()
                .find(|r| r.id == row.readout)
                .unwrap_or_else(|| panic!("{context}: no such readout"));
            if !row.text.is_empty() {
                assert_eq!(readout.text, row.text, "{context}");
            }
            readout.value
        };
        if let Some(expected) = row.value {
            assert!(
                (value - expected).abs() <= row.within,
                "{context}: {value} against {expected} ± {}",
                row.within
            );
        }
    }
}
