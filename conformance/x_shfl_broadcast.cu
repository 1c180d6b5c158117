// Lane 0 of every warp loads a per-warp parameter and broadcasts it with __shfl_sync;
// then a warp-wide inclusive scan with __shfl_up_sync.
extern "C" __global__ void x_shfl_broadcast(const int* params, const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = i / 32;
    int p = 0;
    if (lane == 0) p = params[warp];
    p = __shfl_sync(0xffffffff, p, 0);
    int x = in[i] * p;
    for (int d = 1; d < 32; d *= 2) {
        int y = __shfl_up_sync(0xffffffff, x, d);
        if (lane >= d) x += y;
    }
    out[i] = x;
}
