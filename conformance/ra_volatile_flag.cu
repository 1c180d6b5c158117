// Message passing between blocks through a volatile flag: a volatile store after
// __threadfence() is a release pattern, a volatile load followed by __threadfence() an acquire
// pattern (PTX: ld/st.volatile are strong, relaxed at system scope). Block 1's thread 0 reads
// the flag until it sees 1, fences, and the barrier passes block 0's data on to its threads.
extern "C" __global__ void ra_volatile_flag(const int* in, int* data, volatile int* flag, int* out)
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
        while (*flag == 0) { }
        __threadfence();
    }
    __syncthreads();
    out[t] = data[63 - t];
}
