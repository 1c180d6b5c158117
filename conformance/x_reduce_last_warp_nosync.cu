// BUG: "reduction #6" as printed before Volta: the unrolled last warp relies on volatile
// alone, with no __syncwarp(). Lanes of a warp are not in lockstep since Volta: lane t may
// read sdata[t + 16] before lane t + 16 has stored its sum.
#define BS 256

__device__ void warpReduce(volatile int* sdata, unsigned int tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

extern "C" __global__ void x_reduce_last_warp_nosync(const int* g_idata, int* g_odata)
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
