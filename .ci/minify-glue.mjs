// Trunk's post-build hook (Trunk.toml): minifies wasm-bindgen's JS glue in
// the staging directory, which Trunk's own JS minifier cannot parse, and
// writes the new digest into the page's integrity attribute for it; then
// the page's own scripts, which Trunk copies as they are. Release
// builds only; terser comes from tests/e2e's npm packages (.ci/setup.sh).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (process.env.TRUNK_PROFILE !== 'release' || !staging) process.exit(0);

const { minify } = createRequire(new URL('../tests/e2e/package.json', import.meta.url))('terser');
const digest = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

const glue = readdirSync(staging).filter((name) => /^parallax-[0-9a-f]+\.js$/.test(name));
if (glue.length !== 1) throw new Error(`expected one wasm-bindgen glue file in ${staging}, found ${glue}`);
const path = join(staging, glue[0]);
const source = readFileSync(path, 'utf8');
const { code } = await minify(source, { module: true, compress: true, mangle: true });
writeFileSync(path, code);

const page = join(staging, 'index.html');
const html = readFileSync(page, 'utf8');
const before = digest(source);
if (!html.includes(before)) throw new Error(`index.html has no integrity ${before} for ${glue[0]}`);
writeFileSync(page, html.replace(before, digest(code)));
console.log(`minify-glue: ${glue[0]} ${source.length} -> ${code.length} bytes`);

// The page's own two scripts, copied as they are written (with their
// comments): boot.js a module, route.js a classic script. Neither has an
// integrity attribute to rewrite.
for (const [name, module] of [['boot.js', true], ['route.js', false]]) {
  const file = join(staging, name);
  const written = readFileSync(file, 'utf8');
  const { code: small } = await minify(written, { module, compress: true, mangle: true });
  writeFileSync(file, small);
  console.log(`minify-glue: ${name} ${written.length} -> ${small.length} bytes`);
}
