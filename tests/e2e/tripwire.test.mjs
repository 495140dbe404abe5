// Gross tripwires, and the bytes each entry point transfers. Wall-clock
// times vary by 2-3x on a busy 2-core machine, so a time here fails only at
// ten times its target: a sign that something is badly broken (a render
// loop, a blocking task), not that the machine is slow. Speed is judged by
// `bash bench/run`, as a ratio to the build before. Bytes do not vary with
// load: each entry point's transfer is held to its committed value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';
import { summarise } from './summary.mjs';
import { TARGETS, SWEEP_PAGES, responsiveness, startup, transferSizes } from '../../bench/measure.mjs';
import { ENTRY_POINTS, KNOWN_OVER } from '../../bench/known-over.mjs';

const TRIPWIRE = 10;
const app = useApp();

test('transfer: each entry point no larger than its committed size (bench/known-over.mjs)', async () => {
  const rows = [];
  for (const { name, query } of ENTRY_POINTS) {
    const total = (await transferSizes(app.browser, `${app.server.base}${query}`)).at(-1);
    rows.push({ entry: name, raw: total.raw, brotli: total.brotli });
    const committed = KNOWN_OVER.find((entry) => entry.check === `transfer brotli bytes, ${name}`);
    assert.ok(committed, `bench/known-over.mjs holds the ${name}'s transfer`);
    assert.ok(total.brotli <= committed.measured, `${name}: ${total.brotli} bytes brotli, committed ${committed.measured}`);
  }
  await summarise('transfer', rows);
  console.log(rows.map((r) => `${r.entry}: ${r.raw} bytes raw, ${r.brotli} brotli`).join('\n'));
});

test(`start-up and input latency: under ${TRIPWIRE} times their targets`, async () => {
  const { interactive } = await startup(app.browser, app.server.base, 3);
  assert.ok(interactive <= TRIPWIRE * TARGETS.startup, `start-up ${interactive} ms`);
  const rows = await responsiveness(app.browser, app.server.base, { rate: 1, steps: 10, pages: SWEEP_PAGES });
  for (const row of rows) assert.ok(row.median <= TRIPWIRE * TARGETS.sweep[4].p50, `${row.page}: median ${row.median} ms`);
  console.log(`start-up ${interactive} ms; input medians at 1x: ${rows.map((r) => `${r.page} ${r.median}`).join(', ')}`);
});
