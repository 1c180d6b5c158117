"""Performance counters: what the timing model needs to know about the blocks it simulates.

`PerfCounters` is a simulator plugin. Added to a launch (see sampling.py), it counts, for every
block it sees:

  * warp instructions issued: each step of a basic block counts its instruction weight once per
    warp that has lanes in it, so a divergent warp pays for both paths;
  * global memory: 32-byte sectors per warp access (a coalesced float load of a warp is 4
    sectors, a stride-32 one 32), per array and direction; the written sectors a warp access
    fills only partly (the L2 merges them with what is there); the distinct 128-byte lines per
    warp access (the SM's load/store unit handles one line per cycle); loads of sectors the
    block read recently hit its share of the L1 (with_l1) and are counted apart;
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
import re
from dataclasses import dataclass, field

import numpy as np

from ..lower.facts import statement_work
from ..checks.base import Plugin

WARP = 32
SECTOR = 32
PATTERNS_KEPT = 4096        # access patterns remembered per launch (a loop repeats a few)

# Machine instructions per statement of lowered code, by what lowering recorded it does
# (lower/facts.py: Work): one per memory operation and per arithmetic operator, a multiply
# followed by an add counted once (NVCC fuses them into one FMA or IMAD instruction). Free:
# copies and conversions, the arithmetic of a memory operation's address (base + offset goes
# into the addressing mode, index arithmetic is usually hoisted out of loops), the simulator's
# own bookkeeping (u_* definedness shadows). A loop counter's increment by an integer constant costs 1/8
# (NVCC unrolls such loops, by 4 or more; the fma_chain training sweep issues 1.1-1.2
# instructions per one-FMA iteration).
STATEMENT_WEIGHT = {
    "bookkeeping": lambda work: 0.0,
    "copy": lambda work: 0.0,
    "increment": lambda work: 0.125,
    "memory": lambda work: 1.0 + work.operators - work.fused,   # the operation and its stored value's arithmetic
    "arithmetic": lambda work: float(work.operators - work.fused),
}
# a conditional branch: a compare and a branch (1/8 when it tests a counter against a
# constant: an unrolled loop's test)
CONDITION_WEIGHT = {
    "constant_test": lambda work: 0.125,
    "test": lambda work: 1.0 + work.operators - work.fused,
}


def ascending_unique(values, counts=False):
    """np.unique(values[, return_counts=counts]): the distinct values in ascending order (and
    how often each occurs), without np.unique's sort where `values` already ascend (a warp
    access's lanes come in order, and most addresses rise with the lane); the same result
    either way."""
    if values.size < 2 and not counts:
        return values
    if values.size < 2 or not (values[1:] >= values[:-1]).all():
        return np.unique(values, return_counts=counts)
    keep = np.empty(values.size, bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    if not counts:
        return values[keep]
    starts = np.flatnonzero(keep)
    counted = np.empty(starts.size, np.int64)
    np.subtract(starts[1:], starts[:-1], out=counted[:-1])
    counted[-1] = values.size - starts[-1]
    return values[starts], counted


def work_instructions(work, table=STATEMENT_WEIGHT):
    """Machine instructions of one statement's (or condition's) recorded Work."""
    return table[work.kind](work)


def statement_instructions(line):
    """Machine instructions one statement of lowered code, given as its text, becomes."""
    return work_instructions(statement_work(ast.parse(line.strip()).body[0]))


def counted_loop_tests(program):
    """Ids of the loop headers whose test compares a counter stepped by a constant with a
    register the loop never writes (`for (r = 0; r < reps; r++)`): NVCC unrolls such a loop
    with a remainder loop as it does one with a constant trip count, so the test costs what a
    constant test costs (the fma_loop_runtime microbenchmark: 1.28 instructions per one-FMA
    iteration, as fma_chain's constant loop). A loop is a header block and the blocks up to the
    one that jumps back to it (lowering lays a loop's blocks out in order)."""
    blocks = program.blocks
    by_id = {b.id: b for b in blocks}
    found = set()
    for latch in blocks:
        if latch.term.kind != "goto" or latch.term.target > latch.id:
            continue
        header = by_id[latch.term.target]
        condition = header.facts.condition if header.term.kind == "branch" else None
        if condition is None or condition.kind != "test":
            continue
        test = ast.parse(header.term.cond.strip(), mode="eval").body
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
                and isinstance(test.comparators[0], ast.Name)):
            continue
        counter, bound = test.left.id[2:], test.comparators[0].id[2:]      # v_r_8 -> r_8
        body = [b for b in blocks if header.id <= b.id <= latch.id]
        writers = [b for b in body if counter in b.stores]
        if any(bound in b.stores for b in body) or not writers:
            continue
        if all(any(w.kind == "increment" for w in b.facts.work) for b in writers):
            found.add(header.id)
    return found


def instruction_weights(program):
    """Per basic block: an estimate of the machine instructions one warp issues to run it once:
    its statements, plus its branch condition for a conditional branch, from the facts lowering
    recorded on the block (block.facts). An unconditional jump is free (the compiler lays blocks
    out to fall through). A counted loop's test costs a constant test's (counted_loop_tests)."""
    weights = []
    unrolled = counted_loop_tests(program)
    for block in program.blocks:
        w = sum(work_instructions(work) for work in block.facts.work)
        condition = block.facts.condition
        if condition is not None:
            table_kind = "constant_test" if block.id in unrolled else condition.kind
            w += CONDITION_WEIGHT[table_kind](condition)
        weights.append(w)
    return np.array(weights + [0.0], float)


def operand_registers(program):
    """The registers lowering made to hold sync points' operands and results (the mask, value,
    lane, width, predicate of a __shfl_*_sync, a vote, __syncthreads_count...; program.SyncSite),
    which on a GPU are the instruction's operands, not registers of their own."""
    return {name for site in program.sync_sites for name in (*site.operands.values(), site.result) if name}


def shuffle_counts(program):
    """Per basic block: the warp shuffles one execution runs (each waits for its result
    before the next step of a shuffle reduction can start), from the block facts."""
    return np.array([sum(work.shuffles for work in block.facts.work) for block in program.blocks] + [0],
                    float)


def program_constants(program):
    """The lowered program's named constants (`K4 = I4.type(1)`): name -> value."""
    found = {}
    for line in program.python_source.splitlines():
        if not line.lstrip().startswith("K"):
            continue
        try:
            node = ast.parse(line.strip()).body[0]
        except SyntaxError:
            continue
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.value.args) == 1
                and isinstance(node.value.args[0], ast.Constant) and isinstance(node.targets[0], ast.Name)):
            found[node.targets[0].id] = node.value.args[0].value
    return found


# How the H200 runs a shared-memory atomic, by the atomic's operation and element type
# (course/data/h200-timing-sweeps5.md, SASS of the mb5 kernels): an int/unsigned add of the
# constant 1 becomes ATOMS.POPC.INC, one warp-aggregated increment whatever the lanes on one
# word; a float add becomes a compare-and-swap loop (ATOMS.CAST.SPIN), one lane per word at a
# time; other integer operations are native ATOMS (not measured on their own).
SHARED_ATOMIC_KIND = (
    (lambda op, dtype, value: op == "add" and dtype in ("I4", "U4") and value == 1, "increment"),
    (lambda op, dtype, value: dtype in ("F4", "F8"), "cas_loop"),
    (lambda op, dtype, value: True, "native"),
)

# How the H200's L2 runs a global atomic, by element type (course/data/h200-timing-sweeps6.md,
# SASS and the mb6 microbenchmarks): every integer operation (add, max, min, inc, CAS; RED or
# ATOM, none warp-aggregated) turns around on one address in the same time, a float add takes
# 2.4x as long.
GLOBAL_ATOMIC_KIND = (
    (lambda op, dtype, value: dtype in ("F4", "F8"), "float"),
    (lambda op, dtype, value: True, "integer"),
)


# Which global atomics nvcc turns into one per warp (warp aggregation; SASS of count_positive,
# block_slot_max_int and grid_stride_count_int for sm_90, docs/timing-validation.md round 7): an
# integer add (of 1: VOTEU.ANY + POPC; of any value: REDUX.SUM) or signed max (REDUX.MAX.S32) whose
# old value is not used (REDG), on an address the same for every lane by construction (kernel
# parameters, blockIdx, blockDim, gridDim, constants): the warp's leader does one REDG for the
# active lanes. Where the address comes from memory or a lane's own value (mb6's key[i], even when
# every key is the same) each lane's atomic stays.
AGGREGATED_OPS = {("add", "I4"), ("add", "U4"), ("max", "I4")}
# The same in shared memory, on a shared word the same for every lane (a __shared__ scalar or a
# constant index), min included: a shared atomicMax and atomicMin of every lane on one word per
# block cost about one operation per warp, not 32 (heldout7's block_range_int and heldout8's
# slot4_block_range, 0.019-0.025 ms at 1024 threads where 32 operations per warp would take
# 0.5-1.4); the SASS that says how is dumped by tools/round11_device.sh (mb8), not yet seen.
SHARED_AGGREGATED_OPS = AGGREGATED_OPS | {("min", "I4")}
UNIFORM_CALLS = {"imod", "idiv", "smul", "shl", "shr"}      # X.<call>(a, b, L, site) of uniform a and b
UNIFORM_ATTRIBUTES = {"bdim_x", "bdim_y", "bdim_z", "gdim_x", "gdim_y", "gdim_z"}


def warp_aggregated_sites(program, ops=AGGREGATED_OPS):
    """The sites of atomics that nvcc aggregates per warp (`ops`: AGGREGATED_OPS for global
    memory, SHARED_AGGREGATED_OPS for shared), as a set."""
    code = [line for block in program.blocks for line in block.code]
    conds = [str(getattr(block.term, "cond", "")) for block in program.blocks]
    text = "\n".join(code + conds)
    written = {t.id for line in code for node in ast.walk(ast.parse(line.strip()))
               if isinstance(node, ast.Assign) for t in ast.walk(node.targets[0]) if isinstance(t, ast.Name)}
    uniform = {f"v_{p.var}" for p in program.params} | {f"v_sp_bid_{a}" for a in "xyz"}
    uniform = (uniform - written) | set(program_constants(program)) | {"I4", "I8", "U4", "U8"}

    def is_uniform(node):
        if isinstance(node, ast.Name):
            return node.id in uniform
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.BinOp):
            return is_uniform(node.left) and is_uniform(node.right)
        if isinstance(node, ast.Attribute):
            return isinstance(node.value, ast.Name) and node.value.id == "X" and node.attr in UNIFORM_ATTRIBUTES
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if f.attr == "astype":
                return is_uniform(f.value) and all(is_uniform(a) for a in node.args)
            if isinstance(f.value, ast.Name) and f.value.id == "X" and f.attr in UNIFORM_CALLS:
                return all(is_uniform(a) for a in node.args[:2])
        return False

    sites = set()
    for line in code:
        node = ast.parse(line.strip()).body[0]
        call = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "atomic"
                and len(call.args) >= 7 and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[3], ast.Name) and isinstance(call.args[5], ast.Constant)):
            continue
        op, addr, dtype, site, compare = call.args[0].value, call.args[1], call.args[3].id, call.args[5].value, call.args[6]
        if (op, dtype) not in ops or not (isinstance(compare, ast.Constant) and compare.value is None):
            continue
        if isinstance(node, ast.Assign):
            result = node.targets[0].id if isinstance(node.targets[0], ast.Name) else None
            if result is None or len(re.findall(rf"\b{re.escape(result)}\b", text)) > 1:
                continue            # its old value is used: an ATOM, not aggregated here
        if is_uniform(addr):
            sites.add(site)
    return sites


def vector_access_sites(program):
    """Site id -> bytes per lane of the loads and stores that are members of one vector access
    (float2, float4, int4, double2...). The simulator splits such an access into its members, after
    one alignment check of the whole (`X.check_align(address, bytes, ...)`); on the GPU it is one
    wide instruction (LDG.E.128), which keeps more bytes in flight per lane than scalar loads of the
    same sectors, so the DRAM reaches a higher rate (dram_bytes_per_s_by_width). A struct without
    the vector types' alignment is copied member by member on the GPU too, and is not listed."""
    sites = {}
    for block in program.blocks:
        aligned = {}
        for line in block.code:
            if "X.check_align(" not in line and "X.ld(" not in line and "X.st(" not in line:
                continue
            for node in ast.walk(ast.parse(line.strip())):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == "X"):
                    continue
                f, args = node.func.attr, node.args
                if f == "check_align" and len(args) >= 2 and isinstance(args[0], ast.Name) \
                        and isinstance(args[1], ast.Constant) and args[1].value > 4:
                    aligned[args[0].id] = args[1].value
                elif f in ("ld", "st") and len(args) >= 5:
                    addr = args[0].left if isinstance(args[0], ast.BinOp) else args[0]
                    site = args[3] if f == "ld" else args[4]
                    if isinstance(addr, ast.Name) and addr.id in aligned and isinstance(site, ast.Constant):
                        sites[site.value] = aligned[addr.id]
    return sites


def _atomic_calls(program):
    """(site id, op, dtype name, constant value or None) of every lowered atomic call
    `X.atomic(op, address, value, dtype, L, site, compare)`."""
    constants = program_constants(program)
    for block in program.blocks:
        for line in block.code:
            if "X.atomic(" not in line:
                continue
            for node in ast.walk(ast.parse(line.strip())):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "atomic" and len(node.args) >= 6):
                    continue
                op, value, dtype, site = node.args[0], node.args[2], node.args[3], node.args[5]
                if not (isinstance(op, ast.Constant) and isinstance(site, ast.Constant)):
                    continue
                value = (value.value if isinstance(value, ast.Constant)
                         else constants.get(value.id) if isinstance(value, ast.Name) else None)
                dtype = dtype.id if isinstance(dtype, ast.Name) else None
                yield site.value, op.value, dtype, value


def atomic_site_kinds(program, table=SHARED_ATOMIC_KIND):
    """Site id -> how the GPU runs that atomic (the first rule of `table` that holds: in shared
    memory SHARED_ATOMIC_KIND, in global memory GLOBAL_ATOMIC_KIND)."""
    return {site: next(kind for rule, kind in table if rule(op, dtype, value))
            for site, op, dtype, value in _atomic_calls(program)}


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
    critical_shuffles: int = 0      # sum over phases of the most shuffles one warp ran
    barriers: int = 0
    barrier_spread: list = field(default_factory=list)   # per barrier: max - min warp instructions
    read_phases: int = 0            # phases (between barriers) that read global memory
    read_rounds: int = 0            # sum over phases of the most global-load rounds of one warp
    l1_rounds: int = 0              # the same for load rounds whose sectors all hit the L1
    l1_hit_sectors: int = 0         # sectors a warp re-read from the L1 (not counted in global_sectors)
    global_accesses: int = 0        # warp-level global load/store instructions
    global_sectors: dict = field(default_factory=dict)   # (region name, 'read'|'write') -> sectors
    partial_writes: dict = field(default_factory=dict)   # region name -> written sectors a warp wrote only partly
    global_lines: int = 0           # sum over warp accesses of the distinct 128-byte lines (the SM's load/store unit)
    shared_accesses: int = 0        # warp-level shared load/store instructions
    shared_wavefronts: int = 0      # >= shared_accesses; the excess is bank conflicts
    shared_atomic_serial: int = 0   # native shared atomics: sum over warp accesses of the most lanes on one word, less 1
    shared_atomic_chain: int = 0    # compare-and-swap shared atomics: the lane operations on the busiest word
    shared_atomic_words: set = field(default_factory=set)   # the shared words this block's atomics hit
    atomics: int = 0                # lane-level global atomics
    atomic_warp_ops: int = 0
    weight: float = 1.0             # how many of the grid's blocks this one stands for (sampling.py)

    @property
    def bank_conflicts(self):
        return self.shared_wavefronts - self.shared_accesses

    @property
    def sectors(self):
        return sum(self.global_sectors.values())

    def signature(self):
        """The counts that tell whether two blocks did the same work."""
        return (self.instructions, self.global_accesses, self.shared_accesses, self.atomics, self.barriers)


class PerfCounters(Plugin):
    l1_sectors = 0              # the L1 sectors one block may keep (0: no L1); see with_l1
    """Counts per block; results in `self.blocks` (block number -> BlockCounts) and
    `self.atomic_lines` ({(region name, 128-byte line): {block: {(sectors, most lanes on one
    address, GLOBAL_ATOMIC_KIND, whether the warp access hit this line alone): warp accesses}}}) and `self.atomic_line_words` (the first two words of each such
    line that atomics hit: a line with one word is one counter).

    Global sectors are counted once per warp and basic-block execution: the member loads of a
    float4 (or of any struct) touch the same sectors, as the one wide access they are on the
    GPU. A global atomic costs the L2 one operation per warp and 32-byte sector, times the
    most lanes of the warp on one address of that sector (lanes on distinct addresses of a
    sector are served together, lanes on the same address one after another)."""

    @classmethod
    def with_l1(cls, sectors):
        """These counters with an L1 of `sectors` 32-byte sectors per block."""
        return type(cls.__name__, (cls,), {"l1_sectors": int(sectors)})

    def __init__(self, launch, program, report, options):
        super().__init__(launch, program, report, options)
        self._step_lines = {}
        self._step_written = {}
        self.weights = instruction_weights(program)
        self.shuffles_per_block = shuffle_counts(program)
        self.blocks = {}
        self._cas_ops = {}
        self._l1_state = {}         # region name -> (last reading block, its L1 clock then) per sector
        self.atomic_lines = {}
        self.atomic_line_words = {}     # (region name, line) -> up to two words its atomics hit
        self.region_bytes = {}
        self.lane_bytes = {}        # array name -> its widest vector access (bytes per lane; vector_access_sites)
        self.vector_sites = vector_access_sites(program)
        self._wave_blocks = []
        self._wave_sectors, self._wave_touched = {}, {}
        self._step = 0
        self._patterns = {}         # shared access pattern -> its wavefronts (see _shared_access)
        self._global_patterns = {}  # global access pattern -> its sectors, lines and warps (_global_pattern)
        self.atomic_kinds = atomic_site_kinds(program)
        self.global_atomic_kinds = atomic_site_kinds(program, GLOBAL_ATOMIC_KIND)
        self.aggregated_sites = warp_aggregated_sites(program)
        self.shared_aggregated_sites = warp_aggregated_sites(program, SHARED_AGGREGATED_OPS)

    # ------------------------------------------------------------------ waves
    def on_wave_start(self, wave):
        self._finish_wave()
        nwarps = wave.S // WARP
        self.issued = np.zeros(nwarps, float)
        self.shuffled = np.zeros(nwarps, float)
        self.shuffled_at_phase_start = np.zeros(nwarps, float)
        self.at_phase_start = np.zeros(nwarps, float)
        self.rounds = np.zeros(nwarps, float)
        self.rounds_at_phase_start = np.zeros(nwarps, float)
        self.l1_rounds = np.zeros(nwarps, float)
        self.l1_rounds_at_phase_start = np.zeros(nwarps, float)
        self.round_in_l1 = np.zeros(nwarps, bool)     # this step's load round hit the L1 so far
        self.l1_clock = np.zeros(wave.nblk, np.int64)  # sectors each block has brought into its L1
        self.last_read_step = np.full(nwarps, -1, np.int64)
        self.phase_reads = np.zeros(wave.nblk, bool)
        self._step_sectors = {}
        self._wave_sectors = {}     # (array, direction) -> sectors per block of the wave (_global_access)
        self._wave_touched = {}     # (array, direction) -> which blocks of the wave accessed it
        self._wave_accesses = np.zeros(wave.nblk, np.int64)
        self._wave_l1_hits = np.zeros(wave.nblk, np.int64)
        wpb = wave.spb // WARP
        self.wpb = wpb
        self.warp_block = np.arange(nwarps) // wpb
        live = (np.arange(wave.spb) < wave.tpb).reshape(-1, WARP).any(axis=1)   # warps with threads
        self._wave_blocks = []
        self._cas_ops = {}          # (block in the wave, shared word) -> compare-and-swap lane operations
        for b in range(wave.nblk):
            counts = BlockCounts(block=wave.first_block + b, warps=int(live.sum()))
            self.blocks[counts.block] = counts
            self._wave_blocks.append(counts)

    def on_launch_end(self, launch):
        self._finish_wave()

    def _finish_wave(self):
        self._close_written()
        for key, sectors in self._wave_sectors.items():
            for b in np.flatnonzero(self._wave_touched[key]).tolist():
                found = self._wave_blocks[b].global_sectors
                found[key] += int(sectors[b])
        self._wave_sectors, self._wave_touched = {}, {}
        for b, counts in enumerate(self._wave_blocks):
            counts.global_accesses += int(self._wave_accesses[b])
            counts.l1_hit_sectors += int(self._wave_l1_hits[b])
            self._close_phase(b)
            warps = slice(b * self.wpb, (b + 1) * self.wpb)
            counts.instructions = float(self.issued[warps].sum())
        self._wave_blocks = []

    def _close_phase(self, b):
        """End block b's current phase (at a barrier or at the block's end)."""
        warps = slice(b * self.wpb, (b + 1) * self.wpb)
        work = self.issued[warps] - self.at_phase_start[warps]
        rounds = self.rounds[warps] - self.rounds_at_phase_start[warps]
        shuffles = self.shuffled[warps] - self.shuffled_at_phase_start[warps]
        counts = self._wave_blocks[b]
        counts.critical_instructions += float(work.max()) if work.size else 0.0
        l1_rounds = self.l1_rounds[warps] - self.l1_rounds_at_phase_start[warps]
        if rounds.size:
            # the phase's longest warp: the most memory rounds (one is several L1 rounds long),
            # and of those warps the most L1 rounds
            most = rounds.max()
            counts.read_rounds += float(most)
            counts.l1_rounds += float(l1_rounds[rounds == most].max())
        self.l1_rounds_at_phase_start[warps] = self.l1_rounds[warps]
        counts.critical_shuffles += float(shuffles.max()) if shuffles.size else 0.0
        self.shuffled_at_phase_start[warps] = self.shuffled[warps]
        if self.phase_reads[b]:
            counts.read_phases += 1
        self.phase_reads[b] = False
        self.at_phase_start[warps] = self.issued[warps]
        self.rounds_at_phase_start[warps] = self.rounds[warps]
        return work

    # ------------------------------------------------------------------ skipped loop iterations
    # (loop_skip.py): the counts that grow as a wave runs, read and added to as one vector
    BLOCK_SUMS = ("global_lines", "shared_accesses", "shared_wavefronts", "shared_atomic_serial", "atomics",
                  "atomic_warp_ops")

    def _sum_arrays(self):
        return [self.issued, self.shuffled, self.rounds, self.l1_rounds, self.l1_clock, self._wave_accesses,
                self._wave_l1_hits, *self._wave_sectors.values()]

    def _sum_dicts(self):
        """The counts kept in dicts that the wave's blocks add to: partial writes per array, the
        compare-and-swap operations per shared word, the global atomics per line and kind."""
        blocks = {c.block for c in self._wave_blocks}
        lines = [per_key for per_block in self.atomic_lines.values()
                 for b, per_key in per_block.items() if b in blocks]
        return [c.partial_writes for c in self._wave_blocks] + [self._cas_ops] + lines

    def tally(self):
        """-> (the wave's additive counts as one float vector: per warp its instructions, shuffles
        and load rounds, per block its sectors, accesses, L1 clock and hits, lines, shared accesses,
        wavefronts, atomics and partial writes, the compare-and-swap operations per shared word, the
        global atomics per line; the layout and every count that is not a sum (barriers, phases,
        the words atomics hit), which iterations that are skipped must not change). Two tallies of
        one wave with the same second part subtract to what the steps between them added."""
        blocks = self._wave_blocks
        dicts = self._sum_dicts()
        sums = [a.astype(float) for a in self._sum_arrays()]
        sums.append(np.array([getattr(c, name) for c in blocks for name in self.BLOCK_SUMS]
                             + [n for d in dicts for n in d.values()], float))
        fixed = (tuple(self._wave_sectors), tuple(tuple(d) for d in dicts),
                 tuple((c.barriers, c.read_phases, c.critical_instructions, c.critical_shuffles, c.read_rounds,
                        c.l1_rounds, len(c.barrier_spread), len(c.shared_atomic_words)) for c in blocks),
                 self.phase_reads.tobytes(), len(self.atomic_lines),
                 sum(len(words) for words in self.atomic_line_words.values()))
        return np.concatenate(sums), fixed

    def add_tally(self, increment):
        """Add `increment` (a vector laid out as tally()'s first part, whole numbers where the
        count is one) to the wave's counts: what the iterations that were not simulated did."""
        at = 0
        for a in self._sum_arrays():
            part = increment[at:at + a.size]
            a += part if a.dtype.kind == "f" else np.rint(part).astype(a.dtype)
            at += a.size
        for c in self._wave_blocks:
            for name in self.BLOCK_SUMS:
                setattr(c, name, getattr(c, name) + int(round(increment[at])))
                at += 1
        for d in self._sum_dicts():
            for key in d:
                d[key] += int(round(increment[at]))
                at += 1
        for key, total in self._cas_ops.items():     # each block's busiest word, as _cas_word_ops keeps it
            counts = self._wave_blocks[key >> 36]
            counts.shared_atomic_chain = max(counts.shared_atomic_chain, total)

    def skip_l1_reads(self, clock_then, clock_step, periods, moved):
        """`periods` periods of a loop were skipped; in each, block b of the wave brought
        clock_step[b] sectors into its L1 and the reads of array r moved by moved[r] bytes (a
        multiple of 32). Record the reads they would have made: every sector the block read in the
        last simulated period (since its L1 clock stood at clock_then[b]) is read again k periods
        later, k = 1..periods, moved by k * moved[r] bytes, with its clock k * clock_step[b] later;
        where several land on one sector the latest counts. What the block read before that period
        ages by the sectors brought in."""
        if not self.l1_sectors:
            return
        k = np.arange(1, periods + 1, dtype=np.int64)
        for name, (last_block, last_clock) in self._l1_state.items():
            shift = moved.get(name, 0) // SECTOR
            for b in range(len(self._wave_blocks)):
                owner = self.wave.first_block + b
                recent = np.flatnonzero((last_block == owner) & (last_clock >= clock_then[b]))
                if recent.size == 0:
                    continue
                if shift == 0:          # the same sectors, read again in every period
                    last_clock[recent] += periods * clock_step[b]
                    continue
                targets = (recent[:, None] + shift * k[None, :]).ravel()
                clocks = (last_clock[recent][:, None] + clock_step[b] * k[None, :]).ravel()
                keep = (targets >= 0) & (targets < last_block.size)
                targets, clocks = targets[keep], clocks[keep]
                order = np.lexsort((clocks, targets))
                targets, clocks = targets[order], clocks[order]
                latest = np.ones(targets.size, bool)
                latest[:-1] = targets[1:] != targets[:-1]
                last_block[targets[latest]] = owner
                last_clock[targets[latest]] = clocks[latest]

    # ------------------------------------------------------------------ execution
    def on_step(self, pc, lanes):
        self._step += 1
        if self._step_sectors:
            self._step_sectors = {}
            self._step_lines = {}
            self._close_written()
        shuffles = self.shuffles_per_block[pc]
        if isinstance(lanes, slice):                # a convergent group: the warps lo..hi, each once
            if lanes.stop > lanes.start:
                warps = slice(lanes.start // WARP, (lanes.stop - 1) // WARP + 1)
                self.issued[warps] += self.weights[pc]
                if shuffles:
                    self.shuffled[warps] += shuffles
            return
        warps = self.wave.slot_warp[lanes]          # ascending: lanes come sorted
        if len(warps) == 0:
            return
        if warps[0] == warps[-1]:
            self.issued[warps[0]] += self.weights[pc]
            if shuffles:
                self.shuffled[warps[0]] += shuffles
        else:
            starts = np.empty(len(warps), bool)
            starts[0] = True
            np.not_equal(warps[1:], warps[:-1], out=starts[1:])
            self.issued[warps[starts]] += self.weights[pc]
            if shuffles:
                self.shuffled[warps[starts]] += shuffles

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        if len(offsets) == 0:
            return
        warps = np.asarray(self.wave.slot_warp[lanes], np.int64)
        aggregated = self.aggregated_sites if region.kind == "global" else self.shared_aggregated_sites
        if site in aggregated:
            # one atomic per warp, by its leader (the lanes' address is the same)
            warps, first = np.unique(warps, return_index=True)
            offsets = offsets[first]
        if region.kind == "global":
            width = self.vector_sites.get(site)
            if width is not None and width > self.lane_bytes.get(region.name, 0):
                self.lane_bytes[region.name] = width
            self._global_access(region, offsets, size, kind, warps, self.global_atomic_kinds.get(site, "float"))
        else:
            self._shared_access(offsets, size, kind, warps, self.atomic_kinds.get(site, "native"))

    def _global_access(self, region, offsets, size, kind, warps, atomic_kind="float"):
        self.region_bytes[region.name] = region.nbytes
        pairs, lines, access_warps = self._global_pattern(offsets, size, warps)
        direction = "write" if kind == "write" else "read"
        key = (region.name, direction)
        seen = self._step_sectors.get(key)          # this basic block's earlier accesses
        if seen is not None and np.array_equal(seen, pairs):     # a float4's next member: nothing new
            pairs = pairs[:0]
        elif seen is not None:
            self._step_sectors[key] = np.union1d(seen, pairs)
            pairs = pairs[~np.isin(pairs, seen, assume_unique=True)]
        else:
            self._step_sectors[key] = pairs
        blocks = self.warp_block[access_warps]
        missed = self._l1_misses(region, pairs) if kind == "read" and self.l1_sectors else None
        hit_pairs = pairs[~missed] if missed is not None else pairs[:0]
        if missed is not None:
            pairs = pairs[missed]
        self._count_lines(region.name, lines)
        if kind == "write":
            self._note_written(region.name, offsets, size, warps)
        if direction == "read":
            self._count_rounds(access_warps, pairs >> 36 if access_warps.size == 1 else ascending_unique(pairs >> 36))
        sectors = self._wave_sectors.get(key)
        if sectors is None:
            sectors = self._wave_sectors[key] = np.zeros(len(self._wave_blocks), np.int64)
        if blocks[0] == blocks[-1]:                 # one block's warps (blocks ascend with warps)
            b = blocks[0]
            self._first_touch(key, blocks[:1])
            sectors[b] += pairs.size
            self._wave_accesses[b] += access_warps.size
            self._wave_l1_hits[b] += hit_pairs.size
        else:
            self._first_touch(key, blocks)
            sectors += np.bincount(self.warp_block[pairs >> 36], minlength=sectors.size)
            self._wave_accesses += np.bincount(blocks, minlength=sectors.size)
            self._wave_l1_hits += np.bincount(self.warp_block[hit_pairs >> 36], minlength=sectors.size)
        if direction == "read":
            self.phase_reads[blocks] = True
        if kind in ("atomic", "cas"):
            self._global_atomic(region, offsets, warps, atomic_kind)

    def _first_touch(self, key, blocks):
        """Blocks (of the wave) that access (array, direction) `key` for the first time get
        its entry now, so that each block's global_sectors keeps the order it met its arrays
        in; the wave's counts are added at its end (_finish_wave)."""
        touched = self._wave_touched.get(key)
        if touched is None:
            touched = self._wave_touched[key] = np.zeros(len(self._wave_blocks), bool)
        if not touched[blocks].all():
            for b in blocks[~touched[blocks]].tolist():
                if not touched[b]:
                    touched[b] = True
                    found = self._wave_blocks[b].global_sectors
                    found[key] = found.get(key, 0)

    def _count_rounds(self, access_warps, missing_warps):
        """One round trip per basic block that loads, per warp: an L1 round when every sector
        the warp's loads of this basic block fetched was an L1 hit, else a memory round (a
        later load of the same basic block that misses turns an L1 round into a memory one)."""
        if access_warps.size == 1:      # one warp: the same rule on its scalars
            w, missing = int(access_warps[0]), missing_warps.size > 0
            if self.last_read_step[w] != self._step:
                if missing:
                    self.rounds[w] += 1
                else:
                    self.l1_rounds[w] += 1
                self.round_in_l1[w] = not missing
            elif missing and self.round_in_l1[w]:
                self.l1_rounds[w] -= 1
                self.rounds[w] += 1
                self.round_in_l1[w] = False
            self.last_read_step[w] = self._step
            return
        fresh = self.last_read_step[access_warps] != self._step
        missing = np.zeros(len(self.issued), bool)     # (missing_warps are some of access_warps)
        missing[missing_warps] = True
        missing = missing[access_warps]
        new_l1, new_memory = access_warps[fresh & ~missing], access_warps[fresh & missing]
        self.l1_rounds[new_l1] += 1
        self.round_in_l1[new_l1] = True
        self.rounds[new_memory] += 1
        self.round_in_l1[new_memory] = False
        upgraded = access_warps[~fresh & missing]
        upgraded = upgraded[self.round_in_l1[upgraded]]
        self.l1_rounds[upgraded] -= 1
        self.rounds[upgraded] += 1
        self.round_in_l1[upgraded] = False
        self.last_read_step[access_warps] = self._step

    def _l1_misses(self, region, pairs):
        """Which (warp, sector) reads miss the block's L1: a sector is still there when the same
        block read it last and has brought in fewer than `l1_sectors` sectors since (an LRU
        cache of the block's share of the SM's L1). Sectors two blocks share count for the last
        reader only (blocks of a grid mostly run on different SMs)."""
        sectors = pairs & ((1 << 36) - 1)
        blocks = self.warp_block[pairs >> 36]
        state = self._l1_state.get(region.name)
        if state is None:
            size = region.nbytes // SECTOR + 1
            state = self._l1_state[region.name] = (np.full(size, -1, np.int64), np.zeros(size, np.int64))
        last_block, last_clock = state
        owner = blocks + self.wave.first_block
        missed = ~((last_block[sectors] == owner) & (self.l1_clock[blocks] - last_clock[sectors] < self.l1_sectors))
        if missed.size > 1 and pairs[0] >> 36 != pairs[-1] >> 36:     # several warps (pairs ascend)
            # warps of one block that miss on the same sector at once wait for one fetch (the
            # L1 merges misses to a line in flight): only the first warp's read goes to the L2
            _, first = np.unique(owner * (1 << 36) + sectors, return_index=True)
            once = np.zeros(missed.size, bool)
            once[first] = True
            missed &= once
        self.l1_clock += np.bincount(blocks[missed], minlength=self.l1_clock.size)
        last_block[sectors] = owner
        last_clock[sectors] = self.l1_clock[blocks]
        return missed

    def _global_pattern(self, offsets, size, warps):
        """-> (the distinct (warp, 32-byte sector) keys, the distinct (warp, 128-byte line) keys,
        the distinct warps) of one global access, each ascending. They only move when every
        lane's address moves by the same whole number of 128-byte lines and the warps by the
        same number, so a loop's repeated pattern is worked out once and moved after."""
        base = int(offsets[0]) - int(offsets[0]) % 128
        first_warp = int(warps[0])
        pattern = None
        if len(self._global_patterns) < PATTERNS_KEPT:
            pattern = ((offsets - base).tobytes(), (warps - first_warp).tobytes(), size)
            found = self._global_patterns.get(pattern)
            if found is not None:
                pairs, lines, access_warps = found
                shift = first_warp * (1 << 36)
                return pairs + (shift + base // SECTOR), lines + (shift + base // 128), access_warps + first_warp
        first = offsets // SECTOR
        last = (offsets + size - 1) // SECTOR
        keys = warps * (1 << 36) + first
        if (last != first).any():
            keys = np.concatenate([keys, warps * (1 << 36) + last])
        pairs = ascending_unique(keys)
        ends = warps * (1 << 36) + (offsets + size - 1) // 128
        starts = warps * (1 << 36) + offsets // 128 if size > 1 else ends
        lines = ascending_unique(ends if starts is ends or (starts == ends).all() else np.concatenate([starts, ends]))
        access_warps = ascending_unique(warps)
        if pattern is not None:
            shift = first_warp * (1 << 36)
            self._global_patterns[pattern] = (pairs - (shift + base // SECTOR), lines - (shift + base // 128),
                                              access_warps - first_warp)
        return pairs, lines, access_warps

    def _count_lines(self, name, keys):
        """Distinct 128-byte lines per warp (keys: (warp, line), ascending), each once per
        basic-block execution (the members of a float4 are one access)."""
        seen = self._step_lines.get(name)
        if seen is not None and np.array_equal(seen, keys):      # a float4's next member: nothing new
            return
        if seen is not None:
            self._step_lines[name] = np.union1d(seen, keys)
            keys = keys[~np.isin(keys, seen, assume_unique=True)]
        else:
            self._step_lines[name] = keys
        if keys.size:
            key_blocks = self.warp_block[keys >> 36]
            if key_blocks[0] == key_blocks[-1]:
                self._wave_blocks[key_blocks[0]].global_lines += int(keys.size)
                return
            blocks, counts = ascending_unique(key_blocks, counts=True)
            for b, c in zip(blocks.tolist(), counts.tolist()):
                self._wave_blocks[b].global_lines += c

    def _note_written(self, name, offsets, size, warps):
        """Bytes each warp writes into each sector during this basic-block execution (the
        members of a struct store fill a sector together); counted at the step's end."""
        self._step_written.setdefault(name, []).append((warps * (1 << 36) + offsets // SECTOR, size))

    def _close_written(self):
        for name, parts in self._step_written.items():
            if len(parts) == 1:
                keys, size = parts[0]
                sectors, lanes = ascending_unique(keys, counts=True)
                written = lanes * size
            else:
                sectors, where = np.unique(np.concatenate([k for k, _ in parts]), return_inverse=True)
                written = np.bincount(where, weights=np.concatenate([np.full(k.size, n) for k, n in parts]))
            partial = sectors[written < SECTOR] >> 36
            if partial.size:
                blocks, counts = np.unique(self.warp_block[partial], return_counts=True)
                for b, c in zip(blocks.tolist(), counts.tolist()):
                    found = self._wave_blocks[b].partial_writes
                    found[name] = found.get(name, 0) + c
        self._step_written = {}

    def _global_atomic(self, region, offsets, warps, atomic_kind):
        lane_blocks = self.warp_block[warps]
        for b in np.unique(lane_blocks):
            counts = self._wave_blocks[b]
            counts.atomics += int((lane_blocks == b).sum())
            counts.atomic_warp_ops += int(len(np.unique(warps[lane_blocks == b])))
        # L2 operations: per (warp, 128-byte line), the distinct sectors it hits and the most
        # lanes on one address (model.atomic_line_ns prices them, by the atomic's kind)
        addr, per_addr = np.unique(warps * (1 << 36) + offsets, return_counts=True)
        offset = addr & ((1 << 36) - 1)
        line_key, starts = np.unique((addr >> 36) * (1 << 36) + offset // 128, return_index=True)
        most = np.maximum.reduceat(per_addr, starts)
        sector_key = (addr >> 36) * (1 << 36) + offset // SECTOR
        first_of_sector = np.concatenate([[True], sector_key[1:] != sector_key[:-1]])
        sectors = np.add.reduceat(first_of_sector.astype(np.int64), starts)
        lines = line_key & ((1 << 36) - 1)
        # a warp access alone on its line (its lanes hit no other line) waits for its own
        # turnaround; one that spans lines is split into requests the L2 pipelines
        _, line_of_warp, lines_per_warp = np.unique(line_key >> 36, return_inverse=True, return_counts=True)
        alone = lines_per_warp[line_of_warp] == 1
        blocks = self.warp_block[line_key >> 36] + self.wave.first_block
        for line, n, m, a, b in zip(lines.tolist(), sectors.tolist(), most.tolist(), alone.tolist(), blocks.tolist()):
            entry = self.atomic_lines.setdefault((region.name, line), {}).setdefault(b, {})
            key = (n, m, atomic_kind, a)
            entry[key] = entry.get(key, 0) + 1
        for line, word in zip(((offset // 128)).tolist(), (offset // 4).tolist()):
            seen = self.atomic_line_words.setdefault((region.name, line), set())
            if len(seen) < 2:
                seen.add(word)

    def _shared_access(self, offsets, size, kind, warps, atomic_kind="native"):
        """Wavefronts = most distinct words in one bank, per warp; atomics also cost what their
        kind costs (SHARED_ATOMIC_KIND): a warp-aggregated increment nothing more, a native
        atomic the lanes of a warp on one word one after another, a compare-and-swap loop every
        lane operation on a word one after another. The wavefronts of an access pattern do not
        change when every lane's address moves by the same amount (banks rotate), so a loop's
        repeated pattern is counted once and looked up after."""
        words = offsets // 4
        pattern = ((words - words[0]).tobytes(), (warps - warps[0]).tobytes(), int(warps[0] % self.wpb), size)
        per_block = self._patterns.get(pattern)
        first_block = self.warp_block[warps[0]]
        if per_block is None:
            per_block = self._bank_wavefronts(words, size, warps, first_block)
            if len(self._patterns) < PATTERNS_KEPT:
                self._patterns[pattern] = per_block
        for rel, accesses, wavefronts in per_block:
            counts = self._wave_blocks[first_block + rel]
            counts.shared_accesses += accesses
            counts.shared_wavefronts += wavefronts
        if kind not in ("atomic", "cas") or atomic_kind == "increment":
            return
        if atomic_kind == "cas_loop":
            self._cas_word_ops(words, warps)
            return
        keys, per_word = np.unique(warps * (1 << 36) + words, return_counts=True)
        key_warps = keys >> 36
        starts = np.unique(key_warps, return_index=True)[1]
        most = np.maximum.reduceat(per_word, starts)
        for b, m in zip(self.warp_block[key_warps[starts]].tolist(), most.tolist()):
            self._wave_blocks[b].shared_atomic_serial += m - 1
        for b in np.unique(self.warp_block[key_warps]):
            sel = self.warp_block[key_warps] == b
            found = self._wave_blocks[b].shared_atomic_words
            if len(found) < 4096:
                found.update((keys[sel] & ((1 << 36) - 1)).tolist())

    def _cas_word_ops(self, words, warps):
        """Count lane operations per (block, shared word) for compare-and-swap atomics; each
        block's busiest word so far is its chain (blocks' shared memories are their own)."""
        keys, per_word = np.unique(self.warp_block[warps] * (1 << 36) + words, return_counts=True)
        ops = self._cas_ops
        for key, n in zip(keys.tolist(), per_word.tolist()):
            total = ops.get(key, 0) + n
            ops[key] = total
            counts = self._wave_blocks[key >> 36]
            if total > counts.shared_atomic_chain:
                counts.shared_atomic_chain = total

    def _bank_wavefronts(self, words, size, warps, first_block):
        """[(block - first_block, warp accesses, wavefronts)] of one shared access."""
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
        out = []
        for b in np.unique(blocks):
            sel = blocks == b
            out.append((int(b - first_block), int(sel.sum()), int(worst[sel].sum())))
        return tuple(out)

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
