// Whole blocks return before the barriers: the condition is uniform across each block,
// so no barrier ever completes with part of a block missing.
extern "C" __global__ void y_block_return_early(int* out, const int* in, int nb)
{
    __shared__ int tile[64];
    if (blockIdx.x >= nb) return;
    int t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    tile[t] = in[i];
    __syncthreads();
    int v = tile[63 - t];
    __syncthreads();
    tile[t] = v * 2;
    __syncthreads();
    out[i] = tile[(t + 5) % 64];
}
