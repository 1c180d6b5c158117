// All 32 lanes call __syncwarp(0x0000ffff): lanes 16-31 call it without their own bit
// in the mask.
extern "C" __global__ void y_syncwarp_mask_missing_callers(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncwarp(0x0000ffffu);
    out[t] = s[t ^ 1];
}
