// Shared set-up for the end-to-end tests: a static server for dist/ on
// loopback (under a sub-path, as a course site would host it), and Debian's
// Chromium driven by playwright-core. Nothing here downloads a browser.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

// The release build under test: dist/, or another build's folder (PARALLAX_DIST).
const DIST = process.env.PARALLAX_DIST ?? fileURLToPath(new URL('../../dist/', import.meta.url));

/** The sub-path dist/ is served from, to prove asset URLs are relative. */
export const PREFIX = '/courses/parallax/';

/**
 * Every figure's slug and example query, in the page's order: read from the
 * embed page, which is generated from the figure registry (tests/docs.rs),
 * so a new figure joins every test without a line here.
 */
const EMBED_PAGE = await readFile(join(DIST, 'embed.html'), 'utf8');
export const EXAMPLES = Object.fromEntries(
  [...EMBED_PAGE.matchAll(/data-figure="([^"]+)" data-example="([^"]+)"/g)].map(([, slug, example]) => [slug, example.replaceAll('&amp;', '&')]),
);

/** Each figure's own URL keys (not the shared ones), from the embed page. */
export const OWN_KEYS = Object.fromEntries(
  EMBED_PAGE.split('<section').slice(1).map((section) => [
    section.match(/data-figure="([^"]+)"/)[1],
    [...section.matchAll(/<li><code>([^<]+)<\/code>: ([^\n]*)/g)].filter(([, , rest]) => !rest.includes('a shared key')).map(([, key]) => key),
  ]),
);

/** Every figure's slug, in the page's order. */
export const FIGURES = Object.keys(EXAMPLES);

/**
 * The numbers the source documents print (tests/seeds.tsv, the one table of
 * them): { figure, query, readout, text, value, within, source } each.
 */
export const SEEDS = (await readFile(fileURLToPath(new URL('../seeds.tsv', import.meta.url)), 'utf8'))
  .split('\n')
  .filter((line) => line.trim() && !line.startsWith('#'))
  .map((line) => {
    const [figure, query, readout, text, value, within, source] = line.split('\t');
    return { figure, query, readout, text, value: value ? Number(value) : null, within: Number(within || 0), source };
  });

/** A page outside dist/, for embedding tests. */
export const HOST_PAGE = '/course-host/';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves `dir` (dist/ by default) under PREFIX on 127.0.0.1; records every request path. */
export async function serveDist(dir = DIST) {
  const requests = [];
  // Long enough for the hostile-URL tests' 100 KB query values.
  const server = createServer({ maxHeaderSize: 256 * 1024 }, async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
    requests.push(path);
    if (path === HOST_PAGE) {
      // A bare page that stands in for a course page embedding a figure.
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!DOCTYPE html><html><body></body></html>');
      return;
    }
    if (!path.startsWith(PREFIX)) {
      response.writeHead(404).end();
      return;
    }
    const relative = normalize(path.slice(PREFIX.length) || 'index.html');
    if (relative.startsWith('..')) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(join(dir, relative));
      response.writeHead(200, { 'content-type': TYPES[extname(relative)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    base: origin + PREFIX,
    origin,
    // The same server under another name: another origin, as a course site would be.
    hostPage: `http://localhost:${server.address().port}${HOST_PAGE}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Serves dist/ and starts Chromium before a test file's tests, and stops
 * both after them. Returns `{ server, browser }`, filled in by `before`.
 */
export function useApp() {
  const app = {};
  before(async () => {
    app.server = await serveDist();
    app.browser = await launch();
  });
  after(async () => {
    await app.browser?.close();
    await app.server?.close();
  });
  return app;
}

/** Starts Debian's Chromium headless, with `extraArgs` after the usual flags. */
export async function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** Opens a page and collects console errors and uncaught exceptions. */
export async function open(browser, url, options = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(url);
  return { page, errors, close: () => context.close() };
}

/**
 * On the course host page (`server.hostPage`), puts `src` in an iframe
 * `height` px tall that takes every height it posts, as src/embed.js does,
 * `above` px down the page; the messages it posts gather, in order, in the
 * host's `window.reports`.
 */
export async function frameOnHost(page, server, src, height, above = 0) {
  await page.goto(server.hostPage);
  await page.evaluate(
    ([src, height, above]) => {
      document.body.innerHTML = `<div style="height: ${above}px"></div>`;
      window.reports = [];
      const frame = document.createElement('iframe');
      frame.style.cssText = `width: 100%; height: ${height}px; border: 0`;
      frame.src = src;
      addEventListener('message', (event) => {
        if (event.data?.type !== 'parallax:resize') return;
        window.reports.push(event.data);
        frame.style.height = `${event.data.height}px`;
      });
      document.body.append(frame);
    },
    [src, height, above],
  );
}

/** Opens the (first) "Share or embed" panel and waits for its link and snippet. */
export async function openShare(page) {
  await page.locator('.share__summary').first().click();
  await page.locator('.share__text').nth(1).waitFor();
}

/**
 * Opens every closed "Assumptions" disclosure in `scope` (a figure's model,
 * GPU, share of peak and FLOP count), as a reader clicks its summary, so
 * that its controls can be seen and used.
 */
export async function openAssumptions(page, scope = 'body') {
  const closed = page.locator(`${scope} details.assumptions:not([open]) > summary`);
  while (await closed.count()) {
    await closed.first().scrollIntoViewIfNeeded();
    await closed.first().click();
  }
}

/** Every readout on the page: id -> { value, text }. */
export async function readouts(page, scope = 'body') {
  return page.$$eval(`${scope} [data-readout]`, (elements) =>
    Object.fromEntries(
      elements.map((element) => [
        element.dataset.readout,
        {
          value: Number(element.dataset.value),
          text: element.querySelector('.readout__value')?.textContent ?? '',
        },
      ]),
    ),
  );
}

/**
 * Waits until the app has started and has built every figure near the
 * viewport (within the 1,200 px the page builds ahead, src/page.rs): the
 * page's own readouts, there before the app runs, do not count.
 */
export async function ready(page) {
  await page.waitForFunction(() => document.documentElement.dataset.app === 'started'
    && [...document.querySelectorAll('.figure__live--waiting')].every((place) => {
      const box = place.getBoundingClientRect();
      return box.bottom < -1200 || box.top > innerHeight + 1200;
    }));
}

/**
 * On the full page, builds every figure as a reader scrolling through would
 * (each is built when it nears the viewport), then returns to the top.
 */
export async function readyAll(page) {
  await ready(page);
  const sections = page.locator('section.figure[id]');
  for (let i = 0; i < (await sections.count()); i += 1) {
    await sections.nth(i).scrollIntoViewIfNeeded();
    // Its panel's first readout (a question's answer before it may be hidden).
    await sections.nth(i).locator('.figure__body .figure__readouts [data-readout]').first().waitFor();
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * Waits until the checkpointing lab in `scope` (if there is one) has finished
 * its runs. The lab runs only while it is within a screen of the viewport,
 * as a reader looking at it would have it, so it is scrolled into view first.
 */
export async function labDone(page, scope = 'body', timeout = 90_000) {
  const status = page.locator(`${scope} .fig-lab__status`);
  if (!(await status.count())) return;
  await status.scrollIntoViewIfNeeded();
  await page.waitForFunction((selector) => /^Done/.test(document.querySelector(selector).textContent), `${scope} .fig-lab__status`, { timeout });
}

/** Drags a slider's thumb with the mouse to `fraction` (0..1) of its track. */
export async function dragSlider(page, param, fraction, scope = 'body') {
  const slider = page.locator(`${scope} input[type=range][data-param="${param}"]`);
  const box = await slider.boundingBox();
  const [min, max, value] = await slider.evaluate((el) => [Number(el.min), Number(el.max), Number(el.value)]);
  const y = box.y + box.height / 2;
  const at = (f) => box.x + 8 + f * (box.width - 16);
  await page.mouse.move(at((value - min) / (max - min)), y);
  await page.mouse.down();
  await page.mouse.move(at(fraction), y, { steps: 6 });
  await page.mouse.up();
  return Number(await slider.inputValue());
}

/** Focuses a control and presses `key` `times` times. */
export async function press(page, selector, key, times = 1) {
  await page.locator(selector).first().focus();
  for (let i = 0; i < times; i += 1) await page.keyboard.press(key);
}

/**
 * Waits until the page's URL matches `pattern` (the app rewrites its URL
 * at most every 100 ms, from a timer) and returns it; fails after `timeout` ms.
 */
/**
 * Waits until nothing on the page is `aria-busy`: the launch worker has
 * answered the planner's "Run it with" (its texts are written in the
 * worker, after the plan changes) and any paste it was reading.
 */
export async function written(page) {
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
}

export async function urlMatching(page, pattern, timeout = 3000) {
  const deadline = Date.now() + timeout;
  while (!pattern.test(page.url()) && Date.now() < deadline) await page.waitForTimeout(25);
  assert.match(page.url(), pattern);
  return page.url();
}

/** The seed texts of `figure` at `query` (its defaults when empty): readout id -> text. */
export function seedTexts(figure, query = '') {
  return Object.fromEntries(SEEDS.filter((s) => s.figure === figure && s.query === query && s.text).map((s) => [s.readout, s.text]));
}

/** Checks that every readout text equals the expected one. */
export function expectTexts(assert, found, expected, context = '') {
  for (const [id, text] of Object.entries(expected)) {
    assert.equal(found[id]?.text, text, `${context} readout ${id}`);
  }
}
