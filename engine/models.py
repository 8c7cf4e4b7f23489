"""Provides published model configurations, so questions about real models use checked numbers.

Each entry was checked against the model's own config file or paper, named in `source`.
Attention parameter counts per layer (W_Q, W_K, W_V, W_O) follow from these numbers through
`engine.calculate("attention_parameters", ...)`; e.g. GPT-2 small: 4 * 768^2 + 4 * 768 = 2,362,368.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """The attention-relevant shape of one published model."""

    key: str
    name: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_model: int
    d_head: int
    context_length: int
    bias: bool
    """Whether the attention projections (Q, K, V, O) carry bias vectors."""
    source: str

    def __post_init__(self) -> None:
        if self.n_heads * self.d_head != self.d_model:
            raise ValueError(
                f"{self.key}: n_heads={self.n_heads} x d_head={self.d_head} != d_model={self.d_model}"
            )
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.key}: n_heads={self.n_heads} not divisible by n_kv_heads={self.n_kv_heads}"
            )

    @property
    def attention_kind(self) -> str:
        """MHA, GQA or MQA, as interviewers name them."""
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"


_AIAYN = "Vaswani et al. 2017, Attention Is All You Need (arXiv:1706.03762), Table 3"
_BERT = "Devlin et al. 2018, BERT (arXiv:1810.04805), section 3; google-research/bert bert_config.json"
_GPT2 = "openai/gpt-2 models/{size}/hparams.json (n_layer, n_head, n_embd, n_ctx); HF gpt2{hf} config.json"
_LLAMA2 = "Touvron et al. 2023, Llama 2 (arXiv:2307.09288), Table 1; meta-llama/Llama-2-{s}-hf config.json"
_LLAMA3 = "meta-llama/Meta-Llama-3-{s} config.json (num_key_value_heads=8, max_position_embeddings=8192)"

_ALL = (
    # The 2017 paper fixes no maximum length; 512 is the length the base model was trained on in
    # tensor2tensor. Its attention layers have no biases (tensor2tensor compute_qkv: use_bias=False).
    ModelConfig("transformer-base", "Transformer base", 6, 8, 8, 512, 64, 512, False, _AIAYN),
    ModelConfig("transformer-big", "Transformer big", 6, 16, 16, 1024, 64, 512, False, _AIAYN),
    ModelConfig("bert-base", "BERT-Base", 12, 12, 12, 768, 64, 512, True, _BERT),
    ModelConfig("bert-large", "BERT-Large", 24, 16, 16, 1024, 64, 512, True, _BERT),
    ModelConfig(
        "gpt2-small", "GPT-2 small", 12, 12, 12, 768, 64, 1024, True, _GPT2.format(size="124M", hf="")
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
        _GPT2.format(size="355M", hf="-medium"),
    ),
    ModelConfig(
        "gpt2-large", "GPT-2 large", 36, 20, 20, 1280, 64, 1024, True, _GPT2.format(size="774M", hf="-large")
    ),
    ModelConfig(
        "gpt2-xl", "GPT-2 XL", 48, 25, 25, 1600, 64, 1024, True, _GPT2.format(size="1558M", hf="-xl")
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
        "Brown et al. 2020, Language Models are Few-Shot Learners (arXiv:2005.14165), Table 2.1",
    ),
    ModelConfig("llama-2-7b", "Llama-2 7B", 32, 32, 32, 4096, 128, 4096, False, _LLAMA2.format(s="7b")),
    ModelConfig("llama-2-13b", "Llama-2 13B", 40, 40, 40, 5120, 128, 4096, False, _LLAMA2.format(s="13b")),
    ModelConfig("llama-2-70b", "Llama-2 70B", 80, 64, 8, 8192, 128, 4096, False, _LLAMA2.format(s="70b")),
    ModelConfig("llama-3-8b", "Llama-3 8B", 32, 32, 8, 4096, 128, 8192, False, _LLAMA3.format(s="8B")),
    ModelConfig("llama-3-70b", "Llama-3 70B", 80, 64, 8, 8192, 128, 8192, False, _LLAMA3.format(s="70B")),
    ModelConfig(
        "mistral-7b",
        "Mistral 7B",
        32,
        32,
        8,
        4096,
        128,
        32768,
        False,
        "Jiang et al. 2023, Mistral 7B (arXiv:2310.06825), Table 1; mistralai/Mistral-7B-v0.1 config.json",
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
        "tiiuae/falcon-7b config.json (hidden_size 4544, n_head 71, multi_query true, bias false)",
    ),
)

MODELS: dict[str, ModelConfig] = {m.key: m for m in _ALL}
