// One hand-off: threads 0-63 write buf and signal barrier 1 with bar.arrive, threads 64-127
// wait there and read it; the count, 64 (blockDim.x / 2), covers one side only. Each side can
// complete a phase by itself (then the consumers read buf before it is written), or warps of
// both sides pair up: which threads a phase releases depends on the timing.
extern "C" __global__ void w_named_count_one_tile(const int* in, int* out)
{
    __shared__ int buf[64];
    int t = threadIdx.x;
    if (t < 64) {
        buf[t] = in[t];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t - 64] = buf[127 - t];
    }
}
