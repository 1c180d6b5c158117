"""The benchmark workloads for Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), a peer of simcore.

Run by `python -m simcore.bench` in a subprocess (the variable must be set before numba is
imported), one workload and size per call; prints one JSON line:

    python benchmarks/numba_kernels.py --workload reverse --n 65536
    {"workload": "reverse", "n": 65536, "seconds": 51.2, "ok": true}

Install (not a project dependency): `pip install numba` (the simulator ships with numba; newer
releases move the CUDA target to `numba-cuda`, which also honours NUMBA_ENABLE_CUDASIM). No GPU is
needed. The simulator runs every thread as a Python thread, so it is slow: the benchmark uses it
for lesson-sized launches and for 2^16 threads of the reverse kernel only. It has no warp shuffles
(`cuda.shfl_down_sync` is missing from the simulator), so the warp-shuffle workload is not run.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
from numba import cuda, float32  # noqa: E402

K = 8


@cuda.jit
def reverse(out, x):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    g = cuda.blockIdx.x * cuda.blockDim.x + t
    tile[t] = x[g]
    cuda.syncthreads()
    out[g] = tile[cuda.blockDim.x - 1 - t]


@cuda.jit
def reduce(out, x):
    s = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.blockIdx.x * cuda.blockDim.x + t]
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit
def stencil(out, x):
    buf = cuda.shared.array(260, float32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    g = cuda.blockIdx.x * n + t
    buf[t + 1] = x[g]
    if t == 0:
        buf[0] = 0.0
        buf[130] = 0.0
    if t == n - 1:
        buf[t + 2] = 0.0
        buf[130 + t + 2] = 0.0
    cuda.syncthreads()
    for k in range(K):
        src = (k & 1) * 130
        dst = 130 - src
        buf[dst + t + 1] = (float32(0.25) * buf[src + t] + float32(0.5) * buf[src + t + 1]
                            + float32(0.25) * buf[src + t + 2])
        cuda.syncthreads()
    out[g] = buf[(K & 1) * 130 + t + 1]


WORKLOADS = {
    # name: (kernel, block, output length for n threads)
    "reverse": (reverse, 256, lambda n: n),
    "reduce": (reduce, 256, lambda n: n // 256),
    "stencil": (stencil, 128, lambda n: n),
}


def expected(name, x):
    if name == "reverse":
        return x.reshape(-1, 256)[:, ::-1].ravel()
    if name == "reduce":
        return x.reshape(-1, 256).astype(np.float64).sum(axis=1)
    a = x.reshape(-1, 128).astype(np.float64)
    for _ in range(K):
        p = np.pad(a, ((0, 0), (1, 1)))
        a = 0.25 * p[:, :-2] + 0.5 * p[:, 1:-1] + 0.25 * p[:, 2:]
    return a.ravel()


def run(name, n, out_path=None):
    kern, block, out_len = WORKLOADS[name]
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    out = np.zeros(out_len(n), np.float32)
    t0 = time.perf_counter()
    kern[n // block, block](out, x)
    seconds = time.perf_counter() - t0
    ok = bool(np.allclose(out, expected(name, x), rtol=1e-4, atol=1e-4))
    if out_path:
        np.save(out_path, out)      # benchmarks.bench checks it (exact or allclose)
    return {"workload": name, "n": n, "seconds": seconds, "ok": ok}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=sorted(WORKLOADS), required=True)
    ap.add_argument("--n", type=int, required=True, help="number of threads")
    ap.add_argument("--out", help="save the output array here (.npy)")
    a = ap.parse_args(argv)
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        sys.exit("set NUMBA_ENABLE_CUDASIM=1")
    print(json.dumps(run(a.workload, a.n, a.out)))


if __name__ == "__main__":
    main()
