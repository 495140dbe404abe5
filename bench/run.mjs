// The benchmark (issue 25): two release builds, this one ("new") and an
// earlier one ("ref"), measured in one headless Chromium, interleaved. Each
// measure is taken of one build and then of the other, the order swapped
// each round, so that whatever else the machine is doing weighs on both
// alike. It prints every measure as new/ref, the median of the rounds'
// ratios with their range, beside both builds' absolute medians and the
// target, and fails on a regression: a ratio above 1.15 whose range
// excludes 1. `bash bench/run` builds both and calls it:
//
//   node bench/run.mjs --ref DIR [--ref-name NAME] [--rounds 3] [--steps 30] [--loads 5] [--skip lighthouse,drag]
//   node bench/run.mjs --from bench/results.json     (the tables again, no measuring)
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launch, serveDist } from '../tests/e2e/harness.mjs';
import { DRAG_PAGES, SWEEP_PAGES, TARGETS, drags, median, mutationCounts, responsiveness, searchTimes, startup, transferSizes } from './measure.mjs';
import { auditor, debuggingPort, serveCompressed } from './lighthouse.mjs';

const { values: options } = parseArgs({
  options: {
    ref: { type: 'string' },
    'ref-name': { type: 'string', default: 'ref' },
    rounds: { type: 'string', default: '3' },
    // The build measured against it: this checkout's dist/ unless given.
    new: { type: 'string' },
    steps: { type: 'string', default: '30' },
    loads: { type: 'string', default: '5' },
    // Kinds of measure left out: startup, sweep, drag, search, lighthouse, nodes.
    skip: { type: 'string', default: '' },
    // Only these sweep pages (names as printed, comma-separated): all unless given.
    pages: { type: 'string' },
    out: { type: 'string', default: 'bench/results.json' },
    // Print the tables of an earlier run's JSON again, without measuring.
    from: { type: 'string' },
  },
});
const log = (text) => process.stderr.write(`${text}\n`);
const skipped = new Set(options.skip.split(',').filter(Boolean));
const NEW_DIST = options.new ?? fileURLToPath(new URL('../dist/', import.meta.url));

/** A ratio at most this (new/ref, or ref/new where more is better) is no regression. */
const REGRESSION = 1.15;

/** The Lighthouse pages: the full page and the three figures issue 29 names. */
const LIGHTHOUSE_PAGES = [
  { name: 'full page', query: '' },
  { name: 'planner', query: '?fig=planner' },
  { name: 'why', query: '?fig=why' },
  { name: 'bubble', query: '?fig=bubble' },
];

/**
 * Every measure's samples by build, in the order first met:
 * name -> { kind, better: 'lower' | 'higher', target, ref: [], new: [] }.
 */
const measures = new Map();
function record(name, build, value, { kind, better = 'lower', target = null }) {
  if (!measures.has(name)) measures.set(name, { kind, better, target, ref: [], new: [] });
  measures.get(name)[build].push(value);
}

/** The figures a build has, read from its generated embed page. */
async function figuresOf(dir) {
  const page = await readFile(join(dir, 'embed.html'), 'utf8');
  return new Set([...page.matchAll(/data-figure="([^"]+)"/g)].map(([, slug]) => slug));
}

/** The figure a sweep page belongs to ('pp 8x64' is pp's). */
/** The figure a page shows alone (`?fig=`), or undefined for the full page, which every build has. */
const figureOf = (page) => /fig=([^&]+)/.exec(page.query)?.[1];

/** One round: every measure of both builds, one build and then the other. */
async function round(number, rounds, browser, builds, audit) {
  const order = number % 2 ? ['ref', 'new'] : ['new', 'ref'];
  const each = async (pages, measure) => {
    for (const page of pages) {
      for (const build of order) {
        const figure = figureOf(page);
        if (!figure || builds[build].figures.has(figure)) await measure(page, build);
      }
    }
  };
  const steps = Number(options.steps);
  const say = (what) => log(`[round ${number}/${rounds}] ${what}`);
  if (!skipped.has('startup')) {
    say(`start-up, ${options.loads} cold loads of each build`);
    for (const build of order) {
      const start = await startup(browser, builds[build].base, Number(options.loads));
      record('start-up: first input answered, ms', build, start.interactive, { kind: 'startup', target: TARGETS.startup });
      record('start-up: first contentful paint, ms', build, start.fcp, { kind: 'startup' });
    }
  }
  if (!skipped.has('sweep')) {
    for (const rate of [1, 4]) {
      say(`every control swept, ${steps} changes a control, at ${rate}x CPU`);
      const only = options.pages?.split(',');
      await each(SWEEP_PAGES.filter((page) => !only || only.includes(page.name)), async (page, build) => {
        const [row] = await responsiveness(browser, builds[build].base, { rate, steps, pages: [page] });
        const target = TARGETS.sweep[rate];
        record(`step p50 ms, ${page.name} at ${rate}x`, build, row.median, { kind: 'sweep', target: target?.p50 });
        record(`step p95 ms, ${page.name} at ${rate}x`, build, row.p95, { kind: 'sweep', target: target?.p95 });
      });
    }
  }
  if (!skipped.has('drag')) {
    say('every slider dragged with the mouse at 4x CPU');
    await each(DRAG_PAGES, async (page, build) => {
      const [row] = await drags(browser, builds[build].base, { rate: 4, moves: 40, pages: [page] });
      if (!row) return;
      record(`drag frame p95 ms, ${page.name} at 4x`, build, row.frameP95, { kind: 'drag' });
      record(`drag longest long frame ms, ${page.name} at 4x`, build, row.longFrameMax, { kind: 'drag', target: TARGETS.dragLongFrame });
    });
  }
  if (!skipped.has('search')) {
    say("the planner's layout search");
    for (const build of order) {
      for (const row of await searchTimes(browser, builds[build].base, 3)) {
        record(`search ms, ${row.gpus.toLocaleString('en')} GPUs`, build, row.ms, { kind: 'search', target: TARGETS.search });
      }
    }
  }
  if (!skipped.has('lighthouse')) {
    say('Lighthouse mobile, served with brotli');
    await each(LIGHTHOUSE_PAGES, async (page, build) => {
      const lh = await audit(`${builds[build].compressed.base}${page.query}`, 'mobile');
      const figure = page.query !== '';
      record(`Lighthouse LCP ms, ${page.name}`, build, lh.lcp, { kind: 'lighthouse', target: figure ? TARGETS.lighthouse.figureLcp : null });
      record(`Lighthouse TBT ms, ${page.name}`, build, lh.tbt, { kind: 'lighthouse', target: TARGETS.lighthouse.tbt });
      record(`Lighthouse performance, ${page.name}`, build, lh.performance, {
        kind: 'lighthouse', better: 'higher', target: figure ? null : TARGETS.lighthouse.fullPagePerformance,
      });
      record(`Lighthouse CLS, ${page.name}`, build, lh.cls, { kind: 'lighthouse', target: TARGETS.lighthouse.cls });
    });
  }
}

/**
 * A measure's verdict: the median of the rounds' ratios (new over ref, or
 * ref over new where more is better, so that above 1 is always worse) and
 * their range. A round where both builds measured 0 is a ratio of 1; where
 * only ref did, the ratio is unbounded, and judged so.
 */
function judge(m) {
  const ratios = m.ref.map((ref, i) => {
    const [worse, base] = m.better === 'higher' ? [ref, m.new[i]] : [m.new[i], ref];
    if (worse === base) return 1;
    return base === 0 ? Infinity : worse / base;
  }).filter((r) => !Number.isNaN(r));
  const ratio = median(ratios);
  const low = Math.min(...ratios);
  const high = Math.max(...ratios);
  return { ratio, low, high, regression: ratio > REGRESSION && low > 1 };
}

const fixed = (value) => (Number.isFinite(value) ? (Math.abs(value) >= 100 ? value.toFixed(0) : Number(value.toPrecision(3)).toString()) : String(value));
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** The report: bytes, then every timed measure as a ratio, then DOM nodes a step. */
function report(result) {
  const out = [`${result.refName} (ref) against this build (new): ${result.rounds} rounds, interleaved, on ${result.machine}, headless Chromium, loopback. ${result.date}.`, ''];
  if (result.transfer) {
    out.push('**Transfer** (brotli -11; each entry point loads every file listed)', '');
    out.push(table(['entry point', 'file', 'ref raw', 'ref brotli', 'new raw', 'new brotli'],
      result.transfer.flatMap(({ entry, ref, new: now }) => now.map((file, i) => [
        i ? '' : entry, file.file, ref[i] ? kb(ref[i].raw) : '', ref[i] ? kb(ref[i].brotli) : '', kb(file.raw), kb(file.brotli),
      ]))));
    out.push('');
  }
  const rows = Object.entries(result.measures).map(([name, m]) => {
    const v = judge(m);
    const target = m.target == null ? '' : `${m.better === 'higher' ? '≥' : '≤'} ${m.target}`;
    const met = m.target == null ? '' : (m.better === 'higher' ? median(m.new) >= m.target : median(m.new) <= m.target) ? 'yes' : '**no**';
    return [name, fixed(median(m.ref)), fixed(median(m.new)), `${fixed(v.ratio)}${v.regression ? ' **regression**' : ''}`,
      `${fixed(v.low)}–${fixed(v.high)}`, target, met];
  });
  if (rows.length) {
    out.push('**Timed measures** (medians over the rounds; new/ref is the median of the rounds\' ratios, above 1 worse, with their range)', '');
    out.push(table(['measure', 'ref', 'new', 'new/ref', 'range', 'target', 'new meets it'], rows));
    out.push('');
  }
  if (result.nodes) {
    out.push('**DOM nodes touched a slider step** (a count: the same on any machine; ceilings in tests/e2e/mutations.test.mjs)', '');
    out.push(table(['page', 'ref median', 'ref largest', 'new median', 'new largest', 'new\'s largest step'],
      result.nodes.new.map((row) => {
        const ref = result.nodes.ref.find((r) => r.page === row.page);
        return [row.page, ref?.median ?? '', ref?.max ?? '', row.median, row.max, row.worst];
      })));
  }
  return out.join('\n');
}

const regressions = (result) => Object.entries(result.measures).filter(([, m]) => judge(m).regression).map(([name]) => name);

if (options.from) {
  const earlier = JSON.parse(await readFile(options.from, 'utf8'));
  console.log(report(earlier));
  process.exit(0);
}
if (!options.ref) throw new Error('--ref DIR: the release dist/ of the build to measure against (bash bench/run builds it)');

const rounds = Number(options.rounds);
const port = debuggingPort();
const browser = await launch([`--remote-debugging-port=${port}`]);
const builds = {};
try {
  for (const [build, dir] of [['ref', options.ref], ['new', NEW_DIST]]) {
    const server = await serveDist(dir);
    builds[build] = { dir, server, base: server.base, compressed: await serveCompressed(dir), figures: await figuresOf(dir) };
  }
  const audit = skipped.has('lighthouse') ? null : await auditor(port);
  const result = {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
    refName: options['ref-name'],
    rounds,
  };
  log('[bench] bytes of each entry point');
  result.transfer = [];
  for (const [entry, query] of [['full page', ''], ['embedded figure (?fig=why)', '?fig=why']]) {
    const sizes = {};
    for (const build of ['ref', 'new']) sizes[build] = await transferSizes(browser, `${builds[build].base}${query}`, builds[build].dir);
    result.transfer.push({ entry, ...sizes });
  }
  for (let number = 1; number <= rounds; number += 1) await round(number, rounds, browser, builds, audit);
  result.measures = Object.fromEntries(measures);
  if (!skipped.has('nodes')) {
    log('[bench] DOM nodes touched a slider step, each build');
    const pages = (build) => SWEEP_PAGES.filter((page) => builds[build].figures.has(figureOf(page)));
    result.nodes = { ref: await mutationCounts(browser, builds.ref.base, pages('ref')), new: await mutationCounts(browser, builds.new.base, pages('new')) };
  }
  await writeFile(options.out, `${JSON.stringify(result, null, 1)}\n`);
  console.log(report(result));
  log(`written: ${options.out}`);
  const found = regressions(result);
  if (found.length) {
    log(`REGRESSION (a ratio above ${REGRESSION} whose range excludes 1): ${found.join('; ')}`);
    process.exitCode = 1;
  } else {
    log(`no regression: no ratio above ${REGRESSION} whose range excludes 1`);
  }
} finally {
  await browser.close();
  for (const build of Object.values(builds)) {
    await build.server.close();
    await build.compressed.close();
  }
}
