// A named barrier count that is not a multiple of the warp size (250): invalid PTX usage
// (an H200 raised an illegal instruction).
extern "C" __global__ void named_count_not_mult32(const int* in, int* out)
{
    __shared__ int tile[512];
    int t = threadIdx.x;
    int id = 1 + t / 256;
    int count = 250;
    tile[t] = in[t];
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count));
    out[t] = tile[(t / 256) * 256 + 255 - t % 256];
}
