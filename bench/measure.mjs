// What the benchmark measures, shared by the A/B benchmark (bench/run.mjs)
// and the test command's tripwires (tests/e2e/tripwire.test.mjs, soak):
// transfer sizes, start-up, input-to-DOM latency per figure, frames during a
// real drag, and memory over many changes. Every time is in milliseconds.
import { readFile } from 'node:fs/promises';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIGURES, PREFIX, labDone, openAssumptions, ready, readyAll } from '../tests/e2e/harness.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * The targets an absolute figure from this machine is printed beside (issue
 * 6's, with issue 29's for a step at 4x CPU). They are not judged against
 * across days: the same build times 2-3x apart from one day to the next
 * here. `bash bench/run` judges a change by its ratio to the build before,
 * measured in the same run; bytes do not vary with load, and the test
 * command holds them (bench/known-over.mjs).
 */
export const TARGETS = {
  /** Bytes, brotli -11, every file an entry point loads. */
  transferBrotli: 200_000,
  /** Navigation to the first figure's readouts present and a control answering (median). */
  startup: 400,
  /** A slider step at 4x CPU, input event to DOM updated: half a frame typically, two at worst. */
  sweep: { 4: { p50: 8, p95: 33 } },
  /** The longest long animation frame while dragging a slider at 4x CPU. */
  dragLongFrame: 50,
  /** Memory after 10,000 changes over memory after the first 1,000 (`MEMORY_WARM_UP`), minus one. */
  memoryGrowth: 0.1,
  /** The planner's layout search, from the click to its results on the page (issue 12). */
  search: 100,
  /** Lighthouse 12.2.3 mobile: a figure's largest paint, the full page's score (issues 13 and 29). */
  lighthouse: { figureLcp: 1500, fullPagePerformance: 95, tbt: 200, cls: 0 },
};

/**
 * The pages whose controls are swept: every figure at its defaults, plus
 * the pipeline at 8 stages and 64 micro-batches and the 3D grid at its largest.
 */
export const SWEEP_PAGES = FIGURES.map((figure) => ({ name: figure, query: `fig=${figure}` })).concat([
  { name: 'pp 8x64', query: 'fig=pp&pp=8&micro=64', only: ['schedule', 'chunks'] },
  { name: '3d largest', query: 'fig=3d&tp=8&pp=16&dp=64', only: ['dp', 'zero'] },
]);

/** The pages whose sliders are dragged: every figure (the extra sweep pages only narrow its toggles). */
export const DRAG_PAGES = SWEEP_PAGES.filter((page) => !page.only);

/** The p-th percentile of the finite values (a run that could not read one gives NaN). */
export function percentile(values, p) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const median = (values) => percentile(values, 50);

const round = (value, digits = 2) => Number(value.toFixed(digits));

/** Raw, gzip -9 and brotli -11 bytes of every file a load of `url` fetched, read from `dir`. */
export async function transferSizes(browser, url, dir = DIST) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const paths = [];
  page.on('request', (request) => paths.push(new URL(request.url()).pathname));
  await page.goto(url);
  await ready(page);
  await context.close();
  const files = [];
  for (const path of paths) {
    const name = path.slice(PREFIX.length) || 'index.html';
    const body = await readFile(join(dir, name));
    files.push({
      file: name,
      raw: body.length,
      gzip: gzipSync(body, { level: 9 }).length,
      brotli: brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }).length,
    });
  }
  const total = { file: 'total', raw: 0, gzip: 0, brotli: 0 };
  for (const f of files) for (const key of ['raw', 'gzip', 'brotli']) total[key] += f[key];
  return [...files.sort((a, b) => b.brotli - a.brotli), total];
}

/**
 * Runs in the page before anything else: as soon as a readout and a slider
 * exist, moves the slider one step and records when a readout has changed.
 */
function watchStartup() {
  window.__startup = new Promise((resolve) => {
    const snapshot = () => [...document.querySelectorAll('[data-readout]')].map((el) => el.dataset.value).join();
    const observer = new MutationObserver(() => {
      const slider = document.querySelector('input[type=range]');
      if (!slider || !document.querySelector('[data-readout]')) return;
      observer.disconnect();
      const readoutsAt = performance.now();
      const before = snapshot();
      const step = Number(slider.step) || 1;
      slider.value = String(Number(slider.value) + (Number(slider.value) + step <= Number(slider.max) ? step : -step));
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      const changed = new MutationObserver(() => {
        if (snapshot() === before) return;
        changed.disconnect();
        resolve({ readouts: readoutsAt, interactive: performance.now() });
      });
      changed.observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
    });
    observer.observe(document, { subtree: true, childList: true });
  });
}

/** Cold loads of the full page: time to readouts, to interactive, and first contentful paint. */
export async function startup(browser, base, loads) {
  const runs = [];
  for (let i = 0; i < loads; i += 1) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(watchStartup);
    await page.goto(base);
    const { readouts, interactive } = await page.evaluate(() => window.__startup);
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
    runs.push({ readouts, interactive, fcp });
    await context.close();
  }
  return {
    loads,
    readouts: round(median(runs.map((r) => r.readouts)), 1),
    interactive: round(median(runs.map((r) => r.interactive)), 1),
    fcp: round(median(runs.map((r) => r.fcp)), 1),
  };
}

/**
 * Runs in the page before the app: `__nextTask()` resolves in the next task.
 * Leptos runs effects as microtasks, so waiting for it after a change lets
 * that change's work finish, rather than only the last change of a batch.
 */
function installNextTask() {
  window.__nextTask = () => new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = resolve;
    channel.port2.postMessage(0);
  });
}

/**
 * Runs in the page (after `installNextTask`): sets each of the page's controls through its values,
 * `steps` changes a control, one a frame, timing each from the input event
 * until its work (Leptos runs effects as microtasks) has finished.
 */
async function sweepControls([steps, only]) {
  const nextTask = window.__nextTask;
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  let mutations = 0;
  const observer = new MutationObserver((records) => {
    mutations += records.length;
  });
  observer.observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
  const controls = [];
  for (const el of document.querySelectorAll('input[type=range][data-param], input[type=radio][data-param]')) {
    const param = el.dataset.param;
    if (only && !only.includes(param)) continue;
    if (el.type === 'range') {
      const [min, max, step] = [Number(el.min), Number(el.max), Number(el.step) || 1];
      const values = [];
      for (let v = min; v <= max; v += step) values.push(v);
      controls.push({ param, set: (i) => {
        // Up and down the range, so every value is met from both sides.
        const n = values.length;
        const k = i % (2 * n - 2 || 1);
        el.value = String(values[k < n ? k : 2 * n - 2 - k]);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      } });
    } else if (!controls.some((c) => c.param === param)) {
      const group = [...document.querySelectorAll(`input[type=radio][data-param="${param}"]`)];
      controls.push({ param, set: (i) => {
        const radio = group[(i + 1) % group.length];
        radio.checked = true;
        radio.dispatchEvent(new Event('change', { bubbles: true }));
      } });
    }
  }
  const results = [];
  // Untimed changes first, so the engine has compiled the paths the sweep takes.
  const WARM_UP = 5;
  for (const control of controls) {
    for (let i = 0; i < WARM_UP; i += 1) {
      control.set(i);
      await nextTask();
    }
    const times = [];
    let unchanged = 0;
    for (let i = WARM_UP; i < WARM_UP + steps; i += 1) {
      // Start just after a frame has been drawn, outside the frame's own work.
      await frame();
      await nextTask();
      mutations = observer.takeRecords().length;
      const before = mutations;
      const started = performance.now();
      control.set(i);
      await nextTask();
      times.push(performance.now() - started);
      if (mutations + observer.takeRecords().length === before) unchanged += 1;
    }
    results.push({ param: control.param, times, unchanged });
  }
  observer.disconnect();
  return results;
}

/**
 * Runs in the page (after `installNextTask`): moves every slider of the page
 * (those of `only`, when given) through its range and back, one step a
 * frame, and counts the DOM nodes each step touches: an attribute or a text
 * changed is one node; an element added or removed counts with every element
 * and text inside it. Machine speed does not change the count.
 */
async function countMutations(only) {
  const nextTask = window.__nextTask;
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  // Elements and texts: a comment is the framework's marker of where a
  // list or a branch goes, never drawn or laid out (a list's rows each keep
  // one, src/widgets/rows.rs), so it is not counted.
  const subtree = (node) => {
    if (node.nodeType === Node.COMMENT_NODE) return 0;
    let count = 0;
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.currentNode; n; n = walker.nextNode()) count += 1;
    return count;
  };
  const touched = (records) => records.reduce((sum, r) => sum + (r.type === 'childList'
    ? [...r.addedNodes, ...r.removedNodes].reduce((n, node) => n + subtree(node), 0)
    : 1), 0);
  let records = [];
  const observer = new MutationObserver((delivered) => records.push(...delivered));
  observer.observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
  const take = () => {
    const all = [...records, ...observer.takeRecords()];
    records = [];
    return all;
  };
  const counts = [];
  for (const el of document.querySelectorAll('input[type=range][data-param]')) {
    const param = el.dataset.param;
    if (only && !only.includes(param)) continue;
    const [min, max, step] = [Number(el.min), Number(el.max), Number(el.step) || 1];
    // At most 40 positions a way, each a whole number of steps from the minimum.
    const positions = Math.min(40, Math.round((max - min) / step));
    const up = [...new Set(Array.from({ length: positions + 1 }, (_, i) => min + step * Math.round(((max - min) / step) * (i / positions))))];
    for (const value of [...up, ...up.slice(0, -1).reverse()]) {
      await frame();
      await nextTask();
      take();
      el.value = String(value);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      await nextTask();
      await frame();
      await nextTask();
      counts.push({ param, value, nodes: touched(take()) });
    }
  }
  observer.disconnect();
  return counts;
}

/**
 * DOM nodes touched by each step of a slider, every slider of every sweep
 * page: `{ page, steps, median, max, worst }` (`worst`: the slider and value
 * of the largest step). Reduced motion is asked for, so the ring does not
 * animate between steps.
 */
export async function mutationCounts(browser, base, pages = SWEEP_PAGES) {
  const rows = [];
  for (const { name, query, only } of pages) {
    const context = await browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(installNextTask);
    await page.goto(`${base}?${query}`);
    await ready(page);
    await labDone(page);
    // A reader opens a figure's assumptions to move them.
    await openAssumptions(page);
    const counts = await page.evaluate(countMutations, only ?? null);
    await context.close();
    if (!counts.length) continue;
    const largest = counts.reduce((a, b) => (b.nodes > a.nodes ? b : a));
    rows.push({
      page: name,
      steps: counts.length,
      median: median(counts.map((c) => c.nodes)),
      max: largest.nodes,
      worst: `${largest.param}=${largest.value}`,
    });
  }
  return rows;
}

async function throttled(page, rate) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return cdp;
}

/** Input-to-DOM latency for every control of every sweep page, at `rate`x CPU throttling. */
export async function responsiveness(browser, base, { rate, steps, pages = SWEEP_PAGES }) {
  const rows = [];
  for (const { name, query, only } of pages) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(installNextTask);
    await page.goto(`${base}?${query}`);
    await ready(page);
    await labDone(page);
    // A reader opens a figure's assumptions to move them.
    await openAssumptions(page);
    await throttled(page, rate);
    const results = await page.evaluate(sweepControls, [steps, only ?? null]);
    const times = results.flatMap((r) => r.times);
    rows.push({
      page: name,
      rate,
      controls: results.map((r) => r.param),
      inputs: times.length,
      unchanged: results.reduce((n, r) => n + r.unchanged, 0),
      median: round(median(times)),
      p95: round(percentile(times, 95)),
      max: round(Math.max(...times)),
      worst: results.map((r) => [r.param, percentile(r.times, 95)]).sort((a, b) => b[1] - a[1])[0]?.[0],
      perControl: results.map((r) => [r.param, round(median(r.times)), round(percentile(r.times, 95))]),
    });
    await context.close();
  }
  return rows;
}

/** Runs in the page: records animation-frame intervals and long animation frames until stopped. */
function recordFrames() {
  const intervals = [];
  const longFrames = [];
  let last = null;
  let running = true;
  const tick = (now) => {
    if (last !== null) intervals.push(now - last);
    last = now;
    if (running) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longFrames.push(entry.duration);
  });
  observer.observe({ type: 'long-animation-frame' });
  window.__stopFrames = () => {
    running = false;
    observer.disconnect();
    return { intervals, longFrames };
  };
}

/** A real mouse drag across every slider of every figure, at `rate`x throttling. */
export async function drags(browser, base, { rate, moves, pages = DRAG_PAGES }) {
  const rows = [];
  for (const { name, query } of pages) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}?${query}`);
    await ready(page);
    await labDone(page);
    // A reader opens a figure's assumptions to move them.
    await openAssumptions(page);
    await throttled(page, rate);
    const sliders = page.locator('input[type=range]');
    const count = await sliders.count();
    if (!count) {
      await context.close();
      continue;
    }
    await page.evaluate(recordFrames);
    for (let i = 0; i < count; i += 1) {
      const slider = sliders.nth(i);
      await slider.scrollIntoViewIfNeeded();
      const box = await slider.boundingBox();
      const y = box.y + box.height / 2;
      await page.mouse.move(box.x + 2, y);
      await page.mouse.down();
      for (let k = 1; k <= moves; k += 1) {
        await page.mouse.move(box.x + 2 + ((box.width - 4) * k) / moves, y);
      }
      await page.mouse.up();
    }
    const { intervals, longFrames } = await page.evaluate(() => window.__stopFrames());
    rows.push({
      page: name,
      rate,
      sliders: count,
      frames: intervals.length,
      frameMedian: round(median(intervals), 1),
      frameMax: round(Math.max(...intervals), 1),
      frameP95: round(percentile(intervals, 95), 1),
      over20: intervals.filter((t) => t > 20).length,
      longFrameMax: round(Math.max(0, ...longFrames), 1),
    });
    await context.close();
  }
  return rows;
}

/**
 * Runs in the page (after `installNextTask`): `count` random changes to the figures' controls (the
 * lab's sliders restart its experiment and are left out), from `seed`;
 * returns how many malformed readouts it saw along the way.
 */
async function randomChanges([count, seed]) {
  let state = seed;
  // The generator's high bits pick: the low bits of a power-of-two LCG
  // repeat with short periods, so `state % n` for an even n picked some
  // controls twice as often as others (with 102 controls, "Layout search:
  // On" 210 times in 10,000 and others never), and the walk's mix moved
  // with the number of controls on the page.
  const random = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
  const controls = [...document.querySelectorAll('input[data-param], select[data-param]')]
    .filter((el) => !el.closest('#checkpoint') && el.type !== 'text');
  const nextTask = window.__nextTask;
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
    await nextTask();
    if (i % 250 === 249) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      for (const el of document.querySelectorAll('[data-readout]')) {
        const text = el.querySelector('.readout__value')?.textContent ?? '';
        if (!Number.isFinite(Number(el.dataset.value)) || !text || /NaN|Infinity|undefined/.test(text)) malformed += 1;
      }
    }
  }
  return malformed;
}

/** Chromium flags that let a page collect garbage and read its heap exactly. */
export const MEMORY_FLAGS = ['--js-flags=--expose-gc', '--enable-precise-memory-info'];

/** Keeps the app's wasm memory reachable, for reading its size (runs before the app). */
function exposeWasmMemory() {
  const keep = (result) => {
    const instance = result.instance ?? result;
    window.__wasmMemory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
    return result;
  };
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const original = WebAssembly[name];
    WebAssembly[name] = (...args) => original.apply(WebAssembly, args).then(keep);
  }
}

async function memoryNow(page) {
  return page.evaluate(() => {
    window.gc?.();
    return { jsHeap: performance.memory.usedJSHeapSize, wasm: window.__wasmMemory?.buffer.byteLength ?? NaN };
  });
}

/**
 * Changes before memory is first compared. wasm memory only grows: it is
 * the allocator's high-water mark, which the first visits to the largest
 * views raise (the pipeline timelines at 64 micro-batches and 16 stages,
 * which the seeded walk first reaches between its changes 113 and 400),
 * and a start after 100 counted those as growth, moving with how many
 * controls the page has. A leak
 * grows with every change: the 3D grid's 1.3 KB a move of `pp`, found and
 * fixed before, would show as 12 MB over the remaining 9,000, near 80%.
 */
export const MEMORY_WARM_UP = 1_000;

/**
 * JS heap and wasm memory after load, after `MEMORY_WARM_UP` changes and after `total`
 * changes across every figure of the full page (needs MEMORY_FLAGS).
 */
export async function memory(browser, base, total = 10_000) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.addInitScript(exposeWasmMemory);
  await page.addInitScript(installNextTask);
  await page.goto(base);
  // Every figure built, as after a read through, so the changes reach them all.
  await readyAll(page);
  const loaded = await memoryNow(page);
  const started = Date.now();
  let malformed = await page.evaluate(randomChanges, [MEMORY_WARM_UP, 7]);
  const early = await memoryNow(page);
  malformed += await page.evaluate(randomChanges, [total - MEMORY_WARM_UP, 11]);
  const late = await memoryNow(page);
  const seconds = (Date.now() - started) / 1000;
  await context.close();
  return {
    changes: total,
    seconds: round(seconds, 1),
    malformed,
    errors,
    loaded,
    early,
    late,
    jsGrowth: round(late.jsHeap / early.jsHeap - 1, 3),
    wasmGrowth: round(late.wasm / early.wasm - 1, 3),
  };
}

/**
 * The planner's layout search for GPT-3 175B on `gpus` A100s: the time from
 * a click on "Layout search: On" to its results on the page, median of
 * `loads` fresh pages, with the layouts it tried.
 */
export async function searchTimes(browser, base, loads = 5) {
  const out = [];
  for (const [gpus, batch] of [[1024, 1536], [16384, 16384]]) {
    const times = [];
    let tried = 0;
    for (let i = 0; i < loads; i += 1) {
      const page = await browser.newPage();
      await page.goto(`${base}?fig=planner&model=gpt3-175b&gpu=a100-80gb&gpus=${gpus}&batch=${batch}&seq=2048`);
      await ready(page);
      const label = page.locator('fieldset[data-param="search"] label', { hasText: 'On' });
      await label.evaluate((el) => {
        el.addEventListener('click', () => { window.__searchStart = performance.now(); }, { capture: true, once: true });
      });
      await label.click();
      await page.waitForSelector('[data-readout="layouts-tried"]');
      times.push(await page.evaluate(() => performance.now() - window.__searchStart));
      tried = Number(await page.locator('[data-readout="layouts-tried"]').getAttribute('data-value'));
      await page.close();
    }
    out.push({ gpus, ms: round(median(times), 1), tried });
  }
  return out;
}
