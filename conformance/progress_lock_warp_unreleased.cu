// The broken twin of progress_lock_warp: the holder never releases the lock, so every other
// thread spins forever (a hang on any GPU).
extern "C" __global__ void progress_lock_warp_unreleased(int* lock, int* count)
{
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    atomicAdd(count, 1);
    __threadfence();
}
