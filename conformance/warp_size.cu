// warpSize, lane and warp numbers.
extern "C" __global__ void warp_size(int* out)
{
    int t = threadIdx.x;
    int lane = t % warpSize;
    int warp = t / warpSize;
    out[blockIdx.x * blockDim.x + t] = warpSize * 100000 + warp * 1000 + lane;
}
