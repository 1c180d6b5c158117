// Thread 0 walks a linked list in shared memory while the others wait; until the list is done
// every thread loops (exit decided by __syncthreads_or, so the trip is uniform).
extern "C" __global__ void hunt_dowhile_or_flag(const int* next, int* out)
{
    __shared__ int nxt[64];
    __shared__ int cur, steps;
    int t = threadIdx.x;
    nxt[t] = next[t];
    if (t == 0) { cur = 0; steps = 0; }
    __syncthreads();
    int more;
    do {
        int c = cur;
        __syncthreads();
        if (t == c) { cur = nxt[t]; steps = steps + 1; }
        __syncthreads();
        more = cur != 0;
    } while (__syncthreads_or(more && t == 0));
    if (t == 0) *out = steps;
}
