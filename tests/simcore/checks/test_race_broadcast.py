"""Broadcast reads (lanes sharing a granule in one instruction: As[ty][k] of a tiled matmul, s[0])
take a shortcut in the race check (RaceDetector._record_broadcast_read): one record update per
granule instead of a fold per lane. It must store exactly the record the per-lane fold stores,
so here every shortcut taken is replayed through the per-lane fold and the two shadows compared,
on reads by lanes of one warp, several warps of a block and several blocks, in shared and global
memory; and the verdicts of writes after them (racing or ordered) are checked."""
import numpy as np
import pytest

import simcore
from simcore.checks import races

# readers: lanes t < nread of every block read s[(t / span) % 4] (shared) or g[(gid / span) % 4]
# (global); then thread `writer` (launch-wide) writes that word 0 after `order`: 0 nothing,
# 1 __syncwarp(), 2 __syncthreads(). A second read of the same words (again = 1) meets the
# records of the first one: the shortcut must step aside; a read of the next word after that order
# (again = 2) meets records of other warps or blocks, and after a barrier older ones.
SOURCE = r"""
__global__ void bcast(float *g, float *out, int nread, int span, int writer, int order, int again,
                      int global, int skew)
{
    __shared__ float s[4];
    int t = threadIdx.x, gid = blockIdx.x * blockDim.x + t;
    if (t < 4) s[t] = (float)t;
    __syncthreads();
    for (int i = 0; i < (skew == 1 && blockIdx.x == 0 ? 2 : 1); i++)    // block 0 one barrier epoch ahead
        __syncthreads();
    if (skew == 2 && t < 32) __syncwarp();       // warp 0 one warp epoch ahead of the others
    float v = 0.0f;
    if (t < nread) v = global ? g[(gid / span) % 4] : s[(t / span) % 4];
    if (again && t < nread) v += global ? g[(gid / span) % 4] : s[(t / span) % 4];
    if (order == 1) __syncwarp();
    if (order == 2) __syncthreads();
    if (again == 2 && t < nread) v += global ? g[(gid / span + 1) % 4] : s[(t / span + 1) % 4];
    if (gid == writer) { if (global) g[0] = 1.0f; else s[0] = 1.0f; }
    out[gid] = v;
}"""

BLOCKS, THREADS = 3, 128


def _reads(sh, key, st, slots, number, is_global):
    """The access record of a read by lanes `slots` of granules `key` (what the per-lane
    checks read of it)."""
    return races.Access(None, None, None, "read", slots, None, number, sh, st, key, is_global, False, False,
                        st.stamp[slots], st.bar[slots])


@pytest.fixture
def replayed(monkeypatch):
    """Every shortcut taken, checked against the per-lane checks on the same shadow; -> the
    number of broadcast records stored by the shortcut."""
    taken = []
    fast = races.RaceDetector._record_broadcast_read
    may_conflict = races.RaceDetector._writer_may_conflict

    def checked(self, sh, key, st, groups, code, is_global):
        before = sh.readers().copy(), None if sh.r_site is None else sh.r_site.copy()
        if not fast(self, sh, key, st, groups, code, is_global):
            return False
        taken.append(len(key))
        shortcut = sh.r.copy(), None if sh.r_site is None else sh.r_site.copy()
        sh.r[:] = before[0]
        if before[1] is not None:
            sh.r_site[:] = before[1]
        slots = groups[0]          # the lanes, as an index array (the per-lane fold takes either)
        self._record_read(_reads(sh, key, st, slots, code // 4, is_global), True, None)
        np.testing.assert_array_equal(sh.r, shortcut[0])
        if before[1] is not None:
            np.testing.assert_array_equal(sh.r_site, shortcut[1])
        return True

    def checked_writer(self, sh, key, st, groups, is_global):
        maybe = may_conflict(self, sh, key, st, groups, is_global)
        if not maybe:
            slots = groups[0]
            assert not self._unordered(_reads(sh, key, st, slots, 0, is_global), sh.w[key], "write").any()
        return maybe
    monkeypatch.setattr(races.RaceDetector, "_record_broadcast_read", checked)
    monkeypatch.setattr(races.RaceDetector, "_writer_may_conflict", checked_writer)
    return taken


def _run(nread, span, writer, order, again=0, glob=0, skew=0):
    g = np.arange(4, dtype=np.float32)
    out = np.zeros(BLOCKS * THREADS, np.float32)
    try:
        simcore.RawKernel(SOURCE, "bcast")((BLOCKS,), (THREADS,), (g, out, *map(np.int32, (
            nread, span, writer, order, again, glob, skew))))
    except simcore.KernelFault as e:
        return str(e)
    return None


def _reference(monkeypatch, *args, run=None):
    """The verdict with the per-lane checks only."""
    current = races.RaceDetector._reader_groups
    monkeypatch.setattr(races.RaceDetector, "_reader_groups", lambda *a: None)
    try:
        return (run or _run)(*args)
    finally:
        monkeypatch.setattr(races.RaceDetector, "_reader_groups", current)


# (nread, span): one warp's half (16 lanes a word), two warps (64), a whole block, several blocks
SPANS = [(128, 16), (128, 64), (128, 128), (128, 256), (40, 8), (100, 50)]


@pytest.mark.parametrize("skew", [0, 1, 2], ids=["", "blocks-skewed", "warps-skewed"])
@pytest.mark.parametrize("glob", [0, 1], ids=["shared", "global"])
@pytest.mark.parametrize("again", [0, 1, 2], ids=["once", "twice", "next"])
@pytest.mark.parametrize("order", [0, 1, 2], ids=["unordered", "syncwarp", "syncthreads"])
@pytest.mark.parametrize("nread,span", SPANS)
def test_the_shortcut_stores_the_per_lane_records_and_the_same_verdicts(nread, span, order, again, glob, skew,
                                                                       replayed, monkeypatch):
    """skewed: blocks in different barrier epochs, warps in different warp epochs (the shortcut
    must step aside where they meet in one instruction)."""
    # writers: a lane of the first readers' warp, one of another warp, one of another block
    for writer in (3, 70, THREADS + 5):
        got = _run(nread, span, writer, order, again, glob, skew)
        assert replayed or skew, "no broadcast shortcut taken"
        assert got == _reference(monkeypatch, nread, span, writer, order, again, glob, skew)


@pytest.mark.parametrize("glob", [0, 1], ids=["shared", "global"])
def test_a_write_after_a_broadcast_read_races_unless_a_barrier_orders_it(glob):
    racy = _run(128, 16, 70, 0, 0, glob)
    assert racy is not None and "race" in racy and ("s[0]" in racy or "g[0]" in racy)
    assert "read" in racy and "write" in racy
    # __syncwarp orders only the writer's warp (lane 3's): the other readers of word 0 still race
    assert _run(128, 64, 3, 1, 0, glob) is not None
    if glob:
        # blocks are never ordered by a barrier: block 1's write races with block 0's readers
        assert "between blocks" in _run(128, 16, THREADS + 5, 2, 0, glob)
    else:
        assert _run(128, 16, 70, 2, 0, glob) is None


def test_the_tiled_matmul_takes_the_shortcut_for_both_tiles(replayed):
    from benchmarks import bench
    m = 32
    rng = np.random.default_rng(0)
    A = rng.standard_normal((m, m)).astype(np.float32)
    B = rng.standard_normal((m, m)).astype(np.float32)
    C = np.zeros(m * m, np.float32)
    bench.module(bench.WORST_SOURCE).get_function("matmul")((m // 16, m // 16), (16, 16),
                                                             (C, A.ravel(), B.ravel(), np.int32(m)))
    np.testing.assert_allclose(C.reshape(m, m), A @ B, rtol=1e-4, atol=1e-4)
    assert len(replayed) == 2 * 16 * (m // 16)         # As[ty][k] and Bs[k][tx], every k of every tile


# two reads of one word: lanes lo1 <= gid < hi1, then lo2 <= gid < hi2 (launch-wide numbers),
# so that the second meets the first's record: of one warp, of several warps of a block, of
# several blocks, holding all of the second's readers or not
WIDEN = r"""
__global__ void widen(float *g, float *out, int lo1, int hi1, int lo2, int hi2, int global, int writer)
{
    __shared__ float s[1];
    int t = threadIdx.x, gid = blockIdx.x * blockDim.x + t;
    if (t == 0) s[0] = 1.0f;
    __syncthreads();
    float v = 0.0f;
    if (gid >= lo1 && gid < hi1) v = global ? g[0] : s[0];
    if (gid >= lo2 && gid < hi2) v += global ? g[0] : s[0];
    if (gid == writer) { if (global) g[0] = 2.0f; else s[0] = 2.0f; }
    out[gid] = v;
}"""


def _widen(*args):
    g = np.ones(1, np.float32)
    out = np.zeros(BLOCKS * THREADS, np.float32)
    try:
        simcore.RawKernel(WIDEN, "widen")((BLOCKS,), (THREADS,), (g, out, *map(np.int32, args)))
    except simcore.KernelFault as e:
        return str(e)
    return None


@pytest.mark.parametrize("glob", [0, 1], ids=["shared", "global"])
@pytest.mark.parametrize("ranges", [(32, 64, 0, 64), (32, 64, 32, 64), (32, 48, 32, 64), (0, 64, 0, 64),
                                    (64, 128, 0, 128), (0, 128, 0, 128), (160, 256, 0, 256),
                                    (0, 256, 0, 256), (0, 256, 0, 384), (0, 384, 128, 256)])
def test_a_broadcast_read_meeting_an_earlier_one_stores_the_per_lane_records(ranges, glob, replayed,
                                                                            monkeypatch):
    for writer in (3, 40, THREADS + 5, 2 * THREADS + 1):
        got = _widen(*ranges, glob, writer)
        assert got == _reference(monkeypatch, *ranges, glob, writer, run=_widen)
    assert replayed

