// char / short / unsigned char arithmetic: integer promotion, truncation on store, wrap.
extern "C" __global__ void x_small_int_types(const int* in, int* out, unsigned char* bytes,
                                             short* shorts, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    unsigned char uc = (unsigned char)x;          // x mod 256
    signed char sc = (signed char)x;              // wraps into -128..127
    short sh = (short)(x * 300);                  // wraps into -32768..32767
    unsigned short us = (unsigned short)x;
    unsigned char sum = uc + 200;                 // promoted to int, truncated on store
    int prom = uc + 200;                          // stays int: no wrap
    char c = 'A' + (x & 15);
    unsigned char shifted = uc << 1;              // bit 8 is lost on store
    int neg = -uc;                                // promoted: uc is never negative before
    out[t * 8 + 0] = uc;
    out[t * 8 + 1] = sc;
    out[t * 8 + 2] = sh;
    out[t * 8 + 3] = us;
    out[t * 8 + 4] = sum;
    out[t * 8 + 5] = prom;
    out[t * 8 + 6] = c + shifted;
    out[t * 8 + 7] = neg + (sc >> 2);
    bytes[t] = (unsigned char)(uc * 3);
    shorts[t] = (short)(sh + us);
}
