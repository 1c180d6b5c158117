// A barrier under a condition that is uniform across the block (it depends only on
// blockIdx.x): even blocks reverse their tile through shared memory, odd blocks negate.
extern "C" __global__ void y_blockidx_if_barrier(int* out, const int* in)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    if (blockIdx.x % 2 == 0) {
        tile[t] = in[i];
        __syncthreads();
        out[i] = tile[127 - t];
    } else {
        out[i] = -in[i];
    }
}
