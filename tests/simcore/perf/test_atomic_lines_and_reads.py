"""Round 9's rules of the timing model, each against the H200 microbenchmark it comes from.

- Global atomics on a line of several counters: lanes on distinct words are served a sector at a
  time (mb6 mod32: 32 words of one line, 2.4 ns per warp access in int as in float), a lone
  one-lane access waits an integer turnaround (0.733 ns), and hot lines run only partly in
  parallel (mb7: 8 lines of one-word warp accesses, 2x one line; 64 lines, 11.4x).
- Warps of a block that miss the L1 on one sector at once make one L2 read (mb7 warp_row_reads).
- A float register plus a constant is an FADD, not a loop counter's step.
"""
import numpy as np
import pytest

import simcore
from simcore.perf.hardware import get_gpu
from simcore.perf.model import atomic_access_ns, atomic_lines_at_once

H200 = get_gpu("H200")
N = 1 << 20                 # atomics per launch below: 2^15 warp accesses


def _atomics_ms(body, words, block=256, dtype=np.int32):
    src = ("extern \"C\" __global__ void k(const int *key, TYPE *word, int n)\n"
           "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) " + body + "\n}\n")
    k = simcore.RawKernel(src.replace("TYPE", "float" if dtype == np.float32 else "int"), "k")
    key = np.zeros(N, np.int32)
    est = k.estimate((N // block,), (block,), (key, np.zeros(words, dtype), np.int32(N)))
    return est.breakdown["atomics"], est


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_a_warp_on_the_32_words_of_one_line_costs_four_sectors(dtype):
    # mb6 mod32: 0.316 ms for 2^22 such atomics on the H200 (int and float alike)
    op = "atomicAdd(&word[i % 32], (TYPE)1);".replace("TYPE", "float" if dtype == np.float32 else "int")
    ms, est = _atomics_ms(op, 32, dtype=dtype)
    assert est.bound == "atomics"
    assert ms == pytest.approx(N / 32 * 4 * H200.atomic_distinct_sector_ns * 1e-6, rel=0.02)


def test_one_word_per_warp_on_its_own_line_runs_hot_lines_partly_in_parallel():
    # every warp's 32 lanes on one word (read from memory: not aggregated), S words on S lines
    # (mb7 atomic_max_warp_key/line/S8 and S64: 1.60 and 0.27 ms against 3.08 on one line)
    one, _ = _atomics_ms("atomicMax(&word[32 * key[i]], i);", 32)
    times = {}
    for lines in (8, 64):
        src = ("extern \"C\" __global__ void k(const int *key, int *word, int n)\n"
               "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
               "    if (i < n) atomicMax(&word[32 * key[i]], i);\n}\n")
        k = simcore.RawKernel(src, "k")
        key = ((np.arange(N) // 32) % lines).astype(np.int32)
        est = k.estimate((N // 256,), (256,), (key, np.zeros(32 * lines, np.int32), np.int32(N)))
        times[lines] = est.breakdown["atomics"]
    assert one / times[8] == pytest.approx(2.0, rel=0.05)
    assert one / times[64] == pytest.approx(10.0, rel=0.05)
    assert atomic_lines_at_once(H200, 1) == 1.0


def test_colliding_and_lone_accesses_are_priced_by_the_rule():
    sector = H200.atomic_distinct_sector_ns
    # a lone access on a line of counters waits for its own answer: its kind's turnaround (8 lanes'
    # float adds on 8 words of one sector take 1.76 ns, heldout8's flush8_warp_float; integer 0.733)
    assert atomic_access_ns(H200, 1, 1, "float", True, False) == H200.atomic_same_address_ns
    assert atomic_access_ns(H200, 1, 1, "integer", True, False) == H200.atomic_integer_same_address_ns
    # the same lane among others of a warp that spans lines: one sector
    assert atomic_access_ns(H200, 1, 1, "float", False, False) == sector
    # 3 lanes on the busiest word, 4 sectors: three rounds over the sectors
    assert atomic_access_ns(H200, 4, 3, "integer", False, False) == pytest.approx(3 * 4 * sector)
    # 16 lanes on each of 2 words of one sector (mb6 mod2): the same-address turnaround binds
    assert atomic_access_ns(H200, 1, 16, "integer", False, False) == pytest.approx(16 * 0.733)
    # a line of one counter: one lane after another at the kind's turnaround
    assert atomic_access_ns(H200, 1, 32, "float", True, True) == pytest.approx(32 * H200.atomic_same_address_ns)


ROW_READS = r"""
extern "C" __global__ void rows(const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int seg = (SHARED ? blockIdx.x : i / 32) % 64;
    float v = 0.0f;
    for (int k = 0; k < 8; k++)
        v += b[k * 2048 + 32 * seg + threadIdx.x % 32];
    if (i < n) out[i] = v;
}
"""


def test_warps_reading_the_same_rows_at_once_fetch_them_once():
    n = 1 << 16
    sectors = {}
    for shared in (1, 0):
        k = simcore.RawModule(code=ROW_READS, options=(f"-DSHARED={shared}",)).get_function("rows")
        est = k.estimate((n // 256,), (256,), (np.ones(8 * 2048, np.float32), np.zeros(n, np.float32), np.int32(n)))
        sectors[shared] = est.per_block["global_sectors"]
    # 8 warps of a block on the same 8 rows of 4 sectors: 32 sectors read from the L2 (plus the
    # writes), against 8 x 32 when every warp reads rows of its own
    assert sectors[0] - sectors[1] == pytest.approx(7 * 32, abs=1)


FLOAT_STEPS = r"""
extern "C" __global__ void steps(float *out, int reps)
{
    float v = out[threadIdx.x];
    for (int r = 0; r < reps; r++)
        v += STEP;
    out[threadIdx.x] = v;
}
"""


def test_a_float_plus_a_constant_is_an_instruction_and_a_counter_step_is_not():
    per_iteration = {}
    for step in ("0.5f", "1"):
        src = FLOAT_STEPS.replace("STEP", step).replace("float v", "float v" if "f" in step else "int v")
        k = simcore.RawKernel(src, "steps")
        counts = {}
        for reps in (64, 128):
            est = k.estimate((1,), (32,), (np.zeros(32, np.float32), np.int32(reps)))
            counts[reps] = est.per_block["warp_instructions"]
        per_iteration[step] = (counts[128] - counts[64]) / 64
    assert per_iteration["0.5f"] >= 1.0           # the FADD (plus the unrolled counter's share)
    assert per_iteration["1"] < 0.5               # an integer step NVCC folds when it unrolls
