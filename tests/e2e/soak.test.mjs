// Soak: 10,000 random control changes across every figure on one page, with
// the readouts checked as it goes and the JavaScript heap compared early and late.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { ready, serveDist } from './harness.mjs';

let server;
let browser;
before(async () => {
  server = await serveDist();
  // --expose-gc lets the test collect garbage before each heap reading.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--js-flags=--expose-gc', '--enable-precise-memory-info'],
  });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Runs in the page: `count` random changes from `seed`; returns how many malformed readouts it saw. */
const randomChanges = async ([count, seed]) => {
  let state = seed;
  const random = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  // The lab's own sliders restart its experiment; they are exercised elsewhere.
  const controls = [...document.querySelectorAll('input[data-param], select[data-param]')]
    .filter((el) => !el.closest('#checkpoint') && el.type !== 'text');
  let malformed = 0;
  for (let i = 0; i < count; i += 1) {
    const control = controls[random(controls.length)];
    if (control.type === 'range') {
      const [min, max, step] = [Number(control.min), Number(control.max), Number(control.step) || 1];
      control.value = String(min + step * random(Math.floor((max - min) / step) + 1));
      control.dispatchEvent(new Event('input', { bubbles: true }));
    } else if (control.type === 'radio') {
      control.checked = true;
      control.dispatchEvent(new Event('change', { bubbles: true }));
    } else {
      control.selectedIndex = random(control.options.length);
      control.dispatchEvent(new Event('change', { bubbles: true }));
    }
    if (i % 250 === 249) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      for (const el of document.querySelectorAll('[data-readout]')) {
        const text = el.querySelector('.readout__value')?.textContent ?? '';
        if (!Number.isFinite(Number(el.dataset.value)) || !text || /NaN|Infinity|undefined/.test(text)) malformed += 1;
      }
    }
  }
  return malformed;
};

async function heap(page) {
  await page.evaluate(() => window.gc?.());
  return page.evaluate(() => performance.memory.usedJSHeapSize);
}

test('10,000 random control changes: readouts stay well formed, no error, heap bounded', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.goto(server.base);
  await ready(page);
  const started = Date.now();
  assert.equal(await page.evaluate(randomChanges, [100, 7]), 0);
  const early = await heap(page);
  assert.equal(await page.evaluate(randomChanges, [9900, 11]), 0);
  const late = await heap(page);
  console.log(`soak: 10,000 changes in ${Date.now() - started} ms; JS heap ${(early / 1e6).toFixed(1)} MB after 100, ${(late / 1e6).toFixed(1)} MB after 10,000`);
  assert.ok(late < early * 1.25, `heap grew from ${early} to ${late}`);
  assert.deepEqual(errors, []);
  await page.close();
});
