// "warp-shuffle" reduction, one sum per 32 work-items. Oclgrind 21.10 has no sub-group
// functions (sub_group_reduce_add, shuffles), so this is the closest portable equivalent:
// the same five halving steps through local memory, a barrier after each.
__kernel void warp_reduce(__global float *out, __global const float *in)
{
    __local float s[256];
    int t = get_local_id(0);
    int lane = t & 31;
    s[t] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 16; offset > 0; offset >>= 1) {
        float other = (lane + offset < 32) ? s[t + offset] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[t] += other;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0) out[get_global_id(0) / 32] = s[t];
}
