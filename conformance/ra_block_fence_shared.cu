// A hand-off inside one block through shared memory, without a barrier: lane 0 of warp 0
// writes the tile, __threadfence_block() and a volatile flag release it; lane 0 of warp 1 waits
// for the flag with volatile loads and __threadfence_block() acquires the tile (block scope is
// enough: both threads are in the block).
extern "C" __global__ void ra_block_fence_shared(const int* in, int* out)
{
    __shared__ int tile[32];
    __shared__ volatile int ready;
    int t = threadIdx.x;
    if (t == 0) ready = 0;
    __syncthreads();
    if (t == 0) {
        for (int i = 0; i < 32; i++) tile[i] = in[i] * 2;
        __threadfence_block();
        ready = 1;
    }
    if (t == 32) {
        while (ready == 0) { }
        __threadfence_block();
        int sum = 0;
        for (int i = 0; i < 32; i++) sum += tile[i];
        out[blockIdx.x] = sum;
    }
}
