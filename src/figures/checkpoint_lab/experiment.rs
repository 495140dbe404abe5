//! The lab's experiment: runs every checkpoint interval of the sweep on a
//! real network in chunks short enough for the page to stay responsive,
//! times them with a [`Stopwatch`] against the clock's tick, pauses while
//! the lab is off screen, and publishes the points and its progress.

use super::*;

/// Work in one chunk before yielding to the browser, in milliseconds: short
/// enough that a frame with a chunk in it stays under 20 ms, and that on a
/// phone's CPU (Lighthouse's 4x slowdown) no chunk is a 50 ms long task.
const CHUNK_MS: f64 = 4.0;

/// How long the controls must rest before an experiment starts, in
/// milliseconds: while a slider is dragged, each input would otherwise build
/// a network and run a chunk before the next frame.
const SETTLE_MS: i32 = 120;

/// The shortest time between two publications of measured points, in
/// milliseconds: each redraws both charts and the readouts.
const PUBLISH_MS: f64 = 300.0;

/// Rounds of the sweep: each interval is timed once a round, the rounds one
/// after another, so that a slow moment of the browser (a collection, a
/// busy tab) falls on one round of each interval rather than on all of one.
const ROUNDS: usize = 3;

/// How often an experiment paused off screen looks again, in milliseconds.
const OFF_SCREEN_POLL_MS: i32 = 250;

/// What an experiment needs between chunks: whether it is still the current
/// one, whether its figure is on screen, and the charts' redraw signals.
pub(super) struct Experiment {
    pub(super) generation: RwSignal<u32>,
    pub(super) started: u32,
    pub(super) on_screen: Signal<bool>,
    /// Bumped when each chart should redraw: once the controls rest, and
    /// with each publication of points.
    pub(super) redraw: [RwSignal<u32>; 2],
}

/// Yields to the browser, then waits while the lab is off screen or its tab
/// hidden (nothing runs there; the stopwatch is stopped between chunks, so
/// waiting does not count). False once the parameters have changed: a newer
/// experiment runs.
pub(super) async fn rest(experiment: &Experiment) -> bool {
    yield_to_browser(0).await;
    while (!experiment.on_screen.get_untracked() || page_hidden()) && experiment.is_current() {
        yield_to_browser(OFF_SCREEN_POLL_MS).await;
    }
    experiment.is_current()
}

impl Experiment {
    pub(super) fn is_current(&self) -> bool {
        self.generation.get_untracked() == self.started
    }

    /// Redraws the charts, each in a task of its own: both in one task made
    /// frames of 150-230 ms on a phone's CPU (4x throttling).
    pub(super) async fn redraw_charts(&self) {
        for chart in self.redraw {
            chart.update(|n| *n = n.wrapping_add(1));
            yield_to_browser(0).await;
        }
    }
}

/// Runs one interval in chunks, over and over until a [`Stopwatch`] with
/// the clock's `tick` has timed the runs well enough: the first run (for
/// what it measured) and the timing of one. `None` when the parameters
/// changed meanwhile.
pub(super) async fn timed_runs<'n>(
    net: &'n Network,
    every: usize,
    tick: f64,
    experiment: &Experiment,
) -> Option<(Run<'n>, Timing)> {
    let mut stopwatch = Stopwatch::new(tick);
    let mut first = None;
    let mut run = Run::new(net, every);
    loop {
        stopwatch.start(now());
        loop {
            let finished = run.step();
            let at = now();
            if finished {
                if stopwatch.run_done(at) {
                    return Some((first.unwrap_or(run), stopwatch.timing()));
                }
                // The first run is kept for what it measured; the others only add time.
                let done = std::mem::replace(&mut run, Run::new(net, every));
                first.get_or_insert(done);
            }
            if stopwatch.lap(at) >= CHUNK_MS {
                stopwatch.stop(at);
                break;
            }
        }
        if !rest(experiment).await {
            return None;
        }
    }
}

/// Where an experiment stands: runs done, runs in all, and the milliseconds
/// left at the pace so far (once there is a pace).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Progress {
    pub(super) done: usize,
    pub(super) total: usize,
    pub(super) left_ms: Option<f64>,
}

/// Runs every interval of the sweep, a chunk at a time, publishing its
/// points at most every [`PUBLISH_MS`] (each publication redraws two charts).
pub(super) async fn run_experiment(
    params: LabParams,
    points: RwSignal<Vec<LabPoint>>,
    progress: RwSignal<Progress>,
    experiment: Experiment,
) {
    let sweep = params.sweep();
    let total = sweep.len() * ROUNDS;
    progress.set(Progress {
        done: 0,
        total,
        left_ms: None,
    });
    yield_to_browser(SETTLE_MS).await;
    if !experiment.is_current() {
        return; // The controls moved again while settling.
    }
    experiment.redraw_charts().await;
    let net = Network::new(
        params.layers as usize,
        params.width as usize,
        params.batch as usize,
    );
    let tick = clock_tick();
    // An untimed first pass: the first run in a page ran several times slower
    // than the same run later (compilation, caches), skewing every ratio to it.
    if timed_runs(&net, 1, tick, &experiment).await.is_none() {
        return;
    }
    let mut reference = None;
    let mut measured_points: Vec<LabPoint> = Vec::with_capacity(sweep.len());
    let mut published = now();
    let clock = now();
    for done in 1..=total {
        // Round by round, each the whole sweep.
        let (round, index) = ((done - 1) / sweep.len(), (done - 1) % sweep.len());
        let every = sweep[index];
        let Some((run, time)) = timed_runs(&net, every, tick, &experiment).await else {
            return; // The parameters changed; a newer experiment has started.
        };
        if round == 0 {
            let measured = run.measured();
            let reference = reference.get_or_insert_with(|| measured.gradients.clone());
            measured_points.push(LabPoint {
                every,
                peak_bytes: measured.peak_bytes,
                times: vec![time],
                recomputed_layers: measured.recomputed_layers,
                gradient_difference: measured.gradients.max_relative_difference(reference),
            });
        } else if let Some(point) = measured_points.get_mut(index) {
            point.times.push(time);
        }
        if done < total && now() - published < PUBLISH_MS {
            continue;
        }
        // The charts and readouts redraw in a task of their own, not after a chunk.
        if !rest(&experiment).await {
            return;
        }
        points.set(measured_points.clone());
        experiment.redraw_charts().await;
        published = now();
        let pace = (published - clock) / done as f64;
        progress.set(Progress {
            done,
            total,
            left_ms: Some(pace * (total - done) as f64),
        });
        yield_to_browser(0).await;
    }
}

/// The status line: what the lab is doing, and how long it will take.
pub(super) fn status(progress: Progress) -> String {
    let Progress {
        done,
        total,
        left_ms,
    } = progress;
    if done >= total {
        return format!("Done: {total} timings, {ROUNDS} rounds of full training steps");
    }
    match left_ms.filter(|&ms| ms >= 1500.0) {
        Some(ms) => format!(
            "Running in your browser: {done} of {total} timings done, about {:.0} s left",
            ms / 1000.0
        ),
        None => format!("Running in your browser: {done} of {total} timings done"),
    }
}
