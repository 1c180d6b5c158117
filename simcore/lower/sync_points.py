"""Sync points: calls where lanes wait for other lanes (block and named barriers, __syncwarp,
shuffles, votes, warp reductions and matches; inline PTX bar.sync/bar.arrive arrives here as
__simcore_bar_*).

One class per kind of sync point holds both halves of it: `lower()` ends the basic block with a
SyncEnd terminator and a program.SyncSite (whose `point` is the instance) saying what the engine
must resolve, the operands written to registers the engine reads; `complete()` computes the
results once the lanes that take part are all there (sync/collectives.py decides when). A new
warp intrinsic is one class here and one row in SYNC_POINTS."""
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from pycparser import c_ast

from ..frontend import ctype as T
from ..runtime.memory import run_starts
from .program import SyncEnd, SyncSite
from .code import always
from .values import Val

FULL = 0xFFFFFFFF


def grouped(keys):
    """keys sorted ascending -> (start index of each group, group id of each element)."""
    change = run_starts(keys)
    starts = np.flatnonzero(change)
    gid = np.cumsum(change) - 1
    return starts, gid


class SyncPoint:
    """What every kind of sync point says about itself (class attributes), and the no-op
    completion of the kinds that compute nothing."""
    op: ClassVar[str] = ""              # SyncSite.op, the word the checks and recorders read
    collective: ClassVar[bool] = False  # a warp collective: completes when its mask's lanes are there
    mixes_sites: ClassVar[bool] = False  # lanes at different calls of it may complete together
    # what makes its result undefined: 'unset' (may read a lane not taking part), 'value' (the
    # lanes' values are), or '' (never)
    result_taint: ClassVar[str] = ""

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        """lanes: the participants at this site, lane_id their lane in the warp, part_bits each
        lane's group participation bitmask; sync: the collectives resolver (report, plugins)."""


def group_order(w, lanes, part_bits):
    """lanes in order of their group (warp, participating lanes), and per group its start:
    (order, starts, group id of each ordered lane)."""
    key = w.slot_warp[lanes].astype(np.int64) << 32 | part_bits
    order = np.argsort(key, kind="stable")
    starts, gid = grouped(key[order])
    return order, starts, gid


def group_taint(w, site, lanes, starts, gid):
    """Result taint: a group's result is undefined where any of its lanes' values is."""
    R = w.R
    if "__u_" + site.result not in R:
        return
    u_value = R.get("__u_" + site.operands["value"])
    taint = (np.bitwise_or.reduceat(u_value[lanes], starts)[gid] if u_value is not None
             else np.zeros(len(lanes), np.uint8))
    R["__u_" + site.result][lanes] = taint


@dataclass(frozen=True)
class BlockBarrier(SyncPoint):
    """__syncthreads and its reducing forms (count, and, or of a predicate); with grid_wide,
    cg::this_grid().sync(). sync/barriers.py decides when it completes."""
    reduce: str          # '' | 'popc' | 'and' | 'or'
    op: ClassVar[str] = "bar"

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1 if self.reduce else 0, node)
        ops = {}
        if self.reduce:
            ops["predicate"] = low.condition_of(low.value(low.expr(args[0])))
        return low.sync_point(self, name, node, ops, T.INT if self.reduce else None, mode="sync",
                              reduce=self.reduce, block_wide=True)

    def block_results(self, taking_true, taking_part):
        """Per block: the reduced predicate (taking_true: how many threads passed a true one,
        taking_part: how many arrived)."""
        if self.reduce == "popc":
            return taking_true
        if self.reduce == "and":
            return (taking_true == taking_part).astype(np.int64)
        return (taking_true > 0).astype(np.int64)


@dataclass(frozen=True)
class NamedBarrier(SyncPoint):
    """bar.sync / bar.arrive id[, count] (the preprocessor turns the PTX into these calls);
    sync/named_barriers.py counts the arrivals of each phase."""
    mode: str            # 'sync' | 'arrive'
    op: ClassVar[str] = "bar"

    def lower(self, low, name, args, node):
        vals = low.eval_args(args)
        ops = {"id": low.cast(vals[0], T.INT)}
        if vals[1].const != -1:       # -1: no count given (all threads of the block)
            ops["count"] = low.cast(vals[1], T.INT)
        return low.sync_point(self, f"bar.{self.mode}", node, ops, None, mode=self.mode)


@dataclass(frozen=True)
class SyncWarp(SyncPoint):
    """__syncwarp(mask): orders the memory accesses of the lanes it names."""
    op: ClassVar[str] = "syncwarp"
    collective: ClassVar[bool] = True
    mixes_sites: ClassVar[bool] = True     # two __syncwarp calls of one mask meet (CUDA allows it)

    def lower(self, low, name, args, node):
        low.nargs(name, args, (0, 1), node)
        mask = low.cast(low.value(low.expr(args[0])), T.UINT) if args else low.const(0xFFFFFFFF, T.UINT)
        return low.sync_point(self, name, node, {"mask": mask}, whole_warp=mask.const == 0xFFFFFFFF)

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        w.warp_epoch[lanes] = w.warp_epoch[lanes].max() + 1
        for hook in sync.plugins.barrier:
            hook(site, lanes)


@dataclass(frozen=True)
class Shuffle(SyncPoint):
    """__shfl*_sync: each lane reads a value of a source lane of its segment of `width` lanes."""
    mode: str            # 'idx' | 'up' | 'down' | 'xor'
    op: ClassVar[str] = "shfl"
    collective: ClassVar[bool] = True
    result_taint: ClassVar[str] = "unset"   # a lane reading an inactive or undefined source

    def lower(self, low, name, args, node):
        low.nargs(name, args, (3, 4), node)
        vals = low.eval_args(args)
        value = vals[1]
        if not value.ctype.is_scalar:
            raise low.error(node, f"{name} shuffles numbers", construct=name)
        value = low.cast(value, T.promote(value.ctype))
        ops = {"mask": low.cast(vals[0], T.UINT), "value": value,
               "lane": low.cast(vals[2], T.INT if self.mode in ("idx", "xor") else T.UINT),
               "width": low.cast(vals[3], T.INT) if len(vals) == 4 else low.const(32, T.INT)}
        return low.sync_point(self, name, node, ops, value.ctype, mode=self.mode)

    def sources(self, lane_id, src_arg, width):
        """The lane each lane reads (its own where the source is out of its segment's reach)."""
        seg = lane_id & ~(width - 1)
        if self.mode == "idx":
            return seg + (src_arg % width)
        if self.mode == "up":
            return np.where((lane_id - seg) - src_arg < 0, lane_id, lane_id - src_arg)
        if self.mode == "down":
            return np.where((lane_id - seg) + src_arg >= width, lane_id, lane_id + src_arg)
        # xor: lanes of later segments are out of reach and give back their own value
        src = lane_id ^ (src_arg & 31)
        return np.where((src // width) > (lane_id // width), lane_id, src)

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        R, report = w.R, sync.report
        width = R[site.operands["width"]][lanes].astype(np.int64)
        if ((width & (width - 1)) != 0).any() or (width < 1).any() or (width > 32).any():
            bad = lanes[((width & (width - 1)) != 0) | (width < 1) | (width > 32)]
            report.bad_width(site, bad, int(width[np.isin(lanes, bad)][0]))
        src = self.sources(lane_id, R[site.operands["lane"]][lanes].astype(np.int64), width)
        src_slot = lanes - lane_id + src         # the warp's first slot + the source lane
        value_reg = site.operands["value"]
        values = R[value_reg][src_slot]
        # the source lane must take part in this same shuffle; otherwise the value is undefined
        taking_part = ((part_bits >> src) & 1) == 1
        taint = np.where(taking_part, 0, report.shuffle_taint(site)).astype(np.uint8)
        if "__u_" + value_reg in R:
            taint |= R["__u_" + value_reg][src_slot]
        R[site.result][lanes] = values
        R["__u_" + site.result][lanes] = taint
        if (~taking_part).any():
            report.note_undefined_shuffle(site, lanes[~taking_part], src[~taking_part], part_bits[~taking_part])


@dataclass(frozen=True)
class Vote(SyncPoint):
    """__ballot_sync, __all_sync, __any_sync over each group's predicates."""
    mode: str            # 'ballot' | 'all' | 'any'
    op: ClassVar[str] = "vote"
    collective: ClassVar[bool] = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 2, node)
        vals = low.eval_args(args)
        ops = {"mask": low.cast(vals[0], T.UINT), "predicate": low.condition_of(vals[1])}
        return low.sync_point(self, name, node, ops, T.UINT if self.mode == "ballot" else T.INT,
                              mode=self.mode)

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        pred = w.R[site.operands["predicate"]][lanes].astype(bool)
        starts, gid = grouped(w.slot_warp[lanes])
        b = np.bitwise_or.reduceat(np.where(pred, np.int64(1) << lane_id, 0), starts)[gid]
        # two groups of one warp (disjoint masks, e.g. the halves of a warp as 16-thread
        # tiles) can complete together: each sees only the lanes of its own mask
        b = b & part_bits
        if self.mode == "ballot":
            res = b.astype(np.uint32)
        elif self.mode == "all":
            res = (b == part_bits).astype(np.int32)
        else:
            res = (b != 0).astype(np.int32)
        w.R[site.result][lanes] = res


REDUCE_UFUNCS = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
                 "xor": np.bitwise_xor}


@dataclass(frozen=True)
class WarpReduce(SyncPoint):
    """__reduce_{add,min,max}_sync (int and unsigned overloads) and __reduce_{and,or,xor}_sync
    (unsigned only): PTX redux.sync, compute capability 8.0 and later (the H200 is 9.0). The
    result is the reduction over the non-exited lanes of the mask; add wraps to 32 bits."""
    mode: str            # 'add' | 'min' | 'max' | 'and' | 'or' | 'xor'
    op: ClassVar[str] = "reduce"
    collective: ClassVar[bool] = True
    result_taint: ClassVar[str] = "value"

    def lower(self, low, name, args, node):
        low.nargs(name, args, 2, node)
        vals = low.eval_args(args)
        ctype = self.operand_type(low, name, vals[1].ctype, node)
        ops = {"mask": low.cast(vals[0], T.UINT), "value": low.cast(vals[1], ctype)}
        return low.sync_point(self, name, node, ops, ctype, mode=self.mode)

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        """redux.sync: the reduction over each group's lanes, 32 bits wide (add wraps)."""
        order, starts, gid = group_order(w, lanes, part_bits)
        lanes = lanes[order]
        values = w.R[site.operands["value"]][lanes]
        if self.mode == "add":
            total = np.add.reduceat(values.astype(np.int64), starts) & FULL
            res = total.astype(np.uint32).view(values.dtype)
        else:
            res = REDUCE_UFUNCS[self.mode].reduceat(values, starts)
        w.R[site.result][lanes] = res[gid]
        group_taint(w, site, lanes, starts, gid)

    def operand_type(self, low, name, t, node):
        """C++ overload resolution over CUDA's declarations: add/min/max have an int and an
        unsigned overload (a type that promotes to neither matches both: ambiguous); and/or/xor
        only an unsigned one, which every number converts to."""
        if not t.is_scalar:
            raise low.error(node, f"{name} reduces numbers, not a {t}", construct=name)
        if self.mode in ("and", "or", "xor"):
            return T.UINT
        p = T.promote(t)
        if p in (T.INT, T.UINT):
            return p
        raise low.error(node, f"more than one instance of overloaded function {name} matches the argument "
                              f"type {t} (CUDA declares it for int and unsigned int only): cast the value to "
                              "int or unsigned", construct=name)


MATCH_TYPES = (T.INT, T.UINT, T.LLONG, T.ULLONG, T.FLOAT, T.DOUBLE)


@dataclass(frozen=True)
class Match(SyncPoint):
    """__match_any_sync(mask, v) and __match_all_sync(mask, v, &pred): PTX match.sync
    (compute capability 7.0 and later) on the bits of v (CUDA's header passes a float as
    __float_as_uint, a double as __double_as_longlong: -0.0 and 0.0 differ, equal NaNs match)."""
    mode: str            # 'any' | 'all'
    op: ClassVar[str] = "match"
    collective: ClassVar[bool] = True
    result_taint: ClassVar[str] = "value"

    def lower(self, low, name, args, node):
        low.nargs(name, args, 3 if self.mode == "all" else 2, node)
        vals = low.eval_args(args[:2])
        t = vals[1].ctype
        p = T.promote(t) if t.is_scalar else t
        if p not in MATCH_TYPES:
            raise low.error(node, f"no instance of overloaded function {name} matches the argument type {t} "
                                  "(CUDA declares it for int, unsigned, long, long long, their unsigned forms, "
                                  "float and double)", construct=name)
        ops = {"mask": low.cast(vals[0], T.UINT), "value": low.cast(vals[1], p)}
        result = low.sync_point(self, name, node, ops, T.UINT, mode=self.mode)
        if self.mode == "all":
            # *pred = 1 when every lane of the mask had the same value: exactly when the result
            # (the mask then, else 0) is not 0, since the mask holds the caller
            target = low.lvalue(c_ast.UnaryOp("*", args[2], args[2].coord))
            if target.ctype != T.INT:
                raise low.error(node, f"the third argument of {name} must be an int * (the predicate it "
                                      f"writes), not a pointer to {target.ctype}", construct=name)
            result = low.tmp(result)
            low.write_lvalue(target, low.cast(low.condition_of(result), T.INT), node)
        return result

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        """match.sync on the bits of the value: any -> the group's lanes holding the caller's
        value; all -> the group's lanes if every one holds the same value, else 0."""
        order, starts, gid = group_order(w, lanes, part_bits)
        lanes, lane_id = lanes[order], lane_id[order]
        values = w.R[site.operands["value"]][lanes]
        bits = values.view(np.uint64 if values.dtype.itemsize == 8 else np.uint32).astype(np.uint64)
        if self.mode == "all":
            same = np.minimum.reduceat(bits, starts) == np.maximum.reduceat(bits, starts)
            res = np.where(same[gid], part_bits[order], 0)
        else:
            # per lane: the lanes of its group with equal bits (sort by group, then value)
            k = np.lexsort((bits, gid))
            runs = np.ones(len(k), bool)
            runs[1:] = (gid[k][1:] != gid[k][:-1]) | (bits[k][1:] != bits[k][:-1])
            rstart = np.flatnonzero(runs)
            rid = np.cumsum(runs) - 1
            members = np.bitwise_or.reduceat(np.int64(1) << lane_id[k], rstart)[rid]
            res = np.empty(len(k), np.int64)
            res[k] = members
        w.R[site.result][lanes] = (np.asarray(res, np.int64) & FULL).astype(np.uint32)
        group_taint(w, site, lanes, starts, gid)


GRID_BARRIER = BlockBarrier("")     # cg::this_grid().sync(): a block barrier with grid_wide (groups.py)

SYNC_POINTS = {
    "__syncthreads": BlockBarrier(""), "__syncthreads_count": BlockBarrier("popc"),
    "__syncthreads_and": BlockBarrier("and"), "__syncthreads_or": BlockBarrier("or"),
    "__simcore_bar_sync": NamedBarrier("sync"), "__simcore_bar_arrive": NamedBarrier("arrive"),
    "__syncwarp": SyncWarp(),
    "__shfl_sync": Shuffle("idx"), "__shfl_up_sync": Shuffle("up"), "__shfl_down_sync": Shuffle("down"),
    "__shfl_xor_sync": Shuffle("xor"),
    "__ballot_sync": Vote("ballot"), "__all_sync": Vote("all"), "__any_sync": Vote("any"),
    **{f"__reduce_{m}_sync": WarpReduce(m) for m in ("add", "min", "max", "and", "or", "xor")},
    "__match_any_sync": Match("any"), "__match_all_sync": Match("all"),
}


class SyncPointLowering:
    def sync_point(self, point, name, node, operands, result_ctype=None, **kw):
        """End the block at a sync point of kind `point` (a SyncPoint); operands are stored in
        registers for the engine."""
        regs = {}
        for key, val in operands.items():
            t = val.ctype if not val.ctype.is_array else T.decay(val.ctype)
            var = self.new_var(f"{name.strip('_')}_{key}", t)
            if key != "value":
                # the engine reads masks, lanes, ids as they are: they must be defined
                if val.taint.possible:
                    self.use_check(val.taint, node, f"the {key} of {name}", f"is the {key} of {name}")
                val = Val(val.code, val.ctype, regs=val.regs)
            self.write(var, val)       # a shuffled value keeps its taint (the register is then tracked)
            regs[key] = var.name
        line, col = (node.coord.line, node.coord.column) if node.coord else (0, 0)
        result = None
        if result_ctype is not None:
            result = self.new_var(f"{name.strip('_')}_result", result_ctype)
            if point.result_taint == "unset":     # set per lane by its complete()
                self.taint_flows.append((result.name, always("X.UNSET")))
            elif point.result_taint == "value":   # undefined when a lane's value is (complete() sets it)
                self.taint_flows.append((result.name, self.read(self.vars[regs["value"]]).taint))
        site = SyncSite(len(self.sync_sites), point.op, line, col, self.source_line(line) or "",
                        name, regs, result.name if result else None, result_ctype, point=point, **kw)
        # inside an inlined __device__ function: say which call this instance belongs to
        site.via = ", ".join(f"in {f}() called on line {cl}" for f, _, _, cl in reversed(self.inline_stack))
        self.sync_sites.append(site)
        self.note_line(node)
        nxt = self.new_block()
        site.next = nxt.id
        self.close(SyncEnd(site.id))
        self.start(nxt)
        if result is None:
            return Val("None", T.VOID)
        return self.read(result)
