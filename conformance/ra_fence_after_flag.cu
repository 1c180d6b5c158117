// The broken twin of ra_fence_atomic_flag with the writer's fence on the wrong side: after
// the flag, the fence orders nothing that block 1 can wait for (a release is a fence *then* the
// flag write): block 1 may see the flag and still read stale data.
extern "C" __global__ void ra_fence_after_flag(const int* in, int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    // each block writes its own half of data; block 0 hands its half on to block 1
    data[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] * 3;
    __syncthreads();
    if (blockIdx.x == 0) {
        if (t == 0) {
            atomicExch(flag, 1);
            __threadfence();
        }
        return;
    }
    if (t == 0) {
        while (atomicAdd(flag, 0) == 0) { }
        __threadfence();
    }
    __syncthreads();
    out[t] = data[63 - t];
}
