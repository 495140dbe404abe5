// The quick form of the benchmark (bench/run.mjs): a short pass of each
// measurement. A budget that the committed measurement (bench/results.json,
// written by `bash bench/run`) meets fails here when exceeded by more than
// half. A budget not met yet is guarded as a tripwire instead: the
// measurement may not exceed three times the committed one (half again, and
// then twice, proved flaky: on this 2-core virtual machine identical runs
// varied by up to 2.4x, e.g. the 8x64 pipeline's median input latency from
// 2.5 to 6 ms). Input latency is held by its median per figure (the budget
// names the p95, which varied up to 3x, the why figure's from 3.1 to 9.9
// ms), so bench/run reports the p95 and this test lists it as not met. A measurement over its
// limit is taken again, up to three times in all, and the best kept. A drag
// at 1x is judged by its dropped frames (over 20 ms): at most half again the
// committed count, and never more than 3 where none were committed.
import { readFile } from 'node:fs/promises';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';
import { BUDGETS, SWEEP_PAGES, drags, responsiveness, startup, transferSizes } from '../../bench/measure.mjs';

const SLACK = 1.5;
const committed = JSON.parse(await readFile(new URL('../../bench/results.json', import.meta.url), 'utf8')).result;
const app = useApp();

/** A tripwire for budgets not met yet: this many times the committed measurement. */
const TRIPWIRE = 3;

/** The limit for one measurement, and whether its budget itself is met in the committed results. */
function limitFor(budget, measured) {
  const met = (measured ?? 0) <= budget;
  return { limit: met ? SLACK * budget : TRIPWIRE * measured, met };
}

/** Measures up to three times until a value is within the limit; returns the best. */
async function better(measure, limit) {
  let best = Infinity;
  for (let attempt = 0; attempt < 3 && best > limit; attempt += 1) best = Math.min(best, await measure());
  return best;
}

const guarded = [];
function check(name, value, budget, measured) {
  const { limit, met } = limitFor(budget, measured);
  if (!met) guarded.push(`${name} (budget ${budget}, committed ${measured})`);
  assert.ok(value <= limit, `${name}: ${value} over the limit ${limit} (budget ${budget}, committed ${measured})`);
  return `${name} ${value}`;
}

test('transfer size: the full page loads within its brotli budget', async () => {
  const total = (await transferSizes(app.browser, app.server.base)).at(-1).brotli;
  console.log(check('transfer brotli bytes', total, BUDGETS.transferBrotli, committed.transfer.at(-1).brotli));
});

test('start-up: readouts present and a control answering', async () => {
  const measure = async () => (await startup(app.browser, app.server.base, 3)).interactive;
  const limit = limitFor(BUDGETS.startup, committed.startup.interactive).limit;
  console.log(check('start-up ms', await better(measure, limit), BUDGETS.startup, committed.startup.interactive));
});

for (const rate of [1, 4]) {
  test(`input to DOM updated, median per figure at ${rate}x CPU`, async () => {
    const lines = [];
    for (const page of SWEEP_PAGES) {
      const row = committed.input.find((r) => r.page === page.name && r.rate === rate);
      if (row.p95 > BUDGETS.inputP95[rate]) guarded.push(`${page.name} p95 at ${rate}x (budget ${BUDGETS.inputP95[rate]}, committed ${row.p95})`);
      const steps = rate === 1 ? 30 : 15;
      const measure = async () => (await responsiveness(app.browser, app.server.base, { rate, steps, pages: [page] }))[0].median;
      const limit = TRIPWIRE * Math.max(row.median, 1);
      const median = await better(measure, limit);
      assert.ok(median <= limit, `${page.name} at ${rate}x: median ${median} ms over the limit ${limit} (committed ${row.median})`);
      lines.push(`${page.name} ${median}`);
    }
    console.log(`median ms at ${rate}x: ${lines.join(', ')}`);
  });

  test(`a real drag across every slider at ${rate}x CPU: ${rate === 1 ? 'dropped frames' : 'long animation frames'}`, async () => {
    const lines = [];
    for (const page of SWEEP_PAGES.slice(0, 9)) {
      const row = committed.drag.find((r) => r.page === page.name && r.rate === rate);
      if (!row) continue;
      const drag = async () => (await drags(app.browser, app.server.base, { rate, moves: 20, pages: [page] }))[0];
      if (rate === 1) {
        // Frames over 20 ms: the budget is none; one stray frame on a busy machine is not a regression.
        const limit = Math.max(3, SLACK * row.over20);
        const dropped = await better(async () => (await drag()).over20, limit);
        if (row.over20 > 0) guarded.push(`${page.name} frames over 20 ms (budget 0, committed ${row.over20})`);
        assert.ok(dropped <= limit, `${page.name}: ${dropped} frames over 20 ms, over the limit ${limit}`);
        lines.push(`${page.name} ${dropped}`);
      } else {
        const measure = async () => (await drag()).longFrameMax;
        const limit = limitFor(BUDGETS.dragLongFrame, row.longFrameMax).limit;
        lines.push(check(`${page.name} drag`, await better(measure, limit), BUDGETS.dragLongFrame, row.longFrameMax));
      }
    }
    console.log(`${rate === 1 ? 'frames over 20 ms' : 'longest long animation frame, ms,'} at ${rate}x: ${lines.join(', ')}`);
  });
}

after(() => {
  console.log(`budgets not met, guarded at their committed measurement: ${guarded.length ? guarded.join('; ') : 'none'}`);
});
