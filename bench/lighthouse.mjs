// Lighthouse 12.2.3 (bench/package.json) on the full page and on every
// figure, mobile and desktop, against dist/ served the way real hosts serve
// it: brotli or gzip as the browser asks. bench/run.mjs audits four pages
// in mobile mode, both builds; alone, every page in both modes, this build:
//
//   node bench/lighthouse.mjs
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { FIGURES, PREFIX, launch } from '../tests/e2e/harness.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves `dir` (dist/ by default) under PREFIX, compressed with brotli (or gzip) when the request accepts it. */
export async function serveCompressed(dir = DIST) {
  const cache = new Map();
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, 'http://localhost');
    if (!url.pathname.startsWith(PREFIX)) {
      response.writeHead(404).end();
      return;
    }
    let path = normalize(url.pathname.slice(PREFIX.length)) || 'index.html';
    if (path.endsWith('/') || path === '.') path = join(path, 'index.html');
    try {
      const body = await readFile(join(dir, path));
      const accepts = request.headers['accept-encoding'] ?? '';
      const encoding = accepts.includes('br') ? 'br' : accepts.includes('gzip') ? 'gzip' : null;
      const key = `${path} ${encoding}`;
      if (!cache.has(key)) {
        cache.set(
          key,
          encoding === 'br'
            ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
            : encoding === 'gzip'
              ? gzipSync(body, { level: 9 })
              : body,
        );
      }
      const headers = { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
      if (encoding) headers['content-encoding'] = encoding;
      response.writeHead(200, headers).end(cache.get(key));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}${PREFIX}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The pages measured: the full explainer and every figure alone. */
export const LIGHTHOUSE_PAGES = [{ name: 'full page', query: '' }, ...FIGURES.map((f) => ({ name: f, query: `?fig=${f}` }))];

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

/** One Lighthouse run of `url` in `mode` (`mobile` or `desktop`): the scores and timings the README reports. */
async function audit(lighthouse, desktop, url, mode, port) {
  const config = mode === 'desktop' ? desktop : undefined;
  const flags = { port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES };
  const { lhr } = await lighthouse(url, flags, config);
  const value = (id) => lhr.audits[id]?.numericValue ?? NaN;
  return {
    performance: Math.round(lhr.categories.performance.score * 100),
    accessibility: Math.round(lhr.categories.accessibility.score * 100),
    bestPractices: Math.round(lhr.categories['best-practices'].score * 100),
    seo: Math.round(lhr.categories.seo.score * 100),
    fcp: Math.round(value('first-contentful-paint')),
    lcp: Math.round(value('largest-contentful-paint')),
    tbt: Math.round(value('total-blocking-time')),
    cls: Number(value('cumulative-layout-shift').toFixed(3)),
    bytes: Math.round(value('total-byte-weight')),
  };
}

/**
 * Lighthouse, loaded once, auditing through the browser listening on
 * `port`: a function of a URL and a mode (`mobile` or `desktop`).
 */
export async function auditor(port) {
  const { default: lighthouse } = await import('lighthouse');
  const { default: desktop } = await import('lighthouse/core/config/desktop-config.js');
  return (url, mode) => audit(lighthouse, desktop, url, mode, port);
}

/** A port for Chromium's remote debugging, which Lighthouse drives. */
export const debuggingPort = () => 9200 + Math.floor(Math.random() * 600);

/** Every page in both modes: `[{ page, mode, performance, ..., bytes }]`. */
export async function lighthouseAll(log = () => {}) {
  const server = await serveCompressed();
  const port = debuggingPort();
  const browser = await launch([`--remote-debugging-port=${port}`]);
  try {
    const run = await auditor(port);
    const out = [];
    for (const page of LIGHTHOUSE_PAGES) {
      for (const mode of ['mobile', 'desktop']) {
        log(`  lighthouse ${mode}: ${page.name}`);
        out.push({ page: page.name, mode, ...(await run(`${server.base}${page.query}`, mode)) });
      }
    }
    return out;
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await lighthouseAll((text) => process.stderr.write(`${text}\n`));
  console.log(JSON.stringify(rows, null, 1));
}
