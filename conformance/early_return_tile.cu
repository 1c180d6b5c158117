// The wrong way: threads past the end return before the barrier. The barrier itself
// completes (exited threads are not waited for), but the threads that stay read the
// slots the returned threads never wrote.
#define TILE 128

extern "C" __global__ void early_return_tile(float* out, const float* in, int n)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    if (i >= n) return;
    tile[t] = in[i];
    __syncthreads();
    out[i] = tile[TILE - 1 - t];
}
