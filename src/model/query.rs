//! Figure parameters <-> URL query, per `shared/spec/figures.md`.
//!
//! Pure: takes and returns strings. Reading never fails: a known key with a
//! bad value yields its default (or the value clamped to its range) and a
//! [`Notice`] that says in plain words what was wrong and what was used.

use super::choice::Choice;
use super::number::parse_number;
use super::units::{group_thousands, Count};

/// The most characters of a bad value quoted back in a notice.
const QUOTE_LIMIT: usize = 24;

/// Key/value pairs on their way into a URL.
pub type Pairs = Vec<(String, String)>;

/// A parsed query string: its key/value pairs, percent-decoded, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Parses `?a=1&b=2` (the leading `?` is optional). `+` is a space;
    /// malformed percent escapes are kept as they are.
    pub fn parse(search: &str) -> Self {
        let search = search.strip_prefix('?').unwrap_or(search);
        let pairs = search
            .split('&')
            .filter(|part| !part.is_empty())
            .map(|part| {
                let (key, value) = part.split_once('=').unwrap_or((part, ""));
                (decode(key), decode(value))
            })
            .collect();
        Self { pairs }
    }

    /// A query of these pairs, as parsed.
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Self {
        Self { pairs }
    }

    /// Every pair, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The first value given for `key` (later repeats are ignored).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        let escaped = (byte == b'%')
            .then(|| bytes.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (byte, escaped) {
            (_, Some(decoded)) => {
                out.push(decoded);
                index += 3;
            }
            (b'+', None) => {
                out.push(b' ');
                index += 1;
            }
            (other, None) => {
                out.push(other);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Writes pairs as a query string with a leading `?` (empty when there are none).
pub fn to_search(pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    format!("?{}", body.join("&"))
}

/// A number as compact URL text that reads back exactly: `2T`, `50B`,
/// `6.74B`, `8`, `0.5`; very small or very long numbers as `1e-320`.
pub fn url_number(value: f64) -> String {
    for (scale, suffix) in [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")] {
        if value.abs() >= scale {
            let scaled = format!("{}", value / scale);
            // Only when the suffix form reads back to exactly the same number.
            let text = format!("{scaled}{suffix}");
            if scaled.len() <= 8 && parse_number(&text) == Ok(value) {
                return text;
            }
        }
    }
    let plain = format!("{value}");
    if plain.len() <= PLAIN_LIMIT {
        plain
    } else {
        // Rust writes the shortest exponent form that reads back exactly.
        format!("{value:e}")
    }
}

/// The longest plain decimal `url_number` writes (a fuzz-found case:
/// `1e-320` written plainly is 323 characters, more than a number may have).
const PLAIN_LIMIT: usize = 16;

/// What was wrong with one URL parameter and what was used instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The parameter's key, published as `data-notice`.
    pub key: String,
    /// A plain-language sentence for the reader.
    pub message: String,
}

/// Quotes a bad value back safely: shortened, as plain text.
fn quote(raw: &str) -> String {
    let mut shown: String = raw.chars().take(QUOTE_LIMIT).collect();
    if raw.chars().count() > QUOTE_LIMIT {
        shown.push('…');
    }
    format!("“{shown}”")
}

/// How a numeric parameter is read, checked and shown.
#[derive(Clone, Copy, Debug)]
pub struct NumberSpec {
    pub key: &'static str,
    pub min: f64,
    pub max: f64,
    /// Whole numbers only (GPU counts, layers): fractions are rounded.
    pub integer: bool,
    /// Large values are shown as `2.00T` rather than `2000000000000`.
    pub suffixed: bool,
    /// What brought `max` below the key's own top, said with it: "set by
    /// the batch, one GPU a sequence" (`figures::param`'s limits).
    pub lowered_by: Option<&'static str>,
}

impl NumberSpec {
    /// A whole number in `min..=max`.
    pub const fn whole(key: &'static str, min: f64, max: f64) -> Self {
        Self {
            key,
            min,
            max,
            integer: true,
            suffixed: false,
            lowered_by: None,
        }
    }

    /// A large count shown with K/M/B/T.
    pub const fn count(key: &'static str, min: f64, max: f64) -> Self {
        Self {
            key,
            min,
            max,
            integer: false,
            suffixed: true,
            lowered_by: None,
        }
    }

    pub fn show(&self, value: f64) -> String {
        if self.suffixed {
            Count(value).to_string()
        } else if self.integer {
            group_thousands(value)
        } else {
            format!("{value}")
        }
    }

    /// The value as a URL (or a text box) writes it: whole numbers plainly
    /// (`1024`), large counts with a suffix (`70B`), others exactly.
    pub fn url_text(&self, value: f64) -> String {
        if self.integer && !self.suffixed {
            format!("{value:.0}")
        } else {
            url_number(value)
        }
    }

    /// The value as a text box shows it: as the URL writes it, or, for a
    /// large count the URL would write in full (`68976648192`), to four
    /// figures with its suffix (`68.98B`).
    pub fn box_text(&self, value: f64) -> String {
        let url = self.url_text(value);
        if !self.suffixed || url.len() <= 8 {
            return url;
        }
        [(1e12, "T"), (1e9, "B"), (1e6, "M")]
            .into_iter()
            .find(|&(scale, _)| value.abs() >= scale)
            .map_or(url, |(scale, suffix)| {
                format!("{}{suffix}", super::units::trimmed(value / scale, 4))
            })
    }

    /// Brings a value into range (rounding whole numbers), or `Err` with the
    /// reason when it had to change.
    pub fn validate(&self, value: f64) -> Result<f64, (f64, String)> {
        if value < self.min {
            let used = self.min;
            return Err((
                used,
                format!("is below the smallest allowed value, {}", self.show(used)),
            ));
        }
        if value > self.max {
            let used = self.max;
            let why = self
                .lowered_by
                .map_or_else(String::new, |why| format!(" ({why})"));
            return Err((
                used,
                format!(
                    "is above the largest allowed value, {}{why}",
                    self.show(used)
                ),
            ));
        }
        if self.integer && value.fract() != 0.0 {
            return Err((value.round(), "is not a whole number".to_string()));
        }
        Ok(value)
    }

    /// Whether a value typed by the reader may be used as is, with the reason when not.
    pub fn check(&self, value: f64) -> Result<(), String> {
        self.validate(value)
            .map(|_| ())
            .map_err(|(_, reason)| format!("That {reason}."))
    }

    /// Reads the parameter, or `None` when the query does not mention it.
    /// A bad value adds a notice and falls back to `default` (unparseable)
    /// or to the nearest allowed value (out of range).
    pub fn read_optional(
        &self,
        query: &Query,
        default: f64,
        notices: &mut Vec<Notice>,
    ) -> Option<f64> {
        let raw = query.get(self.key)?;
        let value = match parse_number(raw) {
            Ok(value) => value,
            Err(error) => {
                notices.push(Notice {
                    key: self.key.to_string(),
                    message: format!(
                        "{} = {}: {error}, so the default, {}, is used.",
                        self.key,
                        quote(raw),
                        self.show(default)
                    ),
                });
                return Some(default);
            }
        };
        Some(self.validate(value).unwrap_or_else(|(used, reason)| {
            notices.push(Notice {
                key: self.key.to_string(),
                message: format!(
                    "{} = {} {reason}, so {} is used.",
                    self.key,
                    quote(raw),
                    self.show(used)
                ),
            });
            used
        }))
    }

    /// Reads the parameter, falling back to `default` when absent or bad.
    pub fn read(&self, query: &Query, default: f64, notices: &mut Vec<Notice>) -> f64 {
        self.read_optional(query, default, notices)
            .unwrap_or(default)
    }

    /// Reads the parameter, or, when only the name it had before (`old`) is
    /// given, that value with a notice saying the key's new name: links
    /// written before a rename keep their meaning.
    pub fn read_renamed(
        &self,
        old: &'static str,
        query: &Query,
        default: f64,
        notices: &mut Vec<Notice>,
    ) -> Option<f64> {
        if query.get(self.key).is_some() {
            return self.read_optional(query, default, notices);
        }
        let value = NumberSpec { key: old, ..*self }.read_optional(query, default, notices)?;
        let (new, shown) = (self.key, self.show(value));
        notices.push(Notice {
            key: old.to_string(),
            message: format!(
                "{old} is now called {new}; {old} = {shown} is read as {new} = {shown}."
            ),
        });
        Some(value)
    }
}

/// Reads a parameter whose value must be one of `ids`. Anything else adds
/// a notice and yields the nearest choice where both are numbers (`tp=16`
/// of 1, 2, 4, 8 is 8; the lower of two as near), else `None` (the caller's
/// default).
pub fn read_choice<'a>(
    query: &Query,
    key: &str,
    ids: &[&'a str],
    notices: &mut Vec<Notice>,
) -> Option<&'a str> {
    let raw = query.get(key)?;
    if let Some(found) = ids.iter().find(|id| id.eq_ignore_ascii_case(raw.trim())) {
        return Some(found);
    }
    // The choice nearest the number typed, the first of two as near; none
    // unless the value and every choice are numbers.
    let typed = raw.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    let nearest = typed.and_then(|typed| {
        let mut best: Option<(f64, &'a str)> = None;
        for &id in ids {
            let far = (id.parse::<f64>().ok()? - typed).abs();
            if best.is_none_or(|(near, _)| far < near) {
                best = Some((far, id));
            }
        }
        best.map(|(_, id)| id)
    });
    notices.push(Notice {
        key: key.to_string(),
        message: format!(
            "{key} = {} is not one of the choices ({}), so {} is used.",
            quote(raw),
            ids.join(", "),
            nearest.map_or("the default".to_string(), |id| format!(
                "the nearest, {id},"
            ))
        ),
    });
    nearest
}

/// A notice for each key the query gives more than once: the first value
/// is the one read ([`Query::get`]), and the reader should know.
pub fn repeated_keys(query: &Query, notices: &mut Vec<Notice>) {
    for (i, (key, _)) in query.pairs.iter().enumerate() {
        let earlier = query.pairs[..i].iter().filter(|(k, _)| k == key).count();
        if earlier == 1 {
            notices.push(Notice {
                key: key.clone(),
                message: format!(
                    "{key} is given more than once; the first, {}, is used.",
                    quote(query.get(key).unwrap_or_default())
                ),
            });
        }
    }
}

/// Reads a parameter whose value is one of a [`Choice`]'s ids; anything
/// else adds a notice and yields `None` (the caller's default).
pub fn read_option<C: Choice>(query: &Query, key: &str, notices: &mut Vec<Notice>) -> Option<C> {
    let ids: Vec<&str> = C::ALL.iter().map(|c| c.id()).collect();
    read_choice(query, key, &ids, notices).and_then(C::from_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_decodes() {
        let query = Query::parse("?fig=why&tokens=50B&name=a%20b+c&bad=%zz&x=1&x=2&flag");
        assert_eq!(query.get("fig"), Some("why"));
        assert_eq!(query.get("tokens"), Some("50B"));
        assert_eq!(query.get("name"), Some("a b c"));
        assert_eq!(query.get("bad"), Some("%zz"));
        assert_eq!(query.get("x"), Some("1"));
        assert_eq!(query.get("flag"), Some(""));
        assert_eq!(query.get("missing"), None);
        assert_eq!(Query::parse(""), Query::default());
    }

    /// A number that is not a choice gets the nearest (issue 37: `tp=16`
    /// fell back to 1 where the page promised the nearest allowed value).
    #[test]
    fn a_number_not_among_the_choices_gets_the_nearest() {
        let tp = ["1", "2", "4", "8"];
        let read = |search: &str, notices: &mut Vec<Notice>| {
            read_choice(&Query::parse(search), "tp", &tp, notices)
        };
        let mut notices = Vec::new();
        assert_eq!(read("?tp=16", &mut notices), Some("8"));
        assert_eq!(
            notices[0].message,
            "tp = “16” is not one of the choices (1, 2, 4, 8), so the nearest, 8, is used."
        );
        assert_eq!(read("?tp=3", &mut notices), Some("2"));
        assert_eq!(read("?tp=0.2", &mut notices), Some("1"));
        assert_eq!(read("?tp=many", &mut notices), None);
        assert!(notices[3].message.ends_with("so the default is used."));
        assert_eq!(read("?tp=4", &mut notices), Some("4"));
        assert_eq!(notices.len(), 4);
        // Choices that are words have no nearest.
        assert_eq!(
            read_choice(&Query::parse("?s=7"), "s", &["gpipe", "1f1b"], &mut notices),
            None
        );
    }

    #[test]
    fn a_key_given_twice_is_read_once_and_said() {
        let query = Query::parse("?model=llama3-8b&gpus=8&model=gpt3-175b&model=x&gpus=8");
        let mut notices = Vec::new();
        repeated_keys(&query, &mut notices);
        let said: Vec<(&str, &str)> = notices
            .iter()
            .map(|n| (n.key.as_str(), n.message.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "model",
                    "model is given more than once; the first, “llama3-8b”, is used."
                ),
                (
                    "gpus",
                    "gpus is given more than once; the first, “8”, is used."
                ),
            ]
        );
    }

    #[test]
    fn writes_what_it_reads() {
        let pairs = vec![
            ("fig".to_string(), "why".to_string()),
            ("note".to_string(), "<b>&=?".to_string()),
        ];
        let search = to_search(&pairs);
        assert_eq!(search, "?fig=why&note=%3Cb%3E%26%3D%3F");
        let back = Query::parse(&search);
        assert_eq!(back.get("note"), Some("<b>&=?"));
        assert_eq!(to_search(&[]), "");
    }

    #[test]
    fn numbers_in_urls_are_compact_and_exact() {
        assert_eq!(url_number(2e12), "2T");
        assert_eq!(url_number(50e9), "50B");
        assert_eq!(url_number(1.55e12), "1.55T");
        assert_eq!(url_number(6.74e9), "6.74B");
        assert_eq!(url_number(8.0), "8");
        assert_eq!(url_number(6_738_415_616.0), "6738415616");
        assert_eq!(url_number(1e-320), "1e-320");
        assert_eq!(url_number(0.000_123_456_789_123), "1.23456789123e-4");
        for value in [1e-320, 1e300, 123_456_789.123_456_78, -0.1] {
            assert_eq!(parse_number(&url_number(value)), Ok(value));
        }
    }

    const TOKENS: NumberSpec = NumberSpec::count("tokens", 50e9, 2e12);

    #[test]
    fn bad_numbers_fall_back_with_a_notice() {
        let mut notices = Vec::new();
        let read = |search: &str, notices: &mut Vec<Notice>| {
            TOKENS.read(&Query::parse(search), 2e12, notices)
        };
        assert_eq!(read("tokens=1T", &mut notices), 1e12);
        assert!(notices.is_empty());
        assert_eq!(read("tokens=banana", &mut notices), 2e12);
        assert_eq!(read("tokens=-5", &mut notices), 50e9);
        assert_eq!(read("tokens=1e400", &mut notices), 2e12);
        assert_eq!(read("tokens=9T", &mut notices), 2e12);
        assert_eq!(notices.len(), 4);
        assert!(notices.iter().all(|n| n.key == "tokens"));
        assert_eq!(
            notices[0].message,
            "tokens = “banana”: it is not a number, so the default, 2.00T, is used."
        );
        assert_eq!(
            notices[1].message,
            "tokens = “-5” is below the smallest allowed value, 50.0B, so 50.0B is used."
        );
    }

    #[test]
    fn whole_numbers_are_written_plainly() {
        assert_eq!(
            NumberSpec::whole("gpus", 1.0, 65536.0).url_text(1024.0),
            "1024"
        );
        assert_eq!(NumberSpec::count("params", 1e6, 1e15).url_text(70e9), "70B");
        assert_eq!(url_number(4.07e12), "4.07T");
        let params = NumberSpec::count("params", 1e6, 1e15);
        assert_eq!(params.url_text(68_976_648_192.0), "68976648192");
        assert_eq!(params.box_text(68_976_648_192.0), "68.98B");
        assert_eq!(params.box_text(70e9), "70B");
    }

    #[test]
    fn whole_numbers_are_rounded_with_a_notice() {
        let mut notices = Vec::new();
        let gpus = NumberSpec::whole("gpus", 1.0, 64.0);
        assert_eq!(gpus.read(&Query::parse("gpus=7.6"), 8.0, &mut notices), 8.0);
        assert_eq!(notices.len(), 1);
    }

    #[test]
    fn long_values_are_quoted_short() {
        let mut notices = Vec::new();
        let long = "x".repeat(100_000);
        TOKENS.read(&Query::parse(&format!("tokens={long}")), 2e12, &mut notices);
        assert!(notices[0].message.len() < 200);
    }

    #[test]
    fn choices() {
        let mut notices = Vec::new();
        let ids = ["a", "b"];
        assert_eq!(
            read_choice(&Query::parse("k=B"), "k", &ids, &mut notices),
            Some("b")
        );
        assert_eq!(
            read_choice(&Query::parse("k=z"), "k", &ids, &mut notices),
            None
        );
        assert_eq!(
            read_choice(&Query::parse(""), "k", &ids, &mut notices),
            None
        );
        assert_eq!(notices.len(), 1);
    }
}
