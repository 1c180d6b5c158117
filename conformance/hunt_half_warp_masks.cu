// Each half-warp reduces its own 16 values with masks that name that half only.
extern "C" __global__ void hunt_half_warp_masks(const float* x, float* out)
{
    int lane = threadIdx.x & 31;
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    if (lane < 16) {
#pragma unroll
        for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0x0000ffffu, v, o);
    } else {
#pragma unroll
        for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0xffff0000u, v, o);
    }
    if ((lane & 15) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 16] = v;
}
