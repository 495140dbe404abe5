// Live equations and two plans (issue 11), in the browser: every figure's
// MathML ends in its readouts after a control moves, embedded and on the
// full page; pointing at a symbol, a control or a readout lights up the
// three together; plan B from `b.` keys, from the Compare button and from
// a shared link; the readouts exported as CSV and JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { FIGURES, open, openAssumptions, openShare, readouts, ready, readyAll, urlMatching, useApp } from './harness.mjs';

const app = useApp();

/** Splits one CSV line into fields: quoted fields may hold commas, "" is a quote. */
function csvFields(line) {
  const fields = [];
  for (const match of line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)) fields.push(match[1] !== undefined ? match[1].replaceAll('""', '"') : match[2]);
  return fields;
}

/** Each equation result in `scope` against its readout's text: [id, shown in the equation, readout text]. */
async function results(page, scope) {
  return page.$$eval(`${scope} math [data-result]`, (elements, scope) =>
    elements.map((element) => {
      const id = element.dataset.result;
      const readout = document.querySelector(`${scope} [data-readout="${id}"] .readout__value`);
      return [id, element.textContent, readout?.textContent ?? null];
    }), scope);
}

async function assertResults(page, scope, context) {
  const found = await results(page, scope);
  assert.ok(found.length > 0, `${context}: some equation ends in a readout`);
  for (const [id, shown, text] of found) assert.equal(shown, text, `${context}: ${id}`);
  assert.ok((await page.locator(`${scope} math[aria-label]`).count()) > 0, `${context}: MathML with words`);
}

/** Moves the first slider (or else radio group) of `scope` by keyboard. */
async function moveAControl(page, scope) {
  const slider = page.locator(`${scope} input[type=range]`).first();
  if (await slider.count()) {
    await slider.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
  } else {
    await page.locator(`${scope} input[type=radio]:checked`).first().focus();
    await page.keyboard.press('ArrowRight');
  }
}

test('every figure\'s equations end in its readouts, before and after a control moves, embedded', async () => {
  for (const figure of FIGURES) {
    const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=${figure}`);
    await ready(page);
    await assertResults(page, 'main', figure);
    await moveAControl(page, 'main');
    await page.waitForTimeout(150);
    await assertResults(page, 'main', `${figure}, moved`);
    assert.deepEqual(errors, []);
    await close();
  }
});

test('on the full page too, at 360 px, the equations stay inside the page', async () => {
  const { page, errors, close } = await open(app.browser, app.server.base, { viewport: { width: 360, height: 800 } });
  await readyAll(page);
  for (const figure of FIGURES) await assertResults(page, `[id="${figure}"]`, `full page ${figure}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, 'no horizontal scroll at 360 px');
  assert.deepEqual(errors, []);
  await close();
});

test('a symbol, its control and its readout light up together, by mouse and by keyboard', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=dp`);
  await ready(page);
  // The slider's focus lights N in the equation.
  await page.locator('input[data-param="gpus"]').focus();
  await page.waitForFunction(() => document.querySelectorAll('math [data-tie="gpus"].tied').length > 0);
  // Its meaning, listed under the equations in the page's one notation, lights up with it.
  assert.equal(await page.locator('.figure__symbols [data-tie="gpus"].tied').textContent(), 'N: GPUs');
  assert.match(await page.locator('.figure__symbols').textContent(), /G: the gradient, in bytes.*S: bytes each GPU sends/);
  // Hovering S lights the sent-per-gpu readout.
  await page.locator('math mi[data-tie="sent-per-gpu"]').first().hover();
  await page.waitForFunction(() => document.querySelector('.readout[data-readout="sent-per-gpu"]')?.classList.contains('tied'));
  assert.equal(await page.locator('math .tied').count() >= 2, true, 'S and its result');
  // Hovering a symbol of a control lights the control.
  await page.locator('math [data-tie="gpus"]').first().hover();
  await page.waitForFunction(() => document.querySelector('.control-tie.tied [data-param="gpus"]') !== null);
  // Hovering the readout lights its symbol.
  await page.locator('.readout[data-readout="gradient-size"]').hover();
  await page.waitForFunction(() => document.querySelector('math [data-tie="gradient-size"].tied') !== null);
  // X stands for what two controls set, the GPU and its share of peak, both
  // assumptions: behind the closed disclosure, pointing at X lights its summary.
  await page.locator('math [data-tie="gpu busy-util"]').first().hover();
  await page.waitForFunction(() => getComputedStyle(document.querySelector('details.assumptions > summary')).outlineStyle === 'solid');
  await openAssumptions(page);
  // Open, the GPU select's focus lights X and its meaning; pointing at X lights both.
  await page.locator('select[data-param="gpu"]').focus();
  await page.waitForFunction(() => document.querySelector('math [data-tie="gpu busy-util"].tied') !== null);
  assert.match(await page.locator('.figure__symbols [data-tie="gpu busy-util"].tied').textContent(), /^X: /);
  await page.locator('math [data-tie="gpu busy-util"]').first().hover();
  await page.waitForFunction(() => ['gpu', 'busy-util'].every((key) => document.querySelector(`.control-tie.tied [data-param="${key}"]`)));
  assert.deepEqual(errors, []);
  await close();
});

test('?fig=planner&b.stage=3 shows both plans: 1,120 GB and 140 GB', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&b.stage=3`);
  await ready(page);
  const found = await readouts(page);
  assert.equal(found['state-per-gpu'].text, '1,120 GB');
  assert.equal(found['b.state-per-gpu'].text, '140.0 GB');
  assert.equal(found['b.state-per-gpu'].value, 140e9);
  assert.equal(await page.locator('.compare__bars .membar').count(), 2);
  assert.match(await page.locator('tr:has([data-readout="b.state-per-gpu"]) .compare__change').textContent(), /^better: −980\.0 GB, −88%$/);
  assert.deepEqual(errors, []);
  await close();
});

test('pinning a plan, changing B and sharing the link reproduces both plans in a fresh page', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&gpus=64&stage=1`);
  await ready(page);
  await page.getByRole('button', { name: 'Compare: pin this plan as A' }).click();
  await page.locator('fieldset[data-param="stage"] label', { hasText: 'ZeRO-3' }).click();
  const url = await urlMatching(page, /b\.stage=3/);
  assert.match(url, /gpus=64&stage=1/);
  const before = await readouts(page);
  // ZeRO-1 on 64 GPUs: (4 + 12/64) × 70e9; ZeRO-3: 16 × 70e9 / 64.
  assert.equal(before['state-per-gpu'].text, '293.1 GB');
  assert.equal(before['b.state-per-gpu'].text, '17.5 GB');
  await openShare(page);
  const link = await page.locator('.share__text').first().inputValue();
  assert.match(link, /b\.stage=3/);
  const snippet = await page.locator('.share__text').nth(1).inputValue();
  assert.match(snippet, /b\.stage=3/);
  const fresh = await open(app.browser, link);
  await ready(fresh.page);
  const again = await readouts(fresh.page, '#planner');
  assert.equal(again['state-per-gpu'].text, '293.1 GB');
  assert.equal(again['b.state-per-gpu'].text, '17.5 GB');
  // Stopping keeps plan B.
  await page.getByRole('button', { name: 'Stop comparing (keep plan B)' }).click();
  assert.equal((await readouts(page))['state-per-gpu'].text, '17.5 GB');
  await urlMatching(page, /^[^b]*stage=3[^b]*$/);
  assert.deepEqual([...errors, ...fresh.errors], []);
  await fresh.close();
  await close();
});

test('the readouts export as CSV and JSON, every readout with its unit and the URL', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&b.gpus=16&b.stage=3`);
  await ready(page);
  const shown = await readouts(page);
  await openShare(page);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Readouts as CSV' }).click()]);
  assert.equal(csv.suggestedFilename(), 'parallax-planner-readouts.csv');
  const lines = (await readFile(await csv.path(), 'utf8')).trim().split('\n');
  assert.equal(lines.length, 3, 'a header, plan A and plan B');
  const header = csvFields(lines[0]);
  assert.deepEqual(header.slice(0, 2), ['url', 'plan']);
  const columns = header.slice(2).map((h) => h.match(/^(.*) \((.*)\)$/).slice(1));
  for (const [plan, line] of [['A', lines[1]], ['B', lines[2]]]) {
    const cells = csvFields(line);
    assert.equal(cells.length, header.length);
    assert.equal(cells[1], plan);
    assert.match(cells[0], /fig=planner/);
    columns.forEach(([id], index) => assert.equal(Number(cells[index + 2]), shown[plan === 'A' ? id : `b.${id}`].value, `${plan} ${id}`));
  }
  assert.ok(columns.some(([id, unit]) => id === 'state-per-gpu' && unit === 'bytes'));
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Readouts as JSON' }).click()]);
  const parsed = JSON.parse(await readFile(await json.path(), 'utf8'));
  assert.match(parsed.url, /b\.stage=3/);
  assert.equal(parsed.readouts.length, Object.keys(shown).length);
  for (const readout of parsed.readouts) {
    assert.equal(readout.value, shown[readout.id].value, readout.id);
    assert.equal(readout.text, shown[readout.id].text, readout.id);
    assert.ok(readout.unit && readout.label, readout.id);
  }
  assert.deepEqual(errors, []);
  await close();
});
