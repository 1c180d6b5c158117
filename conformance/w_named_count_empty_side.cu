// A producer/consumer pipeline over `tiles` tiles with two named barriers: threads 0-63 write
// a tile into buf and signal barrier 1 ("full", bar.arrive), threads 64-127 wait there (bar.sync),
// read it and signal barrier 2 ("empty", bar.arrive), which the producers wait at before the
// next tile. Counts: barrier 1 128, barrier 2 64; 64 + 64 threads arrive per phase of each.
extern "C" __global__ void w_named_count_empty_side(const int* in, int* out, int tiles)
{
    __shared__ int buf[64];
    int t = threadIdx.x;
    if (t < 64) {
        for (int i = 0; i < tiles; i++) {
            if (i > 0) asm volatile("bar.sync 2, 64;" ::: "memory");
            buf[t] = in[i * 64 + t];
            asm volatile("bar.arrive 1, 128;" ::: "memory");
        }
    } else {
        int u = t - 64;
        for (int i = 0; i < tiles; i++) {
            asm volatile("bar.sync 1, 128;" ::: "memory");
            out[i * 64 + u] = buf[63 - u];
            if (i + 1 < tiles) asm volatile("bar.arrive 2, 64;" ::: "memory");
        }
    }
}
