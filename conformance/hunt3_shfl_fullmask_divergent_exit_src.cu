// The same exit, but lanes 0-15 read lane + 16, which has exited: its value is undefined.
extern "C" __global__ void hunt3_shfl_fullmask_divergent_exit_src(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    if (lane < 16) {
        int o = __shfl_xor_sync(0xffffffffu, v, 16);
        out[i] = v + o;
    } else {
        out[i] = -v;
        return;
    }
    out[i] += 1;
}
