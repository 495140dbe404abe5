// A full walk through the app: every slider moved with the keyboard, every
// choice, button and answer box used once, on the full page (all figures,
// the lab and the exercises). Nothing may break, and every request the page
// makes must be for one of the app's own files.
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PREFIX, labDone, open, openAssumptions, readouts, ready, readyAll, useApp } from './harness.mjs';

const app = useApp();

/** Asserts every readout on the page is a finite number with a text. */
async function assertWellFormed(page, context) {
  for (const [id, { value, text }] of Object.entries(await readouts(page))) {
    assert.ok(Number.isFinite(value) && text && !/NaN|Infinity|undefined/.test(text), `${context}: ${id} = ${text}`);
  }
}

/** Moves every slider with Home, ArrowRight and End, checking each key's effect. */
async function walkSliders(page) {
  const sliders = page.locator('input[type=range]');
  const count = await sliders.count();
  for (let i = 0; i < count; i += 1) {
    const slider = sliders.nth(i);
    const [min, max, step, name] = await slider.evaluate((el) => [
      Number(el.min), Number(el.max), Number(el.step) || 1, el.labels?.[0]?.textContent.trim() || el.getAttribute('aria-label'),
    ]);
    await slider.focus();
    await page.keyboard.press('Home');
    assert.equal(Number(await slider.inputValue()), min, `${name}: Home`);
    await page.keyboard.press('ArrowRight');
    assert.equal(Number(await slider.inputValue()), Math.min(min + step, max), `${name}: ArrowRight`);
    await page.keyboard.press('End');
    assert.equal(Number(await slider.inputValue()), max, `${name}: End`);
    await page.keyboard.press('ArrowLeft');
    assert.equal(Number(await slider.inputValue()), Math.max(max - step, min), `${name}: ArrowLeft`);
    await assertWellFormed(page, name);
  }
  return count;
}

/** Picks every option of every radio group and select, then every button and answer box. */
async function walkChoicesAndButtons(page) {
  const radios = await page.locator('input[type=radio]').count();
  for (let i = 0; i < radios; i += 1) {
    // Radios are styled as segmented buttons: click the label the reader sees.
    await page.locator('input[type=radio]').nth(i).evaluate((el) => (el.labels?.[0] ?? el).click());
  }
  const selects = page.locator('select');
  const selectCount = await selects.count();
  for (let i = 0; i < selectCount; i += 1) {
    for (const value of await selects.nth(i).evaluate((el) => [...el.options].map((o) => o.value))) {
      await selects.nth(i).selectOption(value);
    }
  }
  const boxes = page.locator('input[type=text]');
  const boxCount = await boxes.count();
  for (let i = 0; i < boxCount; i += 1) {
    await boxes.nth(i).fill('1e3');
    await boxes.nth(i).press('Enter');
  }
  // Open every closed disclosure a reader can see (share panels, hints; a
  // worked solution shows only once its question has an answer).
  const summaries = page.locator('details:not([open]) > summary:visible');
  while (await summaries.count()) await summaries.first().click();
  // Counted again each time: "Compare" swaps a figure's body, and its
  // buttons with it. Every button a reader can see: a hidden tab's (the
  // launch tools' "Copy" behind another tab) is not one.
  const buttons = page.locator('button:visible');
  let clicked = 0;
  for (let i = 0; i < (await buttons.count()); i += 1) {
    await buttons.nth(i).click();
    clicked += 1;
  }
  return { radios, selects: selectCount, boxes: boxCount, buttons: clicked };
}

test('a full walk through every control: sliders move with the keyboard, nothing breaks, every request is for an own file', async () => {
  const ownFiles = new Set(await readdir(new URL('../../dist/', import.meta.url)));
  const { page, errors, close } = await open(app.browser, 'about:blank');
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective));
  });
  await page.goto(app.server.base);
  await readyAll(page);
  await openAssumptions(page);

  const sliders = await walkSliders(page);
  const others = await walkChoicesAndButtons(page);
  // The lab's runs finish in the background; let them, then look again.
  await labDone(page);
  await assertWellFormed(page, 'after the walk');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(errors, []);

  const stray = requests.filter((url) => {
    const { origin, pathname } = new URL(url);
    const file = pathname.slice(PREFIX.length) || 'index.html';
    return origin !== app.server.origin || !pathname.startsWith(PREFIX) || !ownFiles.has(file);
  });
  console.log(
    `full walk: ${sliders} sliders, ${others.radios} radio options, ${others.selects} selects, ` +
      `${others.boxes} answer boxes, ${others.buttons} buttons; ${requests.length} requests, ${stray.length} not for an own file`,
  );
  // Each file once: a page that refetches on every change wastes the reader's data
  // (a linked favicon was fetched again on every history.replaceState).
  assert.deepEqual(requests.filter((url, i) => requests.indexOf(url) !== i), [], 'no file fetched twice');
  assert.deepEqual(stray, []);
  await close();
});
