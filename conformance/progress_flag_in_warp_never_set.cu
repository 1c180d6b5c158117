// The broken twin of progress_flag_in_warp: the writer tests lane 32, which no warp has, so the
// flag is never set and the waiters spin forever.
extern "C" __global__ void progress_flag_in_warp_never_set(int* flag, int* count)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (threadIdx.x % 32 != 31) {
        while (atomicAdd(&flag[warp], 0) == 0) {
        }
        atomicAdd(count, 1);
    } else if (threadIdx.x % 32 == 32) {
        __threadfence();
        atomicExch(&flag[warp], 1);
    }
}
