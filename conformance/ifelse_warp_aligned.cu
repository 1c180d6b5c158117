// if/else with a barrier on each side, split at a warp boundary (t < 128 in a block of
// 256): every warp is uniform. Undefined (two different barrier call sites), although
// an H200 gave the right answer every time.
extern "C" __global__ void ifelse_warp_aligned(int* out, const int* in)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    int g = blockIdx.x * 256 + t;
    tile[t] = in[g];
    if (t < 128) {
        __syncthreads();
        out[g] = tile[255 - t];
    } else {
        __syncthreads();
        out[g] = tile[255 - t] + 1000;
    }
}
