//! DeepSpeed's `ds_config.json` read back (`docs/_pages/config-json.md`):
//! the batch's three sizes (any two give the third, `runtime/config.py`),
//! the ZeRO stage, the precision, and the tensor and Ulysses degrees where
//! the JSON holds them. The pipeline's degree is not in the JSON (it is
//! the model's code, or Megatron-DeepSpeed's flags, which the command-line
//! reader takes, with DeepSpeed's pipeline refusal, `launch::deepspeed`'s);
//! the checks quoted are DeepSpeed's messages, with the numbers.

use super::flat::Flat;
use super::{left_as_they_are, push, size, Reading, Unreadable};
use crate::launch::Tool;

/// The batch's three sizes: the global batch, a GPU's micro-batch and
/// the micro-batches a step (`runtime/config.py`, `_batch_assertion`).
const SIZES: [&str; 3] = [
    "train_batch_size",
    "train_micro_batch_size_per_gpu",
    "gradient_accumulation_steps",
];

pub(super) fn read(flat: &Flat) -> Result<Reading, Unreadable> {
    let mut reading = Reading {
        tool: Some(Tool::DeepSpeed),
        format: "DeepSpeed's JSON".to_string(),
        ..Reading::default()
    };
    let (mut unread, mut auto) = (Vec::new(), Vec::new());
    let mut sizes = [None; 3];
    let (mut stage, mut tp, mut cp, mut precision) = (None, None, None, None);
    for (key, value) in flat {
        let slot = SIZES.iter().position(|k| k == key);
        let taken = match key.as_str() {
            _ if slot.is_some() => {
                // "auto" is the Hugging Face integration's: filled in by it.
                if value == "auto" {
                    auto.push(key.as_str());
                } else {
                    sizes[slot.unwrap_or(0)] = Some(size(key, value)?);
                }
                true
            }
            "zero_optimization.stage" => {
                if !matches!(value.as_str(), "0" | "1" | "2" | "3") {
                    return Err(Unreadable(format!(
                        "zero_optimization.stage {value}: DeepSpeed's ZeRO stage is 0, 1, 2 or 3. Nothing was changed."
                    )));
                }
                stage = Some(value.clone());
                true
            }
            "tensor_parallel.autotp_size" => {
                // 0, DeepSpeed's default, turns AutoTP off (`tensor_parallel/config.py`).
                tp = Some(if value == "0" { 1 } else { size(key, value)? });
                true
            }
            "sequence_parallel_size" => {
                cp = Some(size(key, value)?);
                true
            }
            "bf16.enabled" | "fp16.enabled" => {
                match value.as_str() {
                    "true" => precision = Some(key.as_str()),
                    "auto" => auto.push(key.as_str()),
                    _ => {}
                }
                true
            }
            _ => false,
        };
        if taken {
            reading.read.push(format!("{key} {value}"));
        } else {
            unread.push(key.clone());
        }
    }
    let pairs = &mut reading.pairs;
    if let Some(stage) = &stage {
        push(pairs, "stage", stage.clone());
    }
    if let Some(tp) = tp {
        push(pairs, "tp", tp.to_string());
    }
    if let Some(cp) = cp {
        push(pairs, "cp", cp.to_string());
    }
    if precision.is_some() {
        push(pairs, "precision", "bf16".to_string());
    }
    if precision == Some("fp16.enabled") {
        reading.ignored.push("FP16 with loss scaling is read as BF16: the planner's state and speed are the same for both.".to_string());
    }
    match sizes {
        [Some(batch), Some(micro), Some(steps)] => {
            push(pairs, "batch", batch.to_string());
            push(pairs, "micro-batch", micro.to_string());
            let per_replica = micro.saturating_mul(steps);
            if batch.is_multiple_of(per_replica) {
                reading.data_parallel = Some(batch / per_replica);
            } else {
                // DeepSpeed checks the three against its data-parallel
                // size: none makes them agree.
                reading.broken.push(format!(
                    "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size {batch} != {micro} * {steps} * {}",
                    (batch / per_replica).max(1)
                ));
            }
        }
        [Some(batch), Some(micro), None] => {
            push(pairs, "batch", batch.to_string());
            push(pairs, "micro-batch", micro.to_string());
        }
        [None, Some(micro), steps] => {
            push(pairs, "micro-batch", micro.to_string());
            reading.batch_per_replica = Some(micro.saturating_mul(steps.unwrap_or(1)));
        }
        [Some(batch), None, _] => push(pairs, "batch", batch.to_string()),
        [None, None, _] => reading
            .ignored
            .push("No batch size is given: the planner's batch is kept.".to_string()),
    }
    if !auto.is_empty() {
        reading.ignored.push(format!(
            "{} \"auto\": Hugging Face's Trainer fills these in when it starts DeepSpeed; the planner's are kept.",
            auto.join(", ")
        ));
    }
    reading.ignored.push("The pipeline's degree is not in DeepSpeed's JSON (it is the model's code, or Megatron-DeepSpeed's --pipeline-model-parallel-size): the planner's is kept.".to_string());
    reading.ignored.extend(left_as_they_are(&unread));
    Ok(reading)
}
