//! Numbers as people and URLs write them: `8`, `0.5`, `2e12`, `50B`, `6.74b`, `2T`.
//!
//! The grammar is the one `shared/spec/figures.md` publishes: a decimal or
//! scientific number, optionally followed by one of the suffixes K, M, B, T
//! (thousand, million, billion, trillion), case-insensitive, and may
//! follow a space (`15 T`). A number box reads what the page writes too:
//! commas between groups of three digits (`1,024`, `1,000T`, issue 37).
//! Any other comma is an error, since `1,5` may be a decimal comma.
//! Anything else, including `inf`, `NaN` and numbers too large for an f64,
//! is an error.

use std::fmt;

/// Longer inputs are rejected before any work is done on them.
const MAX_LEN: usize = 40;

/// Why a text is not a number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumberError {
    Empty,
    TooLong,
    NotANumber,
    /// A comma that does not group thousands (`1,5`).
    Comma,
    NotFinite,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberError::Empty => "it is empty",
            NumberError::TooLong => "it is too long to be a number",
            NumberError::NotANumber => "it is not a number",
            NumberError::Comma => "a comma only groups thousands, as in 1,024",
            NumberError::NotFinite => "it is too large to represent",
        })
    }
}

/// The number and the power of ten its suffix stands for: `15T` and
/// `15 t` are ("15", 12).
fn scaled(text: &str) -> (&str, i32) {
    let exponent = match text.as_bytes()[text.len() - 1].to_ascii_uppercase() {
        b'K' => 3,
        b'M' => 6,
        b'B' => 9,
        b'T' => 12,
        _ => return (text, 0),
    };
    // An ASCII letter: one byte.
    (&text[..text.len() - 1], exponent)
}

/// `body` without its thousands separators, if every comma in it stands
/// between groups of three digits of the whole part: `1,024.5` is
/// `1024.5`; `1,5`, `,024`, `1,02` and `1.024,5` are `None`.
fn ungroup(body: &str) -> Option<String> {
    let whole = &body[..body.find(['.', 'e', 'E']).unwrap_or(body.len())];
    let digits = whole.trim_start_matches(['-', '+']);
    // Counted from the right, every fourth character is a comma, and only those.
    let grouped = !digits.starts_with(',')
        && !body[whole.len()..].contains(',')
        && digits
            .bytes()
            .rev()
            .enumerate()
            .all(|(i, b)| (b == b',') == (i % 4 == 3));
    grouped.then(|| body.split(',').collect())
}

/// Parses a number in the spec's grammar into a finite `f64`; a suffix may
/// follow a space.
pub fn parse_number(text: &str) -> Result<f64, NumberError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(NumberError::Empty);
    }
    if text.len() > MAX_LEN {
        return Err(NumberError::TooLong);
    }
    let (body, exponent) = scaled(text);
    let body = body.trim_end();
    let ungrouped;
    let body = if body.contains(',') {
        ungrouped = ungroup(body).ok_or(NumberError::Comma)?;
        ungrouped.as_str()
    } else {
        body
    };
    // `f64::from_str` also accepts "inf", "NaN" and "infinity"; the spec does not.
    let well_formed = body.bytes().any(|b| b.is_ascii_digit())
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !well_formed {
        return Err(NumberError::NotANumber);
    }
    let mut value: f64 = body.parse().map_err(|_| NumberError::NotANumber)?;
    if exponent > 0 {
        // `4.07T` read as the decimal 4.07e12, rounded once (exactly
        // 4,070,000,000,000), rather than 4.07 rounded and then multiplied.
        value = if body.bytes().any(|b| matches!(b, b'e' | b'E')) {
            value * 10f64.powi(exponent)
        } else {
            format!("{body}e{exponent}")
                .parse()
                .map_err(|_| NumberError::NotANumber)?
        };
    }
    if value.is_finite() {
        Ok(value)
    } else {
        Err(NumberError::NotFinite)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_spec_grammar() {
        assert_eq!(parse_number("8"), Ok(8.0));
        assert_eq!(parse_number("0.5"), Ok(0.5));
        assert_eq!(parse_number("2e12"), Ok(2e12));
        assert_eq!(parse_number("50B"), Ok(50e9));
        assert_eq!(parse_number("2t"), Ok(2e12));
        assert_eq!(parse_number(" 6.74B "), Ok(6.74e9));
        assert_eq!(parse_number("1.5k"), Ok(1500.0));
        assert_eq!(parse_number("3M"), Ok(3e6));
        // The decimal with its suffix, rounded once: 4.07 × 1e12 would be 4,070,000,000,000.0005.
        assert_eq!(parse_number("4.07T"), Ok(4.07e12));
        assert_eq!(parse_number("15.6T"), Ok(15.6e12));
        assert_eq!(parse_number("-5"), Ok(-5.0));
    }

    /// A suffix after a space, as a newcomer typed into the tokens box.
    #[test]
    fn a_suffix_may_follow_a_space() {
        assert_eq!(parse_number("15 T"), Ok(15e12));
        assert_eq!(parse_number("1.5 b"), Ok(1.5e9));
    }

    /// Thousands separators, as the page writes its numbers (issue 37).
    #[test]
    fn reads_thousands_separators() {
        assert_eq!(parse_number("1,024"), Ok(1024.0));
        assert_eq!(parse_number("1,000T"), Ok(1e15));
        assert_eq!(parse_number("16,384"), Ok(16384.0));
        assert_eq!(parse_number("1,234,567.5"), Ok(1_234_567.5));
        assert_eq!(parse_number("-2,048"), Ok(-2048.0));
        assert_eq!(parse_number("1,000 t"), Ok(1e15));
        // A decimal comma, or commas anywhere else, are not read.
        for text in [
            "1,5", "17,5", ",024", "1,02", "10,24", "1024,", "1,,024", "1.024,5", "1,024,5",
            "1e3,000", ",",
        ] {
            assert_eq!(parse_number(text), Err(NumberError::Comma), "{text}");
        }
    }

    #[test]
    fn rejects_everything_else() {
        assert_eq!(parse_number(""), Err(NumberError::Empty));
        assert_eq!(parse_number("banana"), Err(NumberError::NotANumber));
        assert_eq!(parse_number("inf"), Err(NumberError::NotANumber));
        assert_eq!(parse_number("NaN"), Err(NumberError::NotANumber));
        assert_eq!(parse_number("B"), Err(NumberError::NotANumber));
        assert_eq!(parse_number("1..2"), Err(NumberError::NotANumber));
        assert_eq!(parse_number("1e400"), Err(NumberError::NotFinite));
        assert_eq!(parse_number("1e300T"), Err(NumberError::NotFinite));
        assert_eq!(parse_number(&"9".repeat(100)), Err(NumberError::TooLong));
        assert_eq!(parse_number("5é"), Err(NumberError::NotANumber));
    }
}
