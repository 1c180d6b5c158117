"""Render the player's static snapshots used in docs/player.md (HTML pages; PNGs via headless chromium).

    python tools/player_screenshots.py OUTDIR     # writes OUTDIR/*.html, then run chromium on them
"""
import sys
from pathlib import Path

import numpy as np

import simcore
from barrier_course import player

IFELSE = r"""
__global__ void ifelse(int *out, int split)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = t;
    if (t < split) {
        __syncthreads();
        out[t] = s[(t + 1) % blockDim.x];
    } else {
        __syncthreads();
        out[t] = s[(t + 1) % blockDim.x] + 1000;
    }
}
"""

REVERSE_NOSYNC = r"""
__global__ void reverse(float *out, const float *in)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}
"""


def main(outdir):
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    k = simcore.RawKernel(IFELSE, "ifelse")
    p = player.show(k, (1,), (256,), (np.zeros(256, np.int32), np.int32(100)))
    turns = next(i for i in range(len(p.rec)) if p.rec.frame(i).line == 11)      # the else side's turn
    p.save_snapshot(out / "player-ifelse-turns.html", turns)
    p.save_snapshot(out / "player-ifelse-fault.html")                           # opens at the fault
    k = simcore.RawKernel(REVERSE_NOSYNC, "reverse")
    x = np.arange(128, dtype=np.float32)
    p = player.show(k, (2,), (64,), (np.zeros_like(x), x), schedule="adversarial")
    p.save_snapshot(out / "player-race.html")
    print("\n".join(str(f) for f in sorted(out.glob("*.html"))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
