//! Units as types, and their formatting for people.
//!
//! Every quantity the estimator returns carries its unit in its type, so a
//! figure cannot show bytes as seconds. `Display` gives the seeds' style
//! (`107.8 GB`, `17.1 years`, `8.1e22 FLOP`); `value()` gives the base-unit
//! number that readouts publish in `data-value`.
//!
//! Decimal prefixes throughout: GB means 10^9 bytes, as in the seeds.

use std::fmt;

use super::choice::Choice;

macro_rules! unit {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
        pub struct $name(pub f64);

        impl $name {
            /// The value in base units, as published in `data-value`.
            pub fn value(self) -> f64 {
                self.0
            }
        }

        impl std::ops::Add for $name {
            type Output = Self;
            fn add(self, other: Self) -> Self {
                Self(self.0 + other.0)
            }
        }

        impl std::ops::Mul<f64> for $name {
            type Output = Self;
            fn mul(self, factor: f64) -> Self {
                Self(self.0 * factor)
            }
        }

        impl std::ops::Div<f64> for $name {
            type Output = Self;
            fn div(self, divisor: f64) -> Self {
                Self(self.0 / divisor)
            }
        }
    };
}

unit!(
    /// A size in bytes.
    Bytes
);
unit!(
    /// A duration in seconds.
    Seconds
);
unit!(
    /// An amount of arithmetic, in floating-point operations.
    Flop
);
unit!(
    /// A compute rate, in FLOP per second.
    FlopPerSecond
);
unit!(
    /// A link bandwidth, in bytes per second in one direction.
    BytesPerSecond
);
unit!(
    /// A plain count (parameters, tokens, sequences), shown with a K/M/B/T suffix.
    Count
);

impl Bytes {
    pub const GB: f64 = 1e9;

    pub const GIB: f64 = 1_073_741_824.0;

    /// A GPU's memory as exactly as a short text can say it: whole
    /// gigabytes (`80 GB`, the seeds' illustrative GPU), else whole
    /// gibibytes as devices report them (`80 GiB`), else gibibytes to one
    /// decimal (`140.4 GiB`).
    pub fn capacity_text(self) -> String {
        let (gb, gib) = (self.0 / Self::GB, self.0 / Self::GIB);
        if gb.fract() == 0.0 {
            format!("{} GB", group_thousands(gb))
        } else if gib.fract() == 0.0 {
            format!("{} GiB", group_thousands(gib))
        } else {
            format!("{gib:.1} GiB")
        }
    }

    /// A GPU's memory beside amounts in GB: `80 GB`, or for a device that
    /// reports binary units `85.9 GB (80 GiB)`, so that totals in GB compare
    /// with it at a glance.
    pub fn capacity_in_gb(self) -> String {
        let exact = self.capacity_text();
        if exact.ends_with("GiB") {
            format!("{self} ({exact})")
        } else {
            exact
        }
    }

    /// How long these bytes take over a link.
    pub fn over(self, link: BytesPerSecond) -> Seconds {
        Seconds(self.0 / link.0)
    }
}

impl Flop {
    /// How long this much arithmetic takes at a rate.
    pub fn at(self, rate: FlopPerSecond) -> Seconds {
        Seconds(self.0 / rate.0)
    }
}

impl Seconds {
    pub const MINUTE: f64 = 60.0;
    pub const HOUR: f64 = 3600.0;
    pub const DAY: f64 = 86_400.0;
    /// A Julian year, 365.25 days.
    pub const YEAR: f64 = 365.25 * 86_400.0;

    /// The duration in days.
    pub fn in_days(self) -> f64 {
        self.0 / Self::DAY
    }
}

/// A count with its noun, singular for one: `1 GPU`, `1,024 GPUs`.
pub fn counted(count: f64, one: &str, many: &str) -> String {
    let noun = if count == 1.0 { one } else { many };
    format!("{} {noun}", group_thousands(count))
}

/// Groups the integer part of a non-negative number in thousands: `1,024`.
pub fn group_thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value < 0.0 && digits != "0" {
        grouped.insert(0, '-');
    }
    grouped
}

/// Rounds to `figures` significant figures and prints without exponent: `0.47`, `8.3`.
pub fn significant(value: f64, figures: i32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value:.0}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (figures - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

/// A number as a reader takes it in: two significant figures below 1,000
/// (`0.1`, `2.5`, `989`), whole with its thousands grouped from there
/// (`1,979`, `10,000`).
pub fn readable(value: f64) -> String {
    if value >= 1000.0 {
        group_thousands(value)
    } else {
        trimmed(value, 2)
    }
}

/// Rounds to `figures` significant figures without trailing zeros: `8`, `13.5`, `1.44`.
pub fn trimmed(value: f64, figures: i32) -> String {
    let text = significant(value, figures);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

impl fmt::Display for Bytes {
    /// `1,120 GB`, `107.8 GB`, `1.16 GB`, `201 MB`, `34 MB`, `1.1 MB`, `512 KB`, `12 B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.in_unit(ByteUnit::Decimal))
    }
}

/// How byte counts are written: GB = 10^9 bytes (the seeds' and the spec's
/// unit, and the GPU makers'), or GiB = 2^30 bytes (what `nvidia-smi` and
/// operating systems report).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ByteUnit {
    #[default]
    Decimal,
    Binary,
}

impl Choice for ByteUnit {
    const ALL: &'static [Self] = &[ByteUnit::Decimal, ByteUnit::Binary];

    /// The values of the `units` URL parameter.
    fn id(self) -> &'static str {
        match self {
            ByteUnit::Decimal => "gb",
            ByteUnit::Binary => "gib",
        }
    }

    fn label(self) -> &'static str {
        match self {
            ByteUnit::Decimal => "GB",
            ByteUnit::Binary => "GiB",
        }
    }
}

impl ByteUnit {
    /// The base and the names of its first three powers.
    fn scale(self) -> (f64, [&'static str; 3]) {
        match self {
            ByteUnit::Decimal => (1000.0, ["KB", "MB", "GB"]),
            ByteUnit::Binary => (1024.0, ["KiB", "MiB", "GiB"]),
        }
    }
}

impl Bytes {
    /// The count written in `unit`, with the seeds' precision: three
    /// significant figures from the G unit up (grouped past a thousand),
    /// whole numbers from ten in the smaller units, one decimal below ten.
    pub fn in_unit(self, unit: ByteUnit) -> String {
        let bytes = self.0;
        let (base, [kilo, mega, giga]) = unit.scale();
        let g = bytes / (base * base * base);
        if g >= 1000.0 {
            return format!("{} {giga}", group_thousands(g));
        }
        if g >= 10.0 {
            return format!("{g:.1} {giga}");
        }
        if g >= 1.0 {
            return format!("{g:.2} {giga}");
        }
        for (size, name) in [(base * base, mega), (base, kilo)] {
            let scaled = bytes / size;
            if scaled >= 10.0 {
                return format!("{scaled:.0} {name}");
            }
            if scaled >= 1.0 {
                return format!("{scaled:.1} {name}");
            }
        }
        format!("{bytes:.0} B")
    }
}

/// Decimals enough that rounding moves a number by at most `error` (half a
/// unit of the last digit), at most nine.
fn decimals_within(error: f64) -> usize {
    (1.0 / (2.0 * error)).log10().ceil().clamp(0.0, 9.0) as usize
}

/// `value` with as many decimals as keep its rounding within `error`, and
/// no trailing zeros: `8`, `4.667`.
pub fn within(value: f64, error: f64) -> String {
    let decimals = decimals_within(error);
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The scale of a byte unit as `Display` writes it: `GB` is 10^9.
fn decimal_byte_unit(unit: &str) -> f64 {
    match unit {
        "GB" => 1e9,
        "MB" => 1e6,
        "KB" => 1e3,
        _ => 1.0,
    }
}

impl Bytes {
    /// Half a unit of the last digit `Display` writes (`107.8 GB`: 0.05 GB),
    /// in bytes: as much as its rounding may hide.
    pub fn half_unit(self) -> f64 {
        let shown = self.to_string();
        let (number, unit) = shown.split_once(' ').unwrap_or((&shown, "B"));
        let decimals = number.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        0.5 * 10f64.powi(-decimals) * decimal_byte_unit(unit)
    }

    /// Written in the unit `Display` chooses, with as many decimals as keep
    /// its rounding within `error` bytes (never fewer than `Display`'s):
    /// a value an equation multiplies on its way to a result shown to a
    /// given digit.
    pub fn within(self, error: f64) -> String {
        let shown = self.to_string();
        let (number, unit) = shown.split_once(' ').unwrap_or((&shown, "B"));
        let scale = decimal_byte_unit(unit);
        let needed = decimals_within(error / scale);
        let decimals = needed.max(number.split_once('.').map_or(0, |(_, d)| d.len()));
        if decimals == 0 {
            return shown;
        }
        format!("{:.decimals$} {unit}", self.0 / scale)
    }
}

impl fmt::Display for Seconds {
    /// `17.1 years`, `98 days`, `5.2 hours`, `2.4 min`, `0.47 s`, `8.3 ms`, `0.45 ms`, `12 µs`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        if s >= 1000.0 * Self::YEAR {
            write!(f, "{} years", group_thousands(s / Self::YEAR))
        } else if s >= Self::YEAR {
            write!(f, "{:.1} years", s / Self::YEAR)
        } else if s >= 1.5 * Self::DAY {
            write!(f, "{:.0} days", s / Self::DAY)
        } else if s >= Self::HOUR {
            write!(f, "{:.1} hours", s / Self::HOUR)
        } else if s >= Self::MINUTE {
            write!(f, "{:.1} min", s / Self::MINUTE)
        } else if s >= 0.1 {
            write!(f, "{} s", significant(s, 2))
        } else if s >= 1e-4 {
            write!(f, "{} ms", significant(s * 1e3, 2))
        } else {
            write!(f, "{} µs", significant(s * 1e6, 2))
        }
    }
}

impl fmt::Display for Flop {
    /// Two significant figures in scientific notation: `8.1e22 FLOP`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{:.1e}", self.0);
        write!(f, "{text} FLOP")
    }
}

impl fmt::Display for FlopPerSecond {
    /// `150 TFLOP/s`, `1,979 TFLOP/s`, and `0.1 TFLOP/s`, the least the
    /// URL's `tflops` takes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} TFLOP/s", readable(self.0 / 1e12))
    }
}

impl fmt::Display for BytesPerSecond {
    /// `450 GB/s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} GB/s", group_thousands(self.0 / Bytes::GB))
    }
}

impl fmt::Display for Count {
    /// `6.74B`, `50.6M`, `2.00T`, `128`: three significant figures above a thousand.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SUFFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")];
        let value = self.0;
        for (scale, suffix) in SUFFIXES {
            if value.abs() >= scale {
                let scaled = value / scale;
                // Keep three significant figures, but never round 999.6 up into "1000".
                return if scaled.abs() >= 999.5 {
                    write!(f, "{}{suffix}", group_thousands(scaled))
                } else {
                    write!(f, "{}{suffix}", significant_padded(scaled, 3))
                };
            }
        }
        write!(f, "{}", group_thousands(value))
    }
}

/// Like [`significant`] but keeps trailing zeros: `2.00`, `50.0`.
fn significant_padded(value: f64, figures: i32) -> String {
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (figures - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

/// A share of a whole, 0 to 1, shown as a percentage with one decimal: `42.9%`.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Fraction(pub f64);

impl Fraction {
    pub fn value(self) -> f64 {
        self.0
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1}%", self.0 * 100.0)
    }
}

/// A dimensionless ratio shown as `1.35×` with a fixed number of decimals;
/// from a thousand on, whole and grouped (`200,000×`).
pub fn format_ratio(ratio: f64, decimals: usize) -> String {
    if ratio.abs() >= 1000.0 {
        format!("{}×", group_thousands(ratio))
    } else {
        format!("{ratio:.decimals$}×")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rate is never written as 0 TFLOP/s: the URL's `tflops` goes down
    /// to 0.1 (model/scenario.rs `TFLOPS`), and the presets' peaks are whole.
    #[test]
    fn a_rate_keeps_its_figures() {
        let rate = |tflops: f64| FlopPerSecond(tflops * 1e12).to_string();
        assert_eq!(rate(0.1), "0.1 TFLOP/s");
        assert_eq!(rate(2.5), "2.5 TFLOP/s");
        assert_eq!(rate(150.0), "150 TFLOP/s");
        assert_eq!(rate(1979.0), "1,979 TFLOP/s");
    }

    /// `1.19 GB` hides up to 0.005 GB; to keep a product of 80 of them within
    /// 0.005 GB, each must be within 0.0000625 GB: four decimals (0.00005).
    #[test]
    fn bytes_written_to_the_digits_a_product_needs() {
        assert_eq!(Bytes(1.19257e9).to_string(), "1.19 GB");
        assert_eq!(Bytes(1.19257e9).half_unit(), 0.005e9);
        assert_eq!(Bytes(107.8e9).half_unit(), 0.05e9);
        assert_eq!(Bytes(34e6).half_unit(), 0.5e6);
        assert_eq!(Bytes(1.19257e9).within(0.005e9 / 80.0), "1.1926 GB");
        // Never fewer digits than the plain text.
        assert_eq!(Bytes(1.19257e9).within(1e9), "1.19 GB");
        assert_eq!(within(4.666_666, 0.0005), "4.667");
        assert_eq!(within(8.0, 0.0005), "8");
    }

    #[test]
    fn bytes_follow_the_seeds_style() {
        assert_eq!(Bytes(107.81e9).to_string(), "107.8 GB");
        assert_eq!(Bytes(26.96e9).to_string(), "27.0 GB");
        assert_eq!(Bytes(1.158e9).to_string(), "1.16 GB");
        assert_eq!(Bytes(1120e9).to_string(), "1,120 GB");
        assert_eq!(Bytes(201.3e6).to_string(), "201 MB");
        assert_eq!(Bytes(33.55e6).to_string(), "34 MB");
        assert_eq!(Bytes(512.0).to_string(), "512 B");
        assert_eq!(Bytes(1.08e6).to_string(), "1.1 MB");
        assert_eq!(Bytes(2.5e3).to_string(), "2.5 KB");
        assert_eq!(Bytes(80e9).capacity_text(), "80 GB");
        // An A100's 81,920 MiB and an H200's 143,771 MiB, as nvidia-smi reports them.
        assert_eq!(Bytes(81_920.0 * 1_048_576.0).capacity_text(), "80 GiB");
        assert_eq!(Bytes(143_771.0 * 1_048_576.0).capacity_text(), "140.4 GiB");
        assert_eq!(
            Bytes(80.0 * 1_073_741_824.0).capacity_in_gb(),
            "85.9 GB (80 GiB)"
        );
        assert_eq!(Bytes(80e9).capacity_in_gb(), "80 GB");
        assert_eq!(Bytes(2.5e3).in_unit(ByteUnit::Decimal), "2.5 KB");
    }

    #[test]
    fn binary_bytes() {
        let gib = |bytes: f64| Bytes(bytes).in_unit(ByteUnit::Binary);
        assert_eq!(gib(26.96e9), "25.1 GiB");
        assert_eq!(gib(80e9), "74.5 GiB");
        assert_eq!(gib(1120e9), "1,043 GiB");
        assert_eq!(gib(1.158e9), "1.08 GiB");
        assert_eq!(gib(201.3e6), "192 MiB");
        assert_eq!(gib(1.08e6), "1.0 MiB");
        assert_eq!(gib(2048.0), "2.0 KiB");
        assert_eq!(gib(512.0), "512 B");
    }

    #[test]
    fn durations_pick_the_seeds_unit() {
        assert_eq!(Seconds(5.39e8).to_string(), "17.1 years");
        assert_eq!(Seconds(97.5 * Seconds::DAY).to_string(), "98 days");
        assert_eq!(Seconds(141.3).to_string(), "2.4 min");
        assert_eq!(Seconds(0.4716).to_string(), "0.47 s");
        assert_eq!(Seconds(0.00829).to_string(), "8.3 ms");
        assert_eq!(Seconds(0.000447).to_string(), "0.45 ms");
        assert_eq!(Seconds(2.0 * Seconds::HOUR).to_string(), "2.0 hours");
        assert_eq!(Seconds(12e-6).to_string(), "12 µs");
        // Past a thousand years, whole and grouped (a reader once saw "25629.3 years").
        assert_eq!(
            Seconds(25_629.3 * Seconds::YEAR).to_string(),
            "25,629 years"
        );
    }

    #[test]
    fn counts_and_flop_and_fractions() {
        assert_eq!(Count(6.738e9).to_string(), "6.74B");
        assert_eq!(Count(50.6e6).to_string(), "50.6M");
        assert_eq!(Count(2e12).to_string(), "2.00T");
        assert_eq!(Count(50e9).to_string(), "50.0B");
        assert_eq!(Count(999.7e9).to_string(), "1,000B");
        assert_eq!(Count(128.0).to_string(), "128");
        assert_eq!(Flop(8.086e22).to_string(), "8.1e22 FLOP");
        assert_eq!(Fraction(3.0 / 7.0).to_string(), "42.9%");
        assert_eq!(format_ratio(1.3476, 2), "1.35×");
        assert_eq!(format_ratio(200_000.0, 2), "200,000×");
        assert_eq!(group_thousands(1024.0), "1,024");
        assert_eq!(group_thousands(65536.0), "65,536");
    }
}
