// The low half of each warp exchanges values through shared memory, synchronising itself only.
extern "C" __global__ void hunt_syncwarp_low_half_narrow_mask(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x, lane = t & 31;
    int v = in[t];
    if (lane < 16) {
        s[t] = v;
        if (lane < 8) __syncwarp(0x000000ffu); else __syncwarp(0x0000ff00u);
        v += s[(t & ~15) + ((lane + 1) & 15)];
    }
    out[t] = v;
}
