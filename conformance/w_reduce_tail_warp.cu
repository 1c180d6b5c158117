// A block of 100 threads: the tail warp has lanes 0-3 only. The full mask names lanes that do
// not exist; they never execute, like exited lanes, so the reduction is over the 4 that do.
extern "C" __global__ void w_reduce_tail_warp(const int* in, int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = __reduce_add_sync(0xffffffffu, in[g]) + 7 * __reduce_max_sync(0xffffffffu, in[g]);
}
