// A shared-memory lock taken by one lane per warp with atomicCAS_block and released with
// atomicExch_block, fenced with __threadfence_block() on both sides: the block's own threads only.
extern "C" __global__ void hunt3_block_lock_shared(const int* in, int* out)
{
    __shared__ int lock, total;
    if (threadIdx.x == 0) { lock = 0; total = 0; }
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) {
        while (atomicCAS_block(&lock, 0, 1) != 0) { }
        __threadfence_block();
        total = total + v;
        __threadfence_block();
        atomicExch_block(&lock, 0);
    }
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
