// What the test command prints at its end (issue 25): one table of the
// bytes each entry point transfers and of the DOM nodes a slider step
// touches, figure by figure, so that CI's log shows them. The tests that
// measure them write their rows here (target/e2e-summary/); .ci/test runs
// this file last, which prints the table.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../target/e2e-summary/', import.meta.url));

/** Keeps `rows` under `name` for the table. */
export async function summarise(name, rows) {
  await mkdir(DIR, { recursive: true });
  await writeFile(`${DIR}${name}.json`, JSON.stringify(rows));
}

async function rowsOf(name) {
  try {
    return JSON.parse(await readFile(`${DIR}${name}.json`, 'utf8'));
  } catch {
    return null;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
  const transfer = await rowsOf('transfer');
  const nodes = await rowsOf('nodes');
  const lines = ['', 'What this build measures (counts and bytes: the same on any machine)', ''];
  lines.push('| entry point | raw | brotli |', '|---|---|---|');
  for (const row of transfer ?? []) lines.push(`| ${row.entry} | ${kb(row.raw)} | ${kb(row.brotli)} |`);
  lines.push('', '| figure | slider steps | DOM nodes a step, median | largest | its ceiling | largest step |', '|---|---|---|---|---|---|');
  for (const row of nodes ?? []) lines.push(`| ${row.page} | ${row.steps} | ${row.median} | ${row.max} | ${row.ceiling} | ${row.worst} |`);
  if (!transfer || !nodes) lines.push('', '(a test that writes part of this table did not run to its end)');
  console.log(lines.join('\n'));
}
