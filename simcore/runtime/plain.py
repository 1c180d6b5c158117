"""Plain kernels: the kernels whose outcome cannot depend on the order in which warps, or the
groups of one warp, take their steps.

A kernel is *plain* when no block does anything whose result depends on that order: no atomics,
volatile accesses, fences, clock(), printf, __activemask(), named barriers or grid syncs, only
block barriers (completed when no lane of the wave can run) and warp collectives (their own
warp's lanes only). Two accesses of different lanes between two of those sync points, with a
write among them, are a data race, which the race check reports in any order (it orders lanes,
those of one warp too, only through the sync points that name them: docs/semantics.md,
section 3). So a plain
launch the race check finds clean reads the same values, and computes the same, in any order of
its lanes' steps. The batched per-warp schedules (warp_batches.py) and the random schedule's
choice of a warp's program point (Engine.pick) rely on it.
"""
from ..lower.facts import LANE_FREE_CONTEXT

# Context attributes whose effect depends on the lanes only, never on the order of warps: memory
# loads and stores (the race check orders them), per-thread local arrays, checked arithmetic,
# bit and math helpers, and the faults they raise.
ORDER_FREE_CONTEXT = LANE_FREE_CONTEXT | frozenset({
    "ld", "ldu", "st", "check_align", "lget", "lset", "idiv", "imod", "smul", "shl", "shr", "f2i", "bitcast",
    "round", "rsqrt", "saturate", "fma", "popc", "ffs", "clz", "brev", "block_of", "lane_of", "subset",
    "use_check", "fault_local_bounds", "fault_div_zero", "bad_function_pointer"})

# Sync points a plain kernel may end blocks at: block barriers (completed only when nothing can
# run) and warp collectives (their own warp only).
ORDER_FREE_SYNC_OPS = frozenset({"syncwarp", "shfl", "vote", "reduce", "match"})


def plain_sync(site):
    """A sync site whose completion does not depend on the order in which warps arrive."""
    if site.op == "bar":
        return site.block_wide and not site.grid_wide and site.mode != "arrive"
    return site.op in ORDER_FREE_SYNC_OPS


def plain_program(prog):
    """Is every basic block of the kernel plain?"""
    if any(site.volatile for site in prog.sites) or prog.fence_scopes:
        return False
    for block in prog.blocks:
        if block.facts is None or not block.facts.context <= ORDER_FREE_CONTEXT:
            return False
        if block.term.kind == "sync" and not plain_sync(prog.sync_sites[block.term.site]):
            return False
    return True
