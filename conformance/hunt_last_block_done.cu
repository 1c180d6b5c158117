// The threadFenceReduction sample's shape: the last block to finish adds up the partials.
__device__ unsigned int retired = 0;
__device__ int block_sum(int v)
{
    __shared__ int s[64];
    s[threadIdx.x] = v;
    __syncthreads();
#pragma unroll
    for (int w = 32; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    return s[0];
}
extern "C" __global__ void hunt_last_block_done(const int* in, volatile int* partial, int* out)
{
    __shared__ bool am_last;
    int sum = block_sum(in[blockIdx.x * 64 + threadIdx.x]);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        unsigned int ticket = atomicInc(&retired, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last) {
        int total = block_sum(threadIdx.x < gridDim.x ? partial[threadIdx.x] : 0);
        if (threadIdx.x == 0) { *out = total; retired = 0; }
    }
}
