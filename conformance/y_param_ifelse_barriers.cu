// Barriers on both sides of an if/else whose condition is a kernel parameter (uniform
// across the grid): every thread of a block reaches the same barrier.
extern "C" __global__ void y_param_ifelse_barriers(int* out, const int* in, int n)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    tile[t] = in[i];
    if (n > 64) {
        __syncthreads();
        out[i] = tile[(t + 1) % 128] + n;
    } else {
        __syncthreads();
        out[i] = tile[(t + 127) % 128] - n;
    }
}
