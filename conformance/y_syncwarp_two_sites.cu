// Since Volta (sm_70+), __syncwarp() calls at DIFFERENT places match each other: the lower
// half-warp syncs in the then-branch, the upper half in the else-branch, both with the full
// mask, and they exchange values through shared memory.
extern "C" __global__ void y_syncwarp_two_sites(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int lane = t & 31;
    int v;
    if (lane < 16) {
        s[t] = in[t] * 2;
        __syncwarp();
        v = s[t + 16];
    } else {
        s[t] = in[t] + 1;
        __syncwarp();
        v = s[t - 16];
    }
    out[t] = v;
}
