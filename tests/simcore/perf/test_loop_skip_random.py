"""LoopSkip against loops it has not seen: kernels made from a seed (counter types, directions,
tests, steps, bodies with register branches, data branches, atomics, stores, nested loops), each
sampled with and without skipping; every counter of every block must agree. The seeds here run
in CI; `python tests/simcore/perf/test_loop_skip_random.py 500` runs more."""
import dataclasses
import functools
import sys

import numpy as np
import pytest

import simcore
from simcore.launch import marshal
from simcore.perf.sampling import run_sample

# the statements a loop body is made of, from two coefficients c1 (1-3), c2 (0-39) and a small k (2-8)
STATEMENTS = {
    "load": lambda c1, c2, k: f"acc += in[{c1} * (long long)i + {c2}];",
    "store": lambda c1, c2, k: f"out[{c1} * (long long)i + {c2}] = acc;",
    "register_branch": lambda c1, c2, k: f"if (threadIdx.x % {k} == 0) acc *= 1.5f; else acc += 1.0f;",
    "counter_branch": lambda c1, c2, k: f"if (i % {k} == 0) acc += in[i + {c2}];",
    "data_branch": lambda c1, c2, k: "if (in[i] > 0.5f) acc += 2.0f;",
    "atomic": lambda c1, c2, k: f"atomicAdd(&out[4 * n + threadIdx.x % {k}], 1.0f);",
    "shared": lambda c1, c2, k: f"s[(threadIdx.x + {c2}) % 64] += in[i];",
    "inner": lambda c1, c2, k: f"for (int j = 0; j < {k - 1}; j++) acc += in[i + j];",
}


def random_kernel(seed):
    """(source, grid, block, n) of a kernel with a counted loop (nested loops in its body at
    times), from `seed`; n is chosen so that a lane loops 100-700 times."""
    r = np.random.default_rng(seed)
    ctype = r.choice(["int", "unsigned", "long long"])
    down = ctype != "unsigned" and r.random() < 0.3
    per_thread = r.random() < 0.5          # a grid-stride loop, or the same loop in every thread
    if per_thread:
        step = "(int)(blockDim.x * gridDim.x)"
        start = f"({ctype})(blockIdx.x * blockDim.x + threadIdx.x)"
    else:
        step = str(int(r.integers(1, 70)))
        start = f"({ctype})(threadIdx.x % {int(r.integers(1, 9))})"
    iterations = int(r.choice([100, 300, 700])) + int(r.integers(0, 13))
    if down:
        init = f"{ctype} i = ({ctype})(n - 1) - {start}"
        test = r.choice(["i >= 0", "i > -1", f"i >= ({ctype})(n % 7)"])
        move = f"i -= {step}"
    else:
        init = f"{ctype} i = {start}"
        test = r.choice(["i < n", "i <= n - 1", f"i < ({ctype})(n - n / 5)", "n > i"])
        move = f"i += {step}"
    body = []
    for _ in range(int(r.integers(1, 4))):
        kind = r.choice(sorted(STATEMENTS))
        body.append(STATEMENTS[kind](int(r.integers(1, 4)), int(r.integers(0, 40)), int(r.integers(2, 9))))
    grid = int(r.choice([1, 2, 3, 40])) if per_thread else int(r.choice([1, 2]))
    block = int(r.choice([32, 48, 64, 128]))
    n = iterations * (grid * block if per_thread else int(step)) + int(r.integers(0, 50))
    source = f"""
extern "C" __global__ void k(const float *in, float *out, int n)
{{
    __shared__ float s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for ({init}; {test}; {move}) {{
        {chr(10).join('        ' + line for line in body).strip()}
    }}
    out[5 * n + blockIdx.x * blockDim.x + threadIdx.x] = acc + s[threadIdx.x % 64];
}}
"""
    return source, grid, block, n


def sample(source, grid, block, n, skip):
    k = simcore.RawModule(code=source, backend="sim").get_function("k")
    rng = np.random.default_rng(1)
    args = [rng.random(6 * n + 8192, dtype=np.float32), np.zeros(6 * n + 8192, np.float32), np.int32(n)]
    launch = simcore.Launch(k.name, (grid, 1, 1), (block, 1, 1), 0, "sim")
    found = run_sample(k.program, launch, marshal(k, args), l1_sectors=300, skip_loops=skip)
    assert found.fell_back is None
    return ({b: dataclasses.asdict(c) for b, c in sorted(found.blocks.items())}, found.atomic_lines,
            found.skipped)


@functools.lru_cache(maxsize=None)
def compare(seed):
    source, grid, block, n = random_kernel(seed)
    fast, slow = sample(source, grid, block, n, True), sample(source, grid, block, n, False)
    assert fast[0] == slow[0] and fast[1] == slow[1], source
    return int(fast[2])


@pytest.mark.parametrize("seed", range(24))
def test_a_random_loop_is_counted_as_every_iteration_counts(seed):
    compare(seed)


def test_the_random_loops_are_skipped_often_enough_to_mean_something():
    assert sum(compare(seed) > 0 for seed in range(24)) >= 6


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    skipped = sum(compare(seed) > 0 for seed in range(count))
    print(f"{count} random kernels: counts the same in all, skipped in {skipped}")
