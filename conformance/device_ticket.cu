// The last-block ticket (CUDA's threadFenceReduction sample): each block writes its partial
// sum, fences, and takes a ticket from a __device__ counter; the block that takes the last
// ticket adds the partial sums and resets the counter for the next launch.
__device__ unsigned int blocks_done = 0;

extern "C" __global__ void device_ticket(const int* in, int* partial, int* total)
{
    __shared__ int sums[64];
    __shared__ bool is_last;
    int t = threadIdx.x;
    sums[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sums[t] += sums[t + s];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = sums[0];
        __threadfence();
        unsigned int ticket = atomicInc(&blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last && t == 0) {
        int sum = 0;
        for (int b = 0; b < gridDim.x; b++) sum += ((volatile int*)partial)[b];
        *total = sum;
        blocks_done = 0;
    }
}
