// Every number the source documents print (tests/seeds.tsv), in the
// browser: each figure opened with the row's query shows the row's text and
// value, and each exercise accepts the seed's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SEEDS, open, readouts, ready, useApp } from './harness.mjs';

const app = useApp();

test('every seed readout, on its figure at its query', async () => {
  const groups = new Map();
  for (const row of SEEDS.filter((s) => s.figure !== 'exercise')) {
    const key = `fig=${row.figure}${row.query ? `&${row.query}` : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  for (const [query, rows] of groups) {
    const { page, errors, close } = await open(app.browser, `${app.server.base}?${query}`);
    await ready(page);
    const found = await readouts(page);
    for (const row of rows) {
      const context = `${query} ${row.readout} (${row.source})`;
      assert.ok(found[row.readout], `${context}: on the page`);
      if (row.text) assert.equal(found[row.readout].text, row.text, context);
      if (row.value !== null) assert.ok(Math.abs(found[row.readout].value - row.value) <= row.within, `${context}: ${found[row.readout].value}`);
    }
    assert.equal(await page.locator('[data-notice]').count(), 0, query);
    assert.deepEqual(errors, [], query);
    await close();
  }
});

test('every seed exercise takes the seed answer as right', async () => {
  const { page, errors, close } = await open(app.browser, app.server.base);
  await ready(page);
  for (const row of SEEDS.filter((s) => s.figure === 'exercise')) {
    const card = page.locator(`[data-question="${row.query}"]`);
    await card.locator('input').fill(String(row.value));
    await card.getByRole('button', { name: 'Check' }).click();
    assert.equal(await card.locator('.question__feedback').getAttribute('data-verdict'), 'right', `${row.query} (${row.source})`);
  }
  assert.deepEqual(errors, []);
  await close();
});
