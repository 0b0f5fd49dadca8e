"""Frozen hardware specs of the emulated Ascend chips.

Every number carries its source (see ../shared/reference/ascend-facts.md for the full citations):
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
    l2_read_bytes_per_cycle: int = 110  # INI "l2 read": GM reads that hit the L2 cache
    l1_to_l0a_bytes_per_cycle: int = 512  # INI (ADK 2201 spec says 256: conflict noted in facts)
    l1_to_l0b_bytes_per_cycle: int = 256  # INI (ADK says 128)
    l0c_to_ub_bytes_per_cycle: int = 256  # INI
    # Whole-chip HBM bandwidth shared by active cores, GB/s
    hbm_gbps: float
    hbm_source: str
    # Compute
    cube_macs_per_cycle: int = 16 * 16 * 16  # ADK 基本架构: one 16x16x16 fp16 MMA per cycle per AIC
    vector_bytes_per_cycle: int = 256  # DER: 11.06 TOPS fp32 = 48 AIV x 64 lanes x 2 x 1.8 GHz
    launch_overhead_us: float = 20.0  # ADK 分析性能数据.md: full-core launch ~20-21 us on A2
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int) and not isinstance(value, bool) and f.name != "arch":
                if value <= 0:
                    raise ValueError(f"ChipSpec {self.name}: {f.name} must be >= 1, got {value}")
        if self.layout == "coupled" and self.aiv_cores != self.aic_cores:
            raise ValueError(f"ChipSpec {self.name}: a coupled chip has aiv_cores == aic_cores")

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
        l2_read_bytes_per_cycle=114,
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
        l2_read_bytes_per_cycle=256,
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
