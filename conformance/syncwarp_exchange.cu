// Warp-scope exchange through shared memory ordered by __syncwarp(full mask): each warp
// reverses its 32 values. No block barrier is needed: only warp-mates communicate.
extern "C" __global__ void syncwarp_exchange(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int lane = t % 32;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncwarp(0xffffffff);
    out[blockIdx.x * blockDim.x + t] = s[(t & ~31) + (31 - lane)];
}
