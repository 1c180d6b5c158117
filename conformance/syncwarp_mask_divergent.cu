// __syncwarp(0xffffffff) reached by half of the warp only: the other half is alive
// (it stores after the if) but never calls it.
extern "C" __global__ void syncwarp_mask_divergent(int* out, const int* in)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 16) {
        __syncwarp(0xffffffff);
        s[t] += s[t + 16];
    }
    out[t] = s[t];
}
