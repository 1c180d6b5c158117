"""Endless loops with long cycles and ping-pong are found from the state, within a budget of
simulated steps, and a legal kernel is never called endless (issue 18 item 3; docs/semantics.md,
section 8): the random schedule's long per-warp look (runtime/warp_cycles.py), its closure look
(runtime/order_closure.py), and the deterministic schedules' comparison at the moments lanes get
their turn (Watchdog._fair_cycle).

Every bound here is a count of simulated steps, never a time; time_limit=600 only keeps a broken
watchdog from hanging the suite (its fault would fail the test: it is no verdict).
"""
import numpy as np
import pytest

import simcore


def period_loop(period):
    """A wait on a flag nobody sets whose registers repeat every `period` iterations."""
    return simcore.RawKernel(r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    int i = 0;
    while (flag[0] == 0) { i = (i + 1) % PERIOD; }
    count[0] = i;
}'''.replace("PERIOD", str(period)), "k")


def endless(kernel, grid, block, schedule, seed=0):
    """Launch; -> the launch's steps when it was reported as an endless loop (else the test fails)."""
    with pytest.raises(simcore.StepLimit) as info:
        kernel((grid,), (block,), (np.zeros(2, np.int32), np.zeros(2, np.int32)), schedule=schedule,
               seed=seed, time_limit=600, checks={"global_race": False})
    assert "Endless loop" in str(info.value), str(info.value)
    return kernel.last_launch.steps


def test_a_cycle_of_ten_thousand_iterations_in_four_warps_is_found_under_random():
    """Each warp's own cycle is 20,000 steps, 80,000 interleaved: longer than a probe's share of
    steps. Before: only the time limit stopped it (175,360 steps at 15 s, no verdict)."""
    for seed in (0, 1):
        steps = endless(period_loop(10_000), 2, 64, "random", seed)
        assert steps < 400_000


@pytest.mark.parametrize("period, warps", [(32, 32), (100, 4), (1000, 16)])
def test_long_cycles_are_still_found_under_random(period, warps):
    assert endless(period_loop(period), 1, 32 * warps, "random") < 60 * period * max(1, warps // 4) + 40_000


# two warps hand a flag back and forth forever: memory changes at every hand-off, but the
# whole state goes round a few states only
PING_PONG_WARPS = r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    if (threadIdx.x < 32) { while (true) { while (flag[0] != 0) { } flag[0] = 1; } }
    else { while (true) { while (flag[0] != 1) { } flag[0] = 0; } }
    count[0] = 1;
}'''
# the same between two blocks of one thread
PING_PONG_BLOCKS = r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    if (blockIdx.x == 0) { while (true) { while (flag[0] != 0) { } flag[0] = 1; } }
    else { while (true) { while (flag[0] != 1) { } flag[0] = 0; } }
    count[0] = 1;
}'''
# thread 0 and thread 32 of one block; their warp-mates wait to reconverge
PING_PONG_THREADS = r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    if (threadIdx.x == 0) { while (true) { while (flag[0] != 0) { } flag[0] = 1; } }
    else if (threadIdx.x == 32) { while (true) { while (flag[0] != 1) { } flag[0] = 0; } }
    count[0] = 1;
}'''
EVERY_SCHEDULE = [("lockstep", 0), ("adversarial", 0), ("round_robin", 0), ("random", 0), ("random", 1),
                  ("random", 2)]
PING_PONGS = [("warps", PING_PONG_WARPS, 1, 64), ("blocks", PING_PONG_BLOCKS, 2, 1)]


@pytest.mark.parametrize("schedule, seed", EVERY_SCHEDULE)
@pytest.mark.parametrize("name, src, grid, block", PING_PONGS, ids=[p[0] for p in PING_PONGS])
def test_ping_pong_is_an_endless_loop_under_every_schedule(name, src, grid, block, schedule, seed):
    """Before: lockstep, adversarial and random reached only the time limit."""
    assert endless(simcore.RawKernel(src, "k"), grid, block, schedule, seed) < 200_000


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial", "round_robin"])
def test_ping_pong_of_two_threads_is_found_under_the_deterministic_schedules(schedule):
    assert endless(simcore.RawKernel(PING_PONG_THREADS, "k"), 1, 64, schedule) < 200_000


def test_random_gives_every_order_its_own_verdict_text():
    """Under random the verdict says no order leaves the loop, not that memory stood still."""
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(PING_PONG_WARPS, "k")((1,), (64,), (np.zeros(2, np.int32), np.zeros(2, np.int32)),
                                                schedule="random", time_limit=600,
                                                checks={"global_race": False})
    text = str(info.value)
    assert "in every order" in text and "nothing in memory had changed" not in text
    assert info.value.report["line"] == 2


# the legal twin: 300 hand-offs, then both sides stop
PING_PONG_ROUNDS = r'''extern "C" __global__ void k(volatile int *flag, int *count) {
    if (threadIdx.x < 32) { for (int r = 0; r < 300; r++) { while (flag[0] != 0) { } flag[0] = 1; } }
    else if (threadIdx.x == 32) { for (int r = 0; r < 300; r++) { while (flag[0] != 1) { } flag[0] = 0; } }
    count[threadIdx.x] = 1;
}'''


@pytest.mark.parametrize("schedule, seed", EVERY_SCHEDULE + [("random", s) for s in range(3, 8)])
def test_a_ping_pong_with_an_end_finishes_under_every_schedule(schedule, seed):
    count = np.zeros(64, np.int32)
    flag = np.zeros(2, np.int32)
    # (the race check calls a volatile flag without fences a race: another question; off here)
    simcore.RawKernel(PING_PONG_ROUNDS, "k")((1,), (64,), (flag, count), schedule=schedule, seed=seed,
                                             time_limit=600, checks={"global_race": False})
    assert count[:33].all() and flag[0] == 0


CLOCK_WAIT = r'''extern "C" __global__ void k(int *out) {
    long long t0 = clock64();
    while (clock64() - t0 < 3000000) { }
    out[threadIdx.x] = 1;
}'''


@pytest.mark.parametrize("schedule, seed", [("lockstep", 0), ("adversarial", 0), ("random", 1)])
def test_a_loop_that_waits_for_the_clock_is_never_called_endless(schedule, seed):
    """Its registers come back while the clock moves on (the clock is not part of the state).
    Before: "Endless loop" under every schedule, for a loop that ends."""
    out = np.zeros(64, np.int32)
    simcore.RawKernel(CLOCK_WAIT, "k")((1,), (64,), (out,), schedule=schedule, seed=seed, time_limit=600)
    assert out.all()


def test_the_ex03_solution_is_never_called_endless_under_random_seeds_24_to_39():
    """(test_forward_progress covers seeds 0-23.) A convergence loop whose barriers' warps wait
    while others still write: no look may call it endless."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from exercise_answers import answer_template, solution_notebook
    src = answer_template(solution_notebook("ex03_convergence_loop"))
    far = 1 << 20
    for seed in range(24, 40):
        rng = np.random.default_rng(seed)
        n, block = 100 + seed, 64
        is_seed = (rng.random(n) < 0.08).astype(np.int32)
        dist = np.zeros(n, np.int32)
        simcore.RawKernel(src, "distance_to_seed")(((n + block - 1) // block,), (block,),
                                                   (is_seed, dist, np.int32(n)), shared_mem=4 * block,
                                                   schedule="random", seed=seed, time_limit=600)
        for b in range(0, n, block):
            where = np.flatnonzero(is_seed[b:b + block])
            want = [int(np.abs(where - i).min()) if where.size else far for i in range(min(block, n - b))]
            assert dist[b:b + block].tolist() == want, seed
