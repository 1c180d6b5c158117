// if/else, for with break and continue, while, do-while, switch with fall-through and
// default, and an early return (no barrier involved).
extern "C" __global__ void control_flow(const int* in, int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    if (x == 42) {
        out[t * 4 + 0] = -1;
        out[t * 4 + 1] = -1;
        out[t * 4 + 2] = -1;
        out[t * 4 + 3] = -1;
        return;
    }
    int acc = 0;
    for (int i = 0; i < 10; ++i) {
        if (i == x % 7) continue;
        if (i * x > 300) break;
        acc += i;
    }
    int w = x;
    int steps = 0;
    while (w > 1) {
        if (w % 2 == 0) w = w / 2;
        else w = 3 * w + 1;
        ++steps;
    }
    int d = 0;
    do {
        d += 2;
    } while (d < x % 5);
    int s = 0;
    switch (x % 6) {
    case 0:
        s = 10;
        break;
    case 1:
    case 2:
        s = 20;
        break;
    case 3:
        s += 30;
        /* fall through */
    case 4:
        s += 1;
        break;
    default:
        s = 99;
    }
    out[t * 4 + 0] = acc;
    out[t * 4 + 1] = steps;
    out[t * 4 + 2] = d;
    out[t * 4 + 3] = s;
}
