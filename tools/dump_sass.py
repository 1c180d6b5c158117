"""Print the SASS of validation sweeps' kernels, as the GPU machine's nvcc compiles them.

    python tools/dump_sass.py --only mb6/global_atomic,matmul_tiled_rect [--arch sm_90] [--grep ATOM,RED]

For each sweep whose name has one of the --only parts (once per distinct source and -D
options of its first block size, or of --block): write the source, compile it with
`nvcc -cubin -arch=ARCH` and the sweep's -D options, and print `cuobjdump -sass` of it (only the
lines with one of the --grep words, when given). Which atomics are RED (no result) or ATOM,
warp-aggregated (a POPC or a vote before them) or compare-and-swap loops is what the timing
model's rules are written from (docs/timing-validation.md). Needs nvcc and cuobjdump; not simcore
and not a GPU.
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

try:
    from barrier_course.lessons import validation_kernels
except ImportError:       # bare copies of validation_kernels.py and tuning_kernels.py next to this script
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import validation_kernels


def sass_of(source, options, arch):
    """cuobjdump -sass of `source` compiled with `options`, as text."""
    with tempfile.TemporaryDirectory() as tmp:
        cu, cubin = pathlib.Path(tmp, "k.cu"), pathlib.Path(tmp, "k.cubin")
        cu.write_text(source)
        subprocess.run(["nvcc", "-cubin", f"-arch={arch}", *options, "-o", str(cubin), str(cu)], check=True,
                       capture_output=True, text=True)
        return subprocess.run(["cuobjdump", "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", required=True, help="comma-separated name parts")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--block", type=int, help="the block size whose -D options to compile with")
    ap.add_argument("--grep", help="comma-separated words: print only the SASS lines with one")
    args = ap.parse_args(argv)
    parts = args.only.split(",")
    words = args.grep.split(",") if args.grep else None
    done = set()
    for sweep in validation_kernels.SWEEPS:
        if not any(part in sweep.name for part in parts):
            continue
        block = args.block if args.block in sweep.blocks else sweep.blocks[0]
        options = validation_kernels.sweep_options(sweep, block)
        if (sweep.source, options) in done:
            continue
        done.add((sweep.source, options))
        print(f"==== {sweep.name} ({sweep.kernel}, {' '.join(options)})", flush=True)
        try:
            text = sass_of(sweep.source, options, args.arch)
        except subprocess.CalledProcessError as exc:
            print(f"  nvcc/cuobjdump failed: {exc.stderr.strip()[:500]}", flush=True)
            continue
        lines = [ln for ln in text.splitlines() if words is None or any(w in ln for w in words)]
        print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
