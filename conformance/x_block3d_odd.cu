// 3-D blocks of 10x10x3 = 300 threads (not a multiple of 32: the last warp is partial) on a
// 3-D grid: linearise the thread index, reverse the block's values through shared memory,
// and record the block's linear index.
extern "C" __global__ void x_block3d_odd(const int* in, int* out)
{
    __shared__ int s[300];
    int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int nthreads = blockDim.x * blockDim.y * blockDim.z;
    int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int g = bid * nthreads + tid;
    s[tid] = in[g];
    __syncthreads();
    out[g] = s[nthreads - 1 - tid] * 1000 + bid;
}
