// 16-thread tiles: each thread writes s[t], the tile syncs, and each thread reads the value of
// the thread 16 places on, which is in the OTHER half of its warp. tile.sync() orders a tile's
// own threads only: nothing orders the other half's write before this read (read-after-write
// race).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void y_tile_sync_other_half(const int* in, int* out)
{
    __shared__ int s[64];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    tile.sync();
    out[blockIdx.x * blockDim.x + t] = s[(t & ~31) | ((t + 16) & 31)];
}
