"""A launch frees everything it built as soon as it returns, without the cyclic garbage
collector: a widget that relaunches on every slider move must not grow the process."""
import gc
import weakref

import numpy as np
import pytest

import simcore
from benchmarks.bench import REDUCE    # the reduction whose memory the benchmark watches
from simcore.launch import launch_options
from simcore.runtime.runner import run_launch

RACY = r"""
__global__ void racy(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"""


class CyclicGcOff:
    """Compile and warm up first (the compiler's own cycles are not a launch's), then no cyclic GC."""

    def __enter__(self):
        gc.collect()
        gc.disable()

    def __exit__(self, *exc):
        gc.enable()


def _reduce_args(n=2048):
    x = np.arange(n, dtype=np.float32)
    return np.zeros(n // 256, np.float32), x


@pytest.mark.parametrize("opts", [{}, {"trace": True}, {"checks": False}, {"schedule": "random"},
                                  {"model": "stack"}])
def test_a_launch_leaves_no_reference_cycles(opts):
    k = simcore.RawKernel(REDUCE, "reduce")
    out, x = _reduce_args()
    k((8,), (256,), (out, x), **opts)
    with CyclicGcOff():
        for _ in range(3):          # the record of the previous launch is dropped by each new one
            k((8,), (256,), (out, x), **opts)
        assert np.allclose(out, x.reshape(-1, 256).sum(axis=1))
        assert gc.collect() == 0


def test_a_faulting_traced_launch_leaves_no_reference_cycles():
    k = simcore.RawKernel(RACY, "racy")
    out = np.zeros(64, np.float32)
    with pytest.raises(simcore.KernelFault):
        k((1,), (64,), (out,), trace=True)
    with CyclicGcOff():
        for _ in range(3):
            with pytest.raises(simcore.KernelFault):
                k((1,), (64,), (out,), trace=True)
        assert k.last_launch.fault.kind == "race"
        assert k.last_launch.trace.replay.fault.kind == "race"
        assert gc.collect() == 0


def test_the_engine_and_its_wave_die_when_the_launch_returns():
    k = simcore.RawKernel(REDUCE, "reduce")
    out, x = _reduce_args()
    with CyclicGcOff():
        launch = simcore.module.Launch("reduce", (8, 1, 1), (256, 1, 1), 0, "simulator")
        engine = run_launch(k.program, launch, [out, x], launch_options(trace=True))
        refs = [weakref.ref(o) for o in (engine, engine.wave, engine.memory, engine.ctx, engine.report)]
        refs += [weakref.ref(p) for p in engine.plugins]
        del engine
        assert [r() for r in refs] == [None] * len(refs)
        assert launch.trace is not None and len(launch.trace.replay) > 0      # the record stays


def _race_detector_after(source, name, grid, block, args, block_ranges=None, options=()):
    from simcore.checks.races import RaceDetector
    k = simcore.RawModule(code=source, options=options).get_function(name)
    launch = simcore.module.Launch(name, (grid, 1, 1), (block, 1, 1), 0, "simulator")
    engine = run_launch(k.program, launch, list(args), launch_options(),
                        block_ranges=block_ranges)
    return engine.plugins.of_type(RaceDetector), engine


def _bytes_per_word(races, engine, expected):
    """Shadow bytes per granule of each shadowed array (by name), checked against `expected`;
    -> the whole shadow's bytes per written word (every shadowed array here is written whole)."""
    names = {r.id: r.name for r in engine.memory.regions.values()}
    shadows = {names[i]: sh for table in (races.global_shadows, races.shared_shadows) for i, sh in table.items()}
    assert {name: sh.nbytes / sh.n for name, sh in shadows.items()} == expected
    return races.shadow_bytes() / sum(sh.n for sh in shadows.values())


def test_the_race_shadow_covers_written_arrays_only():
    """The input (const float *) is only read: it gets no shadow. The output is only written: it
    gets one writer's record with its site inside, no readers' record: at 2^14 threads (site 5
    bits for 7 memory sites, thread 17, barrier epoch 8: 30 bits) an int32, 4 bytes a word. The
    shared tile is written and read: two int32 records (site 5, thread slot 10, epoch 8), 8
    bytes a word."""
    n = 64 * 256
    out, x = _reduce_args(n)
    races, engine = _race_detector_after(REDUCE, "reduce", n // 256, 256, (out, x))
    assert np.allclose(out, x.reshape(-1, 256).sum(axis=1))
    regions = {r.name: r.id for r in engine.memory.regions.values()}
    assert regions["in"] not in races.global_shadows
    assert races.global_shadows[regions["out"]].r is None
    assert _bytes_per_word(races, engine, {"out": 4, "s": 8}) <= 8


# one wave (256 blocks) of each 2^20-thread workload of benchmarks.bench: the layout is the whole
# launch's. Launch-wide thread numbers take 23 bits, with the 8-bit epoch 31: the global record
# is an int32 with the site in its own uint8 array (5 bytes), cheaper than an int64 with the site
# inside; the shared records still hold their sites (two int32).
N_BENCH = 1 << 20


@pytest.mark.parametrize("name, block, per_array", [
    ("reduce", 256, {"out": 5, "s": 8}),
    ("stencil", 128, {"out": 5, "buf": 8}),
    ("reverse", 256, {"out": 5, "tile": 8}),
])
def test_the_race_shadow_of_the_2_20_benchmark_workloads_is_at_most_8_bytes_a_written_word(name, block, per_array):
    from benchmarks.bench import K_STEPS, SOURCE
    x = np.arange(N_BENCH, dtype=np.float32) % 97
    out = np.zeros(N_BENCH // 256 if name == "reduce" else N_BENCH, np.float32)
    races, engine = _race_detector_after(SOURCE, name, N_BENCH // block, block, (out, x),
                                         block_ranges=[(0, 256)], options=(f"-DK={K_STEPS}",))
    assert np.count_nonzero(out) > 0
    assert _bytes_per_word(races, engine, per_array) <= 8


def test_a_race_on_an_array_first_read_after_its_writes_is_still_found():
    """The readers' record starts at a region's first read: a write racing with reads made after
    that is found, and both lines are named."""
    src = r"""
    __global__ void shift_left(float *out)
    {
        __shared__ float s[64];
        s[threadIdx.x] = threadIdx.x;                 // writes only: s has no readers' record yet
        __syncthreads();
        float v = s[(threadIdx.x + 1) % 64];          // the first read of s
        s[threadIdx.x] = v;                           // overwrites what the neighbour reads: no barrier
        out[threadIdx.x] = v;
    }"""
    with pytest.raises(simcore.KernelFault) as e:
        simcore.RawKernel(src, "shift_left")((1,), (64,), (np.zeros(64, np.float32),))
    assert e.value.kind == "race" and "write-after-read" in str(e.value)
    assert "line 7" in str(e.value) and "line 8" in str(e.value)


def test_a_read_only_input_gets_no_shadow_and_races_on_written_arrays_are_still_found():
    src = r"""
    __global__ void shift(float *out, const float *in)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[i];
        if (i + 1 < 256) out[i + 1] = 1.0f;      // races with the neighbour's write
    }"""
    x = np.arange(256, dtype=np.float32)
    x.flags.writeable = False
    out = np.zeros(256, np.float32)
    with pytest.raises(simcore.KernelFault) as e:
        simcore.RawKernel(src, "shift")((1,), (256,), (out, x))
    assert e.value.kind == "race"
    races, engine = _race_detector_after(src.replace("out[i + 1] = 1.0f", "out[i] += 1.0f"), "shift", 1, 256,
                                         (out, x))
    regions = {r.name: r.id for r in engine.memory.regions.values()}
    assert regions["in"] not in races.global_shadows and regions["out"] in races.global_shadows


WARP_TAIL = r"""
__global__ void warp_tail(float *out, const float *in)
{
    __shared__ float s[1024];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 32; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    for (int stride = 16; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""


def test_a_kernel_with_syncwarp_in_1024_thread_blocks_keeps_int32_shared_records():
    """__syncwarp adds an 8-bit warp epoch: site 5 bits (8 memory sites), slot 12, two epochs
    16 make 33 bits, too many for an int32 with the site inside, so the site moves to its own
    uint8 array: 5 bytes a record (10 a word read and written), never an int64's 8. The output's
    record (thread 14 bits at 2^11 threads, the same epochs: 30 bits) is the same: 5 bytes."""
    x = np.arange(2 * 1024, dtype=np.float32)
    out = np.zeros(2, np.float32)
    races, engine = _race_detector_after(WARP_TAIL, "warp_tail", 2, 1024, (out, x))
    assert np.allclose(out, x.reshape(2, -1).sum(axis=1))
    assert _bytes_per_word(races, engine, {"out": 5, "s": 10}) <= 10
