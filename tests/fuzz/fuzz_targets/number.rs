//! `parse_number` on any text: it returns a finite number or an error, and a
//! number written by `url_number` reads back exactly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parallax_fuzz::model::number::parse_number;
use parallax_fuzz::model::query::url_number;

fuzz_target!(|text: &str| {
    if let Ok(value) = parse_number(text) {
        assert!(value.is_finite(), "{text:?} parsed to {value}");
        let written = url_number(value);
        assert_eq!(
            parse_number(&written),
            Ok(value),
            "{text:?} wrote {written:?}"
        );
    }
});
