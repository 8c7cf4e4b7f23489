"""Provides published accelerator specifications, so serving questions use checked hardware numbers.

Speeds are the vendor's own, for one GPU: bandwidths in GB/s (decimal), throughput in dense TFLOPS (the
datasheets' headline tensor numbers for NVIDIA parts are "with sparsity"; the dense figure is half of
that, and is the one a roofline uses). Interconnect is the GPU-to-GPU bandwidth per GPU as the vendor
quotes it (NVLink: both directions summed).

Memory is what the device reports, not the product name. The "80GB" in "H100 80GB" is a nominal name:
nvidia-smi shows 81,559 MiB on an H100 SXM (79.6 GiB, 85.5e9 bytes) and 81,920 MiB (80 GiB) on an A100
80GB. A capacity question therefore works from `memory_mib` / `memory_gib` (MiB and GiB are powers of 2);
`memory_gb` keeps the name's nominal number for labels only. Each preset names where its MiB come from.

    key        name GB  reported MiB  HBM GB/s  bf16 TFLOPS  fp8 TFLOPS  link GB/s   ridge (bf16 FLOP/B)
    a100-80gb       80        81,920     2,039        312        None        600       153
    h100-sxm        80        81,559     3,350        989.5      1,979       900       295
    h200           141       143,771     4,800        989.5      1,979       900       206
    b200           180       183,359     8,000      2,250        4,500     1,800       281
    mi300x         192       196,288     5,300      1,307.4      2,614.9     896       247
    l4              24        23,034       300        121          242.5      64       403

A100 has no FP8 tensor cores, so its fp8 throughput is None: a question that needs it must not draw it.
The L4 (Ada) does have FP8 tensor cores: 485 TFLOPS with sparsity, 242.5 dense. The L4 has no NVLink;
its "link" is PCIe Gen4 x16 (64 GB/s, both directions). Its memory is GDDR6, not HBM.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Accelerator:
    """One GPU's published limits: what bounds a decode step (bandwidth) and a prefill (throughput)."""

    key: str
    name: str
    memory_gb: float
    """The nominal capacity in the product's name ("80GB"), decimal GB: a label, not a budget."""
    memory_mib: int
    """Total memory as the device reports it (nvidia-smi's Memory-Usage total; rocm-smi's VRAM total / 2^20),
    in MiB (2^20 bytes): the capacity a serving engine's budget starts from."""
    memory_source: str
    """Where `memory_mib` was read: a real device's nvidia-smi / rocm-smi output."""
    bandwidth_gb_s: float
    """Peak memory bandwidth, decimal GB/s."""
    bf16_tflops: float
    """Dense bf16 tensor throughput, TFLOPS (10^12 FLOP/s), without 2:4 sparsity."""
    fp8_tflops: float | None
    """Dense fp8 tensor throughput, TFLOPS; None when the part has no FP8 tensor cores."""
    interconnect_gb_s: float
    """GPU-to-GPU bandwidth per GPU (NVLink / Infinity Fabric; PCIe for the L4), decimal GB/s."""
    source: str
    memory_gib: float = field(init=False)
    """`memory_mib` in GiB (2^30 bytes), for decks: an H100 SXM's 81,559 MiB is 79.65 GiB."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "memory_gib", self.memory_mib / 1024)
        sizes = {
            "memory_gb": self.memory_gb,
            "memory_mib": self.memory_mib,
            "bandwidth_gb_s": self.bandwidth_gb_s,
            "bf16_tflops": self.bf16_tflops,
            "interconnect_gb_s": self.interconnect_gb_s,
        }
        bad = [f"{k}={v}" for k, v in sizes.items() if not v > 0]
        if self.fp8_tflops is not None and not self.fp8_tflops > 0:
            bad.append(f"fp8_tflops={self.fp8_tflops}")
        if bad:
            raise ValueError(f"{self.key}: sizes must be positive, got {', '.join(bad)}")
        if not self.source.strip() or not self.memory_source.strip():
            raise ValueError(f"{self.key}: a source is empty; name where the numbers come from")

    @property
    def memory_bytes(self) -> int:
        """Memory in bytes as the device reports it (MiB x 2^20), not the name's nominal GB x 10^9."""
        return self.memory_mib * 2**20


_ALL: tuple[Accelerator, ...] = (
    # NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM column): 80GB HBM2e, 2,039 GB/s, BF16 Tensor
    # Core 312 TFLOPS (624 with sparsity), NVLink 600 GB/s; Ampere has no FP8.
    Accelerator(
        "a100-80gb",
        "A100 80GB SXM",
        80,
        81920,
        "nvidia-smi on an A100 80GB SXM: 81920MiB total",
        2039,
        312,
        None,
        600,
        "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM): 80 GB HBM2e, 2,039 GB/s, BF16 312 TFLOPS "
        "dense (624 with sparsity), NVLink 600 GB/s; no FP8",
    ),
    # NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column): 80GB, 3.35 TB/s, BF16 1,979 TFLOPS* and
    # FP8 3,958 TFLOPS* (*with sparsity), NVLink 900 GB/s. Hopper whitepaper: dense BF16 989.4 TFLOPS.
    Accelerator(
        "h100-sxm",
        "H100 SXM",
        80,
        81559,
        "nvidia-smi on an H100 80GB HBM3 (SXM): 81559MiB total (79.6 GiB, 85.5e9 B)",
        3350,
        989.5,
        1979,
        900,
        "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM): 80 GB HBM3, 3.35 TB/s, BF16 1,979 and FP8 "
        "3,958 TFLOPS with sparsity (dense: half), NVLink 900 GB/s",
    ),
    # NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column): 141GB HBM3e, 4.8 TB/s, same Hopper compute
    # as H100 SXM (BF16 1,979*, FP8 3,958* with sparsity), NVLink 900 GB/s.
    Accelerator(
        "h200",
        "H200 SXM",
        141,
        143771,
        "nvidia-smi on an H200 (SXM): 143771MiB total (140.4 GiB)",
        4800,
        989.5,
        1979,
        900,
        "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM): 141 GB HBM3e, 4.8 TB/s, BF16 1,979 and FP8 "
        "3,958 TFLOPS with sparsity (dense: half), NVLink 900 GB/s",
    ),
    # NVIDIA HGX B200 / DGX B200 specifications: 8 GPUs with 1,440 GB and 64 TB/s of HBM3e in all (180 GB
    # and 8 TB/s each), FP8 72 PFLOPS and BF16 36 PFLOPS for 8 GPUs with sparsity (dense per GPU: 4.5 and
    # 2.25 PFLOPS), fifth-generation NVLink 1.8 TB/s per GPU.
    Accelerator(
        "b200",
        "B200 (HGX)",
        180,
        183359,
        "nvidia-smi on a B200 (NVIDIA/TensorRT-LLM issue 10278): 183359MiB total (179.1 GiB)",
        8000,
        2250,
        4500,
        1800,
        "NVIDIA HGX B200 / DGX B200 specifications: 1,440 GB HBM3e and 64 TB/s for 8 GPUs, FP8 72 and "
        "BF16 36 PFLOPS for 8 GPUs with sparsity (dense per GPU: 4.5 and 2.25 PFLOPS), NVLink 1.8 TB/s",
    ),
    # AMD Instinct MI300X data sheet: 192 GB HBM3, 5.3 TB/s, peak BF16 1,307.4 TFLOPS and FP8 2,614.9
    # TFLOPS (dense; 2x with sparsity), Infinity Fabric 7 links x 128 GB/s = 896 GB/s peak per GPU.
    Accelerator(
        "mi300x",
        "MI300X",
        192,
        196288,
        "rocm-smi --showmeminfo vram on an MI300X: VRAM Total Memory (B) 205822885888 = 196288 MiB",
        5300,
        1307.4,
        2614.9,
        896,
        "AMD Instinct MI300X data sheet: 192 GB HBM3, 5.3 TB/s, BF16 1,307.4 and FP8 2,614.9 TFLOPS "
        "dense, 7 Infinity Fabric links x 128 GB/s = 896 GB/s",
    ),
    # NVIDIA L4 Tensor Core GPU datasheet: 24GB GDDR6, 300 GB/s, BF16 242 TFLOPS* and FP8 485 TFLOPS*
    # (*with sparsity), PCIe Gen4 x16 64 GB/s; no NVLink.
    Accelerator(
        "l4",
        "L4",
        24,
        23034,
        "nvidia-smi on an L4: 23034MiB total (22.5 GiB)",
        300,
        121,
        242.5,
        64,
        "NVIDIA L4 Tensor Core GPU datasheet: 24 GB GDDR6, 300 GB/s, BF16 242 and FP8 485 TFLOPS with "
        "sparsity (dense: half), PCIe Gen4 x16 64 GB/s (no NVLink)",
    ),
)

ACCELERATORS: dict[str, Accelerator] = {a.key: a for a in _ALL}
"""Published accelerators by key; decks use them as `gpu: {preset: [h100-sxm, ...]}`."""
