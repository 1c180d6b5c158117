"""A thread that arrives at a named barrier again before the barrier has reset (PTX `bar`:
"Care must be taken to keep a warp from executing more barrier instructions than intended
(barrier.arrive followed by any other barrier instruction to the same barrier) prior to the
reset of the barrier"). The barrier counts arrivals, not threads, so both arrivals can land in
one phase. simcore reports it in every schedule, whichever order its run took; a reuse of one
id that the program orders (a wait in between that comes after the earlier phase) is legal.
See docs/semantics.md, section 2.
"""
import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean

SCHEDULES = ("lockstep", "adversarial", "round_robin", "random")

# One producer warp and one consumer warp stream `tiles` values through a one-slot buffer.
# FULL: "the slot is written" (producer arrives, consumer waits); EMPTY: "the slot is read"
# (consumer arrives, producer waits before the next write). Count 64: both warps.
PING_PONG = r"""
#define FULL  %(full)s
#define EMPTY %(empty)s
extern "C" __global__ void ping_pong(const int *in, int *out, int tiles)
{
    __shared__ int slot[32];
    int t = threadIdx.x;
    in += blockIdx.x * tiles * 32;          // every block streams its own tiles
    out += blockIdx.x * tiles * 32;
    if (t < 32) {
        for (int k = 0; k < tiles; ++k) {
            if (k > 0)
                asm volatile("bar.sync %%0, 64;" :: "r"(EMPTY) : "memory");
            slot[t] = in[k * 32 + t];
            asm volatile("bar.arrive %%0, 64;" :: "r"(FULL) : "memory");
        }
    } else {
        for (int k = 0; k < tiles; ++k) {
            asm volatile("bar.sync %%0, 64;" :: "r"(FULL) : "memory");
            out[k * 32 + t - 32] = slot[63 - t];
            if (k + 1 < tiles)
                asm volatile("bar.arrive %%0, 64;" :: "r"(EMPTY) : "memory");
        }
    }
}
"""


def ping_pong(full, empty):
    return simcore.RawModule(code=PING_PONG % {"full": full, "empty": empty}).get_function("ping_pong")


def launch_ping_pong(k, tiles, blocks=1, **kw):
    x = np.arange(blocks * 32 * tiles, dtype=np.int32)
    out = np.full_like(x, -1)
    return k, ((blocks,), (64,), (x, out, np.int32(tiles))), kw, x, out


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_two_ids_for_two_hand_offs_is_legal(schedule):
    k, args, kw, x, out = launch_ping_pong(ping_pong(1, 2), 5, schedule=schedule, seed=3)
    run_clean(k, *args, **kw)
    np.testing.assert_array_equal(out, x.reshape(-1, 32)[:, ::-1].ravel())


# The producer's second arrival at barrier 1 comes before anything tells it that the consumer
# waited for the first: in some timing both arrivals are one phase of 64, and the consumer's
# first wait is never counted. simcore reports it in every schedule, even one that happened
# to let the consumer in between.
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_arriving_twice_before_the_phase_is_known_complete_is_reported(schedule):
    src = r"""
extern "C" __global__ void twice(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = in[t];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
        s[32 + t] = in[32 + t];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t - 32] = s[t - 32] + s[t];
    }
}
"""
    k = simcore.RawModule(code=src).get_function("twice")
    x = np.arange(64, dtype=np.int32)
    f = fault_of(k, (1,), (64,), (x, np.zeros(32, np.int32)), schedule=schedule, seed=1)
    assert isinstance(f, simcore.NamedBarrierError)
    text = str(f)
    assert "threads 0-31 arrive at barrier 1 again, at line 10" in text, text
    assert "line 8" in text and "count of 64" in text, text
    assert f.report["line"] == 10
    assert "its own barrier id" in f.report["fix"]


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_one_id_for_both_hand_offs_is_reported_at_the_second_arrival(schedule):
    """FULL and EMPTY on one barrier: the consumer arrives (EMPTY) and then waits (FULL) on
    the same barrier with nothing in between: PTX's 'bar.arrive followed by any other barrier
    instruction to the same barrier'."""
    k, args, kw, _, _ = launch_ping_pong(ping_pong(1, 1), 3, schedule=schedule, seed=2)
    f = fault_of(k, *args, **kw)
    assert f.kind == "named_barrier", str(f)
    assert "arrive at barrier 1 again" in str(f)


def test_the_check_off_counts_both_arrivals_as_the_hardware_does():
    """Without the named-barrier check the second arrival is counted like any other: under
    lockstep the producer runs ahead, its two arrivals fill one phase by themselves, and the
    consumer's second wait can never complete."""
    src = r"""
extern "C" __global__ void twice(int *out)
{
    int t = threadIdx.x;
    if (t < 32) {
        asm volatile("bar.arrive 1, 64;" ::: "memory");
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t - 32] = 1;
    }
}
"""
    k = simcore.RawModule(code=src).get_function("twice")
    f = fault_of(k, (1,), (64,), (np.zeros(32, np.int32),), checks={"named_barrier": False})
    assert f.kind == "deadlock", str(f)


def test_reusing_an_id_after_a_block_barrier_is_legal():
    """Two hand-offs on barrier 1, one after the other, with __syncthreads() between them:
    the producer's second arrival comes after the first phase is known complete."""
    src = r"""
extern "C" __global__ void reuse(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = in[t];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t - 32] = s[63 - t];
    }
    __syncthreads();
    if (t < 32) {
        s[32 + t] = in[32 + t];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = s[t];
    }
}
"""
    k = simcore.RawModule(code=src).get_function("reuse")
    x = np.arange(64, dtype=np.int32)
    for schedule in SCHEDULES:
        out = np.zeros(64, np.int32)
        run_clean(k, (1,), (64,), (x, out), schedule=schedule, seed=4)
        np.testing.assert_array_equal(out, np.concatenate([x[31::-1], x[32:]]))


def test_reusing_an_id_after_a_wait_that_comes_later_is_legal():
    """The producer arrives at FULL, then waits at EMPTY, which the consumer signals only after
    its wait at FULL: the producer's next arrival at FULL is ordered after that phase (the
    knowledge travels through EMPTY). With three blocks, each keeps its own phases."""
    for schedule in SCHEDULES:
        k, args, kw, x, out = launch_ping_pong(ping_pong(3, 4), 4, blocks=3, schedule=schedule, seed=5)
        run_clean(k, *args, **kw)
        np.testing.assert_array_equal(out, x.reshape(-1, 32)[:, ::-1].ravel())
