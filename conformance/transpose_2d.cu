// 2-D launch and a 2-D __shared__ array (padded to 17 columns): transpose a matrix
// tile by tile.
#define TILE 16

extern "C" __global__ void transpose_2d(float* out, const float* in, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    int tx = blockIdx.y * TILE + threadIdx.x;
    int ty = blockIdx.x * TILE + threadIdx.y;
    if (tx < height && ty < width)
        out[ty * height + tx] = tile[threadIdx.x][threadIdx.y];
}
