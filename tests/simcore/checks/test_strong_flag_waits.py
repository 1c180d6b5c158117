"""A flag written with a strong write (a volatile store or an atomic) and waited for with strong
reads (a volatile load, or an atomic, whose value decides whether the wait loop goes on) is no
data race, fence or none: PTX's memory model calls the two morally strong, and the loop reads
again until it sees the value. What the writer wrote before the flag is still ordered only by a
fence on each side, so without the writer's fence the data races, and the report names the data,
not the flag. A strong read that is no wait (read once, its value used as data) is still a race
with an unordered write (docs/semantics.md, "Fences and flags")."""
import numpy as np
import pytest

import simcore

CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="round_robin"),
           dict(schedule="random", seed=2), dict(schedule="random", seed=7), dict(model="stack")]
IDS = lambda c: "-".join(map(str, c.values()))   # noqa: E731

GATE = r"""
extern "C" __global__ void k(int* flag, int* out)
{
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) {
            out[0] = 7;
            SET
        } else {
            while (WAIT) { }
            READ
        }
    }
}
"""
SETS = {"volatile": "*(volatile int*)&flag[0] = 1;", "atomicExch": "atomicExch(&flag[0], 1);"}
WAITS = {"volatile": "*(volatile int*)&flag[0] == 0", "atomicAdd0": "atomicAdd(&flag[0], 0) == 0",
         "atomicCAS": "atomicCAS(&flag[0], 1, 1) != 1"}


def run(src, **cfg):
    flag, out = np.zeros(1, np.int32), np.zeros(2, np.int32)
    simcore.RawModule(code=src).get_function("k")((2,), (32,), (flag, out), **cfg)
    return out


# (atomics on both sides were never a race: not repeated here)
PAIRS = [("volatile", w) for w in WAITS] + [("atomicExch", "volatile")]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@pytest.mark.parametrize("set_, wait", PAIRS, ids=lambda v: v)
def test_a_flag_set_without_a_fence_and_waited_for_with_strong_reads_is_no_race(set_, wait, cfg):
    out = run(GATE.replace("SET", SETS[set_]).replace("WAIT", WAITS[wait]).replace("READ", "out[1] = 9;"), **cfg)
    assert list(out) == [7, 9]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@pytest.mark.parametrize("wait", WAITS)
def test_the_data_written_before_such_a_flag_still_races_and_the_report_names_it(wait, cfg):
    src = GATE.replace("SET", SETS["volatile"]).replace("WAIT", WAITS[wait]).replace(
        "READ", "__threadfence(); out[1] = out[0];")
    with pytest.raises(simcore.DataRace) as info:
        run(src, **cfg)
    text = str(info.value)
    assert "out[0]" in text and "flag[0]" not in text.split("\n")[0]


@pytest.mark.parametrize("cfg", CONFIGS[:5], ids=IDS)
def test_a_volatile_flag_read_once_is_still_a_race(cfg):
    # no loop: the read may see the old value, and its value is used
    src = GATE.replace("SET", SETS["volatile"]).replace("while (WAIT) { }", "").replace(
        "READ", "out[1] = *(volatile int*)&flag[0];")
    with pytest.raises(simcore.DataRace) as info:
        run(src, **cfg)
    assert "flag[0]" in str(info.value)


LOCK_LOOP = r"""
extern "C" __global__ void k(int* flag, int* out)
{
    __shared__ volatile int ready;
    __shared__ int slot[32];
    if (threadIdx.x == 0) ready = 0;
    __syncthreads();
    if (threadIdx.x < 32) {
        slot[threadIdx.x] = threadIdx.x * 3;
        FENCE
        if (threadIdx.x == 0) ready = 1;
    } else if (threadIdx.x == 32) {
        bool done = false;
        while (!done) {
            if (ready == 1) {
                __threadfence_block();
                out[0] = slot[31];
                done = true;
            }
        }
    }
}
"""


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_a_wait_ended_by_a_done_flag_in_shared_memory_is_a_wait(cfg):
    # the lock idiom `while (!done) { if (flag) { ...; done = true; } }`: the flag's value decides
    # whether the loop goes on through `done`. Lane 31 wrote slot[31]; __syncwarp() orders it
    # before lane 0's fence and flag, the reader's fence after its wait acquires it
    src = LOCK_LOOP.replace("FENCE", "__syncwarp(); __threadfence_block();")
    flag, out = np.zeros(1, np.int32), np.zeros(2, np.int32)
    simcore.RawModule(code=src).get_function("k")((1,), (64,), (flag, out), **cfg)
    assert out[0] == 93


@pytest.mark.parametrize("cfg", CONFIGS[:5], ids=IDS)
def test_without_the_writers_fence_the_slot_races_not_the_flag(cfg):
    src = LOCK_LOOP.replace("FENCE", "__syncwarp();")
    flag, out = np.zeros(1, np.int32), np.zeros(2, np.int32)
    with pytest.raises(simcore.DataRace) as info:
        simcore.RawModule(code=src).get_function("k")((1,), (64,), (flag, out), **cfg)
    assert "slot[31]" in str(info.value)
