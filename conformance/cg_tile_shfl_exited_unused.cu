// y_shfl_after_exit with a 32-thread tile: lanes past n exit; the others shuffle as a tile
// (exited lanes are ignored). The last live lane reads an exited lane but never uses it.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_shfl_exited_unused(const int* in, int* out, int n)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int right = tile.shfl_down(v, 1);
    int pair = tile.shfl_xor(v, 1);
    int r = v;
    if (i + 1 < n && tile.thread_rank() != 31) r = v + right;
    if ((i ^ 1) < n) r = r * 2 + pair;
    out[i] = r;
}
