"""Inputs for hidden tests that tell a right kernel from an almost right one.

Friendly data let wrong answers through: integer-valued floats hide a kernel that truncates
every input to `int`, positive values hide a wrong neutral value of `max`, one magnitude hides
a narrowed type. The exercises' `make_args` draw from here instead:

* :func:`telling_floats`: non-integer values (4 in 5), both signs, magnitudes from 1/16 to 31,
  all multiples of 1/16. Every partial sum of fewer than :data:`EXACT_SUM_N` of them is a
  multiple of 1/16 below 2**20 in magnitude, hence exact in float32 (24-bit significand): any
  order of adding (a tree, shuffles, atomics in any block order) gives the same float, so the
  tests compare with the default tolerance and no right answer can lose points to rounding.
* :func:`telling_ints`: both signs, mostly small, a few large (up to 2**20 in magnitude), so
  that a sum of a block of them does not overflow int32 but a 16-bit type or a dropped sign
  shows.
"""
from __future__ import annotations

import numpy as np

#: Below this many elements every sum of :func:`telling_floats` values is exact in float32.
EXACT_SUM_N = (1 << 20) // 31


def telling_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """n float32 values: sign * m * 2**e with m odd in 1..31 and e in -4..0 (see the module)."""
    mantissa = 2 * rng.integers(0, 16, size=n) + 1
    exponent = rng.integers(-4, 1, size=n)
    sign = rng.choice(np.array([-1.0, 1.0]), size=n)
    return (sign * mantissa * np.exp2(exponent)).astype(np.float32)


def telling_ints(rng: np.random.Generator, n: int, small: int = 50) -> np.ndarray:
    """n int32 values in [-small, small], one in 16 of them of magnitude up to 2**20."""
    x = rng.integers(-small, small + 1, size=n)
    big = rng.random(n) < 1 / 16
    x[big] = rng.integers(-(1 << 20), (1 << 20) + 1, size=int(big.sum()))
    return x.astype(np.int32)
