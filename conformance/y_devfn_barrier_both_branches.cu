// The same __device__ function (with a barrier inside) is called from both sides of an
// if/else on threadIdx.x < 64. It is one line of source, but inlined into two call sites:
// two different barrier instructions, reached by different threads.
__device__ int exchange(int* tile, int v, int k)
{
    int t = threadIdx.x;
    tile[t] = v;
    __syncthreads();
    return tile[(t + k) % 128];
}

extern "C" __global__ void y_devfn_barrier_both_branches(int* out, const int* in)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    int v = in[t];
    if (t < 64)
        v = exchange(tile, v, 1) + 1;
    else
        v = exchange(tile, v, 2) - 1;
    out[t] = v;
}
