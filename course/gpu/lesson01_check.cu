// Lesson 01 on a real GPU, without Python: the kernels of the lesson, launched from C++.
//   nvcc -O2 -arch=sm_90 lesson01_check.cu -o lesson01_check && ./lesson01_check
// It counts wrong outputs of the tile reversal with and without its barrier, for every
// block size, and prints what peek_next_block saw in three runs. The output of one run on
// an NVIDIA H200 (driver 580) is in ../data/h200-lesson01.txt.
#include <cstdio>
#include <vector>
extern "C" __global__ void reverse_tile(const float *in, float *out)
{
    __shared__ float tile[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    __syncthreads();
    out[i] = tile[blockDim.x - 1 - t];
}
extern "C" __global__ void reverse_tile_nobarrier(const float *in, float *out)
{
    __shared__ float tile[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    out[i] = tile[blockDim.x - 1 - t];
}
extern "C" __global__ void peek_next_block(int *stamp, int *seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stamp[i] = blockIdx.x + 1;
    __syncthreads();
    int j = (i + blockDim.x) % (gridDim.x * blockDim.x);
    seen[i] = stamp[j];
}
int main() {
    for (int B : {32, 64, 128, 256, 512, 1024}) {
        int G = 1024, n = G * B;
        std::vector<float> x(n), out(n);
        for (int i = 0; i < n; i++) x[i] = (float)i;
        float *dx, *dout; cudaMalloc(&dx, n * 4); cudaMalloc(&dout, n * 4);
        cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice);
        for (int k = 0; k < 2; k++) {
            cudaMemset(dout, 0, n * 4);
            if (k == 0) reverse_tile<<<G, B>>>(dx, dout); else reverse_tile_nobarrier<<<G, B>>>(dx, dout);
            cudaError_t e = cudaDeviceSynchronize();
            cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
            long wrong = 0;
            for (int i = 0; i < n; i++) { int b = i / B, t = i % B; if (out[i] != x[b * B + B - 1 - t]) wrong++; }
            printf("%-24s block %4d: %ld of %d wrong (%.1f%%) %s\n", k ? "reverse_tile_nobarrier" : "reverse_tile", B, wrong, n, 100.0 * wrong / n, cudaGetErrorString(e));
        }
        cudaFree(dx); cudaFree(dout);
    }
    int G = 4, B = 64, n = G * B; int *ds, *dn; std::vector<int> seen(n);
    cudaMalloc(&ds, n * 4); cudaMalloc(&dn, n * 4);
    for (int r = 0; r < 3; r++) {
        cudaMemset(ds, 0, n * 4);
        peek_next_block<<<G, B>>>(ds, dn); cudaDeviceSynchronize();
        cudaMemcpy(seen.data(), dn, n * 4, cudaMemcpyDeviceToHost);
        printf("peek_next_block run %d: seen per block %d %d %d %d\n", r, seen[0], seen[64], seen[128], seen[192]);
    }
}
