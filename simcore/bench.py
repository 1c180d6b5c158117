"""simcore's benchmark: how fast the simulator runs the course's workloads, next to its peers.

    python -m simcore.bench                 # 2^16 and 2^20 threads, peers where installed
    python -m simcore.bench --quick         # 2^12 and 2^16 threads, small peer runs
    python -m simcore.bench --sizes 14,18   # sizes as powers of two (or plain thread counts)
    python -m simcore.bench --no-peers

Workloads (CUDA C, run by simcore; the same algorithms for the peers):
  reverse   reverse a tile in shared memory, blocks of 256, one barrier;
  reduce    shared-memory tree reduction, blocks of 256, one barrier per level (9 barriers);
  shuffle   warp reduction with five __shfl_down_sync, blocks of 256;
  stencil   3-point stencil iterated K=8 times on a tile of 128 (blocks of 128), a barrier each step.

For each size: wall time of the launch (compilation and a warm-up launch excluded; best of 3
launches up to 2^16 threads, one launch above), simulated
thread-instructions per second (Launch.thread_instructions / time), with all checks on and all
off, and the peak memory the launch allocated: tracemalloc's peak over the launch, measured in a
separate untimed run (numpy reports its buffers to tracemalloc, so this is the simulator's
working set, not the process RSS). Plus a lesson-sized launch (8 blocks x 256 threads), and
the cost of one timing-model estimate (kernel.estimate) of each workload at 2^24 threads.
Every output is checked against numpy.

Peers (optional, never project dependencies; skipped with a note when missing):
  * Oclgrind, an OpenCL device simulator with a data-race detector:
        apt-get install oclgrind            (Debian/Ubuntu; provides oclgrind-kernel)
    The OpenCL C kernels are benchmarks/opencl/*.cl; each run writes a .sim file and calls
    `oclgrind-kernel [--data-races] file.sim`. Its time includes starting the process and
    compiling the kernel (about 0.1-0.2 s). Oclgrind has no sub-group functions, so its
    "shuffle" kernel does the five steps through local memory with barriers.
  * Numba's CUDA simulator (Python threads, one per CUDA thread):
        pip install numba                   (or numba-cuda; it ships the simulator)
    run with NUMBA_ENABLE_CUDASIM=1 in a subprocess: benchmarks/numba_kernels.py.
    Point --numba-python at an interpreter that has numba if this one has not. It is very
    slow, so it runs the lesson-sized launches and 2^16 threads of reverse only, and it has
    no warp shuffles (no "shuffle" run).
Ratios are peer time / simcore time: Oclgrind without race detection against simcore with
checks off, Oclgrind --data-races against simcore with checks on, Numba's simulator against
simcore with checks off.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings

import numpy as np

K_STEPS = 8

SOURCE = r"""
__global__ void reverse(float *out, const float *in)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    tile[t] = in[g];
    __syncthreads();
    out[g] = tile[blockDim.x - 1 - t];
}

__global__ void reduce(float *out, const float *in)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void shuffle(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    v += __shfl_down_sync(0xffffffff, v, 16);
    v += __shfl_down_sync(0xffffffff, v, 8);
    v += __shfl_down_sync(0xffffffff, v, 4);
    v += __shfl_down_sync(0xffffffff, v, 2);
    v += __shfl_down_sync(0xffffffff, v, 1);
    if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}

__global__ void stencil(float *out, const float *in)
{
    __shared__ float buf[260];
    int t = threadIdx.x;
    int n = blockDim.x;
    buf[t + 1] = in[blockIdx.x * n + t];
    if (t == 0) { buf[0] = 0.0f; buf[130] = 0.0f; }
    if (t == n - 1) { buf[t + 2] = 0.0f; buf[130 + t + 2] = 0.0f; }
    __syncthreads();
    for (int k = 0; k < K; ++k) {
        int src = (k & 1) * 130;
        int dst = 130 - src;
        buf[dst + t + 1] = 0.25f * buf[src + t] + 0.5f * buf[src + t + 1] + 0.25f * buf[src + t + 2];
        __syncthreads();
    }
    out[blockIdx.x * n + t] = buf[(K & 1) * 130 + t + 1];
}
"""

# name: (block size, output length for n threads, OpenCL file, Numba workload or None)
WORKLOADS = {
    "reverse": (256, lambda n: n, "reverse.cl", "reverse"),
    "reduce": (256, lambda n: n // 256, "reduce.cl", "reduce"),
    "shuffle": (256, lambda n: n // 32, "warp_reduce.cl", None),
    "stencil": (128, lambda n: n, "stencil.cl", "stencil"),
}
OCL_KERNEL = {"reverse": "reverse", "reduce": "reduce", "shuffle": "warp_reduce", "stencil": "stencil"}
LESSON = 8 * 256


def expected(name, x):
    if name == "reverse":
        return x.reshape(-1, 256)[:, ::-1].ravel()
    if name == "reduce":
        return x.reshape(-1, 256).astype(np.float64).sum(axis=1)
    if name == "shuffle":
        return x.reshape(-1, 32).astype(np.float64).sum(axis=1)
    a = x.reshape(-1, 128).astype(np.float64)
    for _ in range(K_STEPS):
        p = np.pad(a, ((0, 0), (1, 1)))
        a = 0.25 * p[:, :-2] + 0.5 * p[:, 1:-1] + 0.25 * p[:, 2:]
    return a.ravel()


def inputs(n):
    return np.random.default_rng(0).standard_normal(n).astype(np.float32)


# ===================================================================== simcore
_MODULE = None


def module():
    global _MODULE
    if _MODULE is None:
        import simcore
        _MODULE = simcore.RawModule(code=SOURCE, options=(f"-DK={K_STEPS}",))
    return _MODULE


_WARM = set()


def run_simcore(name, n, checks, memory=False, repeat=None):
    """One workload at n threads: best wall time of `repeat` launches (after a warm-up launch)."""
    block, out_len, _, _ = WORKLOADS[name]
    kern = module().get_function(name)
    x = inputs(n)
    out = np.zeros(out_len(n), np.float32)
    if repeat is None:
        repeat = 3 if n <= 2 ** 16 else 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if (name, checks) not in _WARM:
            _WARM.add((name, checks))
            xs = inputs(LESSON)
            kern((LESSON // block,), (block,), (np.zeros(out_len(LESSON), np.float32), xs), checks=checks)
        if memory:
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            kern((n // block,), (block,), (out, x), checks=checks)
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            return {"peak_bytes": peak}
        seconds = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            kern((n // block,), (block,), (out, x), checks=checks)
            seconds = min(seconds, time.perf_counter() - t0)
    launch = kern.last_launch
    ok = bool(np.allclose(out, expected(name, x), rtol=1e-4, atol=1e-4))
    return {"seconds": seconds, "thread_instructions": launch.thread_instructions,
            "tips": launch.thread_instructions / seconds if seconds else float("nan"), "ok": ok}


# ===================================================================== peers
ESTIMATE_N = 2 ** 24


def run_estimate(name, n=ESTIMATE_N):
    """Wall time of one timing-model estimate (simcore.perf, H200) of the workload at n threads:
    a sample of the blocks is simulated, not the launch."""
    block, out_len, _, _ = WORKLOADS[name]
    kern = module().get_function(name)
    x = inputs(n)
    out = np.zeros(out_len(n), np.float32)
    kern.estimate((n // block,), (block,), (out, x))            # warm-up (caches, imports)
    t0 = time.perf_counter()
    est = kern.estimate((n // block,), (block,), (out, x))
    return {"seconds": time.perf_counter() - t0, "model_ms": est.time_ms, "bound": est.bound,
            "sampled_blocks": len(est.sampled_blocks)}


def benchmarks_dir():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    d = os.path.join(here, "benchmarks")
    return d if os.path.isdir(d) else None


def oclgrind_available():
    return shutil.which("oclgrind-kernel") is not None and benchmarks_dir() is not None


def run_oclgrind(name, n, races, check=False, timeout=900):
    block, out_len, cl, _ = WORKLOADS[name]
    cl_path = os.path.join(benchmarks_dir(), "opencl", cl)
    x = inputs(n)
    with tempfile.TemporaryDirectory() as tmp:
        sim = os.path.join(tmp, "run.sim")
        if check:   # the benchmark's inputs, inline (small launches only)
            data = f"<size={4 * n} float>\n" + " ".join(f"{v:.9g}" for v in x) + "\n"
        else:       # timing runs: generated by Oclgrind, no parsing of a large text file
            data = f"<size={4 * n} float range=0:1:{n - 1}>\n"
        with open(sim, "w") as f:
            f.write(f"{cl_path}\n{OCL_KERNEL[name]}\n{n} 1 1\n{block} 1 1\n\n"
                    f"<size={4 * out_len(n)} float fill=0{' dump' if check else ''}>\n" + data)
        cmd = ["oclgrind-kernel", "--build-options", f"-DK={K_STEPS}"] + (["--data-races"] if races else []) + [sim]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                              timeout=timeout)
        seconds = time.perf_counter() - t0
    result = {"seconds": seconds, "ok": proc.returncode == 0 and "error" not in proc.stdout.lower()}
    if check and result["ok"]:
        vals = [float(line.split("=")[1]) for line in proc.stdout.splitlines() if line.strip().startswith("out[")]
        result["ok"] = bool(np.allclose(np.array(vals), expected(name, x), rtol=1e-4, atol=1e-4))
    if not result["ok"]:
        result["error"] = proc.stdout[-500:]
    return result


def numba_python(arg):
    candidates = [arg] if arg else [os.environ.get("SIMCORE_BENCH_NUMBA_PYTHON"), sys.executable]
    for py in candidates:
        if not py:
            continue
        probe = subprocess.run([py, "-c", "import numba"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode == 0:
            return py
    return None


def run_numba(py, name, n, timeout=900):
    script = os.path.join(benchmarks_dir(), "numba_kernels.py")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([py, script, "--workload", WORKLOADS[name][3], "--n", str(n)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if proc.returncode != 0:
        return {"seconds": float("nan"), "ok": False, "error": proc.stderr[-500:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ===================================================================== report
def fmt_s(s):
    if s != s:
        return "-"
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def fmt_n(n):
    e = int(np.log2(n))
    return f"2^{e}" if 2 ** e == n else str(n)


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[k])) for r in rows)) for k, h in enumerate(headers)]
    line = "  ".join(str(h).ljust(w) for h, w in zip(headers, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def parse_sizes(text):
    sizes = []
    for part in text.split(","):
        v = int(part)
        sizes.append(2 ** v if v <= 30 else v)
    return sizes


def machine():
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m simcore.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 2^12 and 2^16, small peer runs")
    ap.add_argument("--sizes", help="comma-separated sizes: powers of two (16,20) or thread counts")
    ap.add_argument("--no-peers", action="store_true", help="do not run Oclgrind or Numba's simulator")
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated subset")
    ap.add_argument("--numba-python", help="python interpreter with numba installed (default: this one)")
    ap.add_argument("--peer-budget", type=float, default=120.0,
                    help="skip a peer run predicted to take longer than this many seconds (default 120)")
    ap.add_argument("--json", help="also write the raw results to this file")
    a = ap.parse_args(argv)
    sizes = parse_sizes(a.sizes) if a.sizes else ([2 ** 12, 2 ** 16] if a.quick else [2 ** 16, 2 ** 20])
    names = [w for w in a.workloads.split(",") if w]
    results = {"machine": machine(), "simcore": [], "lesson": [], "oclgrind": [], "numba": []}
    print(f"simcore benchmark on {results['machine']}")
    t0 = time.perf_counter()
    module()
    print(f"compiling the four kernels: {fmt_s(time.perf_counter() - t0)}\n")

    rows = []
    sim = {}
    for name in names:
        for n in sizes:
            on = run_simcore(name, n, True)
            off = run_simcore(name, n, False)
            mem_on = run_simcore(name, n, True, memory=True)["peak_bytes"]
            mem_off = run_simcore(name, n, False, memory=True)["peak_bytes"]
            sim[(name, n)] = (on, off)
            results["simcore"].append({"workload": name, "n": n, "checks_on": on, "checks_off": off,
                                       "peak_bytes_on": mem_on, "peak_bytes_off": mem_off})
            rows.append([name, fmt_n(n), fmt_s(on["seconds"]), f"{on['tips'] / 1e6:.1f}", fmt_s(off["seconds"]),
                         f"{off['tips'] / 1e6:.1f}", f"{mem_on / 2 ** 20:.0f} / {mem_off / 2 ** 20:.0f}",
                         "yes" if on["ok"] and off["ok"] else "NO"])
            print(f"  ran {name} at {fmt_n(n)}", file=sys.stderr)
    print(table(["workload", "threads", "checks on", "M thr-inst/s", "checks off", "M thr-inst/s",
                 "peak MiB on/off", "exact"], rows))
    print("(peak MiB: tracemalloc peak of the launch, separate untimed run)\n")

    rows = []
    for name in names:
        on = run_simcore(name, LESSON, True)
        off = run_simcore(name, LESSON, False)
        sim[(name, LESSON)] = (on, off)
        results["lesson"].append({"workload": name, "n": LESSON, "checks_on": on, "checks_off": off})
        rows.append([name, fmt_s(on["seconds"]), fmt_s(off["seconds"])])
    print("lesson-sized launch, 8 blocks x 256 threads (stencil: 16 x 128)")
    print(table(["workload", "checks on", "checks off"], rows))
    print()

    rows = []
    results["estimate"] = []
    for name in names:
        r = run_estimate(name)
        results["estimate"].append({"workload": name, "n": ESTIMATE_N} | r)
        rows.append([name, fmt_n(ESTIMATE_N), fmt_s(r["seconds"]), str(r["sampled_blocks"]),
                     f"{r['model_ms']:.4f}", r["bound"]])
    print("cost of a timing-model estimate (kernel.estimate, H200; a sample of the blocks is simulated)")
    print(table(["workload", "threads", "estimate took", "blocks simulated", "model ms", "bound"], rows))
    print()

    if a.no_peers:
        return results_out(a, results)
    bdir = benchmarks_dir()
    if bdir is None:
        print("peers: benchmarks/ not found next to simcore (run from a source checkout)")
        return results_out(a, results)

    # ------------------------------------------------------------------ Oclgrind
    if not oclgrind_available():
        print("Oclgrind: not installed (apt-get install oclgrind); skipped\n")
    else:
        rows = []
        peer_sizes = [LESSON] + sizes
        for name in names:
            chk = run_oclgrind(name, LESSON, False, check=True)
            last = None
            for n in peer_sizes:
                if (name, n) not in sim:
                    sim[(name, n)] = (run_simcore(name, n, True), run_simcore(name, n, False))
                on, off = sim[(name, n)]
                if last is not None and last[1] * n / last[0] > a.peer_budget:
                    rows.append([name, fmt_n(n), fmt_s(off["seconds"]), "skipped", "-", fmt_s(on["seconds"]),
                                 "skipped", "-", "-"])
                    continue
                plain = run_oclgrind(name, n, False)
                racy = run_oclgrind(name, n, True)
                last = (n, max(plain["seconds"], racy["seconds"]))
                results["oclgrind"].append({"workload": name, "n": n, "plain": plain, "data_races": racy})
                rows.append([name, fmt_n(n), fmt_s(off["seconds"]), fmt_s(plain["seconds"]),
                             f"{plain['seconds'] / off['seconds']:.1f}x", fmt_s(on["seconds"]),
                             fmt_s(racy["seconds"]), f"{racy['seconds'] / on['seconds']:.1f}x",
                             "yes" if chk["ok"] and plain["ok"] and racy["ok"] else "NO"])
                print(f"  oclgrind {name} at {fmt_n(n)}", file=sys.stderr)
        print("Oclgrind (oclgrind-kernel; time includes process start and kernel compilation)")
        print(table(["workload", "threads", "simcore off", "oclgrind", "ratio", "simcore on",
                     "oclgrind --data-races", "ratio", "ok"], rows))
        print("(ratio = Oclgrind time / simcore time; Oclgrind's 'shuffle' uses local memory + barriers)\n")

    # ------------------------------------------------------------------ Numba
    py = numba_python(a.numba_python)
    if py is None:
        print("Numba's CUDA simulator: numba not installed (pip install numba, or pass --numba-python); skipped")
    else:
        rows = []
        runs = [(name, LESSON) for name in names if WORKLOADS[name][3]]
        if "reverse" in names:
            runs.append(("reverse", 2 ** 12 if a.quick else 2 ** 16))
        for name, n in runs:
            if (name, n) not in sim:
                sim[(name, n)] = (run_simcore(name, n, True), run_simcore(name, n, False))
            on, off = sim[(name, n)]
            r = run_numba(py, name, n)
            results["numba"].append(r | {"workload": name, "n": n})
            rows.append([name, fmt_n(n), fmt_s(off["seconds"]), fmt_s(r["seconds"]),
                         f"{r['seconds'] / off['seconds']:.0f}x", "yes" if r.get("ok") else "NO"])
            print(f"  numba {name} at {fmt_n(n)}", file=sys.stderr)
        if "shuffle" in names:
            rows.append(["shuffle", "-", "-", "n/a", "-", "(no shuffles in the simulator)"])
        print(f"Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, {py})")
        print(table(["workload", "threads", "simcore off", "numba sim", "ratio", "ok"], rows))
        print("(ratio = Numba simulator time / simcore time; too slow for larger launches)")
    return results_out(a, results)


def results_out(a, results):
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
