"""Provides every calculator; importing this package registers them in engine.CALCULATORS.

One module per area:

- dimensions: head_dim, the d_k = d_model / h arithmetic every other calculator builds on
- shapes: attention_shape, the shape of every tensor and weight, step by step
- parameters: parameter counts for MHA, GQA and MQA layers, and one wide head against many
- kv_cache: KV-cache sizes and the MHA/GQA/MQA savings ratio
- cost: the FLOPs of an attention layer's matmuls and the memory of its score matrix
- debugging: from a serving symptom to its cause (step terms, cache hits and the tail, RoPE)
- entry: attention_entry, one entry of a small worked attention example
- flash: FlashAttention's online softmax, block by block, and the memory it avoids
- latent: multi-head latent attention (MLA) cache sizes and ratios
- long_context: sliding-window reach, rolling and sink caches, sparse attention
- masks: padded batches, packed documents, chunked decoding and position ids under left padding
- pipeline_comms: pipeline bubbles, micro-batches in flight, step time and activation memory
- moe: mixture of experts: total and active parameters, top-k FLOPs, all-to-all
- numerics: format limits, overflow of exp, the max-subtracted softmax
- parallel: tensor-parallel attention sizes per GPU
- positions: RoPE angles, rotations, wavelengths and scores
- quant_sampling: INT4 weight-only against FP8 W8A8 (bits, bytes, step bounds, crossover batch)
- queueing: Little's law, a busy server's wait, goodput under an SLO
- serving: FLOPs per token, attention's share of them, paged KV blocks
- serving_math: speculative decoding, roofline, TTFT and TPOT, split-KV (time)
- serving_capacity: KIVI cache, GPUs to fit, prefix caching (memory)
- long_range: local-global KV, ring-attention chunks, NTK base, Llama 3.1 rope factor, differential attention
- toy_heads: what the trained toy transformer's heads do, answered by running it
- training_memory: activations, recomputation, bytes per parameter
- case_serving, case_attention, case_decoding, case_kernels, case_budget: the chained steps of the case
  studies (serving on several GPUs, decode intensity, speculative decoding, split-KV and ring kernels,
  roofline budgets), each step a calculator of its own; case_chain: steps that build on an earlier
  step's quantity (a per-token cache times tokens, a cache at another precision, some layers' cache scaled)
- admission: KV-cache admission: what a request may grow to, how many fit, replicas for a load
- alibi: ALiBi slopes and biases
- collectives: alpha-beta message and all-reduce times, the latency-bound size, TP all-reduces
- decode_memory: decode speed bounded by memory bandwidth, sequences that fit, intensity
- disaggregation: prefill and decode pools: prefill utilisation, interference, instance counts
- latent_shapes: MLA tensor shapes stage by stage
- linear_attention: softmax against linear attention mixing cost, and the crossover
- lm_head: the LM head's FLOPs at decode and how they compare with sorting the vocabulary
- logit_limits: soft-capping and the fill value of masked scores
- moe_capacity: MoE capacity, dropped tokens, the hottest expert, EP x TP weights, experts touched
- rope_scaling: RoPE angles at decode and under position interpolation
- sampling: temperature, top-k, top-p and the nucleus size
- softmax_grad: the softmax Jacobian and the gradient of one score
- spec_load: speculative decoding under load (verify pass, time per output token)
- tp_comms: the bytes a tensor-parallel all-reduce moves per GPU

`common` holds the checks they share (positive sizes, divisibility, wrong turns) and the arguments
many topics share, declared once as `Annotated` aliases.

Every calculator also takes the keyword `worked=False` (see engine.calculator.calculate_value): it makes
the same checks and computes the same value, then returns before writing the steps and misconceptions.
"""

from engine.calculators import (
    admission,
    alibi,
    case_attention,
    case_budget,
    case_chain,
    case_decoding,
    case_kernels,
    case_serving,
    collectives,
    cost,
    debugging,
    decode_memory,
    dimensions,
    disaggregation,
    entry,
    flash,
    kv_cache,
    latent,
    latent_shapes,
    linear_attention,
    lm_head,
    logit_limits,
    long_context,
    long_range,
    masks,
    moe,
    moe_capacity,
    numerics,
    parallel,
    parameters,
    pipeline_comms,
    positions,
    quant_sampling,
    queueing,
    rope_scaling,
    sampling,
    serving,
    serving_capacity,
    serving_math,
    shapes,
    softmax_grad,
    spec_load,
    toy_heads,
    tp_comms,
    training_memory,
)

__all__ = [
    "admission",
    "alibi",
    "case_attention",
    "case_budget",
    "case_chain",
    "case_decoding",
    "case_kernels",
    "case_serving",
    "collectives",
    "cost",
    "debugging",
    "decode_memory",
    "dimensions",
    "disaggregation",
    "entry",
    "flash",
    "kv_cache",
    "latent",
    "latent_shapes",
    "linear_attention",
    "lm_head",
    "logit_limits",
    "long_context",
    "long_range",
    "masks",
    "moe",
    "moe_capacity",
    "numerics",
    "parallel",
    "parameters",
    "pipeline_comms",
    "positions",
    "quant_sampling",
    "queueing",
    "rope_scaling",
    "sampling",
    "serving",
    "serving_capacity",
    "serving_math",
    "shapes",
    "softmax_grad",
    "spec_load",
    "toy_heads",
    "tp_comms",
    "training_memory",
]
