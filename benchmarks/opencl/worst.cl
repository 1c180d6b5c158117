// The benchmark's worst cases (simcore/bench.py WORST_SOURCE), in OpenCL C for Oclgrind.
__kernel void serial_loop(__global uint *out, int n)
{
    if (get_local_id(0) == 0 && get_group_id(0) == 0) {
        uint h = 1u;
        for (int i = 0; i < n; ++i)
            h = h * 1664525u + (uint)i;
        out[0] = h;
    }
}

__kernel void grid_stride(__global float *out, __global const float *in, int n)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        out[i] = 2.0f * in[i] + 1.0f;
}

__kernel void barriers(__global float *out, __global const float *in)
{
    __local float s[1024];
    int t = get_local_id(0);
    s[t] = in[get_group_id(0) * 1024 + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < 32; ++k) {
        float v = s[(t + 1) & 1023];
        barrier(CLK_LOCAL_MEM_FENCE);
        s[t] = v + 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_group_id(0) * 1024 + t] = s[t];
}

#define TILE 16
__kernel void matmul(__global float *C, __global const float *A, __global const float *B, int n)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
