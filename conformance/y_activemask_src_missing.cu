// Inside a data-dependent if, mask = __activemask() and every active lane reads lane 0's
// value; in warps where lane 0 did not take the branch, the source is not in the mask.
extern "C" __global__ void y_activemask_src_missing(const int* in, int* out)
{
    int t = threadIdx.x;
    int v = in[t];
    int r = -1;
    if (v > 0) {
        unsigned m = __activemask();
        r = __shfl_sync(m, v, 0);
    }
    out[t] = r;
}
