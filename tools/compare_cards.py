"""The same sweeps measured on two GPUs, side by side: each point's time ratio.

    python tools/compare_cards.py A.json[,A2.json...] B.json[,B2.json...] [--only PREFIX] [--markdown]

A and B are files of tools/measure_timing_sweeps.py (or tools/microbench_gpu.py /
microbench_dispatch.py, whose results are compared by name). Prints, for every sweep measured in
both, the ratio B/A of each block size's median time and the sweep's median ratio, then the ratio's
spread over all points. Used to tell which of one GPU's timing-model parameters carry over to
another (simcore/data/gpus.json says which ones were and on what evidence).
"""
import argparse
import json
import pathlib
import statistics


def load(paths):
    """-> (device name, {sweep name: {block: median ms}}) over the files, the first file's
    measurement of a sweep winning."""
    device, sweeps = None, {}
    for path in paths.split(","):
        data = json.loads(pathlib.Path(path).read_text())
        name = data.get("device", {}).get("name")
        if device and name and name != device:
            raise SystemExit(f"{path} was measured on {name!r}, the files before it on {device!r}")
        device = device or name
        for sweep in data.get("sweeps", []):
            sweeps.setdefault(sweep["name"], {r["block"]: r["median_ms"] for r in sweep["runs"]})
        for key, result in data.items():            # microbench_gpu.py's results: name -> {median_ms...}
            if isinstance(result, dict) and "median_ms" in result:
                sweeps.setdefault(key, {0: result["median_ms"]})
    return device, sweeps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--only", default="", help="sweeps whose name starts with this")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = ap.parse_args()
    (card_a, a), (card_b, b) = load(args.a), load(args.b)
    names = [n for n in a if n in b and n.startswith(args.only)]
    if not names:
        raise SystemExit("no sweep was measured in both")
    every = []
    if args.markdown:
        print(f"| sweep | {card_b} / {card_a}, by block size | median |\n| --- | --- | ---: |")
    for name in names:
        ratios = {blk: b[name][blk] / a[name][blk] for blk in sorted(a[name]) if blk in b[name]}
        if not ratios:
            continue
        every += ratios.values()
        cells = " ".join(f"{blk}: {r:.2f}" for blk, r in ratios.items())
        middle = statistics.median(ratios.values())
        print(f"| {name} | {cells} | {middle:.2f} |" if args.markdown else f"{name:48s} {middle:5.2f}   {cells}")
    q = statistics.quantiles(every, n=20) if len(every) > 1 else every * 19
    print(f"\n{len(every)} points, {card_b} / {card_a}: median {statistics.median(every):.2f}, "
          f"5th-95th percentile {q[0]:.2f}-{q[-1]:.2f}, range {min(every):.2f}-{max(every):.2f}")


if __name__ == "__main__":
    main()
