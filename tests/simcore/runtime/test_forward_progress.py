"""Forward progress (docs/semantics.md, section "Forward progress"): under independent thread
scheduling every thread eventually runs, so spin locks and flag waits that CUDA makes legal on
compute capability 7.0 and later finish under every schedule; the watchdog calls a loop
endless only when the state repeats with every lane that could run having run, decides from
simulated state and a budget of steps (never the clock), and finds long cycles too.
"""
import numpy as np
import pytest

import simcore

SCHEDULES = [("lockstep", 0), ("round_robin", 0), ("adversarial", 0), ("random", 0), ("random", 1),
             ("random", 7)]

# name: (source, what count[0] holds at the end, with the launch (2 blocks of `block` threads))
LEGAL = {
    # the programming guide's example of what independent thread scheduling allows: every lane
    # of a warp takes the lock in turn; the holder must not wait at the loop's end for its
    # spinning warp-mates
    "every_lane_takes_a_lock": (r'''extern "C" __global__ void k(int *lock, int *count) {
    while (atomicCAS(lock, 0, 1) != 0) { }
    count[0] += 1;
    __threadfence();
    atomicExch(lock, 0);
}''', lambda block: 2 * block),
    # the lock taken inside the loop, released before the next try
    "lock_in_the_loop": (r'''extern "C" __global__ void k(int *lock, int *count) {
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            count[0] += 1;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}''', lambda block: 2 * block),
    # one thread per block spins on a global lock
    "one_thread_per_block_locks": (r'''extern "C" __global__ void k(int *lock, int *count) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        count[0] += 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}''', lambda block: 2),
    # waiters reach the flag loop before the writer (lane 31 of the same warp) ran
    "flag_in_a_warp": (r'''extern "C" __global__ void k(int *flag, int *count) {
    if (threadIdx.x % 32 != 31) {
        while (atomicAdd(&flag[blockIdx.x], 0) == 0) { }
        atomicAdd(count, 1);
    } else if (threadIdx.x == 31) {
        __threadfence();
        atomicExch(&flag[blockIdx.x], 1);
    }
}''', lambda block: 2 * (block - block // 32)),
    # the waiters are one warp, the writer another warp of the block
    "flag_between_warps": (r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    if (threadIdx.x < 32) {
        while (flag[blockIdx.x] == 0) { }
        atomicAdd(count, 1);
    } else if (threadIdx.x == blockDim.x - 1) {
        __threadfence();
        flag[blockIdx.x] = 1;
    }
}''', lambda block: 64),
    # block 0 waits for block 1 (both resident: one wave)
    "flag_between_blocks": (r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    if (blockIdx.x == 0) {
        while (flag[0] == 0) { }
        atomicAdd(count, 1);
    } else if (threadIdx.x == 0) {
        __threadfence();
        flag[0] = 1;
    }
}''', lambda block: block),
}


@pytest.mark.parametrize("schedule, seed", SCHEDULES)
@pytest.mark.parametrize("name", list(LEGAL))
@pytest.mark.parametrize("block", [64, 128])
def test_spin_locks_and_flag_waits_finish_under_every_schedule(name, schedule, seed, block):
    src, expected = LEGAL[name]
    lock, count = np.zeros(2, np.int32), np.zeros(2, np.int32)
    simcore.RawKernel(src, "k")((2,), (block,), (lock, count), schedule=schedule, seed=seed,
                                checks={"global_race": False})
    assert count[0] == expected(block)


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
@pytest.mark.parametrize("name", ["every_lane_takes_a_lock", "flag_in_a_warp"])
def test_the_same_code_deadlocks_under_the_stack_model_and_the_report_names_it(name, schedule):
    src, _ = LEGAL[name]
    k = simcore.RawKernel(src, "k")
    with pytest.raises(simcore.StepLimit) as info:
        k((2,), (64,), (np.zeros(2, np.int32), np.zeros(2, np.int32)), schedule=schedule, model="stack",
          checks={"global_race": False})
    text = str(info.value)
    assert info.value.kind == "step_limit" and 'model="stack"' in text and "pre-Volta" in text
    assert "independent thread scheduling" in text
    assert k.last_launch.steps < 20_000         # from the state, within a budget of steps


def test_a_waiter_whose_registers_keep_changing_does_not_starve_the_writer():
    """`tries` changes every iteration, so no state repeats: lockstep would run the waiters (the
    lowest program point) forever; fairness gives the writer its turn after a bounded number of
    steps (STARVE_STEPS), deterministically."""
    src = r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    int tries = 0;
    if (threadIdx.x != 0) {
        while (flag[0] == 0) { tries++; }
        atomicAdd(count, 1);
    } else {
        flag[0] = 1;
    }
}'''
    from simcore.runtime.watchdog import STARVE_STEPS
    steps = []
    for _ in range(2):
        count = np.zeros(2, np.int32)
        k = simcore.RawKernel(src, "k")
        k((1,), (32,), (np.zeros(2, np.int32), count), checks={"global_race": False})
        assert count[0] == 31
        steps.append(k.last_launch.steps)
    assert steps[0] == steps[1] and steps[0] < 3 * STARVE_STEPS


LONG_CYCLES = [(p, s) for p in (64, 1000) for s in ("lockstep", "round_robin", "adversarial", "random")]


def period_loop(period):
    """A wait on a flag nobody sets whose register state repeats every `period` iterations."""
    src = r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    int i = 0;
    while (flag[0] == 0) { i = (i + 1) % PERIOD; }
    count[0] = i;
}'''.replace("PERIOD", str(period))
    return simcore.RawKernel(src, "k")


@pytest.mark.parametrize("period,schedule", LONG_CYCLES, ids=[f"{p}-{s}" for p, s in LONG_CYCLES])
def test_endless_loops_with_long_cycles_are_found_from_the_state(period, schedule):
    """The state repeats only every `period` iterations (four warps interleaved: a cycle of up to
    8 * period steps): Brent's checkpoint in probes of growing length, half of the steps probed,
    finds it within a budget of steps of about 8 cycles, far before any time limit."""
    k = period_loop(period)
    with pytest.raises(simcore.StepLimit) as info:
        k((2,), (64,), (np.zeros(2, np.int32), np.zeros(2, np.int32)), schedule=schedule, time_limit=600)
    assert info.value.kind == "step_limit" and "Endless loop" in str(info.value)
    assert info.value.report["line"] == 3
    assert k.last_launch.steps < 60 * period + 20_000


# a warp that keeps no count itself, and one that counts in a register; memory is the same at
# every iteration's barriers until the end. Before: a probe that began while the counting warp
# waited at a barrier watched only the other warp, saw it repeat, and called the loop endless.
QUIET_WARP = r'''extern "C" __global__ void k(int *out) {
    __shared__ int s, done;
    int t = threadIdx.x, c = 0;
    if (t == 0) { s = 0; done = 0; }
    __syncthreads();
    while (true) {
        __syncthreads();
        if (t == 32) { s = 1; c++; s = 0; if (c == 1000) done = 1; }
        __syncthreads();
        if (done) break;
    }
    out[t] = c;
}'''


@pytest.mark.parametrize("seed", range(8))
def test_a_warp_that_repeats_while_another_counts_is_no_endless_loop(seed):
    out = np.zeros(64, np.int32)
    simcore.RawKernel(QUIET_WARP, "k")((1,), (64,), (out,), schedule="random", seed=seed)
    assert out[32] == 1000


def test_the_time_limit_is_no_verdict_and_says_how_far_the_kernel_got():
    src = 'extern "C" __global__ void k(int *o) { unsigned i = 0; while (o[0] == 0) i = i * 3 + 1; o[1] = i; }'
    with pytest.raises(simcore.TimeLimit) as info:
        simcore.RawKernel(src, "k")((3,), (32,), (np.zeros(2, np.int32),), time_limit=0.3)
    text = str(info.value)
    assert info.value.kind == "time_limit" and "time limit was reached" in text
    assert "Endless" not in text and "steps" in text and "of 3 blocks finished" in text


HELPER_IN_AN_ENDLESS_LOOP = r'''__device__ int relaxed(const int *d, int t)
{
    int left = t > 0 ? d[t - 1] : 1000;
    int right = d[t + 1];
    return min(left, right) + 1;
}

extern "C" __global__ void k(int *d, int *out)
{
    int t = threadIdx.x;
    int best = 0;
    while (d[63] == 0) {
        best = relaxed(d, t);
    }
    out[t] = best;
}
'''


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
def test_an_endless_loop_report_names_the_students_loop_not_the_helper_it_calls(schedule):
    d = np.zeros(64, np.int32)
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(HELPER_IN_AN_ENDLESS_LOOP, "k")((1,), (32,), (d, np.zeros(32, np.int32)),
                                                          schedule=schedule)
    report = info.value.report
    assert report["line"] == 12 and report["locations"][0]["what"] == "the loop that never ends"
    assert "the loop at line 12 never ends" in str(info.value)


DO_WHILE_RELAXATION = """
int changed_here;
do {
    __syncthreads();
    int best = relaxed(d, t, g, n);
    __syncthreads();
    changed_here = 0;
    if (best < d[t]) { d[t] = best; changed_here = 1; }
} while (__syncthreads_count(changed_here) > 0);
"""


@pytest.mark.parametrize("answer", ["solution", "do_while_count"])
def test_convergence_loops_finish_under_the_random_schedule_with_every_seed(answer):
    """Issue: a do-while relaxation whose exit is __syncthreads_count(changed) > 0 (an extra
    barrier at the top) and the ex03 solution were called endless under schedule="random" with
    some seeds: a probe that watched only the warps runnable when it began."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from exercise_answers import answer_template, kernel_with, solution_notebook
    path = solution_notebook("ex03_convergence_loop")
    src = answer_template(path) if answer == "solution" else kernel_with(path, DO_WHILE_RELAXATION)
    far = 1 << 20
    for seed in range(24):
        rng = np.random.default_rng(seed)
        n, block = 100 + seed, 64
        is_seed = (rng.random(n) < 0.08).astype(np.int32)
        dist = np.zeros(n, np.int32)
        simcore.RawKernel(src, "distance_to_seed")(((n + block - 1) // block,), (block,),
                                                   (is_seed, dist, np.int32(n)), shared_mem=4 * block,
                                                   schedule="random", seed=seed)
        for b in range(0, n, block):
            row = is_seed[b:b + block]
            where = np.flatnonzero(row)
            want = [int(np.abs(where - i).min()) if where.size else far for i in range(len(row))]
            assert dist[b:b + block].tolist() == want, seed


def test_grading_says_the_graders_time_limit_was_reached_not_that_the_code_is_wrong(monkeypatch):
    from barrier_course.grading.checks import KernelCheckFailed, check_kernel
    monkeypatch.setenv("SIMCORE_TIME_LIMIT", "0.3")
    src = r'''extern "C" __global__ void k(int *o, int n)
{
    unsigned i = 0;
    while (o[0] == 0) i = i * 3 + 1;
    o[1] = i;
}'''
    with pytest.raises(KernelCheckFailed) as info:
        check_kernel(src, "k", make_args=lambda n, block, rng: ((1,), (np.zeros(2, np.int32), np.int32(n))),
                     reference=lambda args, n, block: {}, block_sizes=(32,), sizes=(32,),
                     schedules=("lockstep",), on_gpu=False, quiet=True)
    text = str(info.value)
    assert text.startswith("The grader's time limit was reached") and "not a fault found in your code" in text
    assert "[time_limit]" in text and "Endless" not in text


class _FakeClock:
    """The time limit's clock (watchdog.launch_clock), moving by a millisecond at every look: a
    run's clock readings are the same on every machine."""
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        self.now += 0.001
        return self.now


def test_the_time_limit_is_per_launch_not_per_wave(monkeypatch):
    import simcore.runtime.engine
    import simcore.runtime.watchdog
    src = r'''extern "C" __global__ void k(int *out)
{
    int s = 0;
    for (int i = 0; i < 200 + (int)(threadIdx.x % 3); i++) s += i;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}'''
    launch = dict(grid=(32,), block=(256,))       # round_robin: 16 blocks a wave, two waves

    def run(time_limit, wave_ends):
        clock = _FakeClock()
        monkeypatch.setattr(simcore.runtime.watchdog, "launch_clock", clock)
        monkeypatch.setattr(simcore.runtime.engine, "launch_clock", clock)
        original = simcore.runtime.engine.Engine.run_wave

        def run_wave(self, first, count):
            original(self, first, count)
            wave_ends.append(clock.now - self.watchdog.started)
        monkeypatch.setattr(simcore.runtime.engine.Engine, "run_wave", run_wave)
        out = np.zeros(32 * 256, np.int32)
        simcore.RawKernel(src, "k")(launch["grid"], launch["block"], (out,), schedule="round_robin",
                                    time_limit=time_limit)
        monkeypatch.setattr(simcore.runtime.engine.Engine, "run_wave", original)

    ends = []
    run(10_000, ends)
    assert len(ends) == 2 and ends[1] > 1.5 * ends[0] * 0.99
    # a limit longer than either wave but shorter than the launch stops it in the second wave
    with pytest.raises(simcore.TimeLimit) as info:
        run(ends[0] * 1.2, [])
    assert "16 of 32 blocks finished, blocks 16-31 running" in str(info.value)


def test_the_default_time_limit_comes_from_the_environment_and_a_bad_value_is_named(monkeypatch):
    from simcore.launch import launch_options
    monkeypatch.setenv("SIMCORE_TIME_LIMIT", "90")
    assert launch_options().time_limit == 90.0
    assert launch_options(time_limit=5).time_limit == 5.0        # an explicit time_limit= wins
    monkeypatch.setenv("SIMCORE_TIME_LIMIT", "0")
    assert launch_options().time_limit == 0.0                    # 0: no time limit
    monkeypatch.setenv("SIMCORE_TIME_LIMIT", "soon")
    with pytest.raises(simcore.LaunchError, match="SIMCORE_TIME_LIMIT='soon'"):
        launch_options()


# warp 1 sets a flag and sets it back, over and over; thread 0 counts the moments it sees it set,
# then tells warp 1 to stop. Every warp's state comes back while the flag is 0 at both ends of
# the cycle, but in between it was 1: in another order thread 0 sees it. Before: "Endless loop"
# under every schedule.
SET_AND_RESET = r'''extern "C" __global__ void k(volatile int *flag, int *out) {
    if (threadIdx.x == 0) {
        int seen = 0;
        while (seen < 300) {
            if (flag[0] == 1) { seen++; while (flag[0] == 1) { } }
        }
        flag[1] = 1;
        out[0] = seen;
    } else if (threadIdx.x == 32) {
        while (flag[1] == 0) {
            flag[0] = 1;
            if (flag[1] != 0) break;
            flag[0] = 0;
        }
    }
}'''

FAIR_ORDERS = [("lockstep", 0), ("adversarial", 0)] + [("random", seed) for seed in range(6)]


@pytest.mark.parametrize("schedule, seed", FAIR_ORDERS)
def test_a_flag_set_and_reset_while_another_warp_waits_for_it_is_no_endless_loop(schedule, seed):
    out = np.zeros(2, np.int32)
    simcore.RawKernel(SET_AND_RESET, "k")((1,), (64,), (np.zeros(2, np.int32), out), schedule=schedule,
                                          seed=seed, checks={"global_race": False})
    assert out[0] == 300


def test_round_robin_that_never_shows_the_set_flag_says_the_loop_is_the_schedules_not_the_kernels():
    """Round-robin runs thread 0's test always while the flag is 0: that schedule repeats forever,
    and the report says that memory moved in the cycle, so another order may end the kernel."""
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(SET_AND_RESET, "k")((1,), (64,), (np.zeros(2, np.int32), np.zeros(2, np.int32)),
                                              schedule="round_robin", checks={"global_race": False})
    text = str(info.value)
    assert "Endless loop under the round_robin schedule" in text and "memory took other values" in text
    assert "depends on timing" in text


def test_a_flag_set_and_reset_inside_one_step_is_never_called_an_endless_loop_under_random():
    """The waiter can never see the 1 between two steps, but a GPU could: the watchdog gives no
    verdict, and only the time limit (which says it is no verdict) stops the launch."""
    src = r'''extern "C" __global__ void k(volatile int *flag, int *out) {
    if (threadIdx.x < 32) {
        while (flag[0] == 0) { }
        if (threadIdx.x == 0) flag[1] = 1;
    } else if (threadIdx.x == 32) {
        while (flag[1] == 0) { flag[0] = 1; flag[0] = 0; }
    }
    out[threadIdx.x] = 1;
}'''
    with pytest.raises(simcore.TimeLimit) as info:
        simcore.RawKernel(src, "k")((1,), (64,), (np.zeros(2, np.int32), np.zeros(64, np.int32)),
                              schedule="random", time_limit=1.0, checks={"global_race": False})
    assert "Endless" not in str(info.value)


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
def test_a_loop_that_stores_the_value_memory_already_holds_is_still_found_endless(schedule):
    """Only a write that changes a value counts as memory moving: rewriting the same value each
    iteration leaves the state repeating."""
    src = r'''extern "C" __global__ void k(volatile int *flag, int *out) {
    while (flag[0] == 0) { out[blockIdx.x * blockDim.x + threadIdx.x] = 5; }
}'''
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(src, "k")((2,), (64,), (np.zeros(2, np.int32), np.zeros(128, np.int32)),
                                    schedule=schedule, time_limit=600)
    assert "Endless loop: the kernel came back" in str(info.value)


def test_round_robin_finds_an_endless_loop_of_many_warps_within_a_step_budget():
    """64 warps, each on a cycle of 600 iterations (2 steps each): the wave's state repeats only
    every 76,800 steps, longer than half of MAX_PROBE. Before: only the time limit stopped it;
    now the state at each round's start is compared, found about one cycle after that watch
    begins."""
    period, warps = 600, 64
    k = period_loop(period)
    with pytest.raises(simcore.StepLimit) as info:
        k((2,), (1024,), (np.zeros(2, np.int32), np.zeros(2, np.int32)), schedule="round_robin", time_limit=600)
    assert "Endless loop" in str(info.value) and info.value.report["line"] == 3
    cycle = 2 * period * warps
    assert k.last_launch.steps < 2 * cycle + 60_000
