// Usual arithmetic conversions: int against unsigned compares as unsigned (-1 < 0u is
// false), unsigned subtraction wraps, int against long long compares as signed, sizeof.
extern "C" __global__ void x_signed_unsigned_cmp(const int* a, const unsigned int* b, int* out,
                                                 int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = a[t];
    unsigned int u = b[t];
    int r = 0;
    if (x < u) r |= 1;                       // x converted to unsigned
    if (x < (int)u) r |= 2;                  // signed compare
    if ((long long)x < (long long)u) r |= 4; // both exact in 64 bits
    if (-1 < 0u) r |= 8;                     // false: 0xffffffff < 0
    if (u - 5u > u) r |= 16;                 // wraps when u < 5
    if ((unsigned)x / 2u > 1000000000u) r |= 32;
    if (x / 2 > 1000000000) r |= 64;
    out[t * 3] = r;
    out[t * 3 + 1] = (int)(u >> 28) + (int)sizeof(long long) + (int)sizeof(short);
    out[t * 3 + 2] = (x < 0 ? -x : x) % 7;
}
