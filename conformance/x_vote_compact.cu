// Warp-level compaction with votes: __ballot_sync of the predicate, __popc of the ballot bits
// of the lower lanes gives each kept value its slot in the warp's part of the output; lane 0
// records the warp's count and adds it to the total with one atomicAdd, then broadcasts
// the warp's count with __shfl_sync.
extern "C" __global__ void x_vote_compact(const int* in, int* out, int* counts, int* total,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = i / 32;
    int v = (i < n) ? in[i] : 0;
    bool keep = (i < n) && (v % 3 == 0);
    unsigned ballot = __ballot_sync(0xffffffffu, keep);
    int c = 0;
    if (lane == 0) {
        c = __popc(ballot);
        counts[warp] = c;
        atomicAdd(total, c);
    }
    c = __shfl_sync(0xffffffffu, c, 0);
    unsigned lower = ballot & ((1u << lane) - 1u);
    if (keep)
        out[warp * 32 + __popc(lower)] = v;
    else if (lane >= c)
        out[warp * 32 + lane] = -1;
}
