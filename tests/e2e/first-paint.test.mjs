// A figure's page paints its figure before the app runs (issue 39): on a
// 100 KB/s link, with the wasm held back (not timed: it never arrives
// until the test lets it), `?fig=SLUG` shows that figure's own section of
// the document, its title and its readouts, and nothing of the others; a
// URL that sets more than the figure says its numbers are being worked out
// instead of showing the defaults; and the app then takes the place over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIGURES, frameOnHost, ready, readouts, useApp } from './harness.mjs';

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
  // Every layout shift, as Lighthouse's CLS adds them up; and whether the
  // document's first contentful paint had been reported when the wasm was
  // asked for (fetched before it, the wasm's download counts as a part of
  // the page's paint in Lighthouse's simulated LCP, and shares a slow link
  // with what that paint needs).
  await page.addInitScript(() => {
    window.shifts = [];
    new PerformanceObserver((list) => window.shifts.push(...list.getEntries().map((entry) => entry.value))).observe({ type: 'layout-shift', buffered: true });
    const fetch = window.fetch;
    window.fetch = (resource, options) => {
      if (String(resource).endsWith('.wasm')) window.paintedBeforeWasm = performance.getEntriesByName('first-contentful-paint').length === 1;
      return fetch(resource, options);
    };
  });
  const held = [];
  // src/boot.js asks for the wasm only once the document is on the screen.
  const asked = new Promise((resolve) => page.route(/\.wasm$/, (route) => resolve(held.push(route))));
  await page.goto(`${app.server.base}${query}`, { waitUntil: 'domcontentloaded' });
  const release = async () => {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    for (const route of held) await route.continue();
  };
  return { page, errors, release, close: () => context.close(), asked };
}

// The defaults, each from its source: Llama 2 7B's 6.74B parameters at 16
// bytes each (the ZeRO paper's count), 107.8 GB; 70B at 16 bytes, 1,120 GB;
// GPipe's bubble (p − 1)/(m + p − 1) at p 4, m 8: 3/11, 27.3%. The words
// say the same number.
const DEFAULTS = {
  why: ['training-state', '107.8 GB'],
  planner: ['state-per-gpu', '1,120 GB'],
  bubble: ['bubble', '27.3%'],
};

for (const [slug, [id, text]] of Object.entries(DEFAULTS)) {
  test(`?fig=${slug} on a slow link shows its own section, words and readouts before the app, and nothing else`, async () => {
    const { page, errors, release, close, asked } = await openHeld(`?fig=${slug}`);
    const section = page.locator(`section[id="${slug}"]`);
    await section.locator('.figure__title').waitFor({ state: 'visible' });
    await asked;
    assert.equal(await page.getAttribute('html', 'data-app'), null, 'the app has not started');
    assert.equal(await page.evaluate(() => window.paintedBeforeWasm), true, 'the wasm was asked for after the first contentful paint');
    const value = section.locator(`[data-readout="${id}"] .readout__value`);
    assert.ok(await value.isVisible());
    assert.equal(await value.textContent(), text);
    const words = section.locator('.figure__in-words');
    assert.ok(await words.isVisible());
    assert.match(await words.textContent(), new RegExp(`^In words\\. .*${text.replace('.', '\\.')}`));
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
    // Nothing moved as the app took the place (CLS 0: the body moved 32 px once).
    assert.deepEqual(await page.evaluate(() => window.shifts), []);
    assert.deepEqual(errors, []);
    await close();
  });
}

test('a figure page whose URL sets more says its numbers are being worked out, never the defaults', async () => {
  const { page, errors, release, close } = await openHeld('?fig=why&params=70B');
  const section = page.locator('section#why');
  await section.locator('.figure__title').waitFor({ state: 'visible' });
  assert.equal(await section.locator('[data-readout="training-state"] .readout__value').isVisible(), false, '107.8 GB is not 70B\'s');
  assert.equal(await section.locator('.figure__in-words').isVisible(), false, 'nor are the words');
  // Nor their labels and notes, which carry numbers too ("Over one GPU of 80 GB").
  assert.equal(await section.locator('[data-readout="over-gpu"] .readout__label').isVisible(), false);
  const note = await section.locator('.figure__readouts').evaluate((element) => getComputedStyle(element, '::before').content);
  assert.match(note, /Working out the numbers/);
  // One line, not the empty room of nine readouts (a newcomer read 1,000 px of it as broken).
  const room = await section.locator('.figure__readouts').evaluate((element) => element.getBoundingClientRect().height);
  assert.ok(room < 60, `the line takes ${room} px`);
  await release();
  await ready(page);
  // 70B at 16 bytes a parameter.
  assert.equal((await readouts(page, 'main.embed'))['training-state'].text, '1,120 GB');
  assert.deepEqual(errors, []);
  await close();
});

// The app reads a figure's name in any case; a name of no figure shows the
// whole document, as the app then does with a notice (both were blank until
// the wasm came).
test('a figure named in capitals shows its section before the app, and a name of no figure the whole document', async () => {
  const capitals = await openHeld('?fig=DP');
  await capitals.page.locator('section#dp .figure__title').waitFor({ state: 'visible' });
  assert.equal(await capitals.page.locator('section#why').isVisible(), false);
  assert.equal(await capitals.page.locator('.page-header').isVisible(), false);
  await capitals.close();
  const unknown = await openHeld('?fig=nope');
  // route.js shows the whole document once the parser has found no such section.
  await unknown.page.locator('.page-header').waitFor({ state: 'visible' });
  for (const selector of ['section#why', 'section#checkpoint']) {
    assert.ok(await unknown.page.locator(selector).isVisible(), `${selector} shows`);
  }
  await unknown.close();
});

// The page's largest paint (LCP) is the document's, not one that waits for
// the wasm: on Lighthouse's phone (412 × 823 CSS px), no text the app draws
// on the first screen of a figure's page is larger than the largest the
// document drew there before it. Sizes, not times: the wasm is held until
// the document's paint is in, then let go. And the document shows no
// readout that the app keeps until the reader asks for it (bubble's
// micro-batches under 10%, the answer to its question, was in it).
test('no figure page\'s app paints a text larger than its document did, and the document tells no answer the app keeps', async () => {
  // No service worker: it would serve the next page's wasm past the hold.
  const context = await app.browser.newContext({ viewport: { width: 412, height: 823 }, serviceWorkers: 'block' });
  await context.addInitScript(() => {
    window.largest = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.largest.push({ size: entry.size, document: Boolean(entry.element?.closest('.explainer')), text: entry.element?.textContent.slice(0, 40) });
      }
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  for (const slug of FIGURES) {
    const page = await context.newPage();
    const asked = new Promise((resolve) => page.route(/\.wasm$/, resolve));
    await page.goto(`${app.server.base}?fig=${slug}`);
    await page.waitForFunction(() => window.largest.length > 0);
    const shown = await page.locator('.figure--first [data-readout]')
      .evaluateAll((readouts) => readouts.filter((r) => r.checkVisibility()).map((r) => r.dataset.readout));
    assert.ok(shown.length > 0, `${slug}: the document shows readouts`);
    await (await asked).continue();
    await ready(page);
    const kept = await page.evaluate((shown) => shown.filter((id) => {
      const inApp = [...document.querySelectorAll(`main.embed [data-readout="${id}"]`)];
      return inApp.length > 0 && inApp.every((r) => r.closest('details:not([open])'));
    }), shown);
    assert.deepEqual(kept, [], `${slug}: the document showed what the app keeps until asked`);
    // Two frames for the app's paint to be reported.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const largest = await page.evaluate(() => window.largest);
    const last = largest.at(-1);
    assert.ok(last.document, `${slug}: the largest paint is the app's "${last.text}" (${last.size} px²), not the document's`);
    assert.match(last.text, /^In words\. /, `${slug}: the document's largest text is its words`);
    await page.close();
  }
  await context.close();
});

// A wasm that is not the one built (its digest, moved by .ci/post-build.mjs
// from Trunk's preload link to boot.js's tag, does not match) is refused:
// the app does not start and the page stays the document, whole.
test('a wasm that does not match its integrity digest is refused, and the page stays the document', async () => {
  const context = await app.browser.newContext();
  const page = await context.newPage();
  await page.route(/\.wasm$/, async (route) => {
    const body = Buffer.from(await (await route.fetch()).body());
    body[body.length - 1] ^= 1;
    await route.fulfill({ body, contentType: 'application/wasm' });
  });
  await page.goto(`${app.server.base}?fig=why`);
  await page.waitForFunction(() => !document.documentElement.classList.contains('js'));
  assert.equal(await page.getAttribute('html', 'data-app'), null, 'the app has not started');
  assert.ok(await page.locator('section#dp .figure__title').isVisible(), 'the whole document shows');
  await context.close();
});

// Without JavaScript a figure's link (the share panel's, which ends at the
// figure's anchor, as embed.test.mjs checks) starts at its figure, not at the
// top of the explainer, and the figure says what needs the app.
test('without JavaScript a figure link starts at its figure and says what needs the app', async () => {
  const context = await app.browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 700 } });
  const page = await context.newPage();
  await page.goto(`${app.server.base}?fig=planner&gpus=64#planner`);
  const top = await page.locator('section[id="planner"]').evaluate((section) => section.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 2, `the planner's section starts the view (top ${top})`);
  assert.ok(await page.locator('section[id="planner"] .figure__static-note').isVisible());
  assert.match(await page.locator('section[id="planner"] .figure__static-note').textContent(), /needs JavaScript/);
  await context.close();
});

// A course page's iframe (src/embed.js) fits the figure's section before the
// app arrives: the page posts that section's height once it is read.
test('an embedded figure page tells its iframe the height of its section before the app runs', async () => {
  const context = await app.browser.newContext();
  const page = await context.newPage();
  await page.route(/\.wasm$/, () => {});
  await frameOnHost(page, app.server, `${app.server.base}?fig=bubble`, 100);
  // The first height it posts, before any app.
  const report = await (await page.waitForFunction(() => window.reports[0])).jsonValue();
  assert.equal(report.figure, 'bubble');
  const frame = page.frames().find((f) => f.url().includes('fig=bubble'));
  assert.equal(await frame.getAttribute('html', 'data-app'), null, 'the app has not started');
  // The iframe now shows the whole section: nothing of it scrolls, and no more than a few pixels are left below it.
  const hidden = await frame.evaluate(() => document.documentElement.scrollHeight - innerHeight);
  assert.ok(hidden <= 4, `${hidden} px of the section hidden`);
  const below = await frame.evaluate(() => innerHeight - Math.ceil(document.querySelector('section[id="bubble"]').getBoundingClientRect().bottom));
  assert.ok(below <= 48, `${below} px left below the section`);
  assert.ok(report.height > 150, `a section of ${report.height} px`);
  await context.close();
});

// An iframe out of view draws nothing, so the app's ResizeObserver
// (src/embedded.rs) told its height only once a reader scrolled to it: the
// course page grew or shrank by 160-500 px as the reader arrived (issue 39's
// newcomer). The height the app's figure takes is told as soon as it is built.
test('an embedded figure out of view tells its iframe the app\'s height without being scrolled to', async () => {
  const context = await app.browser.newContext({ viewport: { width: 360, height: 700 } });
  const page = await context.newPage();
  await frameOnHost(page, app.server, `${app.server.base}?fig=dp&gpus=16`, 300, 6000);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  // Polled by a timer: a frame out of view runs no animation frames.
  await frame.waitForFunction(() => document.documentElement.dataset.app === 'started', null, { polling: 100, timeout: 60_000 });
  const content = await frame.evaluate(() => document.querySelector('main.embed').scrollHeight);
  await page.waitForFunction((content) => Math.abs(window.reports.at(-1)?.height - content) <= 4, content, { timeout: 5000 })
    .catch(() => {});
  const last = await page.evaluate(() => window.reports.at(-1));
  assert.ok(Math.abs(last.height - content) <= 4, `told ${last.height} px, the figure is ${content} px`);
  assert.equal(await page.evaluate(() => scrollY), 0, 'the host page was not scrolled');
  await context.close();
});
