// Signed integer operators: truncating division and modulo of negatives, shifts, bit ops,
// logical ops, comparisons, compound assignment, ternary (++/-- are in incdec.cu).
extern "C" __global__ void int_ops(const int* a, const int* b, int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = a[t];
    int y = b[t];                         // never zero
    int* o = out + t * 16;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (x & 0xffff) << 3;
    o[3] = x >> 2;                        // arithmetic shift for negatives
    o[4] = (x & y) | (x ^ 0x55);
    o[5] = ~x;
    o[6] = !x + (x && y) * 2 + (x || y > 5) * 4;
    o[7] = -x + (x > y ? x : y);
    o[8] = (x < y) + 2 * (x <= y) + 4 * (x > y) + 8 * (x >= y) + 16 * (x == y) + 32 * (x != y);
    int c = x;
    c += y;
    c -= 3;
    c *= 2;
    c /= 3;
    c %= 7;
    c ^= 0x33;
    c |= 5;
    c &= 0x3ff;
    c <<= 2;
    c >>= 1;
    o[9] = c;
    o[10] = c + 1;
    o[11] = c + 2;
    o[12] = c + 2;
    o[13] = c * 2;
    o[14] = x * y - (x / 7) * 7;
    o[15] = (x % 4 == 0) ? -1 : (x % 4 == 1) ? -2 : 3;
}
