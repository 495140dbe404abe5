//! A reading as it crosses from the launch worker (`src/bin/launch.rs`,
//! where the parsers live) to the page: one line a field, its tag, then its
//! values, tab-separated. A value's backslashes, tabs and line breaks are
//! escaped, so any text a paste holds comes back as it went. Plain text
//! rather than JSON so that the page's wasm needs no JSON parser; pure
//! Rust, so that it is tested natively (`tests/launch_export.rs`).

use super::read::{Reading, Unreadable};
use super::Tool;
use crate::model::choice::Choice;

/// `answer` as the worker sends it.
pub fn encode(answer: &Result<Reading, Unreadable>) -> String {
    let mut out = String::new();
    let mut line = |tag: &str, values: &[&str]| {
        out.push_str(tag);
        for value in values {
            out.push('\t');
            escape(value, &mut out);
        }
        out.push('\n');
    };
    let reading = match answer {
        Ok(reading) => reading,
        Err(Unreadable(why)) => {
            line("unreadable", &[why]);
            return out;
        }
    };
    if let Some(tool) = reading.tool {
        line("tool", &[tool.id()]);
    }
    line("format", &[&reading.format]);
    if let Some(n) = reading.batch_per_replica {
        line("batch-per-replica", &[&n.to_string()]);
    }
    if let Some(n) = reading.data_parallel {
        line("data-parallel", &[&n.to_string()]);
    }
    for (key, value) in &reading.pairs {
        line("pair", &[key, value]);
    }
    for (tag, list) in [
        ("read", &reading.read),
        ("ignored", &reading.ignored),
        ("broken", &reading.broken),
    ] {
        for text in list {
            line(tag, &[text]);
        }
    }
    out
}

/// The answer `encode` wrote; a line it could not have written (a worker
/// of another version, cached) makes the whole answer unreadable.
pub fn decode(wire: &str) -> Result<Reading, Unreadable> {
    let garbled = || {
        Unreadable(
            "The page's launch reader answered in a form this page does not know (an older copy?): reload the page and read again. Nothing was changed."
                .to_string(),
        )
    };
    let mut reading = Reading::default();
    for line in wire.lines() {
        let mut fields = line.split('\t');
        let tag = fields.next().unwrap_or_default();
        let values: Vec<String> = fields.map(unescape).collect();
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

/// `value` with `\`, tab and line break written as `\\`, `\t`, `\n`.
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
