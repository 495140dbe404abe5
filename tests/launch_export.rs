//! The planner's "Run it with" part (`src/launch/`), checked against the
//! tools' own files and rules: each case is a public recipe or example
//! script, named with its repository, path and commit, whose values the
//! export must write back in that tool's keys; the property tests hold the
//! tools' own checks (as their code states them) over random plans.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::launch;
use parallax::launch::{Launch, Tool};
use proptest::prelude::*;

/// A part's text read as its tool's shell would: the backslash line
/// continuations joined, then split into words.
fn words(text: &str) -> Vec<String> {
    shlex::split(&text.replace("\\\n", " ")).expect("the shell reads it")
}

/// The value after `flag` on a command line, or the value of `key=value`.
fn value<'a>(words: &'a [String], name: &str) -> Option<&'a str> {
    let assigned = format!("{name}=");
    words.iter().enumerate().find_map(|(i, word)| {
        if word == name {
            words.get(i + 1).map(String::as_str)
        } else {
            word.strip_prefix(&assigned)
        }
    })
}

/// The GPUs torchrun starts: its nodes times the GPUs of each.
fn world(words: &[String]) -> u64 {
    let count = |flag| {
        value(words, flag)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no {flag}"))
    };
    count("--nnodes") * count("--nproc-per-node")
}

fn part<'a>(launch: &'a Launch, name: &str) -> &'a str {
    &launch
        .parts
        .iter()
        .find(|p| p.name.contains(name))
        .unwrap_or_else(|| panic!("no part {name}"))
        .text
}

/// Megatron-LM's GPT-3 175B example (NVIDIA/Megatron-LM
/// `examples/gpt3/train_gpt3_175b_distributed.sh` at 157006d): 96 layers of
/// width 12,288 with 96 heads at sequence 2,048, t 8 and p 16, micro-batch
/// 1 and global batch 1,536, on 1,024 GPUs (its 128 nodes of 8).
#[test]
fn megatron_lm_writes_its_gpt3_175b_example() {
    let megatron = launch(
        "model=gpt3-175b&gpu=a100-80gb&gpus=1024&tp=8&pp=16&batch=1536&micro-batch=1&seq=2048",
        Tool::MegatronLm,
    );
    let flags = words(part(&megatron, "command line"));
    for (flag, expected) in [
        ("--num-layers", "96"),
        ("--hidden-size", "12288"),
        ("--num-attention-heads", "96"),
        ("--seq-length", "2048"),
        ("--max-position-embeddings", "2048"),
        ("--micro-batch-size", "1"),
        ("--global-batch-size", "1536"),
        ("--tensor-model-parallel-size", "8"),
        ("--pipeline-model-parallel-size", "16"),
    ] {
        assert_eq!(value(&flags, flag), Some(expected), "{flag}");
    }
    // GPT-3 is Megatron-LM's default architecture: none of Llama's switches.
    for absent in ["--swiglu", "--disable-bias-linear", "--sequence-parallel"] {
        assert!(!flags.iter().any(|f| f == absent), "{absent}");
    }
    assert!(megatron.refusals.is_empty(), "{:?}", megatron.refusals);
}

/// torchtitan's Llama 3 70B TOML (pytorch/torchtitan
/// `torchtitan/models/llama3/train_configs/llama3_70b.toml` at 038d5fd, a
/// preset for 64 A100s): local batch 8, sequence 8,192, t 8, FSDP over the
/// rest (`data_parallel_shard_degree = -1`: 64 / 8 = 8), full
/// recomputation, no torch.compile.
#[test]
fn torchtitan_writes_its_llama3_70b_toml() {
    let titan = launch(
        "model=llama3-70b&gpu=a100-80gb&gpus=64&tp=8&sp=1&stage=3&batch=64&micro-batch=8&recompute=full&software=torchtitan-eager",
        Tool::Torchtitan,
    );
    let toml: toml::Table = part(&titan, "TOML").parse().expect("valid TOML");
    let read = |section: &str, key: &str| toml[section][key].clone();
    assert_eq!(read("model", "name").as_str(), Some("llama3"));
    assert_eq!(read("model", "flavor").as_str(), Some("70B"));
    assert_eq!(read("training", "local_batch_size").as_integer(), Some(8));
    assert_eq!(read("training", "seq_len").as_integer(), Some(8192));
    assert_eq!(
        read("parallelism", "tensor_parallel_degree").as_integer(),
        Some(8)
    );
    assert_eq!(
        read("parallelism", "data_parallel_shard_degree").as_integer(),
        Some(8)
    );
    assert_eq!(
        read("parallelism", "data_parallel_replicate_degree").as_integer(),
        Some(1)
    );
    assert_eq!(
        read("parallelism", "pipeline_parallel_degree").as_integer(),
        Some(1)
    );
    assert_eq!(read("activation_checkpoint", "mode").as_str(), Some("full"));
    assert_eq!(read("compile", "enable").as_bool(), Some(false));
    // The 2026 command line counts the batch in tokens: a rank's 8
    // sequences of 8,192, and 64 of them a step.
    let command = words(part(&titan, "command line"));
    assert_eq!(
        value(&command, "--training.num_tokens_per_microbatch_per_dp_rank"),
        Some("65536")
    );
    assert_eq!(
        value(&command, "--training.num_tokens_per_train_step"),
        Some("524288")
    );
    assert_eq!(value(&command, "--config"), Some("llama3_70b"));
    assert_eq!(world(&command), 64);
}

/// torchtitan's Llama 3.1 405B preset for 128 H100s (`llama3_405b.toml` at
/// e0d2de6 and `docs/performance.md`: local batch 2, global 2 × 16 FSDP
/// ranks = 32, t 8), full recomputation, torch.compile, Float8 with FSDP's
/// gathers in FP8.
#[test]
fn torchtitan_writes_its_llama3_405b_preset() {
    let titan = launch(
        "model=llama3-405b&gpu=h100-sxm&gpus=128&tp=8&sp=1&stage=3&batch=32&micro-batch=2&recompute=full&precision=fp8-primary&software=torchtitan",
        Tool::Torchtitan,
    );
    let toml: toml::Table = part(&titan, "TOML").parse().expect("valid TOML");
    assert_eq!(
        toml["model"]["converters"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(toml["model"]["converters"][0].as_str(), Some("float8"));
    assert_eq!(toml["training"]["local_batch_size"].as_integer(), Some(2));
    assert_eq!(toml["training"]["global_batch_size"].as_integer(), Some(32));
    assert_eq!(
        toml["parallelism"]["data_parallel_shard_degree"].as_integer(),
        Some(16)
    );
    assert_eq!(
        toml["float8"]["enable_fsdp_float8_all_gather"].as_bool(),
        Some(true)
    );
    assert_eq!(toml["compile"]["enable"].as_bool(), Some(true));
}

/// Megatron-Bridge's performance preset `LLAMA3_70B_PRETRAIN_CONFIG_H100_BF16_V1`
/// (NVIDIA-NeMo/Megatron-Bridge `scripts/performance/configs/llama/llama3_workload_base_configs.py`
/// at 00919dc): 64 GPUs, t 4, p 4, cp 2, 5 chunks a GPU, global batch 128,
/// micro-batch 1; the recipe it overrides is Llama 3 70B's.
#[test]
fn bridge_writes_its_llama3_70b_performance_preset() {
    let bridge = launch(
        "model=llama3-70b&gpu=h100-sxm&gpus=64&tp=4&pp=4&cp=2&schedule=interleaved&chunks=5&batch=128&micro-batch=1",
        Tool::MegatronBridge,
    );
    let overrides = words(part(&bridge, "overrides"));
    assert_eq!(
        value(&overrides, "--recipe"),
        Some("llama3_70b_pretrain_config")
    );
    for (key, expected) in [
        ("model.tensor_model_parallel_size", "4"),
        ("model.pipeline_model_parallel_size", "4"),
        ("model.context_parallel_size", "2"),
        ("model.virtual_pipeline_model_parallel_size", "5"),
        ("train.global_batch_size", "128"),
        ("train.micro_batch_size", "1"),
        ("mixed_precision", "bf16_mixed"),
    ] {
        assert_eq!(value(&overrides, key), Some(expected), "{key}");
    }
    // Bridge checks the dataset's length against the model's (`config.py`).
    assert_eq!(
        value(&overrides, "model.seq_length"),
        value(&overrides, "dataset.seq_length")
    );
    assert!(bridge.refusals.is_empty(), "{:?}", bridge.refusals);
}

/// A layout the tools refuse is written with their own messages and the
/// plan's numbers: Megatron-Core's head rule
/// (`transformer_config.py`'s `__post_init__`), its pipeline rule without
/// interleaving (`arguments.py`), and DeepSpeed's pipeline engine on ZeRO-2
/// and 3 (`deepspeed/runtime/pipe/engine.py`).
#[test]
fn the_tools_refusals_are_quoted_with_the_plans_numbers() {
    let heads = launch(
        "model=llama3-8b&heads=12&kv-heads=12&hidden=1536&gpus=8&tp=8",
        Tool::MegatronLm,
    );
    assert!(
        heads.refusals.contains(
            &"num_attention_heads (12) must be a multiple of tensor_model_parallel_size (8)."
                .to_string()
        ),
        "{:?}",
        heads.refusals
    );
    // 61 layers on 16 stages, the planner's split 3, 3, 4, ..., 4, 3: no
    // first and last alone express it.
    let uneven = launch(
        "model=deepseek-v3&gpu=h800&gpus=2048&pp=16&ep=64&stage=1",
        Tool::MegatronBridge,
    );
    assert!(
        uneven.refusals.contains(
            &"Number of layers should be divisible by the pipeline-model-parallel size".to_string()
        ),
        "{:?}",
        uneven.refusals
    );
    assert!(
        uneven.unsaid.iter().any(
            |l| l.contains("3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3")
                && l.contains("--pipeline-model-parallel-layout")
        ),
        "{:?}",
        uneven.unsaid
    );
    let deepspeed = |stage: u32| {
        launch(
            &format!("model=llama3-8b&gpus=16&pp=2&stage={stage}"),
            Tool::DeepSpeed,
        )
    };
    let refusal = "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism";
    assert_eq!(deepspeed(3).refusals, [refusal]);
    assert_eq!(deepspeed(2).refusals, [refusal]);
    assert!(deepspeed(1).refusals.is_empty());
}

/// 32 layers on 3 stages, the planner's split 10, 11, 11 (the first stage
/// gives up the layer 3 × 11 − 32): Megatron-Core takes it as the first and
/// last stages' layers (`--decoder-first-pipeline-num-layers`, Bridge's
/// `num_layers_in_first_pipeline_stage`), the middle ones the rest, and
/// refuses nothing.
#[test]
fn an_uneven_split_megatron_can_take_is_written_and_read_back() {
    let megatron = launch("model=llama3-8b&gpus=24&pp=3", Tool::MegatronLm);
    let flags = words(part(&megatron, "command line"));
    assert_eq!(
        value(&flags, "--decoder-first-pipeline-num-layers"),
        Some("10")
    );
    assert_eq!(
        value(&flags, "--decoder-last-pipeline-num-layers"),
        Some("11")
    );
    assert!(megatron.refusals.is_empty(), "{:?}", megatron.refusals);
    let bridge = words(part(
        &launch("model=llama3-8b&gpus=24&pp=3", Tool::MegatronBridge),
        "overrides",
    ));
    assert_eq!(
        value(&bridge, "model.num_layers_in_first_pipeline_stage"),
        Some("10")
    );
    let reading = parallax::launch::read(part(&megatron, "command line")).unwrap();
    assert!(reading.broken.is_empty(), "{:?}", reading.broken);
}

/// What a tool cannot take is said, never dropped: DeepSeek-V3's DualPipe
/// in Megatron-LM, torchtitan's op-level recomputation in Bridge, the
/// context ring and FP8 in DeepSpeed's JSON.
#[test]
fn what_a_tool_cannot_take_is_said() {
    let said = |query: &str, tool: Tool, words: &str| {
        let launch = launch(query, tool);
        assert!(
            launch.unsaid.iter().any(|line| line.contains(words)),
            "{tool:?} at {query}: no \"{words}\" in {:?}",
            launch.unsaid
        );
    };
    said("model=deepseek-v3&gpu=h800&gpus=2048&pp=16&schedule=dualpipe&ep=64&stage=1&precision=fp8&moments=bf16", Tool::MegatronLm, "no DualPipe schedule");
    said(
        "model=llama3-8b&gpus=8&stage=3&recompute=op",
        Tool::MegatronBridge,
        "op-level recomputation",
    );
    said(
        "model=llama3-8b&gpus=8&cp=2&seq=65536",
        Tool::DeepSpeed,
        "no ring context parallelism",
    );
    said(
        "model=llama3-8b&gpu=h100-sxm&gpus=8&precision=fp8",
        Tool::DeepSpeed,
        "no FP8",
    );
    said(
        "model=llama3-8b&gpus=12&tp=8&batch=16",
        Tool::Torchtitan,
        "8 GPUs the layout uses: 4 of the 12",
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// For any plan the planner runs, what each tool is given passes the
    /// tool's own arithmetic, re-derived here from the text it reads:
    /// Megatron-LM's and Bridge's world = t·p·cp·d and global batch =
    /// micro-batch × d × micro-batches (`num_microbatches_calculator.py`);
    /// DeepSpeed's train_batch_size = micro-batch × accumulation × world /
    /// (t·p·Ulysses' degree) (`config.py`'s batch assertion, with
    /// Megatron-DeepSpeed's data-parallel size); torchtitan's degrees multiply to NGPU (`parallel_dims.py`) and
    /// its tokens a micro-batch divide by the sequence (its batcher's check).
    #[test]
    fn every_tool_is_given_a_batch_and_a_world_it_accepts(
        model in prop::sample::select(vec!["llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b"]),
        gpus in 1u32..2048, tp in prop::sample::select(vec![1u32, 2, 4, 8]), pp in prop::sample::select(vec![1u32, 2, 4, 8]),
        cp in prop::sample::select(vec![1u32, 2]), stage in 0u32..4, micro in 1u32..5, replicas in 1u32..4, spare in 0u32..64,
        schedule in prop::sample::select(vec!["1f1b", "interleaved", "gpipe"]),
    ) {
        // At least a micro-batch a replica, and some batches that do not divide.
        let batch = micro * gpus * replicas + spare;
        let query = format!("model={model}&gpus={gpus}&tp={tp}&pp={pp}&cp={cp}&stage={stage}&micro-batch={micro}&batch={batch}&schedule={schedule}");
        prop_assume!(tp * pp * cp <= gpus);
        let number = |words: &[String], name: &str| -> u64 {
            value(words, name).unwrap_or_else(|| panic!("{query}: no {name}")).parse().unwrap()
        };
        let megatron = words(part(&launch(&query, Tool::MegatronLm), "command line"));
        let bridge = words(part(&launch(&query, Tool::MegatronBridge), "overrides"));
        let titan = launch(&query, Tool::Torchtitan);
        let toml: toml::Table = part(&titan, "TOML").parse().expect("valid TOML");
        let command = words(part(&titan, "command line"));
        let world = world(&command);
        prop_assert_eq!(self::world(&megatron), world);
        let degree = |key: &str| toml["parallelism"][key].as_integer().unwrap() as u64;
        let d = degree("data_parallel_replicate_degree") * degree("data_parallel_shard_degree");
        prop_assert_eq!(d * degree("tensor_parallel_degree") * degree("pipeline_parallel_degree") * degree("context_parallel_degree"), world, "{}", query);
        let (t, p) = (number(&megatron, "--tensor-model-parallel-size"), number(&megatron, "--pipeline-model-parallel-size"));
        prop_assert_eq!(world % (t * p * number(&megatron, "--context-parallel-size")), 0);
        let global = number(&megatron, "--global-batch-size");
        prop_assert_eq!(global % (number(&megatron, "--micro-batch-size") * d), 0, "{}", query);
        prop_assert_eq!(number(&bridge, "train.global_batch_size"), global);
        prop_assert_eq!(number(&bridge, "model.tensor_model_parallel_size"), t);
        prop_assert_eq!(toml["training"]["global_batch_size"].as_integer(), Some(global as i64));
        let tokens = number(&command, "--training.num_tokens_per_microbatch_per_dp_rank");
        prop_assert_eq!(tokens % number(&command, "--training.max_context_length"), 0);
        // Megatron-DeepSpeed's data-parallel size is world / (t·p·Ulysses'
        // degree), the plan's cp written as Ulysses' (`validate_args`).
        let deepspeed = launch(&query, Tool::DeepSpeed);
        let json: serde_json::Value = serde_json::from_str(part(&deepspeed, "ds_config")).expect("valid JSON");
        let field = |key: &str| json[key].as_u64().unwrap();
        let ds_flags = words(part(&deepspeed, "command line"));
        let ulysses = value(&ds_flags, "--ds-sequence-parallel-size").map_or(1, |v| v.parse::<u64>().unwrap());
        prop_assert_eq!(ulysses, u64::from(cp));
        prop_assert_eq!(
            field("train_batch_size"),
            field("train_micro_batch_size_per_gpu") * field("gradient_accumulation_steps") * world / (t * p * ulysses),
            "{}", query
        );
    }
}

/// The planner's parameters at `query`, with `text` read over them.
fn read_over(
    query: &str,
    text: &str,
) -> (
    parallax::figures::planner::PlannerParams,
    parallax::launch::Reading,
) {
    use parallax::figures::figure::Params;
    let mut notices = Vec::new();
    let params = parallax::figures::planner::PlannerParams::from_query(
        &parallax::model::query::Query::parse(query),
        &mut notices,
    );
    // As the page has it: read in the worker, sent as text, decoded.
    use parallax::launch::wire;
    let reading = wire::decode(&wire::encode(&parallax::launch::read(text)))
        .unwrap_or_else(|e| panic!("{text}: {}", e.0));
    let (read, notices) = params.with_reading(&reading);
    assert!(notices.is_empty(), "{notices:?}");
    (read, reading)
}

/// A command line as a reader pastes it, with the values of Megatron-LM's
/// GPT-3 175B example (`examples/gpt3/train_gpt3_175b_distributed.sh` at
/// 157006d: its 128 nodes of 8 GPUs, t 8, p 16, micro-batch 1, global batch
/// 1,536, sequence 2,048, 96 layers of width 12,288 with 96 heads) and flags
/// that are not a layout's: the planner takes GPT-3 175B on 1,024 GPUs, d = 8
/// and 1,536 / 8 = 192 micro-batches, and says what it left out.
#[test]
fn a_pasted_megatron_lm_command_line_becomes_the_plan() {
    let text = "torchrun --nproc_per_node 8 --nnodes 128 pretrain_gpt.py \\\n  --num-layers 96 --hidden-size 12288 --num-attention-heads 96 \\\n  --seq-length 2048 --max-position-embeddings 2048 \\\n  --micro-batch-size 1 --global-batch-size 1536 --lr 6.0e-5 --train-iters 500000 \\\n  --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --fp16";
    let (params, reading) = read_over("gpu=a100-80gb", text);
    let plan = params.plan();
    assert_eq!(reading.tool, Some(Tool::MegatronLm));
    assert_eq!(params.scenario.model.id, "gpt3-175b");
    assert_eq!(
        (plan.gpus, plan.tensor, plan.pipeline, plan.data_parallel()),
        (1024, 8, 16, 8)
    );
    assert_eq!(
        (plan.micro_batch(), plan.micro_batches(), plan.batch),
        (1.0, 192, 1536.0)
    );
    assert_eq!(plan.activations.seq, 2048.0);
    let ignored = reading.ignored.join(" ");
    for flag in [
        "--lr",
        "--train-iters",
        "--fp16",
        "--max-position-embeddings",
    ] {
        assert!(ignored.contains(flag), "{flag}: {ignored}");
    }
    assert!(reading.broken.is_empty(), "{:?}", reading.broken);
}

/// Megatron-Bridge's overrides of its Llama 3 70B performance preset (as in
/// `bridge_writes_its_llama3_70b_performance_preset`) read back: the recipe
/// names the model; t 4, p 4, cp 2 and 5 chunks on 64 GPUs leave d = 2.
#[test]
fn pasted_bridge_overrides_become_the_plan() {
    let text = "WORLD_SIZE=64 scripts/training/run_recipe.py --recipe llama3_70b_pretrain_config model.tensor_model_parallel_size=4 model.pipeline_model_parallel_size=4 model.context_parallel_size=2 model.virtual_pipeline_model_parallel_size=5 train.global_batch_size=128 train.micro_batch_size=1 mixed_precision=bf16_mixed";
    let (params, reading) = read_over("gpu=h100-sxm", text);
    let plan = params.plan();
    assert_eq!(reading.tool, Some(Tool::MegatronBridge));
    assert_eq!(params.scenario.model.id, "llama3-70b");
    assert_eq!(
        (
            plan.gpus,
            plan.tensor,
            plan.pipeline,
            plan.context,
            plan.data_parallel()
        ),
        (64, 4, 4, 2, 2)
    );
    assert_eq!(
        (plan.schedule, plan.chunks),
        (parallax::model::pipeline::Schedule::Interleaved, 5)
    );
    assert_eq!(plan.micro_batches(), 64);
}

/// The tools' own checks on the numbers as pasted, in Megatron-Core's
/// words (`arguments.py`, `num_microbatches_calculator.py`): 100 GPUs do
/// not divide by t 8; 10 sequences do not divide over 4 replicas.
#[test]
fn a_pasted_layout_the_tool_refuses_is_said_in_its_words() {
    let world =
        parallax::launch::read("--nnodes 1 --nproc-per-node 100 --tensor-model-parallel-size 8")
            .unwrap();
    assert!(
        world.broken.contains(
            &"world size (100) is not divisible by total_model_size (total_model_size=8)"
                .to_string()
        ),
        "{:?}",
        world.broken
    );
    let batch = parallax::launch::read(
        "WORLD_SIZE=8 --tensor-model-parallel-size 2 --micro-batch-size 1 --global-batch-size 10",
    )
    .unwrap();
    assert!(batch.broken.contains(&"global batch size (10) is not divisible by micro batch size (1) times data parallel size (4)".to_string()), "{:?}", batch.broken);
}

/// Hostile pastes get a plain notice naming what is wrong, and nothing is
/// read (the planner keeps its plan).
#[test]
fn hostile_pastes_are_refused_with_a_notice() {
    let refused = |text: &str, words: &str| {
        let notice = parallax::launch::read(text).expect_err(text).0;
        assert!(notice.contains(words), "{text:?}: {notice}");
        assert!(notice.ends_with("Nothing was changed."), "{notice}");
    };
    refused(
        "--tensor-model-parallel-size -1",
        "--tensor-model-parallel-size -1: a size is a whole number from 1",
    );
    refused(
        "--pipeline-model-parallel-size 1e309",
        "--pipeline-model-parallel-size 1e309",
    );
    refused(
        "--micro-batch-size 1 \\\n  --lr '6e-5",
        "Line 2: a quote opens and is never closed",
    );
    refused(&"--lr 1 ".repeat(20_000), "at most 65,536");
    // serde_json stops at 128 levels of nesting.
    refused(
        &format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000)),
        "Line 1: this JSON does not parse (recursion limit exceeded)",
    );
    refused(
        "{\n  \"train_batch_size\": 1e309\n}",
        "Line 2: this JSON does not parse (number out of range)",
    );
    refused(
        "[training]\nseq_len = 1\n[training]\nseq_len = 2",
        "Line 3: this TOML does not parse",
    );
    refused(
        "[training]\nlocal_batch_size = 0\n",
        "training.local_batch_size 0: a size is a whole number from 1",
    );
    refused(&"{\"a\": 1}".repeat(1 << 17), "at most 65,536");
    refused("hello world", "No flag");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Any text, and flags with any sizes (the largest the reader takes
    /// multiplied together among them), reads or is refused without a panic.
    #[test]
    fn any_paste_reads_or_is_refused(
        text in any::<String>(),
        sizes in proptest::collection::vec(1u32..=(1 << 20), 6),
    ) {
        let _ = parallax::launch::read(&text);
        let flags = format!(
            "--nnodes {} --nproc-per-node {} --tensor-model-parallel-size {} --pipeline-model-parallel-size {} --context-parallel-size {} --micro-batch-size {}",
            sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]
        );
        let reading = parallax::launch::read(&flags).expect("sizes in range read");
        prop_assert!(reading.pairs.iter().any(|(k, _)| k == "gpus"));
    }

    /// For random plans, reading back what Megatron-LM and Megatron-Bridge
    /// are given gives the same plan: its layout, batch, recomputation,
    /// sharding, formats and GPUs at work (the schedules and recomputations
    /// the tools can express).
    #[test]
    fn a_plan_read_back_from_its_export_is_the_same_plan(
        model in prop::sample::select(vec!["llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b"]),
        gpus in 8u32..1024, tp in prop::sample::select(vec![1u32, 2, 4, 8]), pp in prop::sample::select(vec![1u32, 2, 4]),
        cp in prop::sample::select(vec![1u32, 2]), stage in 0u32..4, micro in 1u32..4, replicas in 1u32..4,
        interleaved in any::<bool>(), sp in any::<bool>(), recompute in prop::sample::select(vec!["none", "selective", "full"]),
        precision in prop::sample::select(vec!["bf16", "fp8", "fp8-primary"]), moments in prop::sample::select(vec!["fp32", "bf16"]),
        tool in prop::sample::select(vec![Tool::MegatronLm, Tool::MegatronBridge]),
    ) {
        prop_assume!(tp * pp * cp <= gpus);
        let schedule = if interleaved { "interleaved&chunks=2" } else { "1f1b" };
        let query = format!("model={model}&gpu=h100-sxm&gpus={gpus}&tp={tp}&pp={pp}&cp={cp}&stage={stage}&micro-batch={micro}&batch={}&schedule={schedule}&sp={}&recompute={recompute}&precision={precision}&moments={moments}", micro * gpus * replicas, u8::from(sp));
        let before = common::plan(&query);
        let text = launch(&query, tool).parts[0].text.clone();
        let (after, _) = read_over(&query, &text);
        let after = after.plan();
        prop_assert_eq!((after.tensor, after.pipeline, after.context, after.stage), (before.tensor, before.pipeline, before.context, before.stage), "{}", query);
        prop_assert_eq!(after.sequences_run(), before.sequences_run(), "{}", query);
        prop_assert_eq!(after.gpus_used(), before.gpus_used(), "{}", query);
        prop_assert_eq!(after.micro_batch(), before.micro_batch());
        prop_assert_eq!(after.activations.recompute, before.activations.recompute);
        prop_assert_eq!(after.activations.sequence_parallel && tp > 1, before.activations.sequence_parallel && tp > 1);
        prop_assert_eq!(after.numerics, before.numerics, "{}", query);
        if pp > 1 {
            prop_assert_eq!((after.schedule, after.chunks), (before.schedule, before.chunks), "{}", query);
        }
        prop_assert_eq!(after.arch, before.arch, "{}", query);
    }
}

/// A file of `tests/launch-configs/` (its source and commit are in that
/// folder's `SOURCES.md`), as a reader pastes it.
fn config(name: &str) -> String {
    let path = format!("{}/tests/launch-configs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The planner's URL after an import: what the page's address then holds.
fn query_of(params: &parallax::figures::planner::PlannerParams) -> String {
    use parallax::figures::figure::Params;
    let mut pairs = parallax::model::query::Pairs::new();
    params.write(&mut pairs);
    parallax::model::query::to_search(&pairs)
}

/// Llama 3's parameters from its published shape (Meta's `params.json`:
/// head width 128, 8 key-value heads, vocabulary 128,256, embedding and
/// output untied, two norms a layer and one at the end).
fn llama3_parameters(layers: f64, hidden: f64, ffn: f64) -> f64 {
    let (vocab, kv) = (128_256.0, 8.0 * 128.0);
    let layer = 2.0 * hidden * hidden + 2.0 * hidden * kv + 3.0 * hidden * ffn + 2.0 * hidden;
    2.0 * vocab * hidden + layers * layer + hidden
}

/// The state a GPU holds under mixed-precision Adam with every part of it
/// sharded over `gpus` (ZeRO-3, as FSDP's full sharding): 16 bytes a
/// parameter, 2 + 2 + 4 + 4 + 4 (ZeRO, Rajbhandari et al. 2020, §3).
fn sharded_state(parameters: f64, gpus: f64) -> f64 {
    16.0 * parameters / gpus
}

/// `actual` within a thousandth of `expected`.
fn near(actual: f64, expected: f64) -> bool {
    (actual / expected - 1.0).abs() < 1e-3
}

/// torchtitan's Llama 3 8B preset (its comment: for 64 A100s), pasted: its
/// era named, FSDP over all 64 GPUs (`data_parallel_shard_degree = -1`),
/// a rank's batch of 1 of 8,192 tokens, selective recomputation of the
/// operators, no torch.compile; exported again, its keys come back.
#[test]
fn torchtitan_llama3_8b_toml_round_trips() {
    let (params, reading) = read_over(
        "gpu=a100-80gb&gpus=64",
        &config("torchtitan-llama3_8b.toml"),
    );
    assert_eq!(reading.format, "torchtitan's TOML of 2024 to March 2025");
    let plan = params.plan();
    assert_eq!(params.scenario.model.id, "llama3-8b");
    assert_eq!(
        (
            plan.tensor,
            plan.pipeline,
            plan.context,
            plan.data_parallel()
        ),
        (1, 1, 1, 64)
    );
    assert_eq!(plan.stage, parallax::model::memory::ZeroStage::Three);
    // A rank's batch of 1 with no accumulation: 64 sequences a step.
    assert_eq!(
        (plan.micro_batch(), plan.micro_batches(), plan.batch),
        (1.0, 1, 64.0)
    );
    assert_eq!(plan.activations.seq, 8192.0);
    assert_eq!(
        plan.activations.recompute,
        parallax::model::activations::Recompute::Op
    );
    let state = common::readout("planner", &query_of(&params), "state-per-gpu");
    let expected = sharded_state(llama3_parameters(32.0, 4096.0, 14_336.0), 64.0);
    assert!(near(state, expected), "{state} against {expected}");
    let titan = parallax::launch::export(Tool::Torchtitan, &params.launch_run(&plan));
    let toml: toml::Table = part(&titan, "TOML").parse().expect("valid TOML");
    // The 2025 TOML's names for the file's: `batch_size` is now
    // `local_batch_size`, `training.compile` is `compile.enable`, and -1
    // the GPUs left: 64.
    assert_eq!(toml["training"]["local_batch_size"].as_integer(), Some(1));
    assert_eq!(toml["training"]["seq_len"].as_integer(), Some(8192));
    assert_eq!(toml["compile"]["enable"].as_bool(), Some(false));
    let parallelism = &toml["parallelism"];
    for (key, value) in [
        ("data_parallel_replicate_degree", 1),
        ("data_parallel_shard_degree", 64),
        ("tensor_parallel_degree", 1),
        ("pipeline_parallel_degree", 1),
        ("context_parallel_degree", 1),
    ] {
        assert_eq!(parallelism[key].as_integer(), Some(value), "{key}");
    }
    assert_eq!(
        toml["activation_checkpoint"]["mode"].as_str(),
        Some("selective")
    );
    assert_eq!(
        toml["activation_checkpoint"]["selective_ac_option"].as_str(),
        Some("op")
    );
}

/// torchtitan's Llama 3 70B preset (for 64 A100s): t 8 leaves FSDP 8, a
/// rank's batch of 8, full recomputation; exported again, its keys come back.
#[test]
fn torchtitan_llama3_70b_toml_round_trips() {
    let (params, reading) = read_over(
        "gpu=a100-80gb&gpus=64",
        &config("torchtitan-llama3_70b.toml"),
    );
    assert_eq!(reading.tool, Some(Tool::Torchtitan));
    let plan = params.plan();
    assert_eq!(params.scenario.model.id, "llama3-70b");
    assert_eq!(
        (plan.tensor, plan.pipeline, plan.data_parallel()),
        (8, 1, 8)
    );
    assert_eq!(
        (plan.micro_batch(), plan.micro_batches(), plan.batch),
        (8.0, 1, 64.0)
    );
    assert_eq!(
        plan.activations.recompute,
        parallax::model::activations::Recompute::Full
    );
    // FSDP shards over its 8 ranks, tensor parallelism over 8 more: 64 ways.
    let state = common::readout("planner", &query_of(&params), "state-per-gpu");
    let expected = sharded_state(llama3_parameters(80.0, 8192.0, 28_672.0), 64.0);
    assert!(near(state, expected), "{state} against {expected}");
    let titan = parallax::launch::export(Tool::Torchtitan, &params.launch_run(&plan));
    let toml: toml::Table = part(&titan, "TOML").parse().expect("valid TOML");
    // The file's model comes back by name, its context length beside it.
    assert_eq!(toml["model"]["name"].as_str(), Some("llama3"));
    assert_eq!(toml["model"]["flavor"].as_str(), Some("70B"));
    assert_eq!(
        value(&words(part(&titan, "command line")), "--config"),
        Some("llama3_70b")
    );
    assert_eq!(toml["training"]["local_batch_size"].as_integer(), Some(8));
    assert_eq!(
        toml["parallelism"]["tensor_parallel_degree"].as_integer(),
        Some(8)
    );
    assert_eq!(
        toml["parallelism"]["data_parallel_shard_degree"].as_integer(),
        Some(8)
    );
    assert_eq!(toml["activation_checkpoint"]["mode"].as_str(), Some("full"));
}

/// torchtitan's Llama 3.1 405B preset (for 128 H100s): t 8 and FSDP 16,
/// Float8 with FSDP's gathers in FP8, torch.compile; its async tensor
/// parallelism is named as left out. Exported again, its keys come back.
#[test]
fn torchtitan_llama3_405b_toml_round_trips() {
    let (params, reading) = read_over(
        "gpu=h100-sxm&gpus=128",
        &config("torchtitan-llama3_405b.toml"),
    );
    let plan = params.plan();
    assert_eq!(params.scenario.model.id, "llama3-405b");
    assert_eq!((plan.tensor, plan.data_parallel()), (8, 16));
    assert_eq!((plan.micro_batch(), plan.batch), (2.0, 32.0));
    assert_eq!(
        params.scenario.software,
        parallax::model::software::Software::Torchtitan
    );
    assert!(plan.numerics.fp8_inputs(), "{:?}", plan.numerics);
    assert!(
        reading
            .ignored
            .join(" ")
            .contains("parallelism.enable_async_tensor_parallel"),
        "{:?}",
        reading.ignored
    );
    let titan = parallax::launch::export(Tool::Torchtitan, &params.launch_run(&plan));
    let toml: toml::Table = part(&titan, "TOML").parse().expect("valid TOML");
    assert_eq!(toml["model"]["converters"][0].as_str(), Some("float8"));
    assert_eq!(
        toml["float8"]["enable_fsdp_float8_all_gather"].as_bool(),
        Some(true)
    );
    assert_eq!(toml["compile"]["enable"].as_bool(), Some(true));
    assert_eq!(toml["training"]["local_batch_size"].as_integer(), Some(2));
    assert_eq!(
        toml["parallelism"]["data_parallel_shard_degree"].as_integer(),
        Some(16)
    );
}

/// A ds_config.json's keys in the planner's DeepSpeed export of `params`.
fn deepspeed_config(params: &parallax::figures::planner::PlannerParams) -> serde_json::Value {
    let plan = params.plan();
    let launch = parallax::launch::export(Tool::DeepSpeed, &params.launch_run(&plan));
    serde_json::from_str(part(&launch, "ds_config")).expect("valid JSON")
}

/// Megatron-DeepSpeed's universal-checkpointing example: 16 sequences a
/// step in micro-batches of 4, ZeRO-3, BF16. On 4 GPUs that is one
/// micro-batch a step (16 = 4 × 1 × 4, DeepSpeed's batch rule).
#[test]
fn megatron_deepspeed_ds_config_round_trips() {
    let (params, reading) = read_over(
        "gpu=a100-80gb&gpus=4",
        &config("megatron-deepspeed-universal-checkpointing.json"),
    );
    assert_eq!(
        (reading.tool, reading.format.as_str()),
        (Some(Tool::DeepSpeed), "DeepSpeed's JSON")
    );
    let plan = params.plan();
    assert_eq!(plan.stage, parallax::model::memory::ZeroStage::Three);
    assert_eq!(
        (plan.micro_batch(), plan.batch, plan.micro_batches()),
        (4.0, 16.0, 1)
    );
    let json = deepspeed_config(&params);
    assert_eq!(json["train_batch_size"], 16);
    assert_eq!(json["train_micro_batch_size_per_gpu"], 4);
    assert_eq!(json["gradient_accumulation_steps"], 1);
    assert_eq!(json["zero_optimization"]["stage"], 3);
    assert_eq!(json["bf16"]["enabled"], true);
}

/// DeepSpeed's AutoTP example for Hugging Face (t 4, ZeRO-2, the batch
/// "auto", left to Hugging Face's Trainer): t and the stage are read, the
/// batch is kept and the report says why. The export writes t in
/// Megatron-DeepSpeed's flags, where Megatron's model takes it.
#[test]
fn deepspeed_autotp_config_round_trips() {
    let (params, reading) = read_over(
        "gpu=h100-sxm&gpus=8&batch=64",
        &config("deepspeed-tensor-parallel-hf.json"),
    );
    let plan = params.plan();
    assert_eq!(
        (plan.tensor, plan.stage),
        (4, parallax::model::memory::ZeroStage::Two)
    );
    assert_eq!(plan.batch, 64.0);
    assert!(
        reading.ignored.join(" ").contains("\"auto\""),
        "{:?}",
        reading.ignored
    );
    assert_eq!(deepspeed_config(&params)["zero_optimization"]["stage"], 2);
    let launch = parallax::launch::export(Tool::DeepSpeed, &params.launch_run(&plan));
    let flags = words(part(&launch, "Megatron-DeepSpeed"));
    assert_eq!(value(&flags, "--tensor-model-parallel-size"), Some("4"));
}

/// DeepSpeedExamples' ZeRO-3 config for Qwen 3.5's experts: micro-batches
/// of 2, one a step, and no global batch, which DeepSpeed then takes as
/// 2 × 1 × its data-parallel size: 16 on 8 GPUs.
#[test]
fn deepspeed_zero3_config_round_trips() {
    let (params, reading) = read_over(
        "gpu=h100-sxm&gpus=8",
        &config("deepspeed-zero3-qwen3_5-moe.json"),
    );
    assert_eq!(reading.batch_per_replica, Some(2));
    let plan = params.plan();
    assert_eq!(
        (plan.micro_batch(), plan.batch, plan.micro_batches()),
        (2.0, 16.0, 1)
    );
    let json = deepspeed_config(&params);
    assert_eq!(json["train_micro_batch_size_per_gpu"], 2);
    assert_eq!(json["gradient_accumulation_steps"], 1);
    assert_eq!(json["train_batch_size"], 16);
    assert_eq!(json["zero_optimization"]["stage"], 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// For random plans torchtitan and DeepSpeed can express, each part of
    /// their export read back gives the same plan. What each cannot take is
    /// left out of the plans drawn, with the reason its export says beside
    /// the text: torchtitan has no ZeRO-1 (FSDP without resharding is read
    /// as ZeRO-2), no Megatron-style selective recomputation, and splits
    /// the norms whenever t > 1; DeepSpeed's JSON has no FP8 nor BF16
    /// moments, its pipeline takes neither ZeRO-2 nor 3 nor interleaving,
    /// and it recomputes all or nothing. torchtitan's 2026 command line
    /// leaves recomputation, compile and FP8 to the configuration function,
    /// so only its TOML is compared on them.
    #[test]
    fn a_plan_read_back_from_torchtitan_or_deepspeed_is_the_same_plan(
        model in prop::sample::select(vec!["llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b"]),
        gpus in 8u32..1024, tp in prop::sample::select(vec![1u32, 2, 4, 8]), pp in prop::sample::select(vec![1u32, 2, 4]),
        cp in prop::sample::select(vec![1u32, 2]), stage in 0u32..4, micro in 1u32..4, replicas in 1u32..4,
        recompute in prop::sample::select(vec!["none", "op", "full"]),
        precision in prop::sample::select(vec!["bf16", "fp8", "fp8-primary"]),
        deepspeed in any::<bool>(),
    ) {
        prop_assume!(tp * pp * cp <= gpus);
        let (tool, stage) = if deepspeed {
            (Tool::DeepSpeed, if pp > 1 { stage % 2 } else { stage })
        } else {
            (Tool::Torchtitan, stage.max(2) * u32::from(stage > 0))
        };
        let recompute = if deepspeed && recompute == "op" { "full" } else { recompute };
        let precision = if deepspeed { "bf16" } else { precision };
        // torchtitan's numbers are its own software's (torch.compile on).
        let software = if deepspeed { "megatron" } else { "torchtitan" };
        let query = format!("model={model}&gpu=h100-sxm&gpus={gpus}&tp={tp}&pp={pp}&cp={cp}&stage={stage}&micro-batch={micro}&batch={}&schedule=1f1b&sp={}&recompute={recompute}&precision={precision}&software={software}", micro * gpus * replicas, u8::from(tp > 1));
        let before = common::plan(&query);
        let launch = launch(&query, tool);
        for (index, part) in launch.parts.iter().enumerate() {
            let (after, _) = read_over(&query, &part.text);
            let after = after.plan();
            let name = &part.name;
            prop_assert_eq!((after.tensor, after.pipeline, after.context), (before.tensor, before.pipeline, before.context), "{} {}", name, query);
            prop_assert_eq!(after.sequences_run(), before.sequences_run(), "{} {}", name, query);
            prop_assert_eq!(after.gpus_used(), before.gpus_used(), "{} {}", name, query);
            prop_assert_eq!(after.micro_batch(), before.micro_batch(), "{} {}", name, query);
            // Sharded over one GPU is not sharded: FSDP of degree 1 is read as ZeRO-0.
            if before.data_parallel() > 1 {
                prop_assert_eq!(after.stage, before.stage, "{} {}", name, query);
            }
            // torchtitan's 2026 command line (its first part) names none of them.
            if deepspeed || index > 0 {
                prop_assert_eq!(after.activations.recompute, before.activations.recompute, "{} {}", name, query);
                prop_assert_eq!(after.numerics, before.numerics, "{} {}", name, query);
            }
            prop_assert_eq!(after.arch, before.arch, "{} {}", name, query);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any reading, its texts holding tabs, line breaks and backslashes,
    /// crosses from the launch worker to the page as it was; so does any
    /// refusal.
    #[test]
    fn a_reading_crosses_to_the_page_unchanged(
        texts in proptest::collection::vec(any::<String>(), 0..6),
        pairs in proptest::collection::vec((any::<String>(), any::<String>()), 0..6),
        sizes in (proptest::option::of(any::<u32>()), proptest::option::of(any::<u32>())),
        tool in proptest::option::of(prop::sample::select(<Tool as parallax::model::choice::Choice>::ALL.to_vec())),
        refused in any::<bool>(),
    ) {
        use parallax::launch::{wire, Reading, Unreadable};
        let answer = if refused {
            Err(Unreadable(texts.concat()))
        } else {
            Ok(Reading {
                tool,
                format: texts.first().cloned().unwrap_or_default(),
                batch_per_replica: sizes.0,
                data_parallel: sizes.1,
                pairs,
                read: texts.clone(),
                ignored: texts.iter().rev().cloned().collect(),
                broken: texts,
            })
        };
        prop_assert_eq!(wire::decode(&wire::encode(&answer)), answer);
    }

    /// Any tools' launches, their texts holding what a shell or a TOML
    /// file may (quotes, backslashes, tabs, line breaks), cross from the
    /// launch worker to the page as they were, in their order.
    #[test]
    fn launches_cross_to_the_page_unchanged(
        launches in proptest::collection::vec((
            prop::sample::select(<Tool as parallax::model::choice::Choice>::ALL.to_vec()),
            any::<String>(),
            proptest::collection::vec((any::<String>(), any::<String>()), 0..3),
            proptest::collection::vec(any::<String>(), 0..3),
            proptest::collection::vec(any::<String>(), 0..3),
        ), 0..5),
    ) {
        use parallax::launch::{wire, Part};
        let launches: Vec<Launch> = launches
            .into_iter()
            .map(|(tool, written_for, parts, unsaid, refusals)| Launch {
                tool,
                written_for,
                parts: parts.into_iter().map(|(name, text)| Part { name, text }).collect(),
                unsaid,
                refusals,
            })
            .collect();
        prop_assert_eq!(wire::decode_launches(&wire::encode_launches(&launches)), Ok(launches));
    }
}

/// The 3D figure's "Run it with": its t × p × d on t·p·d GPUs as the
/// planner runs them (Megatron-LM's flags for the seed's 8 × 8 × 16 with
/// ZeRO-1 on 1,024 GPUs); the GPT-3 175B command line with a context ring
/// of 2 read over it gives its t 8, p 16 and d = 1,024 / (8 · 16 · 2) = 4,
/// and says that the figure does not draw the ring.
#[test]
fn the_3d_figure_writes_and_reads_its_layout() {
    use parallax::figures::figure::Params;
    use parallax::figures::three_d::ThreeDParams;
    let mut notices = Vec::new();
    let params = ThreeDParams::from_query(
        &parallax::model::query::Query::parse("tp=8&pp=8&dp=16&zero=1&export=megatron-lm"),
        &mut notices,
    );
    assert!(notices.is_empty(), "{notices:?}");
    let planner = params.planner();
    let plan = planner.plan();
    let flags = words(
        &parallax::launch::export(Tool::MegatronLm, &planner.launch_run(&plan)).parts[0].text,
    );
    assert_eq!(world(&flags), 1024);
    assert_eq!(value(&flags, "--tensor-model-parallel-size"), Some("8"));
    assert_eq!(value(&flags, "--pipeline-model-parallel-size"), Some("8"));
    assert!(
        flags.iter().any(|f| f == "--use-distributed-optimizer"),
        "ZeRO-1: {flags:?}"
    );
    let text = "torchrun --nproc_per_node 8 --nnodes 128 pretrain_gpt.py --num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 --micro-batch-size 1 --global-batch-size 1536 --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --context-parallel-size 2";
    let reading = parallax::launch::read(text).expect("read");
    let (read, said) = params.with_reading(&reading);
    assert_eq!(
        (read.layout.tensor, read.layout.pipeline, read.layout.data),
        (8, 16, 4)
    );
    assert_eq!(read.scenario.model.id, "gpt3-175b");
    assert!(said.iter().any(|s| s.contains("cp 2")), "{said:?}");
}

/// What each tool does where a text leaves a setting out or names it in an
/// older spelling, as the tools' sources state it:
/// - Megatron-DeepSpeed builds its pipeline model unless
///   `--no-pipeline-parallel` is given, one stage or many (`pretrain_gpt.py`),
///   and DeepSpeed's pipeline engine refuses ZeRO-2 and 3
///   (`runtime/pipe/engine.py`); with the switch, p must be 1
///   (`megatron/arguments.py`);
/// - torchtitan's FSDP "default" does not reshard under a pipeline
///   (`parallelize.py`: `not pp_enabled`), ZeRO-2's state; its selective
///   recomputation's default option is "2", every second layer
///   (`job_config.py`); 2024 spelled the schedule `interleaved_1f1b` and
///   turned FP8 on with `float8.enable_float8_linear` (`config_manager.py`);
/// - DeepSpeed's `autotp_size` 0 is AutoTP off (`tensor_parallel/config.py`).
#[test]
fn the_tools_defaults_are_read_as_their_sources_state_them() {
    let read =
        |text: &str| parallax::launch::read(text).unwrap_or_else(|e| panic!("{text}: {}", e.0));
    let pair = |reading: &parallax::launch::Reading, key: &str| {
        reading
            .pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let zero = "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism".to_string();
    let one_stage = read(
        "WORLD_SIZE=8 pretrain_gpt.py --deepspeed --zero-stage 3 --tensor-model-parallel-size 2",
    );
    assert_eq!(one_stage.broken, vec![zero.clone()]);
    let no_engine =
        read("WORLD_SIZE=8 pretrain_gpt.py --deepspeed --zero-stage 3 --no-pipeline-parallel");
    assert!(no_engine.broken.is_empty(), "{:?}", no_engine.broken);
    let both = read("WORLD_SIZE=8 pretrain_gpt.py --deepspeed --zero-stage 1 --no-pipeline-parallel --pipeline-model-parallel-size 2");
    assert_eq!(
        both.broken,
        vec!["pipeline_model_parallel_size must be 1 if pipeline parallel is disabled".to_string()]
    );
    assert_eq!(pair(&both, "pp").as_deref(), Some("2"));

    let pipelined = read("[parallelism]\npipeline_parallel_degree = 2\ndata_parallel_shard_degree = 4\n[activation_checkpoint]\nmode = \"selective\"\n");
    assert_eq!(pair(&pipelined, "stage").as_deref(), Some("2"));
    assert_eq!(pair(&pipelined, "recompute"), None);
    assert!(
        pipelined
            .ignored
            .iter()
            .any(|i| i.contains("every second layer")),
        "{:?}",
        pipelined.ignored
    );
    let always = read(
        "[parallelism]\npipeline_parallel_degree = 2\nfsdp_reshard_after_forward = \"always\"\n",
    );
    assert_eq!(pair(&always, "stage").as_deref(), Some("3"));
    let of_2024 = read("[training]\nbatch_size = 8\n[experimental]\npipeline_parallel_degree = 4\npipeline_parallel_schedule = \"interleaved_1f1b\"\n[float8]\nenable_float8_linear = true\n");
    assert_eq!(of_2024.format, "torchtitan's TOML of 2024 to March 2025");
    assert_eq!(pair(&of_2024, "schedule").as_deref(), Some("interleaved"));
    assert_eq!(pair(&of_2024, "precision").as_deref(), Some("fp8"));
    // 2024's micro-batches default to one a stage: 8 sequences in 4 of 2.
    assert_eq!(pair(&of_2024, "micro-batch").as_deref(), Some("2"));

    let autotp_off = read("{\"tensor_parallel\": {\"autotp_size\": 0}, \"train_batch_size\": 8}");
    assert_eq!(pair(&autotp_off, "tp").as_deref(), Some("1"));
}

/// A layout on fewer GPUs than it needs (t 8 × p 4 on 9) is written for
/// the 8 · 4 = 32 it needs, and the text says so: 23 more than asked.
#[test]
fn a_layout_short_of_gpus_says_it_is_written_for_more() {
    let megatron = launch(
        "model=llama3-8b&gpu=h100-sxm&gpus=9&tp=8&pp=4",
        Tool::MegatronLm,
    );
    assert_eq!(world(&words(&megatron.parts[0].text)), 32);
    assert!(
        megatron.unsaid.contains(&"Written for the 32 GPUs the layout needs, 23 more than the 9 asked for: as asked, the plan cannot run.".to_string()),
        "{:?}",
        megatron.unsaid
    );
}

/// Llama 2 and Llama 3 70B share their shape (Touvron et al. 2023, Table 1;
/// Meta's Llama 3 model card: 80 layers of 8,192, 64 heads, 8 key-value
/// heads, 28,672 wide) and differ in the vocabulary and the context
/// length (4,096 and 8,192), which a Megatron-LM command line gives: the
/// length decides, and the reader is told of the other. A command line
/// without `--num-layers` is no refusal of a split the model on screen
/// may well take.
#[test]
fn a_shape_two_presets_share_is_read_by_its_context_length() {
    let command = |seq: u32| {
        format!("WORLD_SIZE=64 pretrain_gpt.py --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 --group-query-attention --num-query-groups 8 --seq-length {seq} --tensor-model-parallel-size 8")
    };
    let model = |reading: &parallax::launch::Reading| {
        reading
            .pairs
            .iter()
            .find(|(k, _)| k == "model")
            .map(|(_, v)| v.clone())
    };
    let three = parallax::launch::read(&command(8192)).expect("read");
    assert_eq!(model(&three).as_deref(), Some("llama3-70b"));
    assert!(three.ignored.iter().any(|i| i.contains("Llama 2 70B and Llama 3 70B") && i.contains("read as Llama 3 70B")), "{:?}", three.ignored);
    let two = parallax::launch::read(&command(4096)).expect("read");
    assert_eq!(model(&two).as_deref(), Some("llama2-70b"));
    let no_layers =
        parallax::launch::read("WORLD_SIZE=32 pretrain_gpt.py --pipeline-model-parallel-size 4")
            .expect("read");
    assert!(no_layers.broken.is_empty(), "{:?}", no_layers.broken);
}
