// Two independent groups of 64 use the SAME named barrier id with count 64 at the same
// time: 128 arrivals for a count of 64, and the hardware may pair warps of both groups.
extern "C" __global__ void y_named_barrier_shared_id(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int g = t / 64;
    s[t] = in[t];
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[t] = s[g * 64 + 63 - (t % 64)];
}
