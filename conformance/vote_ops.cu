// __ballot_sync, __all_sync, __any_sync, __activemask in converged code, __popc, __ffs.
extern "C" __global__ void vote_ops(const int* in, unsigned int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    unsigned int b = __ballot_sync(0xffffffff, v & 1);
    int all = __all_sync(0xffffffff, v >= 0);
    int any = __any_sync(0xffffffff, v > 90);
    unsigned int am = __activemask();
    out[g * 6 + 0] = b;
    out[g * 6 + 1] = all != 0;
    out[g * 6 + 2] = any != 0;
    out[g * 6 + 3] = am;
    out[g * 6 + 4] = __popc(b);
    out[g * 6 + 5] = __ffs(b);
}
