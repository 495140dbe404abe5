//! Equations more than one figure shows: the training state a GPU keeps
//! under a ZeRO stage, and a run's time. Each is written from the same
//! model values as the readout it ends in.

use crate::model::choice::Choice;
use crate::model::compute::{matmul_params, FlopCount};
use crate::model::memory::{BytesPerParam, ZeroStage};
use crate::model::pipeline::Schedule;
use crate::model::scenario::Scenario;
use crate::model::units::{counted, group_thousands, Bytes};
use crate::widgets::{num, Equation, Piece, ReadoutData};

/// A variable tied to a control key or readout id.
pub const fn var(name: &'static str, tie: &'static str) -> Piece {
    Piece::Var(name, "", tie)
}

/// Bytes a parameter kept whole and sharded over N under `stage`
/// (Rajbhandari et al. 2020, section 5.1: stage 1 keeps (4 + K/N)Ψ,
/// stage 2 (2 + (2 + K)/N)Ψ, stage 3 (4 + K)Ψ/N).
fn whole_and_sharded(bytes: BytesPerParam, stage: ZeroStage) -> (f64, f64) {
    let mut whole = 0.0;
    let mut sharded = 0.0;
    for (part, from) in [
        (bytes.all_weights(), ZeroStage::Three),
        (bytes.gradients, ZeroStage::Two),
        (bytes.main_gradients + bytes.k(), ZeroStage::One),
    ] {
        if stage >= from {
            sharded += part;
        } else {
            whole += part;
        }
    }
    (whole, sharded)
}

/// `value` to four decimals: 17.9221 bytes a parameter, not
/// 17.922115151408317; enough that 671B parameters times it keep the
/// readout's GB.
fn four_decimals(value: f64) -> f64 {
    (value * 1e4).round() / 1e4
}

/// `(whole + sharded/n) × psi`, `whole × psi` or `sharded × psi / n`, as pieces.
fn per_parameter(whole: f64, sharded: f64, n: Piece, psi: Vec<Piece>) -> Vec<Piece> {
    let mut pieces = if sharded == 0.0 {
        vec![num(whole), Piece::Op("×")]
    } else if whole == 0.0 {
        return vec![Piece::Frac(
            [vec![num(sharded), Piece::Op("×")], psi].concat(),
            vec![n],
        )];
    } else {
        vec![
            Piece::Group(vec![
                num(whole),
                Piece::Op("+"),
                Piece::Frac(vec![num(sharded)], vec![n]),
            ]),
            Piece::Op("×"),
        ]
    };
    pieces.extend(psi);
    pieces
}

/// One GPU's training state under `stage` over `n` data-parallel GPUs
/// (`n_name` ties to the control setting it), for `psi` parameters
/// (`psi_symbol` in symbols, `psi_value` with its number), ending in `result`.
pub fn state(
    bytes: BytesPerParam,
    stage: ZeroStage,
    (n_name, n_tie, n): (&'static str, &'static str, u32),
    psi_symbol: Vec<Piece>,
    psi_value: Vec<Piece>,
    result: &ReadoutData,
) -> Equation {
    let (whole, sharded) = whole_and_sharded(bytes, stage);
    // FP8's casts, on the layers' matrices only, make fractions of a byte.
    let (whole, sharded) = (four_decimals(whole), four_decimals(sharded));
    let mut values = per_parameter(whole, sharded, num(n), psi_value);
    values.push(Piece::Unit("B"));
    Equation {
        words: format!(
            "Training state per GPU, M, equals {whole} bytes a parameter kept whole plus {sharded} bytes sharded over {}, times the parameters: {}",
            counted(f64::from(n), "GPU", "GPUs"),
            result.text
        ),
        left: vec![var("M", result.id)],
        rows: vec![
            per_parameter(whole, sharded, Piece::Var(n_name, "", n_tie), psi_symbol),
            values,
            vec![Piece::Value(result.text.clone(), result.id)],
        ],
    }
}

/// The FLOP one token costs, as `flop` counts them, in symbols and with
/// values: 6Ψ (Kaplan et al. 2020), or 6Ψ_mm + 12·L·h·s (Narayanan et al.
/// 2021, eq. 3).
pub fn per_token(scenario: &Scenario) -> (Vec<Piece>, Vec<Piece>) {
    let arch = scenario.arch();
    match scenario.flop {
        // A mixture of experts: the parameters a token uses.
        FlopCount::SixNd => (
            vec![
                num(6),
                Piece::Op("×"),
                Piece::Var("Ψ", if arch.experts > 1 { "active" } else { "" }, "model"),
            ],
            vec![
                num(6),
                Piece::Op("×"),
                Piece::Sci(scenario.params() * arch.active_share()),
            ],
        ),
        FlopCount::SixNdAttention => {
            let times = || Piece::Op("×");
            (
                vec![Piece::Group(vec![
                    num(6),
                    times(),
                    Piece::Var("Ψ", "mm", "model"),
                    Piece::Op("+"),
                    num(12),
                    var("L", "layers"),
                    // MLA's heads are wider than h/a (`Architecture::attention_width`).
                    if arch.mla.is_some() {
                        Piece::Var("h", "attn", "hidden")
                    } else {
                        var("h", "hidden")
                    },
                    var("s", "seq"),
                ])],
                vec![Piece::Group(vec![
                    num(6),
                    times(),
                    Piece::Sci(matmul_params(&arch)),
                    Piece::Op("+"),
                    num(12),
                    times(),
                    num(arch.layers),
                    times(),
                    num(group_thousands(arch.attention_width())),
                    times(),
                    num(group_thousands(f64::from(arch.seq))),
                ])],
            )
        }
    }
}

/// The bubble of `schedule` as a fraction with p, m (and v) in it, in
/// symbols or, with `values`, in numbers (`pipeline.rs` gives each form's source).
fn bubble_fraction(schedule: Schedule, p: u32, m: u32, v: u32, values: bool) -> Piece {
    let (p_, m_, v_) = if values {
        (num(p), num(m), num(v))
    } else {
        (var("p", "pp"), var("m", "micro"), var("v", "chunks"))
    };
    let less = |a: Piece, b: Piece| vec![a, Piece::Op("−"), b];
    let idle = less(p_.clone(), num(1));
    let (top, bottom) = match schedule {
        Schedule::GPipe | Schedule::OneFOneB => {
            (idle.clone(), [vec![m_, Piece::Op("+")], idle].concat())
        }
        Schedule::Interleaved => (idle.clone(), [vec![v_, m_, Piece::Op("+")], idle].concat()),
        Schedule::ZeroBubbleH1 if m < p => (
            vec![
                num(2),
                p_.clone(),
                Piece::Op("−"),
                m_.clone(),
                Piece::Op("−"),
                num(1),
            ],
            vec![
                num(2),
                p_,
                Piece::Op("+"),
                num(2),
                m_,
                Piece::Op("−"),
                num(1),
            ],
        ),
        Schedule::ZeroBubbleH1 | Schedule::DualPipeV => (
            idle.clone(),
            [vec![num(3), m_, Piece::Op("+")], idle].concat(),
        ),
        Schedule::DualPipe => {
            let idle = less(p_, num(2));
            (
                idle.clone(),
                [vec![num(3), m_, Piece::Op("+")], idle].concat(),
            )
        }
    };
    Piece::Frac(top, bottom)
}

/// The bubble of `schedule` in symbols, its form once m ≥ p.
pub fn bubble_symbol(schedule: Schedule) -> Piece {
    bubble_fraction(schedule, 1, 1, 1, false)
}

/// The bubble of `schedule` for p stages and m micro-batches (v chunks),
/// ending in its readout.
pub fn bubble(schedule: Schedule, p: u32, m: u32, v: u32, readout: &ReadoutData) -> Equation {
    Equation {
        words: format!(
            "The bubble b of {} for p = {p} stages and m = {m} micro-batches: {}",
            schedule.label(),
            readout.text
        ),
        left: vec![var("b", readout.id)],
        rows: vec![
            vec![bubble_fraction(schedule, p, m, v, false)],
            vec![bubble_fraction(schedule, p, m, v, true)],
            result(readout),
        ],
    }
}

/// One GPU's state of a mixture of experts: its dense slice sharded over
/// `n_dense` GPUs and its experts over `n_experts` (d·cp and t·cp·d/(etp·ep)).
pub fn state_split(
    bytes: BytesPerParam,
    stage: ZeroStage,
    (n_dense, n_experts): (u32, u32),
    (psi_dense, psi_experts): (f64, f64),
    readout: &ReadoutData,
) -> Equation {
    let (whole, sharded) = whole_and_sharded(bytes, stage);
    // FP8's casts, on the layers' matrices only, make fractions of a byte.
    let (whole, sharded) = (four_decimals(whole), four_decimals(sharded));
    let term = |n: Piece, psi: Piece| per_parameter(whole, sharded, n, vec![psi]);
    Equation {
        words: format!(
            "Training state per GPU, M: the dense parameters sharded over {n_dense} GPUs plus the experts sharded over {n_experts}: {}",
            readout.text
        ),
        left: vec![var("M", readout.id)],
        rows: vec![
            [
                term(Piece::Var("n", "dense", "gpus"), Piece::Var("Ψ", "dense", "model")),
                vec![Piece::Op("+")],
                term(Piece::Var("n", "experts", "ep"), Piece::Var("Ψ", "experts", "experts")),
            ]
            .concat(),
            [
                term(num(n_dense), Piece::Sci(psi_dense)),
                vec![Piece::Op("+")],
                term(num(n_experts), Piece::Sci(psi_experts)),
                vec![Piece::Unit("B")],
            ]
            .concat(),
            result(readout),
        ],
    }
}

/// The result row of an equation: its readout's text, tied to it.
/// `bytes` as the value an equation multiplies by `times` on its way to
/// `result`: written with digits enough that the row, computed as shown,
/// rounds to the result as shown (its rounding a tenth of the result's last
/// digit at most).
pub fn multiplied(bytes: Bytes, times: f64, result: Bytes) -> Piece {
    num(bytes.within(result.half_unit() / (10.0 * times.max(1.0))))
}

pub fn result(readout: &ReadoutData) -> Vec<Piece> {
    vec![Piece::Value(readout.text.clone(), readout.id)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::Piece::{Frac, Group, Op, Unit, Value, Var};

    /// ZeRO-1 at 16 bytes keeps 2 + 2 whole and shards K = 12: (4 + 12/N)Ψ;
    /// at 18, Megatron-LM's distributed optimizer, 6 + 12/d; at 20, 4 + 16/d.
    #[test]
    fn the_stages_forms() {
        let adam = BytesPerParam::MIXED_PRECISION_ADAM;
        assert_eq!(whole_and_sharded(adam, ZeroStage::None), (16.0, 0.0));
        assert_eq!(whole_and_sharded(adam, ZeroStage::One), (4.0, 12.0));
        assert_eq!(whole_and_sharded(adam, ZeroStage::Two), (2.0, 14.0));
        assert_eq!(whole_and_sharded(adam, ZeroStage::Three), (0.0, 16.0));
        assert_eq!(
            whole_and_sharded(BytesPerParam::FP32_GRADIENTS, ZeroStage::One),
            (6.0, 12.0)
        );
        assert_eq!(
            whole_and_sharded(BytesPerParam::FP32_ACCUMULATION, ZeroStage::One),
            (4.0, 16.0)
        );
    }

    #[test]
    fn the_zero_1_equation() {
        let readout = ReadoutData::bytes(
            "state-per-gpu",
            "State",
            crate::model::units::Bytes(37.07e9),
        );
        let psi = || vec![Var("Ψ", "", "model")];
        let equation = state(
            BytesPerParam::MIXED_PRECISION_ADAM,
            ZeroStage::One,
            ("N", "gpus", 8),
            psi(),
            vec![Piece::Sci(6.74e9)],
            &readout,
        );
        assert_eq!(
            equation.rows[0],
            [
                Group(vec![
                    num(4.0),
                    Op("+"),
                    Frac(vec![num(12.0)], vec![Var("N", "", "gpus")])
                ]),
                Op("×"),
                Var("Ψ", "", "model")
            ]
        );
        assert_eq!(
            equation.rows[1][0],
            Group(vec![num(4.0), Op("+"), Frac(vec![num(12.0)], vec![num(8)])])
        );
        assert_eq!(equation.rows[1].last(), Some(&Unit("B")));
        assert_eq!(
            equation.rows[2],
            [Value("37.1 GB".to_string(), "state-per-gpu")]
        );
    }
}
