// A template kernel over the block size and the element type, instantiated by name
// (CuPy: RawModule(code=..., name_expressions=("tpl_reverse_block<128, float>",))).
// Each block reverses its tile in shared memory; the helper is a template too.
template <typename T>
__device__ T negate_if(T x, bool flip)
{
    return flip ? -x : x;
}

template <int BLOCK, typename T>
__global__ void tpl_reverse_block(T* out, const T* in)
{
    __shared__ T tile[BLOCK];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    tile[t] = in[g];
    __syncthreads();
    out[g] = negate_if<T>(tile[BLOCK - 1 - t], (blockIdx.x & 1) != 0);
}
