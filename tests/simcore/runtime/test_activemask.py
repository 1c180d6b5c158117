"""What __activemask() returns under each schedule and model (simcore/runtime/activemask.py), and that
its legal uses work under every one while a mask taken from it is caught and explained.

The rule (docs/semantics.md, section 3): under the independent model with the adversarial or
random schedule, __activemask() run by several lanes of a warp returns to each lane only its
part of them (adversarial: the lower and the upper half; random: a seeded random split), as a
GPU with independent thread scheduling may do; lockstep, round_robin and the stack model give
every executing lane.
"""
import functools
import warnings

import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean

ALL_SCHEDULES = [("lockstep", 0), ("round_robin", 0), ("random", 0), ("random", 7), ("adversarial", 0)]
SCHED_IDS = [f"{s}-{seed}" if s == "random" else s for s, seed in ALL_SCHEDULES]


@functools.lru_cache(maxsize=None)
def kernel(src, name):
    return simcore.RawModule(code=src).get_function(name)


MASKS = r"""
extern "C" __global__ void masks(unsigned *out, int limit)
{
    int t = threadIdx.x;
    out[t] = 0;
    if (t % 32 < limit)
        out[t] = __activemask();
}
"""


def masks_of(limit=32, block=64, **launch):
    out = np.zeros(block, np.uint32)
    run_clean(kernel(MASKS, "masks"), (1,), (block,), (out, np.int32(limit)), **launch)
    return out


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin"])
def test_the_everyday_schedules_return_every_executing_lane(schedule):
    assert (masks_of(schedule=schedule) == 0xFFFFFFFF).all()
    assert (masks_of(limit=20, schedule=schedule).reshape(2, 32)[:, :20] == 0x000FFFFF).all()


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial", "random"])
def test_the_stack_model_returns_every_executing_lane(schedule):
    assert (masks_of(schedule=schedule, model="stack") == 0xFFFFFFFF).all()


def test_adversarial_returns_the_callers_half_of_the_executing_lanes():
    out = masks_of(schedule="adversarial").reshape(2, 32)
    assert (out[:, :16] == 0x0000FFFF).all() and (out[:, 16:] == 0xFFFF0000).all()
    # 20 lanes executing: lanes 0-9 and 10-19
    out = masks_of(limit=20, schedule="adversarial").reshape(2, 32)
    assert (out[:, :10] == 0x000003FF).all() and (out[:, 10:20] == 0x000FFC00).all()
    # one lane cannot be split
    out = masks_of(limit=1, schedule="adversarial").reshape(2, 32)
    assert (out[:, 0] == 1).all()


@pytest.mark.parametrize("seed", [0, 1, 99])
def test_random_splits_the_executing_lanes_in_two_parts_each_lane_in_its_own(seed):
    out = masks_of(schedule="random", seed=seed).reshape(2, 32)
    lanes = np.arange(32, dtype=np.uint32)
    for warp in out:
        assert ((warp >> lanes) & 1 == 1).all()                 # every lane is in its own part
        parts = set(warp.tolist())
        assert len(parts) == 2 and functools.reduce(int.__or__, parts) == 0xFFFFFFFF
        assert functools.reduce(int.__and__, parts) == 0        # two disjoint parts, all 32 lanes
    # a launch repeats with its seed
    np.testing.assert_array_equal(masks_of(schedule="random", seed=seed).reshape(2, 32), out)


# ---------------------------------------------------------------- legal uses, every schedule
AGGREGATE = r"""
extern "C" __global__ void aggregate(int *counter, int *slot, const int *keep)
{
    int t = threadIdx.x;
    int lane = t % 32;
    if (keep[t]) {
        unsigned m = __activemask();
        int leader = __ffs(m) - 1;
        int base = 0;
        if (lane == leader)
            base = atomicAdd(counter, __popc(m));
        base = __shfl_sync(m, base, leader);
        slot[t] = base + __popc(m & ((1u << lane) - 1u));
    }
}
"""


@pytest.mark.parametrize("model", ["independent", "stack"])
@pytest.mark.parametrize("schedule,seed", ALL_SCHEDULES, ids=SCHED_IDS)
def test_warp_aggregated_atomics_are_right_under_every_schedule(schedule, seed, model):
    """Each part of a split warp elects its own leader and reserves its own slots: every kept
    thread gets a distinct slot and the counter is the number of kept threads."""
    keep = (np.random.default_rng(3).random(128) < 0.6).astype(np.int32)
    counter, slot = np.zeros(1, np.int32), np.full(128, -1, np.int32)
    run_clean(kernel(AGGREGATE, "aggregate"), (1,), (128,), (counter, slot, keep),
              schedule=schedule, seed=seed, model=model)
    assert counter[0] == keep.sum()
    assert sorted(slot[keep == 1].tolist()) == list(range(keep.sum()))
    assert (slot[keep == 0] == -1).all()


COUNT = r"""
extern "C" __global__ void count(int *out)
{
    int t = threadIdx.x;
    unsigned m = __activemask();
    out[t] = __popc(m);
    if (t == 0)
        printf("active: %u lanes\n", (unsigned)__popc(m));
}
"""


@pytest.mark.parametrize("schedule,seed", ALL_SCHEDULES, ids=SCHED_IDS)
def test_a_mask_only_counted_or_printed_is_legal(schedule, seed, capsys):
    out = np.zeros(32, np.int32)
    run_clean(kernel(COUNT, "count"), (1,), (32,), (out,), schedule=schedule, seed=seed)
    assert ((out >= 1) & (out <= 32)).all()
    assert "active:" in capsys.readouterr().out


# ---------------------------------------------------------------- a mask taken from it
SUM = r"""
extern "C" __global__ void warp_sum(const int *in, int *out)
{
    int t = threadIdx.x;
    int lane = t % 32;
    int v = in[t];
    unsigned mask = __activemask();
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < 32)
            v += other;
    }
    if (lane == 0)
        out[t / 32] = v;
}
"""


@pytest.mark.parametrize("schedule,seed", [("adversarial", 0), ("random", 0), ("random", 5)])
def test_a_shuffle_mask_from_activemask_is_undefined_and_the_report_says_where_it_came_from(schedule, seed):
    f = fault_of(kernel(SUM, "warp_sum"), (1,), (64,), (np.arange(64, dtype=np.int32), np.zeros(2, np.int32)),
                 schedule=schedule, seed=seed)
    assert f.kind == "undefined_value"
    text = str(f)
    assert "at line 7: unsigned mask = __activemask();   (where the shuffle's mask came from)" in text
    assert f"came from __activemask() on line 7: under the {schedule} schedule" in text
    assert "never __activemask()" in f.report["fix"]


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin"])
def test_the_same_kernel_works_where_the_warp_stays_together(schedule):
    x = np.arange(64, dtype=np.int32)
    out = np.zeros(2, np.int32)
    run_clean(kernel(SUM, "warp_sum"), (1,), (64,), (x, out), schedule=schedule)
    np.testing.assert_array_equal(out, x.reshape(2, 32).sum(axis=1))


FOLD = r"""
extern "C" __global__ void fold(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        float v = s[t];
        for (int offset = 32; offset > 0; offset /= 2) {
            v += s[t + offset];
            __syncwarp(__activemask());
            s[t] = v;
            __syncwarp(__activemask());
        }
    }
    __syncthreads();
    if (t == 0)
        out[0] = s[0];
}
"""


def test_syncwarp_with_a_split_mask_orders_only_that_part_and_the_race_check_says_so():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(1, np.float32)
    k = kernel(FOLD, "fold")
    k((1,), (64,), (x, out))                  # lockstep: the warp stays together
    assert out[0] == x.sum() and not k.last_launch.warnings
    # adversarial: lanes 0-15 run on past their __syncwarp before lanes 16-31 store their sums.
    # The first thing the student reads is the race between two lanes of one warp, and the fix
    # names the __activemask() the mask came from.
    with pytest.raises(simcore.DataRace) as caught:
        k((1,), (64,), (x, out), schedule="adversarial")
    text = str(caught.value)
    assert "Data race" in text and "(warp 0, lane" in text, text
    assert "a __syncwarp(mask), or a tile's sync(), orders only the lanes it names" in text, text
    assert "If the mask came from __activemask() on line 1" in text, text


def test_syncwarp_with_a_split_mask_gives_wrong_numbers_and_a_note_without_the_race_check():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(1, np.float32)
    k = kernel(FOLD, "fold")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k((1,), (64,), (x, out), schedule="adversarial", checks={"race": False})
    assert out[0] != x.sum()
    notes = [str(w.message) for w in caught if issubclass(w.category, simcore.SimWarning)]
    assert any(n.startswith("line 12: __syncwarp() was called with mask 0xffff0000, which __activemask() on "
                            "line 12 returned under the adversarial schedule") and "lanes 0-15 and lanes 16-31" in n
               for n in notes), notes


COALESCED = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(const int *in, int *size, int *rank, int *sum)
{
    int i = threadIdx.x;
    int v = in[i];
    if (v % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        size[i] = active.size();
        rank[i] = active.thread_rank();
        sum[i] = cg::reduce(active, v, cg::plus<int>());
    }
}
"""


@pytest.mark.parametrize("schedule,seed", ALL_SCHEDULES, ids=SCHED_IDS)
def test_a_coalesced_group_is_one_part_of_the_warp_and_consistent_in_it(schedule, seed):
    """cg::coalesced_threads() is __activemask() there: under a splitting schedule each part is
    a group of its own, with its own size, ranks and sum."""
    x = np.random.default_rng(4).integers(-50, 50, 64).astype(np.int32)
    size, rank, total = (np.full(64, -7, np.int32) for _ in range(3))
    run_clean(kernel(COALESCED, "k"), (1,), (64,), (x, size, rank, total), schedule=schedule, seed=seed)
    taking = x % 3 == 0
    assert (size[~taking] == -7).all()
    for w in range(2):
        lanes = np.flatnonzero(taking[32 * w:32 * w + 32]) + 32 * w
        parts = {}
        for lane in lanes:
            parts.setdefault((size[lane], total[lane]), []).append(lane)
        for (n, s), members in parts.items():
            assert n == len(members) and s == x[members].sum()
            assert sorted(rank[members].tolist()) == list(range(n))
        if schedule in ("lockstep", "round_robin"):
            assert len(parts) == 1      # the whole branch is one group
