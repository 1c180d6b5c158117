// A __device__ function containing __syncthreads(), called by every thread of the block
// from two different places: each call is reached by all threads.
__device__ int rotate_through(int* tile, int v, int shift)
{
    int t = threadIdx.x;
    tile[t] = v;
    __syncthreads();
    int r = tile[(t + shift) % blockDim.x];
    __syncthreads();
    return r;
}

extern "C" __global__ void y_devfn_barrier_twice(int* out, const int* in)
{
    __shared__ int tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int a = rotate_through(tile, in[i], 3);
    a = a * 10 + 1;
    int b = rotate_through(tile, a, blockDim.x - 1);
    out[i] = b;
}
