// Message passing between blocks (PTX's release and acquire patterns): block 0 writes data,
// its barrier orders every thread's write before thread 0's __threadfence(), and the
// atomicExch after that fence releases them. Block 1's thread 0 spins on an atomic read of the
// flag, and its __threadfence() after the read that saw 1 acquires them; its barrier passes
// them on to every thread of block 1. Legal on compute capability 7.0 and later.
extern "C" __global__ void ra_fence_atomic_flag(const int* in, int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    // each block writes its own half of data; block 0 hands its half on to block 1
    data[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] * 3;
    __syncthreads();
    if (blockIdx.x == 0) {
        if (t == 0) {
            __threadfence();
            atomicExch(flag, 1);
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
