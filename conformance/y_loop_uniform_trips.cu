// Loops containing barriers whose trip counts are uniform across the block: one from a
// kernel parameter, one from blockIdx.x.
extern "C" __global__ void y_loop_uniform_trips(int* out, const int* in, int iters)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    int v = in[i];
    for (int it = 0; it < iters; ++it) {
        tile[t] = v;
        __syncthreads();
        v = tile[(t + 1) % 64] + tile[(t + 63) % 64];
        __syncthreads();
    }
    int k = 0;
    while (k < (int)blockIdx.x + 1) {
        tile[t] = v;
        __syncthreads();
        v = v - tile[63 - t];
        __syncthreads();
        ++k;
    }
    out[i] = v;
}
