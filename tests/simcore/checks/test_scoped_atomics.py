"""Scoped atomics (Guide, "Atomic Functions": every atomic also comes as name_block and
name_system). A _system atomic holds every thread of the launch, as the plain one does; a _block
atomic is atomic, and strong, only among the threads of its own block (PTX memory model: two
accesses are morally strong only when each one's scope holds both threads), so two blocks'
atomicAdd_block on one global word race, while a block's own word (shared memory, a per-block
slot) is fine (docs/semantics.md, "Scoped atomics")."""
import numpy as np
import pytest

import simcore

CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="round_robin"),
           dict(schedule="random", seed=0), dict(schedule="random", seed=5), dict(model="stack")]
IDS = lambda c: "-".join(map(str, c.values()))   # noqa: E731

COUNT = r"""
extern "C" __global__ void k(int* total, int* per_block)
{
    OP(&total[0], 1);
    OP(&per_block[blockIdx.x], 2);
}
"""


def count(op, blocks, **cfg):
    total, per_block = np.zeros(1, np.int32), np.zeros(4, np.int32)
    simcore.RawModule(code=COUNT.replace("OP", op)).get_function("k")((blocks,), (64,), (total, per_block), **cfg)
    return total, per_block


@pytest.mark.parametrize("op", ["atomicAdd", "atomicAdd_system", "atomicAdd_block"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_scoped_atomics_add_up_within_their_scope(op, cfg):
    # one block: every scope holds all the threads that touch the words
    total, per_block = count(op, 1, **cfg)
    assert total[0] == 64 and list(per_block) == [128, 0, 0, 0]


@pytest.mark.parametrize("op", ["atomicAdd", "atomicAdd_system"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_device_and_system_atomics_of_several_blocks_are_atomic(op, cfg):
    total, per_block = count(op, 3, **cfg)
    assert total[0] == 192 and list(per_block) == [128, 128, 128, 0]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_block_atomics_of_two_blocks_on_one_global_word_race(cfg):
    with pytest.raises(simcore.DataRace) as info:
        count("atomicAdd_block", 2, **cfg)
    message = str(info.value)
    assert "total[0]" in message and "atomic only inside its block" in message and "line 4" in message


def test_a_block_atomic_against_a_device_atomic_of_another_block_races():
    src = COUNT.replace("OP(&total[0], 1);", "if (blockIdx.x == 0) atomicAdd_block(&total[0], 1); "
                                             "else atomicAdd(&total[0], 1);").replace("OP", "atomicAdd")
    for cfg in CONFIGS:
        with pytest.raises(simcore.DataRace):
            simcore.RawModule(code=src).get_function("k")((2,), (64,), (np.zeros(1, np.int32),
                                                                      np.zeros(4, np.int32)), **cfg)


LOCK = r"""
extern "C" __global__ void k(int* out)
{
    __shared__ int lock, sum;
    if (threadIdx.x == 0) { lock = 0; sum = 0; }
    __syncthreads();
    bool done = false;
    while (!done) {
        if (CAS(&lock, 0, 1) == 0) {
            __threadfence_block();
            sum += threadIdx.x;
            __threadfence_block();
            EXCH(&lock, 0);
            done = true;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
"""


@pytest.mark.parametrize("cfg", CONFIGS[:5], ids=IDS)
def test_a_shared_lock_taken_with_block_atomics_is_legal(cfg):
    out = np.zeros(2, np.int32)
    src = LOCK.replace("CAS", "atomicCAS_block").replace("EXCH", "atomicExch_block")
    simcore.RawModule(code=src).get_function("k")((2,), (64,), (out,), **cfg)
    assert list(out) == [2016, 2016]


def test_every_atomic_has_its_scoped_spellings():
    ops = ["atomicAdd(p, 1)", "atomicSub(p, 1)", "atomicMin(p, 1)", "atomicMax(p, 1)", "atomicExch(p, 1)",
           "atomicAnd(p, 1)", "atomicOr(p, 1)", "atomicXor(p, 1)", "atomicCAS(p, 0, 1)"]
    uops = ["atomicInc(q, 9u)", "atomicDec(q, 9u)"]
    body = []
    for suffix in ("_block", "_system"):
        body += [op.replace("(", suffix + "(", 1) + ";" for op in ops + uops]
    src = ('extern "C" __global__ void k(int* p, unsigned int* q) { if (threadIdx.x == 0) { '
           + " ".join(body) + " } }")
    p, q = np.zeros(1, np.int32), np.zeros(1, np.uint32)
    simcore.RawModule(code=src).get_function("k")((1,), (32,), (p, q))
    # add, sub, min(1), max(1), exch(1), and 1, or 1, xor 1, cas(0 -> 1)? -> twice
    ref = 0
    for _ in range(2):
        ref = ref + 1; ref -= 1; ref = min(ref, 1); ref = max(ref, 1); ref = 1
        ref &= 1; ref |= 1; ref ^= 1; ref = 1 if ref == 0 else ref
    assert p[0] == ref
    assert q[0] == 0        # inc then dec, twice


FLAG = r"""
extern "C" __global__ void k(int* flag, int* out)
{
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) { SET; out[0] = 1; }
        else { while (POLL == 0) { } out[1] = 1; }
    }
}
"""


@pytest.mark.parametrize("set_, poll", [("atomicExch_block(flag, 1)", "*(volatile int*)flag"),
                                        ("*(volatile int*)flag = 1", "atomicAdd_block(flag, 0)"),
                                        ("atomicExch_block(flag, 1)", "atomicCAS_block(flag, 1, 1)")])
@pytest.mark.parametrize("cfg", CONFIGS[:4], ids=IDS)
def test_a_flag_between_blocks_through_a_block_atomic_is_no_wait_but_a_race(set_, poll, cfg):
    # a wait is no race only where its read and the flag's write are morally strong: a _block
    # atomic is strong for its own block only
    src = FLAG.replace("SET", set_).replace("POLL", poll)
    with pytest.raises(simcore.DataRace) as info:
        simcore.RawModule(code=src).get_function("k")((2,), (32,), (np.zeros(1, np.int32), np.zeros(2, np.int32)), **cfg)
    assert "atomic only inside its block" in str(info.value)


@pytest.mark.parametrize("cfg", CONFIGS[:4], ids=IDS)
def test_the_same_flag_through_device_atomics_is_a_wait(cfg):
    out = np.zeros(2, np.int32)
    src = FLAG.replace("SET", "atomicExch(flag, 1)").replace("POLL", "*(volatile int*)flag")
    simcore.RawModule(code=src).get_function("k")((2,), (32,), (np.zeros(1, np.int32), out), **cfg)
    assert list(out) == [1, 1]
