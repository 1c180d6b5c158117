// Warp-aggregated atomics with cg::coalesced_threads(): the threads that take the branch
// form a group; its rank-0 thread adds the group's size to the counter once. Each thread
// also records its rank and the group's size.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_coalesced_aggregate(const int* in, int* count, int* rank, int* size)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (in[i] % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        if (active.thread_rank() == 0) atomicAdd(count, (int)active.size());
        rank[i] = active.thread_rank();
        size[i] = active.size();
    }
}
