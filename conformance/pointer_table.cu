// A float ** parameter: a table of row pointers (CuPy passes an array of .data.ptr values;
// simcore takes a list of arrays on both backends). Each block sums its own row.
extern "C" __global__ void pointer_table(float** rows, int nrows, float* sums, int width)
{
    int r = blockIdx.x;
    if (r >= nrows) return;
    const float* row = rows[r];
    __shared__ float part[128];
    float s = 0.0f;
    for (int j = threadIdx.x; j < width; j += blockDim.x) s += row[j];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[r] = part[0];
}
