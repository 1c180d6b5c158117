"""Endless loops whose threads write words of their own (a heartbeat, a private counter) while
they wait for a flag nobody sets are found from the state under the random schedule, in a
budget of simulated steps (issue 18 item 3): memory moves at every iteration there, so the long
look that needs memory to stand still never concluded and only the time limit stopped them.
The own-words watch (runtime/own_words.py) gives the verdict when every word that moved was
read and written by one thread alone; a word another thread reads, a shared atomic, or a loop
that really ends is never called endless.

time_limit=600 only keeps a broken watchdog from hanging the suite: its fault is no verdict and
fails the test. Every bound asserted is a count of simulated steps.
"""
import numpy as np
import pytest

import simcore

NO_RACE_CHECK = {"global_race": False}     # (a volatile flag without fences is another question)

HEARTBEAT_IN_A_REGISTER = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 0;
    while (flag[0] == 0) { beat[t] = i; i = (i + 1) % PERIOD; }
}'''
HEARTBEAT_IN_MEMORY = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    while (flag[0] == 0) { beat[t] = (beat[t] + 1) % PERIOD; }
}'''
HEARTBEAT_IN_SHARED = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    __shared__ int mine[256];
    mine[threadIdx.x] = 0;
    while (flag[0] == 0) { mine[threadIdx.x] = (mine[threadIdx.x] + 3) % PERIOD; }
    beat[blockIdx.x * blockDim.x + threadIdx.x] = mine[threadIdx.x];
}'''
HEARTBEAT_IN_LOCAL = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int ring[4] = {0, 0, 0, 0};
    int i = 0;
    while (flag[0] == 0) { ring[i & 3] = (ring[(i + 3) & 3] + 1) % PERIOD; i = (i + 1) & 3; beat[t] = ring[i]; }
}'''
ENDLESS = [("register", HEARTBEAT_IN_A_REGISTER), ("global", HEARTBEAT_IN_MEMORY),
           ("shared", HEARTBEAT_IN_SHARED), ("local", HEARTBEAT_IN_LOCAL)]


def launch(src, grid=2, block=64, period=64, seed=0, schedule="random", n=None, kernel=None):
    k = kernel or simcore.RawKernel(src.replace("PERIOD", str(period)), "k")
    flag, beat = np.zeros(2, np.int32), np.zeros(n or grid * block, np.int32)
    k((grid,), (block,), (flag, beat), schedule=schedule, seed=seed, time_limit=600, checks=NO_RACE_CHECK)
    return k, flag, beat


def endless(src, period=64, seed=0):
    """-> (the report's text, the launch's steps) of a launch reported as an endless loop at
    the line of its wait (else the test fails)."""
    k = simcore.RawKernel(src.replace("PERIOD", str(period)), "k")
    with pytest.raises(simcore.StepLimit) as info:
        launch(src, kernel=k, seed=seed)
    wait = next(n for n, line in enumerate(src.splitlines(), 1) if "while (flag" in line)
    assert info.value.report["line"] == wait, str(info.value)
    return str(info.value), k.last_launch.steps


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name, src", ENDLESS, ids=[e[0] for e in ENDLESS])
def test_a_heartbeat_while_waiting_for_a_flag_nobody_sets_is_an_endless_loop(name, src, seed):
    """Before: the random schedule reached only the time limit (about 170,000 steps in 15 s)."""
    text, steps = endless(src, seed=seed)
    assert "Endless loop: in every order" in text and "one thread alone reads and writes" in text, text
    assert steps < 100_000


def test_a_long_heartbeat_cycle_is_found_within_a_few_of_its_lengths():
    """A cycle of 1,000 iterations per thread, four warps: a few of its lengths in steps."""
    text, steps = endless(HEARTBEAT_IN_MEMORY, period=1000)
    assert "one thread alone reads and writes" in text and steps < 200_000


# the legal twins: each one ends, under every seed
COUNT_TO_A_BOUND = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    while (flag[0] == 0 && beat[t] < 3000) { beat[t] = beat[t] + 1; }
}'''
# thread 0 waits to see thread 1's heartbeat at 63, then sets the flag: the heartbeat is read by
# another thread, so it is no word of one thread alone
WATCHED_HEARTBEAT = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    volatile int *b = beat;
    if (t == 0) { while (b[1] != 63) { } flag[0] = 1; }
    else { while (flag[0] == 0) { b[t] = (b[t] + 1) % 64; } }
}'''
# (lanes 0 and 1 share a warp there) the same between warps: thread 33's word is read by thread 0
WATCHED_FROM_ANOTHER_WARP = WATCHED_HEARTBEAT.replace("b[1]", "b[33]")
# the stop comes from a shared counter every thread bumps: an atomic many threads touch
STOP_BY_A_SHARED_COUNT = r'''extern "C" __global__ void k(volatile int *flag, int *beat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 0;
    while (atomicAdd(&beat[255], 1) < 5000) { beat[t] = i; i = (i + 1) % 64; }
}'''
LEGAL = [("count_to_a_bound", COUNT_TO_A_BOUND, 2, 64), ("watched_heartbeat", WATCHED_HEARTBEAT, 1, 64),
         ("watched_from_another_warp", WATCHED_FROM_ANOTHER_WARP, 1, 64),
         ("stop_by_a_shared_count", STOP_BY_A_SHARED_COUNT, 1, 128)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("name, src, grid, block", LEGAL, ids=[e[0] for e in LEGAL])
def test_loops_that_end_are_never_called_endless(name, src, grid, block, seed):
    k, flag, beat = launch(src, grid=grid, block=block, seed=seed, n=256)
    if name == "count_to_a_bound":
        assert (beat[:grid * block] == 3000).all()
    elif name == "stop_by_a_shared_count":
        assert beat[255] >= 5000
    else:
        assert flag[0] == 1


def test_the_watch_leaves_no_hooks_behind(monkeypatch):
    """However the launch ends (here: the endless verdict, a fault raised from inside the
    watchdog), every watch that put its hooks into memory's lists took them out again."""
    from simcore.runtime import own_words
    hooked = []
    install, remove = own_words.OwnWords.install, own_words.OwnWords.remove

    def counted_install(self):
        install(self)
        self.lists = (self.memory.plugins.memory_access, self.memory.plugins.lane_access)
        hooked.append(self)

    monkeypatch.setattr(own_words.OwnWords, "install", counted_install)
    k = simcore.RawKernel(HEARTBEAT_IN_MEMORY.replace("PERIOD", "64"), "k")
    with pytest.raises(simcore.StepLimit):
        k((2,), (64,), (np.zeros(2, np.int32), np.zeros(128, np.int32)), schedule="random",
          time_limit=600, checks=NO_RACE_CHECK)
    assert hooked, "the watch never started"
    for watch in hooked:
        assert not watch.installed
        for hooks in watch.lists:
            assert all(getattr(h, "__self__", None) is not watch for h in hooks)
