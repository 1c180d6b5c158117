"""A block waiting at a barrier that all its threads have reached must get past it while
threads of another block spin on a flag that the waiting block sets after the barrier (a
chain of blocks, a grid barrier by hand). Barriers complete when nothing else can run, so the
spinners starve the barrier: the watchdog must complete it and let them yield, never call the
kernel endless (docs/semantics.md, forward progress)."""
import numpy as np
import pytest

import simcore

SPIN_BESIDE_BARRIER = r"""
extern "C" __global__ void k(int* flags, int* out)
{
    int b = blockIdx.x, t = threadIdx.x;
    if (b > 0 && t == 0) { while (POLL == 0) { } }
    __syncthreads();
    if (t == 0 && b == 0) SET;
    if (t == 0) out[b] = 1;
}
"""
POLLS = {"atomic": ("atomicAdd(&flags[0], 0)", "atomicExch(&flags[0], 1)"),
         "volatile": ("*(volatile int*)flags", "{ __threadfence(); *(volatile int*)flags = 1; }")}
CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="round_robin"),
           dict(schedule="random", seed=0), dict(schedule="random", seed=3),
           dict(schedule="lockstep", model="stack")]


def run(src, **cfg):
    flags, out = np.zeros(1, np.int32), np.zeros(2, np.int32)
    simcore.RawModule(code=src).get_function("k")((2,), (32,), (flags, out), **cfg)
    return out


@pytest.mark.parametrize("poll", POLLS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_a_block_at_a_completed_barrier_goes_on_while_another_block_spins_on_its_flag(poll, cfg):
    wait, sets = POLLS[poll]
    out = run(SPIN_BESIDE_BARRIER.replace("POLL", wait).replace("SET", sets), **cfg)
    assert list(out) == [1, 1]


@pytest.mark.parametrize("cfg", CONFIGS[:4], ids=lambda c: "-".join(map(str, c.values())))
def test_a_spinner_whose_flag_nobody_sets_is_still_an_endless_loop(cfg):
    src = SPIN_BESIDE_BARRIER.replace("POLL", "atomicAdd(&flags[0], 0)").replace("SET", "out[1] = 2")
    with pytest.raises(simcore.KernelFault) as err:
        run(src, **cfg)
    assert err.value.kind == "step_limit" and "line 5" in str(err.value)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("spinner", [0, 37])
@pytest.mark.parametrize("poll", POLLS)
def test_under_random_a_spinner_beside_its_blocks_waiting_threads_is_called_endless_by_the_step_count(poll, spinner, seed):
    # its block's other threads wait at the __syncthreads() after the spin, for the spinner: the
    # random schedule's long look compares them too and calls the loop endless (it once left
    # such a launch to the wall-clock time limit, which is no verdict); its legal twin finishes
    wait, sets = POLLS[poll]
    src = SPIN_BESIDE_BARRIER.replace("t == 0) { while", f"t == {spinner}) {{ while").replace("POLL", wait)
    k = simcore.RawModule(code=src.replace("SET", "out[1] = 2")).get_function("k")
    with pytest.raises(simcore.KernelFault) as err:
        k((3,), (64,), (np.zeros(1, np.int32), np.zeros(3, np.int32)), schedule="random", seed=seed, time_limit=600)
    assert err.value.kind == "step_limit" and "line 5" in str(err.value)
    out = np.zeros(3, np.int32)
    simcore.RawModule(code=src.replace("SET", sets)).get_function("k")(
        (3,), (64,), (np.zeros(1, np.int32), out), schedule="random", seed=seed)
    assert list(out) == [1, 1, 1]
