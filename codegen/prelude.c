/* prelude.c - the C++ that generated kernels build on, in parts: only the
 * parts a kernel uses are emitted (NVRTC time grows with every line).
 * CUDA-only spellings stay behind these names so that a host backend can
 * supply its own versions. */
#include "cg.h"

static const char base[] =
    "#define CJ_DEVICE static __device__ __forceinline__\n"
    "/* an array argument: data pointer, shape and byte strides */\n"
    "template <typename T, int N, typename I> struct cj_array {\n"
    "    T *data;\n"
    "    I shape[N];\n"
    "    I strides[N];\n"
    "};\n"
    "template <typename T, typename I> struct cj_array<T, 0, I> {\n"
    "    T *data;\n"
    "};\n"
    "template <typename T, typename I> CJ_DEVICE T &cj_at(T *p, I off)\n"
    "{\n"
    "    return *(T *)((char *)p + off);\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_max(T a, T b) { return b > a ? b : a; }\n"
    "template <typename T> CJ_DEVICE T cj_min(T a, T b) { return b < a ? b : a; }\n"
    "template <typename T> CJ_DEVICE T cj_sq(T x) { return x * x; }\n";

static const char su_cmp[] =
    "/* int64 against uint64, exactly: -1, 0 or 1 */\n"
    "CJ_DEVICE int cj_su_cmp(long long a, unsigned long long b)\n"
    "{\n"
    "    return a < 0 ? -1 : ((unsigned long long)a < b ? -1 : (unsigned long long)a > b);\n"
    "}\n";

static const char infnan[] =
    "#define CJ_INF_F __int_as_float(0x7f800000)\n"
    "#define CJ_NAN_F __int_as_float(0x7fc00000)\n"
    "#define CJ_INF __longlong_as_double(0x7ff0000000000000LL)\n"
    "#define CJ_NAN __longlong_as_double(0x7ff8000000000000LL)\n";

/* float16 without cuda_fp16.h (a large header): stored as 16 bits, computed
 * in float32 and rounded back, which is what NumPy does */
static const char f16[] =
    "struct cj_half {\n"
    "    unsigned short bits;\n"
    "    cj_half() = default;\n"
    "    __device__ cj_half(float f) { asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(bits) : \"f\"(f)); }\n"
    "    template <typename T> __device__ cj_half(T v) : cj_half((float)v) {}\n"
    "    __device__ operator float() const\n"
    "    {\n"
    "        float f;\n"
    "        asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(bits));\n"
    "        return f;\n"
    "    }\n"
    "};\n";

/* bfloat16 without cuda_bf16.h: float32's upper 16 bits, computed in
 * float32 and rounded back once.  Plain C++ (no PTX), so that the host shim
 * runs it too.  cj_f2bf rounds a float by mode: 0 to nearest even, 1 toward
 * zero, 2 down, 3 up (a NaN stays a quiet NaN).  Wider sources are first
 * rounded to float32 "to odd" (truncated, the last bit set when bits were
 * lost), after which one rounding to 8 bits is exact rounding: a double
 * (cj_bf_d2f) and integers of more than 24 bits (cj_bf_u2f) go that way. */
static const char bf16[] =
    "#define CJ_BF_INF __int_as_float(0x7f800000)\n"
    "static __device__ __forceinline__ unsigned short cj_f2bf(float f, int mode)\n"
    "{\n"
    "    unsigned u = (unsigned)__float_as_int(f);\n"
    "    if ((u & 0x7fffffffu) > 0x7f800000u) {\n"
    "        return (unsigned short)((u >> 16) | 0x40u);\n"
    "    }\n"
    "    if (mode == 0) {\n"
    "        return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n"
    "    }\n"
    "    unsigned away = mode == 3 ? !(u >> 31) : mode == 2 ? (u >> 31) : 0u;\n"
    "    return (unsigned short)((u >> 16) + (away && (u & 0xffffu) != 0));\n"
    "}\n"
    "static __device__ __forceinline__ float cj_bf_d2f(double d)\n"
    "{\n"
    "    float f = (float)d;\n"
    "    if (f != f || (double)f == d) {\n"
    "        return f;\n"
    "    }\n"
    "    f = fabs((double)f) > fabs(d) ? nextafterf(f, 0.0f) : f;\n"
    "    return __int_as_float(__float_as_int(f) | 1);\n"
    "}\n"
    "/* m rounded to float exactly: mode 0 to odd, 1 toward zero, 4 away from zero */\n"
    "static __device__ __forceinline__ float cj_bf_u2f(unsigned long long m, int mode)\n"
    "{\n"
    "    int s = 0;\n"
    "    while ((m >> s) >= (1ull << 24)) {\n"
    "        s++;\n"
    "    }\n"
    "    unsigned long long kept = m >> s;\n"
    "    bool lost = s > 0 && (m & ((1ull << s) - 1)) != 0;\n"
    "    kept |= (unsigned long long)(lost && mode == 0);\n"
    "    kept += (unsigned long long)(lost && mode == 4);\n"
    "    return ldexpf((float)kept, s);\n"
    "}\n"
    "static __device__ __forceinline__ unsigned short cj_bf_int(unsigned long long m, bool neg, int mode)\n"
    "{\n"
    "    bool away = (mode == 2 && neg) || (mode == 3 && !neg);\n"
    "    float f = cj_bf_u2f(m, mode == 0 ? 0 : away ? 4 : 1);\n"
    "    return cj_f2bf(neg ? -f : f, mode);\n"
    "}\n"
    "static __device__ __forceinline__ unsigned short cj_bf_ll(long long v, int mode)\n"
    "{\n"
    "    return cj_bf_int(v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0, mode);\n"
    "}\n"
    "static __device__ __forceinline__ unsigned short cj_bf_ull(unsigned long long v, int mode)\n"
    "{\n"
    "    return cj_bf_int(v, false, mode);\n"
    "}\n"
    "static __device__ __forceinline__ unsigned short cj_bf_from(int v) { return cj_bf_ll(v, 0); }\n"
    "static __device__ __forceinline__ unsigned short cj_bf_from(long v) { return cj_bf_ll(v, 0); }\n"
    "static __device__ __forceinline__ unsigned short cj_bf_from(long long v) { return cj_bf_ll(v, 0); }\n"
    "static __device__ __forceinline__ unsigned short cj_bf_from(unsigned v) { return cj_bf_ull(v, 0); }\n"
    "static __device__ __forceinline__ unsigned short cj_bf_from(unsigned long v) { return cj_bf_ull(v, 0); }\n"
    "static __device__ __forceinline__ unsigned short cj_bf_from(unsigned long long v) { return cj_bf_ull(v, 0); }\n"
    "/* bool, 8 and 16-bit integers, float16: exact in float */\n"
    "template <typename T> static __device__ __forceinline__ unsigned short cj_bf_from(T v)\n"
    "{\n"
    "    return cj_f2bf((float)v, 0);\n"
    "}\n"
    "struct cj_bf16 {\n"
    "    unsigned short bits;\n"
    "    cj_bf16() = default;\n"
    "    __device__ cj_bf16(float f) : bits(cj_f2bf(f, 0)) {}\n"
    "    __device__ cj_bf16(double d) : bits(cj_f2bf(cj_bf_d2f(d), 0)) {}\n"
    "    template <typename T> __device__ cj_bf16(T v) : bits(cj_bf_from(v)) {}\n"
    "    __device__ operator float() const { return __int_as_float((int)((unsigned)bits << 16)); }\n"
    "};\n";

/* cuda.bf16's functions (cuda_bf16.h's names, Numba's cuda.bf16): on
 * cj_bf16, computed in float32 (double for fma, rounded to odd, so that each
 * result is rounded once); conversions to integers saturate, NaN gives 0 */
static const char bf16_ops[] =
    "CJ_DEVICE cj_bf16 cj_bf_bits(unsigned short b) { cj_bf16 h; h.bits = b; return h; }\n"
    "#define CJ_BF1(name, e) CJ_DEVICE cj_bf16 name(cj_bf16 a) { float x = (float)a; return cj_bf16(e); }\n"
    "#define CJ_BF2(name, e) CJ_DEVICE cj_bf16 name(cj_bf16 a, cj_bf16 b) "
    "{ float x = (float)a, y = (float)b; return cj_bf16(e); }\n"
    "#define CJ_BFCMP(name, e) CJ_DEVICE bool name(cj_bf16 a, cj_bf16 b) "
    "{ float x = (float)a, y = (float)b; return e; }\n"
    "CJ_DEVICE float cj_bf_sat(float x) { return x != x ? 0.0f : fminf(fmaxf(x, 0.0f), 1.0f); }\n"
    "CJ_DEVICE cj_bf16 cj_bf_nan() { return cj_bf_bits(0x7fff); }\n"
    "/* a * b + c in double, rounded to odd (TwoSum's error decides the side) */\n"
    "CJ_DEVICE double cj_bf_fma_odd(cj_bf16 a, cj_bf16 b, cj_bf16 c)\n"
    "{\n"
    "    double p = (double)(float)a * (double)(float)b, z = (double)(float)c;\n"
    "    double s = p + z, v = s - p, e = (p - (s - v)) + (z - v);\n"
    "    if (e != 0.0 && (__double_as_longlong(s) & 1) == 0) {\n"
    "        s = nextafter(s, e > 0.0 ? (double)CJ_BF_INF : -(double)CJ_BF_INF);\n"
    "    }\n"
    "    return s;\n"
    "}\n"
    "/* add, sub and mul: the bf16 instructions from sm_90 on (as Numba), else\n"
    " * float32's, which round each result of two bfloat16 once too; .rn is\n"
    " * written out, since ptxas may fuse a mul and an add that lack it */\n"
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
    "#define CJ_BFOP(name, ins, e) CJ_DEVICE cj_bf16 name(cj_bf16 a, cj_bf16 b) { unsigned short r; "
    "asm(ins \" %0, %1, %2;\" : \"=h\"(r) : \"h\"(a.bits), \"h\"(b.bits)); return cj_bf_bits(r); }\n"
    "#else\n"
    "#define CJ_BFOP(name, ins, e) CJ_BF2(name, e)\n"
    "#endif\n"
    "CJ_BFOP(cj_bf_hadd, \"add.rn.bf16\", x + y) CJ_BFOP(cj_bf_hsub, \"sub.rn.bf16\", x - y)\n"
    "CJ_BFOP(cj_bf_hmul, \"mul.rn.bf16\", x * y)\n"
    "CJ_BF2(cj_bf_hdiv, x / y)\n"
    "CJ_BF2(cj_bf_hadd_sat, cj_bf_sat(x + y)) CJ_BF2(cj_bf_hsub_sat, cj_bf_sat(x - y))\n"
    "CJ_BF2(cj_bf_hmul_sat, cj_bf_sat(x * y))\n"
    "CJ_DEVICE cj_bf16 cj_bf_hfma(cj_bf16 a, cj_bf16 b, cj_bf16 c)\n"
    "{\n"
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
    "    unsigned short r;\n"
    "    asm(\"fma.rn.bf16 %0, %1, %2, %3;\" : \"=h\"(r) : \"h\"(a.bits), \"h\"(b.bits), \"h\"(c.bits));\n"
    "    return cj_bf_bits(r);\n"
    "#else\n"
    "    return cj_bf16(cj_bf_fma_odd(a, b, c));\n"
    "#endif\n"
    "}\n"
    "CJ_DEVICE cj_bf16 cj_bf_hfma_sat(cj_bf16 a, cj_bf16 b, cj_bf16 c)\n"
    "{\n"
    "    double r = cj_bf_fma_odd(a, b, c);\n"
    "    return cj_bf16(r != r ? 0.0 : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r);\n"
    "}\n"
    "CJ_DEVICE cj_bf16 cj_bf_hfma_relu(cj_bf16 a, cj_bf16 b, cj_bf16 c)\n"
    "{\n"
    "    double r = cj_bf_fma_odd(a, b, c);\n"
    "    return r != r ? cj_bf_nan() : cj_bf16(r < 0.0 ? 0.0 : r);\n"
    "}\n"
    "CJ_DEVICE cj_bf16 cj_bf_hneg(cj_bf16 a) { return cj_bf_bits((unsigned short)(a.bits ^ 0x8000u)); }\n"
    "CJ_DEVICE cj_bf16 cj_bf_habs(cj_bf16 a) { return cj_bf_bits((unsigned short)(a.bits & 0x7fffu)); }\n"
    "CJ_BFCMP(cj_bf_heq, x == y) CJ_BFCMP(cj_bf_hne, x < y || x > y) CJ_BFCMP(cj_bf_hlt, x < y)\n"
    "CJ_BFCMP(cj_bf_hle, x <= y) CJ_BFCMP(cj_bf_hgt, x > y) CJ_BFCMP(cj_bf_hge, x >= y)\n"
    "CJ_BFCMP(cj_bf_hequ, !(x < y || x > y)) CJ_BFCMP(cj_bf_hneu, x != y)\n"
    "CJ_BFCMP(cj_bf_hltu, !(x >= y)) CJ_BFCMP(cj_bf_hleu, !(x > y))\n"
    "CJ_BFCMP(cj_bf_hgtu, !(x <= y)) CJ_BFCMP(cj_bf_hgeu, !(x < y))\n"
    "/* a NaN loses to a number (hmax, hmin) or wins (hmax_nan, hmin_nan) */\n"
    "CJ_BF2(cj_bf_hmax, fmaxf(x, y)) CJ_BF2(cj_bf_hmin, fminf(x, y))\n"
    "CJ_DEVICE cj_bf16 cj_bf_hmax_nan(cj_bf16 a, cj_bf16 b)\n"
    "{\n"
    "    return (float)a != (float)a || (float)b != (float)b ? cj_bf_nan() : cj_bf16(fmaxf(a, b));\n"
    "}\n"
    "CJ_DEVICE cj_bf16 cj_bf_hmin_nan(cj_bf16 a, cj_bf16 b)\n"
    "{\n"
    "    return (float)a != (float)a || (float)b != (float)b ? cj_bf_nan() : cj_bf16(fminf(a, b));\n"
    "}\n"
    "CJ_DEVICE bool cj_bf_hisnan(cj_bf16 a) { return (a.bits & 0x7fffu) > 0x7f80u; }\n"
    "CJ_DEVICE int cj_bf_hisinf(cj_bf16 a) { return (a.bits & 0x7fffu) != 0x7f80u ? 0 : (a.bits >> 15) ? -1 : 1; }\n"
    "CJ_DEVICE float cj_bf_to_float(cj_bf16 a) { return (float)a; }\n"
    "CJ_DEVICE cj_bf16 cj_bf_of_float(float f) { return cj_bf16(f); }\n"
    "CJ_DEVICE cj_bf16 cj_bf_of_double(double d) { return cj_bf16(d); }\n"
    "#define CJ_BF_MODES(X) X(rn, 0, rintf) X(rz, 1, truncf) X(rd, 2, floorf) X(ru, 3, ceilf)\n"
    "#define CJ_BF_OF_FLOAT(m, k, r) CJ_DEVICE cj_bf16 cj_bf_of_float_##m(float f) "
    "{ return cj_bf_bits(cj_f2bf(f, k)); }\n"
    "CJ_BF_MODES(CJ_BF_OF_FLOAT)\n"
    "/* to an integer type T within [lo, hi], rounded by r */\n"
    "#define CJ_BF2INT(name, T, lo, hi, r) CJ_DEVICE T name(cj_bf16 a) { float x = r((float)a); "
    "return x != x ? (T)0 : x <= (float)(lo) ? (T)(lo) : x >= (float)(hi) ? (T)(hi) : (T)x; }\n"
    "#define CJ_BF_TO_INTS(m, k, r) \\\n"
    "    CJ_BF2INT(cj_bf_to_i16_##m, short, -32768, 32767, r) \\\n"
    "    CJ_BF2INT(cj_bf_to_u16_##m, unsigned short, 0, 65535, r) \\\n"
    "    CJ_BF2INT(cj_bf_to_i32_##m, int, -2147483647 - 1, 2147483647, r) \\\n"
    "    CJ_BF2INT(cj_bf_to_u32_##m, unsigned, 0, 4294967295u, r) \\\n"
    "    CJ_BF2INT(cj_bf_to_i64_##m, long long, -9223372036854775807ll - 1, 9223372036854775807ll, r) \\\n"
    "    CJ_BF2INT(cj_bf_to_u64_##m, unsigned long long, 0, 18446744073709551615ull, r) \\\n"
    "    CJ_DEVICE cj_bf16 cj_bf_of_ll_##m(long long v) { return cj_bf_bits(cj_bf_ll(v, k)); } \\\n"
    "    CJ_DEVICE cj_bf16 cj_bf_of_ull_##m(unsigned long long v) { return cj_bf_bits(cj_bf_ull(v, k)); }\n"
    "CJ_BF_MODES(CJ_BF_TO_INTS)\n"
    "CJ_BF2INT(cj_bf_to_i8_rz, signed char, -128, 127, truncf)\n"
    "CJ_BF2INT(cj_bf_to_u8_rz, unsigned char, 0, 255, truncf)\n"
    "CJ_DEVICE short cj_bf_as_short(cj_bf16 a) { return (short)a.bits; }\n"
    "CJ_DEVICE unsigned short cj_bf_as_ushort(cj_bf16 a) { return a.bits; }\n"
    "CJ_DEVICE cj_bf16 cj_bf_short_as(short v) { return cj_bf_bits((unsigned short)v); }\n"
    "CJ_DEVICE cj_bf16 cj_bf_ushort_as(unsigned short v) { return cj_bf_bits(v); }\n"
    "CJ_BF1(cj_bf_htrunc, truncf(x)) CJ_BF1(cj_bf_hceil, ceilf(x)) CJ_BF1(cj_bf_hfloor, floorf(x))\n"
    "CJ_BF1(cj_bf_hrint, rintf(x)) CJ_BF1(cj_bf_hsqrt, sqrtf(x)) CJ_BF1(cj_bf_hrsqrt, rsqrtf(x))\n"
    "CJ_BF1(cj_bf_hrcp, 1.0f / x) CJ_BF1(cj_bf_hlog, logf(x)) CJ_BF1(cj_bf_hlog2, log2f(x))\n"
    "CJ_BF1(cj_bf_hlog10, log10f(x)) CJ_BF1(cj_bf_hcos, cosf(x)) CJ_BF1(cj_bf_hsin, sinf(x))\n"
    "CJ_BF1(cj_bf_htanh, tanhf(x)) CJ_BF1(cj_bf_hexp, expf(x)) CJ_BF1(cj_bf_hexp2, exp2f(x))\n"
    "CJ_BF1(cj_bf_hexp10, exp10f(x))\n";

/* cuda.fp16's functions, and float16 +, -, * and comparisons: the f16
 * instructions where PTX has them (the same results as float32 rounded back:
 * float32 holds every sum and product of two float16 exactly enough), the
 * rest computed in float32 and rounded, as cuda_fp16.h does */
static const char f16_ops[] =
    "CJ_DEVICE cj_half cj_hbits(unsigned short b) { cj_half h; h.bits = b; return h; }\n"
    "#define CJ_H2(name, ins) CJ_DEVICE cj_half name(cj_half a, cj_half b) { unsigned short r; "
    "asm(ins \" %0, %1, %2;\" : \"=h\"(r) : \"h\"(a.bits), \"h\"(b.bits)); return cj_hbits(r); }\n"
    "#define CJ_H1(name, ins) CJ_DEVICE cj_half name(cj_half a) { unsigned short r; "
    "asm(ins \" %0, %1;\" : \"=h\"(r) : \"h\"(a.bits)); return cj_hbits(r); }\n"
    "#define CJ_HCMP(name, cmp) CJ_DEVICE bool name(cj_half a, cj_half b) { unsigned short r; "
    "asm(\"{ .reg .pred p; setp.\" cmp \".f16 p, %1, %2; selp.u16 %0, 1, 0, p; }\" : \"=h\"(r) "
    ": \"h\"(a.bits), \"h\"(b.bits)); return r != 0; }\n"
    "#define CJ_HF(name, expr) CJ_DEVICE cj_half name(cj_half h) { float x = (float)h; return cj_half(expr); }\n"
    "CJ_H2(cj_hadd, \"add.f16\") CJ_H2(cj_hsub, \"sub.f16\") CJ_H2(cj_hmul, \"mul.f16\")\n"
    "CJ_H1(cj_hneg, \"neg.f16\") CJ_H1(cj_habs, \"abs.f16\")\n"
    "CJ_HCMP(cj_heq, \"eq\") CJ_HCMP(cj_hne, \"neu\") CJ_HCMP(cj_hlt, \"lt\")\n"
    "CJ_HCMP(cj_hle, \"le\") CJ_HCMP(cj_hgt, \"gt\") CJ_HCMP(cj_hge, \"ge\")\n"
    "CJ_DEVICE cj_half cj_hfma(cj_half a, cj_half b, cj_half c)\n"
    "{\n"
    "    unsigned short r;\n"
    "    asm(\"fma.rn.f16 %0, %1, %2, %3;\" : \"=h\"(r) : \"h\"(a.bits), \"h\"(b.bits), \"h\"(c.bits));\n"
    "    return cj_hbits(r);\n"
    "}\n"
    "CJ_DEVICE cj_half cj_hdiv(cj_half a, cj_half b) { return cj_half((float)a / (float)b); }\n"
    "/* a NaN loses to a number, as __hmax / __hmin */\n"
    "CJ_DEVICE cj_half cj_hmax(cj_half a, cj_half b) { return cj_half(fmaxf((float)a, (float)b)); }\n"
    "CJ_DEVICE cj_half cj_hmin(cj_half a, cj_half b) { return cj_half(fminf((float)a, (float)b)); }\n"
    "CJ_HF(cj_hsqrt, sqrtf(x)) CJ_HF(cj_hrsqrt, rsqrtf(x)) CJ_HF(cj_hrcp, 1.0f / x)\n"
    "CJ_HF(cj_hexp, expf(x)) CJ_HF(cj_hexp2, exp2f(x)) CJ_HF(cj_hexp10, exp10f(x))\n"
    "CJ_HF(cj_hlog, logf(x)) CJ_HF(cj_hlog2, log2f(x)) CJ_HF(cj_hlog10, log10f(x))\n"
    "CJ_HF(cj_hsin, sinf(x)) CJ_HF(cj_hcos, cosf(x)) CJ_HF(cj_hceil, ceilf(x))\n"
    "CJ_HF(cj_hfloor, floorf(x)) CJ_HF(cj_hrint, rintf(x)) CJ_HF(cj_htrunc, truncf(x))\n";

/* math.degrees / math.radians, and round(x, ndigits) for ndigits known only
 * when the kernel runs: CPython's fallback algorithm (Numba's), in double;
 * cuda.selp, a call that evaluates both values (a PTX selp, no branch) */
static const char math_extra[] =
    "template <typename T> CJ_DEVICE T cj_selp(bool p, T a, T b) { return p ? a : b; }\n"
    "template <typename T> CJ_DEVICE T cj_degrees(T x) { return x * (T)57.29577951308232; }\n"
    "template <typename T> CJ_DEVICE T cj_radians(T x) { return x * (T)0.017453292519943295; }\n"
    "CJ_DEVICE double cj_round_nd(double x, long long nd)\n"
    "{\n"
    "    if (isinf(x) || isnan(x)) {\n"
    "        return x;\n"
    "    }\n"
    "    if (nd < -308) {\n"
    "        return 0.0 * x;     /* 10**-nd is no double: CPython's signed zero */\n"
    "    }\n"
    "    double p1, p2 = 1.0, y;\n"
    "    if (nd >= 0) {\n"
    "        p1 = nd > 22 ? pow(10.0, (double)(nd - 22)) : pow(10.0, (double)nd);\n"
    "        p2 = nd > 22 ? 1e22 : 1.0;\n"
    "        y = (x * p1) * p2;\n"
    "        if (isinf(y)) {\n"
    "            return x;\n"
    "        }\n"
    "    } else {\n"
    "        p1 = pow(10.0, (double)-nd);\n"
    "        y = x / p1;\n"
    "    }\n"
    "    double z = round(y);\n"
    "    if (fabs(y - z) == 0.5) {\n"
    "        z = 2.0 * round(y / 2.0);    /* half way: to even */\n"
    "    }\n"
    "    return nd >= 0 ? (z / p2) / p1 : z * p1;\n"
    "}\n";

/* max(a, b) / min(a, b) of floats, Python's result (a NaN first argument
 * wins, a NaN second one loses) through fmax / fmin, the max.f32 / min.f64
 * instructions Numba emits */
static const char fminmax[] =
    "CJ_DEVICE float cj_fmax(float a, float b) { return a != a ? a : fmaxf(a, b); }\n"
    "CJ_DEVICE double cj_fmax(double a, double b) { return a != a ? a : fmax(a, b); }\n"
    "CJ_DEVICE float cj_fmin(float a, float b) { return a != a ? a : fminf(a, b); }\n"
    "CJ_DEVICE double cj_fmin(double a, double b) { return a != a ? a : fmin(a, b); }\n";

static const char complex_part[] =
    "/* complex64 / complex128 with NumPy's layout */\n"
    "template <typename T> struct alignas(2 * sizeof(T)) cj_complex {\n"
    "    T re, im;\n"
    "    cj_complex() = default;\n"
    "    __device__ constexpr cj_complex(T r, T i = T(0)) : re(r), im(i) {}\n"
    "    template <typename U> __device__ explicit cj_complex(cj_complex<U> z) : re(T(z.re)), im(T(z.im)) {}\n"
    "};\n"
    "typedef cj_complex<float> cj_complex64;\n"
    "typedef cj_complex<double> cj_complex128;\n"
    "template <typename T> CJ_DEVICE cj_complex<T> operator+(cj_complex<T> a, cj_complex<T> b) { return {a.re + b.re, a.im + b.im}; }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> operator-(cj_complex<T> a, cj_complex<T> b) { return {a.re - b.re, a.im - b.im}; }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> operator-(cj_complex<T> a) { return {-a.re, -a.im}; }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> operator+(cj_complex<T> a) { return a; }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> operator*(cj_complex<T> a, cj_complex<T> b)\n"
    "{\n"
    "    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};\n"
    "}\n"
    "/* Smith's algorithm, as NumPy */\n"
    "template <typename T> CJ_DEVICE cj_complex<T> operator/(cj_complex<T> a, cj_complex<T> b)\n"
    "{\n"
    "    T ar = fabs(b.re), ai = fabs(b.im);\n"
    "    if (ar >= ai) {\n"
    "        if (ar == T(0) && ai == T(0)) {\n"
    "            return {a.re / ar, a.im / ai};\n"
    "        }\n"
    "        T r = b.im / b.re, d = b.re + b.im * r;\n"
    "        return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};\n"
    "    }\n"
    "    T r = b.re / b.im, d = b.re * r + b.im;\n"
    "    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};\n"
    "}\n"
    "template <typename T> CJ_DEVICE bool operator==(cj_complex<T> a, cj_complex<T> b) { return a.re == b.re && a.im == b.im; }\n"
    "template <typename T> CJ_DEVICE bool operator!=(cj_complex<T> a, cj_complex<T> b) { return !(a == b); }\n"
    "template <typename T> CJ_DEVICE T cj_cabs(cj_complex<T> a) { return hypot(a.re, a.im); }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_conj(cj_complex<T> a) { return {a.re, -a.im}; }\n"
    "template <typename T> CJ_DEVICE bool cj_truth(cj_complex<T> a) { return a.re != T(0) || a.im != T(0); }\n"
    "/* a ** b as NumPy's: 1 for b == 0; 0 ** b is 0 when b's real part is\n"
    " * positive, else nan; a real integer b with |b| < 100 by repeated\n"
    " * squaring; otherwise\n"
    " * exp(b log a) */\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_cpow(cj_complex<T> a, cj_complex<T> b)\n"
    "{\n"
    "    if (b.re == T(0) && b.im == T(0)) {\n"
    "        return {T(1), T(0)};\n"
    "    }\n"
    "    if (a.re == T(0) && a.im == T(0)) {\n"
    "        if (b.re > T(0)) {\n"
    "            return {T(0), T(0)};\n"
    "        }\n"
    "        return {T(0) / T(0), T(0) / T(0)};\n"
    "    }\n"
    "    if (b.im == T(0) && b.re == trunc(b.re) && fabs(b.re) < T(100)) {\n"
    "        int n = (int)b.re, m = n < 0 ? -n : n;\n"
    "        cj_complex<T> r = {T(1), T(0)}, sq = a;\n"
    "        for (; m; m >>= 1) {\n"
    "            if (m & 1) {\n"
    "                r = r * sq;\n"
    "            }\n"
    "            sq = sq * sq;\n"
    "        }\n"
    "        return n < 0 ? cj_complex<T>(T(1)) / r : r;\n"
    "    }\n"
    "    T lr = log(hypot(a.re, a.im)), li = atan2(a.im, a.re);\n"
    "    T x = b.re * lr - b.im * li, y = b.re * li + b.im * lr, m = exp(x);\n"
    "    return {m * cos(y), m * sin(y)};\n"
    "}\n";

static const char intdiv[] =
    "/* Python's floor division and modulo (NumPy: x // 0 == 0, x % 0 == 0 for ints) */\n"
    "template <typename T> CJ_DEVICE T cj_floordiv(T a, T b)\n"
    "{\n"
    "    if (b == 0) {\n"
    "        return 0;\n"
    "    }\n"
    "    T q = a / b;\n"
    "    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_mod(T a, T b)\n"
    "{\n"
    "    if (b == 0) {\n"
    "        return 0;\n"
    "    }\n"
    "    T r = a % b;\n"
    "    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
    "}\n";

static const char floatdiv[] =
    "/* Python's floor division and modulo of floats (NumPy's npy_divmod) */\n"
    "template <typename T> CJ_DEVICE T cj_floordivf(T a, T b)\n"
    "{\n"
    "    if (b == T(0)) {\n"
    "        return a / b;\n"
    "    }\n"
    "    T m = fmod(a, b), d = (a - m) / b;\n"
    "    if (m != T(0) && ((b < T(0)) != (m < T(0)))) {\n"
    "        d -= T(1);\n"
    "    }\n"
    "    if (d == T(0)) {\n"
    "        return copysign(T(0), a / b);\n"
    "    }\n"
    "    T f = floor(d);\n"
    "    return d - f > T(0.5) ? f + T(1) : f;\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_modf(T a, T b)\n"
    "{\n"
    "    if (b == T(0)) {\n"
    "        return fmod(a, b);\n"
    "    }\n"
    "    T m = fmod(a, b);\n"
    "    if (m != T(0)) {\n"
    "        return ((b < T(0)) != (m < T(0))) ? m + b : m;\n"
    "    }\n"
    "    return copysign(T(0), b);\n"
    "}\n";

static const char ipow[] =
    "/* integer power: exponent < 0 gives 0 except for bases 1 and -1 */\n"
    "template <typename T> CJ_DEVICE T cj_ipow(T a, T b)\n"
    "{\n"
    "    if (b < 0) {\n"
    "        return a == 1 ? T(1) : (a == T(-1) ? ((b & 1) ? T(-1) : T(1)) : T(0));\n"
    "    }\n"
    "    T r = 1;\n"
    "    while (b) {\n"
    "        if (b & 1) {\n"
    "            r *= a;\n"
    "        }\n"
    "        a *= a;\n"
    "        b >>= 1;\n"
    "    }\n"
    "    return r;\n"
    "}\n";

/* Numba's Optional(T): a value, or None (ok false); cj_opt_get uses its value
 * where a T is needed, raising TypeError on None as Numba's cast does */
static const char optional[] =
    "template <typename T> struct cj_opt {\n"
    "    T v;\n"
    "    bool ok;\n"
    "    __device__ cj_opt() : v(), ok(false) {}\n"
    "    __device__ cj_opt(const T &x) : v(x), ok(true) {}\n"
    "    template <typename U> __device__ cj_opt(const cj_opt<U> &o)\n"
    "        : v(o.ok ? (T)o.v : T()), ok(o.ok) {}\n"
    "};\n";

static const char optional_get[] =
    "template <typename T> CJ_DEVICE T cj_opt_get(const cj_opt<T> &o, int line, int msg)\n"
    "{\n"
    "    if (!o.ok) {\n"
    "        cj_record(3, line, msg, 0, 0, 0);\n"
    "        asm volatile(\"exit;\");\n"
    "    }\n"
    "    return o.v;\n"
    "}\n";

static const char errrec[] =
    "/* the first failed assert or bounds check of a launch (read by the runtime) */\n"
    "struct CjErrorRecord {\n"
    "    int flag, kind, line, msg_id;\n"
    "    unsigned block[3], thread[3];\n"
    "    long long index, extent;\n"
    "    int dim, pad;\n"
    "};\n"
    "extern \"C\" {\n"
    "__device__ CjErrorRecord cj_error;\n"
    "}\n"
    "CJ_DEVICE void cj_record(int kind, int line, int msg, long long index, long long extent, int dim)\n"
    "{\n"
    "    if (atomicCAS(&cj_error.flag, 0, 1) == 0) {\n"
    "        cj_error.kind = kind;\n"
    "        cj_error.line = line;\n"
    "        cj_error.msg_id = msg;\n"
    "        cj_error.block[0] = blockIdx.x;\n"
    "        cj_error.block[1] = blockIdx.y;\n"
    "        cj_error.block[2] = blockIdx.z;\n"
    "        cj_error.thread[0] = threadIdx.x;\n"
    "        cj_error.thread[1] = threadIdx.y;\n"
    "        cj_error.thread[2] = threadIdx.z;\n"
    "        cj_error.index = index;\n"
    "        cj_error.extent = extent;\n"
    "        cj_error.dim = dim;\n"
    "        __threadfence();\n"
    "    }\n"
    "}\n";

static const char bounds[] =
    "/* boundscheck=True: an index outside [-n, n) is recorded and replaced by 0 */\n"
    "template <typename I, typename J> CJ_DEVICE I cj_bc(J i, I n, int line, int dim)\n"
    "{\n"
    "    if (i < 0 || (long long)i >= (long long)n) {\n"
    "        cj_record(2, line, -1, (long long)i, (long long)n, dim);\n"
    "        return 0;\n"
    "    }\n"
    "    return (I)i;\n"
    "}\n";

/* cuda.jit kernels (Numba): a signed index that may be negative counts
 * from the end, evaluated once (codegen/nonneg.c spares the rest) */
static const char wrap[] =
    "template <typename I, typename N> CJ_DEVICE I cj_wrap(I i, N n)\n"
    "{\n"
    "    return i < 0 ? (I)(i + (I)n) : i;\n"
    "}\n";

static const char atomic_common[] =
    "/* atomics for every dtype cujit allows; the old value is returned */\n"
    "#define CJ_AT_NATIVE(name, fn, T) CJ_DEVICE T name(T *p, T v) { return fn(p, v); }\n"
    "#define CJ_AT_VIA(name, fn, T, U) CJ_DEVICE T name(T *p, T v) { return (T)fn((U *)p, (U)v); }\n";

static const char atomic_fminmax[] =
    "#define CJ_AT_FMINMAX(name, T, U, tobits, frombits, better) \\\n"
    "    CJ_DEVICE T name(T *p, T v) \\\n"
    "    { \\\n"
    "        U *q = (U *)p; \\\n"
    "        U old = *q, assumed; \\\n"
    "        do { \\\n"
    "            assumed = old; \\\n"
    "            T cur = frombits(assumed); \\\n"
    "            if (!(better) ) { break; } \\\n"
    "            old = atomicCAS(q, assumed, (U)tobits(v)); \\\n"
    "        } while (old != assumed); \\\n"
    "        return frombits(old); \\\n"
    "    }\n";

static const char atomic_bits[] =
    "#define CJ_AT_BITS(name, fn) \\\n"
    "    CJ_AT_NATIVE(name, fn, int) CJ_AT_NATIVE(name, fn, unsigned int) \\\n"
    "    CJ_AT_NATIVE(name, fn, unsigned long long) CJ_AT_VIA(name, fn, long long, unsigned long long)\n";

/* by op - BI_ATOMIC_ADD */
static const char *const atomic_ops[] = {
    /* add */
    "CJ_AT_NATIVE(cj_atomic_add, atomicAdd, int)\n"
    "CJ_AT_NATIVE(cj_atomic_add, atomicAdd, unsigned int)\n"
    "CJ_AT_NATIVE(cj_atomic_add, atomicAdd, unsigned long long)\n"
    "CJ_AT_VIA(cj_atomic_add, atomicAdd, long long, unsigned long long)\n"
    "CJ_AT_NATIVE(cj_atomic_add, atomicAdd, float)\n"
    "CJ_AT_NATIVE(cj_atomic_add, atomicAdd, double)\n",
    /* sub */
    "CJ_AT_NATIVE(cj_atomic_sub, atomicSub, int)\n"
    "CJ_AT_NATIVE(cj_atomic_sub, atomicSub, unsigned int)\n"
    "CJ_DEVICE unsigned long long cj_atomic_sub(unsigned long long *p, unsigned long long v) { return atomicAdd(p, 0ULL - v); }\n"
    "CJ_DEVICE long long cj_atomic_sub(long long *p, long long v) { return (long long)atomicAdd((unsigned long long *)p, 0ULL - (unsigned long long)v); }\n"
    "CJ_DEVICE float cj_atomic_sub(float *p, float v) { return atomicAdd(p, -v); }\n"
    "CJ_DEVICE double cj_atomic_sub(double *p, double v) { return atomicAdd(p, -v); }\n",
    /* max (Numba's: a NaN stored stays, a NaN given changes nothing; nanmax below\n     * takes a NaN for a missing value) */
    "CJ_AT_NATIVE(cj_atomic_max, atomicMax, int)\n"
    "CJ_AT_NATIVE(cj_atomic_max, atomicMax, unsigned int)\n"
    "CJ_AT_NATIVE(cj_atomic_max, atomicMax, long long)\n"
    "CJ_AT_NATIVE(cj_atomic_max, atomicMax, unsigned long long)\n"
    "CJ_AT_FMINMAX(cj_atomic_max, float, int, __float_as_int, __int_as_float, v > cur)\n"
    "CJ_AT_FMINMAX(cj_atomic_max, double, unsigned long long, __double_as_longlong, __longlong_as_double, v > cur)\n",
    /* min */
    "CJ_AT_NATIVE(cj_atomic_min, atomicMin, int)\n"
    "CJ_AT_NATIVE(cj_atomic_min, atomicMin, unsigned int)\n"
    "CJ_AT_NATIVE(cj_atomic_min, atomicMin, long long)\n"
    "CJ_AT_NATIVE(cj_atomic_min, atomicMin, unsigned long long)\n"
    "CJ_AT_FMINMAX(cj_atomic_min, float, int, __float_as_int, __int_as_float, v < cur)\n"
    "CJ_AT_FMINMAX(cj_atomic_min, double, unsigned long long, __double_as_longlong, __longlong_as_double, v < cur)\n",
    /* exch */
    "CJ_AT_NATIVE(cj_atomic_exch, atomicExch, int)\n"
    "CJ_AT_NATIVE(cj_atomic_exch, atomicExch, unsigned int)\n"
    "CJ_AT_NATIVE(cj_atomic_exch, atomicExch, unsigned long long)\n"
    "CJ_AT_VIA(cj_atomic_exch, atomicExch, long long, unsigned long long)\n"
    "CJ_AT_NATIVE(cj_atomic_exch, atomicExch, float)\n"
    "CJ_DEVICE double cj_atomic_exch(double *p, double v) { return __longlong_as_double((long long)atomicExch((unsigned long long *)p, (unsigned long long)__double_as_longlong(v))); }\n",
    /* and */
    "CJ_AT_BITS(cj_atomic_and, atomicAnd)\n",
    /* or */
    "CJ_AT_BITS(cj_atomic_or, atomicOr)\n",
    /* xor */
    "CJ_AT_BITS(cj_atomic_xor, atomicXor)\n",
    /* inc */
    "CJ_AT_NATIVE(cj_atomic_inc, atomicInc, unsigned int)\n"
    "CJ_DEVICE unsigned long long cj_atomic_inc(unsigned long long *p, unsigned long long v)\n"
    "{\n"
    "    unsigned long long old = *p, assumed;\n"
    "    do {\n"
    "        assumed = old;\n"
    "        old = atomicCAS(p, assumed, assumed >= v ? 0ULL : assumed + 1);\n"
    "    } while (old != assumed);\n"
    "    return old;\n"
    "}\n",
    /* dec */
    "CJ_AT_NATIVE(cj_atomic_dec, atomicDec, unsigned int)\n"
    "CJ_DEVICE unsigned long long cj_atomic_dec(unsigned long long *p, unsigned long long v)\n"
    "{\n"
    "    unsigned long long old = *p, assumed;\n"
    "    do {\n"
    "        assumed = old;\n"
    "        old = atomicCAS(p, assumed, (assumed == 0 || assumed > v) ? v : assumed - 1);\n"
    "    } while (old != assumed);\n"
    "    return old;\n"
    "}\n",
    /* cas */
    "CJ_DEVICE int cj_atomic_cas(int *p, int c, int v) { return atomicCAS(p, c, v); }\n"
    "CJ_DEVICE unsigned int cj_atomic_cas(unsigned int *p, unsigned int c, unsigned int v) { return atomicCAS(p, c, v); }\n"
    "CJ_DEVICE unsigned long long cj_atomic_cas(unsigned long long *p, unsigned long long c, unsigned long long v) { return atomicCAS(p, c, v); }\n"
    "CJ_DEVICE long long cj_atomic_cas(long long *p, long long c, long long v) { return (long long)atomicCAS((unsigned long long *)p, (unsigned long long)c, (unsigned long long)v); }\n"
    "CJ_DEVICE float cj_atomic_cas(float *p, float c, float v) { return __int_as_float(atomicCAS((int *)p, __float_as_int(c), __float_as_int(v))); }\n"
    "CJ_DEVICE double cj_atomic_cas(double *p, double c, double v) { return __longlong_as_double((long long)atomicCAS((unsigned long long *)p, (unsigned long long)__double_as_longlong(c), (unsigned long long)__double_as_longlong(v))); }\n",
    /* nanmax (Numba's: a NaN, stored or given, is a missing value; integers use max) */
    "CJ_AT_FMINMAX(cj_atomic_nanmax, float, int, __float_as_int, __int_as_float, v > cur || cur != cur)\n"
    "CJ_AT_FMINMAX(cj_atomic_nanmax, double, unsigned long long, __double_as_longlong, __longlong_as_double, v > cur || cur != cur)\n",
    /* nanmin */
    "CJ_AT_FMINMAX(cj_atomic_nanmin, float, int, __float_as_int, __int_as_float, v < cur || cur != cur)\n"
    "CJ_AT_FMINMAX(cj_atomic_nanmin, double, unsigned long long, __double_as_longlong, __longlong_as_double, v < cur || cur != cur)\n",
};
/* 16-bit atomics (sm_70 on): CUDA has a 16-bit compare-and-swap and a
 * float16 add; the rest loop on the compare-and-swap */
static const char atomic16_common[] =
    "CJ_DEVICE unsigned short cj_cas16(unsigned short *p, unsigned short c, unsigned short v)\n"
    "{\n"
    "    unsigned short old;\n"
    "    asm volatile(\"atom.cas.b16 %0, [%1], %2, %3;\" : \"=h\"(old) : \"l\"(p), \"h\"(c), \"h\"(v) : \"memory\");\n"
    "    return old;\n"
    "}\n"
    "#define CJ_AT16(name, T, tobits, frombits, update) \\\n"
    "    CJ_DEVICE T name(T *p, T v) \\\n"
    "    { \\\n"
    "        unsigned short *q = (unsigned short *)p, old = *q, assumed; \\\n"
    "        do { \\\n"
    "            assumed = old; \\\n"
    "            T cur = frombits(assumed); \\\n"
    "            old = cj_cas16(q, assumed, tobits((T)(update))); \\\n"
    "        } while (old != assumed); \\\n"
    "        return frombits(old); \\\n"
    "    }\n"
    "#define CJ_AT16_INTS(name, update) \\\n"
    "    CJ_AT16(name, short, (unsigned short), (short), update) \\\n"
    "    CJ_AT16(name, unsigned short, (unsigned short), (unsigned short), update)\n";

static const char atomic16_half[] =
    "CJ_DEVICE unsigned short cj_h2b(cj_half h) { return h.bits; }\n"
    "CJ_DEVICE cj_half cj_b2h(unsigned short b) { cj_half h; h.bits = b; return h; }\n"
    "CJ_DEVICE cj_half cj_atomic_addh(cj_half *p, unsigned short v)\n"
    "{\n"
    "    unsigned short old;\n"
    "    asm volatile(\"atom.add.noftz.f16 %0, [%1], %2;\" : \"=h\"(old) : \"l\"(p), \"h\"(v) : \"memory\");\n"
    "    return cj_b2h(old);\n"
    "}\n";

/* bfloat16's atomics: a loop on the 16-bit compare-and-swap (sm_70 on;
 * sm_90's atom.add.noftz.bf16 would serve add alone) */
static const char atomic16_bf16[] =
    "CJ_DEVICE unsigned short cj_bf2b(cj_bf16 h) { return h.bits; }\n"
    "CJ_DEVICE cj_bf16 cj_b2bf(unsigned short b) { cj_bf16 h; h.bits = b; return h; }\n";

/* by op - BI_ATOMIC_ADD: bfloat16's */
static const char *const atomic16_bf16_ops[] = {
    "CJ_AT16(cj_atomic_add, cj_bf16, cj_bf2b, cj_b2bf, (float)cur + (float)v)\n",
    "CJ_AT16(cj_atomic_sub, cj_bf16, cj_bf2b, cj_b2bf, (float)cur - (float)v)\n",
    "CJ_AT16(cj_atomic_max, cj_bf16, cj_bf2b, cj_b2bf, (float)v > (float)cur ? v : cur)\n",
    "CJ_AT16(cj_atomic_min, cj_bf16, cj_bf2b, cj_b2bf, (float)v < (float)cur ? v : cur)\n",
    "CJ_AT16(cj_atomic_exch, cj_bf16, cj_bf2b, cj_b2bf, v)\n",
    "", "", "", "", "",
    "CJ_DEVICE cj_bf16 cj_atomic_cas(cj_bf16 *p, cj_bf16 c, cj_bf16 v) { return cj_b2bf(cj_cas16((unsigned short *)p, c.bits, v.bits)); }\n",
    "", "",
};

/* by op - BI_ATOMIC_ADD: int16 and uint16, then float16 */
static const char *const atomic16_ops[][2] = {
    {"CJ_AT16_INTS(cj_atomic_add, cur + v)\n",
     "CJ_DEVICE cj_half cj_atomic_add(cj_half *p, cj_half v) { return cj_atomic_addh(p, v.bits); }\n"},
    {"CJ_AT16_INTS(cj_atomic_sub, cur - v)\n",
     "CJ_DEVICE cj_half cj_atomic_sub(cj_half *p, cj_half v) { return cj_atomic_addh(p, v.bits ^ 0x8000); }\n"},
    {"CJ_AT16_INTS(cj_atomic_max, v > cur ? v : cur)\n",
     "CJ_AT16(cj_atomic_max, cj_half, cj_h2b, cj_b2h, v > cur ? v : cur)\n"},
    {"CJ_AT16_INTS(cj_atomic_min, v < cur ? v : cur)\n",
     "CJ_AT16(cj_atomic_min, cj_half, cj_h2b, cj_b2h, v < cur ? v : cur)\n"},
    {"CJ_AT16_INTS(cj_atomic_exch, v)\n",
     "CJ_AT16(cj_atomic_exch, cj_half, cj_h2b, cj_b2h, v)\n"},
    {"CJ_AT16_INTS(cj_atomic_and, cur & v)\n", ""},
    {"CJ_AT16_INTS(cj_atomic_or, cur | v)\n", ""},
    {"CJ_AT16_INTS(cj_atomic_xor, cur ^ v)\n", ""},
    {"", ""},
    {"", ""},
    {"CJ_DEVICE short cj_atomic_cas(short *p, short c, short v) { return (short)cj_cas16((unsigned short *)p, (unsigned short)c, (unsigned short)v); }\n"
     "CJ_DEVICE unsigned short cj_atomic_cas(unsigned short *p, unsigned short c, unsigned short v) { return cj_cas16(p, c, v); }\n",
     "CJ_DEVICE cj_half cj_atomic_cas(cj_half *p, cj_half c, cj_half v) { return cj_b2h(cj_cas16((unsigned short *)p, c.bits, v.bits)); }\n"},
    {"", ""},
    {"", ""},
};

/* Numba's cuda.ld<hint> / st<hint>: one PTX ld.global.<hint>.b<bits> or
 * st.global.<hint>.b<bits> of an element of global memory ("memory": plain
 * loads and stores are not moved across them) */
#define CJ_LD_SIZE(h, bits, reg, rt)                                                       \
    "    if (sizeof(T) == " #bits " / 8) {\n"                                             \
    "        " rt " v;\n"                                                                 \
    "        asm volatile(\"{ .reg .u64 g; cvta.to.global.u64 g, %1; ld.global." h ".b"   \
    #bits " %0, [g]; }\" : \"=" reg "\"(v) : \"l\"(p) : \"memory\");\n"                      \
    "        cj_bytes(&r, &v, sizeof(T));\n"                                              \
    "    }\n"
#define CJ_ST_SIZE(h, bits, reg, rt)                                                       \
    "    if (sizeof(T) == " #bits " / 8) {\n"                                             \
    "        " rt " v = 0;\n"                                                             \
    "        cj_bytes(&v, &x, sizeof(T));\n"                                              \
    "        asm volatile(\"{ .reg .u64 g; cvta.to.global.u64 g, %0; st.global." h ".b"   \
    #bits " [g], %1; }\" : : \"l\"(p), \"" reg "\"(v) : \"memory\");\n"                    \
    "    }\n"
#define CJ_LD_HINT(h)                                                                      \
    "template <typename T> CJ_DEVICE T cj_ld" h "(const T *p)\n{\n    T r;\n"              \
    CJ_LD_SIZE(h, 8, "h", "unsigned short") CJ_LD_SIZE(h, 16, "h", "unsigned short")      \
    CJ_LD_SIZE(h, 32, "r", "unsigned int") CJ_LD_SIZE(h, 64, "l", "unsigned long long")   \
    "    return r;\n}\n"
#define CJ_ST_HINT(h)                                                                      \
    "template <typename T> CJ_DEVICE void cj_st" h "(T *p, T x)\n{\n"                     \
    CJ_ST_SIZE(h, 8, "h", "unsigned short") CJ_ST_SIZE(h, 16, "h", "unsigned short")      \
    CJ_ST_SIZE(h, 32, "r", "unsigned int") CJ_ST_SIZE(h, 64, "l", "unsigned long long")   \
    "}\n"

static const char cache_hint[] =
    "CJ_DEVICE void cj_bytes(void *to, const void *from, int n)\n"
    "{\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        ((char *)to)[k] = ((const char *)from)[k];\n"
    "    }\n"
    "}\n"
    CJ_LD_HINT("ca") CJ_LD_HINT("cg") CJ_LD_HINT("cs") CJ_LD_HINT("lu") CJ_LD_HINT("cv")
    CJ_ST_HINT("cg") CJ_ST_HINT("cs") CJ_ST_HINT("wb") CJ_ST_HINT("wt");

static const char warp[] =
    "CJ_DEVICE int cj_laneid(void)\n"
    "{\n"
    "    int r;\n"
    "    asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n"
    "    return r;\n"
    "}\n";

static const char lanemask[] =
    "CJ_DEVICE unsigned cj_lanemask_lt(void)\n"
    "{\n"
    "    unsigned r;\n"
    "    asm(\"mov.u32 %0, %%lanemask_lt;\" : \"=r\"(r));\n"
    "    return r;\n"
    "}\n";

/* block and warp collectives, cujit's own shuffle code (CUB costs about a
 * second of NVRTC time a kernel: ARCHITECTURE.md).  Threads are ranked x
 * fastest, as the hardware makes warps of them; a block of any size up to
 * 1024 (a last warp not full); every thread of the block (or warp) calls;
 * every thread gets the result.  Values are combined in the order of CUB's
 * BLOCK_REDUCE_WARP_REDUCTIONS (BlockReduce's default) and BLOCK_SCAN_WARP_SCANS
 * (not BlockScan's default, raking), which float results may show; not
 * checked against CUB bit for bit.  Storage: one __shared__ array per function and
 * type, 33 (reduce) or 32 (scan) values, reused by later calls without a race
 * (their writes come after a barrier all readers passed). */
static const char collective[] =
    "struct cj_op_sum { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };\n"
    "template <typename T> CJ_DEVICE bool cj_coll_less(T a, T b) { return a < b; }\n"
    "struct cj_op_max { template <typename T> __device__ T operator()(T a, T b) const { return cj_coll_less(a, b) ? b : a; } };\n"
    "struct cj_op_min { template <typename T> __device__ T operator()(T a, T b) const { return cj_coll_less(b, a) ? b : a; } };\n"
    "/* a value of any type from another lane, 32 bits at a time: K 0 from lane d,\n"
    " * 1 from lane - d, 2 from lane + d */\n"
    "template <int K, typename T> CJ_DEVICE T cj_coll_shfl(unsigned mask, T v, int d)\n"
    "{\n"
    "    constexpr int W = (sizeof(T) + 3) / 4;\n"
    "    union {\n"
    "        T t;\n"
    "        unsigned u[W];\n"
    "    } x;\n"
    "    x.t = v;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < W; k++) {\n"
    "        x.u[k] = K == 0 ? __shfl_sync(mask, x.u[k], d)\n"
    "                 : K == 1 ? __shfl_up_sync(mask, x.u[k], d) : __shfl_down_sync(mask, x.u[k], d);\n"
    "    }\n"
    "    return x.t;\n"
    "}\n"
    "CJ_DEVICE int cj_coll_rank(void)\n"
    "{\n"
    "    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));\n"
    "}\n"
    "CJ_DEVICE int cj_coll_size(void) { return (int)(blockDim.x * blockDim.y * blockDim.z); }\n"
    "/* the lanes present in the warp of thread `rank` */\n"
    "CJ_DEVICE int cj_coll_lanes(int rank, int size)\n"
    "{\n"
    "    const int r = size - (rank & ~31);\n"
    "    return r < 32 ? r : 32;\n"
    "}\n"
    "CJ_DEVICE unsigned cj_coll_mask(int lanes) { return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u; }\n"
    "/* lanes [0, count) folded into lane 0, in lane order */\n"
    "template <typename T, typename F> CJ_DEVICE T cj_coll_fold(T v, F op, unsigned mask, int lane, int count)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int d = 1; d < 32; d <<= 1) {\n"
    "        const T o = cj_coll_shfl<2>(mask, v, d);\n"
    "        if (lane + d < count) {\n"
    "            v = op(v, o);\n"
    "        }\n"
    "    }\n"
    "    return v;\n"
    "}\n"
    "/* inclusive scan over the warp's lanes, in lane order */\n"
    "template <typename T, typename F> CJ_DEVICE T cj_coll_iscan(T v, F op, unsigned mask, int lane)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int d = 1; d < 32; d <<= 1) {\n"
    "        const T o = cj_coll_shfl<1>(mask, v, d);\n"
    "        if (lane >= d) {\n"
    "            v = op(o, v);\n"
    "        }\n"
    "    }\n"
    "    return v;\n"
    "}\n"
    "/* a lane's inclusive result after the prefix `pre` (if has_pre); exclusive:\n"
    " * the lane before's, and for the first lane the prefix or T() */\n"
    "template <typename T, typename F>\n"
    "CJ_DEVICE T cj_coll_finish(T inc, F op, unsigned mask, int lane, bool inclusive, bool has_pre, T pre)\n"
    "{\n"
    "    if (inclusive) {\n"
    "        return has_pre ? op(pre, inc) : inc;\n"
    "    }\n"
    "    const T ex = cj_coll_shfl<1>(mask, inc, 1);\n"
    "    if (lane == 0) {\n"
    "        return has_pre ? pre : T();\n"
    "    }\n"
    "    return has_pre ? op(pre, ex) : ex;\n"
    "}\n"
    "/* the values of the block's first `valid` threads combined: each warp by\n"
    " * shuffles, then the warps' results by thread 0 in order */\n"
    "template <typename T, typename F> static __device__ T cj_coll_block_reduce(T v, F op, long long valid)\n"
    "{\n"
    "    __shared__ __align__(16) unsigned char raw[33 * sizeof(T)];\n"
    "    T *part = (T *)raw;\n"
    "    const int rank = cj_coll_rank(), size = cj_coll_size();\n"
    "    const int n = valid < size ? (int)valid : size;\n"
    "    const int lane = rank & 31, lanes = cj_coll_lanes(rank, size), count = n - (rank & ~31);\n"
    "    v = cj_coll_fold(v, op, cj_coll_mask(lanes), lane, count < lanes ? count : lanes);\n"
    "    if (lane == 0 && count > 0) {\n"
    "        part[rank >> 5] = v;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (rank == 0) {\n"
    "        for (int w = 1; w < (n + 31) >> 5; w++) {\n"
    "            v = op(v, part[w]);\n"
    "        }\n"
    "        part[32] = v;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    return part[32];\n"
    "}\n"
    "/* the values of the warp's first `valid` lanes combined */\n"
    "template <typename T, typename F> static __device__ T cj_coll_warp_reduce(T v, F op, long long valid)\n"
    "{\n"
    "    const int rank = cj_coll_rank(), lanes = cj_coll_lanes(rank, cj_coll_size());\n"
    "    const unsigned mask = cj_coll_mask(lanes);\n"
    "    v = cj_coll_fold(v, op, mask, rank & 31, valid < lanes ? (int)valid : lanes);\n"
    "    return cj_coll_shfl<0>(mask, v, 0);\n"
    "}\n"
    "/* each warp scanned by shuffles; a warp's prefix, the earlier warps'\n"
    " * totals combined in order */\n"
    "template <typename T, typename F>\n"
    "static __device__ T cj_coll_block_scan(T v, F op, bool inclusive, bool has_init, T init)\n"
    "{\n"
    "    __shared__ __align__(16) unsigned char raw[32 * sizeof(T)];\n"
    "    T *tot = (T *)raw;\n"
    "    const int rank = cj_coll_rank(), size = cj_coll_size();\n"
    "    const int lane = rank & 31, warp = rank >> 5, lanes = cj_coll_lanes(rank, size);\n"
    "    const unsigned mask = cj_coll_mask(lanes);\n"
    "    const T inc = cj_coll_iscan(v, op, mask, lane);\n"
    "    if (lane == lanes - 1) {\n"
    "        tot[warp] = inc;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (warp > 0) {\n"
    "        T p = tot[0];\n"
    "        for (int w = 1; w < warp; w++) {\n"
    "            p = op(p, tot[w]);\n"
    "        }\n"
    "        init = has_init ? op(init, p) : p;\n"
    "        has_init = true;\n"
    "    }\n"
    "    __syncthreads();     /* a next call writes tot[] after every thread read it */\n"
    "    return cj_coll_finish(inc, op, mask, lane, inclusive, has_init, init);\n"
    "}\n"
    "template <typename T, typename F>\n"
    "static __device__ T cj_coll_warp_scan(T v, F op, bool inclusive, bool has_init, T init)\n"
    "{\n"
    "    const int rank = cj_coll_rank(), lanes = cj_coll_lanes(rank, cj_coll_size());\n"
    "    const unsigned mask = cj_coll_mask(lanes);\n"
    "    const int lane = rank & 31;\n"
    "    return cj_coll_finish(cj_coll_iscan(v, op, mask, lane), op, mask, lane, inclusive, has_init, init);\n"
    "}\n";

/* complex numbers ordered as NumPy orders them (max, min): real part, then imaginary */
static const char collective_complex[] =
    "template <typename T> CJ_DEVICE bool cj_coll_less(cj_complex<T> a, cj_complex<T> b)\n"
    "{\n"
    "    return a.re < b.re || (a.re == b.re && a.im < b.im);\n"
    "}\n";

static const char view[] =
    "/* cuda.carray / farray(p, shape): an array over a raw pointer, C or F order */\n"
    "template <typename T, int N, typename I>\n"
    "CJ_DEVICE cj_array<T, N, I> cj_carray(T *p, const I (&shape)[N], bool f)\n"
    "{\n"
    "    cj_array<T, N, I> a;\n"
    "    I s = (I)sizeof(T);\n"
    "    a.data = p;\n"
    "    for (int k = 0; k < N; k++) {\n"
    "        int d = f ? k : N - 1 - k;\n"
    "        a.shape[d] = shape[d];\n"
    "        a.strides[d] = s;\n"
    "        s *= shape[d];\n"
    "    }\n"
    "    return a;\n"
    "}\n"
    "/* views: a[i] drops dimension D, a[lo:hi:step] narrows it (Python's\n"
    " * clamping; an omitted bound is bit 1 (lo) or 2 (hi) of `given`) */\n"
    "template <int D, typename T, int N, typename I, typename J>\n"
    "CJ_DEVICE cj_array<T, N - 1, I> cj_vi(const cj_array<T, N, I> &a, J j)\n"
    "{\n"
    "    cj_array<T, N - 1, I> r;\n"
    "    I i = j < 0 ? (I)(j + a.shape[D]) : (I)j;\n"
    "    r.data = (T *)((char *)a.data + (long long)i * a.strides[D]);\n"
    "    for (int k = 0, m = 0; k < N; k++) {\n"
    "        if (k != D) {\n"
    "            r.shape[m] = a.shape[k];\n"
    "            r.strides[m++] = a.strides[k];\n"
    "        }\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "CJ_DEVICE long long cj_vclamp(long long v, long long n, long long lo, long long hi)\n"
    "{\n"
    "    v = v < 0 ? v + n : v;\n"
    "    return v < lo ? lo : (v > hi ? hi : v);\n"
    "}\n"
    "template <int D, typename T, int N, typename I>\n"
    "CJ_DEVICE cj_array<T, N, I> cj_vs(cj_array<T, N, I> a, long long lo, long long hi,\n"
    "                                  long long step, int given)\n"
    "{\n"
    "    long long n = a.shape[D], len;\n"
    "    if (step > 0) {\n"
    "        lo = given & 1 ? cj_vclamp(lo, n, 0, n) : 0;\n"
    "        hi = given & 2 ? cj_vclamp(hi, n, 0, n) : n;\n"
    "        len = hi > lo ? (hi - lo + step - 1) / step : 0;\n"
    "    } else if (step < 0) {\n"
    "        lo = given & 1 ? cj_vclamp(lo, n, -1, n - 1) : n - 1;\n"
    "        hi = given & 2 ? cj_vclamp(hi, n, -1, n - 1) : -1;\n"
    "        len = lo > hi ? (lo - hi - step - 1) / -step : 0;\n"
    "    } else {\n"
    "        len = 0;    /* a zero step: an empty view */\n"
    "    }\n"
    "    a.data = (T *)((char *)a.data + (len ? lo : 0) * (long long)a.strides[D]);\n"
    "    a.shape[D] = (I)len;\n"
    "    a.strides[D] = (I)(a.strides[D] * step);\n"
    "    return a;\n"
    "}\n";

static const char view_fill[] =
    "/* x[a:b] = v: every element of a view, in any layout */\n"
    "template <typename T, int N, typename I, typename V>\n"
    "CJ_DEVICE void cj_fill(const cj_array<T, N, I> &a, V v)\n"
    "{\n"
    "    long long n = 1;\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        n *= a.shape[d];\n"
    "    }\n"
    "    for (long long k = 0; k < n; k++) {\n"
    "        long long r = k, off = 0;\n"
    "        for (int d = N - 1; d >= 0; d--) {\n"
    "            off += r % a.shape[d] * (long long)a.strides[d];\n"
    "            r /= a.shape[d];\n"
    "        }\n"
    "        *(T *)((char *)a.data + off) = (T)v;\n"
    "    }\n"
    "}\n"
    "/* x[a:b] = y: y's elements into the view, y broadcast from its last\n"
    " * dimensions (a dimension of 1 repeats); an overlapping y is read as the\n"
    " * copy goes, in C order */\n"
    "template <typename T, int N, typename I, typename U, int M, typename J>\n"
    "CJ_DEVICE void cj_copyto(const cj_array<T, N, I> &a, const cj_array<U, M, J> &y)\n"
    "{\n"
    "    long long n = 1;\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        n *= a.shape[d];\n"
    "    }\n"
    "    for (long long k = 0; k < n; k++) {\n"
    "        long long r = k, off = 0, yoff = 0;\n"
    "        for (int d = N - 1; d >= 0; d--) {\n"
    "            long long i = r % a.shape[d];\n"
    "            off += i * (long long)a.strides[d];\n"
    "            if (d >= N - M && y.shape[d - (N - M)] != 1) {\n"
    "                yoff += i * (long long)y.strides[d - (N - M)];\n"
    "            }\n"
    "            r /= a.shape[d];\n"
    "        }\n"
    "        *(T *)((char *)a.data + off) = (T)*(const U *)((const char *)y.data + yoff);\n"
    "    }\n"
    "}\n"
    "/* x[a:b] = z of a 0-d z (which has no shape): its element everywhere */\n"
    "template <typename T, int N, typename I, typename U, typename J>\n"
    "CJ_DEVICE void cj_copyto(const cj_array<T, N, I> &a, const cj_array<U, 0, J> &y)\n"
    "{\n"
    "    cj_fill(a, (T)*y.data);\n"
    "}\n";

static const char view_bc[] =
    "/* boundscheck=True: a view's single index outside [-n, n) is recorded */\n"
    "template <int D, typename T, int N, typename I, typename J>\n"
    "CJ_DEVICE cj_array<T, N - 1, I> cj_vi_bc(const cj_array<T, N, I> &a, J j, int line)\n"
    "{\n"
    "    long long n = a.shape[D], k = (long long)j;\n"
    "    if (k < -n || k >= n) {\n"
    "        cj_record(2, line, -1, k, n, D);\n"
    "        k = 0;\n"
    "    }\n"
    "    return cj_vi<D>(a, k);\n"
    "}\n";

static const char dynshared_size[] =
    "CJ_DEVICE unsigned cj_dyn_smem_size()\n"
    "{\n"
    "    unsigned n;\n"
    "    asm(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(n));\n"
    "    return n;\n"
    "}\n";

static const char dynshared[] =
    "extern __shared__ __align__(16) unsigned char cj_dyn_smem[];\n";

/* the atomics used; `bits16`: their 16-bit forms too, `half` the float16
 * ones, `bf` the bfloat16 ones */
static void
atomics(Buf *b, unsigned used, int bits16, int half, int bf)
{
    buf_puts(b, atomic_common);
    buf_puts(b, bits16 ? atomic16_common : "");
    buf_puts(b, bits16 && half ? atomic16_half : "");
    buf_puts(b, bits16 && bf ? atomic16_bf16 : "");
    if (used & ((1u << (BI_ATOMIC_MAX - BI_ATOMIC_ADD)) | (1u << (BI_ATOMIC_MIN - BI_ATOMIC_ADD))
                | (3u << (BI_ATOMIC_NANMAX - BI_ATOMIC_ADD)))) {
        buf_puts(b, atomic_fminmax);
    }
    if (used & (7u << (BI_ATOMIC_AND - BI_ATOMIC_ADD))) {
        buf_puts(b, atomic_bits);
    }
    for (int op = 0; op <= BI_ATOMIC_NANMIN - BI_ATOMIC_ADD; op++) {
        if (used & (1u << op)) {
            buf_puts(b, atomic_ops[op]);
            buf_puts(b, bits16 ? atomic16_ops[op][0] : "");
            buf_puts(b, bits16 && half ? atomic16_ops[op][1] : "");
            buf_puts(b, bits16 && bf ? atomic16_bf16_ops[op] : "");
        }
    }
}

void
cg_prelude(Buf *b, Features features, unsigned atomic_ops_used)
{
    if (features & FEAT_F16) {
        buf_puts(b, f16);
    }
    if (features & FEAT_BF16) {
        buf_puts(b, bf16);
    }
    buf_puts(b, base);
    if (features & FEAT_F16_OPS) {
        buf_puts(b, f16_ops);
    }
    if (features & FEAT_BF16_OPS) {
        buf_puts(b, bf16_ops);
    }
    if (features & FEAT_MATH_EXTRA) {
        buf_puts(b, math_extra);
    }
    if (features & FEAT_FMINMAX) {
        buf_puts(b, fminmax);
    }
    if (features & FEAT_INFNAN) {
        buf_puts(b, infnan);
    }
    if (features & FEAT_SU_CMP) {
        buf_puts(b, su_cmp);
    }
    if (features & FEAT_COMPLEX) {
        buf_puts(b, complex_part);
    }
    if (features & FEAT_INTDIV) {
        buf_puts(b, intdiv);
    }
    if (features & FEAT_FLOATDIV) {
        buf_puts(b, floatdiv);
    }
    if (features & FEAT_IPOW) {
        buf_puts(b, ipow);
    }
    if (features & (FEAT_ASSERT | FEAT_BOUNDS)) {
        buf_puts(b, errrec);
    }
    if (features & FEAT_BOUNDS) {
        buf_puts(b, bounds);
    }
    if (features & FEAT_WRAP) {
        buf_puts(b, wrap);
    }
    if (features & FEAT_DEBUG_CHECKS) {
        buf_puts(b, cg_checks_prelude);
    }
    if (features & FEAT_OPTIONAL) {
        buf_puts(b, optional);
        buf_puts(b, (features & FEAT_ASSERT) ? optional_get : "");
    }
    if (features & FEAT_ATOMIC) {
        atomics(b, atomic_ops_used, (features & FEAT_ATOMIC16) != 0, (features & FEAT_F16) != 0,
                (features & FEAT_BF16) != 0);
    }
    if (features & FEAT_WARP) {
        buf_puts(b, warp);
    }
    if (features & FEAT_CACHE_HINT) {
        buf_puts(b, cache_hint);
    }
    if (features & FEAT_LANEMASK) {
        buf_puts(b, lanemask);
    }
    if (features & FEAT_COLLECTIVE) {
        buf_puts(b, (features & FEAT_COMPLEX) ? collective_complex : "");
        buf_puts(b, collective);
    }
    if (features & FEAT_DYNSHARED) {
        buf_puts(b, dynshared);
        /* its extent: a view's, or an index wrapped from its end */
        buf_puts(b, (features & (FEAT_VIEW | FEAT_WRAP)) ? dynshared_size : "");
    }
    if (features & FEAT_VIEW) {
        buf_puts(b, view);
        buf_puts(b, view_fill);
        buf_puts(b, (features & FEAT_BOUNDS) ? view_bc : "");
    }
}
