// A barrier in one case of a switch on a per-thread value: lanes of every warp take
// different cases.
extern "C" __global__ void y_barrier_in_switch(int* out, const int* in)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    int v = in[t];
    tile[t] = v;
    switch (t % 4) {
    case 0:
        __syncthreads();
        v += tile[(t + 1) % 128];
        break;
    case 1:
        v *= 2;
        break;
    default:
        v -= 1;
        break;
    }
    out[t] = v;
}
