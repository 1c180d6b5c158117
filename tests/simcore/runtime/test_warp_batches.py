"""Batched per-warp schedules (simcore/runtime/warp_batches.py): a clean launch of a plain kernel
under `adversarial`, `round_robin` or `random` runs many warps per step and gives exactly the sequential
run's outputs, steps and thread-instructions; anything else (a race, a fault, a warning, an
endless loop, a long wave, the time limit) falls back to the sequential run, whose report,
steps and outputs are then the launch's, with nothing of the attempt left behind.

Every comparison runs the same launch with batching switched off (SIMCORE_WARP_BATCHES=0)."""
import warnings

import numpy as np
import pytest

import simcore
import simcore.runtime.warp_batches as warp_batches
from simcore.runtime.watchdog import Watchdog, quiet_steps_of

BATCHED = ["adversarial", "round_robin", "random"]

CLEAN = r"""
extern "C" __global__ void reduce(float *out, const float *in)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void diverge(int *out, const int *in)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g], n = 0;
    while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; n++; }     // a different trip count per lane
    int w = __shfl_down_sync(0xffffffff, n, 1);
    out[g] = n + w;
}
"""

RACY = r"""
extern "C" __global__ void shift(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    s[(t + 1) % 64] += 1;           // another warp's element, no barrier between
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[t];
}
"""

FAULTY = r"""
extern "C" __global__ void late_fault(int *acc, int *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    acc[g] += 1;                    // written in place before the fault
    __syncthreads();
    out[g + (g == n - 1 ? 1000000 : 0)] = g;    // the last thread writes far out of bounds
}
"""

ENDLESS = r"""
extern "C" __global__ void spin(int *out, const int *flag)
{
    int i = 0;
    while (flag[0] == 0) { i = (i + 1) & 7; }   // nobody ever sets the flag
    out[threadIdx.x] = i;
}
"""

LONG = r"""
extern "C" __global__ void count(int *out, int n)
{
    int s = 0;
    for (int i = 0; i < n + (int)(threadIdx.x % 3); i++) s += i;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


@pytest.fixture
def attempts(monkeypatch):
    """Counts the batched attempts and how they ended: [(clean?)]."""
    seen = []
    original = warp_batches.attempt

    def attempt(*args, **kwargs):
        engine, started = original(*args, **kwargs)
        seen.append(engine is not None)
        return engine, started
    monkeypatch.setattr(warp_batches, "attempt", attempt)
    return seen


def launch(monkeypatch, source, name, grid, block, make_args, batched, **options):
    """-> (the arguments after the launch, the record's steps and thread-instructions, its
    warnings, the fault's report or None)."""
    monkeypatch.setenv(warp_batches.SWITCH_VARIABLE, "1" if batched else "0")
    kernel = simcore.RawModule(code=source).get_function(name)
    args = make_args()
    report = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            kernel(grid, block, args, **options)
        except simcore.KernelFault as e:
            report = e.report
    rec = kernel.last_launch
    return [a.copy() for a in args if isinstance(a, np.ndarray)], rec.steps, rec.thread_instructions, \
        list(rec.warnings), report


def same_as_sequential(monkeypatch, *launch_args, **options):
    batched = launch(monkeypatch, *launch_args, batched=True, **options)
    sequential = launch(monkeypatch, *launch_args, batched=False, **options)
    for x, y in zip(batched[0], sequential[0]):
        np.testing.assert_array_equal(x, y)
    assert batched[1:] == sequential[1:]
    return batched


def reduce_args():
    return [np.zeros(64, np.float32), np.arange(64 * 128, dtype=np.float32) % 7]


@pytest.mark.parametrize("schedule", BATCHED)
def test_a_clean_reduction_runs_batched_with_the_sequential_outputs_steps_and_instructions(monkeypatch, attempts,
                                                                                           schedule):
    out, steps, _, _, report = same_as_sequential(monkeypatch, CLEAN, "reduce", (64,), (128,), reduce_args,
                                                  schedule=schedule)
    assert report is None and attempts[0] is True
    np.testing.assert_array_equal(out[0], (np.arange(64 * 128) % 7).reshape(64, 128).sum(axis=1))
    assert steps > 64 * 4 * 8       # a step per warp and group, as the per-warp schedule counts them


@pytest.mark.parametrize("schedule", BATCHED)
def test_divergent_loops_and_shuffles_run_batched_with_the_sequential_steps(monkeypatch, attempts, schedule):
    rng = np.random.default_rng(3)
    values = rng.integers(1, 16, 8 * 96).astype(np.int32)
    same_as_sequential(monkeypatch, CLEAN, "diverge", (8,), (96,),
                       lambda: [np.zeros(8 * 96, np.int32), values], schedule=schedule)
    assert attempts[0] is True


@pytest.mark.parametrize("schedule", BATCHED)
def test_a_racy_kernel_falls_back_and_reports_exactly_the_sequential_race(monkeypatch, attempts, schedule):
    _, _, _, _, report = same_as_sequential(monkeypatch, RACY, "shift", (2,), (64,),
                                            lambda: [np.zeros(128, np.int32)], schedule=schedule)
    assert report is not None and report["kind"] == "race"
    assert attempts[0] is False


@pytest.mark.parametrize("schedule", BATCHED)
def test_a_fault_falls_back_with_the_arrays_restored_before_the_sequential_run(monkeypatch, attempts, schedule):
    n = 4 * 64
    acc, _, _, _, report = same_as_sequential(
        monkeypatch, FAULTY, "late_fault", (4,), (64,),
        lambda: [np.arange(n, dtype=np.int32), np.zeros(n, np.int32), np.int32(n)], schedule=schedule)
    assert report is not None and attempts[0] is False
    # each element incremented once (by the sequential run), not twice
    np.testing.assert_array_equal(acc[0], np.arange(n) + 1)


@pytest.mark.parametrize("schedule", BATCHED)
def test_an_endless_plain_loop_falls_back_and_gets_the_sequential_verdict(monkeypatch, attempts, schedule):
    _, _, _, _, report = same_as_sequential(monkeypatch, ENDLESS, "spin", (1,), (64,),
                                            lambda: [np.zeros(64, np.int32), np.zeros(1, np.int32)],
                                            schedule=schedule, time_limit=60)
    assert report is not None and report["title"].startswith("Endless loop")
    assert attempts[0] is False


@pytest.mark.parametrize("schedule", BATCHED)
def test_a_wave_longer_than_the_watchdogs_quiet_steps_falls_back(monkeypatch, attempts, schedule):
    out, _, _, _, report = same_as_sequential(monkeypatch, LONG, "count", (2,), (64,),
                                              lambda: [np.zeros(128, np.int32), np.int32(3000)], schedule=schedule)
    assert report is None and attempts[0] is False


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_random_schedules_seed_gives_the_sequential_runs_steps_when_batched(monkeypatch, attempts, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 16, 8 * 96).astype(np.int32)
    _, steps, _, _, _ = same_as_sequential(monkeypatch, CLEAN, "diverge", (8,), (96,),
                                           lambda: [np.zeros(8 * 96, np.int32), values], schedule="random", seed=seed)
    _, steps_reduce, _, _, _ = same_as_sequential(monkeypatch, CLEAN, "reduce", (64,), (128,), reduce_args,
                                                  schedule="random", seed=seed)
    assert attempts == [True, True]


def test_a_step_limit_within_the_wave_is_kept_and_one_past_it_falls_back(monkeypatch, attempts):
    args = (CLEAN, "reduce", (64,), (128,), reduce_args)
    steps = launch(monkeypatch, *args, batched=False, schedule="adversarial")[1]
    per_wave = steps // 2          # two waves of 32 blocks (4,096 slots a wave)
    same_as_sequential(monkeypatch, *args, schedule="adversarial", max_steps=per_wave)
    assert attempts[0] is True
    _, _, _, _, report = same_as_sequential(monkeypatch, *args, schedule="adversarial", max_steps=per_wave - 1)
    assert report is not None and report["kind"] == "step_limit" and attempts[-1] is False


def test_the_time_limit_reached_during_the_attempt_stops_the_launch_as_the_sequential_run_would(monkeypatch):
    import simcore.runtime.watchdog

    clock = {"now": 1000.0}

    def launch_clock():
        """The time limit's clock, moving by a second at every look."""
        clock["now"] += 1.0
        return clock["now"]
    monkeypatch.setattr(simcore.runtime.watchdog, "launch_clock", launch_clock)
    monkeypatch.setattr(simcore.runtime.engine, "launch_clock", launch_clock)
    monkeypatch.setenv(warp_batches.SWITCH_VARIABLE, "1")
    kernel = simcore.RawModule(code=CLEAN).get_function("reduce")
    args = reduce_args()
    with pytest.raises(simcore.TimeLimit):
        kernel((64,), (128,), args, schedule="round_robin", time_limit=3)


def test_only_plain_kernels_with_every_check_on_are_attempted(monkeypatch, attempts):
    atomic = r'''extern "C" __global__ void k(int *c) { atomicAdd(c, 1); }'''
    for source, name, opts in [(atomic, "k", dict(schedule="adversarial")),
                               (CLEAN, "reduce", dict(schedule="adversarial", checks={"race": False})),
                               (CLEAN, "reduce", dict(schedule="adversarial", trace=True)),
                               (CLEAN, "reduce", dict(schedule="lockstep")),
                               (CLEAN, "reduce", dict(schedule="adversarial", model="stack"))]:
        args = [np.zeros(64, np.float32), np.ones(64 * 128, np.float32)] if name == "reduce" else \
            [np.zeros(1, np.int32)]
        grid, block = ((64,), (128,)) if name == "reduce" else ((2,), (64,))
        monkeypatch.setenv(warp_batches.SWITCH_VARIABLE, "1")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            simcore.RawModule(code=source).get_function(name)(grid, block, args, **opts)
    assert attempts == []


def test_the_sequential_watchdog_looks_for_starving_lanes_only_after_the_quiet_steps(monkeypatch):
    """The batched run's acceptance rests on this: before quiet_steps the sequential watchdog
    does nothing a terminating launch could notice (its first probe compares whole states; the
    starvation look at a later probe's start may reorder groups)."""
    looks, quiet = [], []
    original_start, original_starve = Watchdog.start_wave, Watchdog._starvation

    def start_wave(self, w, max_steps):
        first = original_start(self, w, max_steps)
        quiet.append(w.steps + quiet_steps_of(self.engine.schedule, w.nwarps))
        return first

    def starvation(self):
        if self.idle is not None:           # a look that compares with an earlier snapshot
            looks.append(self.w.steps)
        return original_starve(self)
    monkeypatch.setattr(Watchdog, "start_wave", start_wave)
    monkeypatch.setattr(Watchdog, "_starvation", starvation)
    launch(monkeypatch, LONG, "count", (2,), (64,), lambda: [np.zeros(128, np.int32), np.int32(3000)],
           batched=False, schedule="round_robin")
    assert looks and quiet and min(looks) > quiet[0]


LAST_BLOCK_LONG = r"""
extern "C" __global__ void tail(int *out, int n)
{
    int s = 0;
    int trips = blockIdx.x == gridDim.x - 1 ? n : 2;     // only the grid's last block loops long
    for (int i = 0; i < trips + (int)(threadIdx.x % 3); i++) s += i;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""




@pytest.mark.parametrize("schedule", BATCHED)
def test_a_launch_of_many_sequential_waves_runs_batched_in_lockstep_sized_waves_with_their_steps(
        monkeypatch, attempts, schedule):
    # 256 blocks of 64 threads: four waves of the per-warp schedules, one of lockstep's
    waves = []
    original = warp_batches.SequentialWaves.__init__

    def record(self, w, *args):
        original(self, w, *args)
        waves.append((w.nblk, len(self.limits)))
    monkeypatch.setattr(warp_batches.SequentialWaves, "__init__", record)
    same_as_sequential(monkeypatch, LAST_BLOCK_LONG, "tail", (256,), (64,),
                       lambda: [np.zeros(256 * 64, np.int32), np.int32(40)], schedule=schedule, seed=5)
    assert attempts[0] is True and waves == [(256, 4)]


@pytest.mark.parametrize("schedule", BATCHED)
def test_one_sequential_wave_past_its_quiet_steps_falls_back_though_the_batched_wave_is_larger(
        monkeypatch, attempts, schedule):
    # the last sequential wave (64 blocks, 128 warps) runs past its quiet steps (its last block's
    # 2 warps loop 3,000 times); the batched wave (256 blocks, 512 warps) has room for every step
    # of the launch, so only counting each sequential wave apart sends it to the sequential run
    out, steps, _, _, report = same_as_sequential(monkeypatch, LAST_BLOCK_LONG, "tail", (256,), (64,),
                                                  lambda: [np.zeros(256 * 64, np.int32), np.int32(3000)],
                                                  schedule=schedule)
    assert report is None and attempts[0] is False
    assert quiet_steps_of(schedule, 128) < steps < quiet_steps_of(schedule, 512)
