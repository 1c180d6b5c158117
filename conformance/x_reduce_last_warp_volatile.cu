// The classic "reduction #6": a tree reduction in shared memory with barriers while more
// than one warp works, then the last warp unrolled, warp-synchronous, with __syncwarp()
// between the steps (required since Volta). Every thread of the block takes part.
#define BS 256

__device__ void warpReduce(volatile int* sdata, unsigned int tid)
{
    int v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];  __syncwarp(); sdata[tid] = v;
}

extern "C" __global__ void x_reduce_last_warp_volatile(const int* g_idata, int* g_odata)
{
    __shared__ int sdata[BS];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (BS * 2) + threadIdx.x;
    sdata[tid] = g_idata[i] + g_idata[i + BS];
    __syncthreads();
    for (unsigned int s = BS / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
