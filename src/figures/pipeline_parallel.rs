//! Where does pipeline parallelism lose time? Each GPU holds a stage of
//! consecutive layers; micro-batches stream through, and the GPUs idle while
//! the pipeline fills and drains: the bubble.

use leptos::prelude::*;

use super::cells::Cells;
use super::crossover::{self, Explained};
use super::equations;
use super::figure::{About, Figure, Params, Part};
use super::param::Param;
use super::shared;
use super::timeline::{
    pipeline_params, timeline, units_text, HasPipeline, Pipeline, Timeline, TimelineData,
};
use crate::model::activations::hidden_state;
use crate::model::choice::Choice;
use crate::model::memory::{TrainingState, ZeroStage};
use crate::model::pipeline::{
    bubble, gpipe_enough_micro_batches, layers_per_stage, parameter_copies, runnable_micro_batches,
    runnable_stages, Schedule,
};
use crate::model::scenario::Scenario;
use crate::model::units::{counted, group_thousands, Bytes, Fraction};
use crate::widgets::{Equation, ReadoutData, Unit};

pub const FIGURE: Figure = Figure::of::<PpParams>(
    About {
        slug: "pp",
        title: "Pipeline parallelism",
        subtitle: "Give each GPU a run of layers and stream micro-batches through",
        part: Part::Explainer,
        example: "pp=8&micro=32&schedule=interleaved&chunks=4",
    },
    true,
);

/// The figure's parameters: 4 stages and 4 micro-batches under GPipe, the seed's example.
#[derive(Clone, Debug, PartialEq)]
pub struct PpParams {
    pub pipeline: Pipeline,
}

impl Default for PpParams {
    fn default() -> Self {
        Self {
            pipeline: Pipeline::new(4, 4),
        }
    }
}

impl HasPipeline for PpParams {
    fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    fn pipeline_mut(&mut self) -> &mut Pipeline {
        &mut self.pipeline
    }
}

/// Everything the `pp` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct PpData {
    pub timeline: TimelineData,
    pub bubble: ReadoutData,
    pub layers_per_gpu: ReadoutData,
    pub state_per_gpu: ReadoutData,
    pub busy_units: ReadoutData,
    pub total_units: ReadoutData,
    pub boundary_activations: ReadoutData,
    pub peak_in_flight: ReadoutData,
    /// The chosen schedule's bubble, with the current values.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &PpParams) -> PpData {
    let pipeline = &params.pipeline;
    let arch = pipeline.scenario.arch();
    // DualPipe runs an even number of stages: the drawn timeline's, with a note.
    let p = runnable_stages(pipeline.schedule, pipeline.stages);
    let timeline = timeline(pipeline);
    let simulated = &timeline.simulated;
    let m = simulated.micro_batches;
    let per_unit = f64::from(simulated.ticks_per_unit);
    let busy = f64::from(simulated.busy_ticks()) / per_unit;
    let total = f64::from(simulated.makespan) / per_unit;
    let bubble = simulated.bubble();
    let scenario = &pipeline.scenario;
    // DualPipe's GPU keeps a stage of each direction: two copies.
    let state = TrainingState::per_gpu(
        scenario.params(),
        scenario.state_bytes(),
        ZeroStage::None,
        1,
        1,
        p,
    )
    .total()
        * f64::from(parameter_copies(pipeline.schedule));
    // One stage has no boundary to pass activations across.
    let boundary = if p == 1 {
        Bytes(0.0)
    } else {
        hidden_state(&arch, f64::from(arch.seq))
    };
    // DualPipe's GPU holds a stage of each direction.
    let copies = parameter_copies(pipeline.schedule);
    let layers = layers_per_stage(arch.layers, p) * copies;
    let in_flight = simulated.peak_in_flight;
    // Interleaved (and DualPipeV, two half-stages a GPU), a GPU holds chunks
    // of many micro-batches, each a share of its layers: counted in
    // micro-batches of a whole stage, the count can be fractional.
    let chunked = matches!(
        pipeline.schedule,
        Schedule::Interleaved | Schedule::DualPipeV
    );
    let (in_flight_label, held) = if chunked {
        (
            "Activations held, in micro-batches of a stage",
            format!(
                "activations worth {} of its layers",
                if in_flight == 1.0 {
                    "1 micro-batch".to_string()
                } else {
                    format!("{} micro-batches", units_text(in_flight))
                }
            ),
        )
    } else {
        (
            "Micro-batches in flight, at most",
            format!(
                "the activations of at most {}",
                counted(in_flight, "micro-batch", "micro-batches")
            ),
        )
    };
    let summary = format!(
        "{micro} through {stages} under {schedule} {leave} a bubble of {bubble}: each GPU is busy {busy} of the \
         {total} time units in a step. Each GPU holds {held_layers} layers and {state} of training state, keeps {held} at \
         once, and {passes}.",
        micro = counted(f64::from(m), "micro-batch", "micro-batches"),
        leave = if m == 1 { "leaves" } else { "leave" },
        stages = counted(f64::from(p), "stage", "stages"),
        schedule = pipeline.schedule.label(),
        bubble = Fraction(bubble),
        busy = units_text(busy),
        total = units_text(total),
        passes = if p == 1 {
            "has no next stage to pass activations to".to_string()
        } else {
            format!(
                "passes {boundary} of activations to the next stage per {}-token micro-batch",
                group_thousands(f64::from(arch.seq))
            )
        },
        // 32 layers in 3 stages are 10, 11 and 11 (model::pipeline::stage_layers).
        held_layers = if arch.layers.is_multiple_of(p) {
            layers.to_string()
        } else {
            format!("{} or {layers}", arch.layers / p * copies)
        },
    );
    let bubble = ReadoutData::fraction("bubble", "Bubble (idle time)", bubble);
    PpData {
        equations: vec![equations::bubble(
            pipeline.schedule,
            p,
            m,
            simulated.chunks,
            &bubble,
        )],
        bubble,
        layers_per_gpu: ReadoutData::count("layers-per-gpu", "Layers per GPU", f64::from(layers)),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", state),
        busy_units: ReadoutData::new(
            "busy-units",
            "Busy units per GPU",
            busy,
            units_text(busy),
            Unit::Count,
        ),
        total_units: ReadoutData::new(
            "total-units",
            "Units in the step",
            total,
            units_text(total),
            Unit::Count,
        ),
        boundary_activations: ReadoutData::bytes(
            "boundary-activations",
            "Activations across a boundary",
            boundary,
        ),
        peak_in_flight: ReadoutData::new(
            "peak-in-flight",
            in_flight_label,
            in_flight,
            units_text(in_flight),
            Unit::Count,
        ),
        timeline,
        summary,
    }
}

/// The bubble against micro-batches at the reader's stages, for every
/// schedule, and where more micro-batches start to buy little: m = 4p, the
/// count GPipe's authors found enough (`model::pipeline::gpipe_enough_micro_batches`).
/// Keyed on the schedule, p, the chunks and the micro-batches asked for.
pub fn crossover(&(schedule, p, chunks, asked): &(Schedule, u32, u32, u32)) -> Explained {
    let m = runnable_micro_batches(schedule, p, asked);
    let now = Fraction(bubble(schedule, p, m, chunks));
    let mut chart = super::bubble::chart(p, chunks, schedule, m, now.0);
    // Fixed, so the canvas's label, written once, stays true as p changes.
    chart.title = "The bubble against micro-batches, by schedule".to_string();
    let enough = gpipe_enough_micro_batches(p);
    chart.rule = (p > 1).then(|| {
        (
            f64::from(enough).log2(),
            "m = 4p, enough by GPipe's measure",
        )
    });
    let words = if p == 1 {
        format!("With one stage nothing fills or drains: no micro-batch count leaves a bubble. You run m = {m}.")
    } else {
        format!(
            "GPipe's authors found m = 4p micro-batches enough: {enough} at {p} stages, where {schedule} idles {at} \
             of the step. Past it each doubling buys less: m = {twice} gives {at_twice}, and at a fixed micro-batch \
             size each replica then takes twice the sequences a step. You run m = {m}: {now}.",
            schedule = schedule.label(),
            at = Fraction(bubble(schedule, p, enough, chunks)),
            twice = 2 * enough,
            at_twice = Fraction(bubble(schedule, p, 2 * enough, chunks)),
        )
    };
    Explained { chart, words }
}

const PIPELINE: [Param<PpParams>; 4] = pipeline_params::<PpParams>();

impl Params for PpParams {
    type Data = PpData;

    const TABLE: &'static [Param<Self>] = &[
        PIPELINE[0],
        PIPELINE[1],
        PIPELINE[2],
        PIPELINE[3],
        shared::model().assumed(),
    ];

    fn data(&self) -> PpData {
        data(self)
    }

    fn readouts(d: &PpData) -> Vec<ReadoutData> {
        vec![
            d.bubble.clone(),
            d.layers_per_gpu.clone(),
            d.state_per_gpu.clone(),
            d.busy_units.clone(),
            d.total_units.clone(),
            d.boundary_activations.clone(),
            d.peak_in_flight.clone(),
        ]
    }

    fn summary(d: &PpData) -> String {
        d.summary.clone()
    }

    fn equations(d: &PpData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.pipeline.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.pipeline.scenario)
    }

    fn diagram(params: Cells<Self>, data: Memo<PpData>) -> AnyView {
        let timeline = Memo::new(move |_| data.with(|d| d.timeline.clone()));
        let crossover_inputs = Memo::new(move |_| {
            params.with(|p| {
                let pipeline = &p.pipeline;
                (
                    pipeline.schedule,
                    pipeline.stages.max(1),
                    pipeline.chunks,
                    pipeline.micro,
                )
            })
        });
        view! {
            <div class="figure__diagram fig-pp"><Timeline data=timeline/></div>
            {crossover::view(crossover_inputs, crossover)}
        }
        .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama 2 7B's 32 layers in 3 stages are 10, 11 and 11: the words say
    /// so, where they said every GPU holds 11 (a newcomer counted the
    /// timeline's L0–9); in 4 stages each holds 8.
    #[test]
    fn uneven_stages_say_both_counts() {
        let mut params = PpParams::default();
        params.pipeline.stages = 3;
        assert!(data(&params)
            .summary
            .contains("Each GPU holds 10 or 11 layers"));
        params.pipeline.stages = 4;
        assert!(data(&params).summary.contains("Each GPU holds 8 layers"));
    }

    /// The crossover at 4 stages: GPipe's m = 4p is 16, where the bubble is
    /// 3/19 = 15.8%, and 3/35 = 8.6% at 32; the reader's 4 give 3/7 = 42.9%.
    /// Interleaving 2 chunks runs 5 asked as 8 (a multiple of p): 3/19, and
    /// 3/35 and 3/67 = 4.5% at 16 and 32. ZB-H1: 3/51 = 5.9% and 3/99 = 3.0%.
    /// The rule stands at log₂ 16 = 4; one stage has no bubble and no rule.
    #[test]
    fn the_crossover_marks_gpipes_four_micro_batches_a_stage() {
        let gpipe = crossover(&(Schedule::GPipe, 4, 1, 4));
        assert!(gpipe
            .words
            .contains("16 at 4 stages, where GPipe idles 15.8% of the step"));
        assert!(gpipe.words.contains("m = 32 gives 8.6%"));
        assert!(gpipe.words.ends_with("You run m = 4: 42.9%."));
        assert_eq!(gpipe.chart.rule.map(|(x, _)| x), Some(4.0));
        assert_eq!(gpipe.chart.marker, Some((2.0, 3.0 / 7.0)));
        let interleaved = crossover(&(Schedule::Interleaved, 4, 2, 5));
        assert!(interleaved.words.contains("Interleaved 1F1B idles 8.6%"));
        assert!(interleaved.words.contains("m = 32 gives 4.5%"));
        assert!(interleaved.words.ends_with("You run m = 8: 15.8%."));
        let zb = crossover(&(Schedule::ZeroBubbleH1, 4, 1, 16));
        assert!(zb.words.contains("(ZB-H1) idles 5.9%"));
        assert!(zb.words.contains("m = 32 gives 3.0%"));
        let one = crossover(&(Schedule::GPipe, 1, 1, 4));
        assert_eq!(one.chart.rule, None);
        assert!(one.words.contains("no micro-batch count leaves a bubble"));
    }

    /// One stage has no next stage: nothing crosses a boundary (a newcomer
    /// read "passes 34 MB ... to the next stage" at p = 1), and a GPU that
    /// holds one micro-batch's activations says "1 micro-batch". Four stages
    /// pass 4,096 × 4,096 × 2 B = 33.6 MB, shown as the spec's 34 MB.
    #[test]
    fn one_stage_passes_nothing_on() {
        let mut params = PpParams::default();
        params.pipeline.stages = 1;
        params.pipeline.micro = 3;
        params.pipeline.chunks = 4;
        params.pipeline.schedule = Schedule::Interleaved;
        let d = data(&params);
        assert_eq!(d.boundary_activations.value, 0.0);
        assert!(
            d.summary
                .contains("activations worth 1 micro-batch of its layers at once"),
            "{}",
            d.summary
        );
        assert!(
            d.summary
                .ends_with("and has no next stage to pass activations to."),
            "{}",
            d.summary
        );
        assert!(data(&PpParams::default())
            .summary
            .contains("passes 34 MB of activations to the next stage per 4,096-token micro-batch"));
    }

    fn with(micro: u32, schedule: Schedule) -> PpData {
        let mut params = PpParams::default();
        params.pipeline.micro = micro;
        params.pipeline.schedule = schedule;
        data(&params)
    }

    /// 1F1B has GPipe's bubble, (p − 1)/(m + p − 1) = 3/19 at m = 16, but
    /// holds at most p = 4 micro-batches where GPipe holds all 16
    /// (Narayanan et al. 2021, section 2.2.1).
    #[test]
    fn one_f_one_b_keeps_the_bubble_and_bounds_memory() {
        let one_f_one_b = with(16, Schedule::OneFOneB);
        let gpipe = with(16, Schedule::GPipe);
        assert!((one_f_one_b.bubble.value - 3.0 / 19.0).abs() < 1e-12);
        assert_eq!(gpipe.bubble.value, one_f_one_b.bubble.value);
        assert_eq!(
            (one_f_one_b.peak_in_flight.value, gpipe.peak_in_flight.value),
            (4.0, 16.0)
        );
    }

    /// Interleaving 2 chunks at m = 8: (p − 1)/(vm + p − 1) = 3/19; its
    /// first stage holds (p − 1)·2 + (v − 1)·p + 1 = 11 chunk forwards at
    /// once, 5.5 stages' worth, p(1 + (p − 1)/(pv)) (Korthikanti et al.
    /// 2022, section 4.2.3). ZB-H1 at m = 8: 3/27.
    #[test]
    fn interleaving_and_zero_bubble_shrink_the_bubble() {
        let interleaved = with(8, Schedule::Interleaved);
        assert!((interleaved.bubble.value - 3.0 / 19.0).abs() < 1e-12);
        assert_eq!(interleaved.peak_in_flight.value, 4.0 * (1.0 + 3.0 / 8.0));
        assert_eq!(
            interleaved.peak_in_flight.label,
            "Activations held, in micro-batches of a stage"
        );
        let zb = with(8, Schedule::ZeroBubbleH1);
        assert!((zb.bubble.value - 3.0 / 27.0).abs() < 1e-12);
        assert!(zb
            .timeline
            .legend
            .iter()
            .any(|(class, _)| *class == "weight-grad"));
        let rounded = with(5, Schedule::Interleaved);
        assert!(rounded
            .timeline
            .note
            .as_deref()
            .unwrap_or("")
            .contains("rounded up to 8"));
    }
}
