// A named barrier with literal operands: every thread of the 256-thread block uses
// barrier 1 with a count of 256.
extern "C" __global__ void ptx_bar_literal(const int* in, int* out)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 256 + t] + 1;
    asm volatile("bar.sync 1, 256;");
    out[blockIdx.x * 256 + t] = tile[(t + 128) % 256];
}
