// The 32-byte vector types: double4 and longlong4 (16-byte aligned, as nvcc has always laid
// them out; CUDA 13 calls that double4_16a) and double4_32a (32-byte aligned), loaded and
// stored whole.
extern "C" __global__ void vector_double4(const double* in, double* out, long long* sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double4 a = reinterpret_cast<const double4*>(in)[i];
    double4_32a b = reinterpret_cast<const double4_32a*>(in)[i];
    reinterpret_cast<double4*>(out)[i] = make_double4(a.w, a.z, a.y, a.x + b.w);
    longlong4 l = make_longlong4(i, 2 * i, 3 * i, (long long)b.x);
    sums[i] = l.x + l.y + l.z + l.w;
}
