// A per-block histogram in shared memory with atomicAdd_block (every thread that touches it is in
// the block), merged into the global one with device-scope atomicAdd.
extern "C" __global__ void hunt3_block_atomic_shared_hist(const int* keys, int* hist, int n)
{
    __shared__ int local[8];
    if (threadIdx.x < 8) local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd_block(&local[keys[i] & 7], 1);
    __syncthreads();
    if (threadIdx.x < 8) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
