"""The timing model: from counted blocks and GPU facts to an estimated kernel time.

Explainable on purpose (a roofline with occupancy), no fitted fudge factors:

1. Occupancy (CUDA's rules): resident blocks per SM = the smallest of the block limit, the warp
   limit, the register limit (registers estimated from the program, allocated per warp in units
   of 256) and the shared-memory limit (1 KB reserved per block). waves = blocks / (SMs x
   resident blocks); the last, partial wave leaves SMs idle (the tail).
2. Per resource, the time the whole grid needs from it, from the sampled blocks' counts, each
   weighted by the blocks it stands for (sampling.py):
     issue      the busiest SM's warp instructions / 4 per cycle: it runs ceil(blocks / SMs) blocks
                (a grid of one block per SM is charged one block per SM, not a full round of
                blocks_per_sm)
     shared     the busiest SM's (wavefronts + native shared-atomic cycles) x 128 B / shared bytes
                per cycle; a native integer shared atomic costs its wavefront and one cycle for
                each lane after the first on its busiest word (mb8 on the H100, SASS one ATOMS
                per warp); an integer increment by 1 is one warp-aggregated wavefront
                (ATOMS.POPC.INC); an add, max or min of every lane on one uniform word is one
                operation per warp
     dram       per array: min(its size, sectors x 32 B) / DRAM bandwidth at its access width (the
                element type, or the vector type it is cast to: a float* read as float4 is 16 B);
                0 when the arrays fit in half the L2 (they stay there between launches)
     l2         all sectors x 32 B / L2 bandwidth (sectors re-read from the block's share of the L1
                are not L2 traffic: counters.py)
     atomics    L2 atomic operations per 128-byte line, one after another on a line (a sector of
                distinct words at a time, colliding lanes once per round, a line of one counter
                at its kind's same-address turnaround: atomic_access_ns), hot lines only partly
                in parallel (atomic_lines_at_once), from the whole grid (atomic_time); at least
                the lane-operation and distinct-address rates
     dispatch   blocks per SM x the cost of starting a block (microbenchmark)
     latency    waves x one block's critical path: per phase (barrier to barrier) the longest
                warp's instructions at 4 cycles each (a dependent chain), its shuffles at the
                shared-memory latency, a memory latency per basic block it ran that loads from
                global memory (an L1 latency where all its sectors hit the L1), each barrier's cost (H200 fit: fixed + per warp + the last
                warp's lateness), the warp dispatch of its warps, and the chain of its
                compare-and-swap shared atomics (a float atomicAdd: one lane operation on the
                busiest word after another)
3. time = launch floor + the largest of them (the bound) + the exposed waits ('overlap'): a
   block alternates between waiting for memory (a latency per phase that reads global memory)
   and computing, barriers and its own end keep its warps together, and only the other
   resident blocks fill the wait, so with k resident blocks per SM about 1/k of the waiting
   (at most the compute there is to hide it) stays exposed.
   The SM-local parts do not overlap across rounds: the busiest SM runs its blocks in rounds of
   blocks_per_sm, and each round takes at least one block's critical path, so where the sum
   over rounds of max(round's issue, round's shared, path) is more than the bound, the rest is
   exposed too (a last round of a few blocks waits on their path with its issue slots idle).
   The other resources are shown too: they are the ones that would bind next.
"""
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np

from ..gpus import Occupancy, occupancy   # CUDA's occupancy rule, shared with the launch checks

RESOURCES = ("issue", "shared", "dram", "l2", "lsu", "atomics", "dispatch", "latency", "overlap")


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
    work_ms: float = 0.0         # the launch overhead + the bound + the exposed waits, before the floor

    @property
    def rank(self):
        """What a tuner sorts by: the time, and among launches all at the launch floor (equal
        times), the one with less work (it is the one that stays faster as the work grows)."""
        return (round(self.time_ms, 9), self.work_ms)

    @property
    def error_bar(self):
        """The held-out validation's typical error (percent) for estimates bound by the same
        resource on this GPU, or None where this GPU was not validated."""
        return typical_error(self.gpu, self.bound)

    @property
    def accuracy(self):
        """One sentence: how far the H200 held-out validation says such an estimate may be off."""
        bar = self.error_bar
        if bar is None:
            return (f"model estimate, not validated on the {self.gpu} (its parameters are partly assumed: "
                    "treat it as rougher than the H200's)")
        return (f"model estimate, typically within \u00b1{bar}% on the {self.gpu} for kernels like this "
                f"(bound by {self.bound}; held-out validation, docs/timing-validation.md)")

    def __str__(self):
        occ = self.occupancy
        parts = ", ".join(f"{k} {v:.4f}" for k, v in self.breakdown.items())
        return (f"model estimate for {self.kernel} on {self.gpu}: {self.time_ms:.4f} ms "
                f"(bound by {self.bound}: {BOUND_MEANING.get(self.bound, self.bound)}; model ms: {parts}); "
                f"{occ.blocks_per_sm} blocks/SM (limited by {occ.limiter}), {self.waves:.2f} waves, tail "
                f"efficiency {self.tail_efficiency:.0%}. {self.accuracy[0].upper()}{self.accuracy[1:]}.")

    def __repr__(self):
        bar = "" if self.error_bar is None else f" \u00b1{self.error_bar}%"
        return f"<Estimate: model estimate {self.time_ms:.4f} ms{bar} on {self.gpu}, bound by {self.bound}>"


BOUND_MEANING = {
    "issue": "the SMs' instruction issue",
    "shared": "shared-memory bandwidth and bank conflicts (shared atomics included)",
    "dram": "DRAM bandwidth",
    "l2": "L2 bandwidth",
    "lsu": "the SMs' load/store units (uncoalesced accesses: one 128-byte line per cycle)",
    "atomics": "the L2's atomic units (same-address atomics wait for each other)",
    "dispatch": "starting blocks (many small blocks)",
    "latency": "latency: too few warps to hide the memory and barrier waits of each block",
}


@lru_cache(maxsize=None)
def _error_bars():
    try:
        text = resources.files("simcore").joinpath("data/timing-error-bars.json").read_text()
    except (FileNotFoundError, OSError):
        return None
    return json.loads(text)


def typical_error(gpu_key, bound):
    """Percent, from simcore/data/timing-error-bars.json (None for GPUs not validated)."""
    bars = _error_bars()
    if bars is None or gpu_key != bars.get("gpu"):
        return None
    table = bars["bounds"]
    return (table.get(bound) or table["all"])["typical_pct"]


def _weights(blocks):
    return np.array([b.weight for b in blocks], float)


def _mean(blocks, attr):
    """The grid's mean per block of `attr`, from the sampled blocks and their weights."""
    return _weighted([getattr(b, attr) for b in blocks], blocks)


def _weighted(values, blocks):
    w = _weights(blocks)
    return float(np.dot(np.asarray(values, float), w) / w.sum())


def shared_atomic_cycles(gpu, counts):
    """Cycles of the SM's shared-memory unit for one block's native shared atomics beyond their
    wavefronts: the lanes of a warp on one word after the first go one after another,
    `shared_atomic_cycles` each (1: mb8 on the H100), each slower by `shared_atomic_contention_cycles`
    per other warp of the block that hits the same word at the same time (about (warps - 1) /
    words the block's atomics use; 0 since round 11: no integer measurement behind it).
    Warp-aggregated increments cost only their wavefronts; an add, max or min of every lane on
    one word the same for every lane counts one lane per warp (counters.py
    SHARED_AGGREGATED_OPS); compare-and-swap loops are shared_atomic_chain_cycles."""
    if not counts.shared_atomic_serial:
        return 0.0
    others = (counts.warps - 1) / max(1, len(counts.shared_atomic_words))
    return counts.shared_atomic_serial * (gpu.shared_atomic_cycles + gpu.shared_atomic_contention_cycles * others)


def shared_atomic_chain_cycles(gpu, counts):
    """Cycles on one block's critical path for its compare-and-swap shared atomics (a float
    atomicAdd): every lane operation on the block's busiest word waits for the one before
    (a load and a compare-and-swap round trip each); other blocks' words are their own."""
    return counts.shared_atomic_chain * gpu.shared_atomic_cas_cycles


def atomic_same_address_ns(gpu, kind):
    """Nanoseconds the L2 takes between two atomics on one address, by GLOBAL_ATOMIC_KIND
    (counters.py): integer operations turn around faster than float adds."""
    return gpu.atomic_integer_same_address_ns if kind == "integer" else gpu.atomic_same_address_ns


def atomic_access_ns(gpu, sectors, most, kind, alone, one_word):
    """Nanoseconds one warp access {sectors of the line it hits, most lanes on one address,
    GLOBAL_ATOMIC_KIND, whether this line is the only one it hits} keeps its line's atomic unit
    busy (mb6, mb7):
    - on a line of one counter, its lanes go one after another at the same-address turnaround
      of their kind (integer 0.733 ns, float add 1.76);
    - lanes on distinct words are served a sector at a time (`atomic_distinct_sector_ns`, 0.6:
      32 words of a line take 2.4 ns in int as in float); an access alone on its line costs at
      least the same-address turnaround of its kind (a lone request waits for its own answer:
      8 lanes' float adds on 8 words of one sector take 1.76 ns, not 0.6);
    - lanes that collide on words go round once per lane on the busiest word, each round over
      the sectors again, or at the same-address turnaround, whichever is slower."""
    if one_word:
        return most * atomic_same_address_ns(gpu, kind)
    served = sectors * gpu.atomic_distinct_sector_ns
    if most == 1:
        return max(served, atomic_same_address_ns(gpu, kind)) if alone else served
    return most * max(served, atomic_same_address_ns(gpu, kind))


def atomic_line_ns(gpu, accesses, one_word):
    """Nanoseconds that a line's warp accesses {(sectors, most, kind, alone): count} keep the
    L2's atomic unit busy (atomic_access_ns each, one after another)."""
    return sum(count * atomic_access_ns(gpu, *key, one_word) for key, count in accesses.items())


def atomic_lines_at_once(gpu, lines):
    """How many lines' atomics proceed at once: each hot line beyond the first adds only
    `atomic_line_gain` of a line's rate (mb7: 2, 8 and 64 lines of one-word warp accesses run
    1.05, 2.0 and 11.4 times one line's rate), up to `atomic_parallel_lines`."""
    return max(1.0, min(gpu.atomic_parallel_lines, 1 + (lines - 1) * gpu.atomic_line_gain))


def atomic_time(gpu, counters, lane_atomics, region_bytes):
    """Seconds of the L2's atomic units for the whole grid. A warp's atomics on a 128-byte
    line (atomic_line_ns) wait for the earlier ones on that line; different lines proceed
    partly in parallel (atomic_lines_at_once). A line that sampled blocks far apart hit is hit
    by the whole grid: its time is each sampled block's times the blocks it stands for. A line
    only one block (or two neighbours) hit stands for one such line per block, but never more
    lines than the arrays the atomics hit hold. Every lane operation on a line also passes
    through the L2's atomic units at `atomic_lane_ops_per_s` at most (mb6: a word per warp over
    4096 lines), and distinct addresses at `atomic_distinct_per_s`."""
    if not counters.atomic_lines:
        return 0.0
    blocks = counters.blocks
    busiest = total = lines = lane_ops = 0.0
    for key, per_block in counters.atomic_lines.items():
        hit = list(per_block)
        one_word = len(counters.atomic_line_words.get(key, ())) == 1
        ns_of = {b: atomic_line_ns(gpu, accesses, one_word) for b, accesses in per_block.items()}
        ops_of = {b: sum(count * most for (_, most, _, _), count in accesses.items())
                  for b, accesses in per_block.items()}
        if max(hit) - min(hit) > 1:          # grid-wide
            ns = sum(n * blocks[b].weight for b, n in ns_of.items())
            busiest = max(busiest, ns)
            total += ns
            lines += 1
            lane_ops += sum(n * blocks[b].weight for b, n in ops_of.items())
        else:
            weight = max(blocks[b].weight for b in hit)
            busiest = max(busiest, sum(ns_of.values()))
            total += sum(ns_of.values()) * weight
            lines += weight
            lane_ops += sum(ops_of.values()) * weight
    held = sum(math.ceil(region_bytes.get(name, 0) / 128) for name in {name for name, _ in counters.atomic_lines})
    if held:                  # (0: arrays of unknown size)
        lines = min(lines, held)
    return max(busiest * 1e-9, total * 1e-9 / atomic_lines_at_once(gpu, lines),
               lane_ops / gpu.atomic_lane_ops_per_s, lane_atomics / gpu.atomic_distinct_per_s)


def sm_rounds(gpu, num_blocks, blocks_per_sm):
    """The rounds of resident blocks the busiest SM runs, as (blocks in the round, how many such
    rounds): it gets ceil(blocks / SMs) of the grid's blocks, blocks_per_sm at a time."""
    busiest = math.ceil(num_blocks / gpu.sms)
    full, rest = divmod(busiest, blocks_per_sm)
    return [(blocks_per_sm, full)] + ([(rest, 1)] if rest else [])


def l1_sectors_per_block(gpu, threads, registers, shared_per_block, num_blocks):
    """32-byte sectors of L1 one block may keep: the SM's unified L1/shared memory less the
    shared-memory carve-out its resident blocks need (the smallest configuration that holds
    them), shared equally by the blocks that run on an SM at once (at most the occupancy, and
    no more than the grid puts there). 0 where the GPU gives no L1 size or no block fits."""
    total = gpu.l1_shared_bytes_per_sm
    occ = occupancy(gpu, threads, registers, shared_per_block)
    if not total or occ.blocks_per_sm == 0:
        return 0
    resident = max(1, min(occ.blocks_per_sm, math.ceil(num_blocks / gpu.sms)))
    need = resident * (shared_per_block + gpu.shared_reserved_per_block) if shared_per_block else 0
    carveout = min((kb * 1024 for kb in gpu.shared_carveouts_kb if kb * 1024 >= need), default=gpu.shared_per_sm)
    return max(0, total - carveout) // resident // 32


def dram_bandwidth(gpu, element_bytes):
    """Bytes per second the DRAM reaches for an array read or written `element_bytes` per lane
    at a time (float2, float4 and double keep more bytes in flight per instruction)."""
    table = {int(w): bw for w, bw in gpu.dram_bytes_per_s_by_width.items()}
    width = max((w for w in table if w <= max(4, min(16, element_bytes))), default=min(table))
    return table[width]


def estimate_time(gpu, kernel_name, grid, block, counters, registers, shared_per_block, region_bytes,
                  element_bytes=None):
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

    per_block = {
        "warp_instructions": _mean(blocks, "instructions"),
        "critical_path_instructions": _mean(blocks, "critical_instructions"),
        "barriers": _mean(blocks, "barriers"),
        "global_accesses": _mean(blocks, "global_accesses"),
        "global_sectors": _weighted([b.sectors for b in blocks], blocks),
        "shared_accesses": _mean(blocks, "shared_accesses"),
        "bank_conflicts": _weighted([b.bank_conflicts for b in blocks], blocks),
        "atomics": _mean(blocks, "atomics"),
        "read_phases": _mean(blocks, "read_phases"),
    }
    if per_block["global_accesses"]:
        per_block["sectors_per_access"] = per_block["global_sectors"] / per_block["global_accesses"]

    t = {}
    # issue and shared memory: SM-local, so the busiest SM's blocks set them, in rounds of at
    # most blocks_per_sm resident blocks (the last round may hold fewer)
    rounds = sm_rounds(gpu, nblocks, occ.blocks_per_sm)
    issue_cycles = per_block["warp_instructions"] / gpu.issue_per_cycle_per_sm
    wavefronts = _mean(blocks, "shared_wavefronts") + _weighted([shared_atomic_cycles(gpu, b) for b in blocks], blocks)
    shared_cycles = wavefronts * (gpu.shared_banks * gpu.bank_bytes) / gpu.shared_bytes_per_cycle_per_sm
    busiest = math.ceil(nblocks / gpu.sms)       # blocks of the busiest SM (sm_rounds splits them)
    t["issue"] = busiest * issue_cycles / clock
    t["shared"] = busiest * shared_cycles / clock
    # memory: each array's DRAM traffic is at most its size (reuse between blocks hits L2);
    # a launch whose arrays fit in half the L2 finds them there when it runs again (as in
    # any timing loop), so it reads and writes the L2 only
    traffic = {}
    for b in blocks:
        for key, sectors in b.global_sectors.items():
            traffic[key] = traffic.get(key, 0) + sectors * 32 * b.weight
    footprint = sum(region_bytes.get(name, 0) for name in {name for name, _ in traffic})
    resident = footprint <= gpu.l2_bytes / 2
    # a written sector a warp fills only partly is merged in the L2 with what is there: one more
    # sector of L2 traffic, and of DRAM traffic where the array does not stay in the L2
    partial = {}
    for b in blocks:
        for name, sectors in b.partial_writes.items():
            partial[name] = partial.get(name, 0) + sectors * 32 * b.weight
    element_bytes = element_bytes or {}
    dram_by_array = {} if resident else {(name, d): min(v, region_bytes.get(name, v)) for (name, d), v in traffic.items()}
    merged = 0.0 if resident else sum(partial.values())
    dram_bytes = sum(dram_by_array.values()) + merged
    l2_bytes = sum(traffic.values()) + sum(partial.values())
    t["dram"] = (sum(v / dram_bandwidth(gpu, element_bytes.get(name, 4)) for (name, _), v in dram_by_array.items())
                 + merged / dram_bandwidth(gpu, 4))
    t["l2"] = l2_bytes / gpu.l2_bytes_per_s
    t["atomics"] = atomic_time(gpu, counters, per_block["atomics"] * nblocks, region_bytes)
    # the SMs' load/store units: one 128-byte line of a warp's global access per cycle
    per_block["global_lines"] = _mean(blocks, "global_lines")
    # (per SM: the busiest SM runs ceil(blocks / SMs) of them)
    t["lsu"] = busiest * per_block["global_lines"] / gpu.lsu_lines_per_cycle_per_sm / clock
    # block dispatch
    per_block_dispatch = max(gpu.block_dispatch_cycles, occ.warps_per_block * gpu.warp_dispatch_cycles)
    t["dispatch"] = nblocks / gpu.sms * per_block_dispatch / clock
    # latency: a block's critical path, once per wave
    cpi = gpu.dependent_issue_cycles       # the chain of one warp; sharing the issue slots is the issue term
    miss = dram_bytes / l2_bytes if l2_bytes else 0.0
    mem_latency = gpu.l2_latency_cycles + miss * (gpu.dram_latency_cycles - gpu.l2_latency_cycles)
    barrier_cycles = _weighted([sum(gpu.barrier_cycles(b.warps, s * cpi) for s in b.barrier_spread)
                                for b in blocks], blocks)
    per_block["read_rounds"] = _mean(blocks, "read_rounds")
    # a shuffle's result comes back after the shared-memory latency, not the ALU's; and a
    # block's warps start one warp dispatch after another
    shuffle_wait = _mean(blocks, "critical_shuffles") * (gpu.shared_latency_cycles - cpi)
    wave_start = occ.warps_per_block * gpu.warp_dispatch_cycles
    cas_chain = _weighted([shared_atomic_chain_cycles(gpu, b) for b in blocks], blocks)
    per_block["l1_rounds"] = _mean(blocks, "l1_rounds")
    per_block["l1_hit_sectors"] = _mean(blocks, "l1_hit_sectors")
    path = (per_block["critical_path_instructions"] * cpi + per_block["read_rounds"] * mem_latency
            + per_block["l1_rounds"] * gpu.l1_latency_cycles + barrier_cycles + shuffle_wait + wave_start + cas_chain)
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
    # rounds whose blocks wait on their critical path leave the SM's issue slots idle: what the
    # rounds take beyond the bound is exposed too
    by_rounds = sum(n * max(k * issue_cycles, k * shared_cycles, path) for k, n in rounds) / clock
    t["overlap"] += max(0.0, by_rounds - t[bound])
    breakdown = {k: t[k] * 1e3 for k in RESOURCES}
    # a launch costs a fixed overhead before its blocks run, and never less than an almost
    # empty kernel takes (the floor; more for one that touches global memory)
    breakdown["launch"] = gpu.launch_overhead_us * 1e-3
    floor_us = gpu.launch_floor_us + (gpu.memory_kernel_us if per_block["global_accesses"] > 0 else 0.0)
    work_ms = breakdown["launch"] + breakdown[bound] + breakdown["overlap"]
    time_ms = max(floor_us * 1e-3, work_ms)
    if gpu.key != "H200":
        notes.append(f"{gpu.key}: some parameters are assumed from the H200's (see simcore/data/gpus.json)")
    return Estimate(kernel_name, gpu.key, grid, block, time_ms, bound, breakdown, occ, waves, tail,
                    per_block, tuple(sorted(counters.blocks)), notes, work_ms)
