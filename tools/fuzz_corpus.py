"""Fuzz simcore with mutated corpus kernels: no internal error, no hang, every error at a line.

    python tools/fuzz_corpus.py --count 2000 --seed 1      # figures, and every bad mutant

Each mutant is one conformance kernel (conformance/*.cu) with 1 to 3 mutations chosen by a
seeded generator: delete, duplicate or swap statements, change a constant or an operator, move
a barrier into a branch (or wrap a statement in one), insert a statement of a list (barriers,
early returns, unsigned wrap-around, undefined shifts, the clock, math intrinsics, memcpy...),
truncate the file, insert or delete a token. It is
compiled and, when that works, launched with its corpus entry's configuration and arguments
(a generic set when the mutation changed the parameters), every check on, a step budget and a
grader's time limit. The outcome must be one of:

* a module that launches to the end, a `KernelFault`, a `LaunchError`;
* a `CompileError` that names a line (`.line`), unless the file as a whole is wrong (no kernel
  left, a brace never closed);

and never another exception (a `SimulatorError` is simcore's own bug), nor a run longer than
HANG_S seconds of CPU time (a guard of this harness: the verdicts come from the step budget).
tests/conformance/test_fuzz_corpus.py runs a few hundred seeded mutants of this in CI.
"""
import argparse
import contextlib
import io
import os
import random
import re
import signal
import sys
import time
import warnings
from collections import Counter

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import simcore  # noqa: E402
from conformance import corpus  # noqa: E402

HANG_S = 20                 # CPU seconds for one mutant (compile + launch) before it counts as a hang
WALL_BACKSTOP = 10          # ... or that many times HANG_S of wall time (a process blocked without using CPU)
MAX_STEPS = 4000            # simulated steps per wave: a mutated loop stops here (a step_limit fault)
MAX_THREADS = 1024          # larger launches are cut to fewer blocks (the verdict does not matter here)
# CompileErrors about the whole file, which have no line to name
WHOLE_FILE = ("no __global__ kernel found",)

TOKEN = re.compile(r"0x[0-9a-fA-F]+[uUlL]*|\d+\.?\d*(?:[eE][-+]?\d+)?[fFuUlL]*|[A-Za-z_]\w*"
                   r"|<<=|>>=|<<|>>|\+\+|--|&&|\|\||[-+*/%&|^!=<>]=|->|::|\S")
NUMBER = re.compile(r"(?<![\w.])(?:0x[0-9a-fA-F]+|\d+)[uUlL]*(?![\w.])")
OPERATORS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||"]
OPERATOR = re.compile(r"(?<=[\w)\]] )(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^<>])(?= [\w(])")
CONSTANTS = ["0", "1", "-1", "2", "31", "32", "33", "63", "64", "255", "1024", "4096", "65536", "2147483647",
             "0x7fffffff", "0xffffffffu", "4294967295u", "-2147483648", "100000", "3"]
INSERTS = ["__syncthreads();", "__syncwarp();", "return;", "break;", "continue;", "{", "}", "(", ")", ";", ",",
           "[", "]", "*", "&", "int", "unsigned", "float", "__shared__", "if", "else", "for", "while",
           "threadIdx.x", "0", "-", "=", "__shfl_sync(0xffffffff, 1, 0)", "goto", "\"", "'", "#", "...", "::",
           "template", "struct", "sizeof", "void", "const", "static", "extern", "asm", "__global__", "->"]
SNIPPETS = ["__syncthreads();", "if (threadIdx.x & 1) return;", "for (int q = 0; q < 3; ++q) __syncthreads();",
            "unsigned u = 7; u--; u >>= threadIdx.x;", "int z = 5 / (int)(threadIdx.x % 2);",
            "long long c0 = clock64(); while (clock64() - c0 < 100) { }", "__nanosleep(100);",
            "float m = erfinvf(0.5f) + __exp10f(1.0f) + j0f(2.0f);", "int loc[4]; memset(loc, 0, sizeof(loc));",
            "int loc2[2]; memcpy(loc2, loc2, 8);", "size_t s = 0; s--;", "int big = 2147483647 * (int)threadIdx.x;",
            "unsigned mask = (1u << (threadIdx.x & 63)) - 1u;", "float sv, cv; sincosf(1.0f, &sv, &cv);",
            "__shared__ int q[4]; q[threadIdx.x] = 1;", "int w = __shfl_down_sync(0xffffffff, 1, 40);",
            "unsigned b = __byte_perm(1u, 2u, 0x3210u) + __funnelshift_l(1u, 2u, 40u);"]
BRANCH_CONDITIONS = ["threadIdx.x % 2", "threadIdx.x < 16", "threadIdx.x == 0", "blockIdx.x > 0",
                     "(threadIdx.x & 32) != 0"]


# ===================================================================== mutations
def statement_lines(lines):
    return [i for i, s in enumerate(lines) if s.strip().endswith(";") and not s.strip().startswith("//")]


KINDS = ("delete", "duplicate", "swap", "constant", "operator", "barrier_branch", "wrap_branch", "insert_snippet",
         "truncate", "insert_token", "delete_token")
# the mutations that keep the text C (mostly): their mutants compile and run more often
SEMANTIC = ("delete", "duplicate", "swap", "constant", "operator", "barrier_branch", "wrap_branch", "insert_snippet")


def mutate(src, rng, kinds=KINDS):
    """One mutation of src, chosen by rng; -> (new source, what was done)."""
    lines = src.split("\n")
    stmts = statement_lines(lines) or [0]
    kind = rng.choice(kinds)
    if kind == "delete":
        i = rng.choice(stmts)
        del lines[i]
    elif kind == "duplicate":
        i = rng.choice(stmts)
        lines.insert(rng.choice(stmts), lines[i])
    elif kind == "swap":
        i, j = rng.choice(stmts), rng.choice(stmts)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "constant":
        spots = [(k, m) for k, s in enumerate(lines) if not s.strip().startswith("//") for m in NUMBER.finditer(s)]
        if spots:
            k, m = rng.choice(spots)
            lines[k] = lines[k][:m.start()] + rng.choice(CONSTANTS) + lines[k][m.end():]
    elif kind == "operator":
        spots = [(k, m) for k, s in enumerate(lines) if not s.strip().startswith("//") for m in OPERATOR.finditer(s)]
        if spots:
            k, m = rng.choice(spots)
            lines[k] = lines[k][:m.start()] + rng.choice(OPERATORS) + lines[k][m.end():]
    elif kind == "barrier_branch":
        spots = [k for k, s in enumerate(lines) if re.search(r"__syncthreads\s*\(\s*\)\s*;|__syncwarp\s*\(", s)]
        if spots:
            k = rng.choice(spots)
            lines[k] = f"if ({rng.choice(BRANCH_CONDITIONS)}) {{ {lines[k].strip()} }}"
    elif kind == "wrap_branch":
        i = rng.choice(stmts)
        lines[i] = f"if ({rng.choice(BRANCH_CONDITIONS)}) {{ {lines[i].strip()} }}"
    elif kind == "insert_snippet":
        lines.insert(rng.choice(stmts) + 1, rng.choice(SNIPPETS))
    elif kind == "truncate":
        return src[:rng.randrange(len(src) + 1)], kind
    else:
        toks = [(m.start(), m.end()) for m in TOKEN.finditer(src)]
        if toks:
            s, e = rng.choice(toks)
            if kind == "insert_token":
                return src[:s] + rng.choice(INSERTS) + " " + src[s:], kind
            return src[:s] + src[e:], kind
    return "\n".join(lines), kind


def mutants(count, seed, kinds=KINDS):
    """count seeded mutants: (index, corpus entry, source, [mutations])."""
    rng = random.Random(seed)
    entries = [e for e in corpus.ENTRIES if not e.name_expressions]
    for k in range(count):
        e = rng.choice(entries)
        src, done = e.source, []
        for _ in range(rng.choice([1, 1, 2, 3])):
            src, what = mutate(src, rng, kinds)
            done.append(what)
        yield k, e, src, done


# ===================================================================== running one
class Hang(Exception):
    pass


@contextlib.contextmanager
def hang_guard(seconds):
    """A mutant that uses more than `seconds` of this process's CPU time is a hang of the harness,
    reported (POSIX main thread). CPU time (SIGPROF), not wall time: on a loaded machine a mutant
    that needs one second of CPU may take twenty of wall time, and that is no hang. A wall-clock
    alarm at WALL_BACKSTOP times the limit still catches a process that blocks without using CPU."""
    if not hasattr(signal, "SIGALRM") or not hasattr(signal, "setitimer"):
        yield
        return

    def on_cpu(signum, frame):
        raise Hang(f"no result within {seconds} s of CPU time")

    def on_wall(signum, frame):
        raise Hang(f"no result within {seconds * WALL_BACKSTOP} s of wall time")

    old_prof, old_alarm = signal.signal(signal.SIGPROF, on_cpu), signal.signal(signal.SIGALRM, on_wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.alarm(int(seconds * WALL_BACKSTOP))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old_alarm)


def generic_args(kernel, n=4096):
    args = []
    for p in kernel.params:
        if p.is_pointer:
            if p.dtype.kind == "f":
                args.append(np.linspace(-2, 2, n).astype(p.dtype))
            elif p.dtype.kind == "V" or p.dtype.fields:
                args.append(np.zeros(n, p.dtype))
            elif p.dtype.kind == "b":
                args.append(np.zeros(n, p.dtype))
            else:
                args.append((np.arange(n) % 97).astype(p.dtype))
        elif p.dtype.kind == "b":
            args.append(True)
        elif p.dtype.kind == "f":
            args.append(p.dtype.type(1.5))
        else:
            args.append(p.dtype.type(64))
    return tuple(args)


def launch_shape(entry):
    grid, block = tuple(entry.grid) + (1,) * (3 - len(entry.grid)), tuple(entry.block)
    threads = int(np.prod(block))
    blocks = max(1, MAX_THREADS // max(threads, 1))
    return (min(grid[0], blocks), 1, 1) if np.prod(grid) * threads > MAX_THREADS else entry.grid, block


def run_mutant(entry, src):
    """-> (outcome, exception or None): 'ran', 'fault', 'launch_error', 'compile_error', or a
    problem: 'internal' (an exception that is not simcore's), 'no_line' (a CompileError at no
    line), 'hang'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                with hang_guard(HANG_S):
                    return _run(entry, src)
            except Hang as e:
                return "hang", e
            except simcore.CompileError as e:
                if e.line is None and not any(w in str(e) for w in WHOLE_FILE) and not _file_level(e):
                    return "no_line", e
                return "compile_error", e
            except simcore.LaunchError as e:
                return "launch_error", e
            except simcore.KernelFault as e:
                return ("fault" if e.report.get("line") or e.report.get("lines") else "fault_without_line"), e
            except Exception as e:      # noqa: BLE001 - simcore's own errors, and raw Python ones
                # simcore wraps what escapes its compiler, the harness's Hang too
                return ("hang" if "Hang:" in str(e) else "internal"), e


def _file_level(e):
    """A CompileError about the file as a whole (braces, an unterminated #if): no single line."""
    return e.construct in ("{", "}", "#if", "#endif", "preprocessor", "__global__")


def _run(entry, src):
    mod = simcore.RawModule(code=src, options=entry.options, enable_cooperative_groups=entry.cooperative)
    names = mod.kernel_names
    for name in names:
        kernel = mod.get_function(name)
        grid, block = launch_shape(entry)
        args = None
        if name == entry.kernel:
            try:
                from conformance import runner
                runner.set_globals(mod, entry)
            except Exception:           # noqa: BLE001 - a mutated variable: its default value is fine
                pass
            args = entry.make_args()
        try:
            kernel(grid, block, args if args is not None else generic_args(kernel), shared_mem=entry.shared_mem,
                   max_steps=MAX_STEPS)
        except simcore.LaunchError:
            if args is None:
                raise
            kernel(grid, block, generic_args(kernel), shared_mem=max(entry.shared_mem, 1024), max_steps=MAX_STEPS)
    return "ran", None


# ===================================================================== the figures
PROBLEMS = ("internal", "no_line", "hang")


def fuzz(count, seed, progress=None, kinds=KINDS):
    """Run count mutants; -> (Counter of outcomes, [(index, entry name, mutations, outcome, error, source)])."""
    outcomes, bad = Counter(), []
    for k, entry, src, done in mutants(count, seed, kinds):
        outcome, err = run_mutant(entry, src)
        outcomes[outcome] += 1
        if outcome in PROBLEMS:
            bad.append((k, entry.name, done, outcome, err, src))
        if progress and (k + 1) % progress == 0:
            print(f"{k + 1} mutants: {dict(outcomes)}", file=sys.stderr)
    return outcomes, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=5, help="bad mutants to print in full")
    ap.add_argument("--semantic", action="store_true", help="only the mutations that keep the text C")
    a = ap.parse_args(argv)
    start = time.monotonic()
    outcomes, bad = fuzz(a.count, a.seed, progress=200, kinds=SEMANTIC if a.semantic else KINDS)
    print(f"{a.count} mutants (seed {a.seed}) in {time.monotonic() - start:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    by_kind = Counter((o, type(e).__name__, str(e).split("\n")[0][:120]) for _, _, _, o, e, _ in bad)
    for (o, cls, msg), n in by_kind.most_common():
        print(f"  {n:4d} x {o}: {cls}: {msg}")
    for k, name, done, o, e, src in bad[:a.show]:
        print(f"\n--- mutant {k} of {name} ({', '.join(done)}): {o}: {type(e).__name__}: {e}\n{src}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
