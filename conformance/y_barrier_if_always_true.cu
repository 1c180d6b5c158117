// __syncthreads() inside if (threadIdx.x < blockDim.x): the condition is true for every
// thread of the block, hence uniform.
extern "C" __global__ void y_barrier_if_always_true(int* out, const int* in)
{
    __shared__ int tile[96];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    if (threadIdx.x < blockDim.x) {
        __syncthreads();
    }
    out[i] = tile[(t + 40) % 96];
}
