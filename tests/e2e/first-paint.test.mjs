// A figure's page paints its figure before the app runs (issue 39): on a
// 100 KB/s link, with the wasm held back (not timed: it never arrives
// until the test lets it), `?fig=SLUG` shows that figure's own section of
// the document, its title and its readouts, and nothing of the others; a
// URL that sets more than the figure says its numbers are being worked out
// instead of showing the defaults; and the app then takes the place over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIGURES, ready, readouts, useApp } from './harness.mjs';

const app = useApp();

/** Opens `query` on a 100 KB/s link with every wasm request held; returns the page and a release. */
async function openHeld(query) {
  const context = await app.browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 100 * 1024, uploadThroughput: 100 * 1024 });
  const held = [];
  await page.route(/\.wasm$/, (route) => held.push(route));
  await page.goto(`${app.server.base}${query}`, { waitUntil: 'domcontentloaded' });
  const release = async () => {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    for (const route of held) await route.continue();
  };
  return { page, errors, release, close: () => context.close(), held };
}

// The defaults, each from its source: Llama 2 7B's 6.74B parameters at 16
// bytes each (the ZeRO paper's count), 107.8 GB; 70B at 16 bytes, 1,120 GB;
// GPipe's bubble (p − 1)/(m + p − 1) at p 4, m 8: 3/11, 27.3%.
const DEFAULTS = {
  why: ['training-state', '107.8 GB'],
  planner: ['state-per-gpu', '1,120 GB'],
  bubble: ['bubble', '27.3%'],
};

for (const [slug, [id, text]] of Object.entries(DEFAULTS)) {
  test(`?fig=${slug} on a slow link shows its own section and readouts before the app, and nothing else`, async () => {
    const { page, errors, release, close, held } = await openHeld(`?fig=${slug}`);
    const section = page.locator(`section[id="${slug}"]`);
    await section.locator('.figure__title').waitFor({ state: 'visible' });
    assert.equal(await page.getAttribute('html', 'data-app'), null, 'the app has not started');
    assert.ok(held.length > 0, 'the wasm is held back');
    const value = section.locator(`[data-readout="${id}"] .readout__value`);
    assert.ok(await value.isVisible());
    assert.equal(await value.textContent(), text);
    for (const other of FIGURES.filter((f) => f !== slug)) {
      assert.equal(await page.locator(`section[id="${other}"]`).isVisible(), false, `${other} is hidden`);
    }
    for (const selector of ['.page-header', '.steps-nav', `[id="${slug}"] .step__text`, `[id="${slug}"] .step__number`]) {
      assert.equal(await page.locator(selector).first().isVisible(), false, `${selector} is hidden`);
    }
    // The app arrives and takes the place: the figure alone, at the same numbers.
    await release();
    await ready(page);
    assert.equal(await page.locator('.explainer').count(), 0);
    assert.equal((await readouts(page, 'main.embed'))[id].text, text);
    assert.deepEqual(errors, []);
    await close();
  });
}

test('a figure page whose URL sets more says its numbers are being worked out, never the defaults', async () => {
  const { page, errors, release, close } = await openHeld('?fig=why&params=70B');
  const section = page.locator('section#why');
  await section.locator('.figure__title').waitFor({ state: 'visible' });
  assert.equal(await section.locator('[data-readout="training-state"] .readout__value').isVisible(), false, '107.8 GB is not 70B\'s');
  // Nor their labels and notes, which carry numbers too ("Over one GPU of 80 GB").
  assert.equal(await section.locator('[data-readout="over-gpu"] .readout__label').isVisible(), false);
  const note = await section.locator('.figure__readouts').evaluate((element) => getComputedStyle(element, '::before').content);
  assert.match(note, /Working out the numbers/);
  await release();
  await ready(page);
  // 70B at 16 bytes a parameter.
  assert.equal((await readouts(page, 'main.embed'))['training-state'].text, '1,120 GB');
  assert.deepEqual(errors, []);
  await close();
});
