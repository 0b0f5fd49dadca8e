"""Frozen hardware specs of the emulated Ascend chips.

Every number carries its source (docs/hardware-facts.md has the full citations):
  INI  = CANN 8.1.RC1 platform_config/<SoC>.ini (the vendor's own per-chip config files)
  ADK  = CANN asc-devkit docs/sources (hardware spec pages, API constraints)
  DER  = derived by arithmetic from sourced numbers
  ASSUMPTION = no published number found; chosen and documented here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


@dataclass(frozen=True, kw_only=True)
class ChipSpec:
    """One Ascend SoC as the emulator and the cost model see it."""

    name: str
    arch: int  # __NPU_ARCH__: 2201 = 910B (A2), 2002 = 310P, 3002 = 310B
    layout: Literal["separated", "coupled"]  # separated: 1 AIC : 2 AIV; coupled: one core has both
    aic_cores: int  # cube cores (AI Cores in coupled mode)
    aiv_cores: int  # vector cores (== aic_cores in coupled mode: the same cores)
    clock_mhz: int  # AI Core clock
    # On-chip capacities, bytes per core
    ub_bytes: int
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    gm_bytes: int
    l2_bytes: int
    # Alignment, bytes
    ub_align: int = 32  # ADK 通用说明和约束: UB addresses are 32 B aligned
    l1_align: int = 32  # ADK: L1 32 B
    l0ab_align: int = 512  # ADK Mmad.md: L0A/L0B start addresses 512 B aligned (one fractal)
    l0c_align: int = 64  # ADK 通用说明和约束: L0C 64 B (Mmad's own dst needs 1024 B: checked there)
    # Vector unit
    vector_repeat_bytes: int = 256  # ADK 高维切分.md: one repeat = 8 blocks x 32 B
    max_repeat_times: int = 255  # ADK: repeatTime is uint8
    # Framework limits
    que_buffers_per_position: int = 8  # ADK InitBuffer: <= 8 queue buffers per TPosition (A2, 310P)
    max_pipe_buffers: int = 64  # pyasc TPipe.init_buffer docs: <= 64 buffers per kernel
    event_ids: int = 8  # ADK SetFlag-WaitFlag: event ids 0..7 (6 and 7 reserved for the framework)
    # Data rates, bytes per cycle per core (INI [AICoreMemoryRates]; unit inferred as B/cycle, UNC)
    gm_read_bytes_per_cycle: int = 32  # INI "ddr"
    gm_write_bytes_per_cycle: int = 64  # INI "ub_to_ddr"
    # One core's L2 port: INI "l2 read" says 110, but large matmuls on 910B run faster than
    # 110 B/cycle per cube core allows (zzc0721/torch-performance-test-data#109: 314.5 TF at
    # 4096^3); the shared l2_gbps below is the binding limit, this only caps a core that has
    # the L2 to itself. ASSUMPTION: 256 B/cycle, the widest on-chip path of the core (L1->L0A).
    l2_read_bytes_per_cycle: int = 256  # ASSUMPTION (above)
    # L1 -> L0A/L0B: ADK tests/perf/load_data_perf/README.md (dav-2201, LoadData 2D) gives
    # 256 / 128 B/cycle and a 28-cycle latency; the INI's 512 / 256 are twice that (facts 2.4)
    l1_to_l0a_bytes_per_cycle: int = 256  # ADK load_data_perf README
    l1_to_l0b_bytes_per_cycle: int = 128  # ADK load_data_perf README
    l0c_to_ub_bytes_per_cycle: int = 256  # INI
    # Whole-chip bandwidths shared by the active cores, GB/s. hbm_gbps is the peak (the
    # roofline's); transfers run at hbm_sustained_fraction of it.
    hbm_gbps: float
    hbm_source: str
    # Streaming kernels sustain 1.21-1.22 TB/s of the 1.6 TB/s on 910B (FlagGems PR 6324:
    # torch_npu swiglu fp16, 805 MB in 667.2 us and 1.97 GB in 1610.5 us): 0.76. Other chips:
    # ASSUMPTION, the same fraction.
    hbm_sustained_fraction: float = 0.76  # DER: 1.22 / 1.6
    # L2 read/write bandwidth of the whole chip: ADK 算子实践参考/SIMD算子性能优化/内存访问/
    # L2-Cache切分.md, "L2 Cache读写混合带宽约为7TB/s" for the 192 MB-L2 chip (910B4, 96 MB:
    # ASSUMPTION, the same)
    l2_gbps: float = 7000.0  # ADK L2-Cache切分
    # GM transfers whose GM address is not 512 B aligned (32 B aligned) reach 70 % of the
    # 512 B-aligned bandwidth on A2 (ADK .../内存访问/GM地址尽量512B对齐.md, A2 only)
    gm_fast_align: int = 512  # ADK GM地址尽量512B对齐
    gm_misaligned_rate: float = 0.70  # ADK GM地址尽量512B对齐
    # Compute
    cube_macs_per_cycle: int = 16 * 16 * 16  # ADK 基本架构: one 16x16x16 fp16 MMA per cycle per AIC
    vector_bytes_per_cycle: int = 256  # DER: 11.06 TOPS fp32 = 48 AIV x 64 lanes x 2 x 1.8 GHz
    # Launch overhead, us (see launch_us), affine in the physical cores a launch starts ("头开销
    # 会随着使用的核数增加而增加", ADK 头尾开销优化/设置合适的核数和算子Kernel类型.md; its figure
    # is not stored), given for 1 core and for all the vector cores (aiv_cores):
    # * isolated: ~20-21 us on all cores of A2 (ADK 分析性能数据.md, "满核头开销约为20~21微秒");
    #   1 core: ASSUMPTION, half of it;
    # * back to back (the next launch queued while one runs, as a benchmark loop does): 2 us on
    #   1 core (FlagGems PR 6324: torch_npu swiglu fp16 [256, 128] 3.07 us and Triton 1.9 us,
    #   work included); 9.5 us on all cores (DER: PR 6324's torch_npu swiglu [8192, 128]
    #   11.83 us and [15000, 128] 13.15 us, minus this model's kernel times 2.45 / 3.67 us).
    # 310P / 310B: ASSUMPTION, the A2 values.
    launch_overhead_us: float = 20.5  # ADK 分析性能数据.md
    launch_overhead_1core_us: float = 10.0  # ASSUMPTION
    launch_b2b_us: tuple[float, float] = (2.0, 9.5)  # DER (above): 1 core, aiv_cores cores
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int) and not isinstance(value, bool) and f.name != "arch":
                if value <= 0:
                    raise ValueError(f"ChipSpec {self.name}: {f.name} must be >= 1, got {value}")
        if self.layout == "coupled" and self.aiv_cores != self.aic_cores:
            raise ValueError(f"ChipSpec {self.name}: a coupled chip has aiv_cores == aic_cores")

    def gm_rates(self, active: int, peak: bool = False) -> tuple[float, float, float]:
        """(GM read, GM write, L2 read) bytes per cycle of one of `active` cores moving data at
        once: the per-core port rates, capped by their share of the chip's HBM bandwidth
        (sustained, or the peak for a roofline) and of its L2 bandwidth."""
        hbm = self.hbm_gbps * (1.0 if peak else self.hbm_sustained_fraction)
        share = hbm * 1e3 / self.clock_mhz / max(1, active)  # GB/s -> bytes per cycle
        l2 = self.l2_gbps * 1e3 / self.clock_mhz / max(1, active)
        return (min(self.gm_read_bytes_per_cycle, share),
                min(self.gm_write_bytes_per_cycle, share),
                min(self.l2_read_bytes_per_cycle, l2))

    def launch_us(self, cores: int, back_to_back: bool = False) -> float:
        """Launch overhead, us, of a kernel that starts `cores` physical cores (a MIX launch:
        its cube and vector cores), isolated or back to back: affine from the 1-core value to
        the aiv_cores one (ASSUMPTION: affine; the end points are the launch_* fields)."""
        lo, hi = (self.launch_b2b_us if back_to_back
                  else (self.launch_overhead_1core_us, self.launch_overhead_us))
        return lo + (hi - lo) * (max(1, cores) - 1) / max(1, self.aiv_cores - 1)

    @property
    def has_fixpipe(self) -> bool:
        """310P moves L0C->UB through the vector unit; 910B/310B have a FixPipe (ADK 2002 spec)."""
        return self.arch != 2002

    def capacity(self, space: str) -> int:
        """Bytes of the on-chip memory named 'UB', 'L1', 'L0A', 'L0B' or 'L0C'."""
        return {
            "UB": self.ub_bytes,
            "L1": self.l1_bytes,
            "L0A": self.l0a_bytes,
            "L0B": self.l0b_bytes,
            "L0C": self.l0c_bytes,
        }[space]

    def align(self, space: str) -> int:
        """Start-address alignment in bytes for tensors placed in `space`."""
        return {
            "UB": self.ub_align,
            "L1": self.l1_align,
            "L0A": self.l0ab_align,
            "L0B": self.l0ab_align,
            "L0C": self.l0c_align,
        }[space]


def _a2(name: str, cores: int, clock: int, gm: int, l2: int, hbm: float, src: str) -> ChipSpec:
    # All 910B SoCs share the 2201 core: sizes from INI Ascend910B*.ini, confirmed by the ADK
    # 2201 architecture spec page (UB 192K, L1 512K, L0A/L0B 64K, L0C 128K).
    return ChipSpec(
        name=name, arch=2201, layout="separated", aic_cores=cores, aiv_cores=2 * cores,
        clock_mhz=clock, ub_bytes=192 * KiB, l1_bytes=512 * KiB, l0a_bytes=64 * KiB,
        l0b_bytes=64 * KiB, l0c_bytes=128 * KiB, gm_bytes=gm, l2_bytes=l2,
        hbm_gbps=hbm, hbm_source=src,
    )


_HBM_910B = "ASSUMPTION: 1.6 TB/s from a third-party model (no vendor sheet found; facts 2.4)"

CHIPS: dict[str, ChipSpec] = {
    # cores (AIC), clock: INI; GM/L2: INI
    "Ascend910B1": _a2("Ascend910B1", 24, 1850, 64 * GiB, 192 * MiB, 1600.0, _HBM_910B),
    "Ascend910B2": _a2("Ascend910B2", 24, 1800, 64 * GiB, 192 * MiB, 1600.0, _HBM_910B),
    "Ascend910B3": _a2("Ascend910B3", 20, 1800, 64 * GiB, 192 * MiB, 1600.0, _HBM_910B),
    "Ascend910B4": _a2(
        "Ascend910B4", 20, 1500, 32 * GiB, 96 * MiB, 800.0,
        "ASSUMPTION: 0.8 TB/s from a third-party model (facts 2.4)",
    ),
    # 310P3 (arch 2002, coupled): 8 AI Cores, 1060 MHz, UB 256K, L1 1M, L0C 256K (INI).
    # The 7 extra VecCores of the INI are not modelled.
    "Ascend310P3": ChipSpec(
        name="Ascend310P3", arch=2002, layout="coupled", aic_cores=8, aiv_cores=8, clock_mhz=1060,
        ub_bytes=256 * KiB, l1_bytes=1 * MiB, l0a_bytes=64 * KiB, l0b_bytes=64 * KiB,
        l0c_bytes=256 * KiB, gm_bytes=24 * 1000**3, l2_bytes=16 * MiB,
        gm_read_bytes_per_cycle=17, gm_write_bytes_per_cycle=17, l0c_to_ub_bytes_per_cycle=512,
        l2_read_bytes_per_cycle=114, l1_to_l0a_bytes_per_cycle=512, l1_to_l0b_bytes_per_cycle=256,
        # DER: L2 = 8 cores x INI "l2 read"; the 512 B alignment rule is A2-only (ADK)
        l2_gbps=114 * 8 * 1.06, gm_misaligned_rate=1.0,
        hbm_gbps=204.8,
        hbm_source="ASSUMPTION: LPDDR4X 204.8 GB/s of the Atlas 300I Pro card (not in INI)",
        notes=("The 7 standalone VecCores of the INI are not modelled.",),
    ),
    # 310B1 (arch 3002, coupled in Ascend C): 1 core, 1224 MHz, UB 248K, L1 1M, L0C 128K (INI).
    "Ascend310B1": ChipSpec(
        name="Ascend310B1", arch=3002, layout="coupled", aic_cores=1, aiv_cores=1, clock_mhz=1224,
        ub_bytes=248 * KiB, l1_bytes=1 * MiB, l0a_bytes=64 * KiB, l0b_bytes=64 * KiB,
        l0c_bytes=128 * KiB, gm_bytes=32 * GiB, l2_bytes=4 * MiB,
        gm_read_bytes_per_cycle=17, gm_write_bytes_per_cycle=128, l0c_to_ub_bytes_per_cycle=128,
        l2_read_bytes_per_cycle=256, l1_to_l0a_bytes_per_cycle=512, l1_to_l0b_bytes_per_cycle=256,
        # DER: L2 = 1 core x INI "l2 read"; the 512 B alignment rule is A2-only (ADK)
        l2_gbps=256 * 1.224, gm_misaligned_rate=1.0,
        hbm_gbps=51.2, hbm_source="ASSUMPTION: LPDDR4X 51.2 GB/s (not in INI)",
    ),
}

DEFAULT_CHIP = "Ascend910B1"  # pyasc config.set_platform: the Model backend defaults to 910B1


def get_chip(name: str | ChipSpec) -> ChipSpec:
    """Look a chip up by name ('Ascend910B2'); a ChipSpec passes through."""
    if isinstance(name, ChipSpec):
        return name
    try:
        return CHIPS[name]
    except KeyError:
        known = ", ".join(CHIPS)
        raise ValueError(f"chip {name!r} is not emulated; emulated chips: {known}") from None
