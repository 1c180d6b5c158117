"""simcore's benchmark: how fast the simulator runs the course's workloads and the worst cases
for its design, next to its peers, with every output checked.

    python -m simcore.bench                 # 2^16 and 2^20 threads, worst cases, peers where installed
    python -m simcore.bench --quick         # 2^12 and 2^16 threads, small worst cases
    python -m simcore.bench --sizes 14,18   # sizes as powers of two (or plain thread counts)
    python -m simcore.bench --no-peers --no-worst
    python -m simcore.bench --baseline /tmp/simcore-base --profile    # before/after table, profile

Options: --workloads reverse,reduce (a subset), --repeat N (timed runs per point, default 3),
--peer-budget S (seconds a peer, or the baseline, may spend on one point; default 300),
--memory-size / --profile-size (threads, as for --sizes; default 20, i.e. 2^20), --no-memory,
--numba-python PY, --json FILE (the raw results, the before/after points and the profile included).

Workloads (CUDA C, run by simcore; the same algorithms for the peers):
  reverse   reverse a tile in shared memory, blocks of 256, one barrier;
  reduce    shared-memory tree reduction, blocks of 256, one barrier per level (9 barriers);
  shuffle   warp reduction with five __shfl_down_sync, blocks of 256;
  stencil   3-point stencil iterated K=8 times on a tile of 128 (blocks of 128), a barrier each step.
Schedules (--no-schedules to skip; --schedule-budget S, default 120): every course workload at
every size with checks on under each schedule (lockstep, adversarial, round_robin, random: the
last three are what every exercise's hidden tests run), interleaved point by point, CPU time
(time.process_time) of one launch, the ratio to lockstep, the steps and the output checked.
Worst cases (what a lane-group simulator pays most for; fixed sizes):
  serial loop   one thread runs a 10^5-iteration loop (a per-step cost, whatever the lanes);
  grid-stride   one block of 256 threads walks 2^20 elements (4096 narrow steps);
  barriers      blocks of 1024 threads, 65 barriers each, 2^16 threads;
  matmul        512 x 512 tiled matrix product, 16 x 16 tiles (64 barriers per block).

Every point is timed `--repeat` times (default 3; the first launch of a kernel is an untimed
warm-up) and reported as the median with the range [min-max]. Every output of every run, of
simcore and of each peer at every size, is compared with a reference computed in numpy in the
kernel's own float32 order: "exact" means bit-for-bit equal, "allclose" within rtol=atol=1e-4
(e.g. a peer that fuses a*b+c), "WRONG" otherwise. Thread-instructions per second =
Launch.thread_instructions / median time. Peak memory: tracemalloc's peak over one launch
(separate untimed run; numpy reports its buffers to it): the simulator's working set. The memory
line: process RSS after each of 20 launches of the 2^20 reduction in a fresh process with the
cyclic garbage collector off (a launch must free everything by reference counting alone).

Peers (optional, never project dependencies; skipped with a note when missing):
  * Oclgrind, an OpenCL device simulator with a data-race detector:
        apt-get install oclgrind            (Debian/Ubuntu; provides oclgrind-kernel)
    The OpenCL C kernels are benchmarks/opencl/*.cl; each run writes a .sim file and calls
    `oclgrind-kernel [--data-races] file.sim`. Its time includes starting the process and
    compiling the kernel (about 0.1-0.2 s). Timed runs let Oclgrind generate the inputs; one
    more, untimed run per point passes the benchmark's inputs as bit patterns and dumps the
    output, which is checked. A point predicted (or found) to exceed --peer-budget seconds is
    run fewer times or not at all, and the table says so. Oclgrind has no sub-group
    functions, so its "shuffle" kernel does the five steps through local memory with barriers.
  * Numba's CUDA simulator (Python threads, one per CUDA thread):
        pip install numba                   (or numba-cuda; it ships the simulator)
    run with NUMBA_ENABLE_CUDASIM=1 in a subprocess: benchmarks/numba_kernels.py, which saves
    its output for the check. Point --numba-python at an interpreter that has numba if this one
    has not. It is very slow, so it runs the lesson-sized launches and 2^16 threads of reverse
    only, and it has no warp shuffles (no "shuffle" run).
Before/after (--baseline DIR): DIR is another simcore source tree, the directory that holds
simcore/ (for the state before issue 13's work: `git worktree add /tmp/simcore-base 85ffb5f`; the
header names its commit, `git rev-parse --short HEAD`, when DIR is a git tree, "+ uncommitted
changes" when its simcore/ differs from it). DIR and this tree each run in their own worker
process with PYTHONPATH=<tree>, where simcore is importable from that tree only (checked:
simcore.__file__ must lie under it; an editable install of the project is made unimportable
there); a DIR that has no simcore or whose simcore fails to import stops the benchmark at once
with an error naming DIR. For every course point and worst case, checks on and off, the two
processes run in turn (baseline, current, baseline, current, ...; an untimed first launch of each
kernel in each process), so that a change of the machine's load hits both; the table gives each
side's median [range] of CPU time (time.process_time of the launch in the worker), the speedup
(baseline median / current median), and each side's output of every run checked against the same
numpy reference (exact / allclose / WRONG; a launch that raises counts as WRONG, with the error in
the note). Launch options an older tree does not accept are not passed (max_steps only where the
kernel's __call__ names it). The baseline follows the peers' budget rule: a launch may take at
most --peer-budget seconds (then it is stopped and the note says so); when the first timed run
says that --repeat runs would exceed the budget, floor(budget / first run) runs are made (at least
1) and the note says "k of N runs (over budget)". Nothing is skipped silently. The memory line is
measured for the baseline too (its own fresh process).

Profile (--profile): cProfile of one launch of the reduction (--profile-size, default 2^20) with
checks on, after an untimed warm-up launch, in this process: the top 10 functions by own time
(tottime), each with its share of the launch's total own time under the profiler.

Ratios are peer median / simcore median: Oclgrind without race detection against simcore with
checks off, Oclgrind --data-races against simcore with checks on, Numba's simulator against
simcore with checks off. The Oclgrind table runs simcore and Oclgrind in turn, point by point, in
CPU time and wall time, and is followed by the whole-process line (a fresh python: import,
compile, one launch, against one whole oclgrind-kernel process): simcore/bench_peers.py.
--notebooks times Run All of every lesson and solution instead: simcore/bench_notebooks.py.
"""
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
RTOL = ATOL = 1e-4

# the tree reduction, also the kernel of the memory line (and of tests/simcore/runtime/test_launch_memory.py)
REDUCE = r"""
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
"""

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
""" + REDUCE + r"""
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

WORST_SOURCE = r"""
__global__ void serial_loop(unsigned *out, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        unsigned h = 1u;
        for (int i = 0; i < n; ++i)
            h = h * 1664525u + (unsigned)i;
        out[0] = h;
    }
}

__global__ void grid_stride(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * in[i] + 1.0f;
}

__global__ void barriers(float *out, const float *in)
{
    __shared__ float s[1024];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 1024 + t];
    __syncthreads();
    for (int k = 0; k < 32; ++k) {
        float v = s[(t + 1) & 1023];
        __syncthreads();
        s[t] = v + 1.0f;
        __syncthreads();
    }
    out[blockIdx.x * 1024 + t] = s[t];
}

#define TILE 16
__global__ void matmul(float *C, const float *A, const float *B, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
"""

# One lane's checked memory accesses in a loop (the race and uninitialised-value checks' one-lane
# fast path): a lone thread's global read-modify-write, and a block whose thread 0 scans shared
# memory between barriers every round (a convergence loop's test).
NARROW_SOURCE = r"""
__global__ void lone_rmw(unsigned *out, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        for (int i = 0; i < n; ++i)
            out[i & 1023] = out[i & 1023] * 3u + (unsigned)i;
}

__global__ void lone_scan(unsigned *out, int rounds)
{
    __shared__ unsigned s[256];
    int t = threadIdx.x;
    s[t] = t;
    unsigned total = 0u;
    for (int r = 0; r < rounds; ++r) {
        __syncthreads();
        s[t] += 1u;
        __syncthreads();
        if (t == 0)
            for (int i = 0; i < 256; ++i)
                total += s[i];
    }
    if (t == 0)
        out[0] = total;
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


def reference(name, x):
    """The workload's output computed in numpy in the kernel's own float32 order (a bit-exact
    simulator matches it exactly)."""
    f = np.float32
    if name == "reverse":
        return x.reshape(-1, 256)[:, ::-1].ravel()
    if name == "reduce":
        a = x.reshape(-1, 256)
        while a.shape[1] > 1:                   # s[t] += s[t + stride], stride = 128, 64, ...
            h = a.shape[1] // 2
            a = a[:, :h] + a[:, h:]
        return a[:, 0]
    if name == "shuffle":
        a = x.reshape(-1, 32)
        for d in (16, 8, 4, 2, 1):              # lane j < d: v += v of lane j + d
            a = a[:, :d] + a[:, d:2 * d]
        return a[:, 0]
    a = x.reshape(-1, 128)
    for _ in range(K_STEPS):
        p = np.pad(a, ((0, 0), (1, 1)))
        a = f(0.25) * p[:, :-2] + f(0.5) * p[:, 1:-1] + f(0.25) * p[:, 2:]
    return a.ravel()


def verdict(out, ref):
    """'exact' (bit for bit), 'allclose' (within 1e-4) or 'WRONG'."""
    out, ref = np.asarray(out).ravel(), np.asarray(ref).ravel()
    if out.shape != ref.shape:
        return "WRONG"
    if np.array_equal(out.view(np.uint8), ref.astype(out.dtype).view(np.uint8)):
        return "exact"
    if np.allclose(out.astype(np.float64), ref.astype(np.float64), rtol=RTOL, atol=ATOL):
        return "allclose"
    return "WRONG"


def worst_verdict(verdicts):
    order = ["exact", "allclose", "WRONG"]
    return max(verdicts, key=order.index) if verdicts else "-"


def inputs(n):
    return np.random.default_rng(0).standard_normal(n).astype(np.float32)


# ===================================================================== cases
class Case:
    """One launch to time: the simcore kernel, its grid, its arguments (fresh per run), which
    argument is the output, and the same launch for Oclgrind."""

    def __init__(self, label, size, kernel, grid, block, make_args, out_index, ref, ocl=None, source=None):
        self.label, self.size, self.kernel = label, size, kernel
        self.source = source    # the CUDA source holding the kernel (None: SOURCE or WORST_SOURCE)
        self.grid, self.block = grid, block
        self.make_args, self.out_index, self.ref = make_args, out_index, ref
        self.ocl = ocl      # (cl file, kernel name, global size, local size, [OpenCL argument specs])


def course_case(name, n):
    block, out_len, cl, _ = WORKLOADS[name]
    x = inputs(n)
    return Case(name, fmt_n(n), name, (n // block,), (block,),
                lambda: [np.zeros(out_len(n), np.float32), x], 0, reference(name, x),
                (cl, OCL_KERNEL[name], (n, 1, 1), (block, 1, 1), [("out", np.float32, out_len(n)), ("in", x)]))


def worst_cases(quick=False):
    rng = np.random.default_rng(1)
    cases = []
    iters = 10 ** 4 if quick else 10 ** 5
    h = 1
    for i in range(iters):
        h = (h * 1664525 + i) & 0xFFFFFFFF
    cases.append(Case("serial loop", f"1 thread, {iters:,} iterations", "serial_loop", (1,), (1,),
                      lambda iters=iters: [np.zeros(1, np.uint32), np.int32(iters)], 0, np.array([h], np.uint32),
                      ("worst.cl", "serial_loop", (1, 1, 1), (1, 1, 1), [("out", np.uint32, 1), ("int", iters)])))
    n = 2 ** 16 if quick else 2 ** 20
    x = rng.standard_normal(n).astype(np.float32)
    cases.append(Case("grid-stride", f"1 block x 256, {fmt_n(n)} elements", "grid_stride", (1,), (256,),
                      lambda n=n, x=x: [np.zeros(n, np.float32), x, np.int32(n)], 0, np.float32(2) * x + np.float32(1),
                      ("worst.cl", "grid_stride", (256, 1, 1), (256, 1, 1),
                       [("out", np.float32, n), ("in", x), ("int", n)])))
    n = 2 ** 13 if quick else 2 ** 16
    x = rng.standard_normal(n).astype(np.float32)
    a = x.reshape(-1, 1024)
    for _ in range(32):
        a = np.roll(a, -1, axis=1) + np.float32(1)
    cases.append(Case("barriers", f"{n // 1024} blocks x 1024, 65 barriers", "barriers", (n // 1024,), (1024,),
                      lambda n=n, x=x: [np.zeros(n, np.float32), x], 0, a.ravel(),
                      ("worst.cl", "barriers", (n, 1, 1), (1024, 1, 1), [("out", np.float32, n), ("in", x)])))
    m = 128 if quick else 512
    A = rng.standard_normal((m, m)).astype(np.float32)
    B = rng.standard_normal((m, m)).astype(np.float32)
    C = np.zeros((m, m), np.float32)
    for k in range(m):                       # acc += As[ty][k] * Bs[k][tx], k in order
        C = C + A[:, k:k + 1] * B[k:k + 1, :]
    cases.append(Case("matmul", f"{m} x {m}, 16 x 16 tiles", "matmul", (m // 16, m // 16), (16, 16),
                      lambda m=m, A=A, B=B: [np.zeros(m * m, np.float32), A.ravel(), B.ravel(), np.int32(m)], 0,
                      C.ravel(),
                      ("worst.cl", "matmul", (m, m, 1), (16, 16, 1),
                       [("out", np.float32, m * m), ("in", A.ravel()), ("in", B.ravel()), ("int", m)])))
    return cases


def narrow_loop_cases(quick=False):
    """The one-lane checked-access worst cases (NARROW_SOURCE), with their numpy references."""
    iters = 500 if quick else 5000
    out = np.zeros(1024, np.uint32)
    for i in range(iters):
        out[i & 1023] = out[i & 1023] * np.uint32(3) + np.uint32(i)
    rounds = 5 if quick else 40
    total = (rounds * sum(range(256)) + 256 * rounds * (rounds + 1) // 2) & 0xFFFFFFFF
    return [
        Case("lone read-modify-write", f"1 of 256 threads, {iters:,} iterations", "lone_rmw", (1,), (256,),
             lambda: [np.zeros(1024, np.uint32), np.int32(iters)], 0, out,
             ("narrow.cl", "lone_rmw", (256, 1, 1), (256, 1, 1), [("out", np.uint32, 1024), ("int", iters)]),
             source=NARROW_SOURCE),
        Case("lone shared scan", f"256 threads, {rounds} rounds of 256 reads by thread 0", "lone_scan", (1,), (256,),
             lambda: [np.zeros(1, np.uint32), np.int32(rounds)], 0, np.array([total], np.uint32),
             ("narrow.cl", "lone_scan", (256, 1, 1), (256, 1, 1), [("out", np.uint32, 1), ("int", rounds)]),
             source=NARROW_SOURCE),
    ]


# ===================================================================== simcore
_MODULES = {}


def module(source=None):
    import simcore
    source = SOURCE if source is None else source
    if source not in _MODULES:
        _MODULES[source] = simcore.RawModule(code=source, options=(f"-DK={K_STEPS}",))
    return _MODULES[source]


def kernel_of(case):
    return module(case_source(case)).get_function(case.kernel)


WARMED = set()


def run_simcore(case, checks, repeat, memory=False):
    """-> {'times': [...], 'verdict', 'thread_instructions'} (or {'peak_bytes'} with memory=True)."""
    kern = kernel_of(case)
    # a step limit turns the watchdog's probes off (the table's footnote says so): the simulator
    # alone, comparable with trees older than the watchdog; not the cost of a grader's launch
    opts = dict(checks=checks, max_steps=10 ** 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if (case.kernel, checks) not in WARMED:       # the first launch of a kernel: untimed
            WARMED.add((case.kernel, checks))
            kern(case.grid, case.block, case.make_args(), **opts)
        if memory:
            args = case.make_args()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            kern(case.grid, case.block, args, **opts)
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            return {"peak_bytes": peak}
        times, verdicts = [], []
        for _ in range(repeat):
            args = case.make_args()
            t0 = time.perf_counter()
            kern(case.grid, case.block, args, **opts)
            times.append(time.perf_counter() - t0)
            verdicts.append(verdict(args[case.out_index], case.ref))
    return {"times": times, "verdict": worst_verdict(verdicts),
            "thread_instructions": kern.last_launch.thread_instructions}


# ===================================================================== peers
def benchmarks_dir():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    d = os.path.join(here, "benchmarks")
    return d if os.path.isdir(d) else None


def oclgrind_available():
    return shutil.which("oclgrind-kernel") is not None and benchmarks_dir() is not None


def _sim_file(case, check):
    cl, name, gsize, lsize, specs = case.ocl
    lines = [os.path.join(benchmarks_dir(), "opencl", cl), name, " ".join(map(str, gsize)),
             " ".join(map(str, lsize)), ""]
    for spec in specs:
        if spec[0] == "out":
            _, dtype, length = spec
            # outputs dumped as bit patterns (uint), so that the check can be exact
            lines.append(f"<size={4 * length} {'uint' if check else 'float'} fill=0{' dump' if check else ''}>")
        elif spec[0] == "in":
            arr = spec[1]
            if check:       # the benchmark's inputs, bit for bit
                lines.append(f"<size={arr.nbytes} uint>")
                lines.append(" ".join(map(str, arr.view(np.uint32).tolist())))
            else:           # timing runs: generated by Oclgrind, no parsing of a large text file
                lines.append(f"<size={arr.nbytes} float range=0:1:{arr.size - 1}>")
        else:
            lines.append("<size=4 int>")
            lines.append(str(spec[1]))
    return "\n".join(lines) + "\n"


def run_oclgrind_once(case, races, check, timeout):
    """-> (seconds or None on timeout, verdict or None, error text or None)."""
    with tempfile.TemporaryDirectory() as tmp:
        sim = os.path.join(tmp, "run.sim")
        with open(sim, "w") as f:
            f.write(_sim_file(case, check))
        cmd = ["oclgrind-kernel", "--build-options", f"-DK={K_STEPS}"] + (["--data-races"] if races else []) + [sim]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None, f"timed out after {timeout:.0f} s"
        seconds = time.perf_counter() - t0
    if proc.returncode != 0 or "error" in proc.stdout.lower():
        return seconds, "WRONG", proc.stdout[-500:]
    if not check:
        return seconds, None, None
    out_spec = next(s for s in case.ocl[4] if s[0] == "out")
    # the dumped argument (only the output is dumped): lines "  name[i] = bits"
    vals = [int(line.split("=")[1]) for line in proc.stdout.splitlines() if "] = " in line]
    out = np.array(vals, np.uint32).view(np.float32 if out_spec[1] == np.float32 else np.uint32)
    return seconds, verdict(out, case.ref), None


def run_oclgrind(case, races, repeat, budget):
    """One checked run (the benchmark's inputs, output dumped), then up to `repeat` timed runs
    that fit in `budget` seconds."""
    check_s, check_v, err = run_oclgrind_once(case, races, True, timeout=budget)
    if check_s is None:
        return {"times": [], "verdict": "-", "note": err}
    times = []
    runs = repeat if check_s * repeat <= budget else (1 if check_s <= budget else 0)
    for _ in range(runs):
        s, v, e = run_oclgrind_once(case, races, False, timeout=budget)
        if s is None or v == "WRONG":
            err = err or e
            break
        times.append(s)
    note = err or (f"{len(times)} of {repeat} runs (over budget)" if len(times) < repeat else "")
    return {"times": times, "verdict": check_v, "check_seconds": check_s, "note": note}


def numba_python(arg):
    candidates = [arg] if arg else [os.environ.get("SIMCORE_BENCH_NUMBA_PYTHON"), sys.executable]
    for py in candidates:
        if not py:
            continue
        probe = subprocess.run([py, "-c", "import numba"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode == 0:
            return py
    return None


def run_numba(py, name, n, repeat, timeout=900):
    script = os.path.join(benchmarks_dir(), "numba_kernels.py")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    times, verdicts = [], []
    ref = reference(name, inputs(n))
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.npy")
        for _ in range(repeat):
            proc = subprocess.run([py, script, "--workload", WORKLOADS[name][3], "--n", str(n), "--out", out_path],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
            if proc.returncode != 0:
                return {"times": times, "verdict": "WRONG", "note": proc.stderr[-300:]}
            times.append(json.loads(proc.stdout.strip().splitlines()[-1])["seconds"])
            verdicts.append(verdict(np.load(out_path), ref))
    return {"times": times, "verdict": worst_verdict(verdicts)}


# ===================================================================== memory over launches
def memory_over_launches(n, launches, root=None):
    """RSS (bytes) after each launch of the reduction, simcore from `root` (default: this tree),
    in a fresh process with the cyclic GC off; None without /proc."""
    from .bench_tree import memory_over_launches as measure, this_tree
    return measure(root or this_tree(), SOURCE, (f"-DK={K_STEPS}",), "reduce", n, launches)


def fmt_memory(sizes):
    mib = [s / 2 ** 20 for s in sizes]
    growth = (mib[-1] - mib[0]) / (len(mib) - 1) if len(mib) > 1 else 0.0
    return (f"RSS {mib[0]:.0f} MiB after the first, {mib[-1]:.0f} MiB after the last, {max(mib):.0f} MiB at most "
            f"({growth:+.1f} MiB a launch)")


# ===================================================================== before/after: another simcore tree
def case_source(case):
    if getattr(case, "source", None):
        return case.source
    return SOURCE if case.kernel in WORKLOADS else WORST_SOURCE


def tree_launch(tree, case, checks, timeout):
    """One launch of `case` by a bench_tree.TreeProcess, its output checked here against the
    case's numpy reference: -> the worker's reply with 'verdict', or with 'error'."""
    args = tree.args_file((case.label, case.size), case.make_args)
    r = tree.launch(case_source(case), (f"-DK={K_STEPS}",), case.kernel, case.grid, case.block, args,
                    case.out_index, checks, timeout)
    if "error" not in r:
        r["verdict"] = verdict(r.pop("output"), case.ref)
    return r


def side_by_side(case, trees, checks, repeat, budget):
    """Run `case` on each tree in turn, one launch each per round (tree 1, tree 2, tree 1, ...), so
    that a change of the machine's load hits all of them. The first launch of a kernel in a
    process is an untimed warm-up (its output is checked too). Every launch may take at most
    `budget` seconds; when the first timed run says that `repeat` runs would exceed `budget`,
    that tree gets floor(budget / first) runs (at least 1) and a note says so.
    -> ([{'times', 'cpu', 'verdict', 'note', 'thread_instructions'} per tree], [tree names in run order])."""
    res = [{"times": [], "cpu": [], "verdicts": [], "notes": [], "thread_instructions": None} for _ in trees]
    planned, order = [repeat] * len(trees), []
    for i in range(repeat):
        for j, tree in enumerate(trees):
            r = res[j]
            if i >= planned[j]:
                continue
            if (case.kernel, checks) not in tree.warm:
                w = tree_launch(tree, case, checks, budget)
                order.append(tree.name + " (warm-up)")
                if "error" in w:
                    r["notes"].append(f"warm-up: {w['error']}")
                    r["verdicts"].append("WRONG" if "time limit" not in w["error"] else "-")
                    planned[j] = i
                    continue
                tree.warm.add((case.kernel, checks))
                r["verdicts"].append(w["verdict"])
            run = tree_launch(tree, case, checks, budget)
            order.append(tree.name)
            if "error" in run:
                r["notes"].append(run["error"])
                r["verdicts"].append("WRONG" if "time limit" not in run["error"] else "-")
                planned[j] = i
                continue
            r["times"].append(run["seconds"])
            r["cpu"].append(run["cpu"])
            r["verdicts"].append(run["verdict"])
            r["thread_instructions"] = run["thread_instructions"]
            if i == 0 and run["seconds"] * repeat > budget:
                planned[j] = max(1, min(repeat, int(budget // run["seconds"])))
                if planned[j] < repeat:
                    r["notes"].append(f"{planned[j]} of {repeat} runs (over budget)")
    for r in res:
        r["verdict"] = worst_verdict([v for v in r.pop("verdicts") if v != "-"])
        r["note"] = "; ".join(r.pop("notes"))
    return res, order


def before_after(points, base, current, repeat, budget, progress=True):
    """The before/after rows: every point, checks on and off, baseline and current interleaved."""
    rows, records = [], []
    for case in points:
        for checks in (True, False):
            (b, c), order = side_by_side(case, [base, current], checks, repeat, budget)
            records.append({"case": case.label, "size": case.size, "checks": checks, "baseline": b, "current": c,
                            "order": order})
            note = "; ".join(f"{who}: {r['note']}" for who, r in (("baseline", b), ("current", c)) if r["note"])
            rows.append([case.label, case.size, "on" if checks else "off", fmt_stat(b["cpu"]), fmt_stat(c["cpu"]),
                         fmt_ratio(b["cpu"], c["cpu"]), f"{b['verdict']} / {c['verdict']}", note])
            if progress:
                print(f"  before/after {case.label} at {case.size}, checks {'on' if checks else 'off'}", file=sys.stderr)
    return rows, records


BEFORE_AFTER_HEADERS = ["case", "size", "checks", "baseline", "current", "speedup", "output base / current", "note"]


# ===================================================================== schedules
SCHEDULES = ("lockstep", "adversarial", "round_robin", "random")


def schedule_launch(case, schedule, time_limit):
    """One launch of `case` under `schedule`, checks on: -> {'cpu', 'seconds', 'verdict', 'steps'}
    or {'error'} (a launch stopped at `time_limit` seconds, or one that raised)."""
    import simcore
    kern = kernel_of(case)
    args = case.make_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c0, t0 = time.process_time(), time.perf_counter()
        try:
            # no max_steps: the watchdog probes as in a grader's launch
            kern(case.grid, case.block, args, checks=True, schedule=schedule, time_limit=time_limit)
        except simcore.SimcoreError as e:
            return {"error": f"stopped ({getattr(e, 'kind', type(e).__name__)}) after "
                             f"{time.process_time() - c0:.1f} s CPU"}
        cpu, seconds = time.process_time() - c0, time.perf_counter() - t0
    return {"cpu": cpu, "seconds": seconds, "verdict": verdict(args[case.out_index], case.ref),
            "steps": kern.last_launch.steps}


def schedule_point(case, repeat, budget):
    """Every schedule on one point, interleaved (lockstep, adversarial, round_robin, random,
    lockstep, ...) so that a change of the machine's load hits all of them; an untimed first
    launch of the kernel per schedule. A schedule whose first timed run says that `repeat` runs
    would exceed `budget` seconds of CPU gets floor(budget / first) runs (at least 1); one launch
    stops at `budget` seconds (time_limit=). -> {schedule: {'cpu': [...], 'verdict', 'steps', 'note'}}."""
    res = {s: {"cpu": [], "verdicts": [], "steps": None, "notes": []} for s in SCHEDULES}
    planned = dict.fromkeys(SCHEDULES, repeat)
    warm = schedule_launch(case, "lockstep", budget)         # the kernel's first launch: untimed
    if "error" in warm:
        res["lockstep"]["notes"].append(f"warm-up: {warm['error']}")
    for i in range(repeat):
        for s in SCHEDULES:
            r = res[s]
            if i >= planned[s]:
                continue
            run = schedule_launch(case, s, budget)
            if "error" in run:
                r["notes"].append(run["error"])
                planned[s] = i
                continue
            r["cpu"].append(run["cpu"])
            r["verdicts"].append(run["verdict"])
            r["steps"] = run["steps"]
            if i == 0 and run["cpu"] * repeat > budget:
                planned[s] = max(1, min(repeat, int(budget // run["cpu"])))
                if planned[s] < repeat:
                    r["notes"].append(f"{planned[s]} of {repeat} runs (over budget)")
    for r in res.values():
        r["verdict"] = worst_verdict(r.pop("verdicts"))
        r["note"] = "; ".join(r.pop("notes"))
    return res


def schedule_lines(names, sizes, repeat, budget, progress=True):
    """The schedules' table: per course workload and size, a line per schedule with its CPU time
    per launch (checks on), the ratio to lockstep, its steps and its output. -> (rows, records)."""
    rows, records = [], []
    for name in names:
        for n in sizes:
            case = course_case(name, n)
            res = schedule_point(case, repeat, budget)
            records.append({"workload": name, "n": n, "schedules": res})
            lock = res["lockstep"]["cpu"]
            for s in SCHEDULES:
                r = res[s]
                ratio = f"{median(r['cpu']) / median(lock):.1f}x" if r["cpu"] and lock else "-"
                rows.append([name, fmt_n(n), s, fmt_stat(r["cpu"]) if r["cpu"] else "-", ratio,
                             f"{r['steps']:,}" if r["steps"] is not None else "-", r["verdict"], r["note"]])
            if progress:
                print(f"  schedules {name} at {fmt_n(n)}", file=sys.stderr)
    return rows, records


SCHEDULE_HEADERS = ["workload", "threads", "schedule", "CPU, checks on", "vs lockstep", "steps", "output", "note"]


# ===================================================================== profile
def profile_launch(name="reduce", n=2 ** 20, checks=True, top=10):
    """cProfile of one launch of a course workload (after an untimed warm-up launch): the `top`
    functions by own time (tottime), each with its share of the total own time of the launch."""
    import cProfile
    import pstats
    case = course_case(name, n)
    kern = kernel_of(case)
    opts = dict(checks=checks, max_steps=10 ** 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern(case.grid, case.block, case.make_args(), **opts)
        args = case.make_args()
        prof = cProfile.Profile()
        prof.enable()
        kern(case.grid, case.block, args, **opts)
        prof.disable()
    stats = pstats.Stats(prof).stats
    total = sum(v[2] for v in stats.values())
    ranked = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    rows = [{"function": function_label(func), "calls": v[1], "tottime": v[2], "cumtime": v[3],
             "share": v[2] / total if total else 0.0} for func, v in ranked]
    return {"workload": name, "n": n, "checks": checks, "total_seconds": total,
            "verdict": verdict(args[case.out_index], case.ref), "top": rows}


def function_label(func):
    """'simcore/sync.py:120(resolve)', 'numpy/...' or '{built-in method ...}'."""
    filename, line, name = func
    if filename == "~" or not os.path.isabs(filename):
        return name if filename == "~" else f"{filename}:{line}({name})"
    parts = os.path.normpath(filename).split(os.sep)
    for anchor in ("simcore", "numpy"):
        if anchor in parts:
            k = len(parts) - 1 - parts[::-1].index(anchor)
            return f"{'/'.join(parts[k:])}:{line}({name})"
    return f"{'/'.join(parts[-2:])}:{line}({name})"


def fmt_profile(p):
    rows = [[k + 1, r["function"], r["calls"], f"{r['tottime']:.3f}", f"{100 * r['share']:.1f}%", f"{r['cumtime']:.3f}"]
            for k, r in enumerate(p["top"])]
    head = (f"profile: cProfile of one launch of {p['workload']} at {fmt_n(p['n'])}, checks "
            f"{'on' if p['checks'] else 'off'} (after a warm-up launch; output {p['verdict']}): top {len(rows)} "
            f"functions by own time, share of the {p['total_seconds']:.2f} s total own time (under the profiler)")
    return head + "\n" + table(["#", "function", "calls", "own s", "share", "cumulative s"], rows)


# ===================================================================== report
def fmt_s(s):
    if s is None or s != s:
        return "-"
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def median(times):
    return float(np.median(times)) if times else float("nan")


def fmt_stat(times):
    """'123 ms [118-140 ms]': median and range."""
    if not times:
        return "-"
    m, lo, hi = median(times), min(times), max(times)
    if len(times) == 1:
        return f"{fmt_s(m)} (1 run)"
    if hi < 1:
        return f"{fmt_s(m)} [{lo * 1000:.0f}-{hi * 1000:.0f}]"
    return f"{fmt_s(m)} [{lo:.2f}-{hi:.2f}]"


def fmt_ratio(peer, sim):
    if not peer or not sim:
        return "-"
    return f"{median(peer) / median(sim):.1f}x"


def fmt_n(n):
    e = int(np.log2(n))
    return f"2^{e}" if 2 ** e == n else str(n)


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[k])) for r in rows)) for k, h in enumerate(headers)]
    line = "  ".join(str(h).ljust(w) for h, w in zip(headers, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def points_n(sizes):
    """The lesson-sized launch, then `sizes`, each once."""
    return list(dict.fromkeys([LESSON] + list(sizes)))


def parse_sizes(text):
    sizes = []
    for part in text.split(","):
        v = int(part)
        sizes.append(2 ** v if v <= 30 else v)
    return sizes


def machine():
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}{load}"


if __name__ == "__main__":      # python -m simcore.bench
    from benchmarks.bench_cli import main
    sys.exit(main())
