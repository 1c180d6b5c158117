// The broken twin of progress_flag_between_blocks: each block waits for the other's flag before
// setting its own, so both wait forever.
extern "C" __global__ void progress_flag_between_blocks_circular(int* flag, int* count)
{
    if (threadIdx.x == 0) {
        int other = 1 - blockIdx.x;
        while (atomicAdd(&flag[other], 0) == 0) {
        }
        atomicExch(&flag[blockIdx.x], 1);
        atomicAdd(count, 1);
    }
}
