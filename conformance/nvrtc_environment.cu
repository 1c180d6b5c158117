// What the compiler says about itself: for each name, 1 and its value when it is defined,
// 0 and 0 when not (the GPU's NVRTC against simcore's table, simcore/data/nvrtc_environment.json).
#define PROBE(k, NAME) out[2 * (k)] = 1; out[2 * (k) + 1] = (long long)(NAME);
#define ABSENT(k) out[2 * (k)] = 0; out[2 * (k) + 1] = 0;

extern "C" __global__ void nvrtc_environment(long long *out)
{
    if (threadIdx.x != 0)
        return;
#ifdef __CUDACC__
    PROBE(0, __CUDACC__)
#else
    ABSENT(0)
#endif
#ifdef __CUDACC_RTC__
    PROBE(1, __CUDACC_RTC__)
#else
    ABSENT(1)
#endif
#ifdef __CUDA_ARCH__
    PROBE(2, __CUDA_ARCH__)
#else
    ABSENT(2)
#endif
#ifdef __CUDACC_VER_MAJOR__
    PROBE(3, __CUDACC_VER_MAJOR__)
#else
    ABSENT(3)
#endif
#ifdef __CUDACC_VER_MINOR__
    PROBE(4, __CUDACC_VER_MINOR__)
#else
    ABSENT(4)
#endif
#ifdef __cplusplus
    PROBE(5, __cplusplus)
#else
    ABSENT(5)
#endif
#ifdef __CUDA_ARCH_LIST__
    PROBE(6, __CUDA_ARCH_LIST__)
#else
    ABSENT(6)
#endif
#ifdef __NVCC__
    PROBE(7, __NVCC__)
#else
    ABSENT(7)
#endif
#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__
    PROBE(8, __NVCC_DIAG_PRAGMA_SUPPORT__)
#else
    ABSENT(8)
#endif
#ifdef __CUDACC_VER_BUILD__
    PROBE(9, __CUDACC_VER_BUILD__)
#else
    ABSENT(9)
#endif
}
