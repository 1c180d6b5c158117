// Warp specialisation with named barriers (inline PTX): warps 0-1 produce into a shared
// buffer and signal with bar.arrive 1, 128; warps 2-3 wait with bar.sync 1, 128 and consume.
// Then the roles swap for a second buffer with barrier 2.
extern "C" __global__ void x_warp_specialized(const int* in, int* out)
{
    __shared__ int buf[2][64];
    int t = threadIdx.x;
    int warp = t / 32;
    if (warp < 2) {
        buf[0][t] = in[t] * 2;
        asm volatile("bar.arrive 1, 128;" ::: "memory");
        asm volatile("bar.sync 2, 128;" ::: "memory");
        out[t] = buf[1][t] + buf[0][63 - t];
    } else {
        int u = t - 64;
        asm volatile("bar.sync 1, 128;" ::: "memory");
        buf[1][u] = buf[0][u] + in[t];
        asm volatile("bar.arrive 2, 128;" ::: "memory");
        out[t] = buf[0][63 - u];
    }
}
