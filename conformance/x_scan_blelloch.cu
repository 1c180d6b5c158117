// Blelloch work-efficient exclusive scan: 2*blockDim elements per block, up-sweep and
// down-sweep with barriers in loops; the block total goes to sums[blockIdx.x].
extern "C" __global__ void x_scan_blelloch(int* out, const int* in, int* sums)
{
    extern __shared__ int temp[];
    int t = threadIdx.x;
    int n = 2 * blockDim.x;
    int base = blockIdx.x * n;
    temp[2 * t] = in[base + 2 * t];
    temp[2 * t + 1] = in[base + 2 * t + 1];
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        sums[blockIdx.x] = temp[n - 1];
        temp[n - 1] = 0;
    }
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            int tmp = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += tmp;
        }
    }
    __syncthreads();
    out[base + 2 * t] = temp[2 * t];
    out[base + 2 * t + 1] = temp[2 * t + 1];
}
