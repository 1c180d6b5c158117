// 2-D blocks of 16x4: a warp holds TWO rows, so if (threadIdx.y % 2 == 0) splits every warp;
// the full-mask shuffle names the odd row's lanes, which are alive (they store after the if).
extern "C" __global__ void y_rows16_fullmask(const int* in, int* out)
{
    int t = threadIdx.y * 16 + threadIdx.x;
    int v = in[t];
    if (threadIdx.y % 2 == 0) {
        for (int off = 8; off > 0; off >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    out[t] = v;
}
