// The broken twin of ra_fence_atomic_flag with __threadfence_block(): a block-scope fence
// orders memory for the threads of its own block only, so the hand-off to block 1 releases
// and acquires nothing (PTX: both fences' scopes must hold both threads).
extern "C" __global__ void ra_block_fence_between_blocks(const int* in, int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    // each block writes its own half of data; block 0 hands its half on to block 1
    data[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] * 3;
    __syncthreads();
    if (blockIdx.x == 0) {
        if (t == 0) {
            __threadfence_block();
            atomicExch(flag, 1);
        }
        return;
    }
    if (t == 0) {
        while (atomicAdd(flag, 0) == 0) { }
        __threadfence_block();
    }
    __syncthreads();
    out[t] = data[63 - t];
}
