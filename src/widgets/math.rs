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

use super::scope::{is_tied, use_tie};
use crate::hooks::{use_scoped, use_scoped_memo};

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
    /// Σ from i = 0 to the pieces given (GPUs are numbered from 0).
    Sum(Vec<Piece>),
}

/// A number, written as given.
pub fn num(value: impl ToString) -> Piece {
    Piece::Num(value.to_string())
}

/// What a letter in the equations stands for, listed under them: `Ψ` with
/// subscript `s`, "the parameters on the most loaded stage".
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

impl Equation {
    /// Calls `f` on every piece, those inside fractions, roots and groups
    /// too, in the order written.
    pub fn each_piece(&self, f: &mut impl FnMut(&Piece)) {
        fn visit(pieces: &[Piece], f: &mut impl FnMut(&Piece)) {
            for piece in pieces {
                f(piece);
                match piece {
                    Piece::Frac(top, bottom) => {
                        visit(top, f);
                        visit(bottom, f);
                    }
                    Piece::Sqrt(inside)
                    | Piece::Group(inside)
                    | Piece::Ceil(inside)
                    | Piece::Sum(inside) => visit(inside, f),
                    _ => {}
                }
            }
        }
        visit(&self.left, f);
        for row in &self.rows {
            visit(row, f);
        }
    }

    /// Its variables, (letter, subscript, tie), in the order written, each once.
    pub fn symbols(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        let mut out: Vec<(&'static str, &'static str, &'static str)> = Vec::new();
        self.each_piece(&mut |piece| {
            // A matrix with computed indices (W₁,₀) and a function (φ) are letters to define too.
            let (letter, sub, tie) = match *piece {
                Piece::Var(letter, sub, tie) => (letter, sub, tie),
                Piece::Indexed(letter, _) | Piece::Func(letter) => (letter, "", ""),
                _ => return,
            };
            if !out.iter().any(|&(l, s, _)| l == letter && s == sub) {
                out.push((letter, sub, tie));
            }
        });
        out
    }
}

/// An operator or unit as markup: the two that HTML reads as tags written
/// as entities (the rest are authored in code and carry no markup).
fn markup(text: &'static str) -> &'static str {
    match text {
        "<" => "&lt;",
        ">" => "&gt;",
        other => other,
    }
}

/// Writes an equation's shape as MathML: texts that follow the values
/// (numbers, readout values, computed subscripts) are left out of their
/// element, which is marked `data-v`, and kept in order, so that a change of
/// value rewrites those texts and nothing else.
#[derive(Default)]
struct Writer {
    out: String,
    /// The texts left out, in document order.
    texts: Vec<String>,
}

impl Writer {
    /// Appends markup, piece by piece (no formatting machinery).
    fn raw(&mut self, parts: &[&str]) {
        for part in parts {
            self.out.push_str(part);
        }
    }

    /// ` data-tie="tie"`, unless it stands for nothing.
    fn tie(&mut self, tie: &str) {
        if !tie.is_empty() {
            self.raw(&[" data-tie=\"", tie, "\""]);
        }
    }

    /// `<mn attrs data-v></mn>`, with `text` set aside.
    fn text(&mut self, attrs: &[&str], text: &str) {
        self.texts.push(text.to_string());
        self.raw(&["<mn"]);
        self.raw(attrs);
        self.raw(&[" data-v></mn>"]);
    }

    /// `pieces` in order; where a number meets a number (a coefficient and
    /// the value put in for its variable: `3m` with m = 4) an explicit `×`
    /// goes between, so that the row reads `3 × 4`, never `34`.
    fn all(&mut self, pieces: &[Piece]) {
        let numeric =
            |piece: &Piece| matches!(piece, Piece::Num(_) | Piece::Sci(_) | Piece::Value(..));
        for (index, piece) in pieces.iter().enumerate() {
            if index > 0 && numeric(piece) && numeric(&pieces[index - 1]) {
                self.raw(&["<mo>×</mo>"]);
            }
            self.piece(piece);
        }
    }

    /// `pieces` as one `<mrow>`.
    fn row(&mut self, pieces: &[Piece]) {
        self.raw(&["<mrow>"]);
        self.all(pieces);
        self.raw(&["</mrow>"]);
    }

    fn fenced(&mut self, open: &str, inside: &[Piece], close: &str) {
        self.raw(&["<mrow><mo>", open, "</mo>"]);
        self.all(inside);
        self.raw(&["<mo>", close, "</mo></mrow>"]);
    }

    fn piece(&mut self, piece: &Piece) {
        match piece {
            Piece::Var(name, sub, tie) => {
                let tag = if sub.is_empty() { "<mi" } else { "<msub" };
                self.raw(&[tag]);
                self.tie(tie);
                if sub.is_empty() {
                    self.raw(&[">", name, "</mi>"]);
                } else {
                    self.raw(&["><mi>", name, "</mi><mi>", sub, "</mi></msub>"]);
                }
            }
            Piece::Num(text) => self.text(&[], text),
            Piece::Sci(value) => {
                let exponent = if *value == 0.0 {
                    0
                } else {
                    value.abs().log10().floor() as i32
                };
                if (0..3).contains(&exponent) {
                    self.text(&[], &crate::model::units::significant(*value, 3));
                } else {
                    let mantissa = value / 10f64.powi(exponent);
                    self.text(&[], &crate::model::units::significant(mantissa, 3));
                    self.raw(&["<mo>×</mo><msup><mn>10</mn>"]);
                    self.text(&[], &exponent.to_string());
                    self.raw(&["</msup>"]);
                }
            }
            Piece::Value(text, readout) => self.text(
                &[" data-result=\"", readout, "\" data-tie=\"", readout, "\""],
                text,
            ),
            Piece::Unit(unit) => {
                self.raw(&["<mspace width=\"0.2em\"/><mtext>", markup(unit), "</mtext>"])
            }
            Piece::Op(op) => self.raw(&["<mo>", markup(op), "</mo>"]),
            Piece::Frac(top, bottom) => {
                self.raw(&["<mfrac>"]);
                self.row(top);
                self.row(bottom);
                self.raw(&["</mfrac>"]);
            }
            Piece::Sqrt(inside) => {
                self.raw(&["<msqrt>"]);
                self.all(inside);
                self.raw(&["</msqrt>"]);
            }
            Piece::Group(inside) => self.fenced("(", inside, ")"),
            Piece::Ceil(inside) => self.fenced("⌈", inside, "⌉"),
            Piece::Func(name) => self.raw(&["<mi mathvariant=\"normal\">", name, "</mi>"]),
            Piece::Indexed(name, sub) => {
                self.raw(&["<msub><mi>", name, "</mi>"]);
                self.text(&[], sub);
                self.raw(&["</msub>"]);
            }
            Piece::Sum(upper) => {
                self.raw(&["<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>0</mn></mrow>"]);
                self.row(upper);
                self.raw(&["</munderover>"]);
            }
        }
    }

    /// The equation as a `<math>` element, aligned on "="; its words (which
    /// carry values too) become its label apart from the markup.
    fn equation(&mut self, equation: &Equation) {
        self.raw(&["<math display=\"block\"><mtable>"]);
        for (index, rhs) in equation.rows.iter().enumerate() {
            self.raw(&["<mtr><mtd displaystyle=\"true\">"]);
            if index == 0 {
                self.row(&equation.left);
            }
            self.raw(&["</mtd><mtd displaystyle=\"true\">"]);
            // A row that starts with a relation of its own (⇒, <) keeps it; the rest read "= …".
            let starts_with_relation = matches!(rhs.first(), Some(Piece::Op(op)) if ["<", ">", "⇒", "≈", "≤"].contains(op));
            self.raw(&["<mrow>"]);
            if !starts_with_relation {
                self.raw(&["<mo>=</mo>"]);
            }
            self.all(rhs);
            self.raw(&["</mrow></mtd></mtr>"]);
        }
        self.raw(&["</mtable></math>"]);
    }
}

/// The equation as a `<math>` element, aligned on "=", its values and
/// label in place: what the page shows once [`Shown::fill`] has run.
#[cfg(test)]
pub fn render(equation: &Equation) -> String {
    use super::escape;
    let layout = Layout::of(equation);
    let mut parts = layout.shape.split(" data-v></");
    let mut out = parts.next().unwrap_or_default().to_string();
    for (part, text) in parts.zip(&layout.texts) {
        out.push_str(&format!(">{}</{part}", escape(text)));
    }
    out.replacen(
        "<math display=\"block\">",
        &format!(
            "<math display=\"block\" aria-label=\"{}\">",
            escape(&layout.words)
        ),
        1,
    )
}

/// The letters `equations` use, as `glossary` defines them and in its
/// order, each with the tie of its symbol (the control key or readout id
/// it stands for), so that its entry lights up with it.
fn legend(equations: &[Equation], glossary: &[Symbol]) -> Vec<(Symbol, &'static str)> {
    let used: Vec<_> = equations.iter().flat_map(Equation::symbols).collect();
    glossary
        .iter()
        .filter_map(|symbol| {
            used.iter()
                .find(|(l, s, _)| *l == symbol.letter && *s == symbol.subscript)
                .map(|&(_, _, tie)| (*symbol, tie))
        })
        .collect()
}

/// An equation split into what changes with its shape and what changes
/// with its values: its markup without its value texts, those texts in
/// document order, and its words.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub shape: String,
    pub texts: Vec<String>,
    pub words: String,
}

impl Layout {
    /// The legend as markup, the paragraph under the equations: built
    /// again only when the letters change, its entries tied as their
    /// symbols are. `None` when no letter is defined.
    fn legend(entries: &[(Symbol, &'static str)]) -> Option<Self> {
        let mut writer = Writer::default();
        for (symbol, tie) in entries {
            writer.raw(&["<span"]);
            writer.tie(tie);
            writer.raw(&["><i>", symbol.letter, "</i>"]);
            if !symbol.subscript.is_empty() {
                writer.raw(&["<sub>", symbol.subscript, "</sub>"]);
            }
            writer.raw(&[": ", symbol.meaning, "</span> "]);
        }
        (!entries.is_empty()).then(|| Self {
            shape: format!("<p class=\"figure__symbols\">{}</p>", writer.out),
            texts: Vec::new(),
            words: String::new(),
        })
    }

    pub fn of(equation: &Equation) -> Self {
        let mut writer = Writer::default();
        writer.equation(equation);
        Self {
            shape: writer.out,
            texts: writer.texts,
            words: equation.words.clone(),
        }
    }
}

/// An equation as it stands in the page (or the legend under them): its element built for one
/// shape, with the elements whose texts follow the values.
struct Shown {
    shape: String,
    math: web_sys::Element,
    /// Its label (the equation's words) now.
    words: String,
    /// The `data-v` elements, in the order of [`Layout::texts`], and their texts now.
    leaves: Vec<(web_sys::Element, String)>,
    /// The elements tied to a control or readout, with what they are tied to (`data-tie`).
    ties: Vec<(web_sys::Element, String)>,
    /// What its tied pieces are marked for (`None`: not marked since it was built).
    marked: Option<Option<String>>,
}

fn elements(root: &web_sys::Element, selector: &str) -> Vec<web_sys::Element> {
    use wasm_bindgen::JsCast;
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<web_sys::Element>().ok())
        .collect()
}

impl Shown {
    /// Builds `shape` into a `<math>` element (the only `inner_html` here:
    /// once a shape), put in `root` in place of `old`, or at its end.
    fn build(root: &web_sys::Element, shape: &str, old: Option<&Shown>) -> Option<Self> {
        let holder = document().create_element("div").ok()?;
        holder.set_inner_html(shape);
        let math = holder.first_element_child()?;
        match old {
            Some(old) => old.math.replace_with_with_node_1(&math).ok()?,
            None => root.append_child(&math).map(drop).ok()?,
        }
        Some(Self {
            shape: shape.to_string(),
            words: String::new(),
            leaves: elements(&math, "[data-v]")
                .into_iter()
                .map(|el| (el, String::new()))
                .collect(),
            ties: elements(&math, "[data-tie]")
                .into_iter()
                .map(|el| {
                    let tie = el.get_attribute("data-tie").unwrap_or_default();
                    (el, tie)
                })
                .collect(),
            marked: None,
            math,
        })
    }

    /// Writes the texts and the label that differ from those shown.
    fn fill(&mut self, layout: &Layout) {
        for ((leaf, shown), text) in self.leaves.iter_mut().zip(&layout.texts) {
            if shown != text {
                // The text node's data, where there is one: one node
                // touched, where setting the element's text replaces it.
                match leaf.first_child() {
                    Some(node) => node.set_node_value(Some(text)),
                    None => leaf.set_text_content(Some(text)),
                }
                shown.clone_from(text);
            }
        }
        if self.words != layout.words {
            let _ = self.math.set_attribute("aria-label", &layout.words);
            self.words.clone_from(&layout.words);
        }
    }

    /// Marks the pieces tied to `tied` (a control key or readout id), unless they are already.
    fn tie(&mut self, tied: &Option<String>) {
        if self.marked.as_ref() == Some(tied) {
            return;
        }
        // A tied piece has no other class.
        for (el, tie) in &self.ties {
            let _ = if is_tied(tied, tie) {
                el.set_attribute("class", "tied")
            } else {
                el.remove_attribute("class")
            };
        }
        self.marked = Some(tied.clone());
    }
}

/// Brings the equations in `root` to `layouts`: an equation whose shape is
/// unchanged gets its changed texts; one whose shape changed is built anew
/// in its place; equations that come or go are added at the end or removed.
fn show(root: &web_sys::Element, shown: Vec<Shown>, layouts: &[Layout]) -> Vec<Shown> {
    let mut old = shown.into_iter();
    let mut now = Vec::with_capacity(layouts.len());
    for layout in layouts {
        let previous = old.next();
        let kept = match previous {
            Some(p) if p.shape == layout.shape => Some(p),
            p => Shown::build(root, &layout.shape, p.as_ref()),
        };
        if let Some(mut equation) = kept {
            equation.fill(layout);
            now.push(equation);
        }
    }
    for gone in old {
        gone.math.remove();
    }
    now
}

/// A figure's equations. Each one's markup is built once for each of its
/// shapes (a term that appears or goes, another formula); a change of value
/// rewrites the texts of the numbers that changed, and pointing at a
/// symbol, a control or a readout toggles a class.
#[component]
pub fn Equations(
    /// The equations, with the current values.
    #[prop(into)]
    equations: Signal<Vec<Equation>>,
    /// What each letter means: those the equations use are listed under
    /// them, in this order.
    glossary: &'static [Symbol],
) -> impl IntoView {
    // The equations may be dropped with a part rebuilt: their effect reads
    // through relays that leave with them.
    let tie = use_scoped(use_tie());
    let equations = use_scoped_memo(move |_| equations.get());
    let root = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |shown: Option<Vec<Shown>>| {
        let Some(root) = root.get() else {
            return Vec::new();
        };
        let layouts: Vec<Layout> = equations.with(|all| {
            all.iter()
                .map(Layout::of)
                .chain(Layout::legend(&legend(all, glossary)))
                .collect()
        });
        let mut shown = show(&root, shown.unwrap_or_default(), &layouts);
        tie.with(|t| shown.iter_mut().for_each(|e| e.tie(t)));
        shown
    });
    view! {
        // A long equation scrolls sideways on a phone; keyboard users scroll it
        // once it has focus. The legend of letters is its last child.
        <div class="figure__equations" tabindex="0" role="group" aria-label="Equations" node_ref=root></div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The legend lists the letters the equations use, in the glossary's
    /// order (not the equations'), each once, with its symbol's tie; a
    /// letter the equations do not use is left out.
    #[test]
    fn the_legend_defines_the_letters_used() {
        let glossary = [
            Symbol {
                letter: "Ψ",
                subscript: "",
                meaning: "parameters",
            },
            Symbol {
                letter: "X",
                subscript: "",
                meaning: "a rate",
            },
            Symbol {
                letter: "N",
                subscript: "",
                meaning: "GPUs",
            },
            Symbol {
                letter: "n",
                subscript: "f",
                meaning: "in flight",
            },
        ];
        let equation = Equation {
            words: String::new(),
            left: vec![Piece::Var("N", "", "gpus")],
            rows: vec![vec![
                Piece::Frac(
                    vec![Piece::Var("Ψ", "", "model")],
                    vec![Piece::Var("N", "", "gpus")],
                ),
                Piece::Var("n", "f", ""),
            ]],
        };
        assert_eq!(
            legend(&[equation], &glossary),
            [
                (glossary[0], "model"),
                (glossary[2], "gpus"),
                (glossary[3], "")
            ]
        );
        assert_eq!(legend(&[], &glossary), []);
    }

    /// A coefficient meets the value put in for its variable (`3m`, m = 4):
    /// the row reads `3 × 4`, not `34` (ZB-H1's bubble read 3/37 for 3/12).
    #[test]
    fn a_number_beside_a_number_gets_a_times_sign() {
        let equation = Equation {
            words: String::new(),
            left: vec![Piece::Var("b", "", "")],
            rows: vec![vec![
                num(3),
                num(4),
                Piece::Op("+"),
                num(1),
                Piece::Var("m", "", ""),
            ]],
        };
        let shape = Layout::of(&equation).shape;
        let times = shape.matches("<mo>×</mo>").count();
        assert_eq!(times, 1, "{shape}");
        assert!(
            shape.contains("data-v></mn><mo>×</mo><mn data-v>"),
            "{shape}"
        );
    }

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
        let html = render(&memory());
        assert_eq!(
            html,
            "<math display=\"block\" aria-label=\"M equals 16 Psi: 107.8 GB\"><mtable>\
             <mtr><mtd displaystyle=\"true\"><mrow><mi data-tie=\"training-state\">M</mi></mrow></mtd><mtd displaystyle=\"true\"><mrow><mo>=</mo><mn>16</mn><mi data-tie=\"model\">Ψ</mi></mrow></mtd></mtr>\
             <mtr><mtd displaystyle=\"true\"></mtd><mtd displaystyle=\"true\"><mrow><mo>=</mo><mn>16</mn><mo>×</mo><mn>6.74</mn><mo>×</mo><msup><mn>10</mn><mn>9</mn></msup><mspace width=\"0.2em\"/><mtext>B</mtext></mrow></mtd></mtr>\
             <mtr><mtd displaystyle=\"true\"></mtd><mtd displaystyle=\"true\"><mrow><mo>=</mo><mn data-result=\"training-state\" data-tie=\"training-state\">107.8 GB</mn></mrow></mtd></mtr>\
             </mtable></math>"
        );
    }

    /// The shape leaves out every value: the seeds' 6.74 × 10⁹ for Llama 2 7B
    /// and 3.14 × 10¹¹ make one shape, so a change of model rewrites texts only.
    #[test]
    fn a_shape_leaves_its_values_out() {
        let seven = Layout::of(&memory());
        assert_eq!(seven.texts, ["16", "16", "6.74", "9", "107.8 GB"]);
        assert_eq!(seven.words, "M equals 16 Psi: 107.8 GB");
        assert!(!seven.shape.contains("6.74") && !seven.shape.contains("aria-label"));
        assert_eq!(seven.shape.matches(" data-v>").count(), 5);
        let mut larger = memory();
        larger.rows[1][2] = Piece::Sci(3.14e11);
        larger.rows[2][0] = Piece::Value("5.0 TB".to_string(), "training-state");
        let larger = Layout::of(&larger);
        assert_eq!(larger.shape, seven.shape);
        assert_eq!(larger.texts, ["16", "16", "3.14", "11", "5.0 TB"]);
        // 150 has no exponent: another shape.
        let mut small = memory();
        small.rows[1][2] = Piece::Sci(150.0);
        assert_ne!(Layout::of(&small).shape, seven.shape);
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
        let html = render(&equation);
        assert!(html.contains("<msub data-tie=\"best-every\"><mi>k</mi><mi>*</mi></msub>"));
        assert!(html.contains("<msqrt><mi data-tie=\"layers\">L</mi></msqrt>"));
        assert!(html.contains("<mrow><mo>&lt;</mo><mfrac><mrow><mn>3</mn></mrow><mrow><mi data-tie=\"micro\">m</mi><mo>+</mo><mn>3</mn></mrow></mfrac></mrow>"));
        assert!(!html.contains("<mo>=</mo><mo>&lt;</mo>"));
    }

    /// Numbers to three figures: 150 stays 150; 8.1e22 is 8.10 × 10²².
    #[test]
    fn scientific_numbers() {
        let html = |value| {
            render(&Equation {
                words: String::new(),
                left: vec![],
                rows: vec![vec![Piece::Sci(value)]],
            })
        };
        assert!(html(150.0).contains("<mn>150</mn>"));
        assert!(html(8.1e22).contains("<mn>8.10</mn><mo>×</mo><msup><mn>10</mn><mn>22</mn></msup>"));
    }
}
