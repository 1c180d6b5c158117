// 16-thread tiles: each half-warp shuffles, votes and reduces on its own (min and max with
// cg::less / cg::greater); ballot bits are numbered by rank in the tile.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile16_collectives(const int* in, int* down, unsigned* ballot, int* minmax)
{
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    down[i] = t16.shfl_down(v, 3) + 10000 * t16.any(v > 900) + 20000 * t16.all(v > -900);
    ballot[i] = t16.ballot(v > 0);
    minmax[i] = cg::reduce(t16, v, cg::less<int>()) * 4096 + cg::reduce(t16, v, cg::greater<int>());
}
