//! Every figure's equations end in its readouts: each value an equation
//! shows for a readout is that readout's text, at the defaults, at the
//! figure's example and at other settings, so the MathML a reader sees can
//! never disagree with the numbers beside it.
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::notation::GLOSSARY;
use parallax::figures::{Figure, FIGURES};
use parallax::model::query::Query;
use parallax::widgets::{Equation, Piece, Symbol};

/// Every (readout id, text) an equation's pieces quote.
fn values(equation: &Equation) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    equation.each_piece(&mut |piece| {
        if let Piece::Value(text, id) = piece {
            out.push((*id, text.clone()));
        }
    });
    out
}

/// A number as the equation writes it: `6.74`, `4,096`, `13.5 GB`, `2.3%`, `1.07 GB`.
fn number(text: &str) -> f64 {
    shown(text).map_or_else(|| panic!("not a number: {text}"), |(value, _)| value)
}

/// Evaluates a row of substituted values: products (× or side by side)
/// summed with + and −, fractions, groups; `None` where it holds symbols,
/// relations or times written in words.
fn evaluate(pieces: &[Piece]) -> Option<f64> {
    let mut total = 0.0;
    let mut term: Option<f64> = None;
    let mut sign = 1.0;
    for piece in pieces {
        let factor = match piece {
            Piece::Num(text) => number(text),
            Piece::Sci(value) => *value,
            Piece::Value(text, _) if !text.contains(' ') || text.ends_with('B') => number(text),
            Piece::Frac(top, bottom) => evaluate(top)? / evaluate(bottom)?,
            Piece::Group(inside) => evaluate(inside)?,
            Piece::Unit(_) => continue,
            Piece::Op("×") => continue,
            Piece::Op("+") | Piece::Op("−") => {
                total += sign * term.take()?;
                sign = if matches!(piece, Piece::Op("−")) {
                    -1.0
                } else {
                    1.0
                };
                continue;
            }
            _ => return None,
        };
        term = Some(term.unwrap_or(1.0) * factor);
    }
    Some(total + sign * term?)
}

const SETTINGS: [&str; 6] = [
    "",
    "gpus=3&stage=2&tp=2&pp=2&micro=12&schedule=interleaved&chunks=3",
    "model=llama3-70b&gpu=h100-sxm&tokens=15T&busy-util=0.5&flop=6nd-attn",
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

/// A result as the page shows it, `96.1 GB` or `20.0%`: its value and half
/// a unit of its last digit (what its rounding hides), in base units;
/// `None` for a text in other units (years, FLOP in scientific form).
fn shown(text: &str) -> Option<(f64, f64)> {
    let units = [
        ("GB", 1e9),
        ("MB", 1e6),
        ("KB", 1e3),
        ("TB", 1e12),
        ("B", 1.0),
        ("%", 0.01),
        ("", 1.0),
    ];
    let text = text.replace(',', "");
    units.iter().find_map(|&(unit, scale)| {
        let body = text.strip_suffix(unit)?.trim();
        let value: f64 = body.parse().ok()?;
        let decimals = body.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        Some((value * scale, 0.5 * 10f64.powi(-decimals) * scale))
    })
}

/// Experts, context parallelism, a published MFU and stages that do not
/// divide the layers (126 on 16), beside [`SETTINGS`].
const EXTRA: [&str; 10] = [
    // Issue 38: FP8's share of the arithmetic's time, FP8 weights and BF16
    // moments, DualPipe's two copies, DeepSeek-V3's MLA and dense layers.
    "model=llama2-7b&gpu=h100-sxm&gpus=8&stage=1&precision=fp8",
    "gpu=b200&gpus=64&stage=3&precision=fp8-primary&moments=bf16",
    "model=deepseek-v3&gpu=h800&gpus=2048&pp=16&ep=64&schedule=dualpipe&stage=1&bytes=18&precision=fp8&moments=bf16&batch=15360&flop=6nd-attn",
    "schedule=dualpipev&pp=4&micro=8&gpus=64&tp=4",
    "schedule=dualpipe&pp=3&micro=5",
    "model=llama3-70b&gpu=h100-sxm&gpus=512&seq=131072&cp=16&tp=8&pp=4&batch=64&stage=1",
    "model=mixtral-8x7b&gpu=h100-sxm&gpus=256&batch=256&ep=8&tp=2&stage=1",
    "model=gpt3-175b&gpus=4096&stage=1&tp=2&pp=4&micro-batch=4&batch=1024",
    "model=mixtral-8x7b",
    "model=llama3-405b&gpu=h100-sxm&gpus=16384&tp=8&pp=16&sp=1&schedule=interleaved&chunks=2&stage=2&bytes=18&batch=2048&step-mfu=0.41&flop=6nd-attn",
];

/// The settings, the extra ones, the figure's example, and every slider of
/// the figure at five positions along its range.
fn many_settings(figure: &Figure) -> Vec<String> {
    let sweep = (figure.native.keys)()
        .into_iter()
        .filter_map(|key| (figure.native.slider)(key.key).map(|s| (key.key, s)))
        .flat_map(|(key, slider)| {
            (0..=4).map(move |i| {
                let value = slider.min + (slider.max - slider.min) * f64::from(i) / 4.0;
                format!("{key}={}", value.round())
            })
        });
    SETTINGS
        .iter()
        .chain(&EXTRA)
        .chain([&figure.about.example])
        .map(|query| query.to_string())
        .chain(sweep)
        .collect()
}

/// One notation (issue 23): every letter of every figure's equations, at
/// many settings, has its meaning in the glossary, which gives each letter
/// one meaning and no meaning twice. The 3D figure's n for the GPUs that
/// every other figure calls N, or the planner defining X while `why` used
/// it bare, fail here.
#[test]
fn every_letter_has_one_meaning() {
    let key = |s: &Symbol| (s.letter, s.subscript);
    for (index, symbol) in GLOSSARY.iter().enumerate() {
        assert!(
            !GLOSSARY[..index]
                .iter()
                .any(|s| key(s) == key(symbol) || s.meaning == symbol.meaning),
            "{symbol:?} twice"
        );
        assert!(
            !symbol.meaning.contains(['<', '&']),
            "{symbol:?}: plain text"
        );
    }
    let mut undefined = Vec::new();
    for figure in FIGURES {
        for query in &many_settings(figure) {
            for equation in (figure.native.equations)(&Query::parse(query), &mut Vec::new()) {
                for (letter, subscript, _) in equation.symbols() {
                    let entry = format!("{}: {letter}_{subscript}", figure.slug());
                    if !GLOSSARY.iter().any(|s| key(s) == (letter, subscript))
                        && !undefined.contains(&entry)
                    {
                        undefined.push(entry);
                    }
                }
            }
        }
    }
    assert!(undefined.is_empty(), "not in the glossary: {undefined:?}");
}

/// The substituted values compute to the result as the page writes it:
/// every equation whose middle row is numbers (and ends in a readout),
/// evaluated with the numbers as shown, rounds to the shown result. A row
/// whose rounded inputs could not give it (80 × 1.19 GB + 34 MB + 659 MB
/// shown as 96.1 GB: it is 95.9) fails.
#[test]
fn the_substituted_values_compute_to_the_result() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for figure in FIGURES {
        for query in &many_settings(figure) {
            let query = query.as_str();
            let parsed = Query::parse(query);
            let readouts = (figure.native.readouts)(&parsed, &mut Vec::new());
            for equation in (figure.native.equations)(&parsed, &mut Vec::new()) {
                // A result may follow "≈": a readout rounder than the row above it.
                let last = equation.rows.last().map(|row| match row.first() {
                    Some(Piece::Op("≈")) => &row[1..],
                    _ => &row[..],
                });
                let Some(Piece::Value(_, id)) = last.and_then(|row| row.first()) else {
                    continue;
                };
                let Some(row) = equation
                    .rows
                    .get(equation.rows.len().wrapping_sub(2))
                    .filter(|_| equation.rows.len() >= 3)
                else {
                    continue;
                };
                let Some(value) = evaluate(row) else { continue };
                let readout = readouts.iter().find(|r| r.id == *id).unwrap();
                // The exact value the readout stands for, within the rounding of the inputs shown (2%).
                assert!(
                    (value / readout.value - 1.0).abs() < 0.02
                        || (value - readout.value).abs() < 1e-9,
                    "{} {id}: the values give {value}, the readout {} ({})",
                    figure.slug(),
                    readout.value,
                    equation.words
                );
                // And the text shown, to its last digit.
                if let Some((result, half_unit)) = shown(&readout.text) {
                    if (value - result).abs() > half_unit * (1.0 + 1e-9) {
                        wrong.push(format!(
                            "{} ?{query} {id}: the row as shown gives {value}, the page shows {}",
                            figure.slug(),
                            readout.text
                        ));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 50, "{checked}");
}
