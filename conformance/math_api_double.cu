// The CUDA math API's double functions, rounding-mode intrinsics and integer intrinsics that
// simcore added (issue 19). The rounding-mode, conversion and integer results are exact on
// both (compared bit for bit through the tight tolerance); the functions within a few ulp.
extern "C" __global__ void math_api_double(const double* x, double* out, unsigned* bits, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    double v = x[t];              // in (0.1, 3)
    double w = v - 1.5;
    double* o = out + t * 24;
    o[0] = tgamma(v);        o[1] = lgamma(v);         o[2] = erfinv(w / 2.0);  o[3] = erfcx(v);
    o[4] = j0(v);            o[5] = y1(v);             o[6] = yn(3, v);         o[7] = sinpi(w);
    o[8] = remainder(v * 7.0, 1.25); o[9] = fdim(v, 1.0); o[10] = logb(v * 100.0); o[11] = ldexp(v, -3);
    o[12] = __dadd_rd(v, 1e-17); o[13] = __dadd_ru(v, 1e-17); o[14] = __ddiv_rz(1.0, v); o[15] = __dsqrt_ru(v);
    o[16] = __fma_rd(v, w, 0.1); o[17] = __fadd_ru((float)v, 1e-9f); o[18] = __fdiv_rd(1.0f, (float)v);
    o[19] = __frcp_ru((float)v); o[20] = __int2float_rd(16777217 + t); o[21] = __double2float_ru(v);
    int e;
    o[22] = frexp(v, &e) + e;
    o[23] = (double)ilogb(v * 1000.0) + nearbyint(w * 3.0);
    unsigned u = (unsigned)(v * 1e9);
    unsigned* b = bits + t * 8;
    b[0] = __byte_perm(u, 0x12345678u, 0x7531u); b[1] = __funnelshift_l(u, 0xdeadbeefu, t);
    b[2] = __funnelshift_rc(u, 0xdeadbeefu, t + 20); b[3] = __urhadd(u, 0xffffffffu);
    b[4] = (unsigned)__hadd((int)u, -7); b[5] = (unsigned)__clzll((long long)u << 20);
    b[6] = (unsigned)(__umul64hi((unsigned long long)u << 30, 0x9e3779b97f4a7c15ull));
    b[7] = (unsigned)__dp4a((int)u, 0x01ff7f80, 3);
}
