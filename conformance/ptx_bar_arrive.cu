// Producer/consumer with bar.arrive: warps 0-3 write and arrive without waiting, warps
// 4-7 wait with bar.sync on the same barrier (id 1, count 256 = all threads).
extern "C" __global__ void ptx_bar_arrive(const int* in, int* out)
{
    __shared__ int buf[128];
    int t = threadIdx.x;
    int id = 1;
    int count = 256;
    if (t < 128) {
        buf[t] = in[t] * 3;
        asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count));
    } else {
        asm volatile("bar.sync 1, 256;");
        out[t - 128] = buf[t - 128] + buf[255 - t];
    }
}
