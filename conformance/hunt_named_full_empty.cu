// Warps 0-1 produce tiles, warps 2-3 consume them: "full" (id 1) and "empty" (id 2) barriers
// of 128 threads each, producers arrive on full and sync on empty, consumers the other way.
#define BAR_SYNC(id, n)   asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory")
#define BAR_ARRIVE(id, n) asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(n) : "memory")
extern "C" __global__ void hunt_named_full_empty(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    bool producer = t < 64;
    int acc = 0;
    for (int k = 0; k < 4; ++k) {
        if (producer) {
            if (k > 0) BAR_SYNC(2, 128);
            tile[t] = in[k * 64 + t];
            BAR_ARRIVE(1, 128);
        } else {
            BAR_SYNC(1, 128);
            acc += tile[127 - t];
            if (k < 3) BAR_ARRIVE(2, 128);
        }
    }
    if (!producer) out[t - 64] = acc;
}
