// The broken twin of progress_flag_between_warps: the writer first waits for a second flag that
// only the waiters set after their own wait: each side waits for the other, forever.
extern "C" __global__ void progress_flag_between_warps_circular(int* flag, int* count)
{
    if (threadIdx.x < 32) {
        while (atomicAdd(&flag[blockIdx.x], 0) == 0) {
        }
        atomicAdd(count, 1);
        atomicExch(&flag[gridDim.x + blockIdx.x], 1);
    } else if (threadIdx.x == blockDim.x - 1) {
        while (atomicAdd(&flag[gridDim.x + blockIdx.x], 0) == 0) {
        }
        atomicExch(&flag[blockIdx.x], 1);
    }
}
