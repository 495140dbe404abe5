// Trunk's post-build hook (Trunk.toml), release builds only, in the staging
// directory: what Trunk cannot do itself. terser comes from tests/e2e's npm
// packages (.ci/setup.sh).
// 1. wasm-bindgen's JS glue minified (Trunk's JS minifier cannot parse it),
//    its digest rewritten in the page's integrity attribute.
// 2. The page's own scripts (boot.js a module, route.js a classic script)
//    minified: Trunk copies them as written, comments and all.
// 3. The style sheets, which Trunk writes one file each, joined into one in
//    the page's order: one request instead of four, and brotli compresses
//    them better together.
// 4. Trunk's HTML minifier writes `&amp;micro-batch` in a link as
//    `&ampmicro-batch` (it guards `&micro`, the old name of µ, but drops the
//    semicolon), which browsers leave as it is in an attribute: the
//    semicolon is put back wherever a letter, digit or `=` follows.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (process.env.TRUNK_PROFILE !== 'release' || !staging) process.exit(0);

const { minify } = createRequire(new URL('../tests/e2e/package.json', import.meta.url))('terser');
const hash = (algorithm, bytes) => createHash(algorithm).update(bytes).digest();
const digest = (bytes) => `sha384-${hash('sha384', bytes).toString('base64')}`;
const pagePath = join(staging, 'index.html');
let page = readFileSync(pagePath, 'utf8');

const glue = readdirSync(staging).filter((name) => /^parallax-[0-9a-f]+\.js$/.test(name));
if (glue.length !== 1) throw new Error(`expected one wasm-bindgen glue file in ${staging}, found ${glue}`);
const gluePath = join(staging, glue[0]);
const source = readFileSync(gluePath, 'utf8');
const { code } = await minify(source, { module: true, compress: true, mangle: true });
writeFileSync(gluePath, code);
if (!page.includes(digest(source))) throw new Error(`index.html has no integrity ${digest(source)} for ${glue[0]}`);
page = page.replace(digest(source), digest(code));
console.log(`post-build: ${glue[0]} ${source.length} -> ${code.length} bytes`);

// 5. The wasm is fetched by src/boot.js after the first paint, not preloaded
//    at once: Trunk's preload link goes, its integrity moved to boot.js's tag.
// Trunk's minified page orders a tag's attributes its own way: match the tag, then read it.
const preload = [...page.matchAll(/<link\b[^>]*>/g)].map(([tag]) => tag).find((tag) => /\brel="?preload\b/.test(tag) && /\.wasm\b/.test(tag));
const wasmIntegrity = preload?.match(/\bintegrity="?(sha384-[A-Za-z0-9+/=]+)/)?.[1];
if (!wasmIntegrity) throw new Error('index.html has no preload link with an integrity for the wasm');
page = page.replace(preload, '').replace(/<script\b[^>]*\bdata-parallax-wasm=/, (open) => open.replace('<script', `<script data-parallax-wasm-integrity="${wasmIntegrity}"`));
if (!page.includes(`data-parallax-wasm-integrity="${wasmIntegrity}"`)) throw new Error('boot.js has no tag to carry the wasm integrity');

for (const [name, module] of [['boot.js', true], ['route.js', false], ['drawing.js', true]]) {
  const file = join(staging, name);
  const written = readFileSync(file, 'utf8');
  const { code: small } = await minify(written, { module, compress: true, mangle: true });
  writeFileSync(file, small);
  console.log(`post-build: ${name} ${written.length} -> ${small.length} bytes`);
}

// Trunk's minified page writes each sheet's link with its attributes in any
// order and quoted or not: match the tag, then read its href.
const links = [...page.matchAll(/<link\b[^>]*\brel="?stylesheet"?[^>]*>/g)].map(([tag]) => ({
  tag,
  href: tag.match(/\bhref="?\.?\/?([^"\s>]+\.css)"?/)[1],
}));
if (links.length === 0) throw new Error('index.html links no style sheet');
const joined = links.map(({ href }) => readFileSync(join(staging, href), 'utf8')).join('\n');
const sheet = `style-${hash('sha256', joined).toString('hex').slice(0, 16)}.css`;
writeFileSync(join(staging, sheet), joined);
links.forEach(({ href }) => rmSync(join(staging, href)));
page = page.replace(links[0].tag, `<link rel="stylesheet" href="./${sheet}" integrity="${digest(joined)}">`);
links.slice(1).forEach(({ tag }) => { page = page.replace(tag, ''); });
page = page.replace(/&amp(?=[A-Za-z0-9=])/g, '&amp;');
writeFileSync(pagePath, page);
console.log(`post-build: ${links.length} style sheets joined into ${sheet} (${joined.length} bytes)`);
