// A signed product that overflows int for the larger inputs: undefined in C (simcore warns);
// the GPU's multiply wraps, as simcore computes it.
extern "C" __global__ void signed_mul_overflow(const int* x, int* out)
{
    int t = threadIdx.x;
    out[t] = x[t] * 1000003;
}
