// BUG version: the per-block histogram is updated with a plain ++.
// 256-bin histogram of bytes: per-block private histogram in shared memory (atomicAdd on
// shared), a grid-stride loop over the input, then the block merges into the global one.
#define BINS 256

extern "C" __global__ void x_histogram_plain_inc(const unsigned char* data, unsigned int* hist,
                                              int n)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        local[data[i]]++;   // BUG: not atomic: threads with equal bytes collide
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}
