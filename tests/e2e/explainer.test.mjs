// The six steps of the explainer end to end: seed readouts at the defaults,
// every control by keyboard and by mouse, the URL, reloads and navigation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dragSlider, expectTexts, open, openAssumptions, press, readouts, ready, readyAll, seedTexts, urlMatching, useApp } from './harness.mjs';

/** The seed's readouts at the defaults of each step (tests/seeds.tsv). */
const SEED = Object.fromEntries(['why', 'dp', 'zero', 'tp', 'pp', '3d'].map((slug) => [slug, seedTexts(slug)]));

const app = useApp();

async function embed(query) {
  const opened = await open(app.browser, `${app.server.base}?${query}`);
  await ready(opened.page);
  return opened;
}

test('the full page shows six steps with every seed readout, then the afterword', async () => {
  const { page, errors, close } = await open(app.browser, app.server.base);
  await readyAll(page);
  const numbers = (await page.locator('.step__number').allTextContents()).filter((text) => text.startsWith('Step'));
  assert.deepEqual(numbers, [1, 2, 3, 4, 5, 6].map((k) => `Step ${k} of 6`));
  for (const [slug, expected] of Object.entries(SEED)) {
    expectTexts(assert, await readouts(page, `section[id="${slug}"]`), expected, slug);
  }
  // The papers both sources cite, FSDP, checkpointing and activation recomputation among them.
  const cited = await page.locator('.afterword ol a').evaluateAll((links) => links.map((a) => a.href));
  for (const paper of ['1910.02054', '1909.08053', '1811.06965', '2104.04473', '2205.05198', '1604.06174', '2304.11277']) {
    assert.ok(cited.includes(`https://arxiv.org/abs/${paper}`), `arXiv:${paper} is cited`);
  }
  assert.equal(await page.locator('.afterword details').count(), 4);
  assert.deepEqual(errors, []);
  await close();
});

for (const [slug, expected] of Object.entries(SEED)) {
  test(`?fig=${slug} shows the figure alone with the seed readouts and an In words summary`, async () => {
    const { page, errors, close } = await embed(`fig=${slug}`);
    expectTexts(assert, await readouts(page), expected, slug);
    assert.equal(await page.locator('section.step').count(), 0);
    assert.ok((await page.locator('[aria-live="polite"]').textContent()).length > 80);
    for (const control of await page.locator('input, select').all()) {
      assert.ok(await control.getAttribute('data-param'), 'every control names its parameter');
    }
    assert.deepEqual(errors, []);
    await close();
  });
}

test('dp: the GPUs slider by keyboard and mouse, the link toggle by keyboard', async () => {
  const { page, errors, close } = await embed('fig=dp');
  await press(page, 'input[data-param="gpus"]', 'ArrowRight');
  let found = await readouts(page);
  expectTexts(assert, found, { 'sequences-per-gpu': '113.8', 'sent-per-gpu': '24.0 GB', 'compute-per-step': '2.1 min' });
  await urlMatching(page, /\?fig=dp&gpus=9$/);
  assert.equal(await page.locator('.fig-dp__gpu').count(), 9);
  assert.equal(await dragSlider(page, 'gpus', 1), 64);
  await press(page, 'input[data-param="link"][value="network"]', 'ArrowLeft');
  found = await readouts(page);
  expectTexts(assert, found, { 'sequences-per-gpu': '16', 'sent-per-gpu': '26.5 GB', 'allreduce-time': '59 ms' });
  await urlMatching(page, /gpus=64&link=nvlink/);
  // 64 boxes stay inside the figure.
  const width = await page.locator('.fig-dp__gpus').evaluate((el) => [el.scrollWidth, el.clientWidth]);
  assert.ok(width[0] <= width[1], `no overflow: ${width}`);
  assert.equal(await page.locator('.fig-dp__gpu').count(), 64);
  assert.deepEqual(errors, []);
  await close();
});

test('dp: the crossover chart says where more GPUs stop paying; the GPUs move its marker, the link its curves and words', async () => {
  const { page, errors, close } = await embed('fig=dp');
  const words = page.locator('.figure__crossover');
  const canvas = page.locator('.figure__chart canvas');
  // On one GPU the batch is 6 × 6.74e9 × 1,024 × 4,096 / 1.5e14 = 1,130.78 s, and a 13.48 GB
  // gradient takes 0.2696 s over 50 GB/s, 0.029956 s over 450 GB/s: the all-reduce reaches the
  // compute at N = 1 + 1,130.78/0.5392 = 2,098.2 and 1 + 1,130.78/0.059911 = 18,875.4.
  // C₁ and T are written to as many figures as 1 + C₁/(2T) needs to give that tenth from them:
  // 1 + 1,131/(2 × 0.2696) = 2,098.6 at four figures, 1 + 1,130.8/(2 × 0.2696) = 2,098.2 at five.
  assert.match(await words.textContent(), /On one GPU the whole batch takes C₁ = 1,130\.8 s, and sending one gradient once over the network takes T = 0\.2696 s\./);
  assert.match(await words.textContent(), /Over the network that is N = 2,098\.2, beyond N = 1,024, where each GPU has a single sequence/);
  assert.equal(await canvas.getAttribute('aria-label'), "Chart: A step's compute and all-reduce, against GPUs, on log scales, described in the paragraph below");
  // Pixels drawn on the canvas, and a fingerprint of them.
  const drawing = () => canvas.evaluate((c) => {
    const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]) inked += 1;
    return [inked, c.toDataURL()];
  });
  let [inked, before] = await drawing();
  for (let tries = 0; inked < 1000 && tries < 30; tries += 1) {
    await page.waitForTimeout(100);
    [inked, before] = await drawing();
  }
  assert.ok(inked >= 1000, `the chart is drawn (${inked} pixels)`);
  const text = await words.textContent();
  await press(page, 'input[data-param="gpus"]', 'ArrowRight');
  await urlMatching(page, /\?fig=dp&gpus=9$/);
  assert.equal(await words.textContent(), text, 'N moves along the curves: the words stay');
  // The marker of the reader's N moves along the compute curve: drawn again once the slider rests.
  let moved = before;
  for (let tries = 0; moved === before && tries < 30; tries += 1) {
    await page.waitForTimeout(100);
    moved = (await drawing())[1];
  }
  assert.notEqual(moved, before, 'the marker moves with N');
  const beforeLink = moved;
  await page.locator('label.control__segment', { hasText: /^NVLink$/ }).click();
  await urlMatching(page, /\?fig=dp&gpus=9&link=nvlink$/);
  assert.match(await words.textContent(), /sending one gradient once over NVLink takes T = 0\.02995556 s\. .* Over NVLink that is N = 18,875\.4, .* Over the network it is 2,098\.2, beyond the batch too\./);
  let after = beforeLink;
  for (let tries = 0; after === beforeLink && tries < 30; tries += 1) {
    await page.waitForTimeout(100);
    after = (await drawing())[1];
  }
  assert.notEqual(after, beforeLink, 'the chart is redrawn with the NVLink curve bold');
  assert.deepEqual(errors, []);
  await close();
});

test('tp: the crossover says where splitting a layer stops paying, for the link the reader picks', async () => {
  const { page, errors, close } = await embed('fig=tp');
  const words = page.locator('.figure__crossover');
  // Llama 2 7B's layer, 202,383,360 parameters: 6 × that × 4,096 / 1.5e14 = 33.16 ms on one GPU;
  // its four hidden states, 4 × 4,096 × 4,096 × 2 B, take 0.2983 ms over 450 GB/s and 2.684 ms over
  // 50 GB/s: t = 1 + 33.16/0.5965 = 56.6 and 1 + 33.16/5.369 = 7.2, so from t = 8 on.
  assert.match(await words.textContent(), /Over NVLink that is t = 56\.6, more ways than the 32 attention heads of a layer split/);
  const before = await words.textContent();
  await press(page, 'input[data-param="tp"][value="4"]', 'ArrowLeft');
  await urlMatching(page, /\?fig=tp&tp=2$/);
  assert.equal(await words.textContent(), before, 't moves along the curves: the words stay');
  await page.locator('label.control__segment', { hasText: /^Network$/ }).click();
  await urlMatching(page, /\?fig=tp&tp=2&link=network$/);
  // A student works 1 + 33.2/(2 × 2.68) = 7.19 from the written numbers: 7.2, as stated.
  assert.match(await words.textContent(), /a layer is C₁ = 33\.2 ms of compute on one GPU, and sending its four hidden states once over the network takes A = 2\.68 ms\./);
  assert.match(await words.textContent(), /Over the network that is t = 7\.2: from t = 8 on, each GPU waits on the all-reduces longer than it computes\. Over NVLink it is 56\.6, beyond the heads\./);
  assert.deepEqual(errors, []);
  await close();
});

test('pp: the crossover chart marks GPipe\'s m = 4p; the stages and the schedule rewrite its words and redraw it', async () => {
  const { page, errors, close } = await embed('fig=pp');
  const words = page.locator('.figure__crossover');
  const canvas = page.locator('.figure__chart canvas');
  const fingerprint = () => canvas.evaluate((c) => c.toDataURL());
  const redrawn = async (from) => {
    let now = from;
    for (let tries = 0; now === from && tries < 30; tries += 1) {
      await page.waitForTimeout(100);
      now = await fingerprint();
    }
    return now;
  };
  assert.equal(await canvas.getAttribute('aria-label'), 'Chart: The bubble against micro-batches, by schedule, against a log scale, described in the paragraph below');
  // GPipe, p = 4: (p − 1)/(m + p − 1) is 3/19 = 15.8% at m = 4p = 16, 3/35 = 8.6% at 32, 3/7 = 42.9% at the reader's 4.
  assert.equal(await words.textContent(), "GPipe's authors found m = 4p micro-batches enough: 16 at 4 stages, where GPipe idles 15.8% of the step. Past it each doubling buys less: m = 32 gives 8.6%, and at a fixed micro-batch size each replica then takes twice the sequences a step. You run m = 4: 42.9%.");
  const drawn = await redrawn(await fingerprint());
  await press(page, 'input[data-param="pp"]', 'ArrowRight');
  await urlMatching(page, /\?fig=pp&pp=5$/);
  // p = 5: 4/24 = 16.7% at 20, 4/44 = 9.1% at 40, 4/8 = 50.0% at 4.
  assert.match(await words.textContent(), /: 20 at 5 stages, where GPipe idles 16\.7% of the step\. .* m = 40 gives 9\.1%, .* You run m = 4: 50\.0%\.$/);
  const fiveStages = await redrawn(drawn);
  assert.notEqual(fiveStages, drawn, 'the chart is drawn again for 5 stages');
  await page.locator('label.control__segment', { hasText: /ZB-H1/ }).click();
  await urlMatching(page, /\?fig=pp&pp=5&schedule=zb-h1$/);
  // ZB-H1 with m < p: (2p − m − 1)/(2p + 2m − 1) = 5/17 = 29.4%; at 40, (p − 1)/(3m + p − 1) = 4/124 = 3.2%.
  assert.match(await words.textContent(), /where Zero bubble \(ZB-H1\) idles .* m = 40 gives 3\.2%, .* You run m = 4: 29\.4%\.$/);
  assert.notEqual(await redrawn(fiveStages), fiveStages, 'the chart is drawn again with ZB-H1 bold');
  assert.deepEqual(errors, []);
  await close();
});

test('a chart is drawn again once its curves rest, not at every step that moves them', async () => {
  const { page, errors, close } = await embed('fig=tp');
  await openAssumptions(page);
  const fingerprint = () => page.locator('.figure__chart canvas').evaluate((c) => c.toDataURL());
  for (let tries = 0; (await fingerprint()).length < 2000 && tries < 30; tries += 1) await page.waitForTimeout(100);
  const before = await fingerprint();
  // The share of peak moves a layer's compute curve. In one task (no timer can run
  // inside it): the step is taken, its effects run, the readouts change, the canvas not yet.
  const [readoutMoved, drawnAtOnce] = await page.evaluate(async (drawn) => {
    const readout = () => document.querySelector('[data-readout="compute-time"]').dataset.value;
    const was = readout();
    const slider = document.querySelector('input[data-param="busy-util"]');
    slider.value = '0.5';
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    for (let i = 0; i < 100; i += 1) await Promise.resolve();
    return [readout() !== was, document.querySelector('.figure__chart canvas').toDataURL() !== drawn];
  }, before);
  assert.equal(readoutMoved, true, 'the step reached the readouts');
  assert.equal(drawnAtOnce, false, 'the canvas waits for the slider to rest');
  let after = before;
  for (let tries = 0; after === before && tries < 30; tries += 1) {
    await page.waitForTimeout(100);
    after = await fingerprint();
  }
  assert.notEqual(after, before, 'and is drawn once it has');
  assert.deepEqual(errors, []);
  await close();
});

/** Drags `locator` sideways by `pixels` from its centre, in four moves. */
async function dragSideways(page, locator, pixels, down = 0) {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + pixels, y + down, { steps: 4 });
  await page.mouse.up();
}

test('the diagrams are controls too: a drag on the ring sets the GPUs, on a timeline the micro-batches and the stages, on the lab\'s chart k', async () => {
  // 6 px a step (src/boot.js): 26 px is 4 steps, so 8 GPUs become 12 and nothing else changes.
  const dp = await embed('fig=dp');
  await dragSideways(dp.page, dp.page.locator('.fig-dp__ring-svg'), 26);
  await urlMatching(dp.page, /\?fig=dp&gpus=12$/);
  assert.equal(await dp.page.locator('input[data-param="gpus"]').inputValue(), '12');
  assert.equal(await dp.page.locator('.fig-dp__gpu').count(), 12);
  // Back 3 steps, leftwards: 9 GPUs.
  await dragSideways(dp.page, dp.page.locator('.fig-dp__ring-svg'), -20);
  await urlMatching(dp.page, /\?fig=dp&gpus=9$/);
  expectTexts(assert, await readouts(dp.page), { 'sequences-per-gpu': '113.8' });
  assert.deepEqual(dp.errors, []);
  await dp.close();
  // The pipeline's 4 micro-batches, 2 steps more: 6, and (4 − 1)/(6 + 4 − 1) = 33.3%.
  const pp = await embed('fig=pp');
  await dragSideways(pp.page, pp.page.locator('.fig-pp__svg'), 13);
  await urlMatching(pp.page, /\?fig=pp&micro=6$/);
  expectTexts(assert, await readouts(pp.page), { bubble: '33.3%' });
  // Downwards, a row a stage (16 px): 35 px is 2 more stages, 6, and (6 − 1)/(6 + 6 − 1) = 45.5%;
  // the few pixels it strays sideways move nothing, as the drag keeps to the axis it took.
  await dragSideways(pp.page, pp.page.locator('.fig-pp__svg'), 4, 35);
  await urlMatching(pp.page, /\?fig=pp&pp=6&micro=6$/);
  assert.equal(await pp.page.locator('input[data-param="pp"]').inputValue(), '6');
  expectTexts(assert, await readouts(pp.page), { bubble: '45.5%' });
  assert.deepEqual(pp.errors, []);
  await pp.close();
  // The lab's memory chart runs along k: 13 px rightwards is 2 steps, from keeping every activation (k = 1) to k = 3.
  const lab = await embed('fig=checkpoint');
  await dragSideways(lab.page, lab.page.locator('.fig-lab__drag'), 13);
  await urlMatching(lab.page, /\?fig=checkpoint&every=3$/);
  assert.equal(await lab.page.locator('input[data-param="every"]').inputValue(), '3');
  assert.deepEqual(lab.errors, []);
  await lab.close();
});

test('dp: the ring steps through reduce-scatter and all-gather', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=dp&gpus=4`, { reducedMotion: 'reduce' });
  await ready(page);
  const caption = () => page.locator('.fig-dp__ring-text p').first().textContent();
  assert.match(await caption(), /Reduce-scatter, step 1 of 3/);
  const next = page.getByRole('button', { name: 'Next step' });
  for (let i = 0; i < 3; i += 1) await next.click();
  assert.match(await caption(), /All-gather, step 1 of 3/);
  assert.match(await page.locator('.fig-dp__ring-sent').textContent(), /13\.5 GB/);
  assert.deepEqual(errors, []);
  await close();
});

test('zero: stages by keyboard, GPUs by mouse, URL beyond the slider', async () => {
  const { page, errors, close } = await embed('fig=zero');
  await press(page, 'input[data-param="stage"][value="1"]', 'ArrowRight', 2);
  let found = await readouts(page);
  expectTexts(assert, found, { 'state-per-gpu': '13.5 GB', 'sent-per-gpu': '35.4 GB', 'smaller-by': '8.0×', fits: 'Yes' });
  assert.equal(found.fits.value, 1);
  await urlMatching(page, /stage=3/);
  // GPU 0's own eighth of each part, in full colour over the pale whole (its style was once lost as "dead CSS").
  const kept = await page.$$eval('.fig-zero__kept', (bars) => bars.map((bar) => {
    const [own, whole] = [getComputedStyle(bar), getComputedStyle(bar.parentElement)];
    const share = bar.getBoundingClientRect().width / bar.parentElement.clientWidth;
    return [bar.getBoundingClientRect().height > 4, own.backgroundColor !== whole.backgroundColor && own.backgroundColor !== 'rgba(0, 0, 0, 0)', Math.abs(share - 1 / 8) < 0.01];
  }));
  // Stage 3 on 8 GPUs: weights, gradients and optimizer state each an eighth.
  assert.deepEqual(kept, [[true, true, true], [true, true, true], [true, true, true]]);
  assert.equal(await dragSlider(page, 'gpus', 0), 1);
  found = await readouts(page);
  expectTexts(assert, found, { 'state-per-gpu': '107.8 GB', fits: 'No', 'sent-per-gpu': '0 B' });
  assert.equal(found.fits.value, 0);
  await close();
  const far = await embed('fig=zero&gpus=4096&stage=3');
  expectTexts(assert, await readouts(far.page), { 'state-per-gpu': '26 MB', 'smaller-by': '4,096×' });
  assert.equal(await far.page.locator('input[data-param="gpus"]').inputValue(), '4096');
  assert.deepEqual([...errors, ...far.errors], []);
  await far.close();
});

test('tp: degree and link toggles by keyboard and mouse', async () => {
  const { page, errors, close } = await embed('fig=tp');
  await press(page, 'input[data-param="tp"][value="4"]', 'ArrowRight');
  expectTexts(assert, await readouts(page), { 'sent-per-gpu-layer': '235 MB', 'compute-time': '4.1 ms' });
  assert.equal(await page.locator('.fig-tp__gpu').count(), 8);
  await page.locator('label[for="tp-link-network"]').click();
  expectTexts(assert, await readouts(page), { 'comm-time': '4.7 ms', 'sent-per-gpu-layer': '235 MB' });
  await urlMatching(page, /\?fig=tp&tp=8&link=network$/);
  await page.locator('label[for="tp-tp-1"]').click();
  expectTexts(assert, await readouts(page), { 'sent-per-gpu-layer': '0 B', 'state-per-gpu': '107.8 GB' });
  assert.deepEqual(errors, []);
  await close();
});

test('pp: stages and micro-batches by keyboard and mouse, each schedule', async () => {
  const { page, errors, close } = await embed('fig=pp');
  await press(page, 'input[data-param="micro"]', 'ArrowRight', 4);
  expectTexts(assert, await readouts(page), { bubble: '27.3%', 'peak-in-flight': '8', 'total-units': '33' });
  await page.locator('label[for="pp-schedule-1f1b"]').click();
  expectTexts(assert, await readouts(page), { bubble: '27.3%', 'peak-in-flight': '4' });
  await page.locator('label[for="pp-schedule-interleaved"]').click();
  expectTexts(assert, await readouts(page), { bubble: '15.8%', 'total-units': '28.5' });
  assert.equal(await page.locator('input[data-param="chunks"]').count(), 1);
  await page.locator('label[for="pp-schedule-zb-h1"]').click();
  expectTexts(assert, await readouts(page), { bubble: '11.1%' });
  await urlMatching(page, /micro=8&schedule=zb-h1/);
  // The largest timeline: 8 stages, 64 micro-batches.
  assert.equal(await dragSlider(page, 'pp', 1), 8);
  assert.equal(await dragSlider(page, 'micro', 1), 64);
  expectTexts(assert, await readouts(page), { bubble: '3.5%', 'layers-per-gpu': '4' });
  const blocks = await page.$$eval('.fig-pp__block', (paths) => paths.reduce((n, p) => n + Number(p.dataset.blocks), 0));
  assert.equal(blocks, 8 * 64 * 3);
  assert.deepEqual(errors, []);
  await close();
});

test('3d: presets, toggles and the replicas slider', async () => {
  const { page, errors, close } = await embed('fig=3d');
  await page.locator('button[data-preset="course"]').click();
  expectTexts(assert, await readouts(page), { gpus: '1,024', nodes: '128', bubble: '8.6%', 'train-time': '7 days' });
  await urlMatching(page, /dp=32/);
  await press(page, 'input[data-param="zero"][value="1"]', 'ArrowRight', 2);
  expectTexts(assert, await readouts(page), { 'state-per-gpu': '105 MB' });
  assert.equal(await dragSlider(page, 'dp', 0), 1);
  expectTexts(assert, await readouts(page), { gpus: '32', bubble: '0.3%' });
  assert.deepEqual(errors, []);
  await close();
});

test('a URL with parameters reproduces the same readouts on reload, for every figure', async () => {
  const queries = ['fig=dp&gpus=16&link=nvlink', 'fig=zero&gpus=32&stage=2', 'fig=tp&tp=2&link=network',
    'fig=pp&pp=6&micro=12&schedule=1f1b', 'fig=3d&tp=4&pp=8&dp=16&zero=3', 'fig=why&tokens=750B&model=llama3-70b'];
  for (const query of queries) {
    const { page, errors, close } = await embed(query);
    const first = await readouts(page);
    await page.reload();
    await ready(page);
    assert.deepEqual(await readouts(page), first, query);
    assert.deepEqual(errors, []);
    await close();
  }
});

test('steps: ?step= opens at a figure, the pager moves between steps, changes name the step in the URL', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?step=zero`);
  await ready(page);
  await page.waitForFunction(() => Math.abs(document.getElementById('zero').getBoundingClientRect().top) < 40);
  await page.locator('#zero .step__link--next').focus();
  await page.keyboard.press('Enter');
  await urlMatching(page, /#tp$/);
  await page.waitForFunction(() => Math.abs(document.getElementById('tp').getBoundingClientRect().top) < 40);
  await press(page, '#dp input[data-param="gpus"]', 'ArrowLeft');
  await urlMatching(page, /\?step=dp&gpus=7/);
  expectTexts(assert, await readouts(page, '#dp'), { 'sequences-per-gpu': '146.3' });
  expectTexts(assert, await readouts(page, '#zero'), SEED.zero, 'zero is untouched');
  assert.deepEqual(errors, []);
  await close();
});

test('dp: a batch of fewer sequences than GPUs brings N down to one GPU a sequence, and says so', async () => {
  const { page, errors, close } = await embed('fig=dp&batch=3');
  // The default of 8 GPUs would leave five with nothing: 3 sequences feed 3 GPUs, 1 each.
  assert.equal(await page.locator('[data-notice="gpus"]').textContent(), 'gpus: the default, 8, is above the largest allowed value, 3 (set by the batch, one GPU a sequence), so 3 is used.');
  const slider = page.locator('input[data-param="gpus"]');
  assert.deepEqual([await slider.inputValue(), await slider.getAttribute('max')], ['3', '3']);
  expectTexts(assert, await readouts(page), { 'sequences-per-gpu': '1' });
  assert.equal(await page.locator('.fig-dp__gpu').count(), 3);
  await press(page, 'input[data-param="gpus"]', 'ArrowRight');
  assert.equal(await slider.inputValue(), '3', 'no fourth GPU');
  assert.deepEqual(errors, []);
  await close();
});

test('a link the page cleans up says so: a micro-batch past a replica\'s share, a key given twice, a degree not among the choices', async () => {
  // 8 replicas of a batch of 4 sequences: each runs 1, so a micro-batch of 3 runs as 1 (issue 37: silently).
  const cut = await embed('fig=planner&micro-batch=3&batch=4&gpus=8');
  assert.equal(await cut.page.locator('[data-notice="micro-batch"]').textContent(),
    'micro-batch = “3” is above the largest allowed value, 1 (a replica\'s share of the batch), so 1 is used.');
  assert.equal(await cut.page.locator('[data-notice]').count(), 1);
  // The box shows what runs (a newcomer saw 3 there).
  assert.equal(await cut.page.locator('input[data-param="micro-batch"]').inputValue(), '1');
  assert.deepEqual(cut.errors, []);
  await cut.close();
  // 2 sequences a replica (16 over 8): a micro-batch of 3 runs as 2.
  const two = await embed('fig=planner&micro-batch=3&batch=16&gpus=8');
  assert.match(await two.page.locator('[data-notice="micro-batch"]').textContent(), /allowed value, 2 \(a replica's share of the batch\), so 2 is used\.$/);
  await two.close();
  // The first model= is read, and the second said: Llama 3 8B's configuration adds up to 8,030,261,248 parameters.
  const twice = await embed('fig=planner&model=llama3-8b&model=gpt3-175b');
  assert.match(await twice.page.locator('[data-notice="model"]').textContent(), /^model is given more than once; the first, .llama3-8b., is used\.$/);
  assert.equal((await readouts(twice.page)).params.value, 8030261248);
  assert.deepEqual(twice.errors, []);
  await twice.close();
  // tp=16 of 1, 2, 4, 8: the nearest, 8, as the notice says, and the control shows it (it fell back to 4 before).
  const degree = await embed('fig=tp&tp=16');
  assert.match(await degree.page.locator('[data-notice="tp"]').textContent(), /so the nearest, 8, is used\.$/);
  assert.ok(await degree.page.locator('input[data-param="tp"][value="8"]').isChecked());
  assert.deepEqual(degree.errors, []);
  await degree.close();
});

test('bad values in every figure fall back with a notice', async () => {
  for (const [query, key] of [['fig=dp&gpus=0', 'gpus'], ['fig=zero&stage=9', 'stage'], ['fig=tp&tp=3', 'tp'],
    ['fig=pp&micro=banana', 'micro'], ['fig=3d&preset=nope', 'preset'], ['fig=pp&schedule=%3Cb%3E', 'schedule'],
    ['fig=nope', 'fig'], ['step=nope', 'step']]) {
    const { page, errors, close } = await embed(query);
    assert.equal(await page.locator(`[data-notice="${key}"]`).count(), 1, query);
    assert.doesNotMatch(await page.locator('body').innerText(), /NaN|Infinity/);
    assert.deepEqual(errors, []);
    await close();
  }
});
