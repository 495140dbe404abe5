//! Any pasted text, as the launch worker reads it (`launch::read`, then
//! `launch::wire` to the page): reading never panics, a refusal says that
//! nothing was changed, a reading's sizes are whole numbers the planner's
//! URL reader takes, and the answer crosses to the page unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parallax_fuzz::launch::{read, wire};

fuzz_target!(|text: &str| {
    let answer = read(text);
    match &answer {
        Err(unreadable) => assert!(
            unreadable.0.ends_with("Nothing was changed."),
            "{unreadable:?}"
        ),
        Ok(reading) => {
            for (key, value) in &reading.pairs {
                assert!(!key.is_empty() && !value.is_empty(), "{key:?} = {value:?}");
                let sized = matches!(
                    key.as_str(),
                    "gpus" | "tp" | "pp" | "cp" | "ep" | "micro-batch" | "batch" | "chunks"
                );
                assert!(
                    !sized || value.parse::<u32>().is_ok_and(|n| n >= 1),
                    "{key} = {value}"
                );
            }
        }
    }
    assert_eq!(wire::decode(&wire::encode(&answer)), answer);
});
