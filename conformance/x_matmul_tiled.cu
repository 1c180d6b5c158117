// Tiled matrix multiply C = A (M x K) * B (K x N), 16x16 tiles, 2-D blocks; sizes are not
// multiples of the tile, so edge tiles are zero-filled.
#define TILE 16

extern "C" __global__ void x_matmul_tiled(const int* A, const int* B, int* C, int M, int N, int K)
{
    __shared__ int As[TILE][TILE];
    __shared__ int Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int acc = 0;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ka = t * TILE + tx;
        int kb = t * TILE + ty;
        As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0;
        Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
