// A cooperative launch (enable_cooperative_groups=True): every thread writes, grid.sync(),
// every thread reads an element another block wrote.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_grid_sync_exchange(int* a, int* b, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    a[i] = 3 * i + 1;
    grid.sync();
    b[i] = a[(i + 64) % n];
}
