//! Issue 38's number formats and NVLink domain, through the planner as a
//! reader enters them. Each expected value is worked out here from its
//! source: the bytes a parameter from TransformerEngine's maintainers and
//! the ZeRO paper's accounting, the FP8 speed-up from NVIDIA's reported
//! range, the links from the GB200 NVL72 datasheet's one 72-GPU domain.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use parallax::figures::figure::Params;
use parallax::figures::find;
use parallax::figures::planner::{data, PlannerParams};
use parallax::model::query::Query;
use parallax::model::software::Software;

/// Llama 2 7B as quoted (6.74B), on one GPU: every byte of its state is on it.
const LLAMA_2_7B: f64 = 6.74e9;

/// The share of Llama 2 7B's parameters in its layers' matrices, the part
/// TransformerEngine's linear layers hold and FP8 casts (the embedding, the
/// output layer and the norms stay BF16): 32 layers of 4h² attention and 3hf
/// SwiGLU (h 4,096, f 11,008, its configuration) over its 6,738,415,616.
fn matrix_share() -> f64 {
    let (h, f) = (4096.0, 11008.0);
    32.0 * (4.0 * h * h + 3.0 * h * f) / 6_738_415_616.0
}

fn planner(query: &str, id: &str) -> f64 {
    common::readout("planner", query, id)
}

/// 16 bytes a parameter (2 + 2 + 4 + 8, Rajbhandari et al. 2020); FP8
/// beside BF16 adds, for the layers' matrices (a share s), the FP8 cast and
/// on Hopper its transpose (2 bytes, TransformerEngine#1261), on Blackwell
/// the cast alone (1, #1880); FP8 primary weights drop those matrices' 2
/// BF16 bytes; BF16 moments halve Adam's 8.
#[test]
fn the_state_a_parameter_under_each_format() {
    let state = |gpu: &str, formats: &str| {
        planner(
            &format!("?fig=planner&model=llama2-7b&gpu={gpu}&gpus=1{formats}"),
            "state-per-gpu",
        ) / LLAMA_2_7B
    };
    let share = matrix_share();
    assert!((share - 0.961).abs() < 0.001, "{share}");
    let cases = [
        ("h100-sxm", "", 16.0),
        ("h100-sxm", "&moments=bf16", 12.0),
        ("h100-sxm", "&precision=fp8", 16.0 + 2.0 * share),
        ("h100-sxm", "&precision=fp8-primary", 16.0),
        ("b200", "&precision=fp8", 16.0 + share),
        ("b200", "&precision=fp8-primary", 16.0 - share),
        (
            "gb200-nvl72",
            "&precision=fp8-primary&moments=bf16",
            12.0 - share,
        ),
    ];
    for (gpu, formats, bytes) in cases {
        assert!(
            (state(gpu, formats) - bytes).abs() < 1e-9,
            "{gpu}{formats}: {}",
            state(gpu, formats)
        );
    }
}

/// ZeRO-3 gathers the weights twice a micro-batch and reduce-scatters the
/// gradients: m(2w + g) bytes a parameter (Rajbhandari et al. 2020,
/// section 7.2.2). FP8 primary weights gather the layers' matrices (share
/// s) at 1 byte, the rest at 2: w = 2 − s, so 2(2 − s) + 2 against 2·2 + 2;
/// FP8 beside BF16 gathers the BF16 weights and casts after, so it sends
/// what BF16 sends.
#[test]
fn fp8_primary_weights_gather_their_matrices_in_one_byte() {
    let sent = |precision: &str| {
        planner(
            &format!("?fig=planner&model=llama2-7b&gpu=h100-sxm&gpus=8&stage=3&batch=8&precision={precision}"),
            "traffic-per-step",
        )
    };
    let expected = (2.0 * (2.0 - matrix_share()) + 2.0) / 6.0;
    assert!((sent("fp8-primary") / sent("bf16") - expected).abs() < 1e-12);
    assert_eq!(sent("fp8"), sent("bf16"));
}

/// FP8 speeds a step by what its layers' multiplies gain: Llama 2 7B on
/// one node of 8 H100s, ZeRO-1, its step in BF16 over its step in FP8
/// between 1.5 and the fitted gain itself (Megatron's, 1 + 0.64 × (1,979/989
/// − 1) = 1.64, `tests/published_runs.rs`), which a step all of whose time
/// were the layers' multiplies would take. Above NVIDIA's 2023 "30-40%"
/// (TransformerEngine#131), below what MLPerf v4.0 and Megatron-Bridge log.
#[test]
fn fp8_trains_llama_2_7b_faster_by_the_fitted_gain() {
    let step = |precision: &str| {
        planner(
            &format!(
                "?fig=planner&model=llama2-7b&gpu=h100-sxm&gpus=8&stage=1&precision={precision}"
            ),
            "step-time",
        )
    };
    let speedup = step("bf16") / step("fp8");
    assert!(
        (1.50..=1.0 + 0.64 * (1979.0 / 989.0 - 1.0)).contains(&speedup),
        "{speedup}"
    );
    // Primary FP8 weights compute as fast: only memory and gathers differ.
    assert_eq!(step("fp8"), step("fp8-primary"));
}

/// One rate for every figure: the explainers' times in FP8 take the FP8
/// speed-up the planner's step takes. Worked out here: Llama 2 7B's FLOP
/// a token, 6 × its quoted 6.74B, of which the layers' matrices'
/// 6 × 32(4h² + 3hf) run FP8 (a share s); on an H100 (989 TFLOP/s BF16, 1,979 FP8, its
/// datasheet) those multiplies run 1 + g × (1,979/989 − 1) times as fast,
/// g Megatron's fitted share (`Software::fp8_gain_share`), so every time
/// is 1 − s + s/gain of BF16's.
#[test]
fn every_figure_times_fp8_as_the_planner_does() {
    let (h, f) = (4096.0, 11008.0);
    let share = 32.0 * (4.0 * h * h + 3.0 * h * f) / LLAMA_2_7B;
    let gain = 1.0 + Software::Megatron.fp8_gain_share() * (1979.0 / 989.0 - 1.0);
    let expected = 1.0 - share + share / gain;
    let cases = [
        ("why", "time-1-gpu"),
        ("dp", "compute-per-step"),
        ("tp", "compute-time"),
        ("3d", "train-time"),
    ];
    for (figure, id) in cases {
        let time = |precision: &str| {
            common::readout(
                figure,
                &format!("?fig={figure}&model=llama2-7b&gpu=h100-sxm&precision={precision}"),
                id,
            )
        };
        let ratio = time("fp8") / time("bf16");
        assert!(
            (ratio - expected).abs() < 1e-9,
            "{figure} {id}: {ratio} against {expected}"
        );
    }
    // The planner's step, on one GPU with nothing to send, by the same share.
    let step = |precision: &str| {
        planner(
            &format!(
                "?fig=planner&model=llama2-7b&gpu=h100-sxm&gpus=1&batch=1&precision={precision}"
            ),
            "step-time",
        )
    };
    let ratio = step("fp8") / step("bf16");
    assert!(
        (ratio - expected).abs() < 1e-9,
        "planner: {ratio} against {expected}"
    );
}

/// The A100 has no FP8 (its datasheet lists none): asked for, it is refused
/// with a notice and BF16 stands.
#[test]
fn no_fp8_on_an_a100() {
    let (_, figure) = find("planner").unwrap();
    let mut notices = Vec::new();
    let asked = (figure.native.readouts)(
        &Query::parse("?fig=planner&model=llama2-7b&gpu=a100-80gb&gpus=8&precision=fp8"),
        &mut notices,
    );
    assert_eq!(notices.len(), 1);
    assert!(
        notices[0].message.contains("no FP8"),
        "{}",
        notices[0].message
    );
    let bf16 = (figure.native.readouts)(
        &Query::parse("?fig=planner&model=llama2-7b&gpu=a100-80gb&gpus=8"),
        &mut Vec::new(),
    );
    assert_eq!(asked, bf16);
}

/// GB200 NVL72 joins 72 GPUs in one NVLink domain (its datasheet): 8-way
/// tensor parallelism and 9 data-parallel replicas, 72 GPUs, all talk over
/// NVLink; on H100s (8 to a domain) the data-parallel group of 9 nodes
/// crosses the network, and only it.
#[test]
fn a_72_gpu_domain_keeps_every_group_on_nvlink() {
    let layout = "&model=llama3-70b&gpus=72&tp=8&stage=1&batch=144";
    let on = |gpu: &str, id: &str| planner(&format!("?fig=planner&gpu={gpu}{layout}"), id);
    assert_eq!(on("gb200-nvl72", "network-traffic-per-step"), 0.0);
    assert!(on("gb200-nvl72", "nvlink-traffic-per-step") > 0.0);
    let h100_network = on("h100-sxm", "network-traffic-per-step");
    assert!(h100_network > 0.0);
    // What crosses the network on H100s is the data-parallel traffic alone:
    // ZeRO-1's reduce-scatter and gather, (g + w)Ψ_slice(d − 1)/d, with the
    // slice the loaded tensor-parallel GPU's (at most 1/8 of the 70.6B, and
    // more than 1/8 of the layers').
    let slice_bytes = h100_network / (4.0 * 8.0 / 9.0);
    assert!(
        slice_bytes < 70.6e9 / 8.0 * 1.01 && slice_bytes > 70.6e9 / 8.0 * 0.9,
        "{slice_bytes}"
    );
}

/// A group stays on NVLink only if no copy of it straddles a domain's edge.
/// Megatron-LM's order lays the data-parallel groups of t 8 × d 8 out as
/// blocks of 64 ranks: on 128 GPUs of NVL72 racks (72 each), ranks 64–127
/// cross from the first rack to the second, so the data-parallel traffic
/// goes over the network, though 64 GPUs is less than a rack.
#[test]
fn a_group_that_straddles_a_rack_goes_over_the_network() {
    let query =
        "?fig=planner&gpu=gb200-nvl72&model=llama3-70b&gpus=128&tp=8&pp=2&stage=1&batch=128";
    assert!(planner(query, "network-traffic-per-step") > 0.0);
    // The same layout on 64 GPUs (one replica a stage fewer: d 4) fits one rack.
    let inside =
        "?fig=planner&gpu=gb200-nvl72&model=llama3-70b&gpus=64&tp=8&pp=2&stage=1&batch=128";
    assert_eq!(planner(inside, "network-traffic-per-step"), 0.0);
}

/// DeepSeek-V3's parameters, added up here from its published configuration
/// (deepseek-ai/DeepSeek-V3 config.json; the report's section 2.1):
/// MLA a layer: q_a 7,168 × 1,536, q_b 1,536 × 128·(128 + 64), kv_a
/// 7,168 × (512 + 64), kv_b 512 × 128·(128 + 128), o 128·128 × 7,168, and
/// its two norms (1,536 and 512), with the layer's two RMSNorms (2 × 7,168);
/// the first 3 layers a dense SwiGLU of 18,432, the other 58 a router
/// (256 × 7,168 and a bias of 256), 1 shared and 256 routed SwiGLU experts of
/// 2,048; embedding and output 129,280 × 7,168 each, and the final norm.
/// The report: 671B in all, 37B a token.
#[test]
fn deepseek_v3_adds_up_to_671b() {
    let (h, a) = (7168.0_f64, 128.0);
    let attention = h * 1536.0 + 1536.0 * a * 192.0 + h * 576.0 + 512.0 * a * 256.0 + a * 128.0 * h;
    let norms = 1536.0 + 512.0 + 2.0 * h;
    let swiglu = |width: f64| 3.0 * h * width;
    let dense_layer = attention + norms + swiglu(18432.0);
    let router = 256.0 * h + 256.0;
    let moe_layer = attention + norms + router + 257.0 * swiglu(2048.0);
    let outside = 2.0 * 129280.0 * h + h;
    let total = 3.0 * dense_layer + 58.0 * moe_layer + outside;
    assert_eq!(total, 671_026_419_200.0);
    let active = total - 58.0 * (256.0 - 8.0) * swiglu(2048.0);
    assert!((active / 1e9 - 37.55).abs() < 0.01, "{active}");
    assert_eq!(planner("?fig=planner&model=deepseek-v3", "params"), total);
    assert_eq!(
        planner("?fig=planner&model=deepseek-v3", "active-params"),
        active
    );
}

/// Capacity and imbalance (Fedus et al. 2021, section 2.2): the busiest
/// expert's load sets its layer's pace, capped at a capacity when there is
/// one, past which it drops tokens. Mixtral on one H100 (no traffic, so the
/// step is its arithmetic): the routed experts' FLOP a token is 6 × 32
/// layers × 2 experts × 3 × 4,096 × 14,336 (its configuration), and a step's
/// tokens are 1,024 sequences of 32,768; at 64% of 989 TFLOP/s (set), a load 1.5
/// times the mean adds half of their time; a load of 2 capped at a capacity
/// of 1.25 a quarter, and drops 1 − 1.25/2 of the busiest expert's tokens;
/// under a capacity of 3 a load of 1.5 keeps its 1.5.
#[test]
fn the_busiest_expert_or_the_capacity_sets_the_pace() {
    let step = |routing: &str| {
        planner(
            &format!("?fig=planner&model=mixtral-8x7b&gpu=h100-sxm&gpus=1&busy-util=0.64{routing}"),
            "step-time",
        )
    };
    let routed = 6.0 * 32.0 * 2.0 * 3.0 * 4096.0 * 14336.0 * 1024.0 * 32768.0 / (989e12 * 0.64);
    let even = step("");
    assert!((step("&imbalance=1.5") - even - 0.5 * routed).abs() < 1e-6 * even);
    assert!((step("&capacity-factor=1.25&imbalance=2") - even - 0.25 * routed).abs() < 1e-6 * even);
    assert!((step("&capacity-factor=3&imbalance=1.5") - even - 0.5 * routed).abs() < 1e-6 * even);
    let query = Query::parse(
        "?fig=planner&model=mixtral-8x7b&gpu=h100-sxm&gpus=1&capacity-factor=1.25&imbalance=2",
    );
    let words = data(&PlannerParams::from_query(&query, &mut Vec::new())).timing;
    assert!(
        words.contains("the busiest drops 37.5% of its tokens"),
        "{words}"
    );
}

/// In the planner, DualPipe's GPU keeps a stage of each direction: Llama 3
/// 70B's 80 layers on 8 stages of 10, its first GPU holds stage 0 (with the
/// embedding) and stage 7 (with the output layer), twice the training state
/// of 1F1B's fullest GPU, as the README's "Parameter 2×" says; DualPipeV
/// keeps one copy. Its bubble is the README's (p − 2)/(3m + p − 2) at the
/// planner's m = 1,024 / (8 replicas × 1) = 128 micro-batches. An odd
/// number of stages cannot pair up: the layout does not run.
#[test]
fn dualpipe_in_the_planner() {
    let state = |schedule: &str, id: &str| {
        planner(
            &format!("?fig=planner&model=llama3-70b&gpu=h100-sxm&gpus=512&tp=8&pp=8&stage=1&schedule={schedule}"),
            id,
        )
    };
    let ratio = state("dualpipe", "state-per-gpu") / state("1f1b", "state-per-gpu");
    assert!((ratio - 2.0).abs() < 1e-3, "{ratio}");
    assert_eq!(
        state("dualpipev", "state-per-gpu"),
        state("1f1b", "state-per-gpu")
    );
    let (p, m) = (8.0, 128.0);
    assert!((state("dualpipe", "bubble") - (p - 2.0) / (3.0 * m + p - 2.0)).abs() < 1e-12);
    assert!((state("dualpipev", "bubble") - (p - 1.0) / (3.0 * m + p - 1.0)).abs() < 1e-12);
    let odd =
        "?fig=planner&model=llama3-70b&gpu=h100-sxm&gpus=504&tp=8&pp=7&stage=1&schedule=dualpipe";
    assert_eq!(planner(odd, "fits"), 0.0);
}

/// Expert tensor parallelism (`etp`), as Megatron-LM lays it out
/// (`megatron/core/parallel_state.py`: a second rank grid for the experts,
/// expert tensor fastest, then experts, cp 1; its expert data-parallel size
/// is the world over etp × ep × pp). Mixtral 8x7B on 64 H100s, t 2, ep 8:
/// its 32 layers of 8 experts of 3 × 4,096 × 14,336 (its configuration,
/// 45,097,156,608 in all) split etp × ep ways; ZeRO shards them over
/// 64/(etp × 8); in each layer the attention's two all-reduces over t = 2
/// send 2 × 2·(1/2)·X (X a micro-batch's hidden state, with sequence
/// parallelism each GPU holding X/2), and the experts' group gathers and
/// reduce-scatters its routes forward and backward (Megatron-LM's
/// MoEAlltoAllTokenDispatcher, AG and RS over etp): 4 × (etp − 1) × k 2 ×
/// X/2 = 4X at etp 2, none at etp 1, so etp 1 leaves a third (Mixtral has
/// no dense layers and no shared expert);
/// the all-to-all group's ranks sit etp apart, so on 16 GPUs at t 8 and
/// ep 2 they are ranks 0 and 1 at etp 1 (one node, NVLink) and 0 and 8 at
/// etp 8 (two nodes, the network). A grid that does not tile a stage's t·cp·d
/// GPUs does not run; ep 8 with d 4 does at etp 1 (8 of 8).
#[test]
fn expert_tensor_parallelism_regroups_the_experts() {
    use parallax::model::comm::Link;
    use parallax::model::planner::{Group, LayoutProblem, Plan};
    let plan = |query: &str| -> Plan {
        let query = Query::parse(&format!(
            "?fig=planner&model=mixtral-8x7b&gpu=h100-sxm&stage=1&sp=1{query}"
        ));
        PlannerParams::from_query(&query, &mut Vec::new()).plan()
    };
    let experts = 32.0 * 8.0 * 3.0 * 4096.0 * 14336.0;
    assert_eq!(experts, 45_097_156_608.0);
    for (etp, grid, expert_replicas) in [("&etp=1", 8.0, 8), ("", 16.0, 4), ("&etp=2", 16.0, 4)] {
        let plan = plan(&format!("&gpus=64&tp=2&ep=8{etp}"));
        assert!(
            (plan.loaded_stage().experts - experts / grid).abs() < 1.0,
            "{etp}"
        );
        assert_eq!(plan.shards(), (32, expert_replicas), "{etp}");
        assert_eq!(plan.problem(), None);
    }
    let tensor = |etp: &str| {
        plan(&format!("&gpus=64&tp=2&ep=8{etp}"))
            .estimate()
            .group(Group::Tensor)
            .sent
            .value()
    };
    assert!(tensor("") > 0.0);
    assert!((tensor("&etp=1") - tensor("") / 3.0).abs() < 1e-9 * tensor(""));
    let link = |etp: &str| {
        plan(&format!("&gpus=16&tp=8&ep=2{etp}"))
            .estimate()
            .group(Group::Experts)
            .link
    };
    assert_eq!(link("&etp=1"), Link::NvLink);
    assert_eq!(link(""), Link::Network);
    assert_eq!(plan("&gpus=8&tp=2&ep=8&etp=1").problem(), None);
    assert_eq!(
        plan("&gpus=8&tp=2&ep=8").problem(),
        Some(LayoutProblem::ExpertsDoNotDivide {
            grid: 16,
            stage_gpus: 8
        })
    );
}

/// What a GPU sends in the experts' all-to-all is its own tokens' routes,
/// however unevenly they land (the `all-to-all-per-step` readout, "bytes a
/// GPU sends"); the GPU of an expert twice as busy as the mean receives
/// twice its share, and the group's time, which the step waits for, doubles.
#[test]
fn an_imbalance_slows_the_all_to_all_but_sends_no_more() {
    let plan = |imbalance: &str| {
        let query = Query::parse(&format!(
            "?fig=planner&model=mixtral-8x7b&gpu=h100-sxm&gpus=16&ep=8&imbalance={imbalance}"
        ));
        let mut notices = Vec::new();
        let params = PlannerParams::from_query(&query, &mut notices);
        assert!(notices.is_empty(), "{notices:?}");
        params.plan().estimate()
    };
    let (even, busy) = (plan("1"), plan("2"));
    assert!(even.all_to_all.value() > 0.0);
    assert_eq!(busy.all_to_all, even.all_to_all);
    let time = |e: &parallax::model::planner::PlanEstimate| {
        e.group(parallax::model::planner::Group::Experts)
            .time
            .value()
    };
    assert!((time(&busy) / time(&even) - 2.0).abs() < 1e-12);
}
