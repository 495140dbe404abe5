//! The explainer's closing prose: an overview, key ideas, common questions
//! and references. Static text, written for Parallax.

use leptos::prelude::*;

/// A question and its answer.
struct Question {
    question: &'static str,
    answer: &'static str,
}

const QUESTIONS: [Question; 4] = [
    Question {
        question: "How is data parallelism different from model parallelism?",
        answer: "Data parallelism copies the whole model to every GPU and splits the batch between them. Model \
                 parallelism splits the model itself: inside each layer (tensor parallelism) or between layers \
                 (pipeline parallelism), so that each GPU holds only part of the weights. Data parallelism is \
                 simpler and comes first; model parallelism is added once the model, or its training state, no \
                 longer fits on one GPU.",
    },
    Question {
        question: "Are FSDP and ZeRO the same thing?",
        answer: "PyTorch's Fully Sharded Data Parallel is an implementation of ZeRO's third stage: every GPU keeps \
                 a shard of the weights, gradients and optimizer state, and gathers a layer's full weights just \
                 before it needs them. FSDP can also shard only the gradients and optimizer state while keeping \
                 full weights, which corresponds to ZeRO stage 2.",
    },
    Question {
        question: "Does adding GPUs change what the model learns?",
        answer: "It can. If each GPU keeps its own batch size, more GPUs mean a larger global batch: less noisy \
                 gradients, which usually call for a retuned learning rate and warm-up. Beyond a critical batch \
                 size that depends on the model and the data, bigger batches buy little extra progress per step, \
                 and more GPUs stop shortening training.",
    },
    Question {
        question: "How many GPUs does fine-tuning a 7B model take?",
        answer: "Full fine-tuning with Adam needs the same 108 GB of training state as pre-training, plus \
                 activations, so it usually runs on 2 to 8 GPUs of 80 GB with ZeRO or FSDP. Methods such as LoRA \
                 freeze the base weights and train small adapters instead, which brings memory down towards the \
                 13.5 GB of fp16 weights; with 4-bit base weights (QLoRA) one 24 GB GPU is often enough.",
    },
];

/// A paper the explainer draws on.
struct Reference {
    authors: &'static str,
    title: &'static str,
    arxiv: &'static str,
}

const REFERENCES: [Reference; 4] = [
    Reference {
        authors: "Rajbhandari, Rasley, Ruwase and He (2020)",
        title: "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
        arxiv: "1910.02054",
    },
    Reference {
        authors: "Shoeybi, Patwary, Puri, LeGresley, Casper and Catanzaro (2019)",
        title:
            "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism",
        arxiv: "1909.08053",
    },
    Reference {
        authors: "Huang et al. (2019)",
        title: "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism",
        arxiv: "1811.06965",
    },
    Reference {
        authors: "Narayanan et al. (2021)",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
        arxiv: "2104.04473",
    },
];

const KEY_IDEAS: [&str; 6] = [
    "Mixed-precision Adam keeps 16 bytes a parameter: about 108 GB for a 7B model, more than one 80 GB GPU holds.",
    "Data parallelism multiplies throughput, not memory: every GPU keeps the whole state and the gradients are all-reduced.",
    "ZeRO shards the optimizer state, then the gradients, then the weights, dividing memory by up to N.",
    "Tensor parallelism splits every matrix and all-reduces inside every layer, so it stays on one node's fast links.",
    "Pipeline parallelism gives each GPU a run of layers and idles for (p − 1)/(m + p − 1) of each step.",
    "Large runs multiply the three: GPUs = tensor × pipeline × data-parallel degree.",
];

/// Everything after the six steps.
#[component]
pub fn Afterword() -> impl IntoView {
    view! {
        <section class="afterword" aria-labelledby="overview-title">
            <h2 id="overview-title">"What distributed training is"</h2>
            <p>
                "Distributed training runs the training of one network on many GPUs at once by dividing the work. "
                "Data parallelism divides the batch, tensor parallelism divides each matrix multiplication, and "
                "pipeline parallelism divides the stack of layers. Sharding methods such as ZeRO divide the "
                "training state itself, so that no GPU has to keep all of it."
            </p>
            <p>
                "Every large language model is trained this way, because both its memory and its arithmetic are far "
                "beyond a single accelerator: models like GPT-3 and Llama 2 were trained on thousands of GPUs, "
                "typically with tensor parallelism inside each 8-GPU server, pipeline stages across servers and "
                "data parallelism over the whole. The same tools, DeepSpeed, PyTorch FSDP and Megatron-LM, also "
                "make fine-tuning a 7B model on a handful of GPUs practical."
            </p>
            <h2>"Key ideas"</h2>
            <ul class="afterword__ideas">{KEY_IDEAS.iter().map(|idea| view! { <li>{*idea}</li> }).collect_view()}</ul>
            <h2>"Common questions"</h2>
            {QUESTIONS
                .iter()
                .map(|q| view! {
                    <details class="afterword__question">
                        <summary>{q.question}</summary>
                        <p>{q.answer}</p>
                    </details>
                })
                .collect_view()}
            <h2>"References"</h2>
            <ol class="afterword__references">
                {REFERENCES
                    .iter()
                    .map(|r| view! {
                        <li>
                            {r.authors}", “"{r.title}".” "
                            <a href=format!("https://arxiv.org/abs/{}", r.arxiv)>{format!("arXiv:{}", r.arxiv)}</a>
                        </li>
                    })
                    .collect_view()}
            </ol>
        </section>
    }
}
