"""Performance counters: what the timing model needs to know about the blocks it simulates.

`PerfCounters` is a simulator plugin. Added to a launch (see sampling.py), it counts, for every
block it sees:

  * warp instructions issued: each step of a basic block counts its instruction weight once per
    warp that has lanes in it, so a divergent warp pays for both paths;
  * global memory: 32-byte sectors per warp access (a coalesced float load of a warp is 4
    sectors, a stride-32 one 32), per array and direction;
  * shared memory: warp accesses and wavefronts (32 banks of 4 bytes: a warp access takes as
    many wavefronts as the largest number of *distinct* words it touches in one bank; lanes
    reading the same word are served by one broadcast);
  * atomics on global memory and the addresses they hit (same-address contention is found
    across blocks when the launch ends);
  * barriers (`bar` sync points) per block, with the spread of the warps' work since the
    previous barrier (max - min instructions: the last warp's lateness) and the critical path
    (the longest warp's instructions per barrier-to-barrier phase);
  * phases that read global memory (each costs at least one memory latency on the critical path).

Counts are exact for the simulated blocks; the model (model.py) scales them to the grid.
"""
import ast
from dataclasses import dataclass, field

import numpy as np

from ..lower.facts import statement_work
from ..plugins.base import Plugin

WARP = 32
SECTOR = 32

# Machine instructions per statement of lowered code, by what lowering recorded it does
# (lower/facts.py: Work): one per memory operation and per arithmetic operator. Free: copies
# and conversions, the arithmetic of a memory operation's address (base + offset goes into the
# addressing mode, index arithmetic is usually hoisted out of loops), the simulator's own
# bookkeeping (u_* definedness shadows). A loop counter's increment by a constant costs 1/4
# (NVCC unrolls such loops, by 4 by default).
STATEMENT_WEIGHT = {
    "bookkeeping": lambda operators: 0.0,
    "copy": lambda operators: 0.0,
    "increment": lambda operators: 0.25,
    "memory": lambda operators: 1.0 + operators,     # the operation and its stored value's arithmetic
    "arithmetic": lambda operators: float(operators),
}
# a conditional branch: a compare and a branch (1/2 when it tests a counter against a
# constant: an unrolled loop's test)
CONDITION_WEIGHT = {
    "constant_test": lambda operators: 0.5,
    "test": lambda operators: 1.0 + operators,
}


def work_instructions(work, table=STATEMENT_WEIGHT):
    """Machine instructions of one statement's (or condition's) recorded Work."""
    return table[work.kind](work.operators)


def statement_instructions(line):
    """Machine instructions one statement of lowered code, given as its text, becomes."""
    return work_instructions(statement_work(ast.parse(line.strip()).body[0]))


def instruction_weights(program):
    """Per basic block: an estimate of the machine instructions one warp issues to run it once:
    its statements, plus its branch condition for a conditional branch, from the facts lowering
    recorded on the block (block.facts). An unconditional jump is free (the compiler lays blocks
    out to fall through)."""
    weights = []
    for block in program.blocks:
        w = sum(work_instructions(work) for work in block.facts.work)
        if block.facts.condition is not None:
            w += work_instructions(block.facts.condition, CONDITION_WEIGHT)
        weights.append(w)
    return np.array(weights + [0.0], float)


def operand_registers(program):
    """The registers lowering made to hold sync points' operands and results (the mask, value,
    lane, width, predicate of a __shfl_*_sync, a vote, __syncthreads_count...; program.SyncSite),
    which on a GPU are the instruction's operands, not registers of their own."""
    return {name for site in program.sync_sites for name in (*site.operands.values(), site.result) if name}


def estimate_registers(program):
    """Registers per thread, estimated from the compiled program: one per 4 bytes of each
    variable of the thread (local arrays included), plus 8 for what NVCC always keeps (thread
    and block ids, addresses, the stack pointer). Not counted: kernel parameters (they live
    in the constant bank), the special registers (threadIdx, blockIdx) and the simulator's
    operand slots of sync points (operand_registers). At most 255. NVCC reuses registers
    between values that are not live together and unrolls loops into more, so this is a rough
    figure; it only matters where registers limit the resident blocks."""
    skip = {p.var for p in program.params} | operand_registers(program)
    regs = 8
    for name, var in program.vars.items():
        if name in skip or name.startswith("sp_"):
            continue
        size = int(np.prod(var.shape, dtype=np.int64)) if var.shape else 1
        regs += size * max(1, var.ctype.dtype.itemsize // 4)
    return int(min(255, regs))


@dataclass
class BlockCounts:
    """What one simulated block did (all counts are totals over the block's warps)."""
    block: int
    warps: int = 0
    instructions: int = 0           # warp instructions issued
    critical_instructions: int = 0  # sum over phases of the longest warp's instructions
    barriers: int = 0
    barrier_spread: list = field(default_factory=list)   # per barrier: max - min warp instructions
    read_phases: int = 0            # phases (between barriers) that read global memory
    global_accesses: int = 0        # warp-level global load/store instructions
    global_sectors: dict = field(default_factory=dict)   # (region name, 'read'|'write') -> sectors
    shared_accesses: int = 0        # warp-level shared load/store instructions
    shared_wavefronts: int = 0      # >= shared_accesses; the excess is bank conflicts
    atomics: int = 0                # lane-level global atomics
    atomic_warp_ops: int = 0

    @property
    def bank_conflicts(self):
        return self.shared_wavefronts - self.shared_accesses

    @property
    def sectors(self):
        return sum(self.global_sectors.values())


class PerfCounters(Plugin):
    """Counts per block; results in `self.blocks` (block number -> BlockCounts) and
    `self.atomic_addresses` ({(region name, byte offset): set of blocks})."""

    def __init__(self, launch, program, report, options):
        super().__init__(launch, program, report, options)
        self.weights = instruction_weights(program)
        self.blocks = {}
        self.atomic_addresses = {}
        self.region_bytes = {}
        self._wave_blocks = []

    # ------------------------------------------------------------------ waves
    def on_wave_start(self, wave):
        self._finish_wave()
        nwarps = wave.S // WARP
        self.issued = np.zeros(nwarps, float)
        self.at_phase_start = np.zeros(nwarps, float)
        self.phase_reads = np.zeros(wave.nblk, bool)
        wpb = wave.spb // WARP
        self.wpb = wpb
        self.warp_block = np.arange(nwarps) // wpb
        live = (np.arange(wave.spb) < wave.tpb).reshape(-1, WARP).any(axis=1)   # warps with threads
        self._wave_blocks = []
        for b in range(wave.nblk):
            counts = BlockCounts(block=wave.first_block + b, warps=int(live.sum()))
            self.blocks[counts.block] = counts
            self._wave_blocks.append(counts)

    def on_launch_end(self, launch):
        self._finish_wave()

    def _finish_wave(self):
        for b, counts in enumerate(self._wave_blocks):
            self._close_phase(b)
            warps = slice(b * self.wpb, (b + 1) * self.wpb)
            counts.instructions = float(self.issued[warps].sum())
        self._wave_blocks = []

    def _close_phase(self, b):
        """End block b's current phase (at a barrier or at the block's end)."""
        warps = slice(b * self.wpb, (b + 1) * self.wpb)
        work = self.issued[warps] - self.at_phase_start[warps]
        counts = self._wave_blocks[b]
        counts.critical_instructions += float(work.max()) if work.size else 0.0
        if self.phase_reads[b]:
            counts.read_phases += 1
        self.phase_reads[b] = False
        self.at_phase_start[warps] = self.issued[warps]
        return work

    # ------------------------------------------------------------------ execution
    def on_step(self, pc, lanes):
        warps = self.wave.slot_warp[lanes]          # ascending: lanes come sorted
        if len(warps) == 0:
            return
        if warps[0] == warps[-1]:
            self.issued[warps[0]] += self.weights[pc]
        else:
            starts = np.empty(len(warps), bool)
            starts[0] = True
            np.not_equal(warps[1:], warps[:-1], out=starts[1:])
            self.issued[warps[starts]] += self.weights[pc]

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        if len(offsets) == 0:
            return
        wave = self.wave
        warps = np.asarray(wave.slot_warp[lanes], np.int64)
        if region.kind == "global":
            self.region_bytes[region.name] = region.nbytes
            first = offsets // SECTOR
            last = (offsets + size - 1) // SECTOR
            keys = warps * (1 << 36) + first
            if (last != first).any():
                keys = np.concatenate([keys, warps * (1 << 36) + last])
            pairs = np.unique(keys)
            blocks = self.warp_block[np.unique(warps)]
            sector_blocks = self.warp_block[pairs >> 36]
            direction = "write" if kind == "write" else "read"
            for b in np.unique(blocks):
                counts = self._wave_blocks[b]
                key = (region.name, direction)
                counts.global_sectors[key] = counts.global_sectors.get(key, 0) + int((sector_blocks == b).sum())
                counts.global_accesses += int((blocks == b).sum())
                if direction == "read":
                    self.phase_reads[b] = True
            if kind in ("atomic", "cas"):
                lane_blocks = self.warp_block[warps]
                for b in np.unique(lane_blocks):
                    counts = self._wave_blocks[b]
                    counts.atomics += int((lane_blocks == b).sum())
                    counts.atomic_warp_ops += int(len(np.unique(warps[lane_blocks == b])))
                for off, b in set(zip(offsets.tolist(), (lane_blocks + wave.first_block).tolist())):
                    self.atomic_addresses.setdefault((region.name, off), set()).add(b)
        else:   # shared: wavefronts = most distinct words in one bank, per warp
            words = offsets // 4
            if size > 4:
                words = np.concatenate([words + k for k in range(size // 4)])
                warps = np.tile(warps, size // 4)
            distinct = np.unique(warps * (1 << 36) + words)
            w = distinct >> 36
            bank = (distinct & ((1 << 36) - 1)) % 32
            per_bank = np.unique(w * 32 + bank, return_counts=True)
            wave_warps = per_bank[0] // 32
            order = np.unique(wave_warps, return_index=True)
            worst = np.maximum.reduceat(per_bank[1], order[1])
            blocks = self.warp_block[order[0]]
            for b in np.unique(blocks):
                counts = self._wave_blocks[b]
                sel = blocks == b
                counts.shared_accesses += int(sel.sum())
                counts.shared_wavefronts += int(worst[sel].sum())

    def on_barrier_release(self, sync, lanes):
        if sync.op != "bar":
            return
        blocks = np.unique(self.wave.slot_block[lanes])
        for b in blocks:
            work = self._close_phase(int(b))
            counts = self._wave_blocks[int(b)]
            counts.barriers += 1
            live = work[: counts.warps]
            counts.barrier_spread.append(float(live.max() - live.min()) if live.size else 0.0)
