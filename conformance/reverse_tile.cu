// Reverse each 256-element tile through shared memory: write, barrier, read the mirror slot.
#define TILE 256

extern "C" __global__ void reverse_tile(float* out, const float* in)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    int base = blockIdx.x * TILE;
    tile[t] = in[base + t];
    __syncthreads();
    out[base + t] = tile[TILE - 1 - t];
}
