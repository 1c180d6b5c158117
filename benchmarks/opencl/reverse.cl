// reverse-a-tile: blocks (work-groups) of 256
__kernel void reverse(__global float *out, __global const float *in)
{
    __local float tile[256];
    int t = get_local_id(0);
    int g = get_global_id(0);
    tile[t] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[get_local_size(0) - 1 - t];
}
