"""Provides every calculator; importing this package registers them in engine.CALCULATORS.

One module per area:

- dimensions: head_dim, the d_k = d_model / h arithmetic every other calculator builds on
- shapes: attention_shape, the shape of every tensor and weight, step by step
- parameters: parameter counts for MHA, GQA and MQA layers, and one wide head against many
- kv_cache: KV-cache sizes and the MHA/GQA/MQA savings ratio
- cost: the FLOPs of an attention layer's matmuls and the memory of its score matrix
- debugging: from a serving symptom to its cause (step terms, cache hits and the tail, verify cost, RoPE)
- entry: attention_entry, one entry of a small worked attention example
- flash: FlashAttention's online softmax, block by block, and the memory it avoids
- latent: multi-head latent attention (MLA) cache sizes, ratios and shapes
- long_context: sliding-window reach, rolling and sink caches, sparse and linear costs
- masks: padded batches, packed documents, chunked decoding and position ids under left padding
- pipeline_comms: pipeline bubbles and micro-batches in flight, alpha-beta message and all-reduce times
- moe: mixture of experts: total and active parameters, top-k FLOPs, all-to-all, capacity, EP x TP
- numerics: format limits, overflow of exp, the max-subtracted softmax, soft-capping, mask constants
- parallel: tensor-parallel attention sizes per GPU
- positions: RoPE angles, rotations and wavelengths, and ALiBi biases
- quant_sampling: INT4 weight-only against FP8 W8A8 (bits, bytes, step bounds), temperature, top-k, top-p
- queueing: Little's law, a busy server's wait, goodput under an SLO, KV admission and autoscaling
- serving: FLOPs per token, decode speed bounded by memory bandwidth, batch capacity, intensity
- serving_math: speculative decoding, roofline, TTFT and TPOT, split-KV (time)
- serving_capacity: KIVI cache, GPUs to fit, prefix caching (memory)
- long_range: local-global KV, ring-attention chunks, NTK base, Llama 3.1 rope factor, differential attention
- toy_heads: what the trained toy transformer's heads do, answered by running it
- training_memory: activations, recomputation, the softmax Jacobian, bytes per parameter
- case_serving, case_attention, case_decoding, case_kernels, case_budget: the chained steps of the case
  studies (serving on several GPUs, decode intensity, speculative decoding, split-KV and ring kernels,
  roofline budgets), each step a calculator of its own; case_chain: steps that build on an earlier
  step's quantity (a per-token cache times tokens, a cache at another precision, some layers' cache scaled)

`common` holds the checks they share (positive sizes, divisibility, wrong turns).

Every calculator also takes the keyword `worked=False` (see engine.calculator.calculate_value): it makes
the same checks and computes the same value, then returns before writing the steps and misconceptions.
"""

from engine.calculators import (
    case_attention,
    case_budget,
    case_chain,
    case_decoding,
    case_kernels,
    case_serving,
    cost,
    debugging,
    dimensions,
    entry,
    flash,
    kv_cache,
    latent,
    long_context,
    long_range,
    masks,
    moe,
    numerics,
    parallel,
    parameters,
    pipeline_comms,
    positions,
    quant_sampling,
    queueing,
    serving,
    serving_capacity,
    serving_math,
    shapes,
    toy_heads,
    training_memory,
)

__all__ = [
    "case_attention",
    "case_budget",
    "case_chain",
    "case_decoding",
    "case_kernels",
    "case_serving",
    "cost",
    "debugging",
    "dimensions",
    "entry",
    "flash",
    "kv_cache",
    "latent",
    "long_context",
    "long_range",
    "masks",
    "moe",
    "numerics",
    "parallel",
    "parameters",
    "pipeline_comms",
    "positions",
    "quant_sampling",
    "queueing",
    "serving",
    "serving_capacity",
    "serving_math",
    "shapes",
    "toy_heads",
    "training_memory",
]
