// 2-D blocks of 32x8: each row (threadIdx.y) is exactly one warp. Row sums by shuffles,
// then a barrier and a column pass over the row sums in shared memory.
extern "C" __global__ void y_block2d_rows(const int* in, int* out, int* rowsum)
{
    __shared__ int rs[8];
    int x = threadIdx.x, y = threadIdx.y;
    int i = (blockIdx.x * 8 + y) * 32 + x;
    int v = in[i];
    int s = v;
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (x == 0) rs[y] = s;
    __syncthreads();
    if (x == 0) rowsum[blockIdx.x * 8 + y] = rs[y];
    out[i] = v * 8 - rs[(y + 1) % 8] + __shfl_sync(0xffffffffu, v, (x + y) & 31);
}
