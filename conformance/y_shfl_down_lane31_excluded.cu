// __shfl_down_sync(0xffffffff, v, 1) inside if (lane < 31): the mask names lane 31,
// which is alive (it stores after the if) but does not execute the shuffle.
extern "C" __global__ void y_shfl_down_lane31_excluded(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    if (lane < 31) v += __shfl_down_sync(0xffffffffu, v, 1);
    out[i] = v;
}
