"""Provides published model configurations, so questions about real models use checked numbers.

Every entry was checked against the model's own config file or paper, named in its `source`. The
attention numbers below follow from the configs through the calculators (W_Q + W_K + W_V + W_O, with
biases where the model has them; KV cache per token = 2 x layers x KV heads x d_head x 2 bytes), and
tests/test_calculators.py recomputes this table, so it cannot drift from the engine
(params = attention parameters; KV B/token = KV-cache bytes per token in fp16):

    key              layers heads  kv d_model d_head   ctx  params/layer      all layers KV B/token
    transformer-base      6     8   8     512     64   256     1,048,576       6,291,456     12,288
    transformer-big       6    16  16    1024     64   256     4,194,304      25,165,824     24,576
    bert-base            12    12  12     768     64   512     2,362,368      28,348,416     36,864
    bert-large           24    16  16    1024     64   512     4,198,400     100,761,600     98,304
    gpt2-small           12    12  12     768     64  1024     2,362,368      28,348,416     36,864
    gpt2-medium          24    16  16    1024     64  1024     4,198,400     100,761,600     98,304
    gpt2-large           36    20  20    1280     64  1024     6,558,720     236,113,920    184,320
    gpt2-xl              48    25  25    1600     64  1024    10,246,400     491,827,200    307,200
    gpt3-175b            96    96  96   12288    128  2048   604,028,928  57,986,777,088  4,718,592
    llama-2-7b           32    32  32    4096    128  4096    67,108,864   2,147,483,648    524,288
    llama-2-13b          40    40  40    5120    128  4096   104,857,600   4,194,304,000    819,200
    llama-2-70b          80    64   8    8192    128  4096   150,994,944  12,079,595,520    327,680
    llama-3-8b           32    32   8    4096    128  8192    41,943,040   1,342,177,280    131,072
    llama-3-70b          80    64   8    8192    128  8192   150,994,944  12,079,595,520    327,680
    mistral-7b           32    32   8    4096    128  8192    41,943,040   1,342,177,280    131,072
    falcon-7b            32    71   1    4544     64  2048    41,877,504   1,340,080,128      8,192
    mixtral-8x7b         32    32   8    4096    128 32768    41,943,040   1,342,177,280    131,072
    gemma-7b             28    16  16    3072    256  8192    50,331,648   1,409,286,144    458,752
    qwen2-7b             28    28   4    3584    128 32768    29,364,736     822,212,608     57,344
    llama-3.1-405b      126   128   8   16384    128 131072  570,425,344  71,873,593,344    516,096
    llama-3.1-8b         32    32   8    4096    128 131072   41,943,040   1,342,177,280    131,072
    llama-3.1-70b        80    64   8    8192    128 131072  150,994,944  12,079,595,520    327,680
    gemma-3-27b          62    32  16    5376    128 131072   66,060,288   4,095,737,856    507,904

Gemma 7B's heads are 256 wide although 3072 / 16 = 192 (its config sets head_dim), so W_Q is 3072 x 4096.
Qwen2 7B has biases on W_Q, W_K and W_V but not on W_O. DeepSeek-V2 uses multi-head latent attention: per
token and layer it caches a 512-wide latent plus a 64-wide RoPE key, not per-head keys and values, so it
is left out of the table above (its KV cache comes from the MLA calculator).

How the numbers were checked (the configs were read through the search tool's copies of the Hugging Face
and GitHub files; where only a faithful copy of an official config was stored, its `_name_or_path` names
the original):
- GPT-2: openai-community/gpt2-medium, -large, -xl config.json read directly (n_layer, n_head, n_embd,
  n_ctx); GPT-2 small's 12/12/768/1024 from the transformers pretrained-model table and copies of the
  `gpt2` config. GPT-2 attention has biases (the c_attn / c_proj Conv1D layers).
- BERT: google-research/bert README table (L-12 H-768 A-12, L-24 H-1024 A-16) and google-bert/
  bert-large-uncased config.json (max_position_embeddings 512). BERT's attention Dense layers have biases.
- Llama 2 / Llama 3 / Mistral / Falcon: copies of the official config.json (hidden_size,
  num_attention_heads, num_key_value_heads, num_hidden_layers, max_position_embeddings, attention_bias).
- GPT-3 175B: the paper's Table 2.1 (n_layers 96, d_model 12288, n_heads 96, d_head 128, n_ctx 2048).
Not verifiable from a config file, and chosen as stated:
- GPT-3 `bias=True`: no weights or config were published; the paper says it uses GPT-2's architecture,
  whose attention projections carry biases.
- Transformer base/big context 256: the paper fixes no maximum length; 256 is tensor2tensor's
  `transformer_base_v1` hparams.max_length. No biases: tensor2tensor's compute_attention_component uses
  `use_bias=False`.
- Mistral 7B context 8192: the paper's Table 1 `context_len`; its config.json says
  max_position_embeddings 32768 and sliding_window 4096 (the rolling KV cache holds at most 4096 tokens).
- Falcon-7B context 2048: the model card's training sequence length; the original config.json has no
  max_position_embeddings field (Falcon uses rotary embeddings).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """The attention-relevant shape of one published model.

    `bias` says whether the attention projections (Q, K, V, O) carry bias vectors. `n_kv_heads` equals
    `n_heads` for plain multi-head attention, 1 for multi-query attention and lies between for
    grouped-query attention.
    """

    key: str
    name: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_model: int
    d_head: int
    context_length: int
    bias: bool
    source: str
    o_bias: bool | None = None
    """Whether W_O has a bias; None (the default) means as `bias` says (Qwen2: biases on Q, K, V only)."""
    explicit_head_dim: bool = False
    """The config sets head_dim on its own, so n_heads x d_head need not equal d_model (Gemma 7B)."""
    kv_lora_rank: int = 0
    """Multi-head latent attention (DeepSeek-V2): width of the cached latent c_KV per token per layer."""
    rope_head_dim: int = 0
    """Multi-head latent attention: width of the decoupled RoPE key, cached beside the latent."""

    def __post_init__(self) -> None:
        if self.o_bias is None:  # filled in, so decks can pass `model.o_bias` to a calculator
            object.__setattr__(self, "o_bias", self.bias)
        sizes = {
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "n_kv_heads": self.n_kv_heads,
            "d_model": self.d_model,
            "d_head": self.d_head,
            "context_length": self.context_length,
        }
        bad = [f"{k}={v}" for k, v in sizes.items() if v < 1]
        if bad:
            raise ValueError(f"{self.key}: sizes must be positive, got {', '.join(bad)}")
        if self.n_heads * self.d_head != self.d_model and not self.explicit_head_dim:
            raise ValueError(
                f"{self.key}: n_heads={self.n_heads} x d_head={self.d_head} != d_model={self.d_model}"
            )
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.key}: n_heads={self.n_heads} is not divisible by n_kv_heads={self.n_kv_heads}"
            )
        if not self.source.strip():
            raise ValueError(
                f"{self.key}: source is empty; name the config file or paper the numbers come from"
            )


_AIAYN = (
    "Vaswani et al. 2017, Attention Is All You Need (arXiv:1706.03762), section 3.2.2 and Table 3; "
    "tensor2tensor transformer_base_v1 (max_length 256)"
)
_BERT = (
    "Devlin et al. 2018, BERT (arXiv:1810.04805), section 3; google-research/bert README "
    "({tag}) and google-bert/{hf} config.json"
)
_GPT2 = "openai-community/{hf} config.json (n_layer, n_head, n_embd, n_ctx); openai/gpt-2 models/{size}"
_LLAMA2 = "Touvron et al. 2023, Llama 2 (arXiv:2307.09288), Table 1; meta-llama/Llama-2-{s}-hf config.json"
_LLAMA3 = "meta-llama/Meta-Llama-3-{s} config.json (num_key_value_heads 8, max_position_embeddings 8192)"

_ALL: tuple[ModelConfig, ...] = (
    ModelConfig("transformer-base", "Transformer base", 6, 8, 8, 512, 64, 256, False, _AIAYN),
    ModelConfig("transformer-big", "Transformer big", 6, 16, 16, 1024, 64, 256, False, _AIAYN),
    ModelConfig(
        "bert-base",
        "BERT-Base",
        12,
        12,
        12,
        768,
        64,
        512,
        True,
        _BERT.format(tag="L-12_H-768_A-12", hf="bert-base-uncased"),
    ),
    ModelConfig(
        "bert-large",
        "BERT-Large",
        24,
        16,
        16,
        1024,
        64,
        512,
        True,
        _BERT.format(tag="L-24_H-1024_A-16", hf="bert-large-uncased"),
    ),
    ModelConfig(
        "gpt2-small", "GPT-2 small", 12, 12, 12, 768, 64, 1024, True, _GPT2.format(hf="gpt2", size="124M")
    ),
    ModelConfig(
        "gpt2-medium",
        "GPT-2 medium",
        24,
        16,
        16,
        1024,
        64,
        1024,
        True,
        _GPT2.format(hf="gpt2-medium", size="355M"),
    ),
    ModelConfig(
        "gpt2-large",
        "GPT-2 large",
        36,
        20,
        20,
        1280,
        64,
        1024,
        True,
        _GPT2.format(hf="gpt2-large", size="774M"),
    ),
    ModelConfig(
        "gpt2-xl", "GPT-2 XL", 48, 25, 25, 1600, 64, 1024, True, _GPT2.format(hf="gpt2-xl", size="1558M")
    ),
    ModelConfig(
        "gpt3-175b",
        "GPT-3 175B",
        96,
        96,
        96,
        12288,
        128,
        2048,
        True,
        "Brown et al. 2020, Language Models are Few-Shot Learners (arXiv:2005.14165), Table 2.1 "
        "and section 2.1",
    ),
    ModelConfig("llama-2-7b", "Llama-2 7B", 32, 32, 32, 4096, 128, 4096, False, _LLAMA2.format(s="7b")),
    ModelConfig("llama-2-13b", "Llama-2 13B", 40, 40, 40, 5120, 128, 4096, False, _LLAMA2.format(s="13b")),
    ModelConfig("llama-2-70b", "Llama-2 70B", 80, 64, 8, 8192, 128, 4096, False, _LLAMA2.format(s="70b")),
    ModelConfig("llama-3-8b", "Llama-3 8B", 32, 32, 8, 4096, 128, 8192, False, _LLAMA3.format(s="8B")),
    ModelConfig("llama-3-70b", "Llama-3 70B", 80, 64, 8, 8192, 128, 8192, False, _LLAMA3.format(s="70B")),
    ModelConfig(
        "mistral-7b",
        "Mistral 7B v0.1",
        32,
        32,
        8,
        4096,
        128,
        8192,
        False,
        "Jiang et al. 2023, Mistral 7B (arXiv:2310.06825), Table 1 (context_len 8192, window 4096); "
        "mistralai/Mistral-7B-v0.1 config.json",
    ),
    ModelConfig(
        "falcon-7b",
        "Falcon-7B",
        32,
        71,
        1,
        4544,
        64,
        2048,
        False,
        "tiiuae/falcon-7b config.json (n_layer 32, n_head 71, hidden_size 4544, multi_query true, "
        "bias false) and model card (sequence length 2048)",
    ),
)

_ALL += (
    ModelConfig(
        "mixtral-8x7b",
        "Mixtral 8x7B",
        32,
        32,
        8,
        4096,
        128,
        32768,
        False,
        "Jiang et al. 2024, Mixtral of Experts (arXiv:2401.04088), Table 1; mistralai/Mixtral-8x7B-v0.1 "
        "config.json (num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8, hidden_size "
        "4096, max_position_embeddings 32768, num_local_experts 8, num_experts_per_tok 2)",
    ),
    ModelConfig(
        "gemma-7b",
        "Gemma 7B",
        28,
        16,
        16,
        3072,
        256,
        8192,
        False,
        "Gemma Team 2024, Gemma (arXiv:2403.08295), Table 1; google/gemma-7b config.json (hidden_size 3072, "
        "num_attention_heads 16, num_key_value_heads 16, head_dim 256, num_hidden_layers 28, "
        "max_position_embeddings 8192, attention_bias false)",
        explicit_head_dim=True,
    ),
    ModelConfig(
        "qwen2-7b",
        "Qwen2 7B",
        28,
        28,
        4,
        3584,
        128,
        32768,
        True,
        "Yang et al. 2024, Qwen2 Technical Report (arXiv:2407.10671); Qwen/Qwen2-7B-Instruct config.json "
        "(hidden_size 3584, num_attention_heads 28, num_key_value_heads 4, num_hidden_layers 28, "
        "max_position_embeddings 32768); transformers Qwen2Attention: q_proj, k_proj, v_proj bias=True, "
        "o_proj bias=False",
        o_bias=False,
    ),
    ModelConfig(
        "llama-3.1-405b",
        "Llama-3.1 405B",
        126,
        128,
        8,
        16384,
        128,
        131072,
        False,
        "Llama Team 2024, The Llama 3 Herd of Models (arXiv:2407.21783), Table 3 (126 layers, model "
        "dimension 16,384, 128 attention heads, 8 key/value heads); meta-llama/Llama-3.1-405B config.json "
        "(max_position_embeddings 131072)",
    ),
    ModelConfig(
        "deepseek-v2",
        "DeepSeek-V2",
        60,
        128,
        128,
        5120,
        128,
        131072,
        False,
        "DeepSeek-AI 2024, DeepSeek-V2 (arXiv:2405.04434), section 3.1.1 and appendix (60 layers, d 5120, "
        "128 heads, d_h 128, d_c = 4 d_h = 512, d_h^R = d_h / 2 = 64, 128K context); deepseek-ai/"
        "DeepSeek-V2 config.json (kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, "
        "v_head_dim 128)",
        explicit_head_dim=True,
        kv_lora_rank=512,
        rope_head_dim=64,
    ),
)

_LLAMA31 = (
    "Llama Team 2024, The Llama 3 Herd of Models (arXiv:2407.21783), Table 3; meta-llama/Llama-3.1-{s} "
    "config.json (num_hidden_layers {l}, num_attention_heads {h}, num_key_value_heads 8, hidden_size {d}, "
    "max_position_embeddings 131072, rope_theta 500000, rope_scaling: rope_type llama3, factor 8, "
    "low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192)"
)
_ALL += (
    ModelConfig(
        "llama-3.1-8b", "Llama-3.1 8B", 32, 32, 8, 4096, 128, 131072, False,
        _LLAMA31.format(s="8B", l=32, h=32, d=4096),
    ),
    ModelConfig(
        "llama-3.1-70b", "Llama-3.1 70B", 80, 64, 8, 8192, 128, 131072, False,
        _LLAMA31.format(s="70B", l=80, h=64, d=8192),
    ),
    ModelConfig(
        "gemma-3-27b",
        "Gemma 3 27B",
        62,
        32,
        16,
        5376,
        128,
        131072,
        False,
        "Gemma Team 2025, Gemma 3 Technical Report (arXiv:2503.19786), sections 2.1-2.2 (5 local layers "
        "per global layer, local window 1024, 128K context); google/gemma-3-27b-pt config.json text_config "
        "(num_hidden_layers 62, num_attention_heads 32, num_key_value_heads 16, head_dim 128, hidden_size "
        "5376, sliding_window 1024, sliding_window_pattern 6)",
        explicit_head_dim=True,
    ),
)  # fmt: skip

MODELS: dict[str, ModelConfig] = {m.key: m for m in _ALL}
"""Published presets by key; decks use them as `model: {preset: [...]}`."""
