//! What crosses between the page and the launch worker
//! (`src/bin/launch.rs`, where the readers and the writers live): a
//! [`Question`] one way; a reading, or every tool's launch, the other. One
//! line a field, its tag, then its values, tab-separated; a value's
//! backslashes, tabs and line breaks are escaped, so any text comes back as
//! it went. Plain text rather than JSON so that the page's wasm needs no
//! JSON parser; pure Rust, so that it is tested natively
//! (`tests/launch_export.rs`, the `launch` fuzz target).

use super::read::{Reading, Unreadable};
use super::{Launch, Part, Tool};
use crate::model::choice::Choice;

/// What the page asks the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Question {
    /// Read a pasted launch configuration.
    Read(String),
    /// Every tool's launch of the planner's plan at this URL query.
    Export(String),
}

impl Question {
    pub fn to_text(&self) -> String {
        match self {
            Self::Read(text) => format!("read\n{text}"),
            Self::Export(query) => format!("export\n{query}"),
        }
    }

    /// The question `to_text` wrote, if it is one.
    pub fn parse(text: &str) -> Option<Self> {
        match text.split_once('\n')? {
            ("read", text) => Some(Self::Read(text.to_string())),
            ("export", query) => Some(Self::Export(query.to_string())),
            _ => None,
        }
    }
}

/// Why an answer could not be decoded: a worker of another version (an
/// older copy, cached) or none at all.
fn garbled() -> Unreadable {
    Unreadable(
        "The page's launch worker answered in a form this page does not know (an older copy?): reload the page and try again. Nothing was changed."
            .to_string(),
    )
}

/// Lines of tagged, escaped values.
#[derive(Default)]
struct Lines(String);

impl Lines {
    fn line(&mut self, tag: &str, values: &[&str]) {
        self.0.push_str(tag);
        for value in values {
            self.0.push('\t');
            escape(value, &mut self.0);
        }
        self.0.push('\n');
    }
}

/// Each line of `wire` as its tag and its values, unescaped.
fn lines(wire: &str) -> impl Iterator<Item = (&str, Vec<String>)> {
    wire.lines().map(|line| {
        let mut fields = line.split('\t');
        let tag = fields.next().unwrap_or_default();
        (tag, fields.map(unescape).collect())
    })
}

/// `answer` as the worker sends it.
pub fn encode(answer: &Result<Reading, Unreadable>) -> String {
    let mut out = Lines::default();
    let reading = match answer {
        Ok(reading) => reading,
        Err(Unreadable(why)) => {
            out.line("unreadable", &[why]);
            return out.0;
        }
    };
    if let Some(tool) = reading.tool {
        out.line("tool", &[tool.id()]);
    }
    out.line("format", &[&reading.format]);
    if let Some(n) = reading.batch_per_replica {
        out.line("batch-per-replica", &[&n.to_string()]);
    }
    if let Some(n) = reading.data_parallel {
        out.line("data-parallel", &[&n.to_string()]);
    }
    for (key, value) in &reading.pairs {
        out.line("pair", &[key, value]);
    }
    for (tag, list) in [
        ("read", &reading.read),
        ("ignored", &reading.ignored),
        ("broken", &reading.broken),
    ] {
        for text in list {
            out.line(tag, &[text]);
        }
    }
    out.0
}

/// The answer [`encode`] wrote; a line it could not have written makes the
/// whole answer unreadable.
pub fn decode(wire: &str) -> Result<Reading, Unreadable> {
    let mut reading = Reading::default();
    for (tag, values) in lines(wire) {
        match (tag, values.as_slice()) {
            ("unreadable", [why]) => return Err(Unreadable(why.clone())),
            ("tool", [id]) => reading.tool = Some(Tool::from_id(id).ok_or_else(garbled)?),
            ("format", [text]) => reading.format = text.clone(),
            ("batch-per-replica", [n]) => {
                reading.batch_per_replica = Some(n.parse().map_err(|_| garbled())?)
            }
            ("data-parallel", [n]) => {
                reading.data_parallel = Some(n.parse().map_err(|_| garbled())?)
            }
            ("pair", [key, value]) => reading.pairs.push((key.clone(), value.clone())),
            ("read", [text]) => reading.read.push(text.clone()),
            ("ignored", [text]) => reading.ignored.push(text.clone()),
            ("broken", [text]) => reading.broken.push(text.clone()),
            _ => return Err(garbled()),
        }
    }
    Ok(reading)
}

/// Every tool's launch, as the worker sends them.
pub fn encode_launches(launches: &[Launch]) -> String {
    let mut out = Lines::default();
    for launch in launches {
        out.line("launch", &[launch.tool.id()]);
        out.line("written-for", &[&launch.written_for]);
        for part in &launch.parts {
            out.line("part", &[&part.name, &part.text]);
        }
        for line in &launch.unsaid {
            out.line("unsaid", &[line]);
        }
        for line in &launch.refusals {
            out.line("refusal", &[line]);
        }
    }
    out.0
}

/// The launches [`encode_launches`] wrote.
pub fn decode_launches(wire: &str) -> Result<Vec<Launch>, Unreadable> {
    let mut launches = Vec::<Launch>::new();
    for (tag, values) in lines(wire) {
        if let ("launch", [id]) = (tag, values.as_slice()) {
            launches.push(Launch {
                tool: Tool::from_id(id).ok_or_else(garbled)?,
                written_for: String::new(),
                parts: Vec::new(),
                unsaid: Vec::new(),
                refusals: Vec::new(),
            });
            continue;
        }
        let launch = launches.last_mut().ok_or_else(garbled)?;
        match (tag, values.as_slice()) {
            ("written-for", [text]) => launch.written_for = text.clone(),
            ("part", [name, text]) => launch.parts.push(Part {
                name: name.clone(),
                text: text.clone(),
            }),
            ("unsaid", [text]) => launch.unsaid.push(text.clone()),
            ("refusal", [text]) => launch.refusals.push(text.clone()),
            _ => return Err(garbled()),
        }
    }
    Ok(launches)
}

/// `value` with `\`, tab and line breaks written as `\\`, `\t`, `\n`, `\r`.
fn escape(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// What [`escape`] wrote, read back.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
