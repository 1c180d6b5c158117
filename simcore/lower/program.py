"""What the compiler hands the engine: a kernel as a control-flow graph of basic blocks.

A basic block is straight-line numpy code over a set of lanes, compiled to one Python
function. It ends at a branch, a join, an exit, or a *sync point* (barrier, warp collective):
the places where lanes may have to wait for other lanes. The engine moves lane groups from
block to block; it never looks inside a block.
"""
from dataclasses import dataclass, field
from typing import ClassVar


@dataclass
class Var:
    """A per-thread register: one numpy element per lane (or a row, for local arrays)."""
    name: str            # unique, a valid Python identifier
    ctype: object        # ctype of the element
    shape: tuple = ()    # () for scalars, (n,) for local arrays
    tracked: bool = False   # has a shadow array saying which lanes hold undefined values
    source_name: str = ""
    space: str = None       # pointers: 'global' or 'shared' when known (for access sizes)
    param: bool = False     # holds a kernel parameter
    special: bool = False   # holds threadIdx/blockIdx components, filled by the engine


@dataclass
class SharedArray:
    name: str
    elem: object         # ctype of the element
    nbytes: int          # 0 for `extern __shared__` (sized by shared_mem at launch)
    region: int          # address-space region (see memory.py)
    dynamic: bool = False
    line: int = 0
    scalar: bool = False  # `__shared__ int x;`: an array of one element, named without [0]


@dataclass
class ModuleVariable:
    """A `__device__` or `__constant__` variable: global memory of the module, kept between
    launches (RawModule.get_global(name) reads and writes it from the host)."""
    name: str
    ctype: object        # ctype of the variable (an Array for arrays)
    region: int          # address-space region (see memory.py)
    constant: bool       # __constant__: read-only for kernels
    init: bytes          # its bytes at module load (the initializer, or zeros)
    line: int = 0
    volatile: bool = False  # `__device__ volatile int flag;`: its loads and stores are strong

    @property
    def nbytes(self):
        return self.ctype.size


@dataclass
class LocalVariable:
    """A local variable whose address escapes (`p = &x;`, `int *q = arr;` reassigned, `&x` in
    memory): it lives in local memory, one copy per thread, instead of registers."""
    name: str
    ctype: object        # ctype of the variable (an Array for arrays)
    region: int          # address-space region (memory.FIRST_LOCAL_REGION + k)
    line: int = 0
    param: str = ""      # a struct parameter passed by value: its bytes come from the launch
    constant = False     # as ModuleVariable's: kernels write it
    volatile = False     # as ModuleVariable's; local memory is the thread's own, so no access is strong
    space = "local"

    @property
    def nbytes(self):
        return self.ctype.size

    @property
    def elem(self):
        t = self.ctype
        while t.is_array:
            t = t.base
        return t if not t.is_struct else _first_number(t)


def _first_number(t):
    """The dtype-bearing type that names a struct's bytes in messages (its first number)."""
    while t.is_struct or t.is_array:
        t = t.fields[0].ctype if t.is_struct else t.base
    return t


@dataclass
class Param:
    """A kernel parameter, as users and the CuPy backend see it."""
    name: str
    type: str            # C spelling
    is_pointer: bool
    dtype: object        # numpy dtype of the scalar, or of the pointee
    var: str = ""        # register name inside the program
    inner: object = None  # `T **`: numpy dtype of the arrays its pointers point to (the pointee is an address)
    pointer_members: tuple = ()   # a struct by value: (member path "a.p", byte offset, pointee dtype) of its pointers


@dataclass
class Site:
    """A source position used in reports."""
    line: int
    column: int
    text: str            # the source line
    what: str = ""       # e.g. "read of tile[...]"
    memory: bool = False  # a memory access (load, store, atomic): the race shadow numbers these densely
    volatile: bool = False  # a load or store through a volatile pointer (strong, as PTX's ld/st.volatile)
    polls: bool = False   # an atomic that leaves memory as it is (atomicAdd(p, 0), atomicOr(p, 0)): a strong read
    scope: str = "device"   # an atomic's scope: "block" (atomicAdd_block, ...) is strong only inside its block
    cas_guess: bool = False   # a plain load whose value an atomicCAS compares with (a CAS loop's guess)
    waits: bool = False   # a load or atomic whose value decides whether a loop goes on (a wait's poll)


@dataclass
class SyncSite:
    """A sync point: where lanes wait for other lanes.

    op: 'bar' (block/named barrier), 'syncwarp', 'shfl', 'vote', 'reduce', 'match'.
    operands: register names holding this call's operand values.
    """
    id: int
    op: str
    line: int
    column: int
    text: str
    name: str                    # the call as written, e.g. "__syncthreads"
    operands: dict = field(default_factory=dict)
    result: str = None           # register receiving the result
    result_ctype: object = None
    mode: str = ""               # bar: 'sync' | 'arrive'; shfl: 'idx'|'up'|'down'|'xor'; vote: 'ballot'|'all'|'any'
    reduce: str = ""             # bar: '' | 'popc' | 'and' | 'or'
    block_wide: bool = False     # __syncthreads* (count = whole block, id 0)
    grid_wide: bool = False      # cg::this_grid().sync(): every thread of every block (cooperative launch)
    whole_warp: bool = False     # syncwarp: its mask is the constant 0xffffffff (the race check's
                                 # vector clocks are needed only where some __syncwarp may name fewer)
    next: int = -1               # block to continue at
    via: str = ""                # "in f() called on line 18" when inlined from a __device__ function
    point: object = None         # its kind (lower/sync_points.py): what completes it

    @property
    def where(self):
        return f"line {self.line}" + (f" ({self.via})" if self.via else "")


# ---- how a block ends: where its lanes go next
@dataclass
class Goto:
    target: int
    kind: ClassVar[str] = "goto"


@dataclass
class Branch:
    """Lanes where `cond` is true go to if_true, the others to if_false."""
    cond: str                    # Python expression, one bool per lane
    if_true: int
    if_false: int
    line: int                    # the branching statement (if, loop, ?:, case), for reports
    reads: frozenset = frozenset()   # registers `cond` names
    kind: ClassVar[str] = "branch"


@dataclass
class SyncEnd:
    """The block ends at a sync point; lanes continue at sync_sites[site].next once released."""
    site: int
    kind: ClassVar[str] = "sync"


@dataclass
class Exit:
    kind: ClassVar[str] = "exit"


@dataclass
class Block:
    id: int
    code: list = field(default_factory=list)    # Python statements
    lines: set = field(default_factory=set)
    term: object = field(default_factory=Exit)  # Goto | Branch | SyncEnd | Exit
    first_line: int = 0
    stores: list = field(default_factory=list)  # registers written (stored back at the end)
    loads: list = field(default_factory=list)   # ("v"|"u", register) loaded at the start
    is_join: bool = False        # lanes of a warp that diverged earlier wait here
    join_of: list = field(default_factory=list)  # branch blocks whose reconvergence point this is
    fn: object = None            # compiled function (R, L, X) -> cond or None
    facts: object = None         # lower.facts.BlockFacts of its code, recorded with fn
    ipdom: int = -1              # for branch blocks: the join block id (-1: kernel exit)
    exit_join: bool = False      # branch whose sides both run to the kernel's end (no join block)


@dataclass
class Program:
    name: str
    params: list
    blocks: list
    entry: int
    vars: dict                   # name -> Var
    shared: list                 # SharedArray
    sync_sites: list             # SyncSite
    sites: list                  # Site, for memory accesses and other reports
    source_lines: list
    global_access_size: int = 4  # smallest access size to global memory (race shadow granule)
    shared_access_size: int = 4
    uses_taint: bool = False
    fence_scopes: frozenset = frozenset()   # "block", "device": the kernel calls __threadfence_block / __threadfence
    python_source: str = ""
    module_vars: list = field(default_factory=list)   # ModuleVariable, the same list for every kernel
    local_vars: list = field(default_factory=list)    # LocalVariable: locals whose address escapes

    def line_text(self, line):
        if line and 0 < line <= len(self.source_lines):
            return self.source_lines[line - 1].strip()
        return ""
