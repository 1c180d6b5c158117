// iterated 3-point stencil on a tile of 128 with zero halo, K steps (default 8), one barrier each
#ifndef K
#define K 8
#endif
__kernel void stencil(__global float *out, __global const float *in)
{
    __local float buf[260];
    int t = get_local_id(0);
    int n = get_local_size(0);
    buf[t + 1] = in[get_global_id(0)];
    if (t == 0) { buf[0] = 0.0f; buf[130] = 0.0f; }
    if (t == n - 1) { buf[t + 2] = 0.0f; buf[130 + t + 2] = 0.0f; }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < K; ++k) {
        int src = (k & 1) * 130;
        int dst = 130 - src;
        buf[dst + t + 1] = 0.25f * buf[src + t] + 0.5f * buf[src + t + 1] + 0.25f * buf[src + t + 2];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = buf[(K & 1) * 130 + t + 1];
}
