// A barrier orders memory only inside its block: block b reads what block b + 1 wrote,
// and nothing orders the two blocks.
extern "C" __global__ void global_cross_block(int* buf, int* out)
{
    int t = threadIdx.x;
    int b = blockIdx.x;
    buf[b * blockDim.x + t] = b * 1000 + t;
    __syncthreads();
    int nb = (b + 1) % gridDim.x;
    out[b * blockDim.x + t] = buf[nb * blockDim.x + t];
}
