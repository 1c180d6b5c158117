// C's struct layout: member offsets and padding (sizeof), __align__, vector type sizes,
// and a local variable's address passed to a __device__ helper as an out-parameter.
struct Mixed {
    char c;
    double d;
    int i;
};

struct __align__(16) Aligned {
    float a;
};

__device__ void divmod(int a, int b, int* q, int* r)
{
    *q = a / b;
    *r = a % b;
}

extern "C" __global__ void struct_layout(int* sizes, int* qr)
{
    int t = threadIdx.x;
    if (t == 0) {
        Mixed m;
        sizes[0] = (int)sizeof(Mixed);
        sizes[1] = (int)sizeof(m.i);
        sizes[2] = (int)sizeof(Aligned);
        sizes[3] = (int)sizeof(float4) + (int)sizeof(int2) * 100;
        sizes[4] = (int)sizeof(double2) + (int)sizeof(float3) * 100;
    }
    int q, r;
    divmod(t + 100, 7, &q, &r);
    qr[2 * t] = q;
    qr[2 * t + 1] = r;
}
