"""Run GPUVerify's CUDA test suite through simcore and tabulate what happens.

    python tools/gpuverify_suite.py <gpuverify checkout>/testsuite/CUDA [--markdown out.md] [--only name,...]

GPUVerify (https://github.com/mc-imperial/gpuverify) is a static verifier; its suite is
CUDA that real code contains, each file headed by the verdict GPUVerify must give
(`//pass`, `//xfail:NOT_ALL_VERIFIED` for a kernel with a real bug) and its launch
(`//--blockDim=64 --gridDim=64 -DWIDTH=256`). This script keeps the kernels a dynamic
checker can run at all, and runs each on the simulator with every check on, with arguments
made up from the signature (below). Left out, by rule, not by name:

* kernels whose meaning is a verifier annotation (`__requires`, `__assert`, `__invariant`,
  `__write_offset_bytes`, ... : calls of GPUVerify's own `__`-functions that CUDA lacks);
* kernels GPUVerify itself expects to refuse (`//xfail:CLANG_ERROR`, `//xfail:BUGLE_ERROR`:
  not CUDA that nvcc compiles, or a verifier limitation);
* kernels using cuRAND (a host library simcore does not model);
* with `--nvcc` (the path of nvcc, or `nvcc` on PATH): kernels nvcc cannot build into a cubin
  for sm_90 (`nvcc -arch=sm_90 -cubin`: a syntax CUDA does not have, a function declared and
  never defined, which ptxas cannot resolve). A refusal of what nvcc builds is simcore's gap;
  a refusal of what nvcc rejects is right.

Before a kernel runs, its `#include` lines of host headers that NVRTC cannot open (`"cuda.h"`,
`<stdio.h>`: the suite was written for nvcc) are blanked, as a CuPy user would not write them;
the summary counts them. Anything else NVRTC lacks (`__builtin_memcpy`) stays a refusal.

Made-up arguments: a pointer parameter gets a zero-filled array (of its element type, or of
the struct's layout) of `ELEMENTS_PER_THREAD` elements per launched thread; `T **` gets an
array of addresses of such arrays; a number gets `SCALAR_VALUE`; a struct by value a zeroed
`numpy.void` of its layout. The launch is the file's, clamped to what CUDA allows (1024
threads per block) and to at most `MAX_BLOCKS` blocks per dimension, so that the suite runs
in minutes.

Outcome of each kernel: `ok` (ran, no fault), `fault:<kind>` (a checker fault: compare with
the file's expectation), `refused:<construct>` (a `CompileError` naming what simcore does not
take), `launch:<message>` (a `LaunchError`), `internal` (a simcore bug: any other exception).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import simcore  # noqa: E402

ANNOTATION = re.compile(r"\b__(assert|requires|ensures|invariant|global_invariant|assume|axiom|function_wide"
                        r"|read|write|no_read|no_write|implies|enabled|uniform|distinct|at_most_one|contract"
                        r"|other|global_requires|global_ensures|ptr_base|ptr_offset|all|exclusive|same_group"
                        r"|return_val)[A-Za-z_]*\s*\(")
TOOL_ERROR = re.compile(r"xfail:(CLANG_ERROR|BUGLE_ERROR)", re.I)
ELEMENTS_PER_THREAD = 64
MAX_ELEMENTS = 1 << 22
SCALAR_VALUE = 2          # small: scalars are often a pass number or a count (indices grow with them)
MAX_BLOCKS = 2
MAX_THREADS_PER_BLOCK = 1024


def usable(text, path=None, nvcc=None):
    """Why a kernel file is left out, or None when a dynamic checker can run it."""
    if TOOL_ERROR.search(text.split("\n", 1)[0]):
        return "GPUVerify expects a tool error"
    if ANNOTATION.search(text):
        return "verifier annotations"
    if "curand" in text:
        return "cuRAND"
    if nvcc and path is not None:
        return nvcc_rejects(nvcc, path, launch_of(text)[3])
    return None


def nvcc_rejects(nvcc, path, options):
    """nvcc's first error for the file, or None when it builds a cubin."""
    with tempfile.TemporaryDirectory() as tmp:
        got = subprocess.run([nvcc, "-arch=sm_90", "-cubin", *options, "-o", os.path.join(tmp, "k.cubin"), str(path)],
                             capture_output=True, text=True, cwd=tmp)
    if got.returncode == 0:
        return None
    lines = [ln for ln in (got.stderr + got.stdout).splitlines() if re.search(r"error|fatal", ln, re.I)]
    first = lines[0] if lines else f"exit status {got.returncode}"
    return "nvcc rejects it: " + first.split(str(path.parent) + "/")[-1].strip()


def dims(spec):
    """'64' or '[64,64]' -> a tuple of ints."""
    return tuple(int(x) for x in spec.strip("[]").split(","))


def launch_of(text):
    """(expectation, grid, block, -D options) from the file's first two lines."""
    lines = text.splitlines() + ["", ""]
    expect = lines[0].strip().lstrip("/").strip().lower()
    head = lines[1]
    grid = dims(re.search(r"--gridDim=(\S+)", head).group(1)) if "--gridDim=" in head else (1,)
    block = dims(re.search(r"--blockDim=(\S+)", head).group(1)) if "--blockDim=" in head else (1,)
    options = tuple(re.findall(r"(-D\w+(?:=\S+)?)", head))
    grid = tuple(min(g, MAX_BLOCKS) for g in grid)
    block = list(block)
    while int(np.prod(block)) > MAX_THREADS_PER_BLOCK:      # CUDA's limit; GPUVerify has none
        k = int(np.argmax(block))
        block[k] //= 2
    return expect, grid, tuple(block), options


def argument(param, threads):
    """A made-up argument for one parameter."""
    n = min(threads * ELEMENTS_PER_THREAD, MAX_ELEMENTS)
    dtype = param.dtype
    if getattr(param, "inner", None) is not None:        # T **: a list of arrays
        return [np.zeros(n, param.inner) for _ in range(4)]
    if param.is_pointer:
        return np.zeros(n, dtype)
    if dtype.fields is not None:          # a struct by value: its pointer members get arrays
        if param.pointer_members:
            return {path: np.zeros(n, pointee) for path, _, pointee in param.pointer_members}
        return np.zeros((), dtype)[()]
    if dtype.kind == "f":
        return dtype.type(1.5)
    if dtype.kind == "b":
        return True
    return dtype.type(SCALAR_VALUE)


def run_kernel(source, name, grid, block, options):
    module = simcore.RawModule(code=source, options=options)
    kernel = module.get_function(name)
    threads = int(np.prod(grid)) * int(np.prod(block))
    args = tuple(argument(p, threads) for p in kernel.params)
    kernel(grid, block, args, time_limit=60)


def outcome(exc):
    if exc is None:
        return "ok", ""
    if isinstance(exc, simcore.KernelFault):
        return f"fault:{exc.kind}", str(exc).splitlines()[0] + " " + " ".join(
            line.strip() for line in str(exc).splitlines()[1:3])
    if isinstance(exc, simcore.CompileError):
        return f"refused:{exc.construct}", str(exc).splitlines()[0]
    if isinstance(exc, simcore.LaunchError):
        return "launch", str(exc).splitlines()[0]
    return "internal", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def kernel_names(source, options):
    try:
        return simcore.RawModule(code=source, options=options).kernel_names, None
    except Exception as e:        # noqa: BLE001 - every failure is tabulated
        return None, e


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"].*$', re.M)
HOST_HEADERS_REMOVED = {}   # header -> kernel files it was removed from


def for_nvrtc(text, name):
    """The suite was written for nvcc, whose include path has the host's headers ("cuda.h",
    <stdio.h>); NVRTC, which simcore follows (its GPU backend is CuPy), cannot open them and a
    CuPy user does not write them. Blank each such line (line numbers kept) and count it, so the
    table measures the device code, not the first line of most files."""
    from simcore.frontend import nvrtc_environment

    def blank(m):
        if nvrtc_environment.header_found(m.group(1).strip()):
            return m.group(0)
        HOST_HEADERS_REMOVED.setdefault(m.group(1).strip(), set()).add(name)
        return ""
    return INCLUDE.sub(blank, text)


def run_file(path, root, nvcc=None):
    name = str(path.parent.relative_to(root))
    text = for_nvrtc(path.read_text(errors="replace"), name)
    why = usable(text, path, nvcc)
    if why:
        return [(name, "-", "left out", why, "")]
    expect, grid, block, options = launch_of(text)
    names, err = kernel_names(text, options)
    if err is not None:
        return [(name, "-", *outcome(err), expect)]
    rows = []
    for k in names:
        exc = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run_kernel(text, k, grid, block, options)
        except Exception as e:    # noqa: BLE001
            exc = e
        rows.append((name, k, *outcome(exc), expect))
    return rows


def main(argv=None):
    global SCALAR_VALUE                    # noqa: PLW0603 - one setting for the whole run
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", help="GPUVerify's testsuite/CUDA folder")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--only", help="comma-separated test folders (relative to the suite)")
    ap.add_argument("--nvcc", nargs="?", const="nvcc", help="leave out what nvcc cannot build (path of nvcc)")
    ap.add_argument("--scalar", type=int, default=2, help="the value of every integer scalar "
                    "argument (default 2; 0 makes function-pointer parameters null)")
    args = ap.parse_args(argv)
    SCALAR_VALUE = args.scalar
    nvcc = shutil.which(args.nvcc) if args.nvcc else None
    if args.nvcc and nvcc is None:
        ap.error(f"--nvcc: {args.nvcc} not found")
    root = Path(args.suite)
    files = sorted(root.rglob("kernel.cu"))
    if args.only:
        wanted = set(args.only.split(","))
        files = [f for f in files if str(f.parent.relative_to(root)) in wanted]
    rows = []
    for f in files:
        t0 = time.process_time()
        got = run_file(f, root, nvcc)
        rows.extend(got)
        for r in got:
            if r[2] != "left out":
                print(f"{r[0]:60s} {r[1]:24s} {r[2]:28s} {r[3][:160]}  [{time.process_time() - t0:.1f}s]",
                      flush=True)
    summary = tally(rows)
    print("\n" + "\n".join(summary))
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows, summary, root))
    return 0


def tally(rows):
    files = {}
    for r in rows:
        files.setdefault(r[0], []).append(r)
    used = {f: rs for f, rs in files.items() if rs[0][2] != "left out"}

    def worst(rs):
        order = ("internal", "refused", "launch", "fault", "ok")
        return min((r[2] for r in rs), key=lambda o: order.index(o.split(":")[0]))
    kinds = [worst(rs).split(":")[0] for rs in used.values()]
    refusals = {}
    for rs in used.values():
        w = worst(rs)
        if w.startswith("refused:"):
            refusals[w[8:]] = refusals.get(w[8:], 0) + 1
    return [f"kernel files: {len(files)}; left out by rule: {len(files) - len(used)}; run: {len(used)}",
            f"ran without fault: {kinds.count('ok')}; faulted: {kinds.count('fault')}; "
            f"refused: {kinds.count('refused')}; launch errors: {kinds.count('launch')}; "
            f"internal errors: {kinds.count('internal')}",
            "refused, by construct: " + (", ".join(f"{k} {v}" for k, v in sorted(refusals.items())) or "none"),
            "host headers NVRTC cannot open, removed before the run (kernel files): "
            + (", ".join(f"{h} {len(f)}" for h, f in sorted(HOST_HEADERS_REMOVED.items())) or "none")]


def markdown(rows, summary, root):
    out = ["# GPUVerify's CUDA suite on simcore", "",
           "Made by `tools/gpuverify_suite.py` (its docstring says which kernels are left out and "
           "which arguments they get). `expected` is the file's own header: `pass`, or "
           "`xfail:not_all_verified` for a kernel GPUVerify must find a defect in.", "",
           *[f"* {s}" for s in summary], "",
           "| test | kernel | outcome | detail | expected |", "|---|---|---|---|---|"]
    for r in rows:
        if r[2] == "left out":
            continue
        detail = r[3].replace("|", "\\|").replace("\n", " ")[:220]
        out.append(f"| {r[0]} | {r[1]} | {r[2]} | {detail} | {r[4]} |")
    out += ["", "Left out by rule:", ""]
    out += [f"* {r[0]}: {r[3]}" for r in rows if r[2] == "left out"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    os.environ.setdefault("SIMCORE_BACKEND", "sim")
    sys.exit(main())
