// A named barrier count smaller than the group (128 for 256 threads): more threads arrive
// than the barrier expects, so it releases early and the halves' reads race with writes
// (an H200 completed; racecheck reported 2048 hazards).
extern "C" __global__ void named_count_small(const int* in, int* out)
{
    __shared__ int tile[512];
    int t = threadIdx.x;
    int id = 1 + t / 256;
    int count = 128;
    tile[t] = in[t];
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count));
    out[t] = tile[(t / 256) * 256 + 255 - t % 256];
}
