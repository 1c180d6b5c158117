// Per-thread control flow: a switch with fall-through, default in the middle and a nested
// loop with break inside a case; a do-while that runs at least once; a conditional operator
// chain.
extern "C" __global__ void x_switch_dowhile(const int* in, int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    int r = 0;
    switch (x & 7) {
    case 0:
        r += 1;
    case 1:
        r += 10;
        break;
    default:
        r = -x;
        break;
    case 4:
    case 5:
        for (int i = 0; i < 10; i++) {
            if (i * i > x) break;
            r += i;
        }
        break;
    case 7:
        r = 77;
    }
    int k = 0, y = x;
    do {
        y /= 3;
        k++;
    } while (y > 0);
    int cls = x < 10 ? 0 : x < 100 ? 1 : x < 1000 ? 2 : 3;
    out[t * 3] = r;
    out[t * 3 + 1] = k;
    out[t * 3 + 2] = cls;
}
