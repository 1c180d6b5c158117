"""Integer arithmetic of simcore against gcc, bit for bit.

Seeded random programs over every integer width (8/16/32/64 bits, signed and unsigned, spelled
as C and CUDA code spell them: `unsigned`, `uint32_t`, `size_t`, `unsigned long long`, ...)
use every operator and compound assignment (`++ -- += -= *= /= %= &= |= ^= <<= >>=`, unary
minus, `~`, `!`, comparisons, `?:`, casts), constants of every suffix and variables, so the
usual arithmetic conversions and the integer promotions are exercised on mixed widths. The
same function body is compiled by gcc (`-fwrapv`: signed overflow wraps, as it does on a GPU)
and run by simcore, on the general path (a block of threads with different inputs) and on the
one-thread fast path (`simcore/runtime/solo.py`: one thread running a loop); every variable's final
value must be the same bits.

Undefined behaviour is kept out by construction: divisors are `((e & 12) | 3) - 9` (never 0
or -1), shift counts are masked to the promoted width of the shifted operand, and `x++` is
never mixed with another use of `x` in one statement.
"""
import os
import random
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

import simcore

GCC = shutil.which("gcc") or shutil.which("cc")
pytestmark = [pytest.mark.skipif(GCC is None, reason="needs a C compiler (gcc) as the reference"),
              pytest.mark.filterwarnings("ignore::simcore.SimWarning")]   # -fwrapv programs overflow

# C spelling -> (bits, signed); the typedefs are the ones CUDA code uses most
TYPES = {
    "signed char": (8, True), "unsigned char": (8, False), "char": (8, True),
    "short": (16, True), "unsigned short": (16, False),
    "int": (32, True), "unsigned": (32, False), "uint32_t": (32, False), "int32_t": (32, True),
    "long long": (64, True), "unsigned long long": (64, False), "size_t": (64, False),
    "long": (64, True), "unsigned long": (64, False), "uint64_t": (64, False), "int64_t": (64, True),
    "uint8_t": (8, False), "int8_t": (8, True), "uint16_t": (16, False), "int16_t": (16, True),
}
NAMES = sorted(TYPES)
LITERALS = ["0", "1", "2", "7", "31", "32", "33", "63", "64", "127", "128", "255", "256", "65535", "65536",
            "1u", "0u", "7u", "4294967295u", "0xffffffff", "0x80000000", "2147483647", "2147483648",
            "0x7fffffff", "1ll", "1ull", "0xffffffffffffffffull", "9223372036854775807ll", "5000000000",
            "0x100000000", "1000000007", "'a'", "-1", "-128", "-2147483647"]
BINARY = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&&", "||"]
COMPOUND = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]
NVARS = 8
NSTMTS = 14


def promoted_bits(ctype_name):
    bits, _ = TYPES[ctype_name]
    return max(bits, 32)


class Program:
    """One random function body: NVARS variables of random types, NSTMTS statements."""

    def __init__(self, rng):
        self.rng = rng
        self.types = [rng.choice(NAMES) for _ in range(NVARS)]
        # where each variable lives: a register, a local array, shared memory (one element per
        # thread), so loads, stores and compound assignments of memory are exercised too
        self.store = [rng.choice(["reg", "reg", "local", "shared"]) for _ in range(NVARS)]

    def ref(self, k):
        return {"reg": f"v{k}", "local": f"v{k}[1]", "shared": f"v{k}[t]"}[self.store[k]]

    # expressions are (text, C type name of the result or None when unknown-but-integer)
    def leaf(self):
        if self.rng.random() < 0.3:
            return self.rng.choice(LITERALS), None
        k = self.rng.randrange(NVARS)
        return self.ref(k), self.types[k]

    def expr(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.leaf()
        kind = r.random()
        if kind < 0.55:
            op = r.choice(BINARY)
            a, at = self.expr(depth - 1)
            b, _ = self.expr(depth - 1)
            if op in ("/", "%"):
                b = f"((({b}) & 12) | 3) - 9"
            if op in ("<<", ">>"):
                # the promoted width of the left operand; a literal's type may be 64 bits wide
                width = promoted_bits(at) if at else 32
                if at is None:
                    a = f"(int)({a})"
                b = f"({b}) & {width - 1}"
                return f"(({a}) {op} ({b}))", None
            return f"(({a}) {op} ({b}))", None
        if kind < 0.7:
            op = r.choice(["-", "~", "!", "+"])
            a, _ = self.expr(depth - 1)
            return f"({op}({a}))", None
        if kind < 0.85:
            t = r.choice(NAMES)
            a, _ = self.expr(depth - 1)
            return f"(({t})({a}))", t
        c, _ = self.expr(depth - 1)
        a, _ = self.expr(depth - 1)
        b, _ = self.expr(depth - 1)
        return f"(({c}) ? ({a}) : ({b}))", None

    def statement(self):
        r = self.rng
        k = r.randrange(NVARS)
        v = self.ref(k)
        kind = r.random()
        if kind < 0.2:
            return r.choice([f"{v}++;", f"{v}--;", f"++{v};", f"--{v};"])
        if kind < 0.3:
            # the value of an increment used in an expression of other variables
            j = (k + 1 + r.randrange(NVARS - 1)) % NVARS
            inc = r.choice([f'{v}++', f'{v}--', f'++{v}', f'--{v}'])
            return f"{self.ref(j)} = {self.ref(j)} {r.choice(['+', '-', '*', '^'])} ({inc});"
        e, _ = self.expr(3)
        if kind < 0.6:
            op = r.choice(COMPOUND)
            if op in ("/=", "%="):
                e = f"((({e}) & 12) | 3) - 9"
            if op in ("<<=", ">>="):
                e = f"({e}) & {promoted_bits(self.types[k]) - 1}"
            return f"{v} {op} {e};"
        return f"{v} = {e};"

    def body(self):
        decl = []
        for k, t in enumerate(self.types):
            init = f"({t})in[t * {NVARS} + {k}]"
            if self.store[k] == "reg":
                decl.append(f"    {t} v{k} = {init};")
            elif self.store[k] == "local":
                decl.append(f"    {t} v{k}[3];\n    v{k}[1] = {init};")
            else:
                decl.append(f"    __shared__ {t} v{k}[64];\n    v{k}[t] = {init};")
        stmts = [self.statement() for _ in range(NSTMTS)]
        loop = "    for (int rep = 0; rep < reps; rep++) {\n" + "".join(f"        {s}\n" for s in stmts) + "    }"
        outs = [f"    out[t * {NVARS} + {k}] = (unsigned long long){self.ref(k)};" for k in range(NVARS)]
        return "\n".join(decl + [loop] + outs)


# NVRTC has no <stdint.h> (nor int32_t & co without one), so CUDA code that spells the fixed-width
# names declares them itself; gcc's come from <stdint.h>.
FIXED_WIDTH_TYPEDEFS = ("typedef signed char int8_t; typedef unsigned char uint8_t; typedef short int16_t;\n"
                        "typedef unsigned short uint16_t; typedef int int32_t; typedef unsigned int uint32_t;\n"
                        "typedef long long int64_t; typedef unsigned long long uint64_t;\n")


def cuda_source(body):
    return (FIXED_WIDTH_TYPEDEFS + "__global__ void k(unsigned long long *out, const unsigned long long *in, int reps)\n{\n"
            "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n" + body + "\n}\n")


def c_function(index, body):
    return (f"static void k{index}(unsigned long long *out, const unsigned long long *in, int reps, int t)\n{{\n"
            + body + "\n}\n")


EDGES = [0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
         0x100000000, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff, 0xfffffffffffffffe]


def inputs(rng, nthreads):
    vals = []
    for _ in range(nthreads * NVARS):
        pick = rng.random()
        if pick < 0.4:
            vals.append(rng.choice(EDGES))
        elif pick < 0.7:
            vals.append(rng.randrange(-40, 40) % 2 ** 64)
        else:
            vals.append(rng.getrandbits(rng.choice([8, 16, 32, 64])))
    return np.array(vals, dtype=np.uint64)


def run_gcc(cases, workdir):
    """cases: [(body, inputs, nthreads, reps)] -> one uint64 array of outputs per case."""
    parts = ["#include <stdio.h>\n#include <stdint.h>\n#include <stddef.h>\n#define __shared__ static\n"]
    calls = []
    for i, (body, ins, nthreads, reps) in enumerate(cases):
        parts.append(c_function(i, body))
        parts.append(f"static const unsigned long long in{i}[] = {{{', '.join(f'{int(x)}ull' for x in ins)}}};\n")
        calls.append(f"    {{ static unsigned long long out[{nthreads * NVARS}];\n"
                     f"      for (int t = 0; t < {nthreads}; t++) k{i}(out, in{i}, {reps}, t);\n"
                     f"      for (int j = 0; j < {nthreads * NVARS}; j++) printf(\"%llu\\n\", out[j]); }}\n")
    parts.append("int main(void)\n{\n" + "".join(calls) + "    return 0;\n}\n")
    src = os.path.join(workdir, "ref.c")
    exe = os.path.join(workdir, "ref")
    with open(src, "w") as f:
        f.write("".join(parts))
    subprocess.run([GCC, "-O0", "-fwrapv", "-w", "-o", exe, src], check=True)
    lines = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split()
    out, pos = [], 0
    for _, _, nthreads, _ in cases:
        n = nthreads * NVARS
        out.append(np.array([int(x) for x in lines[pos:pos + n]], dtype=np.uint64))
        pos += n
    return out


def run_simcore(body, ins, nthreads, reps):
    out = np.zeros(nthreads * NVARS, np.uint64)
    kernel = simcore.RawModule(code=cuda_source(body)).get_function("k")
    kernel((1,), (nthreads,), (out, ins, np.int32(reps)))
    return out


def make_cases(seed, count):
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        body = Program(rng).body()
        # even cases: 64 threads once (the general path); odd: one thread, 3 trips (the fast path)
        nthreads, reps = (64, 1) if i % 2 == 0 else (1, 3)
        cases.append((body, inputs(rng, nthreads), nthreads, reps))
    return cases


@pytest.mark.parametrize("seed", range(6))
def test_integer_programs_match_gcc(seed):
    cases = make_cases(seed, 40)
    with tempfile.TemporaryDirectory() as d:
        want = run_gcc(cases, d)
    for (body, ins, nthreads, reps), ref in zip(cases, want):
        got = run_simcore(body, ins, nthreads, reps)
        if not np.array_equal(got, ref):
            bad = int(np.flatnonzero(got != ref)[0])
            raise AssertionError(f"simcore differs from gcc at thread {bad // NVARS}, v{bad % NVARS}: "
                                 f"simcore {int(got[bad]):#x}, gcc {int(ref[bad]):#x}\n"
                                 f"inputs {[hex(int(x)) for x in ins[bad // NVARS * NVARS:][:NVARS]]}\n"
                                 f"{cuda_source(body)}")


DECREMENTS = [(t, op) for t in ("unsigned", "uint32_t", "size_t", "unsigned long long", "unsigned short",
                                "unsigned char", "int", "long long")
              for op in ("i--", "--i", "i++", "++i", "i -= 1", "i += -1", "i = -i", "i = ~i")]


@pytest.mark.parametrize("ctype,op", DECREMENTS, ids=[f"{t} {op}" for t, op in DECREMENTS])
def test_unsigned_decrement_wraps(ctype, op):
    """`for (unsigned s = n; s > 0; s--)`: i-- of a 32/64-bit unsigned was an OverflowError."""
    body = (f"    {ctype} i = ({ctype})in[t];\n    {op};\n    out[t] = (unsigned long long)i;\n"
            f"    for ({ctype} s = 3; s > 0; s--) out[t + 1] += s;")
    src = (FIXED_WIDTH_TYPEDEFS + "__global__ void k(unsigned long long *out, const unsigned long long *in, "
           "int reps)\n{\n    int t = 0;\n" + body + "\n}\n")
    out = np.zeros(2, np.uint64)
    simcore.RawModule(code=src).get_function("k")((1,), (1,), (out, np.array([0], np.uint64), np.int32(1)))
    bits = TYPES[ctype][0]
    start = 0
    value = {"i--": start - 1, "--i": start - 1, "i++": start + 1, "++i": start + 1, "i -= 1": start - 1,
             "i += -1": start - 1, "i = -i": -start, "i = ~i": ~start}[op] % 2 ** bits
    if TYPES[ctype][1] and value >= 2 ** (bits - 1):
        value = (value - 2 ** bits) % 2 ** 64
    assert int(out[0]) == value and int(out[1]) == 6
