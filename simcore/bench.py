"""`python -m simcore.bench`: the benchmark of a source checkout (benchmarks/bench.py, whose
docstring describes it).

The benchmark is a developer tool and lives outside the library; this entry point keeps the
command the documentation gives, and says so where simcore is installed without a checkout.
"""
import sys
from pathlib import Path


def main(argv=None):
    checkout = Path(__file__).resolve().parents[1]
    if not (checkout / "benchmarks" / "bench_cli.py").is_file():
        sys.exit("python -m simcore.bench runs the benchmark of a source checkout (benchmarks/bench.py); "
                 f"this simcore ({Path(__file__).parent}) is installed without one")
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    from benchmarks.bench_cli import main as run_benchmark
    return run_benchmark(argv)


if __name__ == "__main__":
    sys.exit(main())
