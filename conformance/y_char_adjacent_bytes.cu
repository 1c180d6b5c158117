// Adjacent threads write adjacent bytes (shared and global char arrays) and adjacent
// shorts: distinct bytes are distinct locations, no race. Blocks of 50 threads make
// neighbouring blocks meet inside one 4-byte word of the global outputs.
extern "C" __global__ void y_char_adjacent_bytes(const int* in, unsigned char* out,
                                                 short* out16)
{
    __shared__ unsigned char s[50];
    int t = threadIdx.x;
    int i = blockIdx.x * 50 + t;
    s[t] = (unsigned char)(in[i] & 0xff);
    __syncthreads();
    out[i] = (unsigned char)(s[49 - t] + 1);
    out16[i] = (short)(in[i] * 3);
}
