//! Every figure's equations end in its readouts: each value an equation
//! shows for a readout is that readout's text, at the defaults, at the
//! figure's example and at other settings, so the MathML a reader sees can
//! never disagree with the numbers beside it.
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::FIGURES;
use parallax::model::query::Query;
use parallax::widgets::{Equation, Piece};

/// Every (readout id, text) an equation's pieces quote.
fn quoted(pieces: &[Piece], out: &mut Vec<(&'static str, String)>) {
    for piece in pieces {
        match piece {
            Piece::Value(text, id) => out.push((id, text.clone())),
            Piece::Frac(top, bottom) => {
                quoted(top, out);
                quoted(bottom, out);
            }
            Piece::Sqrt(inside)
            | Piece::Group(inside)
            | Piece::Ceil(inside)
            | Piece::Sum(inside) => quoted(inside, out),
            _ => {}
        }
    }
}

fn values(equation: &Equation) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    quoted(&equation.left, &mut out);
    for row in &equation.rows {
        quoted(row, &mut out);
    }
    out
}

const SETTINGS: [&str; 6] = [
    "",
    "gpus=3&stage=2&tp=2&pp=2&micro=12&schedule=interleaved&chunks=3",
    "model=llama3-70b&gpu=h100-sxm&tokens=15T&mfu=0.5&flop=6nd-attn",
    "stage=3&gpus=16&recompute=full&bytes=18",
    "pp=8&micro=3&schedule=zb-h1&layers=24&every=5",
    "tp=8&dp=64&zero=3&link=nvlink&gpus=64&batch=2048&sp=1",
];

#[test]
fn every_equation_ends_in_its_readouts() {
    let mut checked = 0;
    for figure in FIGURES {
        let example = figure.about.example;
        for query in SETTINGS.iter().copied().chain([example]) {
            let query = Query::parse(query);
            let readouts = (figure.native.readouts)(&query, &mut Vec::new());
            let equations = (figure.native.equations)(&query, &mut Vec::new());
            assert!(!equations.is_empty(), "{} has equations", figure.slug());
            // All but a purely symbolic one (the MLP as a sum) end in a readout.
            let ending = equations.iter().filter(|e| !values(e).is_empty()).count();
            assert!(
                ending >= equations.len().max(2) - 1,
                "{}: equations end in readouts",
                figure.slug()
            );
            for equation in &equations {
                assert!(!equation.words.is_empty());
                for (id, text) in values(equation) {
                    let readout = readouts
                        .iter()
                        .find(|r| r.id == id)
                        .unwrap_or_else(|| panic!("{}: no readout {id}", figure.slug()));
                    assert_eq!(readout.text, text, "{} {id}", figure.slug());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
