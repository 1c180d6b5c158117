// __shfl_sync with width 8 and an out-of-range source lane, __shfl_up_sync and
// __shfl_down_sync with width 16 (lanes whose source falls outside the segment keep
// their own value), __shfl_xor_sync with widths 32 and 8, on ints and floats.
extern "C" __global__ void shfl_variants(const int* in, int* out, float* outf)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[g];
    float f = (float)v * 0.5f;
    out[g * 6 + 0] = __shfl_sync(0xffffffff, v, 3, 8);
    out[g * 6 + 1] = __shfl_up_sync(0xffffffff, v, 2, 16);
    out[g * 6 + 2] = __shfl_down_sync(0xffffffff, v, 3, 16);
    out[g * 6 + 3] = __shfl_xor_sync(0xffffffff, v, 5);
    out[g * 6 + 4] = __shfl_xor_sync(0xffffffff, v, 3, 8);
    out[g * 6 + 5] = __shfl_sync(0xffffffff, v, lane + 33);
    outf[g] = __shfl_down_sync(0xffffffff, f, 1);
}
