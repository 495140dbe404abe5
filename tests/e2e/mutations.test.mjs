// An input touches only what it changes. Every slider of every figure is
// moved through its range and back, one step a frame, and the DOM nodes each
// step touches are counted (bench/measure.mjs `mutationCounts`: an attribute
// or a text changed is one node, an element added or removed counts with
// every element and text inside it, not the framework's comment markers).
// A count does not depend on the machine's speed, so
// the ceilings below hold on a busy machine, and a change that rebuilds a
// view on input fails here on any machine.
//
// Each ceiling is the largest step measured when it was set, and says why
// a step needs that many. A ceiling is lowered when a figure does less; it
// is never raised to let a rebuild pass. (The ceilings that fell when
// comments stopped counting were set again from the build before that
// change, which measured the same as the build after it.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';
import { summarise } from './summary.mjs';
import { mutationCounts, SWEEP_PAGES } from '../../bench/measure.mjs';

const CEILINGS = {
  why: { nodes: 24, why: 'five readouts (text and value), three time bars (length, label), the memory bar, the changed numbers and labels of two equations, "In words", the slider\'s own text' },
  dp: { nodes: 127, why: 'the first step, from the default 8 GPUs to 1, drops seven cards and the ring\'s seven numbered GPUs; at 64 GPUs a step rewrites every card\'s sequences and the ring\'s two paths (its GPUs and its chunks, issue 39)' },
  zero: { nodes: 23, why: 'the readouts, the bar of each part of the training state, the equation\'s numbers, "In words"' },
  tp: { nodes: 11, why: 'the time readouts, the equation\'s numbers and label, "In words"' },
  pp: { nodes: 200, why: 'from 1 to 8 stages the timeline gains seven rows, their numbered blocks and their layer labels (the schedules compared, closed, are not built: issue 38)' },
  '3d': { nodes: 344, why: 'from 6 replicas to 1 the grid drops five rows of stage cells, each with its GPUs' },
  planner: { nodes: 23, why: 'the readouts, the memory bar, the step bar, the verdict and timing sentences, the answer in one line that stays in view (issue 37), the equations\' numbers' },
  bubble: { nodes: 180, why: 'from 1 to 8 stages the timeline gains seven rows with their numbered blocks; the chart is a canvas (the schedules compared, closed, are not built: issue 38)' },
  // 20 more than measured: on a slow machine the restarted experiment may publish its status within a step.
  checkpoint: { nodes: 152, why: 'a new network restarts the experiment: the measured readouts return to their "measuring…" places, the predictions and equations change' },
  '3d largest': { nodes: 1255, why: 'from 6 replicas to 1 the grid drops five rows of 16 stages of 8 GPUs; any other step renumbers the 90 nodes drawn (their texts)' },
};

const app = useApp();

test('every slider step touches no more DOM nodes than its figure\'s ceiling', async () => {
  const rows = await mutationCounts(app.browser, app.server.base);
  console.log(rows.map((r) => `${r.page}: ${r.steps} steps, median ${r.median}, max ${r.max} (${r.worst})`).join('\n'));
  await summarise('nodes', rows.map((row) => ({ ...row, ceiling: CEILINGS[row.page]?.nodes })));
  const swept = SWEEP_PAGES.filter((p) => CEILINGS[p.name]).map((p) => p.name);
  assert.deepEqual(rows.map((r) => r.page), swept, 'every page with a slider is swept and has a ceiling');
  for (const row of rows) {
    assert.ok(row.max <= CEILINGS[row.page].nodes, `${row.page}: a step touched ${row.max} nodes (${row.worst}), ceiling ${CEILINGS[row.page].nodes}`);
  }
});
