// The broken twin of ra_spin_lock without its fences: the atomics still exclude each other,
// but nothing orders one holder's plain writes of total before the next holder's reads (an
// atomic is neither a release nor an acquire by itself): the next holder may read stale values.
extern "C" __global__ void ra_spin_lock_without_fence(const int* in, int* lock, int* total, int* order)
{
    if (threadIdx.x != 0) return;
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            int k = total[1];
            order[k] = blockIdx.x;
            total[0] += in[blockIdx.x];
            total[1] = k + 1;
            atomicExch(lock, 0);
            done = true;
        }
    }
}
