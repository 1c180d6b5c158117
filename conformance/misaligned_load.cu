// A 4-byte load from an address 2 bytes past a 4-byte boundary.
extern "C" __global__ void misaligned_load(int* out, const int* in)
{
    const char* bytes = (const char*)in;
    const int* shifted = (const int*)(bytes + 2);
    out[threadIdx.x] = shifted[threadIdx.x];
}
