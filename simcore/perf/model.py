"""The timing model: from counted blocks and GPU facts to an estimated kernel time.

Explainable on purpose (a roofline with occupancy), no fitted fudge factors:

1. Occupancy (CUDA's rules): resident blocks per SM = the smallest of the block limit, the warp
   limit, the register limit (registers estimated from the program, allocated per warp in units
   of 256) and the shared-memory limit (1 KB reserved per block). waves = blocks / (SMs x
   resident blocks); the last, partial wave leaves SMs idle (the tail).
2. Per resource, the time the whole grid needs from it, scaling the sampled blocks' counts to
   the grid:
     issue      warp instructions / (SMs x 4 per cycle)                     (x tail)
     shared     wavefronts x 128 B / (SMs x shared bytes per cycle)         (x tail)
     dram       per array: min(its size, sectors x 32 B) / DRAM bandwidth
     l2         all sectors x 32 B / L2 bandwidth
     atomics    atomics on an address several blocks share, one after another, plus the rest
                at the distinct-address rate
     dispatch   blocks per SM x the cost of starting a block (microbenchmark)
     latency    waves x one block's critical path: per phase (barrier to barrier) the longest
                warp's instructions at 4 cycles each (a dependent chain), a memory latency
                per phase that reads global memory, and each barrier's cost (H200 fit: fixed +
                per warp + the last warp's lateness)
3. time = launch floor + the largest of them (the bound) + the exposed waits ('overlap'): a
   block alternates between waiting for memory (a latency per phase that reads global memory)
   and computing, barriers and its own end keep its warps together, and only the other
   resident blocks fill the wait, so with k resident blocks per SM about 1/k of the waiting
   (at most the compute there is to hide it) stays exposed.
   The other resources are shown too: they are the ones that would bind next.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from ..gpus import Occupancy, occupancy   # CUDA's occupancy rule, shared with the launch checks

RESOURCES = ("issue", "shared", "dram", "l2", "atomics", "dispatch", "latency", "overlap")


@dataclass
class Estimate:
    """A model estimate of one launch's GPU time (NOT a measurement)."""
    kernel: str
    gpu: str
    grid: tuple
    block: tuple
    time_ms: float
    bound: str
    breakdown: dict              # resource -> ms (each alone), plus 'launch'
    occupancy: Occupancy
    waves: float
    tail_efficiency: float       # useful fraction of the SM time in the waves (1 = no tail)
    per_block: dict              # averaged counters of the sampled blocks
    sampled_blocks: tuple
    notes: list = field(default_factory=list)

    def __str__(self):
        occ = self.occupancy
        parts = ", ".join(f"{k} {v:.4f}" for k, v in self.breakdown.items())
        return (f"model estimate for {self.kernel} on {self.gpu}: {self.time_ms:.4f} ms "
                f"(bound by {self.bound}; model ms: {parts}); {occ.blocks_per_sm} blocks/SM "
                f"(limited by {occ.limiter}), {self.waves:.2f} waves, tail efficiency "
                f"{self.tail_efficiency:.0%}")

    def __repr__(self):
        return f"<Estimate: model estimate {self.time_ms:.4f} ms on {self.gpu}, bound by {self.bound}>"


def _mean(blocks, attr):
    return float(np.mean([getattr(b, attr) for b in blocks]))


def estimate_time(gpu, kernel_name, grid, block, counters, registers, shared_per_block, region_bytes):
    """The model (see the module docstring). counters: a PerfCounters after a sampled run."""
    blocks = list(counters.blocks.values())
    nblocks = grid[0] * grid[1] * grid[2]
    threads = block[0] * block[1] * block[2]
    occ = occupancy(gpu, threads, registers, shared_per_block)
    notes = []
    if occ.blocks_per_sm == 0:
        from ..errors import LaunchError
        raise LaunchError(f"{kernel_name}: a block of {threads} threads with {registers} registers per thread "
                          f"and {shared_per_block} bytes of shared memory does not fit on one SM of the "
                          f"{gpu.name} (limit: {occ.limiter})")
    clock = gpu.clock_ghz * 1e9
    waves = nblocks / (gpu.sms * occ.blocks_per_sm)
    full_waves = math.ceil(waves)
    tail = waves / full_waves
    scale = nblocks / len(blocks)

    per_block = {
        "warp_instructions": _mean(blocks, "instructions"),
        "critical_path_instructions": _mean(blocks, "critical_instructions"),
        "barriers": _mean(blocks, "barriers"),
        "global_accesses": _mean(blocks, "global_accesses"),
        "global_sectors": float(np.mean([b.sectors for b in blocks])),
        "shared_accesses": _mean(blocks, "shared_accesses"),
        "bank_conflicts": float(np.mean([b.bank_conflicts for b in blocks])),
        "atomics": _mean(blocks, "atomics"),
        "read_phases": _mean(blocks, "read_phases"),
    }
    if per_block["global_accesses"]:
        per_block["sectors_per_access"] = per_block["global_sectors"] / per_block["global_accesses"]

    t = {}
    # issue and shared memory: SM-local, so the tail's idle SMs cost
    t["issue"] = nblocks * per_block["warp_instructions"] / (gpu.sms * gpu.issue_per_cycle_per_sm) / clock / tail
    wavefronts = _mean(blocks, "shared_wavefronts")
    t["shared"] = nblocks * wavefronts * (gpu.shared_banks * gpu.bank_bytes) / (
        gpu.sms * gpu.shared_bytes_per_cycle_per_sm) / clock / tail
    # memory: each array's DRAM traffic is at most its size (reuse between blocks hits L2)
    traffic = {}
    for b in blocks:
        for key, sectors in b.global_sectors.items():
            traffic[key] = traffic.get(key, 0) + sectors * 32 * scale
    dram_bytes = sum(min(v, region_bytes.get(name, v)) for (name, _), v in traffic.items())
    l2_bytes = sum(traffic.values())
    t["dram"] = dram_bytes / gpu.dram_bytes_per_s
    t["l2"] = l2_bytes / gpu.l2_bytes_per_s
    # atomics: those on an address that several blocks hit are serialised
    shared_addr = sum(len(bl) for bl in counters.atomic_addresses.values() if len(bl) > 1)
    total_atomics = per_block["atomics"] * nblocks
    contended = 0.0
    if counters.atomic_addresses:
        sampled_atomics = sum(b.atomics for b in blocks) or 1
        # an address every block hits: grows with the grid, so scale the sample's share of them
        contended = total_atomics * shared_addr / sampled_atomics
    t["atomics"] = contended * gpu.atomic_same_address_ns * 1e-9 + (total_atomics - contended) / gpu.atomic_distinct_per_s
    # block dispatch
    per_block_dispatch = max(gpu.block_dispatch_cycles, occ.warps_per_block * gpu.warp_dispatch_cycles)
    t["dispatch"] = nblocks / gpu.sms * per_block_dispatch / clock
    # latency: a block's critical path, once per wave
    cpi = gpu.dependent_issue_cycles       # the chain of one warp; sharing the issue slots is the issue term
    miss = dram_bytes / l2_bytes if l2_bytes else 1.0
    mem_latency = gpu.l2_latency_cycles + miss * (gpu.dram_latency_cycles - gpu.l2_latency_cycles)
    barrier_cycles = float(np.mean([sum(gpu.barrier_cycles(b.warps, s * cpi) for s in b.barrier_spread)
                                    for b in blocks]))
    path = per_block["critical_path_instructions"] * cpi + per_block["read_phases"] * mem_latency + barrier_cycles
    per_block["critical_path_cycles"] = path
    per_block["barrier_cycles"] = barrier_cycles
    t["latency"] = full_waves * path / clock

    bound = max(t, key=lambda k: t[k])
    # Exposed waits: a block's phases alternate between waiting for memory (one latency per
    # phase that reads global memory) and computing; barriers and the block's own end keep its
    # warps together, so only the other resident blocks fill the wait. With k blocks per SM,
    # about 1/k of the waiting (bounded by the compute there is to hide it) stays exposed.
    compute = max(t["issue"], t["shared"])
    waiting = full_waves * per_block["read_phases"] * mem_latency / clock
    t["overlap"] = min(compute, waiting) / occ.blocks_per_sm
    breakdown = {k: t[k] * 1e3 for k in RESOURCES}
    breakdown["launch"] = gpu.launch_floor_us * 1e-3
    time_ms = breakdown["launch"] + breakdown[bound] + breakdown["overlap"]
    if gpu.key != "H200":
        notes.append(f"{gpu.key}: some parameters are assumed from the H200's (see simcore/data/gpus.json)")
    return Estimate(kernel_name, gpu.key, grid, block, time_ms, bound, breakdown, occ, waves, tail,
                    per_block, tuple(sorted(counters.blocks)), notes)
