// The same reduction made legal: every read is separated from the next write by
// __syncwarp (the branch t < 32 is uniform per warp).
extern "C" __global__ void warp_sync_fixed(int* out, const int* in)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        int v = s[t] + s[t + 32];
        __syncwarp(0xffffffff);
        s[t] = v;
        __syncwarp(0xffffffff);
        for (int offset = 16; offset > 0; offset /= 2) {
            v += s[t + offset < 64 ? t + offset : t];
            __syncwarp(0xffffffff);
            s[t] = v;
            __syncwarp(0xffffffff);
        }
    }
    if (t == 0) out[0] = s[0];
}
