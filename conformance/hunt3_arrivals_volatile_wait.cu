// Each block's thread 0 counts itself in with atomicAdd, then waits with volatile reads until every
// block has arrived. No fence: only the count crosses blocks, and both its sides are strong.
extern "C" __global__ void hunt3_arrivals_volatile_wait(int* count, int* out)
{
    if (threadIdx.x == 0) {
        atomicAdd(count, 1);
        int seen = 0;
        while (seen < gridDim.x) seen = *(volatile int*)count;
        out[blockIdx.x] = seen;
    }
}
