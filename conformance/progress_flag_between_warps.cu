// Warp 0 of each block waits for a flag that the block's last thread (another warp) sets.
extern "C" __global__ void progress_flag_between_warps(int* flag, int* count)
{
    if (threadIdx.x < 32) {
        while (atomicAdd(&flag[blockIdx.x], 0) == 0) {
        }
        atomicAdd(count, 1);
    } else if (threadIdx.x == blockDim.x - 1) {
        __threadfence();
        atomicExch(&flag[blockIdx.x], 1);
    }
}
