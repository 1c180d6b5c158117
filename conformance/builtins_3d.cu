// threadIdx/blockIdx/blockDim/gridDim .x .y .z under a 3-D grid of 3-D blocks.
extern "C" __global__ void builtins_3d(int* out)
{
    int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int nthreads = blockDim.x * blockDim.y * blockDim.z;
    int g = bid * nthreads + tid;
    out[g * 4 + 0] = threadIdx.x * 100 + threadIdx.y * 10 + threadIdx.z;
    out[g * 4 + 1] = blockIdx.x * 100 + blockIdx.y * 10 + blockIdx.z;
    out[g * 4 + 2] = blockDim.x * 100 + blockDim.y * 10 + blockDim.z;
    out[g * 4 + 3] = gridDim.x * 100 + gridDim.y * 10 + gridDim.z;
}
