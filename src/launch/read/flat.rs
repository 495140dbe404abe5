//! A TOML file or a JSON document as the dotted keys its values sit at
//! (`parallelism.tensor_parallel_degree = "2"`, `zero_optimization.stage =
//! "3"`), so that torchtitan's and DeepSpeed's readers look settings up by
//! name whatever their nesting. Parsing is the crates' (`toml`, whose
//! nesting is bounded, and `serde_json`, which stops at 128 levels): a
//! text they refuse is named by its line and nothing of it is taken.

use super::Unreadable;

/// Dotted keys and their values as text, in the document's order (a
/// TOML table's keys sorted); an array's items joined by commas.
pub(super) type Flat = Vec<(String, String)>;

/// The line (from 1) of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Why a text of `kind` was refused, at `line`.
fn refused(kind: &str, line: usize, why: &str) -> Unreadable {
    Unreadable(format!(
        "Line {line}: this {kind} does not parse ({why}). Nothing was changed."
    ))
}

fn key(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A TOML file's settings (torchtitan's configurations).
pub(super) fn toml(text: &str) -> Result<Flat, Unreadable> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(1, |span| line_of(text, span.start));
        refused("TOML", line, e.message().trim())
    })?;
    let mut flat = Flat::new();
    walk(table.iter().collect(), "", &mut flat);
    Ok(flat)
}

/// A parsed document's value: a scalar as text, an array's items, or a
/// table's entries, so that one walk serves TOML and JSON alike.
enum Node<'a, V> {
    Scalar(String),
    Array(&'a [V]),
    Table(Vec<(&'a String, &'a V)>),
}

trait Document: Sized {
    fn node(&self) -> Node<'_, Self>;
}

impl Document for toml::Value {
    fn node(&self) -> Node<'_, Self> {
        use toml::Value;
        match self {
            Value::String(s) => Node::Scalar(s.clone()),
            Value::Integer(i) => Node::Scalar(i.to_string()),
            Value::Float(f) => Node::Scalar(f.to_string()),
            Value::Boolean(b) => Node::Scalar(b.to_string()),
            Value::Datetime(d) => Node::Scalar(d.to_string()),
            Value::Array(items) => Node::Array(items),
            Value::Table(table) => Node::Table(table.iter().collect()),
        }
    }
}

impl Document for serde_json::Value {
    fn node(&self) -> Node<'_, Self> {
        use serde_json::Value;
        match self {
            Value::String(s) => Node::Scalar(s.clone()),
            Value::Number(n) => Node::Scalar(n.to_string()),
            Value::Bool(b) => Node::Scalar(b.to_string()),
            Value::Null => Node::Scalar("null".to_string()),
            Value::Array(items) => Node::Array(items),
            Value::Object(object) => Node::Table(object.iter().collect()),
        }
    }
}

/// A table's entries into `flat` under `prefix`: a nested table's by
/// their dotted keys, an array's scalars joined by commas.
fn walk<V: Document>(entries: Vec<(&String, &V)>, prefix: &str, flat: &mut Flat) {
    for (name, value) in entries {
        let key = key(prefix, name);
        match value.node() {
            Node::Table(inner) => walk(inner, &key, flat),
            Node::Array(items) => {
                let items: Vec<String> = items
                    .iter()
                    .filter_map(|item| match item.node() {
                        Node::Scalar(text) => Some(text),
                        Node::Array(_) | Node::Table(_) => None,
                    })
                    .collect();
                flat.push((key, items.join(",")));
            }
            Node::Scalar(text) => flat.push((key, text)),
        }
    }
}

/// A JSON document's settings (DeepSpeed's `ds_config.json`).
pub(super) fn json(text: &str) -> Result<Flat, Unreadable> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let why = e.to_string();
        // serde_json ends its message with the place, given here first.
        let why = why.split(" at line ").next().unwrap_or(&why).to_string();
        refused("JSON", e.line().max(1), &why)
    })?;
    let serde_json::Value::Object(object) = value else {
        return Err(refused(
            "JSON",
            1,
            "a DeepSpeed configuration is one object, { … }",
        ));
    };
    let mut flat = Flat::new();
    walk(object.iter().collect(), "", &mut flat);
    Ok(flat)
}
