"""A lone lane's reading loop run at once (runtime/solo.py ReadingLoop, issue 18 item 4).

`for (i = a; i < n; i += k) acc += s[f(i)];` by one thread between barriers (a convergence test,
thread 0 summing a block's values) runs its iterations but the last as one gather and one
reduction. Each kernel below runs with those runs and without them (the loop one iteration at a
time, as before): outputs, the fault and its text, steps and thread-instructions must be the
same, and the runs must have happened where the loop is one."""
import numpy as np
import pytest

import simcore
import simcore.runtime.solo as solo

HEAD = r"""
__global__ void k(unsigned *out, int n, int rounds)
{
    __shared__ unsigned s[256];
    __shared__ long long w[256];
    int t = threadIdx.x;
    s[t] = t * 2654435761u;
    w[t] = (long long)t * -3000000001LL;
    unsigned total = 0u;
    long long wide = 0;
    int x = 0;
    for (int r = 0; r < rounds; ++r) {
        __syncthreads();
        s[t] += (unsigned)r;
        w[t] -= r;
        __syncthreads();
"""
TAIL = r"""
        __syncthreads();
    }
    if (t == 0) { out[0] = total; out[1] = (unsigned)wide; out[2] = (unsigned)(wide >> 32); out[3] = x; }
}
"""

# name: (the body of one round, whether its loop is a reading loop the runs take)
BODIES = {
    "sum of every word": ("if (t == 0) for (int i = 0; i < n; ++i) total += s[i];", True),
    "xor of odd words, i <= bound": ("int m = n / 2 - 1; if (t == 0) for (int i = 0; i <= m; i += 1) total ^= s[2 * i + 1];", True),
    "a bound worked out in the test": ("if (t == 0) for (int i = 0; i < n / 2; ++i) total += s[i];", False),
    "or with a stride of 3": ("if (t == 0) for (int i = 1; i < n; i += 3) total |= s[i];", True),
    "and from an offset register": ("int b = r % 7, m = n - 8; if (t == 0) for (int i = 0; i < m; ++i) total &= s[b + i];", True),
    "a fold of more than the value": ("if (t == 0) for (int i = 0; i < n; ++i) total &= s[i] | 1u;", False),
    # (8-byte reads of a kernel whose race check keeps 4-byte granules go one by one)
    "int64 sum": ("if (t == 0) for (int i = 0; i < n; ++i) wide += w[i];", False),
    "signed sum that overflows": ("if (t == 0) for (int i = 0; i < n; ++i) x += (int)s[i];", False),
    "thread 37 reads": ("if (t == 37) for (int i = 0; i < n; i += 2) total += s[i];", True),
    "two accumulators": ("if (t == 0) for (int i = 0; i < n; ++i) { total += s[i]; x ^= (int)i; }", False),
}


def _source(body):
    return HEAD + "        " + body + "\n" + TAIL


def _run(src, ways, monkeypatch, n=256, rounds=6, grid=(1,), block=(256,), **opts):
    k = simcore.RawKernel(src, "k")
    runs = []
    call = solo.ReadingLoop.__call__

    def counted(self, *args, **kw):
        got = call(self, *args, **kw)
        if got is not None:
            runs.append(got[2])
        return got
    out = np.zeros(4, np.uint32)
    fault = None
    with monkeypatch.context() as m:
        m.setattr(solo.ReadingLoop, "__call__", counted)
        if ways == "one by one":
            m.setattr(solo, "MIN_RUN", 10 ** 18)
        try:
            k(grid, block, (out, np.int32(n), np.int32(rounds)), **opts)
        except simcore.SimcoreError as e:
            fault = (type(e).__name__, str(e))
    launch = k.last_launch
    return (out.tolist(), fault, launch.steps, launch.thread_instructions, launch.warnings), sum(runs)


def _same_both_ways(src, monkeypatch, **kw):
    fast, iterations = _run(src, "runs", monkeypatch, **kw)
    slow, none = _run(src, "one by one", monkeypatch, **kw)
    assert none == 0
    assert fast == slow
    return fast, iterations


@pytest.mark.parametrize("name", list(BODIES))
def test_a_reading_loop_runs_at_once_with_the_same_results(name, monkeypatch):
    body, is_one = BODIES[name]
    (out, fault, *_), iterations = _same_both_ways(_source(body), monkeypatch)
    assert fault is None
    assert (iterations > 0) == is_one


def test_the_sum_is_the_sum():
    # the plain value, against numpy
    k = simcore.RawKernel(_source(BODIES["sum of every word"][0]), "k")
    out = np.zeros(4, np.uint32)
    k((1,), (256,), (out, np.int32(256), np.int32(5)))
    s = (np.arange(256, dtype=np.uint64) * 2654435761) % 2 ** 32
    total = 0
    for r in range(5):
        s = (s + r) % 2 ** 32
        total = (total + int(s.sum())) % 2 ** 32
    assert int(out[0]) == total


@pytest.mark.parametrize("schedule,seed", [("round_robin", 0), ("random", 3), ("adversarial", 0)])
def test_other_schedules_compute_what_the_runs_compute(schedule, seed, monkeypatch):
    # (the serial loop, and so the runs, are lockstep's)
    src = _source(BODIES["sum of every word"][0])
    (lockstep, _, _, _, _), iterations = _run(src, "runs", monkeypatch)
    (other, fault, _, _, _), _ = _run(src, "runs", monkeypatch, schedule=schedule, seed=seed)
    assert iterations > 0 and fault is None and other == lockstep


def test_a_read_past_the_array_faults_the_same(monkeypatch):
    (_, fault, *_), _ = _same_both_ways(_source(BODIES["sum of every word"][0]), monkeypatch, n=300)
    assert fault is not None and "out of bounds" in fault[1].lower()


def test_a_race_with_the_reader_is_reported_the_same(monkeypatch):
    body = "if (t == 0) for (int i = 0; i < n; ++i) total += s[i]; if (t == 64) s[200] = 5u;"
    (_, fault, *_), _ = _same_both_ways(_source(body), monkeypatch)
    assert fault is not None and fault[0] == "DataRace"


def test_a_race_later_in_the_run_is_reported_the_same(monkeypatch):
    # the writer runs first (another warp, lower warp ids run first under lockstep): the run meets
    # its record in the epoch and leaves the reads to the loop one by one
    body = "if (t == 200) s[150] = 9u; if (t == 0) for (int i = 0; i < n; ++i) total += s[i];"
    (_, fault, *_), _ = _same_both_ways(_source(body), monkeypatch)
    assert fault is not None and fault[0] == "DataRace"


def test_unwritten_shared_memory_read_the_same(monkeypatch):
    src = r"""
__global__ void k(unsigned *out, int n, int rounds)
{
    __shared__ unsigned s[256];
    int t = threadIdx.x;
    if (t < 200) s[t] = t;
    __syncthreads();
    unsigned total = 0u;
    if (t == 0) for (int i = 0; i < n; ++i) total += s[i];
    if (t == 0) out[0] = total;
}"""
    (_, fault, _, _, warnings), _ = _same_both_ways(src, monkeypatch)
    assert fault is not None or warnings


def test_an_endless_scan_is_found_the_same(monkeypatch):
    src = r"""
__global__ void k(unsigned *out, int n, int rounds)
{
    __shared__ unsigned s[256];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    if (t == 0) {
        unsigned total = 0u;
        while (total != 7u) {               // the sum is 32640: never 7
            total = 0u;
            for (int i = 0; i < n; ++i) total += s[i];
        }
        out[0] = total;
    }
}"""
    (_, fault, *_), iterations = _same_both_ways(src, monkeypatch)
    assert fault is not None and fault[0] == "StepLimit" or "Endless" in fault[1]
    assert iterations > 0


def test_a_step_limit_stops_it_at_the_same_step(monkeypatch):
    (_, fault, steps, *_), iterations = _same_both_ways(_source(BODIES["sum of every word"][0]), monkeypatch,
                                                        rounds=50, max_steps=20000)
    assert fault is not None and iterations > 0
