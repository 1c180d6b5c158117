// Prefix and postfix ++ and -- as expressions: postfix yields the old value.
extern "C" __global__ void incdec(const int* in, int* out)
{
    int t = threadIdx.x;
    int c = in[t];
    int p = c++;
    int q = ++c;
    int r = c--;
    int s = --c;
    out[t * 5 + 0] = p;
    out[t * 5 + 1] = q;
    out[t * 5 + 2] = r;
    out[t * 5 + 3] = s;
    out[t * 5 + 4] = c;
}
