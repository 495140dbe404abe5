//! Megatron-Bridge's overrides of a recipe (`docs/recipe-usage.md` in
//! NVIDIA-NeMo/Megatron-Bridge): the same Megatron-Core fields as
//! Megatron-LM's flags (`megatron.rs`), written `section.field=value`
//! after the recipe's name. A recipe's model sets its activation, norms
//! and embeddings; the shape, the layout, the batch and the formats are
//! overridden here.

use super::{megatron, torchrun, Command, Launch, Layout, Part};
use crate::model::precision::Precision;

const WRITTEN_FOR: &str =
    "Megatron-Bridge as of 2026 (docs/recipe-usage.md; src/megatron/bridge/training/config.py)";

/// Bridge's recipes of the presets (`megatron.bridge.recipes`): the
/// planner's id and the recipe's function.
pub(super) const RECIPES: [(&str, &str); 4] = [
    ("llama3-8b", "llama3_8b_pretrain_config"),
    ("llama3-70b", "llama3_70b_pretrain_config"),
    ("llama3-405b", "llama31_405b_pretrain_config"),
    ("deepseek-v3", "deepseek_v3_pretrain_config"),
];

/// Bridge's name for the mixed-precision recipe the plan's formats are
/// (`src/megatron/bridge/training/mixed_precision.py`'s presets, whose
/// fields cannot be overridden beside the name): FP8 weights are its
/// delayed scaling, Megatron-LM's default recipe, which gathers them in
/// FP8 (`fp8_param_gather`); of its presets only the sub-channel one
/// (TransformerEngine's blockwise scaling) keeps BF16 weights.
fn mixed_precision(precision: Precision) -> &'static str {
    match precision {
        Precision::Bf16 => "bf16_mixed",
        Precision::Fp8 => "bf16_with_fp8_subchannel_scaling_mixed",
        Precision::Fp8Primary => "bf16_with_fp8_delayed_scaling_mixed",
    }
}

/// The overrides for the plan.
pub(super) fn write(layout: &Layout, launch: &mut Launch) {
    let recipe = layout
        .run
        .preset
        .and_then(|id| RECIPES.iter().find(|(preset, _)| *preset == id))
        .map(|(_, recipe)| *recipe);
    let mut command = Command::new(torchrun(
        layout.world,
        &format!(
            "scripts/training/run_recipe.py --recipe {}",
            recipe.unwrap_or("RECIPE")
        ),
    ));
    for setting in megatron::settings(layout) {
        if let Some((key, value)) = setting.key {
            command.push(format!("{key}={value}"));
        }
    }
    command.push(format!(
        "mixed_precision={}",
        mixed_precision(layout.precision())
    ));
    launch.written_for = WRITTEN_FOR.to_string();
    launch.parts.push(Part {
        name: "the command line, with the recipe's overrides".to_string(),
        text: command.text(),
    });
    if recipe.is_none() {
        launch.unsaid.push("Bridge has no recipe of this model under the planner's name: RECIPE stands for the one you start from.".to_string());
    }
    if layout.precision() == Precision::Fp8 {
        launch.unsaid.push("Bridge's one FP8 preset that keeps the weights in BF16 scales by blocks (sub-channel): Megatron-LM's delayed scaling comes with FP8 weights, the planner's FP8 weights.".to_string());
    }
    launch.unsaid.extend(megatron::unsaid(layout));
    launch
        .refusals
        .extend(megatron::refusals(&megatron::Checked::of(layout)));
}
