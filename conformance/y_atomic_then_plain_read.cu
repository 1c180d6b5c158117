// Every block atomically adds to a global counter; thread 0 of each block then reads it
// with a plain load after __syncthreads() -- which orders nothing across blocks.
extern "C" __global__ void y_atomic_then_plain_read(const int* in, int* counter, int* seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&counter[0], in[i]);
    __syncthreads();
    if (threadIdx.x == 0) seen[blockIdx.x] = counter[0];
}
