"""A serial phase (one runnable thread in the wave) runs through the engine's fast loop, with
registers as numpy scalars where a block allows it. It must compute exactly what the general
step loop computes: same values, same steps, same thread-instruction count."""
import numpy as np
import pytest

import simcore
from simcore.engine import scalar_blocks

SERIAL = r"""
__global__ void serial(float *out, unsigned *bits, int *ints, int n)
{
    __shared__ int tile[4];
    int local[3];
    if (threadIdx.x == 0) {
        float acc = 0.0f;
        unsigned h = 2166136261u;
        int m = 7;
        char c = 0;
        long long wide = 1;
        for (int i = 0; i < n; ++i) {
            acc += 0.1f * i;                 // float32 rounding at every step
            h = (h ^ (unsigned)i) * 16777619u;   // unsigned wrap-around
            m = m * 31 + (i >> 2);           // signed overflow wraps (as nvcc does)
            c = (char)(c + 37);              // narrowing
            wide = wide * 3 + (h & 7);
            local[i % 3] = m / (i + 1);      // a division and a local array: the general path
            if (i % 5 == 0)
                tile[i & 3] = (int)acc;
            else
                ints[2] += 1;                // global memory inside the loop
        }
        out[0] = acc;
        bits[0] = h;
        ints[0] = m;
        ints[1] = c + local[0] + local[1] + local[2] + tile[0] + tile[3] + (int)(wide & 1023);
    }
}
"""


def _run(trace):
    k = simcore.RawKernel(SERIAL, "serial")
    out, bits, ints = np.zeros(1, np.float32), np.zeros(1, np.uint32), np.zeros(3, np.int32)
    k((1,), (32,), (out, bits, ints, np.int32(2000)), trace=trace)
    return (out[0], bits[0], tuple(ints)), k.last_launch


def test_the_serial_fast_path_computes_what_the_general_loop_does():
    fast, fast_launch = _run(trace=False)     # no step hook: the fast loop runs
    slow, slow_launch = _run(trace=True)      # the trace watches every step: the general loop
    assert fast == slow
    assert fast_launch.steps == slow_launch.steps
    assert fast_launch.thread_instructions == slow_launch.thread_instructions
    acc = np.float32(0)
    h = 2166136261
    for i in range(2000):
        acc = np.float32(acc + np.float32(np.float32(0.1) * np.float32(i)))
        h = ((h ^ i) * 16777619) & 0xFFFFFFFF
    assert fast[0] == acc and fast[1] == h and fast[2][2] == 2000 - 400


def test_blocks_that_call_the_context_are_not_run_with_a_scalar_lane():
    k = simcore.RawKernel(SERIAL, "serial")
    ok = scalar_blocks(k.program)
    src = k.program.python_source
    for b, scalar in zip(k.program.blocks, ok):
        body = src.split(f"def b{b.id}(R, L, X):")[1].split("\ndef ")[0]
        if "X.ld" in body or "X.st" in body or "X.lget" in body or "X.idiv" in body:
            assert not scalar
    assert any(ok) and not all(ok)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_a_serial_loop_after_a_barrier_phase(n):
    src = r"""
    __global__ void tail(int *out, int n)
    {
        __shared__ int s[64];
        s[threadIdx.x] = threadIdx.x;
        __syncthreads();
        if (threadIdx.x == 0) {
            int total = 0;
            for (int i = 0; i < 64; ++i)
                total += s[i] * n;
            out[0] = total;
        }
    }"""
    out = np.zeros(1, np.int32)
    simcore.RawKernel(src, "tail")((1,), (64,), (out, np.int32(n)))
    assert out[0] == sum(range(64)) * n
