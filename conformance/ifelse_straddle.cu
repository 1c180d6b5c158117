// if/else with a barrier on each side, split inside warp 2 (t < 80): the warp straddles
// the condition. Undefined; an H200 completed with some wrong answers.
extern "C" __global__ void ifelse_straddle(int* out, const int* in)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    int g = blockIdx.x * 256 + t;
    tile[t] = in[g];
    if (t < 80) {
        __syncthreads();
        out[g] = tile[255 - t];
    } else {
        __syncthreads();
        out[g] = tile[255 - t] + 1000;
    }
}
