"""Microbenchmarks, part 2: block dispatch rate and L2 bandwidth (not the validation kernels).

    python tools/microbench_dispatch.py --out DIR

Needs CuPy and an NVIDIA GPU. CUDA events, median of 30 after warm-up.
  * dispatch: an empty kernel (one store by thread 0 of block 0) with 2^24/B blocks of B
    threads, B = 32..1024, and with 2^16 blocks of 32 -> ns per block beyond the launch floor;
  * l2_read: a grid-stride sum over a 16 MiB buffer that stays in L2 -> bytes/s;
  * shared: each thread reads shared memory 4096 times (conflict-free) -> bytes/cycle/SM.
Writes DIR/microbench2.json.
"""
import argparse
import pathlib

from microbench_gpu import timed, write_results   # part 1, next to this script

SRC = r"""
extern "C" __global__ void nearly_empty(float *p) { if (blockIdx.x == 0 && threadIdx.x == 0) p[0] = 1.0f; }
extern "C" __global__ void l2_read(const float *in, float *out, int n, int reps)
{
    float acc = 0.0f;
    for (int r = 0; r < reps; r++)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            acc += in[(i + r * 32) % n];
    if (acc == 12345.0f) out[0] = acc;
}
extern "C" __global__ void shared_read(float *out, int reps)
{
    __shared__ float s[1024];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float acc = 0.0f;
    int j = threadIdx.x;
    for (int r = 0; r < reps; r++) {
        acc += s[j];
        j = (j + 32) & 1023;
    }
    if (acc == 12345.0f) out[0] = acc;
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=pathlib.Path)
    args = ap.parse_args()
    import cupy as cp
    import numpy as np
    mod = cp.RawModule(code=SRC)
    f = {k: mod.get_function(k) for k in ("nearly_empty", "l2_read", "shared_read")}
    p = cp.zeros(1 << 22, cp.float32)
    res = {"what": __doc__.strip().splitlines()[0]}
    for b in (32, 64, 128, 256, 512, 1024):
        g = (1 << 24) // b
        r = timed(cp, lambda: f["nearly_empty"]((g,), (b,), (p,)))
        r["blocks"] = g
        res[f"dispatch_block{b}"] = r
    res["dispatch_65536x32"] = timed(cp, lambda: f["nearly_empty"]((65536,), (32,), (p,)))
    res["dispatch_1x32"] = timed(cp, lambda: f["nearly_empty"]((1,), (32,), (p,)))
    n = 1 << 22
    for reps in (8, 32):
        r = timed(cp, lambda: f["l2_read"]((132 * 8,), (256,), (p, p, np.int32(n), np.int32(reps))))
        r["bytes"] = 4 * n * reps
        r["bytes_per_s"] = 4 * n * reps / (r["median_ms"] * 1e-3)
        res[f"l2_read_reps{reps}"] = r
    r = timed(cp, lambda: f["shared_read"]((132 * 2,), (1024,), (p, np.int32(4096))))
    r["bytes"] = 132 * 2 * 1024 * 4096 * 4
    r["bytes_per_s"] = r["bytes"] / (r["median_ms"] * 1e-3)
    res["shared_read"] = r
    write_results(args.out, "microbench2.json", res)


if __name__ == "__main__":
    main()
