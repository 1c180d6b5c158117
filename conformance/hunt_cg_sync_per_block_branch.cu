#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Blocks of the first grid row transpose their tile; the others copy theirs. The branch is
// uniform per block (blockIdx), so each block's barrier is reached by all its threads.
extern "C" __global__ void hunt_cg_sync_per_block_branch(const int* in, int* out)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ int tile[8][9];
    int tx = threadIdx.x, ty = threadIdx.y;
    int b = blockIdx.y * gridDim.x + blockIdx.x;
    int v = in[b * 64 + ty * 8 + tx];
    if (blockIdx.y == 0) {
        tile[ty][tx] = v;
        block.sync();
        v = tile[tx][ty];
    }
    out[b * 64 + ty * 8 + tx] = v;
}
