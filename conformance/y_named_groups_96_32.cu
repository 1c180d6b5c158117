// Two groups of unequal size on two named barriers: warps 0-2 use barrier 1 with count 96,
// warp 3 uses barrier 2 with count 32, each twice. Each group only reads its own slots.
extern "C" __global__ void y_named_groups_96_32(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    s[t] = in[i];
    if (t < 96) {
        asm volatile("bar.sync 1, 96;" ::: "memory");
        int v = s[95 - t];
        asm volatile("bar.sync 1, 96;" ::: "memory");
        s[t] = v + 1;
        asm volatile("bar.sync 1, 96;" ::: "memory");
        out[i] = s[(t + 1) % 96];
    } else {
        asm volatile("bar.sync 2, 32;" ::: "memory");
        int v = s[96 + 127 - t];
        asm volatile("bar.sync 2, 32;" ::: "memory");
        s[t] = v - 1;
        asm volatile("bar.sync 2, 32;" ::: "memory");
        out[i] = s[96 + (t - 95) % 32];
    }
}
