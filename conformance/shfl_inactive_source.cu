// Lanes 0-15 shuffle among themselves (mask 0x0000ffff: legal) but read from lanes 16-31,
// which do not take part: the value read is undefined, and it is stored.
extern "C" __global__ void shfl_inactive_source(int* out, const int* in)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    if (lane < 16)
        v = __shfl_sync(0x0000ffff, v, lane + 16);
    out[t] = v;
}
