"""The random schedule's draws (docs/semantics.md, "How the per-warp schedules are run"): each
step draws a warp, then one of its runnable program points, except in a plain kernel
(simcore/runtime/plain.py), where the order of a warp's own groups can change nothing but how
groups merge: there the warp's lowest point runs, so that the batched run (warp_batches.py) is
the sequential run, step for step, without drawing anything."""
import numpy as np
import pytest

import simcore

SPLIT = r"""
extern "C" __global__ void split(int *out, int *count)
{
    int lane = threadIdx.x;
    int v;
    if (lane & 1) { v = lane * 3; v += 1; }
    else          { v = lane * 5; v -= 1; v *= 2; }
    COUNT
    out[lane] = v;
}
"""


def order_of_lines(source, seed):
    """The source lines of the launch's steps, in the order they ran (one warp, so the only
    draws are among the warp's program points)."""
    kern = simcore.RawModule(code=source).get_function("split")
    out, count = np.zeros(32, np.int32), np.zeros(1, np.int32)
    kern((1,), (32,), (out, count), schedule="random", seed=seed, trace=True)
    return [s.pc_line for s in kern.last_launch.trace.steps if s.event == "step"], out


def test_a_plain_kernel_under_random_runs_a_warps_lowest_point_whatever_the_seed():
    plain = SPLIT.replace("COUNT", "")
    orders = {tuple(order_of_lines(plain, seed)[0]) for seed in range(8)}
    assert len(orders) == 1
    kern = simcore.RawModule(code=plain).get_function("split")
    out, count = np.zeros(32, np.int32), np.zeros(1, np.int32)
    kern((1,), (32,), (out, count), schedule="round_robin", trace=True)
    assert orders == {tuple(s.pc_line for s in kern.last_launch.trace.steps if s.event == "step")}


def test_a_kernel_with_an_atomic_still_draws_among_a_warps_points():
    # an atomic makes the order of the warp's groups matter (who gets which ticket): random keeps
    # exploring it, seed by seed
    ticketed = SPLIT.replace("COUNT", "v += 100 * atomicAdd(count, 1);")
    orders = {tuple(order_of_lines(ticketed, seed)[0]) for seed in range(8)}
    assert len(orders) > 1


@pytest.mark.parametrize("seed", range(4))
def test_the_lowest_point_rule_leaves_a_plain_kernels_outputs_as_they_were(seed):
    plain = SPLIT.replace("COUNT", "")
    _, out = order_of_lines(plain, seed)
    lane = np.arange(32)
    assert (out == np.where(lane & 1, lane * 3 + 1, (lane * 5 - 1) * 2)).all()
