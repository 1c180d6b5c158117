"""Cooperative Groups, lowered onto the barriers and warp collectives the checks know.

A group is a compile-time name (`Group`): its kind, its tile size, and for a coalesced
group the register holding its mask. Every method is a table row: C text over the same
intrinsics a student would write by hand (`tile.shfl_down(v, 1)` is
`__shfl_down_sync(<the tile's lanes>, v, 1, <tile size>)`), parsed once, given the call's
position, and lowered like any other code; its sync points carry the name as written
(`tile.shfl_down`), so a lane missing from a tile collective is reported exactly like the
intrinsic, on the student's line. The preprocessor (simcore/frontend/cooperative_groups.py) has
already turned the C++ spellings into `__cg_*` names."""
import copy
from dataclasses import dataclass, replace

from pycparser import c_ast, c_parser

from ..frontend import ctype as T
from .sync_points import GRID_BARRIER, SYNC_POINTS
from .values import Sym

TILE_SIZES = (1, 2, 4, 8, 16, 32)     # thread_block_tile<N> within a warp (CUDA's static_assert)
BLOCK_RANK = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"
BLOCK_SIZE = "(blockDim.x * blockDim.y * blockDim.z)"
BLOCK_INDEX = "(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))"


@dataclass(frozen=True)
class Group:
    kind: str                 # 'block' | 'tile' | 'coalesced' | 'grid'
    label: str                # how messages name it: the variable, or the call that made it
    size: int = 0             # tile: its size
    parent_rank: str = ""     # tile: C text of the rank in the group it was partitioned from
    parent_size: str = ""
    mask: object = None       # coalesced: program.Var holding the group's lanes
    generic: bool = False     # declared as thread_group: only sync, thread_rank and size

    @property
    def rank(self):
        return {"block": BLOCK_RANK, "tile": f"({BLOCK_RANK} & {self.size - 1}u)",
                "coalesced": "((unsigned)__popc(__cg_m & ((1u << __lane_id()) - 1u)))",
                "grid": f"((unsigned long long){BLOCK_INDEX} * {BLOCK_SIZE} + {BLOCK_RANK})"}[self.kind]

    @property
    def size_text(self):
        return {"block": BLOCK_SIZE, "tile": f"{self.size}u", "coalesced": "((unsigned)__popc(__cg_m))",
                "grid": f"((unsigned long long)gridDim.x * gridDim.y * gridDim.z * {BLOCK_SIZE})"}[self.kind]

    @property
    def mask_text(self):
        if self.kind == "coalesced":
            return "__cg_m"
        if self.size == 32:       # the whole warp: a constant (the race check needs no lane clocks)
            return "0xffffffffu"
        # the tile's lanes in its warp (CUDA's build_mask)
        return f"((0xffffffffu >> {32 - self.size}) << (__lane_id() & {32 - self.size}u))"

    def fill(self, text):
        return (text.replace("{mask}", self.mask_text).replace("{rank}", self.rank)
                .replace("{size}", self.size_text).replace("{N}", str(self.size))
                .replace("{prank}", self.parent_rank).replace("{psize}", self.parent_size))


class GroupSym(Sym):
    __slots__ = ("group",)

    def __init__(self, group):
        super().__init__("group", T.VOID)
        self.group = group


# The methods: name -> C text ({mask}, {rank}, {size}, {N}: the group's; __cg_a0, __cg_a1: the
# arguments). GENERIC: what a thread_group (any group) has.
GENERIC = {"sync": None, "thread_rank": "{rank}", "size": "{size}", "num_threads": "{size}"}
TILE_COLLECTIVES = {
    "shfl": "__shfl_sync({mask}, __cg_a0, __cg_a1, {N})",
    "shfl_down": "__shfl_down_sync({mask}, __cg_a0, __cg_a1, {N})",
    "shfl_up": "__shfl_up_sync({mask}, __cg_a0, __cg_a1, {N})",
    "shfl_xor": "__shfl_xor_sync({mask}, __cg_a0, __cg_a1, {N})",
    "any": "__any_sync({mask}, __cg_a0)",
    "all": "__all_sync({mask}, __cg_a0)",
    # bit i is the tile's thread of rank i
    "ballot": "(__ballot_sync({mask}, __cg_a0) >> (__lane_id() & {-N}u))",
    "meta_group_rank": "({prank} / {N}u)",
    "meta_group_size": "(({psize} + {N}u - 1u) / {N}u)",
}
METHODS = {
    "block": {**GENERIC, "sync": "__syncthreads()"},
    "tile": {**GENERIC, "sync": "__syncwarp({mask})", **TILE_COLLECTIVES},
    "coalesced": {
        **GENERIC, "sync": "__syncwarp({mask})",
        # ranks are counted over the group's lanes (CUDA's __fns); a rank outside the group reads its own lane
        "shfl": "__shfl_sync({mask}, __cg_a0, __simcore_nth_lane({mask}, (int)(__cg_a1)))",
        "shfl_down": "__shfl_sync({mask}, __cg_a0, __simcore_nth_lane({mask}, (int){rank} + (int)(__cg_a1)))",
        "shfl_up": "__shfl_sync({mask}, __cg_a0, __simcore_nth_lane({mask}, (int){rank} - (int)(__cg_a1)))",
        "any": "(__ballot_sync({mask}, __cg_a0) != 0)",
        "all": "(__ballot_sync({mask}, __cg_a0) == {mask})",
        "ballot": "__simcore_pack_lanes(__ballot_sync({mask}, __cg_a0), {mask})",
        "meta_group_rank": "0u", "meta_group_size": "1u",
    },
    # grid.sync() is its own sync point (group_method): no intrinsic spells it
    "grid": {**GENERIC, "sync": "grid barrier", "num_blocks": "(gridDim.x * gridDim.y * gridDim.z)",
             "block_rank": BLOCK_INDEX},
}
KIND_NAMES = {"block": "thread_block", "tile": "thread_block_tile", "coalesced": "coalesced_group",
              "grid": "grid_group"}
FREE_METHODS = {"__cg_sync": "sync", "__cg_thread_rank": "thread_rank", "__cg_group_size": "size"}
# cg::reduce's operators: C text over a and b (CUDA's functional.h)
OPERATORS = {"plus": "(a + b)", "less": "((b < a) ? b : a)", "greater": "((a < b) ? b : a)",
             "bit_and": "(a & b)", "bit_or": "(a | b)", "bit_xor": "(a ^ b)"}

SNIPPETS = {}


def parse_snippet(text):
    """C text -> a fresh copy of its expression AST (parsed once)."""
    if text not in SNIPPETS:
        ast = c_parser.CParser().parse(f"void f(void) {{ {text}; }}")
        SNIPPETS[text] = ast.ext[0].body.block_items[0]
    return copy.deepcopy(SNIPPETS[text])


class GroupLowering:
    # ------------------------------------------------------------------ entry points
    def is_group_decl(self, node):
        t = node.type
        return (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)
                and t.type.names[-1].startswith("__cg_"))

    def declare_group(self, node):
        """`cg::thread_block block = cg::this_thread_block();` and friends."""
        declared = self.is_group_decl(node) and node.type.type.names[-1][5:]
        if node.init is None:
            raise self.error(node, f"a {_type_name(declared)} must be initialised where it is declared "
                                   "(e.g. = cg::this_thread_block())", construct=_type_name(declared))
        group = self.group_of(node.init)
        group = self._check_declared(group, declared, node)
        self.scopes[-1][node.name] = GroupSym(replace(group, label=node.name))

    def bind_group_param(self, scope, param, arg, call):
        group = self._check_declared(self.group_of(arg), param.type.type.names[-1][5:], call)
        scope[param.name] = GroupSym(replace(group, label=param.name))

    def group_call(self, node, name):
        """A call of a `__cg_*` free function (cg::sync, cg::reduce, cg::thread_rank, ...)."""
        args = list(node.args.exprs) if node.args is not None else []
        if name in FREE_METHODS:
            self.nargs(f"cg::{name[5:]}", args, 1, node)
            return self.group_method(self.group_of(args[0]), FREE_METHODS[name], [], node, f"cg::{name[5:]}")
        if name == "__cg_reduce":
            return self.group_reduce(args, node)
        if name in ("__cg_this_thread_block", "__cg_tiled_partition", "__cg_coalesced_threads", "__cg_this_grid"):
            raise self.error(node, f"cg::{name[5:]}() makes a group: declare it (cg::thread_block block = "
                                   "cg::this_thread_block();) or call a method on it", construct=name[5:])
        if name[5:] in OPERATORS:
            raise self.error(node, f"cg::{name[5:]}<T>() is an operator for cg::reduce", construct=name[5:])
        raise self.error(node, f"cg::{name[5:]} is not in simcore's subset of Cooperative Groups",
                         construct=name[5:])

    def method_call(self, node):
        """`g.method(args)` where g is a group (a variable or a call that makes one)."""
        ref = node.name
        args = list(node.args.exprs) if node.args is not None else []
        if ref.type != "." or not isinstance(ref.field, c_ast.ID):
            raise self.error(node, "member functions are called with '.' on a cooperative group here",
                             construct="->")
        if isinstance(ref.name, c_ast.ID) and self.lookup(ref.name.name, ref.name).kind != "group":
            raise self.error(node, f"{ref.name.name}.{ref.field.name}(): member functions are not in simcore's "
                                   "subset (only those of cooperative groups, such as block.sync())",
                             construct="member function")
        group = self.group_of(ref.name)
        return self.group_method(group, ref.field.name, args, node, f"{group.label}.{ref.field.name}")

    # ------------------------------------------------------------------ groups
    def group_of(self, node):
        if isinstance(node, c_ast.ID):
            sym = self.lookup(node.name, node)
            if sym.kind != "group":
                raise self.error(node, f"'{node.name}' is not a cooperative group", construct=node.name)
            return sym.group
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            name = node.name.name
            args = list(node.args.exprs) if node.args is not None else []
            what = f"cg::{name[5:]}"
            if name == "__cg_this_thread_block":
                self.nargs(what, args, 0, node)
                return Group("block", "this_thread_block()")
            if name == "__cg_this_grid":
                self.nargs(what, args, 0, node)
                return Group("grid", "this_grid()")
            if name == "__cg_coalesced_threads":
                self.nargs(what, args, 0, node)
                mask = self.new_var("cg_coalesced_mask", T.UINT)
                self.write(mask, self.value(self.expr(self._at(parse_snippet("__activemask()"), node))))
                return Group("coalesced", "coalesced_threads()", mask=mask)
            if name == "__cg_tiled_partition":
                self.nargs("cg::tiled_partition", args, 2, node)
                parent = self.group_of(args[0])
                size = self.const_int(args[1])
                if parent.kind not in ("block", "tile"):
                    raise self.error(node, f"tiled_partition splits a thread_block or a tile, not a "
                                           f"{KIND_NAMES[parent.kind]}", construct="tiled_partition")
                if size not in TILE_SIZES or (parent.kind == "tile" and size > parent.size):
                    raise self.error(node, f"tiled_partition: a tile of {size} threads is not in simcore's "
                                           "subset (1, 2, 4, 8, 16 or 32, at most the parent's size)",
                                     construct="tiled_partition")
                return Group("tile", f"tiled_partition<{size}>", size=size, parent_rank=parent.rank,
                             parent_size=parent.size_text)
        raise self.error(node, "expected a cooperative group here (a group variable, cg::this_thread_block(), "
                               "cg::tiled_partition<N>(...), cg::coalesced_threads() or cg::this_grid())",
                         construct="cooperative group")

    def _check_declared(self, group, declared, node):
        want = {"thread_block": "block", "coalesced_group": "coalesced", "grid_group": "grid"}
        if declared in ("auto", False):
            return group
        if declared == "thread_group":
            if group.kind in ("coalesced", "grid"):
                raise self.error(node, f"a {KIND_NAMES[group.kind]} is not a thread_group in simcore's subset",
                                 construct="thread_group")
            return replace(group, generic=True)
        if declared.startswith("thread_block_tile_"):
            n = int(declared.rsplit("_", 1)[1])
            if group.kind != "tile" or group.size != n or group.generic:
                raise self.error(node, f"a thread_block_tile<{n}> needs cg::tiled_partition<{n}>(...), not "
                                       f"{_describe(group)}", construct="thread_block_tile")
            return group
        if want.get(declared) != group.kind:
            raise self.error(node, f"a {declared} cannot hold {_describe(group)}", construct=declared)
        return group

    # ------------------------------------------------------------------ methods
    def group_method(self, group, method, args, node, label):
        table = GENERIC if group.generic else METHODS[group.kind]
        if method not in table:
            have = ", ".join(sorted(table))
            hint = (" (a thread_block_tile<N> from cg::tiled_partition<N>(...) has the warp collectives)"
                    if group.generic else "")
            raise self.error(node, f"{_type_name(group)} has no member function {method}() in simcore's subset "
                                   f"(it has {have}){hint}", construct=method)
        text = table[method]
        if text is None:        # thread_group.sync(): what the group really is
            text = METHODS[group.kind]["sync"]
        nargs = sum(f"__cg_a{k}" in text for k in range(2))
        self.nargs(label, args, nargs, node)
        if method == "sync" and group.kind == "grid":
            return _grid_sync_lowering(self, node, label)
        return self.lower_snippet(group.fill(text.replace("{-N}", str(32 - group.size))), node, label,
                                  group, dict(enumerate(args)))

    def lower_snippet(self, text, node, label, group=None, args=None, names=None):
        """Lower C text at the call's position: __cg_aK are the call's arguments, __cg_m the
        coalesced group's mask, `names` more registers by name; sync points named `label`."""
        ast = self._at(parse_snippet(text), node, {f"__cg_a{k}": a for k, a in (args or {}).items()}, label)
        scope = dict(names or {})
        if group is not None and group.mask is not None:
            scope["__cg_m"] = Sym("var", T.UINT, var=group.mask)
        self.scopes.append(scope)
        try:
            return self.expr(ast)
        finally:
            self.scopes.pop()

    def _at(self, ast, node, args=None, label=None):
        """Give a snippet the call's position, put the arguments in, name its sync points."""
        args = args or {}
        names = self.sync_call_names

        def walk(n):
            n.coord = node.coord
            if label and isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) \
                    and n.name.name in SYNC_POINTS:
                names[id(n)] = (n, label)
            for slot in n.__slots__:
                if slot in ("coord", "__weakref__"):
                    continue
                child = getattr(n, slot, None)
                if isinstance(child, c_ast.ID) and child.name in args:
                    setattr(n, slot, args[child.name])
                elif isinstance(child, c_ast.Node):
                    walk(child)
                elif isinstance(child, list):
                    for k, c in enumerate(child):
                        if isinstance(c, c_ast.ID) and c.name in args:
                            child[k] = args[c.name]
                        elif isinstance(c, c_ast.Node):
                            walk(c)
        walk(ast)
        return ast

    @property
    def sync_call_names(self):
        """id(snippet call node) -> (node, name the student wrote): kept alive while lowering."""
        if not hasattr(self, "_sync_call_names"):
            self._sync_call_names = {}
        return self._sync_call_names

    # ------------------------------------------------------------------ cg::reduce
    def group_reduce(self, args, node):
        self.nargs("cg::reduce", args, 3, node)
        group = self.group_of(args[0])
        op = args[2]
        if not (isinstance(op, c_ast.FuncCall) and isinstance(op.name, c_ast.ID)
                and op.name.name[5:] in OPERATORS and op.name.name.startswith("__cg_")):
            raise self.error(op, "cg::reduce's operator must be cg::plus<T>(), cg::less<T>(), cg::greater<T>(), "
                                 "cg::bit_and<T>(), cg::bit_or<T>() or cg::bit_xor<T>() here",
                             construct="cg::reduce")
        if group.kind not in ("tile", "coalesced") or group.generic:
            raise self.error(node, f"cg::reduce takes a thread_block_tile<N> or a coalesced_group, not "
                                   f"{_describe(group)}", construct="cg::reduce")
        t = self.ctype_of(op.args.exprs[0].to_type)
        if not t.is_scalar:
            raise self.error(op, "cg::reduce reduces numbers", construct="cg::reduce")
        combine = OPERATORS[op.name.name[5:]].replace("a", "__cg_r").replace("b", "__cg_o")
        if t.is_float and op.name.name[5:].startswith("bit_"):
            raise self.error(op, f"cg::{op.name.name[5:]} needs an integer type, not {t}", construct="cg::reduce")
        value = self.value(self.expr(args[1]))
        if value.ctype != t:
            # CUDA: static_assert(is_op_type_same<...>, "Operator and argument types differ")
            raise self.error(args[1], f"cg::reduce: the value is {value.ctype} but the operator works on {t} "
                                      f"(CUDA: 'Operator and argument types differ'); write "
                                      f"cg::{op.name.name[5:]}<{value.ctype}>() or cast the value to {t}",
                             construct="cg::reduce")
        acc, other = self.new_var("cg_reduce", t), self.new_var("cg_reduce_other", t)
        self.write(acc, value)
        names = {"__cg_r": Sym("var", t, var=acc), "__cg_o": Sym("var", t, var=other)}
        if group.kind == "tile":
            # a butterfly: after log2(N) exchanges every lane holds the whole tile's result
            step = group.size // 2
            while step:
                self.lower_snippet(group.fill(f"__cg_o = __shfl_xor_sync({{mask}}, __cg_r, {step}, {{N}})"),
                                   node, "cg::reduce", group, names=names)
                self.lower_snippet(f"__cg_r = {combine}", node, None, group, names=names)
                step //= 2
        else:
            # a coalesced group has any size: a tree over ranks, then rank 0 broadcasts
            for step in (1, 2, 4, 8, 16):
                self.lower_snippet(group.fill(
                    f"__cg_o = __shfl_sync({{mask}}, __cg_r, __simcore_nth_lane({{mask}}, (int){{rank}} + {step}))"),
                    node, "cg::reduce", group, names=names)
                self.lower_snippet(group.fill(f"__cg_r = ({{rank}} + {step}u < {{size}}) ? {combine} : __cg_r"),
                                   node, None, group, names=names)
            self.lower_snippet(group.fill("__cg_r = __shfl_sync({mask}, __cg_r, __simcore_nth_lane({mask}, 0))"),
                               node, "cg::reduce", group, names=names)
        return self.read(acc)


def _grid_sync_lowering(low, node, label):
    """grid.sync(): a barrier of every live thread of every block of the launch (only a
    cooperative launch has all blocks resident at once; the engine checks)."""
    return low.sync_point(GRID_BARRIER, label, node, {}, None, mode="sync", block_wide=True, grid_wide=True)


def _type_name(group_or_declared):
    if isinstance(group_or_declared, Group):
        g = group_or_declared
        if g.generic:
            return "a thread_group"
        return f"a thread_block_tile<{g.size}>" if g.kind == "tile" else f"a {KIND_NAMES[g.kind]}"
    d = group_or_declared or "group"
    return d.replace("thread_block_tile_", "thread_block_tile<") + (">" if d.startswith("thread_block_tile_") else "")


def _describe(group):
    return f"{_type_name(group)} ({group.label})"
