// shared-memory tree reduction: one partial sum per work-group of 256
__kernel void reduce(__global float *out, __global const float *in)
{
    __local float s[256];
    int t = get_local_id(0);
    s[t] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) out[get_group_id(0)] = s[0];
}
