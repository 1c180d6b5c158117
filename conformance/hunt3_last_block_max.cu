// The last block to finish takes the max of the blocks' partial maxima, read back in a loop; each
// block's thread 0 publishes its partial with __threadfence() before taking a ticket.
__device__ unsigned int hunt3_done = 0;
extern "C" __global__ void hunt3_last_block_max(const int* in, volatile int* partial, int* out)
{
    __shared__ int best;
    __shared__ bool last;
    if (threadIdx.x == 0) best = -2147483647;
    __syncthreads();
    atomicMax(&best, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = best;
        __threadfence();
        last = atomicAdd(&hunt3_done, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int m = partial[0];
        for (int b = 1; b < gridDim.x; b++)
            if (partial[b] > m) m = partial[b];
        *out = m;
        hunt3_done = 0;
    }
}
