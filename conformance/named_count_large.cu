// Named barriers with a count larger than the group: each half of 256 threads waits on
// its own barrier for 512 arrivals that never come. Deadlock (an H200 hung).
extern "C" __global__ void named_count_large(const int* in, int* out)
{
    __shared__ int tile[512];
    int t = threadIdx.x;
    int id = 1 + t / 256;
    int count = 512;
    tile[t] = in[t];
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count));
    out[t] = tile[(t / 256) * 256 + 255 - t % 256];
}
