"""Fault reports: what happened, where (source lines), who (blocks, warps, lanes), and why.

Every fault is raised through here (`raise_`), with a structured `.report` (for widgets) whose
text reads like a compute-sanitizer report followed by a plain explanation and a fix. The core's
own faults (misaligned and invalid pointers, division by zero, deadlock, step limits, ...) are
worded here; each launch check words its faults in its plugin (plugins/).
"""
import numpy as np

from ..runtime.wave import BAR, EXIT, JOIN, PARK, RUN, WARP
from ..errors import make_fault
from ..runtime.memory import FIRST_GLOBAL_REGION, ORIGIN_BITS, UNDEF_SHUFFLE

MODELS = {"independent": "independent thread scheduling (Volta and later)",
          "stack": "pre-Volta stack-based reconvergence"}


def lane_ranges(lanes, sep=", "):
    """[0,1,2,3,8,9] -> '0-3, 8-9'"""
    lanes = sorted(int(x) for x in lanes)
    out, start, prev = [], None, None
    for x in lanes:
        if start is None:
            start = prev = x
        elif x == prev + 1:
            prev = x
        else:
            out.append(f"{start}-{prev}" if prev > start else f"{start}")
            start = prev = x
    if start is not None:
        out.append(f"{start}-{prev}" if prev > start else f"{start}")
    return sep.join(out)


class Reporter:
    """Raises every fault of a launch, naming threads and source lines. It reads the running wave
    (`start_wave`) and never writes to it; it also collects the launch's warnings."""

    def __init__(self, prog, launch, options, block_line, join_branch_line):
        self.prog = prog
        self.launch = launch
        self.model = options.model
        self.schedule = options.schedule
        self.block_line = block_line                # first source line of each basic block
        self.join_branch_line = join_branch_line    # join block -> line of its branch or loop
        self.wave = None
        self.warnings = []
        self._warned = set()
        self.undefined_shuffles = []        # the first few shuffles that read a lane not taking part
        self.activemask_shuffle = None      # the first of them whose mask came from a split __activemask()
        # id(shuffle site) -> its origin taint bit (ORIGIN_BITS, one per site, first come first served):
        # the bit travels with the undefined value, so a report can name the shuffle whose
        # result really reached the store, not the first one that read a missing lane
        self.shuffle_origin_bits = {}

    def start_wave(self, wave):
        self.wave = wave

    def warn(self, key, message):
        """A warning for the launch record, once per key."""
        if key in self._warned:
            return
        self._warned.add(key)
        self.warnings.append(message)

    # ---- naming things
    def thread(self, slot):
        w = self.wave
        slot = int(slot)
        b = int(w.slot_block[slot]) + w.first_block
        t = int(w.slot_thread[slot])
        bx, by, _ = self.launch.block
        gx, gy, _ = self.launch.grid
        tid = (t % bx, (t // bx) % by, t // (bx * by))
        bid = (b % gx, (b // gx) % gy, b // (gx * gy))
        return {"block": bid, "thread": tid, "warp": t // WARP, "lane": t % WARP, "linear_thread": t,
                "linear_block": b}

    def who_global(self, gslot):
        """A thread named by its launch-wide slot number (any wave)."""
        w = self.wave
        b, t = int(gslot) // w.spb, int(gslot) % w.spb
        bx, by, _ = self.launch.block
        gx, gy, _ = self.launch.grid
        tid = (t % bx, (t // bx) % by, t // (bx * by))
        bid = (b % gx, (b // gx) % gy, b // (gx * gy))
        return f"thread {_xyz(tid)} of block {_xyz(bid)} (warp {t // WARP}, lane {t % WARP})"

    def who(self, slot):
        d = self.thread(slot)
        return f"thread {_xyz(d['thread'])} of block {_xyz(d['block'])} (warp {d['warp']}, lane {d['lane']})"

    def site_loc(self, site_id, what=""):
        s = self.prog.sites[site_id]
        return {"line": s.line, "column": s.column, "text": s.text.strip(), "what": what or s.what}

    def base(self, kind, title, explanation, fix, locations=(), who=None, **extra):
        w = self.wave
        running, at_line = None, 0
        if w is not None and w.running is not None and kind not in ("deadlock",):
            # the lanes of the step that faulted are shown running the faulting line
            running = np.zeros(w.S, bool)
            running[w.running] = True
            at_line = extra.pop("at_line", None) or (locations[0]["line"] if locations else 0)
        launch = self.launch
        report = {
            "kind": kind, "title": title, "explanation": explanation, "fix": fix,
            "model": MODELS[self.model], "schedule": self.schedule,
            "launch": f"grid {_xyz(launch.grid, 1)} x block {_xyz(launch.block, 1)}",
            "locations": list(locations), "who": who,
            "line": locations[0]["line"] if locations else None,
            "lines": [loc["line"] for loc in locations],
        }
        warps, text = self.warp_positions(running, at_line)
        report["warps"] = warps
        report["warps_text"] = text
        report.update(extra)
        return report

    def raise_(self, kind, *args, **kw):
        raise make_fault(**self.base(kind, *args, **kw))

    # ---- where every warp is
    def warp_positions(self, running=None, at_line=0, max_groups=6):
        """Every warp's lane groups (structured) and a compact text: identical warps and blocks merge.
        running: per slot, whether it ran the step that faulted (at source line at_line)."""
        wave = self.wave
        structured, text = [], []
        if wave is None:
            return structured, text
        block_desc = []
        for b in range(wave.nblk):
            gb = wave.first_block + b
            descs = []
            for w in range(wave.wpb):
                base = b * wave.spb + w * WARP
                groups = {}
                for lane in range(WARP):
                    slot = base + lane
                    if wave.slot_thread[slot] >= wave.tpb:
                        continue
                    groups.setdefault(self.position(slot, running, at_line), []).append(lane)
                structured.append({"block": gb, "warp": w, "groups": [
                    {"lanes": lanes, "state": pos[0], "line": pos[1], "where": pos[2]}
                    for pos, lanes in groups.items()]})
                descs.append("; ".join(f"lanes {lane_ranges(l)} {pos[2]}" if len(groups) > 1 or len(l) < 32
                                       else f"all lanes {pos[2]}" for pos, l in groups.items()))
            block_desc.append(descs)
        # merge runs of identical blocks, and runs of identical warps inside a block
        b = 0
        shown = 0
        while b < wave.nblk:
            b2 = b
            while b2 + 1 < wave.nblk and block_desc[b2 + 1] == block_desc[b]:
                b2 += 1
            if shown >= max_groups:
                text.append(f"... blocks {wave.first_block + b}-{wave.first_block + wave.nblk - 1} not shown")
                break
            label = f"block {wave.first_block + b}" if b2 == b else f"blocks {wave.first_block + b}-{wave.first_block + b2}"
            text.append(label + ":")
            descs = block_desc[b]
            w = 0
            while w < len(descs):
                w2 = w
                while w2 + 1 < len(descs) and descs[w2 + 1] == descs[w]:
                    w2 += 1
                wl = f"warp {w}" if w2 == w else f"warps {w}-{w2}"
                text.append(f"  {wl}: {descs[w]}")
                w = w2 + 1
            shown += 1
            b = b2 + 1
        return structured, text

    def position(self, slot, running=None, at_line=0):
        """(state, line, words) of one slot; running/at_line as for warp_positions."""
        w = self.wave
        st = int(w.st[slot])
        pc = int(w.pc[slot])
        if st == EXIT:
            return ("exited", int(w.exit_line[slot]), "exited")
        if st == RUN and running is not None and running[slot]:
            line = at_line or self.block_line[pc]
            return ("running", line, f"executing line {line}")
        if st == BAR:
            s = self.prog.sync_sites[int(w.site[slot])]
            return ("waiting", s.line, f"waiting at {s.name}() on {s.where}")
        line = self.block_line[pc] if pc < len(self.block_line) else 0
        if st == RUN and not line:
            ahead = self.next_line(pc)
            if not ahead:
                return ("running", 0, "at the end of the kernel, about to exit")
            return ("running", ahead, f"about to run line {ahead}")
        if st == JOIN:
            branch = self.join_branch_line.get(pc, 0)
            where = f"at the end of the branch or loop of line {branch}" if branch else f"on line {line}"
            return ("waiting_reconverge", line or branch,
                    f"waiting {where} for warp-mates to reconverge")
        if st == PARK:
            return ("parked", line, f"parked before line {line} until the other side of the branch finishes")
        return ("running", line, f"about to run line {line}")

    def next_line(self, pc):
        """The first source line a lane at the line-less block `pc` runs next (a join or a loop's
        back edge leads on through gotos), or 0 when only the kernel's exit is ahead."""
        blocks = self.prog.blocks
        for _ in range(len(blocks)):
            if pc >= len(self.block_line):
                return 0
            if self.block_line[pc]:
                return self.block_line[pc]
            term = blocks[pc].term
            if getattr(term, "line", 0):
                return term.line
            if hasattr(term, "site"):                   # a sync point: its own line
                return self.prog.sync_sites[term.site].line
            if not hasattr(term, "target"):
                return 0
            pc = term.target
        return 0

    # ---- faults raised while a block runs
    def read_only(self, region, L, site):
        idx = self.wave.lane_index(L)
        if region.kind == "global" and region.id < FIRST_GLOBAL_REGION:   # a __constant__ variable
            self.raise_("read_only", f"Write to the __constant__ variable {region.name}",
                        f"the write at line {self.prog.sites[site].line} stores to '{region.name}', __constant__ "
                        "memory, which kernels can only read. nvcc compiles it with a warning (\"Cannot store to "
                        "pointer that points to constant memory space\"); what the GPU then does is undefined.",
                        "write it from the host (RawModule.get_global(name)), or make it a __device__ variable "
                        "if kernels must write it.", [self.site_loc(site, "write")],
                        self.who(idx[0]) if len(idx) else None)
        self.raise_("read_only", f"Write to the read-only array {region.name}",
                    f"the write at line {self.prog.sites[site].line} goes to argument '{region.name}', a numpy "
                    "array passed with writeable=False (e.g. a const view). simcore will not write it.",
                    "pass a writeable array (x.copy()), or do not write through this parameter.",
                    [self.site_loc(site, "write")], self.who(idx[0]) if len(idx) else None)

    def misaligned(self, region, off, size, L, site, kind):
        idx = self.wave.lane_index(L)
        k = int(np.flatnonzero(off % size)[0])
        self.raise_("misaligned", f"Misaligned {kind} of {size} bytes in {region.name}",
                    f"byte offset {int(off[k])} is not a multiple of the access size {size}.",
                    "access memory through a pointer of the element's own type.",
                    [self.site_loc(site, kind)], self.who(idx[k]))

    def bad_pointer(self, addr, L, site, kind):
        idx = self.wave.lane_index(L)
        null = (np.asarray(addr) == 0)
        what = "a null pointer" if null.any() else "an address that is in no array"
        self.raise_("out_of_bounds", f"Invalid {kind} through {what}",
                    f"the {kind} at line {self.prog.sites[site].line} uses {what}.",
                    "point into a kernel argument or a __shared__ array.",
                    [self.site_loc(site, kind)], self.who(idx[0]))

    def atomic_on_local(self, region, L, site):
        idx = self.wave.lane_index(L)
        self.raise_("out_of_bounds", f"Atomic on the local variable {region.name}",
                    f"the atomic at line {self.prog.sites[site].line} points to '{region.name}', a local variable "
                    "(local memory). PTX atomics work on global and shared memory only; on local memory they are "
                    "undefined (nvcc warns: \"Cannot do atomic on local memory\").",
                    "a variable that only this thread sees needs no atomic: update it directly (x += v), or use "
                    "a __shared__ or global variable if other threads must see it.",
                    [self.site_loc(site, "atomic")], self.who(idx[0]) if len(idx) else None)

    def bad_function_pointer(self, value, L, site):
        idx = self.wave.lane_index(L)
        v = int(value[0]) if len(value) else 0
        what = "a null function pointer" if v == 0 else f"a function pointer that is no function of the module ({v})"
        self.raise_("out_of_bounds", f"Call through {what}",
                    f"the call at line {self.prog.sites[site].line} goes through {what}: on the GPU the thread "
                    "jumps to no code (an illegal instruction or address).",
                    "set the pointer to a __device__ function of the module (f = my_function;) before calling it.",
                    [self.site_loc(site, "call")], self.who(idx[0]) if len(idx) else None)

    def div_zero(self, zero, L, site):
        lanes = self.wave.lane_index(L)
        k = int(np.flatnonzero(zero)[0])
        self.raise_("division_by_zero", "Integer division by zero",
                    f"{int(zero.sum())} thread(s) divided an integer by zero; C leaves the result undefined "
                    "(a GPU returns garbage, it does not trap).",
                    "check the divisor first, or compute only where it is non-zero.",
                    [self.site_loc(site, "division")], self.who(lanes[k]))

    def shuffle_taint(self, site):
        """The taint of a value this shuffle read from a lane not taking part: UNDEF_SHUFFLE plus
        the site's own origin bit (the first len(ORIGIN_BITS) sites get one; later ones only the
        UNDEF_SHUFFLE bit, and their reports fall back to the first such shuffle)."""
        bit = self.shuffle_origin_bits.get(id(site))
        if bit is None:
            used = len(self.shuffle_origin_bits)
            bit = ORIGIN_BITS[used] if used < len(ORIGIN_BITS) else 0
            self.shuffle_origin_bits[id(site)] = bit
        return UNDEF_SHUFFLE | bit

    def bad_shift(self, bad, count, bits, L, site):
        lanes = self.wave.lane_index(L)
        k = int(np.flatnonzero(bad)[0])
        n = int(np.broadcast_to(count, bad.shape)[k])
        self.raise_("undefined_shift", "Shift count out of range",
                    f"{int(bad.sum())} thread(s) shifted a {bits}-bit value by {n}; C leaves a shift by a negative "
                    f"count or by {bits} or more undefined (a GPU's shift instruction clamps the count, but the "
                    "compiler may assume it never happens and compute anything).",
                    f"keep the count between 0 and {bits - 1}: e.g. a mask of n low bits is "
                    f"(n >= {bits} ? ~0u : (1u << n) - 1).",
                    [self.site_loc(site, "shift")], self.who(lanes[k]))

    def signed_overflow(self, over, a, b, L, site):
        """A warning, once per site: a signed multiplication overflowed (undefined in C)."""
        if ("signed_overflow", site) in self._warned:
            return
        lanes = self.wave.lane_index(L)
        k = int(np.flatnonzero(over)[0])
        s = self.prog.sites[site]
        bits = a.dtype.itemsize * 8
        who = self.who(lanes[k]) if over.shape == np.shape(lanes) else "a thread"
        self.warn(("signed_overflow", site),
                  f"line {s.line}: signed integer overflow: {int(a.flat[k])} * {int(b.flat[k])} does not fit in "
                  f"a {bits}-bit signed integer ({who}; {int(over.sum())} thread(s) at this step). C leaves signed "
                  "overflow undefined: a GPU wraps the product, but the compiler may assume it never happens. "
                  "Use a wider type (long long), or unsigned arithmetic if wrapping is what you mean.")

    def note_undefined_shuffle(self, site, lanes, src, masks=None):
        """Lanes (slots) of a shuffle read lanes `src` that were not taking part; masks: each
        reading lane's group of participants."""
        why = None
        if masks is not None and self.wave.activemask_split and self.activemask_shuffle is None:
            for k in range(len(lanes)):
                why = self._mask_from_activemask(int(lanes[k]), int(masks[k]), int(src[k]))
                if why:
                    break
            if why and self.activemask_shuffle is None:
                self.activemask_shuffle = (site, int(lanes[k]), int(src[k]), why)
        if all(note[0] is not site for note in self.undefined_shuffles):
            self.undefined_shuffles.append((site, int(lanes[0]), int(src[0]), None))

    def split_syncwarp(self, sync_site, mask, split):
        """A warning, once per __syncwarp site: its mask is a sub-group that a split __activemask()
        returned (split: (site, sub-group masks)), so it ordered only those lanes."""
        if ("split_syncwarp", sync_site) in self._warned:
            return
        site = self.prog.sync_sites[sync_site]
        where, _ = self._activemask_where(split)
        first, second = (_lanes(m) for m in split[1])
        self.warn(("split_syncwarp", sync_site),
                  f"line {site.line}: {site.name}() was called with mask 0x{mask:08x}, which {where} returned "
                  f"under the {self.schedule} schedule: that call ran the warp's {_lanes(split[1][0] | split[1][1])} "
                  f"in two groups that reconverged right after, {first} and {second}, as a GPU with "
                  "independent thread scheduling (Volta and later) may do. A __syncwarp() orders only the "
                  f"lanes of its mask, so {first} and {second} were not ordered with each other there (the "
                  f"simulator let {first} run on first): what one group wrote for the other may not have been "
                  "there yet. That is right only if the two groups share nothing there. __activemask() tells "
                  "which lanes happen to be executing together, not which lanes the algorithm needs; if they "
                  "share data, give __syncwarp() the lanes that need each other (all 32: __syncwarp(), or a "
                  "__ballot_sync of the condition before the branch).")

    def _activemask_sync_note(self, slot):
        """For a race between lanes of one warp: a sentence on __activemask() when a call of it was
        split in that warp (the likely source of a __syncwarp mask that left a lane out)."""
        w = self.wave
        if not w.activemask_split.get(int(w.slot_warp[slot])):
            return ""
        where, _ = self._activemask_where(w.activemask_split[int(w.slot_warp[slot])])
        return (f" If the mask came from {where}: it names the lanes that happened to execute together "
                f"there (under the {self.schedule} schedule, only part of the warp), not the lanes the "
                "algorithm needs, so it is never the right mask for a __syncwarp().")

    def _activemask_where(self, split):
        """('__activemask() on line N', N) for a split (site, sub-group masks)."""
        site = self.prog.sites[split[0]] if split[0] is not None else None
        line = site.line if site is not None else 0
        if not line:
            return "__activemask()", 0
        if "coalesced_threads" in site.text:     # cg::coalesced_threads() is __activemask() there
            return f"coalesced_threads() (that is, __activemask()) on line {line}", line
        return f"__activemask() on line {line}", line

    def _mask_from_activemask(self, slot, mask, src):
        """(sentence, line) when `mask`, the group of the shuffle that `slot` took part in, is the
        sub-group a split __activemask() returned to it; else None."""
        w = self.wave
        warp, lane = int(w.slot_warp[slot]), int(w.slot_lane[slot])
        recent = [w.activemask_split.get(warp)] + list(w.activemask_second.get(warp, {}).values())[::-1]
        split = next((sp for sp in recent if sp is not None and mask in sp[1]), None)
        if split is None or not mask >> lane & 1:
            return None
        where, line = self._activemask_where(split)
        sub = split[1]
        return (f"Its mask 0x{mask:08x} came from {where}: under the {self.schedule} schedule the "
                f"{_lanes(sub[0] | sub[1])} of this warp ran that call in two groups that reconverged right "
                f"after, {_lanes(sub[0])} and {_lanes(sub[1])}, and __activemask() returned to each lane only "
                f"its own group, so lane {lane} could not read lane {src}. A GPU with independent thread "
                "scheduling (Volta and later) may split a warp like that at any instruction: "
                "__activemask() tells which lanes happen to be executing together, not which lanes the "
                "algorithm needs, so it is never the right mask for a shuffle or a __syncwarp().", line)

    def _undefined_origin(self, taint_bits):
        """(sentence, line where it became undefined, line of the __activemask() its shuffle's
        mask came from): a shuffle whose mask a split __activemask() returned explains best."""
        note = self._shuffle_origin(taint_bits)
        if taint_bits & UNDEF_SHUFFLE and note is not None:
            site, slot, src, why = note
            text = (f"The value came from {site.name}() on line {site.line}: {self.who(slot)} read lane {src}, "
                    "which was not taking part in that shuffle (not in the mask, exited, or elsewhere), so "
                    "what it read is undefined.")
            if why:
                return f"{text} {why[0]}", site.line, why[1]
            return text, site.line, None
        if taint_bits & 2:
            return ("The value was read from shared memory that no thread of the block had written yet.", None, None)
        if taint_bits & 4:
            return ("The value is a local variable that was declared without a value and read before any "
                    "assignment.", None, None)
        return ("The value is undefined.", None, None)

    def _shuffle_origin(self, taint_bits):
        """The note of the shuffle whose undefined result flowed into a value of these taint
        bits: among the shuffles whose origin bit it carries, the one whose mask came from a
        split __activemask() (it explains best), else the first; without origin bits (more
        shuffle sites than bits) the first undefined shuffle of the launch."""
        flowed = [note for note in self.undefined_shuffles
                  if self.shuffle_origin_bits.get(id(note[0]), 0) & taint_bits]
        am = self.activemask_shuffle
        if am is not None and (not flowed or any(note[0] is am[0] for note in flowed)):
            return am
        if flowed:
            return flowed[0]
        unnamed = [note for note in self.undefined_shuffles if not self.shuffle_origin_bits.get(id(note[0]), 0)]
        return (unnamed or self.undefined_shuffles or [None])[0]

    def _undefined_locations(self, site, what, oline, mask_line):
        locs = [self.site_loc(site, what)]
        if oline:
            locs.append({"line": oline, "text": self.prog.line_text(oline), "what": "where it became undefined"})
        if mask_line:
            locs.append({"line": mask_line, "text": self.prog.line_text(mask_line),
                         "what": "where the shuffle's mask came from"})
        return locs

    def undefined_use(self, check, taint, L, site, what):
        """Raise `check` ('undefined_value' | 'uninitialized'): an undefined value (taint bits
        per lane) decides control flow or an address."""
        w = self.wave
        bits = int(np.bitwise_or.reduce(taint))
        lanes = w.lane_index(L)
        k = int(np.flatnonzero(taint)[0])
        origin, oline, mask_line = self._undefined_origin(bits)
        self.raise_(check, f"Undefined value {what}",
                    f"a value that is undefined {what} at line {self.prog.sites[site].line}. {origin}",
                    _undef_fix(bits, mask_line), self._undefined_locations(site, what, oline, mask_line),
                    self.who(lanes[k]))

    def undefined_store(self, check, taint, region, L, site):
        """The fault of `check`: an undefined value (taint bits per lane) stored to `region`
        (returned, not raised, so that a check may report it later)."""
        w = self.wave
        lanes = w.lane_index(L)
        bits = int(np.bitwise_or.reduce(taint))
        k = int(np.flatnonzero(taint)[0])
        origin, oline, mask_line = self._undefined_origin(bits)
        locs = self._undefined_locations(site, f"stored to {region.name}", oline, mask_line)
        title = ("Never-written shared memory reached the output" if check == "uninitialized"
                 else "Undefined value stored to memory")
        return make_fault(**self.base(check, title,
                          f"{int((taint != 0).sum())} thread(s) stored an undefined value to '{region.name}' at "
                          f"line {self.prog.sites[site].line}. {origin}", _undef_fix(bits, mask_line), locs,
                          self.who(lanes[k])))

    # ---- sync faults
    def bad_width(self, site, lanes, width):
        self.raise_("undefined_value", f"Invalid width {width} for {site.name}()",
                    "the width of a shuffle must be a power of two between 1 and 32.",
                    "use 32, 16, 8, 4, 2 or 1.", [{"line": site.line, "text": site.text.strip(),
                                                     "what": site.name}], self.who(lanes[0]))

    def deadlock(self):
        w = self.wave
        waiting = np.flatnonzero(w.st != EXIT)
        sites = {}
        for slot in waiting:
            pos = self.position(slot)
            sites.setdefault(pos[2], 0)
            sites[pos[2]] += 1
        locs = []
        for s in np.unique(w.site[w.st == BAR]):
            site = self.prog.sync_sites[int(s)]
            locs.append({"line": site.line, "text": site.text.strip(), "what": site.name})
        join_lanes = np.flatnonzero(w.st == JOIN)
        parts = []
        if len(join_lanes):
            parts.append("Some lanes finished a divergent branch or loop early and wait at its end for their "
                         "warp-mates (a warp reconverges at the end of a divergent region before going on), "
                         "while those warp-mates wait at a barrier for them: neither can move.")
        if (w.st == PARK).any():
            parts.append("Under the pre-Volta stack model a warp runs one side of a branch at a time: the lanes "
                         "on the other side are parked until this side reaches the end of the branch, so they "
                         "can never arrive at the barrier this side waits at. The block hangs.")
        nb = w.named
        if nb.count.any():
            b, i = map(int, np.argwhere(nb.count)[0])
            parts.append(f"Named barrier {i} in block {w.first_block + b} expects {int(nb.count[b, i])} threads; "
                         "fewer can ever arrive, so that phase can never complete.")
        if not parts:
            parts.append("Threads wait at barriers that the other live threads of the block never reach.")
        summary = "; ".join(f"{n} thread(s) {w}" for w, n in list(sites.items())[:6])
        bar_waiting = np.flatnonzero(w.st == BAR)
        if len(bar_waiting):
            b = int(w.slot_block[bar_waiting[0]])
            in_block = bar_waiting[w.slot_block[bar_waiting] == b]
            live = int(((w.slot_block == b) & (w.st != EXIT)).sum())
            summary += (f". In block {w.first_block + b}, {len(in_block)} of its {live} live threads have "
                        "arrived at a barrier; the rest never will")
        self.raise_("deadlock", "Deadlock: no thread can make progress",
                    f"{summary}. " + " ".join(parts) + " Under this execution model nothing can move. On a GPU "
                    "this undefined code may hang until killed, or complete with wrong (or, by luck, right) "
                    "results: the compiler decides where a warp reconverges, and an H200 completed several "
                    "such kernels (conformance/results/h200.md).",
                    "make every thread reach the same barriers the same number of times: keep barriers out of "
                    "loops with per-thread trip counts (run every thread to the maximum trip count and predicate "
                    "the work) and out of non-uniform conditions.", locs)

    def loop_line(self, pc):
        """The source line to blame for a step at pc that stopped a launch: the block's own line,
        or, for a block without one (a loop's empty body, a reconvergence point), the line of the
        loop or branch it belongs to, or of the nearest block the lanes go on to."""
        line = self.block_line[pc] if pc < len(self.block_line) else 0
        if line:
            return line
        line = self.join_branch_line.get(pc, 0)
        if line:
            return line
        seen, todo = set(), [pc]
        while todo:
            b = todo.pop(0)
            if b in seen or b >= len(self.prog.blocks):
                continue
            seen.add(b)
            block = self.prog.blocks[b]
            if self.block_line[b]:
                return self.block_line[b]
            if getattr(block.term, "line", 0):
                return block.term.line
            todo.extend(t for t in (getattr(block.term, f, None) for f in ("target", "if_true", "if_false"))
                        if isinstance(t, int))
        return 0

    def _stopped(self, title, what, fix, pc, loop=0):
        line = self.loop_line(pc)
        locations = [{"line": line, "text": self.prog.line_text(line), "what": "last step"}]
        if loop and loop != line:
            # the loop that never ends comes first: the last step may be inside a helper it calls
            locations.insert(0, {"line": loop, "text": self.prog.line_text(loop), "what": "the loop that never ends"})
        elif loop:
            locations[0]["what"] = "the loop that never ends"
        self.raise_("step_limit", title, what.format(line=line, loop=loop or line), fix, locations, None)

    def step_limit(self, pc, L, max_steps):
        self._stopped("Step limit reached: the kernel did not finish within max_steps",
                      f"the simulator ran the max_steps={max_steps:,} steps you allowed (per wave of blocks) and the "
                      "kernel has not finished; the last step ran line {line}. Either the kernel needs more steps, "
                      "or it loops forever (a condition that never becomes false).",
                      "pass a larger max_steps= (or leave it out: without it only a real endless loop or "
                      "the time limit stops a launch); if it loops forever, check the loop's condition and "
                      "that its variables change in every iteration.", pc)

    def endless_loop(self, pc, L, period, pre_volta=False, loop=0, memory_moved=False, every_order=False,
                     between_barriers=False, own_words=False):
        """memory_moved: under a deterministic schedule, memory took other values inside the
        cycle (set and reset) and came back: this schedule repeats forever, another order might not.
        every_order: `period` states from each of which every step of any order leads to another
        of them (runtime/order_closure.py): no order ends the kernel, though memory moves.
        between_barriers: memory moved in the cycle, but threads handed values over only through
        barriers (no race, no atomic): every order repeats it (watchdog._every_order_repeats).
        own_words: memory moved in the cycle, only in words each of which one thread alone reads
        and writes (runtime/own_words.py): every order repeats it."""
        if own_words and not pre_volta:
            self._stopped("Endless loop: in every order the kernel comes back to exactly the same state",
                          f"every thread that can run came back to a state it was in before (each warp's own "
                          f"cycle; the last one {period:,} steps long): the same point, the same values in its "
                          "variables, the same values in the words it writes, and every thread that could run had "
                          "run in between. Memory took other values meanwhile, but only in words that one thread "
                          "alone reads and writes (its own counter or heartbeat); everything else a thread read "
                          "never changed. So each thread's steps depend on nothing the others do, every order "
                          "repeats them, and the loop at line {loop} never ends (the last step ran line {line}). "
                          "On a GPU: a hang.",
                          "check the loop's condition: a thread waiting for a value that no thread writes (a flag "
                          "nobody sets) waits forever, whatever it writes meanwhile.", pc, loop)
        if every_order:
            self._stopped("Endless loop: in every order the kernel only goes round the same states",
                          f"the threads that can run went round {period:,} states (every thread's point, "
                          "variables and memory), and from each of them every step that any order of the "
                          "threads could take was taken and led to another of them: no order ever leaves the "
                          "loop at line {loop} (the last step ran line {line}). Memory changes in it (values "
                          "handed back and forth, a ping-pong), but only among those values. On a GPU: a hang.",
                          "give the hand-off an end: a count of rounds, or a flag that tells every side to stop "
                          "and that each side checks in its wait.", pc, loop)
        if between_barriers and not pre_volta:
            self._stopped("Endless loop: in every order the kernel comes back to exactly the same state",
                          f"{period:,} steps after an earlier moment, every thread was at the same point with the "
                          "same values in its variables, the same threads waited at the same barriers, memory "
                          "held the same values and every thread that could run had run in between. Memory "
                          "took other values in between, but the threads handed values to each other only "
                          "through barriers (no race, no atomic), so between two barriers each thread reads the "
                          "same values whatever the order of the threads: every order comes back to this state, "
                          "and the loop at line {loop} never ends (the last step ran line {line}). On a GPU: a hang.",
                          "check the loop's condition and that its variables move towards its end in every "
                          "iteration (a value that goes round, such as i = (i + 1) % n, may never meet the bound "
                          "the loop waits for).", pc, loop)
        if memory_moved and not pre_volta:
            self._stopped(f"Endless loop under the {self.schedule} schedule: the kernel came back to exactly the same state",
                          f"{period:,} steps after an earlier moment, every thread was at the same point with the "
                          "same values in its variables, the same threads waited at the same barriers, memory "
                          "held the same values and every thread that could run had run in between: this "
                          f"schedule ({self.schedule}) repeats those steps forever at the loop at line {{loop}} (the last step ran "
                          "line {line}). But memory took other values in between (a value set and set back): "
                          "in another order a thread could see one of them and leave the loop. Whether the "
                          "kernel ends on a GPU depends on timing; try schedule=\"random\".",
                          "do not let a thread wait for a value that is only there for a moment: keep a flag set "
                          "until every waiter has seen it (or count the waiters that saw it).", pc, loop)
        if pre_volta:
            self._stopped("Endless loop under model=\"stack\" (pre-Volta): the warp waits for lanes that never come",
                          f"{period:,} steps after an earlier moment, every thread was at the same point with the "
                          "same values in its variables and nothing in memory had changed. Under the pre-Volta "
                          "stack model (model=\"stack\") a warp runs one side of a divergent branch at a time and "
                          "reconverges before going on: the lanes that loop (line {loop}) wait for a warp-mate "
                          "that is parked or waits at the end of the branch, so they spin forever (on a GPU "
                          "before Volta: a hang). With independent thread scheduling (compute capability 7.0 "
                          "and later, the default model) every thread makes progress and this code can finish.",
                          "on pre-Volta GPUs never let lanes of one warp wait for each other in a loop (a lock "
                          "taken by one lane while its warp-mates spin, a flag set by a warp-mate): let one lane "
                          "per warp take the lock, or hand the value over through a barrier or a warp shuffle.",
                          pc, loop)
        self._stopped("Endless loop: the kernel came back to exactly the same state",
                      f"{period:,} steps after an earlier moment, every thread was at the same point with the "
                      "same values in its variables, the same threads waited at the same barriers and nothing "
                      "in memory had changed, and every thread that could run had run in between: from there "
                      "the kernel can repeat those steps forever, even under a fair schedule: the loop at "
                      "line {loop} never ends (the last step ran line {line}). Usually a loop whose condition never becomes false, or a thread "
                      "waiting for a value that no thread will write (on a GPU: a hang).",
                      "check the loop's condition and that its variables change in every iteration; if a thread "
                      "waits for a flag, make sure the thread that sets it can run (in the same block, behind "
                      "a barrier; never a block that may not be resident).", pc, loop)

    def time_limit(self, pc, L, seconds, how_far):
        self.raise_("time_limit", f"The time limit was reached: the simulation stopped after {seconds:g} s",
                    f"the simulator's time limit (time_limit={seconds:g} s of CPU time for the whole launch) was reached "
                    f"before the kernel finished: {how_far}; the last step ran line "
                    f"{self.loop_line(pc)}. This is no verdict on the kernel: it never came back to a state it "
                    "was in before, so it is either a long kernel (the simulator is about ten thousand times "
                    "slower than a GPU) or a loop whose variables keep changing without end (a counter that "
                    "never reaches its bound).",
                    "if the kernel is just long, simulate a smaller problem or pass a larger time_limit= "
                    "(seconds); otherwise check the loop's condition and its variables.",
                    [{"line": self.loop_line(pc), "text": self.prog.line_text(self.loop_line(pc)),
                      "what": "last step"}], None)

    def cas_livelock(self, site, L, failures):
        line = self.prog.sites[site].line
        self.raise_("step_limit", "Endless loop: an atomicCAS that can never succeed (livelock)",
                    f"the atomicCAS at line {line} failed {failures:,} times in a row, for every thread that ran it, "
                    "while the value at its address kept changing: each time, another atomic had already "
                    "changed the value it compares with. A correct CAS loop fails only when another thread's "
                    "update came first, and that thread then leaves the loop; here nobody leaves, and the "
                    "value climbs forever (on a GPU: a hang).",
                    "run exactly one atomicCAS per iteration of the loop, comparing with the value the "
                    "previous attempt returned: do { assumed = old; old = atomicCAS(p, assumed, f(assumed)); } "
                    "while (assumed != old);",
                    [{"line": line, "text": self.prog.line_text(line), "what": "the CAS that always fails"}], None)

    def race(self, hazard, region, elem, first, second, cross_block=False, partial_warp_sync=None,
             hand_off=None):
        """first/second: dicts with slot, site, kind ('read'/'write'/'atomic'), plus block.
        hand_off "no_acquire_fence": the second thread's strong read saw the first's release,
        and only the fence after that read is missing.
        partial_warp_sync: when both threads are in one warp, and some __syncwarp of the kernel may
        name only part of it (a mask, a tile's sync()), the wave slot of the second: the fix then
        says what such a sync orders. hand_off: in a kernel that fences, "fences" (the text says
        what a release/acquire hand-off needs) or "plain_flag" (the second access is a plain load
        of a flag that a release wrote: no acquire, and it may be hoisted out of its loop) or
        "block_scope" (two atomics of different blocks, one of them a _block atomic)."""
        names = {"RAW": "read-after-write", "WAR": "write-after-read", "WAW": "write-after-write"}
        space = "shared memory" if region.kind == "shared" else "global memory"
        l1 = self.prog.sites[first["site"]].line
        l2 = self.prog.sites[second["site"]].line
        locs = [self.site_loc(first["site"], f"{first['kind']} by {first['who']}"),
                self.site_loc(second["site"], f"{second['kind']} by {second['who']}")]
        if hand_off == "block_scope":
            self.raise_("race", f"Data race between blocks ({names[hazard]} hazard) on {region.name}[{elem}]: "
                        "a _block atomic is atomic only inside its block",
                        f"{first['who']} {_past(first['kind'])} {region.name}[{elem}] at line {l1}, and "
                        f"{second['who']} {_past(second['kind'])} it at line {l2}, and at least one of the two is a "
                        "block-scoped atomic (atomicAdd_block, atomicCAS_block, ...). Such an atomic is atomic, and "
                        "strong, only for the threads of its own block; two blocks' accesses to one location are "
                        "then not atomic with each other (PTX: not morally strong), so updates can be lost.",
                        "use the device-scoped atomic (atomicAdd, atomicCAS, ...) for a location that several "
                        "blocks update, or keep the _block atomic on a location of the block's own (shared "
                        "memory, or a per-block slot of global memory).",
                        locs, second["who"], hazard=hazard, array=region.name, index=elem, cross_block=True,
                        at_line=l2)
        if hand_off == "plain_flag":
            between = " between blocks" if cross_block else ""
            self.raise_("race", f"Data race{between} ({names[hazard]} hazard) on the flag {region.name}[{elem}]",
                        f"{first['who']} {_past(first['kind'])} {region.name}[{elem}] at line {l1} with a strong "
                        f"write after a fence (a release), and {second['who']} read it at line {l2} with a plain "
                        f"load{' (they are in different blocks)' if cross_block else ''}. A plain load is not a strong read, so it acquires nothing, and the compiler may "
                        "keep the flag in a register: a loop that waits on it may never see it change.",
                        "read the flag with a volatile load (*(volatile int*)&...) or an atomic (atomicAdd(p, 0)), "
                        "then __threadfence(), before using what the writer published.",
                        locs, second["who"], hazard=hazard, array=region.name, index=elem,
                        cross_block=cross_block, at_line=l2)
        if hand_off == "no_acquire_fence":
            between = " between blocks" if cross_block else ""
            scope = "__threadfence()" if cross_block else "__threadfence() (or __threadfence_block(): both threads are in one block)"
            self.raise_("race", f"Data race{between} ({names[hazard]} hazard) on {region.name}[{elem}]: the hand-off "
                        "has no fence after its read",
                        f"{first['who']} {_past(first['kind'])} {region.name}[{elem}] at line {l1} and then released "
                        f"it (a fence, then an atomic or volatile write of a flag or lock), and {second['who']} read "
                        f"that flag or lock with an atomic or volatile load, but did not execute a fence between that "
                        f"read and its {second['kind']} at line {l2}. Without that fence the hand-off acquires "
                        "nothing: the GPU may perform the access at line "
                        f"{l2} before the read of the flag, so it can see the old value.",
                        f"put {scope} right after the read that sees the flag (after the atomicCAS that takes "
                        "the lock, or after the loop that waits for the flag), before line "
                        f"{l2}: a hand-off needs a fence on each side.",
                        locs, second["who"], hazard=hazard, array=region.name, index=elem,
                        cross_block=cross_block, at_line=l2)
        if cross_block and hand_off:
            self.raise_("race", f"Data race between blocks ({names[hazard]} hazard) on {region.name}[{elem}]",
                        f"{first['who']} {_past(first['kind'])} {region.name}[{elem}] at line {l1}, and "
                        f"{second['who']} {_past(second['kind'])} it at line {l2}. They are in different "
                        "blocks, and no release/acquire hand-off orders them: __syncthreads() only waits for "
                        "the threads of its own block, and a fence orders another block's view of memory only "
                        "as part of a hand-off: a __threadfence() then a flag written by an atomic or a "
                        "volatile store, read by the other block with an atomic or a volatile load that sees "
                        "the value, then its own __threadfence(). On a GPU the result changes from run to run.",
                        "hand the data over that way (fence, flag; wait for the flag, fence; a __syncthreads() "
                        "on each side passes it on to the other threads of the block), or split the work into "
                        "two kernel launches: the end of a launch orders every block.",
                        locs, second["who"], hazard=hazard, array=region.name, index=elem, cross_block=True,
                        at_line=l2)
        waits = self._unfenced_waits() if hand_off is None else ()
        if cross_block:
            why, fix = "", ("let each block read only what its own threads wrote (behind a __syncthreads()), or "
                            "split the work into two kernel launches: the end of a launch orders every block.")
            if waits:
                why, fix = self._unfenced_wait_advice(waits, l1, l2, True, fix)
            self.raise_("race", f"Data race between blocks ({names[hazard]} hazard) on {region.name}[{elem}]",
                        f"{first['who']} {_past(first['kind'])} {region.name}[{elem}] at line {l1}, and "
                        f"{second['who']} {_past(second['kind'])} it at line {l2}. They are in different "
                        "blocks, and nothing inside a kernel orders two blocks: __syncthreads() only waits for "
                        "the threads of its own block, and blocks may run in any order, or at the same time. "
                        "On a GPU the result changes from run to run." + why,
                        fix, locs, second["who"], hazard=hazard, array=region.name, index=elem, cross_block=True,
                        at_line=l2)
        same_line_writes = l1 == l2 and first["kind"] != "read" and second["kind"] != "read"
        if same_line_writes:
            fix = (f"make every thread write its own element at line {l1} (index by the thread's id), or "
                   "combine the values on purpose: an atomic operation (atomicAdd, ...) or a reduction.")
        elif first["kind"] == "atomic" or second["kind"] == "atomic":
            fix = (f"use atomics for every access to {region.name}[{elem}] in this phase, or put "
                   f"__syncthreads() {_between(l1, l2)}.")
        elif partial_warp_sync is not None:
            fix = (f"put __syncwarp() (the whole warp) or __syncthreads() {_between(l1, l2)}: "
                   "a __syncwarp(mask), or a tile's sync(), orders only the lanes it names, and no warp sync "
                   "since the first access named both threads." + self._activemask_sync_note(partial_warp_sync))
        else:
            fix = (f"put __syncthreads() {_between(l1, l2)} so that every thread's "
                   f"{first['kind']} finishes before any thread's {second['kind']} (or __syncwarp() if both "
                   "threads are in one warp).")
        why = ""
        if waits and not same_line_writes:      # (threads writing one element: no hand-off to fence)
            why, fix = self._unfenced_wait_advice(waits, l1, l2, False, fix)
        self.raise_("race", f"Data race ({names[hazard]} hazard) on {space} {region.name}[{elem}]",
                    f"{first['who']} {_past(first['kind'])} {region.name}[{elem}] at line {l1}, and "
                    f"{second['who']} {_past(second['kind'])} it at line {l2}, with no barrier between them. "
                    "Nothing orders the two accesses, so the result depends on timing: on a GPU some runs "
                    "read the old value and some the new one." + why,
                    fix, locs, second["who"], hazard=hazard, array=region.name, index=elem, at_line=l2)

    def _unfenced_waits(self):
        """The lines where this kernel waits on a flag or a lock (a volatile load or an atomic
        whose value decides whether its loop goes on: Site.waits), when it has no fence at all:
        then any hand-off through them lacks both of its fences. A volatile read or a polling
        atomic (atomicAdd(p, 0)) is named before an atomic that also writes (a ticket taken,
        a CAS that takes a lock), which is named only where there is nothing else. An atomicCAS
        loop that updates a value (its compare fed by a plain load: Site.cas_guess) retries until
        its CAS lands; it waits for no other thread's flag and is not named."""
        if self.prog.fence_scopes:
            return ()
        sites = self.prog.sites
        update_loops = any(s.cas_guess for s in sites)
        strong = [s for s in sites if s.memory and s.waits and (s.volatile or s.polls or s.what.startswith("atomic"))
                  and not (update_loops and s.what == "atomicCAS")]
        reads = [s for s in strong if (s.volatile and s.what == "read") or s.polls]
        return tuple(sorted({s.line for s in (reads or strong)}))

    @staticmethod
    def _unfenced_wait_advice(waits, l1, l2, cross_block, fix):
        """(what to add to the explanation, the fix) for a race in a kernel that waits on a flag
        or lock (lines `waits`) and has no fence: a wait orders only the flag itself, so the fix
        a hand-off needs is a fence on each side; a barrier is the fix only where every thread
        of the block reaches it, which a thread waiting for another's flag usually does not."""
        at = ", ".join(str(x) for x in waits)
        fence = "__threadfence()" if cross_block else \
            "__threadfence_block() (both threads are in one block; __threadfence() orders as much)"
        why = (f" The kernel waits for a flag or a lock at line{'s' if len(waits) > 1 else ''} {at} (an atomic "
               "or volatile read in a loop), and it has no fence: such a wait orders only the flag or lock "
               "itself. What a thread wrote before it set the flag, or inside a critical section, reaches "
               "the thread that waited only through a fence on each side of the hand-off.")
        fence_fix = (f"if these threads hand the data over through the flag or lock at line{'s' if len(waits) > 1 else ''} "
                     f"{at}, put {fence} after line {l1} and before the flag is "
                     f"set (or the lock released), and another right after the wait (after the loop that polls, or "
                     f"the atomicCAS that takes the lock), before line {l2}: a hand-off needs a fence on each side.")
        if cross_block:
            return why, fence_fix + " Otherwise: " + fix
        return why, (fence_fix + " A __syncthreads() orders the two only where every thread of the block reaches "
                     "it, never inside a branch that some threads skip. Otherwise: " + fix)


def _between(first, second):
    """Where a barrier goes between the first access (line ``first``) and the second: in source
    order. A second access on an earlier line came in a later round of a loop."""
    if first <= second:
        return f"between line {first} and line {second}"
    return (f"after line {first} and before line {second} runs again (line {second} comes first "
            "in the source: the second access is in a later round of the loop)")


def _past(kind):
    return {"read": "read", "write": "wrote", "atomic": "atomically updated"}[kind]


def _bits(mask):
    return [i for i in range(32) if mask >> i & 1]


def _lanes(mask):
    """0x0000ffff -> 'lanes 0-15'; 0x4 -> 'lane 2'."""
    bits = _bits(mask)
    return f"lane {bits[0]}" if len(bits) == 1 else f"lanes {lane_ranges(bits)}"


def _undef_fix(bits, mask_from_activemask=None):
    if bits & 1 and mask_from_activemask:
        return ("take the mask from what the algorithm needs, the same under every schedule: the lanes that "
                "exist, as __ballot_sync(0xffffffff, 1) before any branch or computed from blockDim.x, or a "
                "__ballot_sync of the condition before the branch; never __activemask(). Keep only the "
                "values read from lanes in that mask.")
    if bits & 1:
        return ("give the shuffle a mask that names exactly the participating lanes, and only read from "
                "lanes that take part (or ignore the result in lanes whose source does not).")
    if bits & 2:
        return ("make sure every element of the shared array is written before any thread reads it, with a "
                "__syncthreads() in between; fill the tail of a tile with a neutral value.")
    return "give the variable a value on every path before it is used."


def _xyz(t, trim=0):
    """(5, 0, 0) -> '5', (3, 1, 0) -> '(3, 1)'; dimensions trim 1s instead of 0s."""
    t = tuple(int(v) for v in t)
    while len(t) > 1 and t[-1] == trim:
        t = t[:-1]
    return "(" + ", ".join(map(str, t)) + ")" if len(t) > 1 else str(t[0])
