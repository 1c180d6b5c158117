// Warp-synchronous reduction in shared memory, done right since Volta: every step reads,
// __syncwarp, writes, __syncwarp. Each warp sums its 32 values; the half-warp steps use
// the mask of the lanes that still work (lanes below 16, 8, ...), all of which call.
extern "C" __global__ void x_syncwarp_reduce(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int lane = t & 31;
    s[t] = in[blockIdx.x * 128 + t];
    __syncwarp();
    for (int off = 16; off > 0; off >>= 1) {
        unsigned mask = (off == 16) ? 0xffffffffu : ((1u << (2 * off)) - 1u);
        if (lane < 2 * off) {
            int v = 0;
            if (lane < off) v = s[t] + s[t + off];
            __syncwarp(mask);
            if (lane < off) s[t] = v;
            __syncwarp(mask);
        }
    }
    if (lane == 0) out[blockIdx.x * 4 + t / 32] = s[t];
}
