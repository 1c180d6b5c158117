// ifelse_straddle with Cooperative Groups: block.sync() on each side of an if/else split
// inside warp 2 (t < 80). The same undefined kernel as with __syncthreads().
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_sync_straddle(int* out, const int* in)
{
    __shared__ int tile[256];
    cg::thread_block block = cg::this_thread_block();
    int t = block.thread_rank();
    int g = blockIdx.x * 256 + t;
    tile[t] = in[g];
    if (t < 80) {
        block.sync();
        out[g] = tile[255 - t];
    } else {
        block.sync();
        out[g] = tile[255 - t] + 1000;
    }
}
