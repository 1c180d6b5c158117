// Two groups of one warp with disjoint masks in divergent code: lanes 0-11 add with mask
// 0x00000fff, lanes 12-31 take the unsigned minimum with mask 0xfffff000. Legal: every lane
// named in each mask executes that intrinsic with that mask.
extern "C" __global__ void w_reduce_disjoint_halves(const int* in, int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[g];
    if (lane < 12)
        out[g] = __reduce_add_sync(0x00000fffu, v);
    else
        out[g] = (int)__reduce_min_sync(0xfffff000u, (unsigned)v);
}
