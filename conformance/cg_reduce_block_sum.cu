// Block sum with Cooperative Groups: cg::reduce over each 32-thread tile, one partial per
// tile in shared memory, block.sync(), the first tile reduces the partials. 10 tiles per
// block (320 threads), n not a multiple of the block.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_reduce_block_sum(const int* in, int* total, int* partials, int n)
{
    __shared__ int shared[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * block.size() + block.thread_rank();
    int val = cg::reduce(tile, i < n ? in[i] : 0, cg::plus<int>());
    if (tile.thread_rank() == 0) shared[tile.meta_group_rank()] = val;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        val = tile.thread_rank() < tile.meta_group_size() ? shared[tile.thread_rank()] : 0;
        val = cg::reduce(tile, val, cg::plus<int>());
        if (tile.thread_rank() == 0) {
            partials[blockIdx.x] = val;
            atomicAdd(total, val);
        }
    }
}
