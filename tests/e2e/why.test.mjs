// The `why` figure end to end: seed readouts, keyboard and mouse, the URL,
// bad parameters and the panic message, on the release build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, openAssumptions, readouts, ready, seedTexts, urlMatching, useApp } from './harness.mjs';

/** The seed's readouts at its defaults (tests/seeds.tsv). */
const SEED = seedTexts('why');

const PSI = 6.74e9;
const SUSTAINED = 150e12;

const app = useApp();

function assertSeed(found) {
  for (const [id, text] of Object.entries(SEED)) {
    assert.equal(found[id]?.text, text, `readout ${id}`);
  }
  assert.equal(found['training-state'].value, 16 * PSI);
  assert.equal(found.compute.value, 6 * PSI * 2e12);
}

/** Every readout agrees with the estimator's formulas for this many tokens. */
function assertConsistent(found, tokens) {
  const compute = 6 * PSI * tokens;
  assert.ok(Math.abs(found.compute.value / compute - 1) < 1e-12, `compute for ${tokens}`);
  assert.ok(Math.abs(found['time-64-gpus'].value / (compute / (64 * SUSTAINED)) - 1) < 1e-12);
  for (const { value, text } of Object.values(found)) {
    assert.ok(Number.isFinite(value), `finite ${value}`);
    assert.ok(text && !/NaN|Infinity|undefined/.test(text), `text ${text}`);
  }
}

test('the full page shows the why figure with the seed readouts, from a sub-path', async () => {
  const { page, errors, close } = await open(app.browser, app.server.base);
  await ready(page);
  assertSeed(await readouts(page, '#why'));
  assert.equal(await page.locator('.page-header__title').count(), 1);
  assert.match(await page.locator('#why .figure__in-words').textContent(), /17\.1 years/);
  assert.deepEqual(errors, []);
  await close();
});

test('?fig=why embeds the figure alone', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why`);
  await ready(page);
  assertSeed(await readouts(page));
  assert.equal(await page.locator('.page-header').count(), 0);
  assert.equal(await page.locator('main.embed[data-figure="why"]').count(), 1);
  assert.deepEqual(errors, []);
  await close();
});

test('the tokens slider moves by keyboard and writes the URL', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why`);
  await ready(page);
  const slider = page.locator('input[type=range][data-param="tokens"]');
  // One log scale over the whole accepted range, 1B to 1,000T, from the start; the thumb at
  // log10(2T) = 12.301, on the nearest of its hundredth-of-a-decade positions.
  assert.deepEqual(await slider.evaluate((el) => [Number(el.min), Number(el.max)]), [9, 15]);
  assert.equal(Number(await slider.inputValue()), 12.3);
  // Ticked at 1T, 2T and 15T.
  assert.deepEqual(await slider.evaluate((el) => [...el.list.options].map((o) => 10 ** Number(o.value))).then((t) => t.map((v) => Number(v.toPrecision(3)))), [1e12, 2e12, 15e12]);
  await slider.focus();
  // A hundredth of a decade down: 10^12.29 = 1.95T (the position 12.30 would round back to 2.00T).
  await page.keyboard.press('ArrowLeft');
  let found = await readouts(page);
  assert.equal(found.compute.text, '7.9e22 FLOP');
  assertConsistent(found, 1.95e12);
  await urlMatching(page, /[?&]fig=why&tokens=1\.95T$/);
  assert.equal(await page.locator('output.control__value').first().textContent(), '1.95T');
  await page.keyboard.press('Home');
  found = await readouts(page);
  // 6 × 6.74e9 × 1e9 = 4.04e19 FLOP.
  assert.equal(found.compute.text, '4.0e19 FLOP');
  assert.equal(found['training-state'].text, '107.8 GB');
  assertConsistent(found, 1e9);
  await urlMatching(page, /tokens=1B/);
  await page.keyboard.press('End');
  assertConsistent(await readouts(page), 1e15);
  await urlMatching(page, /tokens=1000T/);
  assert.deepEqual(errors, []);
  await close();
});

test('the tokens slider follows a mouse drag', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why`);
  await ready(page);
  const slider = page.locator('input[type=range][data-param="tokens"]');
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  // The thumb starts at log10(2T) on 9..15: 55% of the way; drag it to the middle (10^12, 1T), then past the left end.
  await page.mouse.move(box.x + box.width * 0.55, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, y, { steps: 5 });
  const middle = 10 ** Number(await slider.inputValue());
  assert.ok(middle > 0.7e12 && middle < 1.4e12, `middle of the drag ${middle}`);
  assertConsistent(await readouts(page), Number(middle.toPrecision(3)));
  await page.mouse.move(box.x - 20, y, { steps: 5 });
  await page.mouse.up();
  const found = await readouts(page);
  assert.equal(found.compute.text, '4.0e19 FLOP');
  assertConsistent(found, 1e9);
  await urlMatching(page, /tokens=1B/);
  assert.deepEqual(errors, []);
  await close();
});

test('a shared URL reproduces its readouts on reload', async () => {
  const url = `${app.server.base}?fig=why&model=llama2-13b&gpu=h100-sxm&tokens=1T`;
  const first = await open(app.browser, url);
  await ready(first.page);
  const before = await readouts(first.page);
  // Llama 2 13B's shape adds up to 13,015,864,320 parameters: 16 bytes each.
  assert.equal(before['training-state'].text, '208.3 GB');
  assert.equal(before.compute.text, '7.8e22 FLOP');
  await first.page.reload();
  await ready(first.page);
  assert.deepEqual(await readouts(first.page), before);
  assert.equal(await first.page.locator('select[data-param="model"]').inputValue(), 'llama2-13b');
  assert.deepEqual(first.errors, []);
  await first.close();
});

test('choosing a model preset updates the readouts and the URL', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why`);
  await ready(page);
  await openAssumptions(page);
  await page.selectOption('select[data-param="model"]', 'llama3-8b');
  const found = await readouts(page);
  assert.equal(found['training-state'].text, '128.5 GB');
  await urlMatching(page, /model=llama3-8b/);
  assert.deepEqual(errors, []);
  await close();
});

for (const [query, expected] of [
  ['tokens=banana', '8.1e22 FLOP'],
  // Clamped to the smallest count the URL takes, 1B: 6 × 6.74e9 × 1e9.
  ['tokens=-5', '4.0e19 FLOP'],
  ['tokens=1e400', '8.1e22 FLOP'],
  ['tokens=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', '8.1e22 FLOP'],
]) {
  test(`a bad value (${query}) shows a notice and falls back`, async () => {
    const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why&${query}`);
    await ready(page);
    const notice = page.locator('[data-notice="tokens"]');
    assert.equal(await notice.count(), 1);
    assert.match(await notice.textContent(), /tokens/);
    const found = await readouts(page);
    assert.equal(found.compute.text, expected);
    assert.equal(await page.locator('img').count(), 0, 'nothing injected');
    assert.doesNotMatch(await page.locator('body').innerText(), /NaN|Infinity/);
    assert.deepEqual(errors, []);
    await close();
  });
}

test('a panic shows a message with a reload link, not a dead page', async () => {
  const { page, close } = await open(app.browser, `${app.server.base}?panic-test=1`);
  const alert = page.locator('.crash[role="alert"]');
  await alert.waitFor();
  assert.match(await alert.textContent(), /went wrong/);
  assert.equal(await alert.locator('a').count(), 1);
  await close();
});

test('dark mode follows the system preference', async () => {
  const light = await open(app.browser, `${app.server.base}?fig=why`, { colorScheme: 'light' });
  const dark = await open(app.browser, `${app.server.base}?fig=why`, { colorScheme: 'dark' });
  await ready(light.page);
  await ready(dark.page);
  const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await background(light.page), 'rgb(251, 250, 247)');
  assert.equal(await background(dark.page), 'rgb(19, 20, 24)');
  await light.close();
  await dark.close();
});

test('the page asks nothing of any other host', async () => {
  const seen = [];
  const { page, close } = await open(app.browser, 'about:blank');
  page.on('request', (request) => seen.push(request.url()));
  await page.goto(`${app.server.base}?fig=why`);
  await ready(page);
  assert.ok(seen.length >= 3);
  for (const url of seen) assert.ok(url.startsWith(app.server.origin), url);
  await close();
});

test('the tokens box takes a suffix after a space and its label\'s own top, and flags only a value past its top while typing', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why`);
  await ready(page);
  const box = page.locator('input[type=text][data-param="tokens"]');
  const error = page.locator(`[id="${await box.getAttribute('aria-describedby')}"]`);
  await box.fill('');
  // "1" is below 1B, but may yet become 15 T: nothing is said until Enter.
  await box.pressSequentially('15 T');
  assert.equal(await error.textContent(), '');
  await box.press('Enter');
  await urlMatching(page, /tokens=15T/);
  // 6 × 6.74e9 × 15e12 = 6.07e23 FLOP.
  assert.equal((await readouts(page)).compute.text, '6.1e23 FLOP');
  // The label's own top, as it writes it: 6 × 6.74e9 × 1e15 = 4.04e25 (a newcomer
  // typed the "1,000T" the label writes, which the box refused before issue 37).
  await box.fill('1,000T');
  await box.press('Enter');
  await urlMatching(page, /tokens=1000T/);
  assert.equal((await readouts(page)).compute.text, '4.0e25 FLOP');
  await box.fill('');
  await box.pressSequentially('2000T');
  assert.match(await error.textContent(), /^That is above the largest allowed value/);
  assert.deepEqual(errors, []);
  await close();
});

test('on a real GPU the times say their rate, and "Over a whole run" quotes them at what whole runs sustained', async () => {
  // Llama 3.1 405B on 1,024 H100s for 15.6T tokens: its model card's 30.84M
  // H100-hours make it 30.84e6 × 3,600 / 1,024 s; the rate while computing
  // gives about half of that (issue 51, item 5).
  const hours = (30.84e6 * 3600) / 1024;
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why&model=llama3-405b&gpu=h100-sxm&tokens=15.6T`);
  await ready(page);
  const busy = await readouts(page);
  assert.ok(busy['time-1024-gpus'].value < 0.6 * hours, `${busy['time-1024-gpus'].value}`);
  assert.match(await page.locator('[data-readout="time-1-gpu"]').first().textContent(), /while computing/);
  await page.locator('fieldset[data-param="rate"] label', { hasText: 'Over a whole run' }).click();
  await urlMatching(page, /rate=run(&|$)/);
  const run = await readouts(page);
  assert.ok(Math.abs(run['time-1024-gpus'].value / hours - 1) < 0.05, `${run['time-1024-gpus'].value} against ${hours}`);
  assert.match(await page.locator('[data-readout="time-1-gpu"]').first().textContent(), /over a whole run/);
  // Only the times move: the three bars by the same factor, the memory and the compute not at all.
  const factor = run['time-1-gpu'].value / busy['time-1-gpu'].value;
  for (const id of ['time-64-gpus', 'time-1024-gpus']) {
    assert.ok(Math.abs(run[id].value / busy[id].value / factor - 1) < 1e-12, id);
  }
  for (const id of ['training-state', 'weights', 'gradients', 'optimizer-state', 'over-gpu', 'compute']) {
    assert.equal(run[id].value, busy[id].value, `${id} stays`);
  }
  // The illustrative GPU has no whole run's hours: the choice leaves with it.
  await openAssumptions(page);
  await page.locator('select[data-param="gpu"]').selectOption('illustrative');
  await urlMatching(page, /^(?!.*gpu=h100)/);
  assert.equal(await page.locator('fieldset[data-param="rate"]').count(), 0);
  assert.deepEqual(errors, []);
  await close();
});
