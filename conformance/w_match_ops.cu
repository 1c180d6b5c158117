// __match_any_sync on every type CUDA declares it for, and __match_all_sync with its
// predicate. Values repeat within a warp (in[g] % 4); the floats include 0.0 and -0.0, which
// differ bit-wise (CUDA's header compares __float_as_uint / __double_as_longlong).
extern "C" __global__ void w_match_ops(const int* in, const float* f, unsigned* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[g] % 4;
    unsigned full = 0xffffffffu;
    out[g * 8 + 0] = __match_any_sync(full, v);
    out[g * 8 + 1] = __match_any_sync(full, (unsigned)v * 3u);
    out[g * 8 + 2] = __match_any_sync(full, (long long)v << 40);
    out[g * 8 + 3] = __match_any_sync(full, (unsigned long long)(v & 1));
    out[g * 8 + 4] = __match_any_sync(full, f[g]);
    out[g * 8 + 5] = __match_any_sync(full, (double)f[g]);
    int pred = 5;
    // warp 0 of each block: all equal; other warps: lane 7 differs
    int w = (threadIdx.x / 32 == 0 || lane != 7) ? 42 : 43;
    out[g * 8 + 6] = __match_all_sync(full, w, &pred);
    out[g * 8 + 7] = (unsigned)pred;
}
