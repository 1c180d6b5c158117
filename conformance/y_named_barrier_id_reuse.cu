// Two groups reuse named barrier 1 with different counts: warps 0-1 say 64, warps 2-3
// say 128.
extern "C" __global__ void y_named_barrier_id_reuse(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 64) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = s[63 - t];
    } else {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[t] = s[191 - t];
    }
}
