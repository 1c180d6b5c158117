// The broken twin of ra_block_fence_shared without the fences: volatile makes every access
// to the flag happen, but orders nothing else: warp 1 may see the flag and read a stale tile.
extern "C" __global__ void ra_block_flag_shared_no_fence(const int* in, int* out)
{
    __shared__ int tile[32];
    __shared__ volatile int ready;
    int t = threadIdx.x;
    if (t == 0) ready = 0;
    __syncthreads();
    if (t == 0) {
        for (int i = 0; i < 32; i++) tile[i] = in[i] * 2;
        ready = 1;
    }
    if (t == 32) {
        while (ready == 0) { }
        int sum = 0;
        for (int i = 0; i < 32; i++) sum += tile[i];
        out[blockIdx.x] = sum;
    }
}
