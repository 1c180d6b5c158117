// One thread per block takes a global spin lock; the other threads of the block exit.
extern "C" __global__ void progress_lock_block(int* lock, int* count)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {
        }
        atomicAdd(count, 1);
        __threadfence();
        atomicExch(lock, 0);
    }
}
