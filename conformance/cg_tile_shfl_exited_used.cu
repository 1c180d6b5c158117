// y_shfl_from_exited_used with a 32-thread tile: lanes past n exit, then
// tile.shfl_down(v, 1). The last live lane reads an exited lane and stores the value.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_shfl_exited_used(const int* in, int* out, int n)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int right = tile.shfl_down(v, 1);
    out[i] = v + right;
}
