// Parallel max/min with atomics: unsigned atomicMax/atomicMin, signed ones on negative
// values, and 64-bit atomicMax on unsigned long long keys.
extern "C" __global__ void x_atomic_minmax(const unsigned int* u, const int* s,
                                           unsigned int* ures, int* sres,
                                           unsigned long long* lres, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicMax(&ures[0], u[i]);
    atomicMin(&ures[1], u[i]);
    atomicMax(&sres[0], s[i]);
    atomicMin(&sres[1], s[i]);
    unsigned long long key = ((unsigned long long)u[i] << 32) | (unsigned int)i;
    atomicMax(&lres[0], key);
    atomicMin(&lres[1], key);
}
