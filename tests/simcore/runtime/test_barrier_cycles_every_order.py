"""A loop of barriers whose memory moves every round and comes back (issue 18 item 3).

`s[t] = i; i = (i + 1) % n` between two `__syncthreads()`, or values rotated through shared memory
from thread to thread, repeats its state at a barrier every n rounds while memory takes other
values in between. Threads that hand values to each other only through barriers (no race, no
atomic) read the same values between two barriers in every order, so such a repeat is a cycle
of every order: endless (docs/semantics.md, forward progress). Under the random schedule that
used to reach only the time limit. Where the order could matter (an atomic in the loop, no race
check to prove there is no race) the watchdog still gives no verdict, and the legal twins, the
same loops with an end, finish with the right values."""
import numpy as np
import pytest

from simcore import RawModule
from simcore.errors import KernelFault

SOURCE = r"""
__global__ void counter_goes_round(int *out, int period, int rounds)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    int i = 0;
    int r = 0;
    s[t] = 0;
    while (rounds < 0 || r++ < rounds) {        // rounds < 0: no end
        __syncthreads();
        s[t] = i;
        i = (i + 1) % period;
        __syncthreads();
        if (s[(t + 1) % blockDim.x] < 0)        // never: the values go round 0..period-1
            break;
    }
    out[blockIdx.x * blockDim.x + t] = i;
}

__global__ void values_rotate(int *out, int rounds)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    int v = t;
    int r = 0;
    while (rounds < 0 || r++ < rounds) {
        s[t] = v;
        __syncthreads();
        v = s[(t + 1) % blockDim.x];            // the neighbour's value, ordered by the barrier
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = v;
}

__global__ void flag_toggles(int *out, int rounds)
{
    __shared__ int flag;
    int t = threadIdx.x;
    int seen = 0;
    int r = 0;
    if (t == 0)
        flag = 0;
    __syncthreads();
    while (rounds < 0 || r++ < rounds) {
        if (t == 0)
            flag = 1 - flag;
        __syncthreads();
        seen = flag;
        __syncthreads();
        if (seen == 2)                          // never: the flag is 0 or 1
            break;
    }
    out[blockIdx.x * blockDim.x + t] = seen;
}

__global__ void atomic_count_goes_round(int *out, int period, int rounds)
{
    __shared__ int c;
    int t = threadIdx.x;
    int r = 0;
    if (t == 0)
        c = 0;
    while (rounds < 0 || r++ < rounds) {
        __syncthreads();
        atomicAdd(&c, 1);
        __syncthreads();
        if (t == 0)
            c = c % period;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = c;
}

__global__ void activemask_goes_round(int *out, int period)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    int i = 0;
    for (;;) {
        __syncthreads();
        s[t] = i + (__activemask() == 0);
        i = (i + 1) % period;
        __syncthreads();
        if (s[(t + 1) % blockDim.x] < 0)
            break;
    }
    out[t] = i;
}
"""

SCHEDULES = [("random", 0), ("random", 1), ("random", 2), ("lockstep", 0), ("round_robin", 0), ("adversarial", 0)]

# (kernel, grid, block, scalar arguments before `rounds`)
ENDLESS = [
    ("counter_goes_round", 1, 1024, (32,)),
    ("counter_goes_round", 1, 256, (100,)),
    ("counter_goes_round", 4, 256, (32,)),      # four blocks, each on its own
    ("values_rotate", 1, 64, ()),               # values handed from thread to thread, through barriers
    ("values_rotate", 1, 256, ()),
    ("flag_toggles", 1, 128, ()),               # one thread writes, every thread reads after a barrier
]


def _launch(name, grid, block, scalars, **options):
    fn = RawModule(code=SOURCE).get_function(name)
    out = np.full(grid * block, -7, np.int32)
    fn((grid,), (block,), (out, *[np.int32(v) for v in scalars]), **options)
    return out


def _verdict(name, grid, block, scalars, **options):
    with pytest.raises(KernelFault) as got:
        _launch(name, grid, block, scalars, **options)
    return got.value


@pytest.mark.parametrize("schedule,seed", SCHEDULES)
@pytest.mark.parametrize("name,grid,block,scalars", ENDLESS)
def test_a_loop_of_barriers_with_moving_memory_is_endless_in_every_order(name, grid, block, scalars, schedule, seed):
    fault = _verdict(name, grid, block, scalars + (-1,), schedule=schedule, seed=seed, time_limit=60)
    assert fault.kind == "step_limit", str(fault)
    text = str(fault)
    assert "in every order the kernel comes back to exactly the same state" in text
    assert "only through barriers" in text
    assert "depends on timing" not in text


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_the_legal_twins_finish_with_their_values(seed):
    out = _launch("counter_goes_round", 1, 256, (100, 250), schedule="random", seed=seed)
    assert (out == 250 % 100).all()
    out = _launch("values_rotate", 1, 64, (200,), schedule="random", seed=seed)
    assert (out == (np.arange(64) + 200) % 64).all()
    out = _launch("flag_toggles", 1, 128, (301,), schedule="random", seed=seed)
    assert (out == 1).all()
    out = _launch("atomic_count_goes_round", 1, 256, (7, 40), schedule="random", seed=seed)
    assert (out == _atomic_count(256, 7, 40)).all()


def _atomic_count(threads, period, rounds):
    c = 0
    for _ in range(rounds):
        c = (c + threads) % period
    return c


def test_an_atomic_in_the_loop_gets_no_verdict_under_random():
    # The atomics' order decides the values they return: a repeat proves nothing about other
    # orders, so only the time limit stops it (no verdict on the kernel).
    fault = _verdict("atomic_count_goes_round", 1, 256, (7, -1), schedule="random", seed=0, time_limit=3)
    assert fault.kind == "time_limit", str(fault)


def test_an_atomic_in_the_loop_under_lockstep_is_that_schedules_cycle():
    fault = _verdict("atomic_count_goes_round", 1, 256, (7, -1), schedule="lockstep")
    assert fault.kind == "step_limit"
    assert "Endless loop under the lockstep schedule" in str(fault)
    assert "in every order" not in str(fault)


def test_without_the_race_check_nothing_proves_the_order_free():
    fault = _verdict("counter_goes_round", 1, 256, (32, -1), schedule="random", seed=0, checks=False, time_limit=3)
    assert fault.kind == "time_limit", str(fault)


def test_activemask_makes_the_order_matter():
    fault = _verdict("activemask_goes_round", 1, 256, (32,), schedule="random", seed=0, time_limit=3)
    assert fault.kind == "time_limit", str(fault)
