//! Equations as MathML, built from typed pieces: a figure says what its
//! formula is made of (variables tied to controls and readouts, numbers,
//! operators, fractions, roots) and this module writes the markup. Browsers
//! draw MathML natively (Chromium, Firefox, Safari): no fonts, no script.
//!
//! An equation is a derivation in rows, aligned on "=": the formula in
//! symbols, the same with the current values, the result as its readout
//! writes it. Each variable carries `data-tie` (the control key or readout
//! id it stands for) so that the figure can light up a symbol, its control
//! and its readout together.

use leptos::prelude::*;

use super::scope::use_tie;

/// One piece of an equation.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// A variable: its letter, an optional subscript, and the control key or
    /// readout id it stands for ("" when it stands for neither).
    Var(&'static str, &'static str, &'static str),
    /// A number as written (`8`, `0.4`).
    Num(String),
    /// A number in scientific form, mantissa × 10^exponent, to three figures.
    Sci(f64),
    /// A quantity as its readout writes it (`13.5 GB`), tied to that readout.
    Value(String, &'static str),
    /// A word or unit after a number (`B`, `FLOP/s`).
    Unit(&'static str),
    /// An operator or relation: `=`, `+`, `−`, `×`, `<`, `⇒`, `≈`.
    Op(&'static str),
    Frac(Vec<Piece>, Vec<Piece>),
    Sqrt(Vec<Piece>),
    /// Pieces in parentheses.
    Group(Vec<Piece>),
    /// `⌈…⌉`.
    Ceil(Vec<Piece>),
    /// A function name applied to what follows (`GeLU`).
    Func(&'static str),
    /// A letter with a subscript computed at run time (`W₁,₃`).
    Indexed(&'static str, String),
    /// Σ from i = 1 to the pieces given.
    Sum(Vec<Piece>),
}

/// A number, written as given.
pub fn num(value: impl ToString) -> Piece {
    Piece::Num(value.to_string())
}

/// What a letter in a figure's equations stands for, shown under them:
/// `Ψ` with subscript `s`, "the parameters on the most loaded stage".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Symbol {
    pub letter: &'static str,
    pub subscript: &'static str,
    pub meaning: &'static str,
}

/// One equation: rows of a derivation, and the same in words for screen readers.
#[derive(Clone, Debug, PartialEq)]
pub struct Equation {
    /// What it says, in a sentence.
    pub words: String,
    /// The left-hand side, shown on the first row only.
    pub left: Vec<Piece>,
    /// Each row's right-hand side, after its relation (`=` unless given).
    pub rows: Vec<Vec<Piece>>,
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn push_all(out: &mut String, pieces: &[Piece], tied: Option<&str>) {
    for piece in pieces {
        push(out, piece, tied);
    }
}

/// `pieces` as one `<mrow>`.
fn row(out: &mut String, pieces: &[Piece], tied: Option<&str>) {
    out.push_str("<mrow>");
    push_all(out, pieces, tied);
    out.push_str("</mrow>");
}

fn push(out: &mut String, piece: &Piece, tied: Option<&str>) {
    match piece {
        Piece::Var(name, sub, tie) => {
            let lit = if !tie.is_empty() && tied == Some(tie) {
                " class=\"tied\""
            } else {
                ""
            };
            let attrs = if tie.is_empty() {
                String::new()
            } else {
                format!(" data-tie=\"{tie}\"{lit}")
            };
            if sub.is_empty() {
                out.push_str(&format!("<mi{attrs}>{name}</mi>"));
            } else {
                out.push_str(&format!(
                    "<msub{attrs}><mi>{name}</mi><mi>{sub}</mi></msub>"
                ));
            }
        }
        Piece::Num(text) => out.push_str(&format!("<mn>{}</mn>", escape(text))),
        Piece::Sci(value) => {
            let exponent = if *value == 0.0 {
                0
            } else {
                value.abs().log10().floor() as i32
            };
            let mantissa = value / 10f64.powi(exponent);
            if (0..3).contains(&exponent) {
                out.push_str(&format!(
                    "<mn>{}</mn>",
                    crate::model::units::significant(*value, 3)
                ));
            } else {
                out.push_str(&format!(
                    "<mn>{}</mn><mo>×</mo><msup><mn>10</mn><mn>{exponent}</mn></msup>",
                    crate::model::units::significant(mantissa, 3)
                ));
            }
        }
        Piece::Value(text, readout) => {
            let lit = if !readout.is_empty() && tied == Some(readout) {
                " class=\"tied\""
            } else {
                ""
            };
            out.push_str(&format!(
                "<mn data-result=\"{readout}\" data-tie=\"{readout}\"{lit}>{}</mn>",
                escape(text)
            ));
        }
        Piece::Unit(unit) => out.push_str(&format!(
            "<mspace width=\"0.2em\"/><mtext>{}</mtext>",
            escape(unit)
        )),
        Piece::Op(op) => out.push_str(&format!("<mo>{}</mo>", escape(op))),
        Piece::Frac(top, bottom) => {
            out.push_str("<mfrac>");
            row(out, top, tied);
            row(out, bottom, tied);
            out.push_str("</mfrac>");
        }
        Piece::Sqrt(inside) => {
            out.push_str("<msqrt>");
            push_all(out, inside, tied);
            out.push_str("</msqrt>");
        }
        Piece::Group(inside) => fenced(out, "(", inside, ")", tied),
        Piece::Ceil(inside) => fenced(out, "⌈", inside, "⌉", tied),
        Piece::Func(name) => out.push_str(&format!("<mi mathvariant=\"normal\">{name}</mi>")),
        Piece::Indexed(name, sub) => out.push_str(&format!(
            "<msub><mi>{name}</mi><mn>{}</mn></msub>",
            escape(sub)
        )),
        Piece::Sum(upper) => {
            out.push_str("<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow>");
            row(out, upper, tied);
            out.push_str("</munderover>");
        }
    }
}

fn fenced(out: &mut String, open: &str, inside: &[Piece], close: &str, tied: Option<&str>) {
    out.push_str(&format!("<mrow><mo>{open}</mo>"));
    push_all(out, inside, tied);
    out.push_str(&format!("<mo>{close}</mo></mrow>"));
}

/// The equation as a `<math>` element, aligned on "=", with the piece tied
/// to `tied` (a control key or readout id) marked.
pub fn render(equation: &Equation, tied: Option<&str>) -> String {
    let mut out = format!(
        "<math display=\"block\" aria-label=\"{}\"><mtable>",
        escape(&equation.words)
    );
    for (index, rhs) in equation.rows.iter().enumerate() {
        out.push_str("<mtr><mtd displaystyle=\"true\">");
        if index == 0 {
            row(&mut out, &equation.left, tied);
        }
        out.push_str("</mtd><mtd displaystyle=\"true\">");
        // A row that starts with a relation of its own (⇒, <) keeps it; the rest read "= …".
        let starts_with_relation =
            matches!(rhs.first(), Some(Piece::Op(op)) if ["<", ">", "⇒", "≈", "≤"].contains(op));
        out.push_str("<mrow>");
        if !starts_with_relation {
            out.push_str("<mo>=</mo>");
        }
        push_all(&mut out, rhs, tied);
        out.push_str("</mrow></mtd></mtr>");
    }
    out.push_str("</mtable></math>");
    out
}

/// A figure's equations, redrawn as its values change and as the reader
/// points at a symbol, a control or a readout.
#[component]
pub fn Equations(
    /// The equations, with the current values.
    #[prop(into)]
    equations: Signal<Vec<Equation>>,
    /// The letters a reader may not know, explained under the equations.
    symbols: &'static [Symbol],
) -> impl IntoView {
    let tie = use_tie();
    let markup = move || {
        let tied = tie.get();
        equations.with(|all| {
            all.iter()
                .map(|e| render(e, tied.as_deref()))
                .collect::<String>()
        })
    };
    let legend = (!symbols.is_empty()).then(|| {
        view! {
            <p class="figure__symbols">
                {symbols
                    .iter()
                    .map(|s| view! {
                        <span class="figure__symbol">
                            <i>{s.letter}</i>
                            {(!s.subscript.is_empty()).then(|| view! { <sub>{s.subscript}</sub> })}
                            ": "
                            {s.meaning}
                        </span>
                    })
                    .collect_view()}
            </p>
        }
    });
    view! {
        // A long equation scrolls sideways on a phone; keyboard users scroll it once it has focus.
        <div class="figure__equations" tabindex="0" role="group" aria-label="Equations" inner_html=markup></div>
        {legend}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Equation {
        Equation {
            words: "M equals 16 Psi: 107.8 GB".to_string(),
            left: vec![Piece::Var("M", "", "training-state")],
            rows: vec![
                vec![num(16), Piece::Var("Ψ", "", "model")],
                vec![
                    num(16),
                    Piece::Op("×"),
                    Piece::Sci(6.74e9),
                    Piece::Unit("B"),
                ],
                vec![Piece::Value("107.8 GB".to_string(), "training-state")],
            ],
        }
    }

    /// The seeds' M = 16Ψ, with Llama 2 7B's 6.74 × 10⁹, in MathML Core.
    #[test]
    fn renders_a_derivation_in_rows() {
        let html = render(&memory(), None);
        assert_eq!(
            html,
            "<math display=\"block\" aria-label=\"M equals 16 Psi: 107.8 GB\"><mtable>\
             <mtr><mtd displaystyle=\"true\"><mrow><mi data-tie=\"training-state\">M</mi></mrow></mtd><mtd displaystyle=\"true\"><mrow><mo>=</mo><mn>16</mn><mi data-tie=\"model\">Ψ</mi></mrow></mtd></mtr>\
             <mtr><mtd displaystyle=\"true\"></mtd><mtd displaystyle=\"true\"><mrow><mo>=</mo><mn>16</mn><mo>×</mo><mn>6.74</mn><mo>×</mo><msup><mn>10</mn><mn>9</mn></msup><mspace width=\"0.2em\"/><mtext>B</mtext></mrow></mtd></mtr>\
             <mtr><mtd displaystyle=\"true\"></mtd><mtd displaystyle=\"true\"><mrow><mo>=</mo><mn data-result=\"training-state\" data-tie=\"training-state\">107.8 GB</mn></mrow></mtd></mtr>\
             </mtable></math>"
        );
    }

    /// Pointing at the training-state readout lights up M and the result.
    #[test]
    fn the_tied_pieces_are_marked() {
        let html = render(&memory(), Some("training-state"));
        assert_eq!(html.matches("class=\"tied\"").count(), 2);
        assert!(html.contains("<mi data-tie=\"model\">Ψ</mi>"));
    }

    /// (p − 1)/(m + p − 1) < 0.1 ⇒ m > 27: fractions, subscripts, roots and
    /// a row with its own relation; text is escaped.
    #[test]
    fn fractions_roots_and_relations() {
        let equation = Equation {
            words: "a < b".to_string(),
            left: vec![Piece::Var("k", "*", "best-every")],
            rows: vec![
                vec![Piece::Sqrt(vec![Piece::Var("L", "", "layers")])],
                vec![
                    Piece::Op("<"),
                    Piece::Frac(
                        vec![num(3)],
                        vec![Piece::Var("m", "", "micro"), Piece::Op("+"), num(3)],
                    ),
                ],
            ],
        };
        let html = render(&equation, None);
        assert!(html.contains("<msub data-tie=\"best-every\"><mi>k</mi><mi>*</mi></msub>"));
        assert!(html.contains("<msqrt><mi data-tie=\"layers\">L</mi></msqrt>"));
        assert!(html.contains("<mrow><mo>&lt;</mo><mfrac><mrow><mn>3</mn></mrow><mrow><mi data-tie=\"micro\">m</mi><mo>+</mo><mn>3</mn></mrow></mfrac></mrow>"));
        assert!(!html.contains("<mo>=</mo><mo>&lt;</mo>"));
    }

    /// Numbers to three figures: 150 stays 150; 8.1e22 is 8.10 × 10²².
    #[test]
    fn scientific_numbers() {
        let html = |value| {
            render(
                &Equation {
                    words: String::new(),
                    left: vec![],
                    rows: vec![vec![Piece::Sci(value)]],
                },
                None,
            )
        };
        assert!(html(150.0).contains("<mn>150</mn>"));
        assert!(html(8.1e22).contains("<mn>8.10</mn><mo>×</mo><msup><mn>10</mn><mn>22</mn></msup>"));
    }
}
