"""Sync points: calls where lanes wait for other lanes (block and named barriers, __syncwarp,
shuffles, votes, warp reductions and matches; inline PTX bar.sync/bar.arrive arrives here as
__simcore_bar_*).

Each ends the basic block with a SyncEnd terminator and a program.SyncSite saying what the
engine must resolve; the operands are written to registers the engine reads."""
from dataclasses import dataclass

from pycparser import c_ast

from .. import ctype as T
from ..program import SyncEnd, SyncSite
from .code import always
from .values import Val


@dataclass(frozen=True)
class BlockBarrier:
    """__syncthreads and its reducing forms (count, and, or of a predicate)."""
    reduce: str          # '' | 'popc' | 'and' | 'or'

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1 if self.reduce else 0, node)
        ops = {}
        if self.reduce:
            ops["predicate"] = low.condition_of(low.value(low.expr(args[0])))
        return low.sync_point("bar", name, node, ops, T.INT if self.reduce else None, mode="sync",
                              reduce=self.reduce, block_wide=True)


@dataclass(frozen=True)
class NamedBarrier:
    """bar.sync / bar.arrive id[, count] (the preprocessor turns the PTX into these calls)."""
    mode: str            # 'sync' | 'arrive'

    def lower(self, low, name, args, node):
        vals = low.eval_args(args)
        ops = {"id": low.cast(vals[0], T.INT)}
        if vals[1].const != -1:       # -1: no count given (all threads of the block)
            ops["count"] = low.cast(vals[1], T.INT)
        return low.sync_point("bar", f"bar.{self.mode}", node, ops, None, mode=self.mode)


@dataclass(frozen=True)
class SyncWarp:
    def lower(self, low, name, args, node):
        low.nargs(name, args, (0, 1), node)
        mask = low.cast(low.value(low.expr(args[0])), T.UINT) if args else low.const(0xFFFFFFFF, T.UINT)
        return low.sync_point("syncwarp", name, node, {"mask": mask}, whole_warp=mask.const == 0xFFFFFFFF)


@dataclass(frozen=True)
class Shuffle:
    mode: str            # 'idx' | 'up' | 'down' | 'xor'

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
        return low.sync_point("shfl", name, node, ops, value.ctype, mode=self.mode)


@dataclass(frozen=True)
class Vote:
    mode: str            # 'ballot' | 'all' | 'any'

    def lower(self, low, name, args, node):
        low.nargs(name, args, 2, node)
        vals = low.eval_args(args)
        ops = {"mask": low.cast(vals[0], T.UINT), "predicate": low.condition_of(vals[1])}
        return low.sync_point("vote", name, node, ops, T.UINT if self.mode == "ballot" else T.INT,
                              mode=self.mode)


@dataclass(frozen=True)
class WarpReduce:
    """__reduce_{add,min,max}_sync (int and unsigned overloads) and __reduce_{and,or,xor}_sync
    (unsigned only): PTX redux.sync, compute capability 8.0 and later (the H200 is 9.0). The
    result is the reduction over the non-exited lanes of the mask; add wraps to 32 bits."""
    mode: str            # 'add' | 'min' | 'max' | 'and' | 'or' | 'xor'

    def lower(self, low, name, args, node):
        low.nargs(name, args, 2, node)
        vals = low.eval_args(args)
        ctype = self.operand_type(low, name, vals[1].ctype, node)
        ops = {"mask": low.cast(vals[0], T.UINT), "value": low.cast(vals[1], ctype)}
        return low.sync_point("reduce", name, node, ops, ctype, mode=self.mode)

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
class Match:
    """__match_any_sync(mask, v) and __match_all_sync(mask, v, &pred): PTX match.sync
    (compute capability 7.0 and later) on the bits of v (CUDA's header passes a float as
    __float_as_uint, a double as __double_as_longlong: -0.0 and 0.0 differ, equal NaNs match)."""
    mode: str            # 'any' | 'all'

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
        result = low.sync_point("match", name, node, ops, T.UINT, mode=self.mode)
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
    def sync_point(self, op, name, node, operands, result_ctype=None, **kw):
        """End the block at a sync point; operands are stored in registers for the engine."""
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
            if op == "shfl":     # lanes reading an inactive or undefined source get undefined values
                self.taint_flows.append((result.name, always("X.UNSET")))
            elif op in ("reduce", "match"):     # undefined when a lane's value is (sync.py sets it)
                self.taint_flows.append((result.name, self.read(self.vars[regs["value"]]).taint))
        site = SyncSite(len(self.sync_sites), op, line, col, self.source_line(line) or "",
                        name, regs, result.name if result else None, result_ctype, **kw)
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
