// Member functions of structs and classes (inlined with this), on a local struct, on a struct
// in global memory, through a pointer, and a base struct's members and member functions.
struct Acc {
    float sum;
    int n;
    __device__ void add(float v) { sum += v; n++; }
    __device__ float mean() const { return n ? sum / n : 0.0f; }
};

struct Scaled : public Acc {
    float scale;
    __device__ float scaled_mean() const { return mean() * scale; }
};

class Counter {
    int c;
public:
    __device__ void reset() { c = 0; }
    __device__ int bump(int by) { c += by; return c; }
};

extern "C" __global__ void cxx_member_functions(const float* in, float* means, Acc* accs, int* counts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Scaled s;
    s.sum = 0.0f;
    s.n = 0;
    s.scale = 2.0f;
    for (int k = 0; k < 3; k++) s.add(in[i] + k);
    means[i] = s.scaled_mean();
    accs[i].add(in[i]);                 // a struct in global memory
    Acc* p = &accs[i];
    p->add(1.0f);
    Counter c;
    c.reset();
    c.bump(i);
    counts[i] = c.bump(1);
}
