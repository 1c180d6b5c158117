// The benchmark's one-lane checked-access worst cases (simcore/bench.py NARROW_SOURCE), in OpenCL C
// for Oclgrind.
__kernel void lone_rmw(__global uint *out, int n)
{
    if (get_local_id(0) == 0 && get_group_id(0) == 0)
        for (int i = 0; i < n; ++i)
            out[i & 1023] = out[i & 1023] * 3u + (uint)i;
}

__kernel void lone_scan(__global uint *out, int rounds)
{
    __local uint s[256];
    int t = get_local_id(0);
    s[t] = t;
    uint total = 0u;
    for (int r = 0; r < rounds; ++r) {
        barrier(CLK_LOCAL_MEM_FENCE);
        s[t] += 1u;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t == 0)
            for (int i = 0; i < 256; ++i)
                total += s[i];
    }
    if (t == 0)
        out[0] = total;
}
