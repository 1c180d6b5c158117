// The broken twin of ra_volatile_flag whose reader spins on a plain load: a plain load is no
// strong read, so it acquires nothing, and the compiler may keep the flag in a register and
// spin forever. The writer's side (fence, then a volatile store) is right.
extern "C" __global__ void ra_plain_load_flag(const int* in, int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    // each block writes its own half of data; block 0 hands its half on to block 1
    data[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] + 7;
    __syncthreads();
    if (blockIdx.x == 0) {
        if (t == 0) {
            __threadfence();
            *(volatile int*)flag = 1;
        }
        return;
    }
    if (t == 0) {
        while (*flag == 0) { }
        __threadfence();
    }
    __syncthreads();
    out[t] = data[63 - t];
}
