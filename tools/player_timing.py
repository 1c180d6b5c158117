"""Time to open the step-through player on lesson-sized launches (docs/player.md, "How fast").

    python tools/player_timing.py
"""
import time

import numpy as np

import simcore
from barrier_course.lessons import player

SMOOTH = r"""
__global__ void smooth(float *out, const float *in, int iters)
{
    __shared__ float buf[1024];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int i = 0; i < iters; i++) {
        float v = 0.5f * (buf[t] + buf[(t + 1) % blockDim.x]);
        __syncthreads();
        buf[t] = v;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = buf[t];
}
"""


def main():
    k = simcore.RawKernel(SMOOTH, "smooth")
    for grid, block in [(4, 256), (1, 1024)]:
        for schedule in ("lockstep", "adversarial"):
            x = np.ones(grid * block, np.float32)
            t0 = time.perf_counter()
            p = player.show(k, (grid,), (block,), (np.zeros_like(x), x, np.int32(24)), schedule=schedule)
            opened = time.perf_counter() - t0
            steps = []
            for _ in range(30):
                t0 = time.perf_counter()
                p.step_button.click()
                steps.append(time.perf_counter() - t0)
            print(f"{grid} x {block} {schedule}: {len(p.rec)} steps recorded; show() {opened:.2f} s "
                  f"(widget alone {p.open_seconds * 1000:.0f} ms); one step {np.median(steps) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
