"""A flag released with __threadfence() and a volatile store, and polled by another block with
atomicAdd(&flag, 0): the poll only reads (it leaves memory as it is), so it is the acquire side's
strong read, and the release's store after it is the hand-off, not a race (docs/semantics.md,
release and acquire). Without the writer's fence the data still races."""
import numpy as np
import pytest

import simcore

CHAIN = r"""
extern "C" __global__ void k(const int* in, int* row, int* flags)
{
    int b = blockIdx.x, t = threadIdx.x;
    int prev = 0;
    if (b > 0) {
        if (t == 0) { while (atomicAdd(&flags[b - 1], POLL) == 0) { } __threadfence(); }
        __syncthreads();
        prev = row[(b - 1) * 32 + t];
    }
    row[b * 32 + t] = prev + in[b * 32 + t];
    __syncthreads();
    if (t == 0) { FENCE *(volatile int*)&flags[b] = 1; }
}
"""
CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="round_robin"),
           dict(schedule="random", seed=0), dict(schedule="random", seed=4)]


def run(src, **cfg):
    inp = np.arange(96, dtype=np.int32)
    row, flags = np.zeros(96, np.int32), np.zeros(3, np.int32)
    simcore.RawModule(code=src).get_function("k")((3,), (32,), (inp, row, flags), **cfg)
    return inp, row


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_a_volatile_release_polled_with_atomicadd_zero_hands_the_rows_on(cfg):
    inp, row = run(CHAIN.replace("POLL", "0").replace("FENCE", "__threadfence();"), **cfg)
    assert list(row) == list(np.cumsum(inp.reshape(3, 32), axis=0).ravel())


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_without_the_writers_fence_the_rows_still_race(cfg):
    with pytest.raises(simcore.DataRace):
        run(CHAIN.replace("POLL", "0").replace("FENCE", ""), **cfg)


def test_an_atomic_that_changes_the_flag_is_no_poll_and_still_races():
    # atomicOr(&f, 2) sets a bit: the waiter's own write decides what the writer's store
    # overwrites (and it ends the wait by itself), so nothing is handed off
    src = CHAIN.replace("atomicAdd(&flags[b - 1], POLL)", "atomicOr(&flags[b - 1], 2)")
    for cfg in CONFIGS:
        with pytest.raises(simcore.DataRace):
            run(src.replace("FENCE", "__threadfence();"), **cfg)
