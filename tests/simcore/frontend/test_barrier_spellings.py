"""One construct, one verdict: `__syncthreads()`, `block.sync()`, `cg::this_thread_block().sync()`
and `cg::sync(block)` are the same block barrier (thread_block::sync() is __syncthreads()), so
every kernel shape gets the same verdict and the same report, whichever spelling it uses
(only the name of the call as written differs)."""
import re
import warnings

import numpy as np
import pytest

import simcore

SPELLINGS = ("__syncthreads()", "block.sync()", "cg::this_thread_block().sync()", "cg::sync(block)")
NAMES = ("__syncthreads", "block.sync", "this_thread_block().sync", "cg::sync")

SHAPES = {
    # two call sites, warp 2 straddles the condition
    "if_else_straddling_a_warp": "if (t < 80) { SYNC; out[t] = tile[255 - t]; } "
                                 "else { SYNC; out[t] = tile[255 - t] + 1000; }",
    # two call sites, every warp uniform
    "if_else_warp_aligned": "if (t < 64) { SYNC; out[t] = tile[255 - t]; } "
                            "else { SYNC; out[t] = tile[255 - t] + 1000; }",
    "barrier_in_a_branch_then_another": "if (t < 80) { SYNC; out[t] = tile[255 - t]; } SYNC; out[t] += 1;",
    "per_thread_trip_count": "for (int i = 0; i < (t % 3); i++) { SYNC; } out[t] = tile[255 - t];",
    "early_exit_then_barrier": "if (t >= 200) return; SYNC; out[t] = tile[255 - t];",
    "in_a_device_function": "if (t < 80) { helper(); out[t] = 1; } else { helper(); out[t] = 2; }",
}

TEMPLATE = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ void helper() { cg::thread_block block = cg::this_thread_block(); SYNC; }
extern "C" __global__ void k(int* out, const int* in)
{
    __shared__ int tile[256];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    tile[t] = in[t];
    BODY
}
'''


def verdict(spelling, body, **kw):
    src = TEMPLATE.replace("BODY", body).replace("SYNC", spelling)
    k = simcore.RawKernel(src, "k")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", simcore.SimWarning)      # exited threads: legal, warned
            k((1,), (256,), (np.zeros(256, np.int32), np.arange(256, dtype=np.int32)), **kw)
    except simcore.KernelFault as f:
        return f.kind, _neutral(f.report["explanation"]), _neutral(f.report.get("warps_text", ""))
    return "ok", "", ""


def _neutral(text):
    """The report with the call's spelling taken out (the source line shows it as written)."""
    if not isinstance(text, str):
        text = " ".join(map(str, text))
    for name in sorted(NAMES, key=len, reverse=True):
        text = text.replace(name, "BARRIER")
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("model", ("independent", "stack"))
@pytest.mark.parametrize("schedule", ("lockstep", "adversarial", "random"))
def test_every_spelling_of_the_block_barrier_gets_one_verdict(shape, model, schedule):
    got = {s: verdict(s, SHAPES[shape], model=model, schedule=schedule) for s in SPELLINGS}
    reference = got["__syncthreads()"]
    for spelling, v in got.items():
        assert v == reference, f"{spelling}: {v[0]} where __syncthreads() gives {reference[0]}\n{v[1]}\n{reference[1]}"


def test_two_call_sites_are_a_divergent_barrier_in_every_spelling():
    for s in SPELLINGS:
        assert verdict(s, SHAPES["if_else_straddling_a_warp"])[0] == "divergent_barrier", s
