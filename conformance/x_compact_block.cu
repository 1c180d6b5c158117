// Stream compaction per block: __syncthreads_count gives the block's number of kept
// elements; a shared-memory exclusive scan of the flags gives each kept element its slot.
// Output: block b writes its kept elements, in order, to out[b * 256 ...], count to counts[b].
#define BS 256

extern "C" __global__ void x_compact_block(int* out, int* counts, const int* in, int n,
                                           int threshold)
{
    __shared__ int flags[BS];
    int t = threadIdx.x;
    int g = blockIdx.x * BS + t;
    int v = (g < n) ? in[g] : 0;
    int keep = (g < n) && (v > threshold);
    int total = __syncthreads_count(keep);
    flags[t] = keep;
    __syncthreads();
    for (int off = 1; off < BS; off <<= 1) {
        int add = (t >= off) ? flags[t - off] : 0;
        __syncthreads();
        flags[t] += add;
        __syncthreads();
    }
    if (keep)
        out[blockIdx.x * BS + flags[t] - 1] = v;
    if (t == 0)
        counts[blockIdx.x] = total;
}
