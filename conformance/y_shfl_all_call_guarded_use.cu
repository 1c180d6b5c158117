// Every lane calls __shfl_down_sync(full, v, 1); lane 31 gets its own value back (source
// out of range) and only the lanes below 31 add their neighbour's value.
extern "C" __global__ void y_shfl_all_call_guarded_use(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int r = __shfl_down_sync(0xffffffffu, v, 1);
    if (lane < 31) v = v * 100 + r;
    out[i] = v;
}
