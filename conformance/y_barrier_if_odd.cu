// __syncthreads() inside if (threadIdx.x % 2): half of every warp skips the barrier and,
// with code after the if, waits at the reconvergence point for the odd lanes.
extern "C" __global__ void y_barrier_if_odd(int* out, const int* in)
{
    __shared__ int tile[96];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    if (threadIdx.x % 2) {
        __syncthreads();
    }
    out[i] = tile[(t + 40) % 96];
}
