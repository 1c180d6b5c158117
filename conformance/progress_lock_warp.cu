// Every lane of every warp takes one global spin lock in turn. Legal from Volta on
// (independent thread scheduling: the holder runs on while its warp-mates spin).
extern "C" __global__ void progress_lock_warp(int* lock, int* count)
{
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    atomicAdd(count, 1);
    __threadfence();
    atomicExch(lock, 0);
}
