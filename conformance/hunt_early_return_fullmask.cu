// A guard that returns early, and no barrier after it: only warp-level work on live lanes.
extern "C" __global__ void hunt_early_return_fullmask(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned live = __ballot_sync(0xffffffffu, i < n);
    if (i >= n) return;
    int v = in[i];
    int lane = threadIdx.x & 31;
    for (int off = 16; off > 0; off >>= 1) {
        int o = __shfl_down_sync(0xffffffffu, v, off);
        if (lane + off < 32) v += o;
    }
    if (lane == 0) atomicAdd(out, v);
}
