// "Run it with" (issue 52): the plan on screen as each launch tool takes
// it, opened by its tab in the planner's controls and by the URL's
// `export`, full page and embedded.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, readouts, ready, serveDist, urlMatching, useApp, written } from './harness.mjs';

const app = useApp();

/// The words of a command line, its continuations joined.
const words = (text) => text.replace(/\\\n/g, ' ').trim().split(/\s+/);
const after = (list, flag) => list[list.indexOf(flag) + 1];

test('a tab shows its tool\'s text for the plan on screen, follows the controls and changes no readout', async () => {
  // Llama 3 8B under FSDP on 8 GPUs, micro-batches of 2: torchtitan's benchmark row.
  const query = 'model=llama3-8b&gpu=h100-sxm&gpus=8&stage=3&batch=16&micro-batch=2&recompute=op&software=torchtitan';
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&${query}`, { viewport: { width: 360, height: 780 } });
  await ready(page);
  const before = await readouts(page);
  assert.equal(await page.locator('pre[data-export]').count(), 0, 'closed, the part draws nothing');
  await page.locator('fieldset[data-param="export"] label', { hasText: 'torchtitan' }).click();
  await urlMatching(page, /export=torchtitan/);
  const command = page.locator('pre[data-export="torchtitan"]').first();
  await command.waitFor();
  await written(page);
  // Opened from its control, far above it on a phone: the part is brought into view.
  const top = await page.locator('section.launch').evaluate((part) => part.getBoundingClientRect().top);
  assert.ok(top > -1 && top < 780, `the part's top at ${top} px`);
  let list = words(await command.textContent());
  assert.deepEqual(list.slice(0, 6), ['torchrun', '--nnodes', '1', '--nproc-per-node', '8', '-m']);
  assert.equal(after(list, '--config'), 'llama3_8b');
  assert.equal(after(list, '--parallelism.data_parallel_shard_degree'), '8');
  // 2 sequences of 8,192 tokens a rank's micro-batch; 16 a step.
  assert.equal(after(list, '--training.num_tokens_per_microbatch_per_dp_rank'), '16384');
  assert.equal(after(list, '--training.num_tokens_per_train_step'), '131072');
  const toml = await page.locator('pre[data-export="torchtitan"]').nth(1).textContent();
  assert.match(toml, /\[activation_checkpoint\]\nmode = "selective"\nselective_ac_option = "op"/);
  assert.deepEqual(await readouts(page), before, 'opening the part changes no readout');
  // Tensor 2 on the same 8 GPUs: FSDP over the 4 left, and the text follows.
  await page.locator('fieldset[data-param="tp"] label', { hasText: /^2$/ }).click();
  await urlMatching(page, /tp=2/);
  await written(page);
  list = words(await command.textContent());
  assert.equal(after(list, '--parallelism.tensor_parallel_degree'), '2');
  assert.equal(after(list, '--parallelism.data_parallel_shard_degree'), '4');
  // The other tools' texts are on the page, hidden; DeepSpeed's tab shows its JSON.
  assert.equal(await page.locator('pre[data-export="deepspeed"]').first().isVisible(), false);
  await page.locator('fieldset[data-param="export"] label', { hasText: 'DeepSpeed' }).click();
  await urlMatching(page, /export=deepspeed/);
  await written(page);
  const json = JSON.parse(await page.locator('pre[data-export="deepspeed"]').first().textContent());
  assert.deepEqual([json.train_batch_size, json.train_micro_batch_size_per_gpu, json.gradient_accumulation_steps, json.zero_optimization.stage], [16, 2, 2, 3]);
  assert.equal(await command.isVisible(), false);
  // Closing it takes the texts away and the key out of the URL.
  await page.locator('fieldset[data-param="export"] label', { hasText: 'Off' }).click();
  await urlMatching(page, /^(?!.*export=)/);
  assert.equal(await page.locator('pre[data-export]').count(), 0);
  assert.deepEqual(errors, []);
  await close();
});

test('a layout Megatron-LM refuses is quoted in its words, and an uneven split it takes is written', async () => {
  // 12 heads over t 8: Megatron-Core's TransformerConfig refuses it.
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&model=llama3-8b&heads=12&kv-heads=12&hidden=1536&gpus=8&tp=8&export=megatron-lm`);
  await ready(page);
  const tab = page.locator('.launch__tab:not([hidden])');
  await tab.locator('pre[data-export="megatron-lm"]').waitFor();
  await written(page);
  assert.match(await tab.locator('.launch__refusals').textContent(), /Megatron-LM will stop: “num_attention_heads \(12\) must be a multiple of tensor_model_parallel_size \(8\)\.”/);
  // 32 layers on 3 stages, the planner's 10, 11, 11: the first and last stages' flags.
  await page.locator('fieldset[data-param="tp"] label', { hasText: /^1$/ }).click();
  await urlMatching(page, /^(?!.*tp=)/);
  const pp = page.locator('input[data-param="pp"]').first();
  await pp.fill('3');
  await pp.press('Enter');
  await urlMatching(page, /pp=3/);
  await written(page);
  const flags = words(await tab.locator('pre[data-export="megatron-lm"]').textContent());
  assert.equal(after(flags, '--pipeline-model-parallel-size'), '3');
  assert.equal(after(flags, '--decoder-first-pipeline-num-layers'), '10');
  assert.equal(after(flags, '--decoder-last-pipeline-num-layers'), '11');
  assert.equal(await tab.locator('.launch__refusals li').count(), 0);
  assert.deepEqual(errors, []);
  await close();
});

test('a pasted Megatron-LM command line becomes the plan, says what it read and ignored, and a bad paste changes nothing', async () => {
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&gpu=a100-80gb&export=megatron-lm`, { viewport: { width: 1440, height: 900 } });
  await ready(page);
  const box = page.locator('textarea[data-import]');
  const report = page.locator('[data-import-report]');
  // A hostile paste: a negative size. A notice, and the plan is as it was.
  const before = await readouts(page);
  await box.fill('torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size -1');
  await page.getByRole('button', { name: 'Read', exact: true }).click();
  await report.getByText('--tensor-model-parallel-size -1: a size is a whole number from 1 to 1,048,576. Nothing was changed.').waitFor();
  assert.equal(await report.getAttribute('data-refused'), '', 'a refusal is set apart');
  assert.deepEqual(await readouts(page), before);
  // Megatron-LM's GPT-3 175B example's values (examples/gpt3/train_gpt3_175b_distributed.sh
  // at 157006d) on 128 nodes of 8: t 8, p 16, d = 1,024 / 128 = 8, 1,536 / 8 = 192 micro-batches.
  await box.fill('torchrun --nnodes 128 --nproc-per-node 8 pretrain_gpt.py \\\n  --num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 \\\n  --micro-batch-size 1 --global-batch-size 1536 --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --lr 6.0e-5');
  await page.getByRole('button', { name: 'Read', exact: true }).click();
  await urlMatching(page, /tp=8/);
  const url = new URL(page.url());
  for (const [key, value] of [['model', 'gpt3-175b'], ['gpus', '1024'], ['tp', '8'], ['pp', '16'], ['batch', '1536'], ['seq', '2048'], ['export', 'megatron-lm']]) {
    assert.equal(url.searchParams.get(key), value, key);
  }
  const found = await readouts(page);
  assert.equal(found['micro-batches'].value, 192);
  assert.equal(await report.getAttribute('data-refused'), null, 'a reading is not a refusal');
  assert.match(await report.textContent(), /Not part of a layout, left as they are: --lr\./);
  // The URL is an ordinary planner state: it reopens the same plan.
  const again = await open(app.browser, page.url());
  await ready(again.page);
  assert.equal((await readouts(again.page))['micro-batches'].value, 192);
  await again.close();
  assert.deepEqual(errors, []);
  await close();
});

test('torchtitan\'s Llama 3 70B TOML pasted at 360 px becomes the plan, read by the launch worker', async () => {
  // The file as torchtitan has it (tests/launch-configs/SOURCES.md): t 8, FSDP
  // over what is left, a rank's batch of 8 of 8,192 tokens, full recomputation.
  const earlier = app.server.requests.length;
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&gpu=a100-80gb&gpus=64`, { viewport: { width: 360, height: 780 } });
  await ready(page);
  const report = page.locator('[data-import-report]');
  const fetched = () => app.server.requests.slice(earlier).filter((path) => /launch/.test(path));
  assert.deepEqual(fetched(), [], 'the worker is fetched only when the part is opened');
  await page.locator('fieldset[data-param="export"] label', { hasText: 'torchtitan' }).click();
  await page.locator('pre[data-export="torchtitan"]').first().waitFor();
  await page.locator('textarea[data-import]').fill(await readFile(new URL('../launch-configs/torchtitan-llama3_70b.toml', import.meta.url), 'utf8'));
  await page.getByRole('button', { name: 'Read', exact: true }).click();
  await urlMatching(page, /tp=8/);
  await report.getByText(/^Read as torchtitan's TOML of 2024 to March 2025: the figure now shows that plan\.$/).waitFor();
  assert.equal(await report.getAttribute('aria-busy'), 'false');
  const url = new URL(page.url());
  for (const [key, value] of [['model', 'llama3-70b'], ['gpus', '64'], ['tp', '8'], ['stage', '3'], ['micro-batch', '8'], ['batch', '64'], ['recompute', 'full']]) {
    assert.equal(url.searchParams.get(key), value, key);
  }
  const found = await readouts(page);
  assert.equal(found['micro-batches'].value, 1);
  // 16 bytes a parameter of Llama 3 70B's 70,553,706,496 (its published shape), over 64 GPUs.
  assert.ok(Math.abs(found['state-per-gpu'].value / (16 * 70553706496 / 64) - 1) < 1e-3, `${found['state-per-gpu'].value}`);
  assert.match(await report.textContent(), /Not part of a layout, left as they are: .*optimizer\.lr/);
  assert.deepEqual(fetched().map((path) => path.split('/').at(-1)), ['launch-worker.js', 'launch.js', 'launch_bg.wasm']);
  assert.deepEqual(errors, []);
  await close();
});

test('a launch worker that cannot load (its script or its wasm refused) writes no text, leaves the plan as it was and says so', async () => {
  for (const missing of ['launch-worker.js', 'launch_bg.wasm']) {
    // dist/ as a proxy serves it: everything but the one file.
    const dir = mkdtempSync(join(tmpdir(), 'parallax-'));
    cpSync(fileURLToPath(new URL('../../dist/', import.meta.url)), dir, { recursive: true });
    rmSync(join(dir, missing));
    const server = await serveDist(dir);
    const { page, close } = await open(app.browser, `${server.base}?fig=planner&export=megatron-lm`, { viewport: { width: 1440, height: 900 } });
    await ready(page);
    const before = await readouts(page);
    await page.locator('textarea[data-import]').fill('torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 8');
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    const report = page.locator('[data-import-report]');
    const notice = 'The launch worker could not be loaded (offline, or blocked by the network). Nothing was changed.';
    await report.getByText(notice).waitFor();
    // The part says so too, in place of the texts it could not write.
    assert.equal(await page.locator('.launch__notice').textContent(), notice, missing);
    assert.equal(await page.locator('pre[data-export]').count(), 0, missing);
    assert.equal(await report.getAttribute('aria-busy'), 'false', missing);
    assert.deepEqual(await readouts(page), before, missing);
    assert.doesNotMatch(page.url(), /tp=/, missing);
    await close();
    await server.close();
    rmSync(dir, { recursive: true });
  }
});

test('the 3D figure runs its t × p × d with each tool, opened by its label, and changes no readout', async () => {
  // The seed's 8 × 8 × 16 with ZeRO-1: 1,024 GPUs as the planner runs them.
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=3d&tp=8&pp=8&dp=16&zero=1`, { viewport: { width: 1440, height: 900 } });
  await ready(page);
  const before = await readouts(page);
  await page.locator('fieldset[data-param="export"] label', { hasText: 'Megatron-LM' }).click();
  await urlMatching(page, /export=megatron-lm/);
  const text = page.locator('pre[data-export="megatron-lm"]');
  await text.waitFor();
  await written(page);
  const flags = words(await text.textContent());
  assert.equal(Number(after(flags, '--nnodes')) * Number(after(flags, '--nproc-per-node')), 1024);
  assert.equal(after(flags, '--tensor-model-parallel-size'), '8');
  assert.equal(after(flags, '--pipeline-model-parallel-size'), '8');
  assert.ok(flags.includes('--use-distributed-optimizer'), 'ZeRO-1');
  assert.deepEqual(await readouts(page), before, 'opening the part changes no readout');
  assert.deepEqual(errors, []);
  await close();
});
