// "Run it with" (issue 52): the plan on screen as each launch tool takes
// it, opened by its tab in the planner's controls and by the URL's
// `export`, full page and embedded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, readouts, ready, urlMatching, useApp } from './harness.mjs';

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
  let list = words(await command.textContent());
  assert.equal(list[0], 'NGPU=8');
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
  list = words(await command.textContent());
  assert.equal(after(list, '--parallelism.tensor_parallel_degree'), '2');
  assert.equal(after(list, '--parallelism.data_parallel_shard_degree'), '4');
  // The other tools' texts are on the page, hidden; DeepSpeed's tab shows its JSON.
  assert.equal(await page.locator('pre[data-export="deepspeed"]').first().isVisible(), false);
  await page.locator('fieldset[data-param="export"] label', { hasText: 'DeepSpeed' }).click();
  await urlMatching(page, /export=deepspeed/);
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

test('a layout Megatron-LM refuses is quoted in its words, and what it cannot take is said', async () => {
  // 32 layers on 3 stages: Megatron-LM needs flags for uneven stages, which are not written.
  const { page, errors, close } = await open(app.browser, `${app.server.base}?fig=planner&model=llama3-8b&gpus=24&pp=3&export=megatron-lm`);
  await ready(page);
  const tab = page.locator('.launch__tab:not([hidden])');
  assert.match(await tab.locator('.launch__refusals').textContent(), /Megatron-LM will stop: “Number of layers should be divisible by the pipeline-model-parallel size \(32 layers, size 3/);
  const flags = words(await tab.locator('pre[data-export="megatron-lm"]').textContent());
  assert.equal(after(flags, '--pipeline-model-parallel-size'), '3');
  assert.equal(after(flags, '--num-layers'), '32');
  assert.deepEqual(errors, []);
  await close();
});
