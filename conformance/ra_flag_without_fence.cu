// The broken twin of ra_fence_atomic_flag: the same flag hand-off without the fences. An
// atomic orders nothing but itself: block 1 may see the flag set and still read stale data
// (PTX: a relaxed atomic is no release, and a read of it without a fence no acquire).
extern "C" __global__ void ra_flag_without_fence(const int* in, int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    // each block writes its own half of data; block 0 hands its half on to block 1
    data[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] * 3;
    __syncthreads();
    if (blockIdx.x == 0) {
        if (t == 0) {
            atomicExch(flag, 1);
        }
        return;
    }
    if (t == 0) {
        while (atomicAdd(flag, 0) == 0) { }
    }
    __syncthreads();
    out[t] = data[63 - t];
}
