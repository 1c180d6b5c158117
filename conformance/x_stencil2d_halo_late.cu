// The halo cells are loaded AFTER the barrier. That looks like a bug but is not one here:
// every halo cell of a 5-point stencil is read only by the thread that loads it.
// 5-point 2-D stencil with a shared tile and a one-cell halo: edge threads of the block
// also load the halo cells (divergent loads), then one barrier. Clamped borders.
#define BX 16
#define BY 16

__device__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

extern "C" __global__ void x_stencil2d_halo_late(int* out, const int* in, int w, int h)
{
    __shared__ int tile[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * BX + tx;
    int y = blockIdx.y * BY + ty;
    int cx = clampi(x, 0, w - 1), cy = clampi(y, 0, h - 1);
    tile[ty + 1][tx + 1] = in[cy * w + cx];
    __syncthreads();
    if (tx == 0)      tile[ty + 1][0]      = in[cy * w + clampi(x - 1, 0, w - 1)];
    if (tx == BX - 1) tile[ty + 1][BX + 1] = in[cy * w + clampi(x + 1, 0, w - 1)];
    if (ty == 0)      tile[0][tx + 1]      = in[clampi(y - 1, 0, h - 1) * w + cx];
    if (ty == BY - 1) tile[BY + 1][tx + 1] = in[clampi(y + 1, 0, h - 1) * w + cx];
    if (x < w && y < h) {
        int c = tile[ty + 1][tx + 1];
        out[y * w + x] = 4 * c - tile[ty][tx + 1] - tile[ty + 2][tx + 1]
                       - tile[ty + 1][tx] - tile[ty + 1][tx + 2];
    }
}
