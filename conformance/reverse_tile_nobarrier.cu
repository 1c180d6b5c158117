// The same reversal without the barrier: thread t reads a slot another warp writes.
#define TILE 256

extern "C" __global__ void reverse_tile_nobarrier(float* out, const float* in)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    int base = blockIdx.x * TILE;
    tile[t] = in[base + t];
    out[base + t] = tile[TILE - 1 - t];
}
