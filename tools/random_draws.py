"""The random schedule's draws computed from the generator's raw output, and a check that they are
numpy's: the groundwork for resolving many random picks at once (issue 22 item 1), not yet used
by the simulator.

The random schedule (Engine.pick) draws with the launch's np.random.default_rng (PCG64):
rng.choice(a) is rng.integers(0, len(a)). numpy's Generator.integers(0, n) for an int64 result
and n below 2**32 is Lemire's bounded method on 32-bit words taken from the bit generator's
next_uint32, which halves one next_uint64 and BUFFERS the upper half in the generator's state
(`has_uint32`, `uinteger`): two consecutive draws normally share one 64-bit raw value (low half,
then high half), and a rejected word consumes the next 32-bit word. So a sequence of draws whose
ranges are known can be computed from `bit_generator.random_raw(k)` and the generator set to
exactly the state the sequential draws leave (`advance_past`). Any numpy whose integers() does
otherwise is caught by `matches_numpy` (run by tests/tools/test_random_draws.py and by
`python tools/random_draws.py`); a bulk resolution built on this must call it at first use and
fall back to the sequential picks when it fails.
"""
import sys

import numpy as np

WORD = (1 << 32) - 1


def words(bit_generator, count):
    """-> (at least `count` 32-bit words the generator's next_uint32 would give, as ints; the
    state they were read from). The generator is left advanced: restore or `advance_past`."""
    state = bit_generator.state
    out = [state["uinteger"]] if state["has_uint32"] else []
    raws = max(0, count - len(out) + 1) // 2
    for raw in bit_generator.random_raw(raws).tolist() if raws else ():
        out += [raw & WORD, raw >> 32]
    return out, state


def bounded(stream, n, at):
    """Generator.integers(0, n) from the word stream, starting at word `at`.
    -> (the value, the index of the next unused word)."""
    product = stream[at] * n
    at += 1
    if product & WORD < n:
        threshold = ((1 << 32) - n) % n
        while product & WORD < threshold:      # rejected: the next word decides
            product = stream[at] * n
            at += 1
    return product >> 32, at


def advance_past(bit_generator, state, used):
    """Set the generator to the state in which `used` words read from `state` leave it."""
    bit_generator.state = state
    fresh = used - state["has_uint32"]         # words taken from new 64-bit raw values
    if fresh <= 0:
        if fresh == 0 and state["has_uint32"]:
            state = bit_generator.state
            state["has_uint32"] = 0
            bit_generator.state = state
        return
    raws = bit_generator.random_raw((fresh + 1) // 2)
    after = bit_generator.state
    after["has_uint32"] = fresh % 2
    after["uinteger"] = int(raws[-1]) >> 32
    bit_generator.state = after


def matches_numpy(seeds=64, draws=40):
    """Do `bounded` and `advance_past` give numpy's values and state, for many states and ranges
    (small ones, and ones near 2**32 where rejections are frequent)?"""
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        rng.integers(0, 3, size=seed % 3)        # some states start with a buffered half
        ranges = [2, 3, 7, 32, 33, 1000, 2048, 65535, 2 ** 31 + 7, 3 * 2 ** 30, 2 ** 32 - 5]
        ranges += [int(n) for n in rng.integers(2, 40000, draws)]
        stream, state = words(rng.bit_generator, 8 * len(ranges) + 64)
        at, mine = 0, []
        for n in ranges:
            value, at = bounded(stream, n, at)
            mine.append(value)
        rng.bit_generator.state = state
        theirs = [int(rng.integers(0, n)) for n in ranges]
        after = rng.bit_generator.state
        advance_past(rng.bit_generator, state, at)
        if mine != theirs or rng.bit_generator.state != after:
            return False
    return True


if __name__ == "__main__":
    ok = matches_numpy()
    print(f"numpy {np.__version__}: draws from raw words {'match' if ok else 'DO NOT match'} Generator.integers")
    sys.exit(0 if ok else 1)
