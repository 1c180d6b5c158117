// Atomics from every block on one global counter (and min/max/or); nobody reads the
// counters with a plain load. Tickets are unique whatever the order.
extern "C" __global__ void y_atomic_counter_blocks(const int* in, int* counters, int* hits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int ticket = atomicAdd(&counters[0], 1);
    atomicAdd(&counters[1], v);
    atomicMin(&counters[2], v);
    atomicMax(&counters[3], v);
    atomicOr(&counters[4], 1 << (v & 15));
    atomicAdd(&hits[ticket], 1);
}
