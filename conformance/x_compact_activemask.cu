// BUG: compaction with a mask from __activemask() taken before a divergent branch: the
// ballot inside the branch names lanes (those with v <= 0) that never call it, and those
// lanes are still alive (they run the store after the if).
extern "C" __global__ void x_compact_activemask(const int* in, int* out, int* counts)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    unsigned mask = __activemask();
    int slot = -1;
    if (v > 0) {
        unsigned b = __ballot_sync(mask, 1);
        slot = __popc(b & ((1u << lane) - 1u));
        out[(t / 32) * 32 + slot] = v;
    }
    counts[t] = slot;
}
