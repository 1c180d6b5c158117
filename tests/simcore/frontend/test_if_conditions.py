"""`#if` conditions mean what they mean to NVRTC: C++'s 64-bit integer rules, not Python's."""
import random
import shutil
import subprocess

import numpy as np
import pytest

import simcore
from simcore.errors import CompileError
from simcore.frontend import condition

KERNEL = """#if {cond}
extern "C" __global__ void k(int *o) {{ o[0] = 1; }}
#else
extern "C" __global__ void k(int *o) {{ o[0] = 2; }}
#endif
"""


def branch_taken(cond, prefix=""):
    out = np.zeros(1, np.int32)
    simcore.RawModule(code=prefix + KERNEL.format(cond=cond)).get_function("k")((1,), (1,), (out,))
    return {1: "if", 2: "else"}[int(out[0])]


@pytest.mark.parametrize("cond", [
    "-7 / 2 == -3",                 # division truncates toward zero
    "-7 % 2 == -1",
    "010 == 8",                     # octal
    "0x1F == 31 && 0b101 == 5 && 1'000 == 1000",
    "(1 ? 2 : 3) == 2",
    "-1 > 0u",                      # one unsigned operand makes the comparison unsigned
    "(1 ? -1 : 0u) > 0",            # the conditional's type is its branches' common type
    "0xFFFFFFFFFFFFFFFF == -1",     # too large for intmax_t: unsigned, and -1 converts to it
    "9223372036854775807 + 1 < 0",  # signed results wrap at 64 bits
    "'A' == 65 && '\\n' == 10",
    "true && !false",
    "1 bitand 3 and not 0",
    "!(0 && 1 / 0)",                # && does not compute its right side
    "1 || 1 % 0",
    "0 ? 1 / 0 : 1",
    "UNDEFINED_NAME == 0",
    "(-8 >> 1) == -4",
])
def test_a_condition_true_in_cxx_takes_the_if_branch(cond):
    assert branch_taken(cond) == "if"


def test_a_condition_uses_macros_after_expansion():
    assert branch_taken("BLOCK / 3 * 3 == -30", "#define BLOCK (-32)\n") == "if"


@pytest.mark.parametrize("cond, says", [
    ("9**9**9", "expected an operand, found '*'"),
    ("1 << 64", "shift by 64"),
    ("1 / 0", "division by zero"),
    ("1.5 > 1", "floating-point"),
    ("(1 + 2", "missing ')'"),
    ("1 2", "unexpected '2'"),
    ("18446744073709551616", "too large"),
])
def test_a_condition_that_is_not_an_integer_expression_is_a_clear_compile_error(cond, says):
    with pytest.raises(CompileError) as err:
        branch_taken(cond)
    assert says in str(err.value) and "#if" in str(err.value)
    assert err.value.line == 1


def random_condition(rng, depth):
    atoms = ["0", "1", "2", "7", "-3", "010", "0x10", "0xFFFFFFFFFFFFFFFF", "1u", "'A'", "true",
             "false", "name", "0b101", "9223372036854775807", "100ll", "5ul"]
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(atoms)
    r = rng.random()
    if r < 0.15:
        return rng.choice(["-", "~", "!", "not ", "+"]) + "(" + random_condition(rng, depth - 1) + ")"
    if r < 0.25:
        parts = [random_condition(rng, depth - 1) for _ in range(3)]
        return "({} ? {} : {})".format(*parts)
    op = rng.choice(["+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^",
                     "|", "&&", "||", "and", "xor"])
    right = str(rng.randint(0, 63)) if op in ("<<", ">>") else random_condition(rng, depth - 1)
    return f"({random_condition(rng, depth - 1)} {op} {right})"


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ as the reference C++ preprocessor")
def test_random_conditions_agree_with_the_cxx_preprocessor():
    rng = random.Random(2026)
    conds = [random_condition(rng, 4) for _ in range(600)]
    text = "".join(f"#if {c}\nR{i} 1\n#else\nR{i} 0\n#endif\n" for i, c in enumerate(conds))
    done = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++17", "-"], input=text,
                          capture_output=True, text=True)
    failed_lines = {int(line.split(":")[1]) for line in done.stderr.splitlines()
                    if line.startswith("<stdin>:") and "error" in line}
    reference = dict(line.split() for line in done.stdout.splitlines() if line.startswith("R"))
    for i, c in enumerate(conds):
        try:
            mine = str(int(condition.is_true(c)))
        except condition.ConditionError:
            mine = "error"
        expected = "error" if 5 * i + 1 in failed_lines else reference[f"R{i}"]
        assert mine == expected, c
