"""The GPUs simcore knows, from simcore/data/gpus.json (each value with its source), and CUDA's
occupancy rule over them: how many blocks of a launch one SM holds at once.

One home for hardware numbers: the launch limits (launch.py), the timing model (perf/), the
course's occupancy and pictures (barrier_course/) all read them here. Adding a GPU is a new
entry in gpus.json.
"""
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .errors import LaunchError

SIMULATED_GPU = "H200"     # the GPU whose launch limits the simulator enforces


@dataclass(frozen=True)
class GPU:
    key: str
    name: str
    compute_capability: str
    sms: int
    clock_ghz: float
    max_threads_per_sm: int
    max_blocks_per_sm: int
    max_warps_per_sm: int
    max_threads_per_block: int
    max_block_dims: list          # x, y, z
    max_grid_dims: list
    shared_per_block_default: int   # without cudaFuncSetAttribute(..., MaxDynamicSharedMemorySize, ...)
    registers_per_sm: int
    max_registers_per_thread: int
    register_alloc_unit: int
    shared_per_sm: int
    shared_per_block_optin: int
    shared_reserved_per_block: int
    shared_banks: int
    bank_bytes: int
    shared_bytes_per_cycle_per_sm: float
    issue_per_cycle_per_sm: float
    dram_bytes_per_s: float
    dram_peak_bytes_per_s: float
    l2_bytes: int
    l2_bytes_per_s: float
    dram_latency_cycles: float
    l2_latency_cycles: float
    shared_latency_cycles: float
    dependent_issue_cycles: float
    barrier: dict
    atomic_same_address_ns: float
    atomic_distinct_per_s: float
    launch_floor_us: float
    block_dispatch_cycles: float
    warp_dispatch_cycles: float
    source: dict
    # measured on the H200 (course/data/h200-timing-sweeps.json, training sweeps); other GPUs
    # take these values unless gpus.json gives theirs
    shared_atomic_cycles: float = 1.0            # per lane after the first on a word (mb8, H100)
    shared_atomic_contention_cycles: float = 0.0   # none measured for native integer atomics (gpus.json)
    shared_atomic_cas_cycles: float = 85.0
    l1_shared_bytes_per_sm: int = 0            # unified L1 + shared memory (0: no L1 in the model)
    shared_carveouts_kb: tuple = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
    l1_latency_cycles: float = 60.0
    atomic_parallel_lines: float = 84.0
    atomic_distinct_sector_ns: float = 0.6      # distinct words of a line, per sector (mb6)
    atomic_line_gain: float = 1 / 7             # what each hot line beyond the first adds (mb7)
    atomic_lane_ops_per_s: float = 5.44e10      # lane operations on lines, all lines together (mb6)
    atomic_integer_same_address_ns: float = 0.733   # an integer atomic's same-address turnaround (mb6)
    memory_kernel_us: float = 1.3
    launch_overhead_us: float = 5.7
    dram_bytes_per_s_by_width: dict = None     # element bytes -> DRAM bytes/s (None: dram_bytes_per_s for all)

    def __post_init__(self):
        if self.dram_bytes_per_s_by_width is None:
            object.__setattr__(self, "dram_bytes_per_s_by_width", {"4": self.dram_bytes_per_s})
    lsu_lines_per_cycle_per_sm: float = 1.0

    def barrier_cycles(self, warps, late_cycles):
        """Cycles one barrier of a block of `warps` warps takes when its last warp arrives
        `late_cycles` after the first (fit to the H200 barrier measurements)."""
        b = self.barrier
        return barrier_cycles(b["c0"], b["c_warp"], b["c_late"], warps, late_cycles)


def barrier_cycles(c0, c_warp, c_late, warps, late_cycles, c_skew=0.0, skew=0.0):
    """The one barrier-cost formula (the timing model's and lesson 07's,
    barrier_course/lessons/cost_model.py): c0 + c_warp * W + c_late * (the last warp's lateness),
    plus c_skew * skew, the measuring kernel's own spin overhead (0 in the timing model)."""
    return c0 + c_warp * warps + c_late * late_cycles + c_skew * skew


@lru_cache(maxsize=None)
def _data():
    text = resources.files("simcore").joinpath("data/gpus.json").read_text()
    return json.loads(text)


def known_gpus():
    return tuple(_data()["gpus"])


@lru_cache(maxsize=None)
def _by_key(key):
    return GPU(key=key, **_data()["gpus"][key])


def get_gpu(gpu):
    """A GPU by its key in gpus.json or the end of its name ('H200', 'rtx 4090'; case, spaces and
    dashes ignored), or a GPU object."""
    if isinstance(gpu, GPU):
        return gpu
    table = _data()["gpus"]
    if isinstance(gpu, str):
        wanted = gpu.replace(" ", "").replace("-", "").upper()
        for key, facts in table.items():
            if key.upper() == wanted or facts["name"].replace(" ", "").upper().endswith(wanted):
                return _by_key(key)
    raise LaunchError(f"unknown gpu {gpu!r}; the timing model knows: {', '.join(table)}")


@dataclass(frozen=True)
class Occupancy:
    threads_per_block: int
    warps_per_block: int
    registers_per_thread: int    # None: not known (the register rule is left out)
    shared_per_block: int
    blocks_per_sm: int
    limiter: str                 # 'blocks' | 'warps' | 'registers' | 'shared memory'
    limits: dict                 # each rule's block limit

    @property
    def warps_per_sm(self):
        return self.blocks_per_sm * self.warps_per_block


def occupancy(gpu, threads_per_block, registers_per_thread, shared_per_block):
    """Resident blocks per SM by CUDA's occupancy rules (the occupancy calculator's);
    registers_per_thread None: registers are not known, and not a limit here."""
    warps = -(-threads_per_block // 32)
    limits = {"blocks": gpu.max_blocks_per_sm, "warps": gpu.max_warps_per_sm // warps}
    if registers_per_thread is not None:
        regs_per_warp = -(-registers_per_thread * 32 // gpu.register_alloc_unit) * gpu.register_alloc_unit
        limits["registers"] = (gpu.registers_per_sm // regs_per_warp) // warps
    per_block = shared_per_block + gpu.shared_reserved_per_block
    limits["shared memory"] = gpu.shared_per_sm // per_block
    limiter = min(limits, key=lambda k: limits[k])
    return Occupancy(threads_per_block, warps, registers_per_thread, shared_per_block,
                     limits[limiter], limiter, limits)
