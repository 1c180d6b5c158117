// The clock: a "spin for N cycles" loop and a __nanosleep back-off loop end; clock64() never
// goes back for a thread. Only facts every GPU and simcore agree on are stored (simcore's
// clock values are not an H200's).
extern "C" __global__ void clock_spin_backoff(int* out, int* flag, int cycles)
{
    int t = threadIdx.x;
    long long start = clock64();
    while (clock64() - start < cycles) { }
    long long mid = clock64();
    if (t == 0) {
        unsigned ns = 8;
        while (atomicAdd(flag, 0) == 0) {
            __nanosleep(ns);
            if (ns < 256) ns *= 2;
            if (clock64() - mid > 20000) atomicExch(flag, 1);
        }
    }
    clock_t c = clock();
    long long end = clock64();
    out[t] = (mid - start >= cycles) + 2 * (end >= mid) + 4 * (c != 0 || end != 0);
}
