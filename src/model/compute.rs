//! Training compute and time.
//!
//! - C ≈ 6ND: about 2 FLOP per parameter per token forward and 4 backward
//!   (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1).
//! - With full activation recomputation the forward runs twice: 8ND
//!   (Narayanan et al. 2021, section 5.1, equation (4): time ≈ 8TP/(nX)).
//! - Time on n GPUs at a sustained rate X with perfect scaling: C/(nX); a
//!   pipeline bubble b idles every GPU for a share b of the timeline, so the
//!   time becomes C/(nX(1 − b)).

use super::units::{Flop, FlopPerSecond, Seconds};

/// FLOP per parameter per token: 6 plainly, 8 when every layer's forward is recomputed.
pub fn flop_per_param_token(full_recompute: bool) -> f64 {
    if full_recompute {
        8.0
    } else {
        6.0
    }
}

/// Training compute for `params` parameters on `tokens` tokens: 6ND (or 8ND).
pub fn training_flop(params: f64, tokens: f64, full_recompute: bool) -> Flop {
    Flop(flop_per_param_token(full_recompute) * params * tokens)
}

/// Wall time for `flop` on `gpus` GPUs each sustaining `rate`, with a pipeline
/// `bubble` (the idle share of the timeline, 0 when there is no pipeline).
pub fn training_time(flop: Flop, gpus: u32, rate: FlopPerSecond, bubble: f64) -> Seconds {
    let busy = (1.0 - bubble).max(f64::MIN_POSITIVE);
    flop.at(rate * f64::from(gpus.max(1)) * busy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_and_eight_nd() {
        assert_eq!(training_flop(1e9, 1e12, false), Flop(6e21));
        assert_eq!(training_flop(1e9, 1e12, true), Flop(8e21));
    }

    #[test]
    fn time_divides_by_gpus_and_grows_with_the_bubble() {
        let one = training_time(Flop(1e18), 1, FlopPerSecond(1e15), 0.0);
        assert_eq!(one, Seconds(1000.0));
        assert_eq!(
            training_time(Flop(1e18), 10, FlopPerSecond(1e15), 0.0),
            Seconds(100.0)
        );
        assert_eq!(
            training_time(Flop(1e18), 1, FlopPerSecond(1e15), 0.5),
            Seconds(2000.0)
        );
    }
}
