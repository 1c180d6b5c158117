// cg_grid_sync_exchange without grid.sync(): the read of another block's element races with
// its write (cooperative launch, so every block runs at once).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_grid_exchange_nosync(int* a, int* b, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    a[i] = 3 * i + 1;
    b[i] = a[(i + 64) % n];
}
