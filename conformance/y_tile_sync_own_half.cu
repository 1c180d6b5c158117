// 16-thread tiles: each thread writes s[t], the tile syncs, and each thread reads the value of
// another thread of its own tile (reversed within the tile): tile.sync() orders them. Legal.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void y_tile_sync_own_half(const int* in, int* out)
{
    __shared__ int s[64];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    tile.sync();
    out[blockIdx.x * blockDim.x + t] = s[(t & ~15) | (15 - (t & 15))];
}
