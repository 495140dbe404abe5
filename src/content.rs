//! The page's closing prose: an overview, key ideas, common questions and
//! references. Static text, written for Parallax, kept as HTML: it never
//! changes, so the page needs no code to build it.

use leptos::prelude::*;

const AFTERWORD: &str = r#"<h2 id="overview-title">What distributed training is</h2>
<p>Distributed training runs the training of one network on many GPUs at once by dividing the work. Data parallelism
divides the batch, tensor parallelism divides each matrix multiplication, and pipeline parallelism divides the stack of
layers. Sharding methods such as ZeRO divide the training state itself, so that no GPU has to keep all of it.</p>
<p>Every large language model is trained this way, because both its memory and its arithmetic are far beyond a single
accelerator: models like GPT-3 and Llama 2 were trained on thousands of GPUs, typically with tensor parallelism inside
each 8-GPU server, pipeline stages across servers and data parallelism over the whole. The same tools, DeepSpeed,
PyTorch FSDP and Megatron-LM, also make fine-tuning a 7B model on a handful of GPUs practical.</p>
<h2>Key ideas</h2>
<ul class="afterword__ideas">
<li>Mixed-precision Adam keeps 16 bytes a parameter: about 108 GB for a 7B model, more than one 80 GB GPU holds.</li>
<li>Data parallelism multiplies throughput, not memory: every GPU keeps the whole state and the gradients are all-reduced.</li>
<li>ZeRO shards the optimizer state, then the gradients, then the weights, dividing memory by up to N.</li>
<li>Tensor parallelism splits every matrix and all-reduces inside every layer, so it stays on one node's fast links.</li>
<li>Pipeline parallelism gives each GPU a run of layers and idles for (p − 1)/(m + p − 1) of each step.</li>
<li>Large runs multiply the three: GPUs = tensor × pipeline × data-parallel degree.</li>
</ul>
<h2>Common questions</h2>
<details class="afterword__question"><summary>How is data parallelism different from model parallelism?</summary>
<p>Data parallelism copies the whole model to every GPU and splits the batch between them. Model parallelism splits the
model itself: inside each layer (tensor parallelism) or between layers (pipeline parallelism), so that each GPU holds
only part of the weights. Data parallelism is simpler and comes first; model parallelism is added once the model, or
its training state, no longer fits on one GPU.</p></details>
<details class="afterword__question"><summary>Are FSDP and ZeRO the same thing?</summary>
<p>PyTorch's Fully Sharded Data Parallel is an implementation of ZeRO's third stage: every GPU keeps a shard of the
weights, gradients and optimizer state, and gathers a layer's full weights just before it needs them. FSDP can also
shard only the gradients and optimizer state while keeping full weights, which corresponds to ZeRO stage 2.</p></details>
<details class="afterword__question"><summary>Does adding GPUs change what the model learns?</summary>
<p>It can. If each GPU keeps its own batch size, more GPUs mean a larger global batch: less noisy gradients, which
usually call for a retuned learning rate and warm-up. Beyond a critical batch size that depends on the model and the
data, bigger batches buy little extra progress per step, and more GPUs stop shortening training.</p></details>
<details class="afterword__question"><summary>How many GPUs does fine-tuning a 7B model take?</summary>
<p>Full fine-tuning with Adam needs the same 108 GB of training state as pre-training, plus activations, so it usually
runs on 2 to 8 GPUs of 80 GB with ZeRO or FSDP. Methods such as LoRA freeze the base weights and train small adapters
instead, which brings memory down towards the 13.5 GB of fp16 weights; with 4-bit base weights (QLoRA) one 24 GB GPU
is often enough.</p></details>
<h2>References</h2>
<ol class="afterword__references">
<li>Rajbhandari, Rasley, Ruwase and He (2020), “ZeRO: Memory Optimizations Toward Training Trillion Parameter Models.” <a href="https://arxiv.org/abs/1910.02054">arXiv:1910.02054</a></li>
<li>Shoeybi, Patwary, Puri, LeGresley, Casper and Catanzaro (2019), “Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism.” <a href="https://arxiv.org/abs/1909.08053">arXiv:1909.08053</a></li>
<li>Huang et al. (2019), “GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism.” <a href="https://arxiv.org/abs/1811.06965">arXiv:1811.06965</a></li>
<li>Narayanan et al. (2021), “Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM.” <a href="https://arxiv.org/abs/2104.04473">arXiv:2104.04473</a></li>
<li>Korthikanti et al. (2022), “Reducing Activation Recomputation in Large Transformer Models.” <a href="https://arxiv.org/abs/2205.05198">arXiv:2205.05198</a></li>
<li>Chen, Xu, Zhang and Guestrin (2016), “Training Deep Nets with Sublinear Memory Cost.” <a href="https://arxiv.org/abs/1604.06174">arXiv:1604.06174</a></li>
<li>Zhao et al. (2023), “PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel.” <a href="https://arxiv.org/abs/2304.11277">arXiv:2304.11277</a></li>
<li>Qi, Wan, Huang and Lin (2023), “Zero Bubble Pipeline Parallelism.” <a href="https://arxiv.org/abs/2401.10241">arXiv:2401.10241</a></li>
</ol>"#;

/// Everything after the figures and exercises.
#[component]
pub fn Afterword() -> impl IntoView {
    view! { <section class="afterword" aria-labelledby="overview-title" inner_html=AFTERWORD></section> }
}

pub use crate::beyond::Beyond;
