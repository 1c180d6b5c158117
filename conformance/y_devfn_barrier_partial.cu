// A __device__ function with a barrier called only by warps 0-1 (threadIdx.x < 64);
// warps 2-3 go on to the barrier after the if: two different barrier sites.
__device__ int exchange(int* tile, int v)
{
    int t = threadIdx.x;
    tile[t] = v;
    __syncthreads();
    return tile[63 - t];
}

extern "C" __global__ void y_devfn_barrier_partial(int* out, const int* in)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    int v = in[t];
    if (t < 64) v = exchange(tile, v);
    __syncthreads();
    out[t] = v;
}
