"""A serial phase (one runnable thread in the wave) runs through the engine's fast loop, with
registers as numpy scalars where a block allows it. It must compute exactly what the general
step loop computes: same values, same steps, same thread-instruction count."""
import numpy as np
import pytest

import simcore
from simcore.runtime.engine import scalar_blocks

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


# ------------------------------------------------------------------ the generated serial loop (solo.py)
# Each kernel runs three ways: through the generated serial loop (the default), through run_solo
# block by block (the loop turned off), and through the general step loop (a trace watches every
# step). Outputs, steps, thread-instructions and faults must be identical.

import simcore.runtime.engine as engine_module
from simcore.lower.codegen import DTYPES
from simcore.runtime.context import Context
from simcore.runtime.solo import cast_via, scalar_idiv, scalar_imod, solo_loop

SERIAL_KERNELS = {
    "nested loops": (r"""
    __global__ void k(unsigned *out, int n)
    {
        if (threadIdx.x == 0) {
            unsigned h = 1u;
            for (int i = 0; i < n; ++i)
                for (int j = 0; j <= i % 7; ++j)
                    h = h * 1664525u + (unsigned)(i ^ j);
            out[0] = h;
        }
    }""", np.uint32),
    "a branch inside": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 3) {
            int a = 0, b = 0;
            short s = 1;
            unsigned char c = 250;
            for (int i = 0; i < n; ++i) {
                if (i & 1) a += i; else b -= i;
                if (i % 3 == 0) { s = (short)(s * 7 + a); c += 3; }
            }
            out[0] = a; out[1] = b; out[2] = s; out[3] = c;
        }
    }""", np.int32),
    "float accumulation": (r"""
    __global__ void k(float *out, int n)
    {
        if (threadIdx.x == 0) {
            float acc = 0.0f;
            double d = 1.0;
            long long w = -5;
            for (int i = 0; i < n; ++i) {
                acc += 0.1f * i + (float)(i & 3) / 3.0f;
                d = d * 1.0000001 + acc;
                w = w * 3 - (long long)i;
            }
            out[0] = acc; out[1] = (float)d; out[2] = (float)(w & 1023); out[3] = (float)(unsigned)w;
        }
    }""", np.float32),
    "memory every iteration": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int s = 0;
            for (int i = 0; i < n; ++i) {
                out[i % 4] += i;
                s += out[(i + 1) % 4];
            }
            out[4] = s;
        }
    }""", np.int32),
    "while with break and continue": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int i = 0, s = 0;
            while (true) {
                ++i;
                if (i % 3 == 0) continue;
                s += i;
                if (i >= n) break;
            }
            out[0] = s; out[1] = i;
        }
    }""", np.int32),
    "a loop per warp leader": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x % 32 == 0) {
            int w = threadIdx.x / 32, s = w;
            for (int i = 0; i < n * (w + 1); ++i)
                s = s * 5 + i;
            out[w] = s;
        }
    }""", np.int32),
    "do-while": (r"""
    __global__ void k(unsigned *out, int n)
    {
        if (threadIdx.x == 0) {
            unsigned x = 12345u;
            int i = 0;
            do {
                x ^= x << 13; x ^= x >> 17; x ^= x << 5;
                ++i;
            } while (i < n);
            out[0] = x;
        }
    }""", np.uint32),
    "after a barrier, with a local array": (r"""
    __global__ void k(int *out, int n)
    {
        __shared__ int s[64];
        int local[4];
        s[threadIdx.x] = threadIdx.x * 3;
        __syncthreads();
        if (threadIdx.x == 0) {
            int t = 0;
            for (int i = 0; i < n; ++i) {
                local[i & 3] = t;
                t += s[i % 64] + local[(i + 1) & 3];
            }
            out[0] = t;
        }
    }""", np.int32),
    # lanes 1-31 wait for lane 0 where its `if` ends, then all loop on together
    "work after the serial phase": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x >= 32) return;      // no other warp: lane 0 is the only runnable lane
        int s = threadIdx.x;
        if (threadIdx.x == 0) {
            for (int i = 0; i < n; ++i) s = s * 7 + i;
        }
        for (int j = 0; j < 3; ++j) s += j * (int)threadIdx.x;
        if (threadIdx.x < 8) out[threadIdx.x] = s;
    }""", np.int32),
    # the loop's addresses on Python ints (solo.address_on_ints): every kind of index and
    # pointer arithmetic C allows, each wrapping where numpy's int64 does
    "addresses of every index kind": (r"""
    __global__ void k(int *out, int n)
    {
        __shared__ int tile[4][8];
        if (threadIdx.x < 32) tile[threadIdx.x / 8][threadIdx.x % 8] = threadIdx.x;
        __syncthreads();
        if (threadIdx.x == 0) {
            int *end = out + 8;
            const size_t minus_one = (size_t)0 - 1;          // an unsigned 64-bit index that wraps
            const long long quarter = 1ll << 62;            // * 4 bytes: 2**64, wraps to 0
            unsigned u = 0xFFFFFFFFu;
            for (int i = 0; i < n; ++i) {
                out[(i % 3) + minus_one + 1] += 1;
                end[-1 - (i % 4)] += i;                      // a negative index
                *(end - 2 - (i & 1)) -= 1;                   // pointer minus an int
                out[quarter + (i & 3)] ^= i;                 // int64 wrap-around of the byte offset
                out[(unsigned)(u + 1u + (unsigned)(i & 1))] += tile[i & 3][(i * 3) & 7];   // 32-bit wrap
                out[(short)(i & 3) + (char)1] += (long long)i * 2 > 10;
            }
        }
    }""", np.int32),
    # warp 0 keeps only lane 0 (it records no reconvergence point), warp 1 waits ahead of it:
    # lane 0 leaves its loop where warp 1 stands, and both go on together
    "another warp ahead of the lone lane": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x < 32 && threadIdx.x != 0) return;
        int s = threadIdx.x;
        if (threadIdx.x == 0) {
            for (int i = 0; i < n; ++i) s = s * 7 + i;
        }
        for (int j = 0; j < 3; ++j) s += j * (int)threadIdx.x;
        if (threadIdx.x % 8 == 0) out[threadIdx.x / 8] = s;
    }""", np.int32),
}


def _count_loop_calls(kernel):
    """Wrap the program's generated serial loop: -> a list whose length counts its calls."""
    prog = kernel.program
    made = solo_loop(prog, engine_module.scalar_blocks(prog))
    assert made, "the kernel has no generated serial loop"
    calls = []

    def counted(fn):
        def counting(*args):
            calls.append(1)
            return fn(*args)
        return counting
    # the loop for probes and the same loop for calls outside them
    prog._solo_loop = (counted(made[0]),) + tuple(made[1:4]) + (counted(made[4]),)
    return calls


def _launch(src, dtype, way, monkeypatch, grid=(1,), block=(64,), n=50, **opts):
    k = simcore.RawKernel(src, "k")
    calls = _count_loop_calls(k)
    with monkeypatch.context() as m:
        if way == "block by block":
            m.setattr(engine_module, "SOLO_MIN_STEPS", 10 ** 18)
        out = np.zeros(8, dtype)
        fault = None
        try:
            k(grid, block, (out, np.int32(n)), trace=(way == "general"), **opts)
        except simcore.SimcoreError as e:
            fault = (type(e), str(e), getattr(e, "line", None))
    launch = k.last_launch
    return (out.tobytes(), fault, launch.steps, launch.thread_instructions), len(calls)


WAYS = ["generated loop", "block by block", "general"]


@pytest.mark.parametrize("model", ["independent", "stack"])
@pytest.mark.parametrize("name", list(SERIAL_KERNELS))
def test_the_generated_serial_loop_matches_the_general_loop(name, model, monkeypatch):
    src, dtype = SERIAL_KERNELS[name]
    results = {}
    for way in WAYS:
        results[way], calls = _launch(src, dtype, way, monkeypatch, model=model)
        if way == "generated loop":
            assert calls > 0          # the generated loop did run
        else:
            assert calls == 0
    assert results["generated loop"] == results["block by block"] == results["general"]
    assert results["general"][1] is None


@pytest.mark.parametrize("schedule", ["round_robin", "adversarial", "random"])
@pytest.mark.parametrize("name", ["nested loops", "memory every iteration", "a loop per warp leader"])
def test_other_schedules_compute_what_lockstep_computes(name, schedule, monkeypatch):
    src, dtype = SERIAL_KERNELS[name]
    lockstep, _ = _launch(src, dtype, "generated loop", monkeypatch)
    other, _ = _launch(src, dtype, "generated loop", monkeypatch, schedule=schedule)
    assert other[0] == lockstep[0] and other[1] is None


def test_the_watchdog_sees_every_step_in_a_long_serial_loop(monkeypatch):
    # a loop much longer than the watchdog's look interval: the generated loop returns before
    # each step the watchdog must see; the counts are those of the general loop
    src, dtype = SERIAL_KERNELS["nested loops"]
    results = [_launch(src, dtype, way, monkeypatch, n=3000)[0] for way in WAYS]
    assert results[0] == results[1] == results[2] and results[0][2] > 10_000


FAULTING = {
    "out of bounds after the loop": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int s = 0;
            for (int i = 0; i < n; ++i) s = s * 3 + i;
            out[s & 0xffff | 0x10000] = s;
        }
    }""", "out_of_bounds"),
    "an undefined value stored inside the loop": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int x;
            int acc = 0;
            for (int i = 0; i < n; ++i) {
                if (i == 40) out[1] = acc + x;
                acc = acc * 3 + i;
            }
            out[0] = acc;
        }
    }""", "undefined_value"),
    "an undefined value decides a branch inside the loop": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int x;
            int acc = 0;
            for (int i = 0; i < n; ++i) {
                if (i == 30) acc += x;
                if (acc > 5) acc -= 1;
            }
            out[0] = acc;
        }
    }""", "undefined_value"),
    "an address far below the array inside the loop": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            long long back = 0;
            for (int i = 0; i < n; ++i) {
                out[back + (i & 3)] += 1;
                if (i == 60) back = -(1ll << 40);
            }
        }
    }""", "out_of_bounds"),
    "an address that wraps past int64 inside the loop": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            long long far = 0;
            int s = 0;
            for (int i = 0; i < n; ++i) {
                s += out[far + (i & 3)];
                if (i == 50) far = 1ll << 62;                 // * 4 bytes: 2**64, wraps to out itself
                if (i == 70) far = (1ll << 62) + (1ll << 61);  // out + 2**63 bytes: past int64, wraps below 0
            }
            out[0] = s;
        }
    }""", "out_of_bounds"),
    "a division by zero inside the loop": (r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int acc = 0;
            for (int i = 0; i < n; ++i)
                acc += 1000 / (i - 37) + i % (40 - i);
            out[0] = acc;
        }
    }""", "division_by_zero"),
}


@pytest.mark.parametrize("name", list(FAULTING))
def test_faults_in_and_after_a_serial_loop_are_the_general_loops(name, monkeypatch):
    src, kind = FAULTING[name]
    results = [_launch(src, np.int32, way, monkeypatch, n=100)[0] for way in WAYS]
    assert results[0] == results[1] == results[2]
    fault = results[0][1]
    assert fault is not None and kind in fault[1] and fault[2]


ENDLESS_SERIAL = r"""
__global__ void k(int *out, int n)
{
    if (threadIdx.x == 0) {
        unsigned i = 0;
        while (out[0] == 0) i = i * 3 + 1;     // values keep changing: no state repeats
        out[1] = i;
    }
}"""


def test_max_steps_stops_an_endless_serial_loop_at_the_same_step(monkeypatch):
    results = [_launch(ENDLESS_SERIAL, np.int32, way, monkeypatch, max_steps=5000)[0] for way in WAYS]
    assert results[0] == results[1] == results[2]
    assert "max_steps=5,000" in results[0][1][1]


def test_the_time_limit_stops_an_endless_serial_loop(monkeypatch):
    k = simcore.RawKernel(ENDLESS_SERIAL.replace("out[0] == 0", "n > 0"), "k")
    calls = _count_loop_calls(k)
    with pytest.raises(simcore.StepLimit) as info:
        k((1,), (32,), (np.zeros(2, np.int32), np.int32(1)), time_limit=0.5)
    assert "time limit was reached" in str(info.value) and info.value.report["line"]
    assert info.value.kind == "time_limit"
    assert calls


def test_an_endless_serial_loop_that_repeats_its_state_is_found(monkeypatch):
    src = ENDLESS_SERIAL.replace("i = i * 3 + 1", "i = i ^ 1")
    results = [_launch(src, np.int32, way, monkeypatch)[0] for way in WAYS]
    assert results[0] == results[1] == results[2]
    assert "Endless loop" in results[0][1][1]


def _edge_values(dtype):
    if dtype == np.bool_:
        return np.array([False, True])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        vals = [info.min, info.min + 1, -1, 0, 1, 2, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
                2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1, info.max - 1, info.max]
        return np.array([v for v in vals if info.min <= v <= info.max], dtype)
    info = np.finfo(dtype)
    vals = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 127.9, -128.9, 255.5, 1e10, -1e10, 3e38, info.max, -info.max,
            info.tiny, info.tiny / 4, info.eps, np.inf, -np.inf, np.nan, 2.0 ** 31, 2.0 ** 32, 2.0 ** 63, 2.0 ** 64]
    with np.errstate(all="ignore"):
        return np.array(vals, dtype)


@pytest.mark.parametrize("src", sorted(DTYPES))
@pytest.mark.parametrize("dst", sorted(DTYPES))
def test_the_generated_loops_cast_gives_astypes_bits(src, dst):
    # the generated serial loop replaces `(v).astype(T)` by cast_via(one-element array of T, v)
    buf = np.empty(1, DTYPES[dst])
    with np.errstate(all="ignore"):
        for v in _edge_values(DTYPES[src]):
            v = DTYPES[src].type(v)
            expected = v.astype(DTYPES[dst])
            got = cast_via(buf, v)
            assert type(got) is type(expected)
            assert got.tobytes() == expected.tobytes(), (src, dst, v)


def test_the_generated_loop_casts_without_astype():
    from benchmarks.bench import WORST_SOURCE
    k = simcore.RawModule(code=WORST_SOURCE).get_function("serial_loop")
    made = solo_loop(k.program, engine_module.scalar_blocks(k.program))
    assert ".astype(U4)" in made[2]                  # in the blocks' code
    assert "astype" not in made[0].__code__.co_names
    assert "_cast" in made[0].__code__.co_names


def _branchy_kernel(sequential, nested):
    seq = "\n".join(f"            if ((i * {k + 3}) & {1 << (k % 5)}) a = a * {k + 5} + i; else a ^= {k};"
                    for k in range(sequential))
    nest = "a += 1;"
    for k in range(nested):
        nest = f"if (((a >> {k % 7}) & 1) == {k % 2}) {{ a = a * 3 + {k}; {nest} }} else {{ a += {k}; }}"
    return f"""
    __global__ void k(int *out, int n)
    {{
        if (threadIdx.x == 0) {{
            int a = 1;
            for (int i = 0; i < n; ++i) {{
{seq}
                {nest}
            }}
            out[0] = a;
        }}
    }}"""


@pytest.mark.parametrize("model", ["independent", "stack"])
def test_many_branches_inside_the_loop_deeper_than_the_inlining(model, monkeypatch):
    from simcore.runtime import solo
    src = _branchy_kernel(12, solo.MAX_NESTING + 4)
    results = [_launch(src, np.int32, way, monkeypatch, n=200, model=model)[0] for way in WAYS]
    assert results[0] == results[1] == results[2]


def test_the_lone_lane_stays_in_the_generated_loop_past_reconvergence_points_it_does_not_wait_at(monkeypatch):
    # every if/else inside the loop ends at a reconvergence point; the lone lane recorded only the
    # one after `if (threadIdx.x == 3)`, so the loop is left about once per watchdog look, not once
    # per iteration
    src, dtype = SERIAL_KERNELS["a branch inside"]
    n = 3000
    result, calls = _launch(src, dtype, "generated loop", monkeypatch, n=n)
    assert result[1] is None and 0 < calls < n // 10


INTEGER_TYPES = ["I1", "U1", "I2", "U2", "I4", "U4", "I8", "U8"]


class _NoLanes:
    """Enough of a context for Context.idiv/imod with non-zero divisors."""
    _divisor = Context._divisor


@pytest.mark.parametrize("name", INTEGER_TYPES)
def test_scalar_division_and_remainder_give_the_contexts_bits(name):
    # the generated loop inlines blocks that divide integers, with scalar versions of the
    # context's C division and remainder
    dtype = DTYPES[name]
    values = [dtype.type(v) for v in _edge_values(dtype)] + [dtype.type(v) for v in (3, 7, 10, 100)]
    with np.errstate(all="ignore"):
        for a in values:
            for b in values:
                if b == 0:
                    continue
                for scalar, general in ((scalar_idiv, Context.idiv), (scalar_imod, Context.imod)):
                    expected = general(_NoLanes(), np.array([a]), np.array([b]), None, 0)[0]
                    got = scalar(None, None, a, b, 0, 0)
                    assert type(got) is type(expected) and got == expected, (name, a, b, scalar.__name__)
                    expected = general(_NoLanes(), np.array([a]), b, None, 0)[0]     # a constant divisor
                    assert type(got) is type(expected) and got == expected


@pytest.mark.parametrize("first", ["B1"] + INTEGER_TYPES)
def test_shift_operators_on_scalars_are_the_shift_ufuncs(first):
    # the generated loop writes np.left_shift(a, b) on scalars as a << b (and right shifts)
    with np.errstate(all="ignore"):
        for second in ["B1"] + INTEGER_TYPES:
            for a in _edge_values(DTYPES[first]):
                counts = [DTYPES[second].type(b) for b in _edge_values(DTYPES[second])]
                counts += [0, 1, 8, 31, 32, 33, 64] if second == "B1" else []     # Python ints (__mul24's 8)
                for b_ in counts:
                    a_, b = DTYPES[first].type(a), b_
                    for ufunc, op in ((np.left_shift, lambda x, y: x << y), (np.right_shift, lambda x, y: x >> y)):
                        try:
                            expected = ufunc(a_, b_)
                        except (TypeError, OverflowError) as e:
                            with pytest.raises(type(e)):
                                op(a_, b_)
                            continue
                        got = op(a_, b_)
                        assert type(got) is type(expected) and got == expected, (first, second, a, b)


# ------------------------------------------------------------------ through the watchdog's probes
# Half of a long loop's steps are probe steps of the repeated-state watchdog; the generated loop
# runs through them (Watchdog.serial_window), returning only where tick() must see a step.

def _counting(monkeypatch, cls, name, counts):
    original = getattr(cls, name)

    def counted(self, *args, **kwargs):
        counts[name] = counts.get(name, 0) + 1
        return original(self, *args, **kwargs)
    monkeypatch.setattr(cls, name, counted)


def test_the_generated_loop_runs_through_the_watchdogs_probe_steps(monkeypatch):
    from simcore.runtime.watchdog import Watchdog
    src, dtype = SERIAL_KERNELS["nested loops"]
    counts = {}
    _counting(monkeypatch, Watchdog, "tick", counts)
    k = simcore.RawKernel(src, "k")
    k((1,), (64,), (np.zeros(8, dtype), np.int32(3000)))
    steps = k.last_launch.steps
    assert steps > 40_000
    # a tick per step of every probe would be about half of the steps
    assert counts["tick"] * 20 < steps


def test_the_generated_loop_reads_and_writes_memory_without_the_general_path(monkeypatch):
    from simcore.runtime.memory import Memory
    src = r"""
    __global__ void k(unsigned *a, int n)
    {
        if (threadIdx.x == 0)
            for (int i = 0; i < n; ++i)
                a[i & 15] = a[i & 15] * 3u + (unsigned)i;
    }"""
    counts = {}
    _counting(monkeypatch, Memory, "load", counts)
    _counting(monkeypatch, Memory, "store", counts)
    a = np.zeros(16, np.uint32)
    n = 2000
    simcore.RawKernel(src, "k")((1,), (64,), (a, np.int32(n)))
    expected = np.zeros(16, np.uint32)
    for i in range(n):
        expected[i & 15] = expected[i & 15] * np.uint32(3) + np.uint32(i)
    assert (a == expected).all()
    # the loop's accesses are Memory.load_lane / store_lane calls; load/store only outside it
    assert counts.get("load", 0) < n // 10 and counts.get("store", 0) < n // 10


def test_the_generated_loop_computes_its_addresses_on_python_ints(monkeypatch):
    """An element's address (`base + (i).astype(I8) * 4`) costs three numpy scalar operations in
    the blocks' code; the serial loop computes it on Python ints (solo.address_on_ints), and
    Memory.load_lane / store_lane take it as such (the values are those of the general loop:
    the kernels above compare them)."""
    from simcore.runtime.memory import Memory
    src = r"""
    __global__ void k(unsigned *a, int n)
    {
        __shared__ unsigned s[64];
        s[threadIdx.x] = threadIdx.x;
        __syncthreads();
        if (threadIdx.x == 0)
            for (int i = 0; i < n; ++i)
                a[i & 15] += s[(i * 7) & 63];
    }"""
    seen = {"load_lane": [], "store_lane": []}
    for name in seen:
        original = getattr(Memory, name)

        def recording(self, addr, *args, _original=original, _seen=seen[name]):
            _seen.append(type(addr))
            return _original(self, addr, *args)
        monkeypatch.setattr(Memory, name, recording)
    a = np.zeros(16, np.uint32)
    simcore.RawKernel(src, "k")((1,), (64,), (a, np.int32(500)))
    expected = np.zeros(16, np.uint32)
    for i in range(500):
        expected[i & 15] += (i * 7) & 63
    assert (a == expected).all()
    assert len(seen["load_lane"]) > 900 and set(seen["load_lane"]) == {int}
    assert len(seen["store_lane"]) > 450 and set(seen["store_lane"]) == {int}


def test_an_address_on_python_ints_wraps_as_int64_does():
    from simcore.runtime.memory import wrap_int64
    for value in (0, 1, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 2 ** 64 + 12, -2 ** 63 - 1, 3 * 2 ** 64 + 2 ** 63 + 5):
        with np.errstate(over="ignore"):
            assert wrap_int64(value) == int(np.array([value % 2 ** 64], np.uint64).view(np.int64)[0])


# endless loops whose state repeats inside the generated loop: found at the general loop's step,
# with its report (the repeat may involve a NaN register, a store, a signed zero, a long cycle)
REPEATING = {
    "a NaN register": r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            float x = __int_as_float(0x7fc00000);
            unsigned i = 0;
            while (out[0] == 0) { x = x * 2.0f; i ^= 1u; }
            out[1] = (int)x + i;
        }
    }""",
    "a store inside the loop": r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int i = 0;
            while (out[0] == 0) { out[1 + (i & 3)] = i; i = (i + 1) & 7; }
        }
    }""",
    "a signed zero": r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            float z = 0.0f;
            while (out[0] == 0) z = -z;
            out[1] = (int)z;
        }
    }""",
    "a cycle of 300 iterations": r"""
    __global__ void k(int *out, int n)
    {
        if (threadIdx.x == 0) {
            int i = 0, s = 0;
            while (out[0] == 0) { i = (i + 1) % 300; s += out[2 + (i & 1)]; s &= 0; }
        }
    }""",
}


@pytest.mark.parametrize("name", list(REPEATING))
def test_a_state_that_repeats_inside_the_generated_loop_is_found_at_the_general_loops_step(name, monkeypatch):
    results = [_launch(REPEATING[name], np.int32, way, monkeypatch)[0] for way in WAYS]
    assert results[0] == results[1] == results[2]
    assert "Endless loop" in results[0][1][1]


def test_outside_a_probe_the_generated_loop_runs_without_the_probes_stop_test_and_records():
    import dis
    from benchmarks.bench import WORST_SOURCE
    k = simcore.RawModule(code=WORST_SOURCE).get_function("serial_loop")
    made = solo_loop(k.program, engine_module.scalar_blocks(k.program))
    probe, plain = made[0], made[4]

    def reads(fn, name):
        return sum(1 for i in dis.get_instructions(fn) if i.opname.startswith("LOAD") and
                   (i.argval == name or isinstance(i.argval, tuple) and name in i.argval))
    assert reads(probe, "_s_stop") > 0 and reads(plain, "_s_stop") == 0
    assert reads(plain, "_s_ran") < reads(probe, "_s_ran")
