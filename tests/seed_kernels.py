"""Kernels from the course's seed texts that several tests check from different sides (the
verdicts, the trace, the step-through player) and that tools/player_screenshots.py renders for
docs/player.md: one definition, so every check and every picture is about the same kernel.

Line numbers count from the opening r\"\"\" line (each source starts with a newline), the way a
fault report and the player number them.
"""

# The seeds' if/else with a barrier on each side: a divergent barrier when a block's threads
# split between the two sides, a deadlock under the pre-Volta (stack) model when a warp does.
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
THEN_SYNC, THEN_WORK, ELSE_SYNC, ELSE_WORK = 8, 9, 11, 12

# A tile reverse that forgot its barrier: a race under the adversarial schedule.
REVERSE_NOSYNC = r"""
__global__ void reverse(float *out, const float *in)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}
"""
WRITE_LINE, READ_LINE = 6, 7
