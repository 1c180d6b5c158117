// The five-shuffle warp reduction: lane 0 ends with the warp's sum.
extern "C" __global__ void shfl_reduce(const int* in, int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if ((threadIdx.x & 31) == 0) out[g / 32] = v;
}
