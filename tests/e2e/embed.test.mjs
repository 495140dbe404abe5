// Sharing and embedding: the share link reproduces a figure's state, the
// iframe snippet embeds it, an embedded figure reports its height and
// ignores messages from the page around it.
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIGURES, frameOnHost, labDone, open, openShare, press, readouts, ready, readyAll, urlMatching, useApp } from './harness.mjs';

const app = useApp();

test('the share link and the embed code reproduce the figure as the reader left it', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=zero`);
  await ready(page);
  await press(page, 'input[data-param="stage"][value="1"]', 'ArrowRight');
  await press(page, 'input[data-param="gpus"]', 'ArrowRight', 8);
  const before = await readouts(page);
  await openShare(page);
  const [link, snippet] = await page.locator('.share__text').evaluateAll((fields) => fields.map((f) => f.value));
  assert.match(link, /\?step=zero&gpus=16&stage=2#zero$/);
  assert.match(snippet, /^<iframe src="[^"]+\?fig=zero&amp;gpus=16&amp;stage=2#zero" title="Parallax: ZeRO: sharding the training state" loading="lazy"/);
  // Copy works with or without the clipboard API; either way the reader is told.
  await page.getByRole('button', { name: 'Copy link' }).click();
  await page.waitForFunction(() => document.querySelector('.share__status').textContent.length > 0);
  assert.match(await page.locator('.share__status').first().textContent(), /Copied|Selected/);
  const shared = await open(app.browser, link);
  await ready(shared.page);
  assert.deepEqual(await readouts(shared.page, '#zero'), before);
  const embedUrl = snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  const embedded = await open(app.browser, embedUrl);
  await ready(embedded.page);
  assert.deepEqual(await readouts(embedded.page), before);
  assert.deepEqual([...errors, ...shared.errors, ...embedded.errors], []);
  await Promise.all([close(), shared.close(), embedded.close()]);
});

test('without a clipboard API the copy button selects the text and says so', async () => {
  const context = await app.browser.newContext();
  await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${app.server.base}?fig=tp`);
  await ready(page);
  await openShare(page);
  await page.getByRole('button', { name: 'Copy embed code' }).click();
  assert.match(await page.locator('.share__status').nth(1).textContent(), /^Selected: press Ctrl\+C/);
  const selected = await page.evaluate(() => {
    const field = document.activeElement;
    return field.value.slice(field.selectionStart, field.selectionEnd);
  });
  assert.match(selected, /^<iframe src=".*fig=tp#tp"/);
  assert.equal(await page.locator('.crash').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

for (const width of [360, 1000]) {
  test(`an embedded figure reports its content height to the page around it, at ${width} px`, async () => {
    const context = await app.browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await frameOnHost(page, app.server, `${app.server.base}?fig=dp`, 300);
    await page.waitForTimeout(4000);
    const last = await page.evaluate(() => window.reports.at(-1));
    const report = { last, keys: last && Object.keys(last).sort() };
    assert.ok(report.last, 'a resize message arrived');
    assert.deepEqual(report.keys, ['figure', 'height', 'type']);
    assert.equal(report.last.figure, 'dp');
    const frame = page.frames().find((f) => f.url().includes('fig=dp'));
    const content = await frame.evaluate(() => document.querySelector('main.embed').scrollHeight);
    assert.ok(Math.abs(report.last.height - content) <= 4, `reported ${report.last.height}, content ${content}`);
    const scrolls = await frame.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
    assert.ok(scrolls <= 4, `the resized frame shows everything (${scrolls} px hidden)`);
    await context.close();
  });
}

test('an embedded figure ignores whatever the page around it posts to it', async () => {
  const context = await app.browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(app.server.hostPage);
  await page.evaluate((src) => {
    const frame = document.createElement('iframe');
    frame.src = src;
    frame.style.cssText = 'width: 1000px; height: 900px';
    document.body.append(frame);
  }, `${app.server.base}?fig=zero&gpus=16`);
  let frame;
  while (!(frame = page.frames().find((f) => f.url().includes('fig=zero')))) await page.waitForTimeout(50);
  await ready(frame);
  const before = await readouts(frame);
  const sent = await page.evaluate(() => {
    const hostile = [
      'reload',
      null,
      42,
      { type: 'parallax:resize', figure: 'zero', height: 1 },
      { type: 'parallax:set', params: { gpus: 1 } },
      { type: 'parallax:navigate', url: 'javascript:alert(1)' },
      { __proto__: { type: 'parallax:resize' } },
      '<img src=x onerror=alert(1)>',
      new ArrayBuffer(1 << 20),
    ];
    for (const message of hostile) document.querySelector('iframe').contentWindow.postMessage(message, '*');
    return hostile.length;
  });
  await page.waitForTimeout(300);
  assert.deepEqual(await readouts(frame), before, `after ${sent} messages`);
  assert.equal(new URL(frame.url()).search, '?fig=zero&gpus=16');
  assert.equal(await frame.locator('.crash, img').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a second visit works with the network cut, at any address of the page', async () => {
  const context = await app.browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${app.server.base}?fig=pp`);
  await ready(page);
  // The service worker has cached the page and every file it names.
  await page.waitForFunction(async () => {
    const keys = await (await caches.open('parallax')).keys();
    return keys.some((request) => request.url.endsWith('.wasm')) && keys.some((request) => request.url.endsWith('.css'));
  });
  // ... and is active: it fills the cache while installing, so a full cache
  // alone can come before it answers navigations (a failed run in CI).
  await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state);
  await context.setOffline(true);
  await page.goto(`${app.server.base}?fig=zero&gpus=16&stage=3`);
  await ready(page);
  const found = await readouts(page);
  // ZeRO-3 on 16 GPUs: 16 bytes x 6.74B parameters / 16.
  assert.ok(Math.abs(found['state-per-gpu'].value - 6.74e9) < 1, String(found['state-per-gpu'].value));
  // What draws a saved figure (src/drawing.js, fetched on the first save) was kept too.
  await openShare(page);
  await page.getByRole('button', { name: 'Save as SVG' }).click();
  await page.waitForFunction(() => /^Saved parallax-zero\.svg, \d+ × \d+ px\.$/.test(document.querySelector('.share__files .share__status').textContent));
  assert.deepEqual(errors, []);
  await context.close();
});

test('embed.html lists every figure with every parameter its controls write, and previews it', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}embed.html`);
  const listed = await page.$$eval('section[data-figure]', (sections) =>
    Object.fromEntries(sections.map((s) => [s.dataset.figure, [...s.querySelectorAll('.params code')].map((c) => c.textContent)])),
  );
  const shared = await page.$$eval('main > ul.params code', (codes) => codes.map((c) => c.textContent));
  assert.deepEqual(Object.keys(listed), FIGURES);
  for (const figure of FIGURES) {
    const view = await app.browser.newPage();
    await view.goto(`${app.server.base}?fig=${figure}`);
    await ready(view);
    const keys = await view.$$eval('[data-param]', (els) => [...new Set(els.map((el) => el.dataset.param))]);
    for (const key of keys) assert.ok(listed[figure].includes(key) || shared.includes(key), `${figure}: ${key} is not on embed.html`);
    await view.close();
  }
  // Every key a run card's link sets is listed under the planner (issue 37: bytes, layers, hidden and vocab were not).
  const cards = await app.browser.newPage();
  await cards.goto(app.server.base);
  const hrefs = await cards.$$eval('#published-runs .run__name a', (links) => links.map((a) => a.getAttribute('href')));
  await cards.close();
  assert.ok(hrefs.length >= 6);
  for (const href of hrefs) {
    for (const key of new URLSearchParams(href).keys()) {
      if (key !== 'step') assert.ok(listed.planner.includes(key), `the planner's entry lists ${key} (${href})`);
    }
  }
  assert.ok(shared.includes('quiz'), 'quiz=0 is documented');
  // The preview shows the example printed above it: Llama 3 8B, 16 × 8,030,261,248 bytes.
  const preview = page.frameLocator('#why iframe');
  await preview.locator('[data-readout="training-state"]').waitFor();
  assert.equal(await preview.locator('[data-readout="training-state"] .readout__value').textContent(), '128.5 GB');
  // At 360 px the page does not scroll sideways.
  await page.setViewportSize({ width: 360, height: 800 });
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  assert.deepEqual(errors, []);
  await close();
});

test('quiz=0 leaves out a figure\'s questions and nothing else, and an address with it keeps it, in its embed code too', async () => {
  // The embed a course author made (issue 37): the bubble figure at 8 stages under 1F1B, figure only.
  const query = `${app.server.base}?fig=bubble&pp=8&micro=32&schedule=1f1b&chrome=0`;
  const asked = await open(app.browser, query);
  await ready(asked.page);
  assert.match(await asked.page.locator('.figure__try').textContent(), /whatever the figure shows.*With 4 stages under GPipe/s);
  const bare = await open(app.browser, `${query}&quiz=0`);
  await ready(bare.page);
  assert.equal(await bare.page.locator('.figure__try').count(), 0);
  assert.equal(await bare.page.locator('[data-notice]').count(), 0);
  // Every readout but the one the question's reveal holds (micro-for-10pct answers it, and goes with it).
  const { 'micro-for-10pct': answer, ...rest } = await readouts(asked.page);
  assert.equal(answer.value, 64, '7/(m + 7) < 0.1 first at m = 64');
  assert.deepEqual(await readouts(bare.page), rest);
  await Promise.all([asked.close(), bare.close()]);
  // An author's page with quiz=0 keeps it: the address, and the embed code its share panel writes.
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&quiz=0`);
  await ready(page);
  assert.equal(await page.locator('.figure__try').count(), 0);
  await press(page, 'input[data-param="tp"][value="1"]', 'ArrowRight');
  await urlMatching(page, /\?fig=planner&tp=2&quiz=0$/);
  await openShare(page);
  const snippet = await page.locator('.share__text').nth(1).inputValue();
  assert.match(snippet, /\?fig=planner&amp;tp=2&amp;quiz=0#planner"/);
  const embedded = await open(app.browser, snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&'));
  await ready(embedded.page);
  assert.equal(await embedded.page.locator('.figure__try').count(), 0);
  assert.deepEqual(await readouts(embedded.page), await readouts(page));
  assert.deepEqual([...errors, ...embedded.errors], []);
  await Promise.all([close(), embedded.close()]);
});

test('every figure: a non-default address, its share link and its embed code all show the same readouts', async () => {
  const queries = {
    why: 'tokens=750B&model=llama3-70b&bytes=18',
    dp: 'gpus=16&link=nvlink&units=gib',
    zero: 'gpus=32&stage=2&bytes=20',
    tp: 'tp=2&link=network&theme=dark',
    pp: 'pp=6&micro=12&schedule=1f1b',
    '3d': 'tp=4&pp=8&dp=16&zero=3&bytes=18',
    planner: 'params=175B&gpus=1024&stage=1&tp=8&pp=8&recompute=selective',
    bubble: 'pp=8&micro=12&schedule=interleaved',
    // The lab's measured readouts are timings; its prediction is what a link must carry.
    checkpoint: 'layers=16&every=4',
  };
  const picked = (all, figure) => (figure === 'checkpoint' ? { 'activation-memory': all['activation-memory'] } : all);
  for (const figure of FIGURES) {
    const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=${figure}&${queries[figure]}`);
    await ready(page);
    const before = picked(await readouts(page), figure);
    await openShare(page);
    const [link, snippet] = await page.locator('.share__text').evaluateAll((fields) => fields.map((f) => f.value));
    for (const pair of queries[figure].split('&')) {
      assert.ok(link.includes(pair) && snippet.includes(pair), `${figure}: ${pair} is in the link and the snippet`);
    }
    const shared = await open(app.browser, link);
    await ready(shared.page);
    assert.deepEqual(picked(await readouts(shared.page, `[id="${figure}"]`), figure), before, `${figure}: the share link`);
    const embedded = await open(app.browser, snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&'));
    await ready(embedded.page);
    assert.deepEqual(picked(await readouts(embedded.page), figure), before, `${figure}: the embed code`);
    assert.deepEqual([...errors, ...shared.errors, ...embedded.errors], [], figure);
    await Promise.all([close(), shared.close(), embedded.close()]);
  }
});

test('settings: GiB readouts keep their bytes, 18 bytes a parameter reaches every figure, a theme is fixed', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=why&units=gib&bytes=18&theme=dark`);
  await ready(page);
  const found = await readouts(page);
  // Llama 2 7B: 18 x 6.74e9 bytes = 121.32 GB = 113.0 GiB.
  assert.equal(found['training-state'].value, 18 * 6.74e9);
  assert.equal(found['training-state'].text, '113.0 GiB');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(background, 'rgb(19, 20, 24)');
  await close();
  // On the full page the convention is set once for every figure.
  const full = await open(app.browser, app.server.base);
  await readyAll(full.page);
  await full.page.locator('.settings__summary').click();
  await full.page.locator('label[for="settings-bytes-20"]').click();
  const after = await readouts(full.page);
  assert.equal(after['training-state'].value, 20 * 6.74e9);
  // dp all-reduces the fp16 gradients as written (Megatron-LM's grad_reduce_in_fp32 is false by default): 2 bytes a parameter.
  assert.equal((await readouts(full.page, '#dp'))['gradient-size'].value, 2 * 6.74e9);
  await urlMatching(full.page, /bytes=20/);
  await full.page.locator('label[for="settings-units-gib"]').click();
  assert.match((await readouts(full.page, '#zero'))['state-per-gpu'].text, / GiB$/);
  assert.deepEqual([...errors, ...full.errors], []);
  await full.close();
});

test('each figure saves as a plain SVG (no HTML, no style sheet) that holds its labels and values as SVG text, and as a PNG of the stated size', async () => {
  const words = (text) => text.replace(/\s+/g, ' ').trim();
  for (const figure of FIGURES) {
    const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=${figure}`);
    await ready(page);
    await labDone(page);
    await openShare(page);
    const shown = (selector) => page.$$eval(selector, (els) => els.filter((el) => !el.closest('.figure__try')).map((el) => el.textContent));
    const labels = await shown('.readout__label');
    const values = await shown('.readout__value');
    const diagrams = await page.$$eval('.figure svg', (els) => els.filter((el) => !el.closest('.figure__controls, .figure__try, .share')).length);
    const controls = await page.$$eval('.figure__controls .control__label', (els) => els.length);
    const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save as SVG' }).click()]);
    assert.equal(svgDownload.suggestedFilename(), `parallax-${figure}.svg`);
    const svg = await readFile(await svgDownload.path(), 'utf8');
    const blank = await app.browser.newPage();
    const parsed = await blank.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        root: doc.documentElement.localName,
        // What slide and vector tools cannot read (issue 37): HTML in a foreignObject, or a style sheet.
        foreign: doc.querySelectorAll('foreignObject, style').length,
        html: doc.getElementsByTagNameNS('http://www.w3.org/1999/xhtml', '*').length,
        texts: [...doc.querySelectorAll('text')].map((el) => el.textContent),
        nested: doc.querySelectorAll('svg svg').length,
        controls: doc.querySelectorAll('input, select').length,
        width: Number(doc.documentElement.getAttribute('width')),
        images: [...doc.querySelectorAll('image')].map((el) => Number(el.getAttribute('x')) + Number(el.getAttribute('width'))),
      };
    }, svg);
    await blank.close();
    assert.equal(parsed.error, null, figure);
    assert.equal(parsed.root, 'svg');
    assert.equal(parsed.foreign, 0, `${figure}: no foreignObject or style sheet`);
    assert.equal(parsed.html, 0, `${figure}: no HTML element`);
    // A label or value may wrap, one <text> a line: read the lines in order.
    const text = words(parsed.texts.join(' '));
    for (const label of labels) assert.ok(text.includes(words(label)), `${figure}: the SVG's text holds "${label}"`);
    for (const value of values) assert.ok(text.includes(words(value)), `${figure}: the SVG's text holds the value "${value}"`);
    assert.ok(!text.includes('Share or embed'), `${figure}: the share panel is left out`);
    // A chart is as wide as its canvas, inside the drawing (a newcomer found every chart cut off at the right).
    for (const right of parsed.images) assert.ok(right <= parsed.width, `${figure}: a chart ends at ${right}, past ${parsed.width}`);
    // Each diagram the page draws in SVG comes along as SVG, with its shapes.
    assert.equal(parsed.nested, diagrams, `${figure}: its ${diagrams} inline diagrams`);
    // An image of the figure, not of its controls (a newcomer's pass found sliders in the PNG).
    assert.ok(controls > 0, figure);
    assert.equal(parsed.controls, 0, `${figure}: no control in the SVG`);
    assert.ok(!text.includes(await page.locator('.figure__controls .control__label').first().textContent()), `${figure}: no control's label`);
    const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save as PNG' }).click()]);
    assert.equal(pngDownload.suggestedFilename(), `parallax-${figure}.png`);
    await page.waitForFunction(() => /^Saved parallax-.*\.png/.test(document.querySelector('.share__files .share__status').textContent));
    const [, width, height] = (await page.locator('.share__files .share__status').textContent()).match(/(\d[\d,]*) × (\d[\d,]*) px/);
    const png = await readFile(await pngDownload.path());
    // The PNG header's IHDR chunk holds the width and height.
    assert.equal(png.toString('latin1', 1, 4), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [Number(width.replace(',', '')), Number(height.replace(',', ''))], figure);
    const decoded = await page.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      return [image.naturalWidth, image.naturalHeight];
    }, png.toString('base64'));
    assert.deepEqual(decoded, [png.readUInt32BE(16), png.readUInt32BE(20)]);
    assert.deepEqual(errors, [], figure);
    await close();
  }
  // On a phone what scrolls sideways (the 3D grid's last stage) widens the drawing, not cut off; the address says how it was set.
  const phone = await open(app.browser, `${app.server.base}?fig=3d`, { viewport: { width: 360, height: 800 } });
  await ready(phone.page);
  await openShare(phone.page);
  const [download] = await Promise.all([phone.page.waitForEvent('download'), phone.page.getByRole('button', { name: 'Save as SVG' }).click()]);
  const small = await readFile(await download.path(), 'utf8');
  // The default 4 stages of Llama 2 7B's 32 layers: the last holds layers 24 to 31, and scrolls out of a phone's view.
  const lastStage = 'stage 3, L24–31';
  const header = await phone.page.locator('.fig-3d__grid thead th').last();
  assert.equal(await header.textContent(), lastStage);
  assert.ok(!(await header.isVisible()) || (await header.boundingBox()).x > 360, 'the last stage is off a phone\'s screen');
  assert.ok(words(small).includes(lastStage), `the phone's SVG holds "${lastStage}"`);
  // ... and its cells, each a button on the page (DP 0 on stage 3 is node 24: 8 GPUs a node, Megatron-LM's order).
  assert.match(small, />node 24</, 'the grid\'s cells are drawn');
  assert.ok(small.includes(`${app.server.base.replace(/&/g, '&amp;')}?fig=3d`), 'the SVG names the address it was drawn from');
  assert.deepEqual(phone.errors, []);
  await phone.close();
});
