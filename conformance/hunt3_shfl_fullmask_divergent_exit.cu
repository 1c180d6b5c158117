// Lanes 16-31 of each warp take the else branch, write and return; lanes 0-15 shuffle with the
// full mask and read only each other (lane ^ 1). The mask names exited lanes: that is allowed.
extern "C" __global__ void hunt3_shfl_fullmask_divergent_exit(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    if (lane < 16) {
        int o = __shfl_xor_sync(0xffffffffu, v, 1);
        out[i] = v + o;
    } else {
        out[i] = -v;
        return;
    }
    out[i] += 1;
}
