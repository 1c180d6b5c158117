// The right way to handle a partial last tile: every thread reaches the barrier; threads
// past the end fill their slot with a neutral value instead of returning.
#define TILE 128

extern "C" __global__ void predicated_fill(float* out, const float* in, int n)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    tile[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[TILE - 1 - t];
}
