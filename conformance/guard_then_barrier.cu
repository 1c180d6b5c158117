// Barrier inside if (t < 128) and another barrier after the if: warps 0-3 arrive at the
// first, warps 4-7 at the second. Every live thread is at barrier 0, from two different
// call sites: a divergent barrier.
extern "C" __global__ void guard_then_barrier(int* out, const int* in)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    tile[t] = in[t];
    if (t < 128) {
        __syncthreads();
        tile[t] += tile[255 - t];
    }
    __syncthreads();
    out[t] = tile[t];
}
