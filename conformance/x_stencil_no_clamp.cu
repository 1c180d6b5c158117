// BUG: the left halo is not clamped: block column 0 reads in[cy * w - 1] (row 0: before the
// array).
// 5-point 2-D stencil with a shared tile and a one-cell halo: edge threads of the block
// also load the halo cells (divergent loads), then one barrier. Clamped borders.
#define BX 16
#define BY 16

__device__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

extern "C" __global__ void x_stencil_no_clamp(int* out, const int* in, int w, int h)
{
    __shared__ int tile[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * BX + tx;
    int y = blockIdx.y * BY + ty;
    int cx = clampi(x, 0, w - 1), cy = clampi(y, 0, h - 1);
    tile[ty + 1][tx + 1] = in[cy * w + cx];
    if (tx == 0)      tile[ty + 1][0]      = in[cy * w + x - 1];   // BUG: x - 1 = -1 at the left edge
    if (tx == BX - 1) tile[ty + 1][BX + 1] = in[cy * w + clampi(x + 1, 0, w - 1)];
    if (ty == 0)      tile[0][tx + 1]      = in[clampi(y - 1, 0, h - 1) * w + cx];
    if (ty == BY - 1) tile[BY + 1][tx + 1] = in[clampi(y + 1, 0, h - 1) * w + cx];
    __syncthreads();
    if (x < w && y < h) {
        int c = tile[ty + 1][tx + 1];
        out[y * w + x] = 4 * c - tile[ty][tx + 1] - tile[ty + 2][tx + 1]
                       - tile[ty + 1][tx] - tile[ty + 1][tx + 2];
    }
}
