"""Rejected forms stay precise: a correct sentence a strong candidate says about a question never names a
misconception (issue 34: telling a right candidate they hold a misconception is the worst thing the grader
can do to trust), while the misconception stated plainly is still caught.

Each correct sentence below was flagged by a form that was too broad (a bare negator, a bare word such as
`approximat*` or `lossless`, a phrase that ran across a comma, or a wide `&`/`..` between common words)."""

from __future__ import annotations

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.explain import read_explanation

CORRECT = [
    (
        "flash-attention-explain-why-faster",
        "Unlike approximate methods such as Linformer, FlashAttention computes exact attention.",
    ),
    ("flash-attention-explain-why-faster", "Unlike block-sparse attention, it computes exact attention."),
    (
        "flash-attention-explain-online-softmax",
        "The old sum does not stay valid: it must be rescaled by exp(m_old - m_new).",
    ),
    (
        "flash-attention-explain-online-softmax",
        "The previous accumulator does not know the new max yet, so we rescale it.",
    ),
    ("flash-attention-explain-online-softmax", "Unlike approximate tricks, online softmax is exact."),
    (
        "long-context-explain-sliding-cache",
        "Stacking layers does not keep the reach at W: it grows to L times W.",
    ),
    (
        "long-context-explain-sliding-cache",
        "Stacked layers do not see only W tokens; information relays across layers.",
    ),
    ("long-context-explain-sliding-cache", "Unlike a lossless cache, the relay loses detail at each hop."),
    (
        "what-heads-learn-verify-a-head",
        "A small effect on the loss is not proof that the head is unimportant,"
        " because backup heads can compensate.",
    ),
    ("what-heads-learn-verify-a-head", "A small drop is not evidence the head does nothing."),
    (
        "serving-explain-continuous-batching",
        "Fragmentation is not solved by continuous batching alone; paging fixes it.",
    ),
    (
        "serving-explain-continuous-batching",
        "With paging, fragmentation is not an issue since blocks are small.",
    ),
    ("scaled-dot-product-explain-sqrt", "The softmax is invariant to adding a constant, not to scaling."),
    (
        "scaled-dot-product-explain-sqrt",
        "The softmax sums to one at any scale; the scaling only controls how peaked it is.",
    ),
    (
        "scaled-dot-product-explain-sqrt",
        "Scaling keeps the same argmax but makes the distribution much sharper.",
    ),
    ("scaled-dot-product-explain-stable-softmax", "Unlike approximate tricks, this is exact."),
    (
        "scaled-dot-product-explain-logit-growth",
        "A higher learning rate makes logit growth worse, so lower it or lengthen warm-up.",
    ),
    ("scaled-dot-product-explain-logit-growth", "Larger learning rates make the logits grow faster."),
    (
        "serving-explain-decode",
        "GQA/MQA keep every query head and reduce the key/value heads, so they shrink the cache read.",
    ),
    (
        "serving-explain-slo-sizing",
        "An unchunked long prefill is compute-bound and stalls every decoding sequence.",
    ),
    ("cost-explain-decode-kv", "The weight read is paid once per step, not with batch size."),
    (
        "interview-answers-mqa-memory-32-heads",
        "Only one key head and one value head get stored, query heads aren't cached at all.",
    ),
    (
        "interview-answers-mqa-memory-32-heads",
        "Keys and values are stored; queries are recomputed every step.",
    ),
    ("interview-answers-mqa-memory-32-heads", "MQA caches one K/V head shared by all 32 query heads."),
    (
        "interview-answers-kv-cache-complexity",
        "Caching trades memory for compute: compute saved, memory spent.",
    ),
    (
        "mqa-gqa-explain-kv-redundancy",
        "Sharing keys costs no more expressiveness than sharing queries would.",
    ),
    ("mqa-gqa-explain-tradeoff", "Unlike GQA, MQA is far from lossless."),
    ("parameters-explain-one-wide-head", "One wide head is measurably worse at the same computation."),
    ("parameters-explain-one-wide-head", "At the same compute, multi-head is better."),
    (
        "pipeline-comms-explain-small-allreduce",
        "Upgrading the interconnect does nothing here; the alpha term dominates.",
    ),
    (
        "what-heads-learn-k-composition",
        "Composition can go through the queries (Q-composition), the keys (K-composition)"
        " or the values (V-composition).",
    ),
    (
        "what-heads-learn-honest-answer",
        "Unlike a bigram model that memorises bigrams, the induction head copies from context.",
    ),
    ("interview-answers-role-of-wo", "If W_O were block diagonal, the heads could not mix."),
    (
        "output-projection-explain-sum-of-heads",
        "W_O as a whole is full rank, but each head's OV circuit has rank at most d_k.",
    ),
    (
        "interview-answers-pruning",
        "Heads can be pruned because the trained model is over-parameterised,"
        " but training with fewer heads from the start does worse.",
    ),
    (
        "training-memory-explain-budget",
        "Without master weights it would be 84 GB, but with them it is 112 GB.",
    ),
    (
        "serving-explain-speculative",
        "Unlike quantisation, which trades quality for speed, speculative decoding keeps the output exact.",
    ),
    (
        "cross-attention-explain-decoder-layer",
        "Self-attention in the decoder uses the same causal mask as a decoder-only model,"
        " but cross-attention has none.",
    ),
    ("serving-explain-capacity", "Use the floor: rounding up with ceil would overcommit memory."),
    (
        "tensor-parallel-explain-cost",
        "Data parallel communicates only in backward; tensor parallel communicates in forward too.",
    ),
    (
        "training-memory-explain-attention-activations",
        "Full recomputation frees the activations at the price of one extra forward.",
    ),
    # issue 34, second round: forms of three words or fewer, and the four known offenders
    ("interview-answers-role-of-wo", "Nothing is lost in the concatenation; W_O is what mixes the heads."),
    (
        "interview-answers-role-of-wo",
        "W_O looks redundant when h d_v equals d_model, but it is what mixes the heads.",
    ),
    (
        "long-context-explain-options",
        "With FlashAttention the score-matrix memory is fine; the KV cache is what grows.",
    ),
    ("long-context-explain-options", "Memory is fine at short context, but at 100k the KV cache dominates."),
    ("long-context-explain-options", "The KV cache is fixed size under sliding window attention."),
    ("long-context-explain-options", "Memory is not the issue at short context."),
    (
        "scaled-dot-product-explain-stable-softmax",
        "Dividing by the max would change the softmax, like a temperature.",
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "Unlike dividing by the max, subtracting it leaves the softmax unchanged.",
    ),
    ("kv-cache-explain-reduce", "Paging does not help the per-token size; it removes allocation waste."),
    (
        "kv-cache-explain-reduce",
        "Paging doesn't help when every sequence uses its full length, but it removes reservation waste.",
    ),
    (
        "code-reading-explain-mha",
        "Even when each head is already small, it still divides its scores by sqrt(d_k).",
    ),
    (
        "cost-explain-score-memory",
        "FlashAttention takes the memory from quadratic to linear in T; the compute stays quadratic.",
    ),
    (
        "interview-answers-why-gqa",
        "GQA may act a little like a regulariser, but it is slightly below MHA in quality"
        " and adopted for the cache.",
    ),
    ("interview-answers-kv-cache-complexity", "Decoding is memory-bound, whereas prefill is compute-bound."),
    (
        "interview-answers-kv-cache-complexity",
        "Decoding is memory-bound, unlike prefill, which is compute-bound.",
    ),
    (
        "interview-answers-gqa-where-it-helps",
        "The gain is in decoding; training included, the compute-bound phases barely change.",
    ),
    (
        "interview-answers-flash-attention",
        "In fp16 the output may drift slightly from a reference computed in another order,"
        " but the algorithm is exact.",
    ),
    (
        "interview-answers-flash-attention",
        "Without any recomputation you would have to store the whole T x T probabilities.",
    ),
    (
        "kv-cache-explain-derive",
        "Caching avoids the quadratic recompute; the cache itself is linear in length.",
    ),
    (
        "long-context-explain-sinks",
        "Everything between the sinks and the window is evicted, including the middle of the stream.",
    ),
    (
        "long-context-explain-kv-compression",
        "Values are quantised per token, keys per channel, since keys have outlier channels.",
    ),
    ("long-context-explain-kv-compression", "Keys are quantised per channel, values per token."),
    (
        "mla-explain-memory-budget",
        "GQA with 8 heads would be in the same ballpark as MLA, but MHA is 57 times larger.",
    ),
    ("mqa-gqa-explain-tradeoff", "The win is not only in parameters: the cache shrinks too."),
    (
        "numerics-explain-stable-softmax",
        "Subtracting the mean is not enough: scores above the mean can still overflow.",
    ),
    (
        "numerics-explain-stable-softmax",
        "Unlike subtracting the mean, subtracting the max bounds every exponent by 0.",
    ),
    ("output-projection-explain-role", "The shape is the same, but the function is not."),
    (
        "output-projection-explain-sum-of-heads",
        "Concatenation puts heads in disjoint coordinates, but W_O maps each to the whole residual stream.",
    ),
    (
        "positional-rope-explain-relative",
        "The angle difference comes from the product to sum of the rotation angles.",
    ),
    ("real-models-card-mistral", "Unlike Falcon-7B's MQA, Mistral has 8 KV heads."),
    ("real-models-card-falcon", "GQA came with Falcon-40B; Falcon-7B uses one KV head."),
    (
        "scaled-dot-product-explain-fully-masked",
        "With a finite fill, the loss is unaffected by the padded row, since its output is masked out.",
    ),
    (
        "tensor-parallel-explain-cost",
        "Communication is not only in the backward: the forward all-reduces too.",
    ),
    (
        "training-memory-explain-jacobian",
        "Materialising the Jacobian would be memory hungry, so the backward uses p and g only.",
    ),
    (
        "what-heads-learn-verify-a-head",
        "High saliency on the stripe is not enough; you need the OV check and ablation.",
    ),
    (
        "training-memory-explain-attention-activations",
        "With FlashAttention it is still quadratic in compute but linear in memory.",
    ),
    (
        "training-memory-explain-jacobian",
        "We store both p and the output gradient, then compute p times (g minus p dot g).",
    ),
    ("training-memory-explain-jacobian", "Unlike an elementwise sigmoid, the softmax Jacobian is dense."),
    ("mqa-gqa-explain-tradeoff", "There is no reason to expect MHA quality from MQA at large scale."),
    (
        "cost-explain-flops-breakdown",
        "More heads cost nothing extra in FLOPs at fixed d_model, but the scores tensor grows.",
    ),
    # issue 34, reader-level misreadings
    (
        "debugging-explain-tpot-regression",
        "Also check batch vs the ridge point, only past it is the step compute-bound.",
    ),
    # a misconception only supposed, contrasted or reported is not the candidate's claim
    ("serving-explain-decode", "Without the cache decoding would be compute-bound."),
    ("cost-explain-decode-kv", "Without the KV cache, decode would be compute-bound."),
    ("scaled-dot-product-explain-stable-softmax", "If you divide by the max the result would be wrong."),
    ("numerics-explain-stable-softmax", "If you divided by the max, the probabilities would be wrong."),
    ("output-projection-explain-sum-of-heads", "Without W_O heads would write to disjoint coordinates."),
    ("scaled-dot-product-explain-causal", "Applying the mask after the softmax would leak the future."),
    (
        "flash-attention-explain-why-faster",
        "People often say FlashAttention is an approximation, but actually it is exact.",
    ),
    ("interview-answers-gqa-where-it-helps", "A common mistake is to think decode is compute-bound."),
    (
        "tensor-parallel-explain-cost",
        "Unlike data parallel, whose communication is only in backward, tensor parallel all-reduces in the"
        " forward too.",
    ),
    # hedged, set aside, asked or denied by `far from`
    (
        "interview-answers-convert-mha-to-gqa",
        "The converted model almost works as is, but it needs uptraining.",
    ),
    (
        "interview-answers-convert-mha-to-gqa",
        "Mean-pool the KV heads in each group rather than keep one and drop the rest.",
    ),
    ("what-heads-learn-verify-a-head", "Ablate the previous-token head to see whether it is irrelevant."),
    ("scaled-dot-product-explain-fully-masked", "The NaN spreads and the loss is far from unaffected."),
]

MISCONCEPTIONS = [
    ("flash-attention-explain-why-faster", "FlashAttention is an approximation.", "flash-approximate"),
    (
        "flash-attention-explain-why-faster",
        "It only computes a sparse subset of the matrix.",
        "flash-approximate",
    ),
    (
        "flash-attention-explain-online-softmax",
        "The old sum and the accumulator don't need touching.",
        "old-terms-need-no-rescaling",
    ),
    (
        "flash-attention-explain-online-softmax",
        "It's a close approximation, good enough in practice.",
        "online-softmax-approximate",
    ),
    (
        "long-context-explain-sliding-cache",
        "Stacking layers doesn't help, because every layer has the same window.",
        "layers-do-not-extend-reach",
    ),
    ("long-context-explain-sliding-cache", "The layer-to-layer relay is lossless.", "relay-is-lossless"),
    (
        "what-heads-learn-verify-a-head",
        "If the loss barely changes, it wasn't important.",
        "small-ablation-effect-proves-unimportant",
    ),
    (
        "serving-explain-continuous-batching",
        "Contiguous max-length reservations do not fragment memory.",
        "fragmentation-not-an-issue",
    ),
    (
        "serving-explain-continuous-batching",
        "Without paging fragmentation is not a problem.",
        "fragmentation-not-an-issue",
    ),
    ("scaled-dot-product-explain-sqrt", "The softmax is scale invariant.", "softmax-scale-invariant"),
    ("scaled-dot-product-explain-sqrt", "It just picks the same argmax.", "softmax-scale-invariant"),
    (
        "scaled-dot-product-explain-sqrt",
        "You divide by sqrt(d_k) so the softmax outputs sum to one.",
        "scaling-makes-softmax-sum-to-one",
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "Subtracting the max changes the result slightly.",
        "max-subtraction-changes-result",
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "It is an approximation.",
        "max-subtraction-changes-result",
    ),
    ("scaled-dot-product-explain-logit-growth", "Raise the learning rate.", "raise-learning-rate"),
    ("scaled-dot-product-explain-logit-growth", "The fix is a higher learning rate.", "raise-learning-rate"),
    ("serving-explain-decode", "GQA reduces the query heads, not the bytes.", "gqa-cuts-query-heads"),
    ("serving-explain-slo-sizing", "Decode is compute bound.", "tpot-flat-in-batch"),
    ("cost-explain-decode-kv", "The KV cache is shared across the batch.", "kv-cache-shared-across-batch"),
    (
        "interview-answers-mqa-memory-32-heads",
        "The cache stores queries, keys and values.",
        "cache-stores-queries",
    ),
    ("interview-answers-kv-cache-complexity", "KV caching saves memory.", "caching-saves-memory"),
    (
        "mqa-gqa-explain-kv-redundancy",
        "Sharing keys costs nothing in expressiveness.",
        "sharing-q-collapses-patterns",
    ),
    ("mqa-gqa-explain-tradeoff", "MQA is lossless.", "mqa-no-quality-cost"),
    (
        "parameters-explain-one-wide-head",
        "Multi-head computes the same function as one wide head.",
        "mha-same-function",
    ),
    (
        "pipeline-comms-explain-small-allreduce",
        "Upgrade the interconnect so the small all-reduces speed up.",
        "bandwidth-fixes-small",
    ),
    (
        "what-heads-learn-k-composition",
        "The induction head uses V-composition.",
        "induction-via-v-composition",
    ),
    (
        "what-heads-learn-honest-answer",
        "Induction heads store bigrams seen in training.",
        "induction-stores-bigrams",
    ),
    ("interview-answers-role-of-wo", "W_O is block-diagonal, so it does not mix heads.", "wo-block-diagonal"),
    (
        "output-projection-explain-sum-of-heads",
        "Each head's OV circuit is a full-rank d_model x d_model map.",
        "ov-circuit-full-rank",
    ),
    (
        "interview-answers-pruning",
        "Pruning shows you could train with fewer heads from the start.",
        "train-fewer-heads-from-start",
    ),
    (
        "training-memory-explain-budget",
        "No need for fp32 master weights, so the total is 84 GB.",
        "no-master-weights",
    ),
    (
        "serving-explain-speculative",
        "Speculative decoding trades quality for speed.",
        "speculative-changes-outputs",
    ),
    (
        "cross-attention-explain-decoder-layer",
        "Cross-attention reuses the same causal mask.",
        "cross-attention-is-causal",
    ),
    (
        "serving-explain-capacity",
        "Take the ceiling of free memory over the cache per request.",
        "round-up-requests",
    ),
    ("tensor-parallel-explain-cost", "TP communicates only in the backward pass.", "tp-comm-only-backward"),
    (
        "training-memory-explain-attention-activations",
        "Full checkpointing is free.",
        "full-checkpointing-free",
    ),
    ("training-memory-explain-attention-activations", "Recomputation is free.", "recomputation-is-free"),
    # issue 34, second round
    ("interview-answers-role-of-wo", "Drop W_O and nothing is lost.", "wo-is-redundant"),
    ("interview-answers-role-of-wo", "W_O is redundant.", "wo-is-redundant"),
    ("long-context-explain-options", "Memory is fine; compute is the problem.", "compute-is-the-wall"),
    (
        "long-context-explain-options",
        "The KV cache has a constant size, so memory is fine.",
        "compute-is-the-wall",
    ),
    ("long-context-explain-options", "Memory isn't the issue, compute is.", "compute-is-the-wall"),
    ("scaled-dot-product-explain-stable-softmax", "We divide the scores by the max.", "divide-by-max"),
    ("scaled-dot-product-explain-stable-softmax", "Divide by the max so the largest is 1.", "divide-by-max"),
    ("kv-cache-explain-reduce", "Paging doesn't help memory.", "paging-shrinks-entries"),
    ("kv-cache-explain-reduce", "Paging saves no memory.", "paging-shrinks-entries"),
    (
        "code-reading-explain-mha",
        "Each head is already small, so there is no need to scale.",
        "mask-after-softmax-or-no-scale",
    ),
    (
        "cost-explain-score-memory",
        "FlashAttention takes the FLOPs from quadratic to linear.",
        "flash-reduces-flops",
    ),
    ("interview-answers-why-gqa", "GQA regularises the model, so it beats MHA.", "gqa-beats-mha-quality"),
    ("interview-answers-kv-cache-complexity", "Decoding stays compute-bound.", "caching-is-approximate"),
    (
        "interview-answers-flash-attention",
        "The results drift slightly from standard attention.",
        "flash-is-approximate",
    ),
    (
        "interview-answers-flash-attention",
        "The backward works without recomputation.",
        "flash-stores-probabilities",
    ),
    ("kv-cache-explain-derive", "The cache is quadratic in T.", "cache-quadratic-in-length"),
    (
        "long-context-explain-sinks",
        "It remembers the whole stream, including the middle.",
        "sinks-extend-memory",
    ),
    (
        "long-context-explain-kv-compression",
        "KIVI uses per-token keys and per-channel values.",
        "kivi-axes-swapped",
    ),
    ("mla-explain-memory-budget", "MHA would be in the same ballpark.", "mha-barely-larger"),
    (
        "mla-explain-memory-budget",
        "An MHA version would not be much bigger: it ends up in the same ballpark as MLA.",
        "mha-barely-larger",
    ),
    ("mqa-gqa-explain-tradeoff", "The win is only in parameters.", "gqa-saves-flops"),
    ("numerics-explain-stable-softmax", "Subtracting the mean makes the softmax safe.", "subtract-the-mean"),
    ("numerics-explain-stable-softmax", "We subtract the mean of the row.", "subtract-the-mean"),
    ("output-projection-explain-role", "Without W_O the layer is exactly the same.", "removing-wo-is-free"),
    (
        "output-projection-explain-sum-of-heads",
        "Heads occupy disjoint coordinates.",
        "heads-write-disjoint-slices",
    ),
    (
        "positional-rope-explain-relative",
        "The cross terms of the added sinusoids give product to sum.",
        "relative-from-product-to-sum",
    ),
    ("real-models-card-mistral", "Mistral 7B uses MQA.", "mistral-uses-mqa"),
    ("real-models-card-falcon", "Falcon-7B uses GQA.", "falcon-7b-uses-gqa"),
    (
        "scaled-dot-product-explain-fully-masked",
        "The NaN stays in that row; the loss is unaffected.",
        "nan-stays-local",
    ),
    ("training-memory-explain-jacobian", "The Jacobian is memory hungry.", "jacobian-materialised"),
    (
        "what-heads-learn-verify-a-head",
        "High saliency on the stripe proves it is an induction head.",
        "pattern-defines-induction-head",
    ),
    (
        "training-memory-explain-attention-activations",
        "With FlashAttention the memory is still quadratic.",
        "flash-still-quadratic",
    ),
    ("training-memory-explain-jacobian", "You have to keep both the scores and p.", "backward-needs-scores"),
    ("training-memory-explain-jacobian", "It acts like an elementwise sigmoid.", "softmax-is-elementwise"),
    ("mqa-gqa-explain-tradeoff", "There is no reason to use MHA anymore.", "mqa-no-quality-cost"),
    ("cost-explain-flops-breakdown", "More heads cost nothing in score memory.", "scores-independent-of-h"),
    ("debugging-explain-tpot-regression", "Decode is compute-bound, so count FLOPs.", "decode-compute-bound"),
    ("debugging-explain-tpot-regression", "Decode steps are compute bound.", "decode-compute-bound"),
    (
        "debugging-explain-tpot-regression",
        "TPOT is compute bound, so divide FLOPs by peak.",
        "decode-compute-bound",
    ),
    ("serving-explain-decode", "Decode would be compute-bound at any batch.", "decode-is-compute-bound"),
    (
        "scaled-dot-product-explain-stable-softmax",
        "We divide the scores by the max, which would keep exp below 1.",
        "divide-by-max",
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "If we divide by the max, exp never overflows.",
        "divide-by-max",
    ),
    ("interview-answers-convert-mha-to-gqa", "The converted model works as is.", "no-uptraining-needed"),
    (
        "interview-answers-convert-mha-to-gqa",
        "Keep one KV head per group and drop the rest.",
        "keep-one-kv-head-per-group",
    ),
    (
        "what-heads-learn-verify-a-head",
        "The previous-token head is irrelevant.",
        "previous-token-head-irrelevant",
    ),
    (
        "scaled-dot-product-explain-fully-masked",
        "The NaN stays put and the loss is unaffected.",
        "nan-stays-local",
    ),
]


# Issue 34, naming the misconception a candidate states: each form added for a contradicted point the reader
# missed (dev4, dev5) is held to a correct sentence in the same words and to the misconception said plainly.
CORRECT += [
    (
        "cost-explain-decode-kv",
        "The weights don't fit in L2 or SRAM, so they are streamed from HBM at every step.",
    ),
    (
        "cost-explain-decode-kv",
        "Only a tile of the weights is held in SRAM at a time; the rest stays in HBM.",
    ),
    (
        "debugging-explain-rope-theta",
        "A larger base makes the rotations slower; a smaller base makes them faster, so the slow pairs wrap.",
    ),
    ("debugging-explain-rope-theta", "Raising the base does not improve retrieval without fine-tuning."),
    (
        "debugging-explain-rope-theta",
        "Don't switch to ALiBi: a RoPE-trained model can't be converted without retraining.",
    ),
    (
        "debugging-explain-tpot-regression",
        "FLOPs per token divided by peak FLOPs gives a compute time far below the byte time, so compare TPOT"
        " with the byte floor instead.",
    ),
    (
        "dimensions-explain-why-dk-d-over-h",
        "It's a convention; any other choice works too, since W_O maps h*d_v back.",
    ),
    (
        "dimensions-explain-why-dk-d-over-h",
        "The concatenation need not be d_model wide: W_O maps it back, so the residual add never fails.",
    ),
    (
        "flash-attention-explain-why-faster",
        "Standard attention stores P for the backward pass; FlashAttention recomputes it.",
    ),
    (
        "flash-attention-explain-why-faster",
        "In the backward pass it stores only the row max and the sum and recomputes P.",
    ),
    (
        "interview-answers-kv-cache-complexity",
        "Generating N tokens is O(N^2) with the cache and O(N^3) without.",
    ),
    (
        "interview-answers-kv-cache-complexity",
        "The projection work per step is constant, but the attention grows with t.",
    ),
    ("interview-answers-kv-cache-complexity", "Each step is not O(1): the new query attends over t keys."),
    (
        "long-context-explain-sinks",
        "Even if the first tokens are just newlines, not the system prompt, keeping them works.",
    ),
    (
        "mla-explain-absorption",
        "The latent is a learned low-rank compression, and absorption itself is exact, not an approximation.",
    ),
    ("mla-explain-absorption", "RoPE does not work the same way: the rotation depends on the position."),
    (
        "moe-explain-expert-parallel",
        "The all-to-all moves tokens, not weights: each expert's weights stay on its GPU.",
    ),
    (
        "moe-explain-expert-parallel",
        "Hot experts are replicated, so a few GPUs hold a copy of the popular experts.",
    ),
    (
        "multiple-heads-explain-why",
        "Each head gives its own weighted average of the values, and W_O combines the heads.",
    ),
    ("multiple-heads-explain-why", "The heads are not averaged: they are concatenated and W_O mixes them."),
    ("numerics-explain-mask-values", "-1e9 is fine in fp32 but overflows to -inf when cast to fp16."),
    (
        "numerics-explain-mask-values",
        "Use a mask value that is representable in fp16, such as finfo(fp16).min.",
    ),
    (
        "pipeline-comms-explain-microbatches",
        "Micro-batch size 1 is a bad idea: the GPU's matmuls become inefficient.",
    ),
    ("pipeline-comms-explain-microbatches", "The bubble fraction depends on both p and m: (p-1)/(m+p-1)."),
    ("pipeline-comms-explain-microbatches", "Keep m as large as possible within memory, at least 4p."),
    (
        "pipeline-comms-explain-small-allreduce",
        "The ring's bandwidth term barely depends on the GPU count, but its latency term grows with 2(p-1).",
    ),
    (
        "positional-rope-explain-relative",
        "Unlike added sinusoids, RoPE is exactly relative, not approximately relative.",
    ),
    (
        "quantisation-sampling-explain-formats",
        "INT4 weight-only kernels dequantise to bf16, so the math is no faster;"
        " only the weight reads are 4x smaller.",
    ),
    (
        "queueing-goodput-explain-autoscaling",
        "At 95% utilisation the GPUs are not saturated: it reads near 100% at any batch.",
    ),
    (
        "queueing-goodput-explain-autoscaling",
        "Don't just set a higher threshold; utilisation is the wrong signal.",
    ),
    (
        "real-models-explain-read-config",
        "d_head = hidden_size / num_attention_heads, not hidden_size / num_key_value_heads.",
    ),
    (
        "scaled-dot-product-explain-sqrt",
        "The softmax is shift invariant, but it is affected by the size of the scores:"
        " large ones make it one-hot.",
    ),
    (
        "serving-explain-capacity",
        "The weights are per model but the cache is per request, so it sets the count.",
    ),
    (
        "serving-explain-continuous-batching",
        "Continuous batching means requests join and leave at every step,"
        " unlike a static batch that runs until all of them finish.",
    ),
    (
        "serving-explain-continuous-batching",
        "Under memory pressure a preempted sequence's blocks can be swapped to CPU memory and back.",
    ),
    (
        "serving-explain-slo-sizing",
        "The number of requests is not only limited by KV memory but also by the TPOT target.",
    ),
    (
        "serving-explain-speculative",
        "It helps most at small batch, where decode is bandwidth-bound, and less at large batch.",
    ),
    (
        "serving-explain-speculative",
        "At small batch the verifier uses idle compute to check k tokens in one pass.",
    ),
    (
        "what-heads-learn-honest-answer",
        "The heatmap tells you where a head looks; ablation tells you its role.",
    ),
    (
        "cost-explain-score-memory",
        "Unlike sparse or low-rank approximations, FlashAttention is exact: it tiles the work.",
    ),
    (
        "cross-attention-explain-architectures",
        "Causal attention skips half the matrix but is still quadratic.",
    ),
    (
        "cross-attention-explain-architectures",
        "Decoder-only won because one objective on raw text scales simply,"
        " not because causal attention is cheaper.",
    ),
    (
        "cross-attention-explain-beyond-text",
        "W_Q is d_model x d_model, but W_K and W_V take the context width.",
    ),
    ("dimensions-explain-fused-qkv", "Its output, of width 3 d_model, is split and used as Q, K and V."),
    (
        "interview-answers-gqa-where-it-helps",
        "It barely speeds up training, since training is compute-bound.",
    ),
    (
        "interview-answers-mqa-memory-32-heads",
        "MQA keeps 32 query heads but caches only one K and one V head.",
    ),
    (
        "long-context-explain-kv-compression",
        "GQA can't be switched on for a trained model without uptraining.",
    ),
    ("mla-explain-memory-budget", "MLA compresses both keys and values, not only the keys, into one latent."),
    ("multiple-heads-explain-what-heads-learn", "Not every head is interpretable; many can be pruned."),
    (
        "numerics-explain-stable-softmax",
        "Subtract the row max, not the mean: only the max bounds every exponent at 0.",
    ),
    ("output-projection-explain-next-layer", "Modern models keep W_O; none dropped it."),
    ("parameters-explain-gqa-count", "Not all four matrices shrink: W_Q and W_O stay d x d."),
    ("parameters-explain-gqa-count", "The model does not get much smaller; the KV cache does."),
    (
        "positional-rope-explain-compare",
        "ALiBi extrapolates well, unlike learned embeddings, which can't go past the training length.",
    ),
    ("positional-rope-explain-compare", "ALiBi is not learned: its slopes are fixed."),
    (
        "quantisation-sampling-explain-kv",
        "Quantising the weights does not quantise the KV cache: K and V are written in bf16.",
    ),
    (
        "queueing-goodput-explain-utilisation",
        "GPUs can run flat out for throughput, but latency explodes near 100%.",
    ),
    (
        "real-models-explain-evolution",
        "Modern LLMs don't use linear attention instead of softmax; the mechanism is unchanged.",
    ),
    ("real-models-explain-evolution", "GPT-3 175B has a d_model of 12288 with 96 heads of 128."),
    (
        "scaled-dot-product-explain-causal",
        "A separate padding mask is needed so the model doesn't attend to padding tokens;"
        " the causal mask hides the future.",
    ),
    (
        "tensor-parallel-explain-cost",
        "TP does not run different requests on each GPU; that's data parallelism.",
    ),
    (
        "tensor-parallel-explain-cost",
        "The heads are independent until W_O, but one all-reduce per block is still needed.",
    ),
    (
        "tensor-parallel-explain-walkthrough",
        "No GPU keeps a full copy of the weights: each holds its heads' slices.",
    ),
    (
        "training-memory-explain-budget",
        "Mixed precision does not halve everything: Adam keeps fp32 master weights, m and v.",
    ),
    (
        "cost-explain-flops-breakdown",
        "Each head does 2 B T^2 d_k, so all h heads together do 2 B T^2 d, independent of h.",
    ),
    (
        "parameters-explain-derive-4d2",
        "The total is 4d^2, not (3h + 1) d^2, since Q, K, V together are 3 d^2.",
    ),
    (
        "pipeline-comms-explain-small-allreduce",
        "A small all-reduce is latency-bound, so you don't need more bandwidth; bucket the gradients.",
    ),
]
MISCONCEPTIONS += [
    ("cost-explain-decode-kv", "After the first step the weights are cached in L2.", "weights-stay-on-chip"),
    (
        "debugging-explain-rope-theta",
        "A smaller base makes the rotations slower.",
        "smaller-base-slower-rotations",
    ),
    (
        "debugging-explain-rope-theta",
        "Just raise it to get better retrieval without any fine-tuning.",
        "raise-theta-no-finetune",
    ),
    ("debugging-explain-rope-theta", "I'd switch the model to ALiBi.", "raise-theta-no-finetune"),
    (
        "debugging-explain-tpot-regression",
        "Take 2N FLOPs, divide by the peak FLOPs and compare with TPOT.",
        "decode-compute-bound",
    ),
    ("dimensions-explain-why-dk-d-over-h", "Any other value doesn't type-check.", "other-head-size-breaks"),
    (
        "dimensions-explain-why-dk-d-over-h",
        "The heads must be exactly d_model wide or the residual add breaks.",
        "concat-must-equal-residual",
    ),
    (
        "flash-attention-explain-why-faster",
        "The backward pass stores the sparse P.",
        "backward-reads-stored-p",
    ),
    ("interview-answers-kv-cache-complexity", "With the cache each step is O(1).", "step-is-constant-time"),
    (
        "interview-answers-kv-cache-complexity",
        "Generating N tokens is O(N) in total.",
        "caching-makes-generation-linear",
    ),
    (
        "long-context-explain-sinks",
        "The first few tokens hold the system prompt.",
        "first-tokens-carry-meaning",
    ),
    ("mla-explain-absorption", "MLA approximates the keys with the latent.", "absorption-is-approximate"),
    ("mla-explain-absorption", "RoPE works the same way.", "rope-can-be-absorbed"),
    (
        "moe-explain-expert-parallel",
        "The all-to-all is there to sync the expert weights.",
        "a2a-moves-weights",
    ),
    ("moe-explain-expert-parallel", "Every GPU needs a copy of every expert.", "a2a-moves-weights"),
    ("multiple-heads-explain-why", "The heads are averaged at the end.", "heads-averaged"),
    ("numerics-explain-mask-values", "-1e9 is representable in fp16.", "mask-fits-fp16"),
    (
        "pipeline-comms-explain-microbatches",
        "The best choice is micro-batch size 1.",
        "smallest-microbatch-best",
    ),
    (
        "pipeline-comms-explain-microbatches",
        "The bubble depends only on the number of stages.",
        "fewer-shrinks-bubble",
    ),
    ("pipeline-comms-explain-microbatches", "Keep m as small as possible.", "fewest-microbatches-best"),
    (
        "pipeline-comms-explain-small-allreduce",
        "The ring time doesn't depend on the GPU count.",
        "ring-latency-flat-in-p",
    ),
    (
        "pipeline-comms-explain-small-allreduce",
        "The NIC drops to a lower link speed.",
        "small-is-bandwidth-bound",
    ),
    ("positional-rope-explain-relative", "RoPE is only approximately relative.", "shift-changes-logit"),
    ("quantisation-sampling-explain-formats", "INT4 math is 4x faster than bf16.", "int4-uses-int4-cores"),
    (
        "queueing-goodput-explain-autoscaling",
        "At 95% utilisation the GPUs are saturated.",
        "util-means-saturated",
    ),
    (
        "queueing-goodput-explain-autoscaling",
        "Just scale with a higher threshold.",
        "scale-on-gpu-util",
    ),
    ("real-models-explain-read-config", "d_head = hidden_size / num_key_value_heads.", "dhead-over-kv-heads"),
    (
        "scaled-dot-product-explain-sqrt",
        "The softmax itself isn't affected by the size of the scores.",
        "softmax-scale-invariant",
    ),
    ("serving-explain-capacity", "The cache is per model, not per request.", "cache-per-model"),
    (
        "serving-explain-continuous-batching",
        "Requests are put into a fixed batch that runs until all finish.",
        "continuous-means-back-to-back",
    ),
    (
        "serving-explain-continuous-batching",
        "Paged KV stores the cache in CPU memory.",
        "paging-means-cpu-offload",
    ),
    ("serving-explain-slo-sizing", "TTFT is just a memory read.", "prefill-bandwidth-bound"),
    ("serving-explain-slo-sizing", "Capacity is only limited by KV memory.", "memory-alone-sets-capacity"),
    ("serving-explain-speculative", "It helps most at large batch.", "speculative-best-at-high-batch"),
    ("serving-explain-speculative", "The draft fills the idle compute.", "speculative-at-high-batch"),
    (
        "what-heads-learn-honest-answer",
        "You can read the function off its heatmap.",
        "heatmaps-main-evidence",
    ),
    (
        "what-heads-learn-honest-answer",
        "You can read the role off the attention pattern.",
        "attention-is-explanation",
    ),
    (
        "cost-explain-score-memory",
        "FlashAttention uses a sparse approximation of the attention matrix.",
        "flash-skips-scores",
    ),
    ("cross-attention-explain-architectures", "BERT can generate text too.", "encoder-only-generates"),
    (
        "cross-attention-explain-architectures",
        "Decoder-only won because causal attention is cheaper.",
        "decoder-only-won-causal-cheaper",
    ),
    (
        "cross-attention-explain-beyond-text",
        "All the projections stay d_model x d_model.",
        "streams-must-share-width",
    ),
    ("dimensions-explain-fused-qkv", "Fusing saves two thirds of the parameters.", "fused-saves-parameters"),
    ("interview-answers-gqa-where-it-helps", "It speeds up training too.", "gqa-speeds-up-training"),
    (
        "interview-answers-mqa-memory-32-heads",
        "MQA keeps 32 query heads plus one K and one V.",
        "cache-stores-queries",
    ),
    (
        "long-context-explain-kv-compression",
        "GQA can be switched on for any trained model.",
        "gqa-no-retraining",
    ),
    ("mla-explain-memory-budget", "MLA compresses only the keys.", "mla-compresses-only-keys"),
    ("mla-explain-memory-budget", "It is about half of what MHA stores.", "mha-barely-larger"),
    ("multiple-heads-explain-what-heads-learn", "Every head is essential.", "every-head-has-clean-role"),
    ("numerics-explain-stable-softmax", "Subtract the row mean before the softmax.", "subtract-the-mean"),
    ("output-projection-explain-next-layer", "Modern models dropped W_O.", "modern-models-drop-wo"),
    ("parameters-explain-gqa-count", "All four matrices shrink by n_kv/n_heads.", "wq-shrinks-too"),
    ("parameters-explain-gqa-count", "With GQA the model gets much smaller.", "gqa-large-parameter-saving"),
    ("positional-rope-explain-compare", "Learned embeddings extrapolate fine.", "learned-extrapolates"),
    ("positional-rope-explain-compare", "ALiBi is learned.", "alibi-learned-slopes"),
    (
        "quantisation-sampling-explain-kv",
        "Quantising the weights also quantised the KV cache.",
        "awq-quantises-cache",
    ),
    (
        "queueing-goodput-explain-utilisation",
        "95% is fine for latency as long as you stay under 100%.",
        "latency-linear-in-load",
    ),
    ("queueing-goodput-explain-utilisation", "GPUs are designed to run flat out.", "full-utilisation-free"),
    (
        "real-models-explain-evolution",
        "Modern LLMs use linear attention instead of softmax.",
        "softmax-replaced-by-linear",
    ),
    ("real-models-explain-evolution", "They use fewer, bigger heads.", "head-size-grew"),
    (
        "scaled-dot-product-explain-causal",
        "The causal mask is needed so the model doesn't attend to padding tokens.",
        "causal-mask-for-padding",
    ),
    ("tensor-parallel-explain-cost", "TP runs different requests on each GPU.", "tp-runs-different-requests"),
    ("tensor-parallel-explain-cost", "It costs nothing in communication.", "tp-is-communication-free"),
    (
        "tensor-parallel-explain-walkthrough",
        "Each GPU keeps a full copy of the weights.",
        "tp-splits-tokens",
    ),
    ("training-memory-explain-budget", "Mixed precision halves everything.", "weights-only-budget"),
    ("cost-explain-flops-breakdown", "The scores cost h·2BT²d.", "score-flops-times-h"),
    ("parameters-explain-derive-4d2", "In total that is (3h + 1) d^2.", "total-3h-plus-1"),
    (
        "pipeline-comms-explain-small-allreduce",
        "It is too small, so you need more bandwidth.",
        "small-is-bandwidth-bound",
    ),
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _misconceptions(catalog: Catalog, question_id: str, text: str) -> list[str]:
    inst = catalog.instance(question_id, 0)
    reading = read_explanation(text, inst.point_specs, inst.rejects)
    return [f"{m.id}: {m.evidence.text!r}" for m in reading.misconceptions]


@pytest.mark.parametrize(("question_id", "sentence"), CORRECT)
def test_correct_sentence_names_no_misconception(catalog: Catalog, question_id: str, sentence: str) -> None:
    assert _misconceptions(catalog, question_id, sentence) == []


@pytest.mark.parametrize(("question_id", "sentence", "reject_id"), MISCONCEPTIONS)
def test_plain_misconception_is_still_caught(
    catalog: Catalog, question_id: str, sentence: str, reject_id: str
) -> None:
    named = _misconceptions(catalog, question_id, sentence)
    assert any(n.startswith(f"{reject_id}:") for n in named), named
