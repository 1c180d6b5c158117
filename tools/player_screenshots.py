"""Render the player's static snapshots used in docs/player.md (HTML pages; PNGs via headless chromium).

    python tools/player_screenshots.py OUTDIR     # writes OUTDIR/*.html, then run chromium on them
"""
import sys
from pathlib import Path

import numpy as np

import simcore
from barrier_course.lessons import player

# the kernels the player's tests check (tests/seed_kernels.py): the pictures show the same ones
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from seed_kernels import ELSE_SYNC, IFELSE, REVERSE_NOSYNC  # noqa: E402


def main(outdir):
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    k = simcore.RawKernel(IFELSE, "ifelse")
    p = player.show(k, (1,), (256,), (np.zeros(256, np.int32), np.int32(100)))
    turns = next(i for i in range(len(p.rec)) if p.rec.frame(i).line == ELSE_SYNC)  # the else side's turn
    p.save_snapshot(out / "player-ifelse-turns.html", turns)
    p.save_snapshot(out / "player-ifelse-fault.html")                           # opens at the fault
    k = simcore.RawKernel(REVERSE_NOSYNC, "reverse")
    x = np.arange(128, dtype=np.float32)
    p = player.show(k, (2,), (64,), (np.zeros_like(x), x), schedule="adversarial")
    p.save_snapshot(out / "player-race.html")
    print("\n".join(str(f) for f in sorted(out.glob("*.html"))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
