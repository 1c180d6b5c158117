// BUG: bitonic sort with the barrier moved inside the compare-exchange `if`: only the
// threads with ixj > tid reach it (half of every warp in the first step).
#define N 512

extern "C" __global__ void x_bitonic_barrier_in_if(int* data)
{
    __shared__ int s[N];
    unsigned int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * N + tid];
    __syncthreads();
    for (unsigned int k = 2; k <= N; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int ixj = tid ^ j;
            if (ixj > tid) {
                int a = s[tid], b = s[ixj];
                bool up = (tid & k) == 0;
                if ((a > b) == up) { s[tid] = b; s[ixj] = a; }
                __syncthreads();
            }
        }
    }
    data[blockIdx.x * N + tid] = s[tid];
}
