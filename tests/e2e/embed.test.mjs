// Sharing and embedding: the share link reproduces a figure's state, the
// iframe snippet embeds it, an embedded figure reports its height and
// ignores messages from the page around it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, press, readouts, ready, useApp } from './harness.mjs';

const app = useApp();

test('the share link and the embed code reproduce the figure as the reader left it', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=zero`);
  await ready(page);
  await press(page, 'input[data-param="stage"][value="1"]', 'ArrowRight');
  await press(page, 'input[data-param="gpus"]', 'ArrowRight', 8);
  const before = await readouts(page);
  await page.locator('.share__summary').click();
  const [link, snippet] = await page.locator('.share__text').evaluateAll((fields) => fields.map((f) => f.value));
  assert.match(link, /\?step=zero&gpus=16&stage=2$/);
  assert.match(snippet, /^<iframe src="[^"]+\?fig=zero&amp;gpus=16&amp;stage=2" title="Parallax: ZeRO: sharding the training state" loading="lazy"/);
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
  await page.locator('.share__summary').click();
  await page.getByRole('button', { name: 'Copy embed code' }).click();
  assert.match(await page.locator('.share__status').nth(1).textContent(), /^Selected: press Ctrl\+C/);
  const selected = await page.evaluate(() => {
    const field = document.activeElement;
    return field.value.slice(field.selectionStart, field.selectionEnd);
  });
  assert.match(selected, /^<iframe src=".*fig=tp"/);
  assert.equal(await page.locator('.crash').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

for (const width of [360, 1000]) {
  test(`an embedded figure reports its content height to the page around it, at ${width} px`, async () => {
    const context = await app.browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await page.goto(app.server.hostPage);
    const report = await page.evaluate(
      ([src]) =>
        new Promise((resolve) => {
          document.body.innerHTML = '';
          const frame = document.createElement('iframe');
          frame.style.cssText = 'width: 100%; height: 300px; border: 0';
          frame.src = src;
          let last;
          window.addEventListener('message', (event) => {
            if (event.data?.type !== 'parallax:resize') return;
            last = event.data;
            frame.style.height = `${event.data.height}px`;
          });
          document.body.append(frame);
          setTimeout(() => resolve({ last, keys: last && Object.keys(last).sort() }), 4000);
        }),
      [`${app.server.base}?fig=dp`],
    );
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
