// Disjoint masks in divergent code are legal: each half-warp exchanges within itself,
// naming exactly the lanes that take part.
extern "C" __global__ void shfl_partial_mask(int* out, const int* in)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[blockIdx.x * blockDim.x + t];
    if (lane < 16)
        v = __shfl_xor_sync(0x0000ffff, v, 1);
    else
        v = __shfl_xor_sync(0xffff0000, v, 2) + 1000;
    unsigned int b = __ballot_sync(0xffffffff, v > 500);
    out[blockIdx.x * blockDim.x + t] = v + (int)(b & 1u);
}
