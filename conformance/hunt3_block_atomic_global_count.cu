// Every block counts into one global word with atomicAdd_block: a block-scoped atomic is atomic
// only among its own block's threads, so the blocks' increments are not atomic with each other.
extern "C" __global__ void hunt3_block_atomic_global_count(const int* keys, int* count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (keys[i] & 1)) atomicAdd_block(count, 1);
}
