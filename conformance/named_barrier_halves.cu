// Named barriers through inline PTX: a block of 512 threads runs as two independent
// halves of 256; half h synchronises on barrier 1 + h with a count of 256.
extern "C" __global__ void named_barrier_halves(const int* in, int* out)
{
    __shared__ int tile[512];
    int t = threadIdx.x;
    int half = t / 256;
    int id = 1 + half;
    int count = 256;
    tile[t] = in[blockIdx.x * 512 + t];
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count));
    int local = t % 256;
    out[blockIdx.x * 512 + t] = tile[half * 256 + 255 - local];
}
