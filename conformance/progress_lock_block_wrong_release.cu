// The broken twin of progress_lock_block: the "release" writes 1, the taken value, so the lock
// stays taken and every later block spins forever.
extern "C" __global__ void progress_lock_block_wrong_release(int* lock, int* count)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {
        }
        atomicAdd(count, 1);
        __threadfence();
        atomicExch(lock, 1);
    }
}
