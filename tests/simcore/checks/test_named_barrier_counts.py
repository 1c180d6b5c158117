"""Named-barrier counts: a count that covers one side of a producer/consumer hand-off is found
under every schedule and reported as the count (expected vs arrived), never as "give every
hand-off its own barrier id" when the ids are already distinct; counts that match every
thread of a phase stay legal (docs/semantics.md, section 2)."""
import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean

RUNS = [("lockstep", 0), ("round_robin", 0), ("adversarial", 0)] + [("random", s) for s in range(4)]
MODELS = ("independent", "stack")


def pipeline(full, empty, producer="bar.arrive", consumer_empty="bar.arrive"):
    """Threads 0-63 produce a tile into buf and signal barrier 1; threads 64-127 wait at
    barrier 1, consume, and signal barrier 2 ("buffer empty"), which the producers wait at
    before the next tile."""
    return simcore.RawKernel(r'''
extern "C" __global__ void k(const int* in, int* out, int tiles)
{
    __shared__ int buf[64];
    int t = threadIdx.x;
    if (t < 64) {
        for (int i = 0; i < tiles; i++) {
            if (i > 0) asm volatile("bar.sync 2, %(empty)s;" ::: "memory");
            buf[t] = in[i * 64 + t];
            asm volatile("%(producer)s 1, %(full)s;" ::: "memory");
        }
    } else {
        int u = t - 64;
        for (int i = 0; i < tiles; i++) {
            asm volatile("bar.sync 1, %(full)s;" ::: "memory");
            out[i * 64 + u] = buf[63 - u];
            if (i + 1 < tiles) asm volatile("%(consumer_empty)s 2, %(empty)s;" ::: "memory");
        }
    }
}''' % dict(full=full, empty=empty, producer=producer, consumer_empty=consumer_empty), "k")


def launch(k, tiles, **kw):
    x = np.arange(64 * tiles, dtype=np.int32) * 3 + 1
    out = np.zeros(64 * tiles, np.int32)
    return x, out, ((1,), (128,), (x, out, np.int32(tiles)))


def assert_names_the_count(f, bar_id):
    text = str(f)
    assert f.kind == "named_barrier"
    assert f"count of barrier {bar_id}" in text or "but its count is" in text, text
    assert "its own barrier id (a block has 16)" not in text, text      # the fix for a shared id


@pytest.mark.parametrize("tiles", [1, 2, 5])
@pytest.mark.parametrize("producer", ["bar.arrive", "bar.sync"])
@pytest.mark.parametrize("schedule,seed", RUNS)
def test_full_count_covering_one_side_is_found_in_every_schedule(tiles, producer, schedule, seed):
    k = pipeline("64", "128", producer=producer)        # 64 producers + 64 consumers arrive at barrier 1
    _, _, args = launch(k, tiles)
    f = fault_of(k, *args, schedule=schedule, seed=seed)
    assert_names_the_count(f, 1)


@pytest.mark.parametrize("tiles", [2, 5])
@pytest.mark.parametrize("consumer_empty", ["bar.arrive", "bar.sync"])
@pytest.mark.parametrize("schedule,seed", RUNS)
def test_empty_count_covering_one_side_is_found_in_every_schedule(tiles, consumer_empty, schedule, seed):
    k = pipeline("128", "64", consumer_empty=consumer_empty)
    _, _, args = launch(k, tiles)
    f = fault_of(k, *args, schedule=schedule, seed=seed)
    assert_names_the_count(f, 2)


@pytest.mark.parametrize("model", MODELS)
def test_report_gives_expected_and_arrived_per_phase(model):
    k = pipeline("64", "64")
    _, _, args = launch(k, 3)
    text = str(fault_of(k, *args, model=model))
    assert "64 + 64 = 128" in text or "128 threads arrived at barrier 1 in one phase but its count is 64" in text
    assert "not blockDim.x / 2" in text


@pytest.mark.parametrize("tiles", [1, 2, 5])
@pytest.mark.parametrize("producer", ["bar.arrive", "bar.sync"])
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("schedule,seed", RUNS)
def test_counts_that_cover_both_sides_are_legal(tiles, producer, model, schedule, seed):
    k = pipeline("128", "128", producer=producer)
    x, out, args = launch(k, tiles)
    run_clean(k, *args, schedule=schedule, seed=seed, model=model)
    assert (out.reshape(tiles, 64) == x.reshape(tiles, 64)[:, ::-1]).all()


GROUPS_IN_TURN = r'''
extern "C" __global__ void k(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 64) asm volatile("bar.sync 1, 64;" ::: "memory");     // group 0 alone on barrier 1
    if (t < 64) out[t] = s[63 - t];
    __syncthreads();                                                // orders group 1 after that phase
    s[t] = in[t] + 1;
    if (t >= 64) asm volatile("bar.sync 1, 64;" ::: "memory");     // then group 1 alone on barrier 1
    if (t >= 64) out[t] = s[191 - t];
}
'''


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("schedule,seed", RUNS)
def test_one_id_used_by_groups_in_turn_ordered_by_syncthreads_is_legal(schedule, seed, model):
    k = simcore.RawKernel(GROUPS_IN_TURN, "k")
    x = np.arange(128, dtype=np.int32)
    out = np.zeros(128, np.int32)
    run_clean(k, (1,), (128,), (x, out), schedule=schedule, seed=seed, model=model)
    assert (out[:64] == x[:64][::-1]).all() and (out[64:] == x[64:][::-1] + 1).all()


@pytest.mark.parametrize("schedule,seed", RUNS)
def test_groups_in_turn_without_the_syncthreads_share_one_phase(schedule, seed):
    k = simcore.RawKernel(GROUPS_IN_TURN.replace("__syncthreads();", ""), "k")
    f = fault_of(k, (1,), (128,), (np.arange(128, dtype=np.int32), np.zeros(128, np.int32)),
                 schedule=schedule, seed=seed)
    assert f.kind in ("named_barrier", "race")


@pytest.mark.parametrize("schedule,seed", RUNS)
def test_several_warps_each_side_with_the_exact_count_are_legal(schedule, seed):
    """256 threads: warps 0-3 signal with bar.arrive, warps 4-7 wait with bar.sync; count 256."""
    k = simcore.RawKernel(r'''
extern "C" __global__ void k(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 128) { s[t] = in[t] * 2; asm volatile("bar.arrive 3, 256;" ::: "memory"); }
    else { asm volatile("bar.sync 3, 256;" ::: "memory"); out[t - 128] = s[255 - t]; }
}''', "k")
    x = np.arange(128, dtype=np.int32)
    out = np.zeros(128, np.int32)
    run_clean(k, (1,), (256,), (x, out), schedule=schedule, seed=seed)
    assert (out == 2 * x[::-1]).all()
