// C++ auto for locals: the type of the initializer (unsigned from threadIdx.x wraps; float
// division stays float; auto * and const auto).
extern "C" __global__ void cxx_auto(const float* in, float* out, unsigned* wrapped, int n)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;     // unsigned int
    if (i >= n) return;
    const auto* p = in + i;                             // const float *
    auto x = *p;                                        // float
    auto half = x / 2;                                  // float, not int
    auto v = make_float2(x, half);                      // float2
    for (auto k = 0; k < 3; k++) v.x += v.y;
    out[i] = v.x;
    auto w = threadIdx.x - 40u;                         // unsigned: wraps below 0
    wrapped[i] = w;
}
