// A spin lock between blocks: atomicCAS takes it, the __threadfence() after it acquires what
// the last holder wrote, the __threadfence() before atomicExch releases what this holder wrote.
// The critical section's plain read-modify-writes of total and of the log are then ordered from
// holder to holder. The loop keeps the critical section inside it (the lock taken and released
// by the same iteration), so no thread waits for another one's exit from the loop.
extern "C" __global__ void ra_spin_lock(const int* in, int* lock, int* total, int* order)
{
    if (threadIdx.x != 0) return;
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            __threadfence();
            int k = total[1];
            order[k] = blockIdx.x;
            total[0] += in[blockIdx.x];
            total[1] = k + 1;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}
