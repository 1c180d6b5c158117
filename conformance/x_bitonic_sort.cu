// Bitonic sort of 512 keys per block in shared memory, one key per thread: nested loops
// with a barrier after every compare-exchange step.
#define N 512

extern "C" __global__ void x_bitonic_sort(int* data)
{
    __shared__ int s[N];
    unsigned int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * N + tid];
    __syncthreads();
    for (unsigned int k = 2; k <= N; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int ixj = tid ^ j;
            if (ixj > tid) {
                if ((tid & k) == 0) {
                    if (s[tid] > s[ixj]) { int tmp = s[tid]; s[tid] = s[ixj]; s[ixj] = tmp; }
                } else {
                    if (s[tid] < s[ixj]) { int tmp = s[tid]; s[tid] = s[ixj]; s[ixj] = tmp; }
                }
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * N + tid] = s[tid];
}
