// Inside one block a barrier orders global memory too: write, barrier, read a slot that
// another warp of the same block wrote.
extern "C" __global__ void global_exchange_barrier(int* buf, int* out)
{
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    buf[base + t] = t * 7 + blockIdx.x;
    __syncthreads();
    out[base + t] = buf[base + (blockDim.x - 1 - t)];
}
