// Lane 0 fills a table, then raises a flag; its warp-mates wait for the flag (all in one warp).
extern "C" __global__ void hunt_flag_in_warp_fence_before_wait(const int* in, int* out)
{
    __shared__ int table[32];
    __shared__ volatile int ready;
    int lane = threadIdx.x & 31;
    if (lane == 0) ready = 0;
    __syncwarp();
    if (lane == 0) {
        for (int i = 0; i < 32; ++i) table[i] = in[i] * 2;
        __threadfence_block();
        ready = 1;
    } else {
        __threadfence_block();
        while (ready == 0) { }
    }
    out[threadIdx.x] = table[31 - lane];
}
