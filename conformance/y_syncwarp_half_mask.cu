// Only lanes 0-15 of each warp enter the if, and they call __syncwarp(0x0000ffff):
// the mask names exactly the callers. They exchange values through shared memory.
extern "C" __global__ void y_syncwarp_half_mask(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int lane = t & 31;
    int i = blockIdx.x * 128 + t;
    int v = in[i];
    if (lane < 16) {
        s[t] = v * 3;
        __syncwarp(0x0000ffffu);
        v = s[(t & ~31) + (15 - lane)];
    }
    out[i] = v;
}
