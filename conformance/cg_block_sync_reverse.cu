// Reverse a tile with Cooperative Groups: every thread writes, block.sync(), every thread
// reads another thread's element. cg::sync(block) is the same barrier.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_sync_reverse(int* out, const int* in)
{
    __shared__ int tile[256];
    cg::thread_block block = cg::this_thread_block();
    int t = block.thread_rank();
    int g = blockIdx.x * block.size() + t;
    tile[t] = in[g];
    cg::sync(block);
    out[g] = tile[block.size() - 1 - t];
}
