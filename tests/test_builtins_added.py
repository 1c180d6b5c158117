"""Built-ins added for real-world CUDA (issue 19): the simulated clock (`clock`, `clock64`,
`__nanosleep`), the CUDA math API's functions and intrinsics, `memcpy`/`memset` in device code."""
import numpy as np
import pytest

import simcore

SPIN = r'''
__global__ void spin(long long *out, int *flag, int cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) { }          // spin for N cycles
    long long mid = clock64();
    unsigned ns = 8;
    if (threadIdx.x == 0) {
        while (atomicAdd(flag, 0) == 0) {           // back-off loop
            __nanosleep(ns);
            if (ns < 256) ns *= 2;
            if (clock64() - mid > 100000) atomicExch(flag, 1);
        }
    }
    clock_t c = clock();
    out[threadIdx.x] = mid - start;
    out[blockDim.x + threadIdx.x] = clock64() - mid;
    out[2 * blockDim.x + threadIdx.x] = c - start;
}
'''


@pytest.mark.parametrize("threads", [1, 64])
def test_spin_and_back_off_loops_on_the_simulated_clock_end(threads):
    k = simcore.RawModule(code=SPIN).get_function("spin")
    runs = []
    for _ in range(2):
        out, flag = np.zeros(3 * threads, np.int64), np.zeros(1, np.int32)
        k((1,), (threads,), (out, flag, np.int32(5000)))
        assert flag[0] == 1
        runs.append(out)
    out = runs[0]
    spun, after, total = out[:threads], out[threads:2 * threads], out[2 * threads:]
    assert (spun >= 5000).all() and (spun < 5000 + 1000).all()    # it spun, and stopped soon after N
    assert after[0] > 100000                                          # thread 0 backed off until the flag
    assert (total >= spun).all() and (after >= 0).all()               # monotone per thread
    np.testing.assert_array_equal(runs[0], runs[1])                   # simulated work, not wall time


def test_nanosleep_advances_only_the_sleeping_thread():
    src = r'''
    __global__ void k(long long *out)
    {
        long long a = clock64();
        if (threadIdx.x == 1) __nanosleep(1000);
        long long b = clock64();
        out[threadIdx.x] = b - a;
    }'''
    out = np.zeros(2, np.int64)
    simcore.RawModule(code=src).get_function("k")((1,), (2,), (out,))
    assert out[1] - out[0] == 2000          # 1000 ns at the nominal 2 cycles per ns


def test_nanosleep_needs_an_integer():
    with pytest.raises(simcore.CompileError, match="__nanosleep"):
        simcore.RawModule(code="__global__ void k(float *p) {\n __nanosleep(p[0]);\n}").get_function("k")
