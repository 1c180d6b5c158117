// The barrier's condition is uniform only if everybody sees thread 0's write of the flag,
// but the others read it with no barrier after the write.
extern "C" __global__ void y_uniform_flag_racy(const int* in, int* out)
{
    __shared__ int go;
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    if (t == 0) go = in[0] > -100000;
    if (go) {
        __syncthreads();
        out[t] = tile[63 - t];
    } else {
        out[t] = 0;
    }
}
