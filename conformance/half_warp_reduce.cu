// Reduction over lanes 0-15 with mask 0x0000ffff. Lanes 8-15 read lanes 16-23, which do
// not take part, so their partial sums are undefined -- but lane 0's sum only uses defined
// values and only lane 0 stores. Legal, as on real hardware.
extern "C" __global__ void half_warp_reduce(int* out, const int* in)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[blockIdx.x * blockDim.x + t];
    if (lane < 16) {
        for (int offset = 8; offset > 0; offset /= 2)
            v += __shfl_down_sync(0x0000ffff, v, offset);
        if (lane == 0) out[(blockIdx.x * blockDim.x + t) / 32] = v;
    }
}
