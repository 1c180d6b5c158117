"""Release and acquire (docs/semantics.md, "Fences and flags"): a fence then a strong write of a
flag, seen by a strong read of that flag then a fence, orders everything before the first fence
before everything after the second, at the fences' scope; nothing else that fences or flags do
orders anything. Each legal kernel here was reported as a data race before the rule existed;
each broken twin must stay one.

The spinning waits are written so that the writer can run first under every schedule simcore
has today (the waiting block passes a barrier with the writer's block before it spins; see
the report of issue 18 for the schedules that still starve a spinner's writer).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import simcore

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance import corpus, runner  # noqa: E402

SCHEDULES = [dict(schedule="lockstep"), dict(schedule="round_robin"), dict(schedule="random", seed=0),
             dict(schedule="random", seed=7)]
RA_ENTRIES = [e for e in corpus.ENTRIES if e.name.startswith("ra_")]


def _id(cfg):
    return "-".join(str(v) for v in cfg.values())


@pytest.mark.parametrize("cfg", SCHEDULES, ids=_id)
@pytest.mark.parametrize("entry", RA_ENTRIES, ids=lambda e: e.name)
def test_corpus_hand_offs_under_every_fair_schedule(entry, cfg):
    res = runner.run_sim(entry, **cfg)
    assert res.verdict == entry.expect, res.detail
    if entry.defined:
        assert runner.check_outputs(runner.expected_outputs(entry), res.args) is None


# the adversarial schedule runs the last warp first and keeps running it: a spinning reader in
# the writer's own block starves the writer today (issue 18, item 1); between blocks it is fair
@pytest.mark.parametrize("entry", [e for e in RA_ENTRIES if "shared" not in e.name], ids=lambda e: e.name)
def test_corpus_hand_offs_between_blocks_under_the_adversarial_schedule(entry):
    res = runner.run_sim(entry, schedule="adversarial")
    assert res.verdict == entry.expect, res.detail


def test_every_pattern_has_a_legal_and_a_broken_twin():
    verdicts = {e.name: e.expect for e in RA_ENTRIES}
    legal = [n for n, v in verdicts.items() if v == "ok"]
    broken = [n for n, v in verdicts.items() if v == "race"]
    assert len(legal) >= 4 and len(broken) >= 7, verdicts


# ------------------------------------------------------------------ kernels written here
HAND_OFF = r"""
extern "C" __global__ void k(const int* in, int* data, int* flag, int* out)
{
    int t = threadIdx.x, b = blockIdx.x;
    data[b * blockDim.x + t] = in[b * blockDim.x + t] + 1;
    __syncthreads();
    if (b == WRITER) {
        if (t == LEADER) {
            RELEASE_FENCE;
            RELEASE_STORE;
        }
        return;
    }
    if (t == LEADER) {
        while (ACQUIRE_LOAD == 0) { }
        ACQUIRE_FENCE;
    }
    __syncthreads();
    out[b * blockDim.x + t] = data[WRITER * blockDim.x + (blockDim.x - 1 - t)];
}
"""


def hand_off(grid=2, block=64, writer=0, leader=0, release_fence="__threadfence()",
             release_store="atomicExch(flag, 1)", acquire_load="atomicAdd(flag, 0)",
             acquire_fence="__threadfence()", **launch):
    src = (HAND_OFF.replace("RELEASE_FENCE", release_fence or "(void)0")
           .replace("RELEASE_STORE", release_store).replace("ACQUIRE_LOAD", acquire_load)
           .replace("ACQUIRE_FENCE", acquire_fence or "(void)0")
           .replace("WRITER", str(writer)).replace("LEADER", str(leader)))
    n = grid * block
    x = np.arange(n, dtype=np.int32) * 5 - 3
    data, flag, out = np.zeros(n, np.int32), np.zeros(1, np.int32), np.zeros(n, np.int32)
    simcore.RawKernel(src, "k")((grid,), (block,), (x, data, flag, out), **launch)
    w = (x[writer * block:(writer + 1) * block] + 1)[::-1]
    for b in range(grid):
        if b != writer:
            assert (out[b * block:(b + 1) * block] == w).all()
    return out


VOLATILE = dict(release_store="*(volatile int*)flag = 1", acquire_load="*(volatile int*)flag")


@pytest.mark.parametrize("shape", [dict(grid=2, block=64), dict(grid=3, block=96, writer=2, leader=5),
                                   dict(grid=4, block=32, writer=1, leader=31)], ids=str)
@pytest.mark.parametrize("flag", [{}, VOLATILE, dict(release_store="atomicAdd(flag, 1)",
                                                     acquire_load="atomicOr(flag, 0)")], ids=str)
def test_hand_off_between_blocks_is_legal(shape, flag):
    hand_off(**shape, **flag)


@pytest.mark.parametrize("broken", [
    dict(release_fence=None, acquire_fence=None),                       # a flag without fences
    dict(release_fence=None),                                           # no release fence
    dict(release_fence="__threadfence_block()", acquire_fence="__threadfence_block()"),  # block scope
    dict(release_fence="__threadfence_block()"),                        # block scope on one side
    dict(VOLATILE, acquire_fence=None),                                 # volatile flag, no acquire fence
    dict(VOLATILE, acquire_fence="__threadfence_block()"),              # acquire at block scope
    dict(VOLATILE, acquire_load="*flag"),                               # plain load: no acquire
    dict(release_store="*flag = 1", acquire_load="*(volatile int*)flag"),   # plain store: no release
], ids=str)
@pytest.mark.parametrize("cfg", SCHEDULES[:2], ids=_id)
def test_broken_hand_offs_stay_races(broken, cfg):
    with pytest.raises(simcore.DataRace) as info:
        hand_off(grid=3, block=64, writer=1, leader=3, **broken, **cfg)
    assert "different blocks" in str(info.value)


def test_reports_say_what_a_hand_off_needs():
    with pytest.raises(simcore.DataRace) as info:
        hand_off(release_fence=None)
    assert "no release/acquire hand-off orders them" in str(info.value)
    with pytest.raises(simcore.DataRace) as info:
        hand_off(**dict(VOLATILE, acquire_load="*flag"))
    text = str(info.value)
    assert "on the flag flag[0]" in text and "plain load" in text and "volatile load" in text


def test_the_fence_on_the_wrong_side_orders_nothing():
    """A fence after the flag (the writer's side): nothing before the flag is released."""
    for flag in ({}, VOLATILE):
        store = flag.get("release_store", "atomicExch(flag, 1)")
        with pytest.raises(simcore.DataRace):
            hand_off(**dict(flag, release_fence="(void)0", release_store=store + "; __threadfence()"))


def test_a_fence_whose_flag_nobody_reads_orders_nothing():
    src = r"""
    extern "C" __global__ void k(int* data, int* flag, int* out)
    {
        int t = threadIdx.x;
        if (blockIdx.x == 0) {
            data[t] = t + 1;
            __threadfence();
            if (t == 0) atomicExch(flag, 1);
            return;
        }
        __threadfence();
        out[t] = data[t];
    }
    """
    args = (np.zeros(32, np.int32), np.zeros(1, np.int32), np.zeros(32, np.int32))
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(src, "k")((2,), (32,), args)


RELAY = r"""
extern "C" __global__ void relay(int* data, int* flags, int* out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = 10 * t;
        __syncthreads();
        if (t == 0) { __threadfence(); atomicExch(&flags[0], 1); }
        return;
    }
    __syncthreads();
    if (blockIdx.x == 1) {
        if (t == 0) {
            while (atomicAdd(&flags[0], 0) == 0) { }
            RELAY_FENCE;
            atomicExch(&flags[1], 1);
        }
        return;
    }
    if (t == 0) {
        while (atomicAdd(&flags[1], 0) == 0) { }
        __threadfence();
    }
    __syncthreads();
    out[t] = data[31 - t];
}
"""


def test_happens_before_is_transitive_through_a_relay():
    """Block 0 hands to block 1, which hands on to block 2: block 2 may read block 0's data
    (block 1's single fence acquires from block 0 and releases to block 2)."""
    out = np.zeros(32, np.int32)
    simcore.RawKernel(RELAY.replace("RELAY_FENCE", "__threadfence()"), "relay")(
        (3,), (32,), (np.zeros(32, np.int32), np.zeros(2, np.int32), out))
    assert (out == 10 * np.arange(32)[::-1]).all()
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(RELAY.replace("RELAY_FENCE", "(void)0"), "relay")(
            (3,), (32,), (np.zeros(32, np.int32), np.zeros(2, np.int32), np.zeros(32, np.int32)))


WAR = r"""
extern "C" __global__ void war(int* data, int* done, int* out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 1) {
        out[t] = data[t];                 // read block 0's old value
        __syncthreads();
        if (t == 0) { FENCE; atomicExch(done, 1); }
        return;
    }
    __syncthreads();
    if (t == 0) {
        while (atomicAdd(done, 0) == 0) { }
        FENCE;
    }
    __syncthreads();
    data[t] = -1;                         // overwrite only after block 1 has read
}
"""


def test_a_hand_off_orders_reads_before_later_writes():
    data, out = np.arange(32, dtype=np.int32), np.zeros(32, np.int32)
    simcore.RawKernel(WAR.replace("FENCE", "__threadfence()"), "war")((2,), (32,), (data, np.zeros(1, np.int32), out))
    assert (out == np.arange(32)).all() and (data == -1).all()
    with pytest.raises(simcore.DataRace) as info:
        simcore.RawKernel(WAR.replace("FENCE", "(void)0"), "war")(
            (2,), (32,), (np.arange(32, dtype=np.int32), np.zeros(1, np.int32), np.zeros(32, np.int32)))
    assert "write-after-read" in str(info.value)


LOCK = r"""
extern "C" __global__ void locked(int* lock, int* counter, int* log)
{
    if (threadIdx.x % 32 != LANE) return;
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            ACQUIRE;
            int k = counter[0];
            log[k] = blockIdx.x * 100 + threadIdx.x;
            counter[0] = k + 1;
            RELEASE;
            atomicExch(lock, 0);
            done = true;
        }
    }
}
"""


@pytest.mark.parametrize("lane", [0, 17])
@pytest.mark.parametrize("cfg", SCHEDULES[:3], ids=_id)
def test_a_lock_orders_its_critical_sections(lane, cfg):
    src = LOCK.replace("LANE", str(lane)).replace("ACQUIRE", "__threadfence()").replace("RELEASE", "__threadfence()")
    counter, log = np.zeros(1, np.int32), np.full(12, -1, np.int32)
    simcore.RawKernel(src, "locked")((6,), (64,), (np.zeros(1, np.int32), counter, log), **cfg)
    assert counter[0] == 12
    assert sorted(log.tolist()) == sorted(b * 100 + w * 32 + lane for b in range(6) for w in range(2))


@pytest.mark.parametrize("acquire,release", [("(void)0", "(void)0"), ("__threadfence()", "(void)0"),
                                             ("(void)0", "__threadfence()"),
                                             ("__threadfence_block()", "__threadfence_block()")])
def test_a_lock_without_both_fences_is_a_race(acquire, release):
    src = LOCK.replace("LANE", "0").replace("ACQUIRE", acquire).replace("RELEASE", release)
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(src, "locked")((6,), (64,), (np.zeros(1, np.int32), np.zeros(1, np.int32),
                                                       np.full(12, -1, np.int32)))


def test_a_block_scope_lock_orders_warps_of_one_block():
    """__threadfence_block() is enough when every holder is in one block (shared counter too)."""
    src = r"""
    extern "C" __global__ void k(int* out)
    {
        __shared__ int lock, counter;
        if (threadIdx.x == 0) { lock = 0; counter = 0; }
        __syncthreads();
        if (threadIdx.x % 32 == 0) {
            bool done = false;
            while (!done) {
                if (atomicCAS(&lock, 0, 1) == 0) {
                    __threadfence_block();
                    counter = counter + 1;
                    __threadfence_block();
                    atomicExch(&lock, 0);
                    done = true;
                }
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) out[blockIdx.x] = counter;
    }
    """
    out = np.zeros(2, np.int32)
    simcore.RawKernel(src, "k")((2,), (128,), (out,))
    assert (out == 4).all()
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(src.replace("__threadfence_block();", ""), "k")((2,), (128,), (np.zeros(2, np.int32),))


SHARED_FLAG = r"""
extern "C" __global__ void k(const int* in, int* out)
{
    __shared__ int tile[64];
    __shared__ QUAL int ready[2];
    int t = threadIdx.x;
    if (t < 2) ready[t] = 0;
    __syncthreads();
    if (t < 32) {
        tile[t] = in[t] * 3;
        tile[t + 32] = in[t + 32] * 3;
        __syncwarp();                      // lane 0's fence then releases the whole warp's writes
        if (t == 0) {
            FENCE;
            ready[1] = 1;
        }
        return;
    }
    if (t == 32 + READER) {
        while (ready[1] == 0) { }
        FENCE;
        int s = 0;
        for (int i = 0; i < 64; i++) s += tile[i];
        out[blockIdx.x] = s;
    }
}
"""


@pytest.mark.parametrize("reader", [0, 9])
def test_block_fence_hand_off_through_shared_memory(reader):
    """Warp 0's barrier-free hand-off of a shared tile to a thread of warp 1 (the reader's
    wait starts after warp 0 wrote: warps run the lower program point first). Without the
    __syncwarp, lanes 1-31 would release nothing: their writes would race."""
    src = SHARED_FLAG.replace("READER", str(reader))
    x = np.arange(64, dtype=np.int32) - 20
    out = np.zeros(3, np.int32)
    for fence in ("__threadfence_block()", "__threadfence()"):
        simcore.RawKernel(src.replace("QUAL", "volatile").replace("FENCE", fence), "k")((3,), (64,), (x, out))
        assert (out == 3 * x.sum()).all()
    broken = [src.replace("QUAL", "volatile").replace("FENCE", "(void)0"),
              src.replace("QUAL", "").replace("FENCE", "__threadfence_block()"),
              src.replace("QUAL", "volatile").replace("FENCE", "__threadfence_block()").replace("__syncwarp();", "")]
    for bad in broken:
        with pytest.raises(simcore.DataRace):
            simcore.RawKernel(bad, "k")((3,), (64,), (x, np.zeros(3, np.int32)))


# ------------------------------------------------------------------ what stays as it was
def test_kernels_without_fences_build_no_clocks():
    src = r"""
    extern "C" __global__ void k(int* a) { a[threadIdx.x] += 1; __syncthreads(); }
    """
    mod = simcore.RawModule(code=src)
    assert mod.get_function("k").program.fence_scopes == frozenset()
    mod = simcore.RawModule(code=src.replace("__syncthreads();", "__threadfence_block();"))
    assert mod.get_function("k").program.fence_scopes == {"block"}


def test_sites_know_which_accesses_are_volatile():
    src = r"""
    extern "C" __global__ void k(volatile int* v, int* p, float* f)
    {
        __shared__ volatile int s[4][4];
        __shared__ volatile int flag;
        __shared__ int plain[4];
        int t = threadIdx.x;
        v[t] = 1;
        p[t] = 2;
        *(volatile int*)p = 3;
        s[1][t % 4] = t;
        flag = s[0][t % 4];
        plain[t % 4] = flag;
        ((volatile float*)f)[t] = 1.0f;
    }
    """
    prog = simcore.RawModule(code=src).get_function("k").program
    by_line = {}
    for site in prog.sites:
        if site.memory:
            by_line.setdefault(site.text.strip(), set()).add(site.volatile)
    assert by_line["v[t] = 1;"] == {True}
    assert by_line["p[t] = 2;"] == {False}
    assert by_line["*(volatile int*)p = 3;"] == {True}
    assert by_line["s[1][t % 4] = t;"] == {True}
    assert by_line["flag = s[0][t % 4];"] == {True}
    assert by_line["plain[t % 4] = flag;"] == {False, True}        # the store is plain, the load volatile
    assert by_line["((volatile float*)f)[t] = 1.0f;"] == {True}


def test_a_launch_too_large_for_the_clocks_warns_and_keeps_the_ticket_rule():
    """Over DENSE_LIMIT threads the clocks are not kept: the launch says that a race between a
    flag's writer and reader may be a false alarm, and the last-block ticket still works."""
    src = r"""
    extern "C" __global__ void k(int* data, unsigned int* count, int* out)
    {
        __shared__ bool last;
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        data[i] = i;
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            last = atomicInc(count, gridDim.x) == gridDim.x - 1;
        }
        __syncthreads();
        if (last && threadIdx.x == 0) out[0] = data[0] + data[gridDim.x * blockDim.x - 1];
    }
    """
    from simcore.checks.release_acquire import DENSE_LIMIT
    blocks = DENSE_LIMIT // 256 + 1
    n = blocks * 256
    out = np.zeros(1, np.int32)
    kern = simcore.RawKernel(src, "k")
    with pytest.warns(simcore.SimWarning, match="may be a false alarm"):
        kern((blocks,), (256,), (np.zeros(n, np.int32), np.zeros(1, np.uint32), out))
    assert out[0] == n - 1



def test_a_hand_off_orders_readers_folded_together():
    """Every thread of block 1 reads one word (their reads fold into one record of several
    readers), then block 1 hands off to block 0, which overwrites the word: ordered."""
    src = r"""
    extern "C" __global__ void k(int* word, int* done, int* out)
    {
        int t = threadIdx.x;
        if (blockIdx.x == 1) {
            out[t] = word[0] + t;
            __syncthreads();
            if (t == 0) { __threadfence(); atomicExch(done, 1); }
            return;
        }
        __syncthreads();
        if (t == 0) {
            while (atomicAdd(done, 0) == 0) { }
            __threadfence();
            word[0] = -5;
        }
    }
    """
    word, out = np.array([40], np.int32), np.zeros(64, np.int32)
    simcore.RawKernel(src, "k")((2,), (64,), (word, np.zeros(1, np.int32), out))
    assert word[0] == -5 and (out == 40 + np.arange(64)).all()
    # thread 63 reads after the hand-off was released: its read is not ordered before the write
    late = src.replace("out[t] = word[0] + t;\n            __syncthreads();",
                       "if (t < 63) out[t] = word[0] + t;\n            __syncthreads();\n"
                       "            if (t == 63) out[t] = word[0] + t;")
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(late, "k")((2,), (64,), (np.array([40], np.int32), np.zeros(1, np.int32),
                                                   np.zeros(64, np.int32)))


def test_a_large_launch_without_any_release_does_not_warn():
    """Over DENSE_LIMIT threads a fence with no strong write after it cannot be half of a
    hand-off: the race is certain, and nothing is said about hand-offs."""
    src = r"""
    extern "C" __global__ void k(float* y, float* d, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        y[i] = i;
        __threadfence();
        __syncthreads();
        if (i + 1 < n) d[i] = y[i + 1] - y[i];
    }
    """
    import warnings
    n = 4096 + 512
    with warnings.catch_warnings():
        warnings.simplefilter("error", simcore.SimWarning)
        with pytest.raises(simcore.DataRace):
            simcore.RawKernel(src, "k")((n // 512,), (512,), (np.zeros(n, np.float32), np.zeros(n, np.float32),
                                                             np.int32(n)))


@pytest.mark.parametrize("decl,flag", [("__device__ volatile int flag;", "flag"),
                                       ("__device__ volatile int flags[3];", "flags[2]")])
def test_a_volatile_device_variable_is_a_flag(decl, flag):
    src = r"""
    DECL
    extern "C" __global__ void k(int* data, int* out)
    {
        int t = threadIdx.x;
        data[blockIdx.x * 32 + t] = 3 * t;
        __syncthreads();
        if (blockIdx.x == 0) {
            if (t == 0) { __threadfence(); FLAG = 1; }
            return;
        }
        if (t == 0) {
            while (FLAG == 0) { }
            __threadfence();
        }
        __syncthreads();
        out[t] = data[t];
    }
    """.replace("DECL", decl).replace("FLAG", flag)
    out = np.zeros(32, np.int32)
    simcore.RawKernel(src, "k")((2,), (32,), (np.zeros(64, np.int32), out))
    assert (out == 3 * np.arange(32)).all()
    with pytest.raises(simcore.DataRace):          # the same flag, not volatile: a plain load
        simcore.RawKernel(src.replace("volatile ", ""), "k")((2,), (32,), (np.zeros(64, np.int32), out))


PER_THREAD_FLAGS = r"""
extern "C" __global__ void k(int* data, int* flags, int* out)
{
    int t = threadIdx.x;
    __syncthreads();
    if (blockIdx.x == 0) {
        data[t] = t * 7;
        __threadfence();
        atomicExch(&flags[t], 1);
        return;
    }
    while (atomicAdd(&flags[WAIT], 0) == 0) { }
    __threadfence();
    out[t] = data[63 - t];
}
"""


@pytest.mark.parametrize("cfg", SCHEDULES[:3], ids=_id)
def test_a_hand_off_orders_only_what_its_own_flag_released(cfg):
    """Thread t of block 1 reads data[63 - t]: legal when it waited for flags[63 - t] (the
    writer of that element released it), a race when it waited for another thread's flag."""
    args = lambda: (np.zeros(64, np.int32), np.zeros(64, np.int32), np.zeros(64, np.int32))
    a = args()
    simcore.RawKernel(PER_THREAD_FLAGS.replace("WAIT", "63 - t"), "k")((2,), (64,), a, **cfg)
    assert (a[2] == 7 * (63 - np.arange(64))).all()
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(PER_THREAD_FLAGS.replace("WAIT", "t"), "k")((2,), (64,), args(), **cfg)


LOCK_WITHOUT_ACQUIRE_FENCE = r"""
extern "C" __global__ void k(int *lock, int *sum) {
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            *sum += threadIdx.x;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}
"""


@pytest.mark.parametrize("cfg", SCHEDULES, ids=_id)
def test_a_lock_without_its_acquire_fence_is_reported_as_that_missing_fence(cfg):
    k = simcore.RawModule(code=LOCK_WITHOUT_ACQUIRE_FENCE).get_function("k")
    with pytest.raises(simcore.DataRace) as err:
        k((2,), (64,), (np.zeros(1, np.int32), np.zeros(1, np.int32)), **cfg)
    text = str(err.value)
    assert "the hand-off has no fence after its read" in text.splitlines()[0]
    assert "put __threadfence()" in text and "after the atomicCAS that takes the lock" in text
    assert "put __syncthreads() between" not in text


def test_the_same_lock_with_its_acquire_fence_is_legal():
    fixed = LOCK_WITHOUT_ACQUIRE_FENCE.replace("== 0) {\n", "== 0) {\n            __threadfence();\n")
    out = np.zeros(1, np.int32)
    for cfg in SCHEDULES:
        out[:] = 0
        simcore.RawModule(code=fixed).get_function("k")((2,), (64,), (np.zeros(1, np.int32), out), **cfg)
        assert out[0] == 2 * sum(range(64))


def test_where_every_warp_was_names_the_line_a_lane_at_a_loops_back_edge_runs_next():
    k = simcore.RawModule(code=LOCK_WITHOUT_ACQUIRE_FENCE).get_function("k")
    with pytest.raises(simcore.DataRace) as err:
        k((2,), (64,), (np.zeros(1, np.int32), np.zeros(1, np.int32)), schedule="lockstep")
    assert "warp 1: all lanes about to run line 4" in str(err.value)
