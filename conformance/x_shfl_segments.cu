// Segmented reductions with the width argument: sums over groups of 8 lanes
// (__shfl_down_sync width 8) and maxima over groups of 16 lanes (__shfl_xor_sync width 16),
// and a broadcast of each 16-lane segment's first value (__shfl_sync src 0, width 16).
extern "C" __global__ void x_shfl_segments(const int* in, int* sum8, int* max16, int* first16)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int s = v;
    for (int off = 4; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off, 8);
    int m = v;
    for (int mask = 8; mask > 0; mask >>= 1)
        m = max(m, __shfl_xor_sync(0xffffffffu, m, mask, 16));
    int f = __shfl_sync(0xffffffffu, v, 0, 16);
    if ((threadIdx.x & 7) == 0) sum8[i / 8] = s;
    max16[i] = m;
    first16[i] = f;
}
