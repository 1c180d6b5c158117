// The warp-reduce intrinsics (redux.sync, compute capability 8.0+) over full warps: add, min
// and max for int and unsigned (add wraps at 32 bits: the inputs span the whole int range),
// and, or, xor (unsigned only).
extern "C" __global__ void w_reduce_ops(const int* in, int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    unsigned u = (unsigned)v;
    unsigned full = 0xffffffffu;
    out[g * 9 + 0] = __reduce_add_sync(full, v);
    out[g * 9 + 1] = __reduce_min_sync(full, v);
    out[g * 9 + 2] = __reduce_max_sync(full, v);
    out[g * 9 + 3] = (int)__reduce_add_sync(full, u);
    out[g * 9 + 4] = (int)__reduce_min_sync(full, u);
    out[g * 9 + 5] = (int)__reduce_max_sync(full, u);
    out[g * 9 + 6] = (int)__reduce_and_sync(full, u | 0x01010101u);
    out[g * 9 + 7] = (int)__reduce_or_sync(full, u & 0x7f7f7f7fu);
    out[g * 9 + 8] = (int)__reduce_xor_sync(full, u);
}
