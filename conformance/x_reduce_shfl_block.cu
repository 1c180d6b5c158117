// Block sum the modern way: warp shuffles, one partial per warp in shared memory, a
// barrier, the first warp reduces the partials, thread 0 adds the block's sum to the total.
// Block of 320 threads (10 warps), n not a multiple of the block.
#define FULL_MASK 0xffffffffu

__inline__ __device__ int warpReduceSum(int val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(FULL_MASK, val, offset);
    return val;
}

extern "C" __global__ void x_reduce_shfl_block(const int* in, int* total, int* partials, int n)
{
    static __shared__ int shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int val = (i < n) ? in[i] : 0;
    val = warpReduceSum(val);
    if (lane == 0) shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
    if (wid == 0) {
        val = warpReduceSum(val);
        if (threadIdx.x == 0) {
            partials[blockIdx.x] = val;
            atomicAdd(total, val);
        }
    }
}
