//! Enumerated options (a link, a schedule, a ZeRO stage, a unit): one
//! trait, so that reading them from a URL, writing them back and offering
//! them as choices is written once for all of them.

/// A value with a fixed set of named options.
pub trait Choice: Copy + PartialEq + 'static {
    /// Every option, in the order they are offered.
    const ALL: &'static [Self];

    /// The option's id in URLs (`1f1b`, `network`, `3`).
    fn id(self) -> &'static str;

    /// The option as people read it (`1F1B`, `Network`, `ZeRO-3`).
    fn label(self) -> &'static str;

    /// The option with this id.
    fn from_id(id: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|option| option.id() == id)
    }
}

/// Every option's (id, label), in order.
pub fn options<C: Choice>() -> Vec<(&'static str, &'static str)> {
    C::ALL.iter().map(|c| (c.id(), c.label())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::activations::Recompute;
    use crate::model::comm::Link;
    use crate::model::memory::{BytesPerParam, ZeroStage};
    use crate::model::pipeline::Schedule;
    use crate::model::units::ByteUnit;

    /// Every option reads back from its id, and no two share one.
    fn round_trips<C: Choice + std::fmt::Debug>() {
        for &option in C::ALL {
            assert_eq!(C::from_id(option.id()), Some(option));
        }
        let mut ids: Vec<_> = C::ALL.iter().map(|c| c.id()).collect();
        ids.dedup();
        assert_eq!(ids.len(), C::ALL.len());
        assert_eq!(C::from_id("no such option"), None);
    }

    #[test]
    fn every_choice_round_trips() {
        round_trips::<Link>();
        round_trips::<Schedule>();
        round_trips::<ZeroStage>();
        round_trips::<Recompute>();
        round_trips::<ByteUnit>();
        round_trips::<BytesPerParam>();
        assert_eq!(options::<ZeroStage>()[3], ("3", "ZeRO-3"));
    }
}
