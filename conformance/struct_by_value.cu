// Structs passed by value as kernel parameters: numbers, an array member, a nested struct with
// a pointer member (CuPy passes a numpy structured scalar; simcore also takes a dict whose
// pointer members are arrays). Each thread may change its own copy.
struct In { const float* src; int stride; };
struct Params { int n; float scale[2]; double bias; In in; };

extern "C" __global__ void struct_by_value(Params p, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    p.bias += i;                        // this thread's copy only
    Params* q = &p;
    out[i] = q->in.src[i * p.in.stride] * p.scale[i & 1] + (float)p.bias;
}
