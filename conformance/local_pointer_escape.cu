// Pointers to locals that are reassigned, chosen per thread, stepped through a local array,
// compared: each such local has an address (local memory), one copy per thread.
extern "C" __global__ void local_pointer_escape(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = in[i], y = -in[i];
    int* p = &x;
    if (i & 1) p = &y;                 // chosen per thread
    *p += 3;
    int v[4] = {1, 2, 3, 4};
    int s = 0;
    for (int* q = v; q < v + 4; q++)   // stepped through a local array
        s += *q * (i % 5);
    int c = s;
    p = (c > 10) ? &c : p;             // ?: between pointers to locals
    out[i] = x * 1000 + y + s + *p;
}
