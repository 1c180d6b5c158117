// A switch on the warp number (uniform per warp): warp 0 syncs inside case 0, the other
// warps at the barrier after the switch. Every warp is converged, but barrier 0 is reached
// at two different places.
extern "C" __global__ void y_barrier_switch_warp(int* out, const int* in)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    tile[t] = in[t];
    int v = 0;
    switch (t / 32) {
    case 0:
        __syncthreads();
        v = tile[127 - t];
        break;
    default:
        v = 1;
        break;
    }
    __syncthreads();
    out[t] = v + tile[(t + 32) % 128];
}
