// The mask of the lanes with work comes from __ballot_sync before the guard; inside the
// guard only those lanes shuffle with it. Values read from lanes outside the mask are
// discarded by the test on the mask bit. The other lanes stay alive (they store after).
extern "C" __global__ void y_ballot_mask_partial_reduce(const int* in, int* sums, int* flags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned m = __ballot_sync(0xffffffffu, i < n);
    if (i < n) {
        int v = in[i];
        for (int off = 16; off > 0; off >>= 1) {
            int o = __shfl_down_sync(m, v, off);
            if (lane + off < 32 && ((m >> (lane + off)) & 1u)) v += o;
        }
        if (lane == 0) atomicAdd(&sums[0], v);
    }
    flags[i] = (i < n) ? 1 : 2;
}
