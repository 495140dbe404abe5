// The full page as a reader meets it: every control of every figure, used
// the way a reader uses it (a click on its visible label or segment, a drag
// of its thumb, a typed value, the keyboard), changes its own figure and
// nothing else. Before figures scoped their ids, the planner's "ZeRO-3"
// label switched the zero figure and Tab skipped whole radio groups; every
// other test passed, because none looked at which figure a control moved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIGURES, labDone, open, openAssumptions, ready, readyAll, urlMatching, useApp, written } from './harness.mjs';

const app = useApp();

/** Every figure section's readouts as a reader sees them: slug -> { id: 'label = text (data-value)' }. */
async function figureValues(page) {
  await written(page);
  return page.$$eval('section.figure[id]', (sections) =>
    Object.fromEntries(
      sections.map((section) => [
        section.id,
        Object.fromEntries(
          [
            ...[...section.querySelectorAll('[data-readout]')].map((r) => [
              r.dataset.readout,
              `${r.querySelector('.readout__label')?.textContent} = ${r.querySelector('.readout__value')?.textContent} (${r.dataset.value})`,
            ]),
            // The planner's launch texts, and whether each is shown: what its `export` control changes.
            ...[...section.querySelectorAll('pre[data-export]')].map((pre, i) => [
              `export ${i}`,
              `${pre.dataset.export} ${pre.closest('[hidden]') ? 'hidden' : 'shown'}: ${pre.textContent}`,
            ]),
          ],
        ),
      ]),
    ),
  );
}

/** Numbers as the URL writes them (8, 0.5, 2e12, 50B, 2T), for comparing a slider's value with its key. */
function urlNumber(text) {
  const match = /^(.*?)([kmbt]?)$/i.exec(text.trim());
  return Number(match[1]) * { '': 1, k: 1e3, m: 1e6, b: 1e9, t: 1e12 }[match[2].toLowerCase()];
}

/** The keys whose sliders run on a log scale (figures/shared.rs: training tokens, 1B to 1,000T). */
const LOG_SCALE = new Set(['tokens']);

/** `slug`'s value of `key` as its control shows it (a list's, a slider's, a segment's). */
function shownValue(page, slug, key) {
  return page.$eval(`section.figure[id="${slug}"] :is(select, input[type=range], fieldset)[data-param="${key}"]`, (el) =>
    el.tagName === 'FIELDSET' ? el.querySelector('input:checked')?.value : el.value,
  );
}

/**
 * The other figures that take `slug`'s value of `key` (src/page.rs), when
 * it is one of `slug`'s assumptions: those that have it among theirs.
 */
async function carriersOf(page, slug, key) {
  const assumptions = (s) => `section.figure[id="${s}"] details.assumptions [data-param="${key}"]`;
  if (!(await page.locator(assumptions(slug)).count())) return [];
  const sections = await page.$$eval('section.figure[id]', (all) => all.map((section) => section.id));
  const carriers = [];
  for (const other of sections.filter((s) => s !== slug)) if (await page.locator(assumptions(other)).count()) carriers.push(other);
  return carriers;
}

/**
 * Runs `act` on `slug`'s control `key` (a slider's when `slider`), then checks what a reader would see:
 * the URL names this figure (`step=`) and holds the value `act` returns for
 * the key (or leaves the key out, at its default); an assumption's value is
 * taken by every other figure that assumes it, and no other figure's
 * readouts moved. Returns whether this figure's did.
 */
async function acted(page, slug, key, act, slider = false) {
  const carriers = await carriersOf(page, slug, key);
  const before = await figureValues(page);
  const urlBefore = page.url();
  const expected = await act();
  if (slug === 'checkpoint') await labDone(page, '#checkpoint');
  const holds = () => {
    const url = new URL(page.url());
    if (url.searchParams.get('step') !== slug) return false;
    const written = url.searchParams.get(key);
    if (written === null) return page.url() !== urlBefore || expected === undefined;
    if (typeof expected !== 'number') return written === expected;
    // A log-scale slider's position is log10 of the value, which the URL writes to three figures.
    return slider && LOG_SCALE.has(key) ? Number(urlNumber(written).toPrecision(3)) === Number((10 ** expected).toPrecision(3)) : urlNumber(written) === expected;
  };
  const deadline = Date.now() + 3000;
  while (!holds() && Date.now() < deadline) await page.waitForTimeout(25);
  assert.equal(new URL(page.url()).searchParams.get('step'), slug, `${slug} ${key}: the URL names the figure`);
  assert.ok(holds(), `${slug} ${key}: the URL ${page.url()} holds ${expected}`);
  const value = carriers.length ? await shownValue(page, slug, key) : undefined;
  const taken = async () => (await Promise.all(carriers.map((c) => shownValue(page, c, key)))).every((v) => v === value);
  const carryDeadline = Date.now() + 3000;
  while (!(await taken()) && Date.now() < carryDeadline) await page.waitForTimeout(25);
  assert.ok(await taken(), `${slug} ${key}=${value}: taken by ${carriers.join(', ')}`);
  const after = await figureValues(page);
  for (const other of Object.keys(before).filter((s) => s !== slug && !carriers.includes(s))) {
    assert.deepEqual(after[other], before[other], `${slug} ${key} left ${other} alone`);
  }
  return JSON.stringify(after[slug]) !== JSON.stringify(before[slug]);
}

/** The controls of one figure section, each as { kind, key, id }. */
async function controlsOf(page, slug) {
  return page.$$eval(`section.figure[id="${slug}"] :is(fieldset, input, select, button)[data-param]`, (elements) => {
    const seen = new Set();
    return elements.flatMap((element) => {
      const key = element.dataset.param;
      const kind =
        element.tagName === 'FIELDSET' ? 'radio' : element.tagName === 'SELECT' ? 'select' : element.tagName === 'BUTTON' ? 'button' : element.type;
      if (kind === 'radio' && element.tagName === 'INPUT') return [];
      const name = `${kind}:${key}`;
      if (seen.has(name)) return [];
      seen.add(name);
      return [{ kind, key, id: element.id }];
    });
  });
}

/** Drags a slider's thumb with the mouse to `fraction` of its track; returns its value. */
async function drag(page, slider, fraction) {
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const [min, max, value] = await slider.evaluate((el) => [Number(el.min), Number(el.max), Number(el.value)]);
  const y = box.y + box.height / 2;
  const at = (f) => box.x + 8 + f * (box.width - 16);
  await page.mouse.move(at((value - min) / (max - min || 1)), y);
  await page.mouse.down();
  await page.mouse.move(at(fraction), y, { steps: 6 });
  await page.mouse.up();
  return Number(await slider.inputValue());
}

/** Exercises one control by mouse; returns whether any of its changes moved its figure's readouts. */
async function useByMouse(page, slug, control) {
  const section = page.locator(`section.figure[id="${slug}"]`);
  let moved = false;
  const use = async (act, slider) => (moved = (await acted(page, slug, control.key, act, slider)) || moved);
  if (control.kind === 'radio') {
    const group = section.locator(`fieldset[data-param="${control.key}"]`);
    const values = await group.locator('input[type=radio]').evaluateAll((radios) => radios.map((r) => r.value));
    for (const value of values) {
      const radio = group.locator(`input[value="${value}"]`);
      if (await radio.isChecked()) continue;
      const id = await radio.getAttribute('id');
      // The segment the reader sees is the radio's label.
      await use(async () => (await section.locator(`label[for="${id}"]`).click(), value));
      assert.ok(await radio.isChecked(), `${slug} ${control.key}=${value}: the segment shows as selected`);
      assert.equal(await group.locator('input:checked').count(), 1);
    }
  } else if (control.kind === 'select') {
    const select = section.locator(`select[data-param="${control.key}"]`);
    // Its label focuses this select, not another figure's.
    await section.locator(`label[for="${control.id}"]`).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), control.id, `${slug} ${control.key}: its label focuses it`);
    const values = await select.evaluate((el) => [...el.options].map((o) => o.value));
    for (const value of [...values.slice(1), values[0]]) {
      if ((await select.inputValue()) === value) continue;
      await use(async () => (await select.selectOption(value), value));
      assert.equal(await select.inputValue(), value);
    }
  } else if (control.kind === 'range') {
    const slider = section.locator(`input[type=range][data-param="${control.key}"]`);
    const output = section.locator(`output[for="${control.id}"]`);
    for (const fraction of [0.6, 0.2]) {
      const [before, shown] = [await slider.inputValue(), await output.textContent()];
      await use(() => drag(page, slider, fraction), true);
      if ((await slider.inputValue()) !== before) {
        assert.notEqual(await output.textContent(), shown, `${slug} ${control.key}: its value text follows the thumb`);
      }
    }
  } else if (control.kind === 'text') {
    const box = section.locator(`input[type=text][data-param="${control.key}"]`);
    const original = await box.inputValue();
    // Twice the value, or 1 where it is 0 (a rank), then back.
    for (const typed of [String(urlNumber(original) * 2 || 1), original]) {
      await use(async () => {
        await box.click();
        await box.fill(typed);
        await box.press('Enter');
        return urlNumber(typed);
      });
      assert.equal(urlNumber(await box.inputValue()), urlNumber(typed), `${slug} ${control.key}: the box shows ${typed}`);
    }
  } else if (control.kind === 'button') {
    const buttons = section.locator(`button[data-param="${control.key}"]`);
    for (let i = (await buttons.count()) - 1; i >= 0; i -= 1) {
      await use(() => buttons.nth(i).click());
      assert.equal(await buttons.nth(i).getAttribute('aria-pressed'), 'true', `${slug} ${control.key} ${i}: shows as pressed`);
    }
  }
  return moved;
}

/** Exercises one control by keyboard: arrow keys move a radio group, a slider and a select. */
async function useByKeyboard(page, slug, control) {
  const section = page.locator(`section.figure[id="${slug}"]`);
  if (control.kind === 'radio') {
    const group = section.locator(`fieldset[data-param="${control.key}"]`);
    const before = await group.locator('input:checked').getAttribute('value');
    await group.locator('input:checked').focus();
    await acted(page, slug, control.key, async () => {
      await page.keyboard.press('ArrowLeft');
      return group.locator('input:checked').getAttribute('value');
    });
    assert.notEqual(await group.locator('input:checked').getAttribute('value'), before, `${slug} ${control.key}: an arrow key moves the selection within its own group`);
    assert.equal(await page.evaluate(() => document.activeElement?.closest('section.figure')?.id), slug, 'focus stays in the figure');
  } else if (control.kind === 'range' || control.kind === 'select') {
    const element = section.locator(`:is(input[type=range], select)[data-param="${control.key}"]`);
    const before = await element.inputValue();
    await element.focus();
    const [forward, back] = control.kind === 'range' ? ['ArrowRight', 'ArrowLeft'] : ['ArrowDown', 'ArrowUp'];
    const key = async (name) => {
      await page.keyboard.press(name);
      const value = await element.inputValue();
      return control.kind === 'range' ? Number(value) : value;
    };
    const slider = control.kind === 'range';
    await acted(page, slug, control.key, () => key(forward), slider);
    // At the end of its range the other way moves it.
    if ((await element.inputValue()) === before) await acted(page, slug, control.key, () => key(back), slider);
    assert.notEqual(await element.inputValue(), before, `${slug} ${control.key}: arrow keys change it`);
  }
}

test('on the full page every control changes its own figure and no other, by mouse and by keyboard', async () => {
  const { page, errors, close } = await open(app.browser, app.server.base, { viewport: { width: 1440, height: 900 } });
  await readyAll(page);
  await labDone(page, '#checkpoint');
  await openAssumptions(page);
  const summary = [];
  for (const slug of FIGURES) {
    // Controls that appear with a choice (the chunks of the interleaved schedule) are used once they do.
    const used = new Set();
    for (;;) {
      const controls = (await controlsOf(page, slug)).filter((c) => !used.has(`${c.kind} ${c.key}`));
      if (!controls.length) break;
      for (const control of controls) {
        // A control an earlier one hid (the planner's FP8 choice, gone with
        // an A100 the GPU select's arrow key chose) waits for a later pass.
        if (!(await page.locator(`section.figure[id="${slug}"] [data-param="${control.key}"]`).first().isVisible())) continue;
        used.add(`${control.kind} ${control.key}`);
        const moved = await useByMouse(page, slug, control);
        // A control whose every value leaves every readout alone would be a control that does nothing.
        assert.ok(moved, `${slug} ${control.kind} ${control.key}: some value changes the figure's readouts`);
        await useByKeyboard(page, slug, control);
      }
    }
    assert.ok(used.size > 0, `${slug} has controls`);
    summary.push(`${slug} ${[...used].map((c) => c.split(' ')[1]).join('/')}`);
  }
  console.log(`controls used by mouse and keyboard on the full page: ${summary.join(', ')}`);
  assert.deepEqual(errors, []);
  await close();
});

test('no id is used twice, and every radio group shows a selection, on every page', async () => {
  for (const query of ['', ...FIGURES.map((f) => `?fig=${f}`)]) {
    const { page, close } = await open(app.browser, app.server.base + query);
    await (query ? ready(page) : readyAll(page));
    const duplicates = await page.$$eval('[id]', (elements) => {
      const counts = {};
      for (const element of elements) counts[element.id] = (counts[element.id] ?? 0) + 1;
      return Object.keys(counts).filter((id) => counts[id] > 1);
    });
    assert.deepEqual(duplicates, [], `${query || 'full page'}: duplicate ids`);
    const unselected = await page.$$eval('fieldset[data-param]', (groups) =>
      groups.filter((g) => g.querySelectorAll('input[type=radio]:checked').length !== 1).map((g) => g.closest('section')?.id + ' ' + g.dataset.param),
    );
    assert.deepEqual(unselected, [], `${query || 'full page'}: radio groups without exactly one selection`);
    const groupNames = await page.$$eval('fieldset[data-param]', (groups) =>
      groups.map((g) => [...new Set([...g.querySelectorAll('input[type=radio]')].map((r) => r.name))]),
    );
    const names = groupNames.flat();
    assert.ok(groupNames.every((n) => n.length === 1), 'one name a group');
    assert.equal(new Set(names).size, names.length, `${query || 'full page'}: no radio group spans two fieldsets`);
    await close();
  }
});

test('Tab reaches every control of every figure on the full page', async () => {
  const { page, close } = await open(app.browser, app.server.base);
  await readyAll(page);
  await openAssumptions(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  const all = await page.$$eval('section.figure[id] :is(input, select, button)[data-param]', (els) => [
    ...new Set(els.map((el) => `${el.closest('section.figure').id} ${el.dataset.param}`)),
  ]);
  const reached = new Set();
  let stops = 0;
  for (; stops < 800 && reached.size < all.length; stops += 1) {
    await page.keyboard.press('Tab');
    const found = await page.evaluate(() => {
      const el = document.activeElement;
      const section = el?.closest?.('section.figure[id]');
      return el?.dataset?.param && section ? `${section.id} ${el.dataset.param}` : null;
    });
    if (found) reached.add(found);
  }
  assert.deepEqual(all.filter((c) => !reached.has(c)), [], 'controls Tab never reached');
  console.log(`Tab reached all ${all.length} figure controls in ${stops} stops`);
  await close();
});

test('the explainer\'s assumptions sit behind one disclosure that states them, and a change carries to every figure that assumes it', async () => {
  const { page, errors, close } = await open(app.browser, app.server.base, { viewport: { width: 1440, height: 900 } });
  await readyAll(page);
  const summaryOf = (slug) => page.locator(`section.figure[id="${slug}"] details.assumptions > summary`);
  // Its values keep their words together with no-break spaces; read as plain spaces.
  const summary = (slug) => ({
    textContent: async () => (await summaryOf(slug).textContent()).replace(/\u00a0/g, ' '),
    click: () => summaryOf(slug).click(),
  });
  // The presets' defaults (src/model/presets.rs): an illustrative GPU runs at its whole peak.
  const defaults = 'Assumptions: Llama 2 7B, Illustrative 80 GB GPU, 100% of peak, Megatron-LM / NeMo, FLOP count 6ΨD';
  for (const slug of ['why', 'dp', '3d']) assert.equal(await summary(slug).textContent(), defaults, slug);
  assert.equal(await summary('zero').textContent(), 'Assumptions: Llama 2 7B, Illustrative 80 GB GPU');
  assert.equal(await summary('pp').textContent(), 'Assumptions: Llama 2 7B');
  // Each step opens with its own control; the assumptions' controls are out of sight until asked for.
  assert.equal(await page.locator('#dp input[data-param="gpus"]').isVisible(), true);
  assert.equal(await page.locator('#dp select[data-param="gpu"]').isVisible(), false);
  // The course's planner keeps its GPU among its own inputs.
  assert.equal(await page.locator('#planner details.assumptions').count(), 0);
  assert.equal(await page.locator('#planner select[data-param="gpu"]').isVisible(), true);
  const pp = (await page.$$eval('#pp [data-readout]', (els) => els.map((el) => el.dataset.value))).join();

  await summary('dp').click();
  // Open, the controls state their values; the summary does not repeat them.
  assert.equal(await summary('dp').textContent(), 'Assumptions');
  await page.locator('#dp select[data-param="gpu"]').selectOption('h100-sxm');
  await urlMatching(page, /step=dp&gpu=h100-sxm/);
  // The others that assume a GPU take it; the H100's default share is 73% (README).
  await page.waitForFunction(() => document.querySelector('#why details.assumptions > summary').textContent.includes('H100'));
  assert.equal(await summary('why').textContent(), 'Assumptions: Llama 2 7B, NVIDIA H100 SXM, 73% of peak, Megatron-LM / NeMo, FLOP count 6ΨD');
  assert.equal(await summary('zero').textContent(), 'Assumptions: Llama 2 7B, NVIDIA H100 SXM');
  // 6 × 6.74e9 × 2e12 FLOP at 0.73 × 989 TFLOP/s: 1.120e8 s, 3.5 years.
  assert.equal(await page.locator('#why [data-readout="time-1-gpu"] .readout__value').textContent(), '3.5 years');
  // pp assumes only the model: its readouts stay; the URL still names the figure the reader changed.
  assert.equal((await page.$$eval('#pp [data-readout]', (els) => els.map((el) => el.dataset.value))).join(), pp);
  await page.waitForTimeout(400);
  assert.equal(new URL(page.url()).searchParams.get('step'), 'dp');
  assert.equal(new URL(page.url()).searchParams.get('gpu'), 'h100-sxm');
  // The address reproduces the page: reloaded, every figure that assumes a GPU has the H100 again.
  await page.reload();
  await readyAll(page);
  for (const slug of ['why', 'zero', 'tp', '3d']) assert.match(await summary(slug).textContent(), /NVIDIA H100 SXM/, slug);
  assert.equal(await page.locator('#why [data-readout="time-1-gpu"] .readout__value').textContent(), '3.5 years');
  assert.equal(new URL(page.url()).searchParams.get('step'), 'dp');
  assert.deepEqual(errors, []);
  await close();
});
