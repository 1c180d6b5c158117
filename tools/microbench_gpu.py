"""Microbenchmarks for the timing model's hardware parameters (not the validation kernels).

    python tools/microbench_gpu.py --out DIR

Needs CuPy and an NVIDIA GPU. Measures, with CUDA events (median of 30 after warm-up):
  * launch: an empty kernel of 1 block and of 132*16 blocks (the floor of any launch);
  * dram: a grid-stride float copy of 2^27 floats (512 MiB each way) -> bytes/s;
  * atomic_same: every thread does one float atomicAdd on ONE address -> ns per atomic;
  * atomic_distinct: every thread adds to its own address (coalesced) -> atomics/s.
Writes DIR/microbench.json.
"""
import argparse
import json
import pathlib
import statistics

SRC = r"""
extern "C" __global__ void empty_kernel(int n) { }
extern "C" __global__ void stride_copy(const float *in, float *out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = in[i];
}
extern "C" __global__ void atomic_same(float *p) { atomicAdd(p, 1.0f); }
extern "C" __global__ void atomic_distinct(float *p)
{
    atomicAdd(p + blockIdx.x * blockDim.x + threadIdx.x, 1.0f);
}
"""


def timed(cp, fn, reps=30, warmup=5):
    """Milliseconds of `fn` (CUDA events around each call), median, min and max of `reps` calls
    after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return {"median_ms": statistics.median(out), "min_ms": min(out), "max_ms": max(out)}


def write_results(out_dir, name, res):
    """Write `res` to out_dir/name as JSON, and print it."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / name).write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=pathlib.Path)
    args = ap.parse_args()
    import cupy as cp
    import numpy as np
    mod = cp.RawModule(code=SRC)
    f = {k: mod.get_function(k) for k in ("empty_kernel", "stride_copy", "atomic_same", "atomic_distinct")}
    res = {"what": __doc__.strip().splitlines()[0]}
    res["launch_1_block"] = timed(cp, lambda: f["empty_kernel"]((1,), (32,), (np.int32(0),)))
    res["launch_2112_blocks_256"] = timed(cp, lambda: f["empty_kernel"]((2112,), (256,), (np.int32(0),)))
    n = 1 << 27
    a = cp.ones(n, cp.float32)
    b = cp.zeros(n, cp.float32)
    for grid, block in ((132 * 8, 256), (132 * 32, 256), (n // 256, 256)):
        r = timed(cp, lambda: f["stride_copy"]((grid,), (block,), (a, b, np.int64(n))))
        r["bytes"] = 8 * n
        r["bytes_per_s"] = 8 * n / (r["median_ms"] * 1e-3)
        res[f"dram_copy_grid{grid}_block{block}"] = r
    del a, b
    p = cp.zeros(1 << 24, cp.float32)
    for threads in (1 << 20, 1 << 22):
        r = timed(cp, lambda: f["atomic_same"]((threads // 256,), (256,), (p,)))
        r["atomics"] = threads
        r["ns_per_atomic"] = r["median_ms"] * 1e6 / threads
        res[f"atomic_same_{threads}"] = r
    r = timed(cp, lambda: f["atomic_distinct"](((1 << 24) // 256,), (256,), (p,)))
    r["atomics"] = 1 << 24
    r["atomics_per_s"] = (1 << 24) / (r["median_ms"] * 1e-3)
    res["atomic_distinct_2^24"] = r
    write_results(args.out, "microbench.json", res)


if __name__ == "__main__":
    main()
