// Lanes 0-30 of each warp wait for a flag that lane 31 of the same warp sets after they have
// reached the loop. Legal from Volta on (independent thread scheduling).
extern "C" __global__ void progress_flag_in_warp(int* flag, int* count)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (threadIdx.x % 32 != 31) {
        while (atomicAdd(&flag[warp], 0) == 0) {
        }
        atomicAdd(count, 1);
    } else {
        __threadfence();
        atomicExch(&flag[warp], 1);
    }
}
