// Lanes 0 and 1 of each warp write one shared element with different values, no
// __syncwarp between: a write-after-write race inside one warp.
extern "C" __global__ void y_waw_same_warp(const int* in, int* out)
{
    __shared__ int leader[4];
    int t = threadIdx.x;
    int lane = t & 31;
    int w = t / 32;
    if (lane < 2) leader[w] = in[t];
    __syncthreads();
    out[t] = leader[w];
}
