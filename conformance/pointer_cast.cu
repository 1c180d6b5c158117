// Reinterpreting casts between pointer types: read a float's bits through an
// unsigned int pointer, and bytes through an unsigned char pointer.
extern "C" __global__ void pointer_cast(const float* in, unsigned int* bits,
                                        unsigned char* low_bytes, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned int* ui = (const unsigned int*)in;
    bits[t] = ui[t];
    const unsigned char* bytes = (const unsigned char*)(in + t);
    low_bytes[t] = bytes[0];
}
