// The broken twin of ra_volatile_flag with the reader's fence on the wrong side: before the
// wait, the fence acquires nothing (an acquire is the read that saw the flag *then* a fence):
// block 1 may see the flag and still read stale data.
extern "C" __global__ void ra_volatile_flag_fence_before_wait(const int* in, int* data, volatile int* flag,
                                                              int* out)
{
    int t = threadIdx.x;
    // each block writes its own half of data; block 0 hands its half on to block 1
    data[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] + 7;
    __syncthreads();
    if (blockIdx.x == 0) {
        if (t == 0) {
            __threadfence();
            *flag = 1;
        }
        return;
    }
    if (t == 0) {
        __threadfence();
        while (*flag == 0) { }
    }
    __syncthreads();
    out[t] = data[63 - t];
}
