/* ufuncs.c - NumPy's elementwise ufuncs in kernels, with their C++:
 * cj_uf_<name>(x ...) computes one element in the loop dtype (NumPy's NaN
 * rules: maximum propagates a NaN, fmax passes it over; complex numbers
 * ordered by real then imaginary part; exact int64 / uint64 comparisons),
 * and cj_uf_map1 / cj_uf_map2 run one over every element of an output
 * array in the calling thread, the inputs broadcast against it. */
#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

static const char real_ops[] =
    "/* NumPy's ufuncs on one element of the loop dtype */\n"
    "#define CJ_UF_REAL1(name, fn) \\\n"
    "    CJ_DEVICE float cj_uf_##name(float x) { return fn##f(x); } \\\n"
    "    CJ_DEVICE double cj_uf_##name(double x) { return fn(x); }\n"
    "CJ_UF_REAL1(sin, sin) CJ_UF_REAL1(cos, cos) CJ_UF_REAL1(tan, tan)\n"
    "CJ_UF_REAL1(arcsin, asin) CJ_UF_REAL1(arccos, acos) CJ_UF_REAL1(arctan, atan)\n"
    "CJ_UF_REAL1(sinh, sinh) CJ_UF_REAL1(cosh, cosh) CJ_UF_REAL1(tanh, tanh)\n"
    "CJ_UF_REAL1(arcsinh, asinh) CJ_UF_REAL1(arccosh, acosh) CJ_UF_REAL1(arctanh, atanh)\n"
    "CJ_UF_REAL1(log, log) CJ_UF_REAL1(log2, log2) CJ_UF_REAL1(log10, log10)\n"
    "CJ_UF_REAL1(log1p, log1p) CJ_UF_REAL1(exp, exp) CJ_UF_REAL1(exp2, exp2)\n"
    "CJ_UF_REAL1(expm1, expm1) CJ_UF_REAL1(sqrt, sqrt)\n"
    "CJ_DEVICE float cj_uf_arctan2(float y, float x) { return atan2f(y, x); }\n"
    "CJ_DEVICE double cj_uf_arctan2(double y, double x) { return atan2(y, x); }\n"
    "CJ_DEVICE float cj_uf_hypot(float x, float y) { return hypotf(x, y); }\n"
    "CJ_DEVICE double cj_uf_hypot(double x, double y) { return hypot(x, y); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_deg2rad(T x) { return x * T(0.017453292519943295); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_rad2deg(T x) { return x * T(57.29577951308232); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_radians(T x) { return cj_uf_deg2rad(x); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_degrees(T x) { return cj_uf_rad2deg(x); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_divide(T a, T b) { return a / b; }\n"
    "/* comparisons; an int64 against a uint64 exactly, as NumPy 1.25 does */\n"
    "template <typename T> CJ_DEVICE bool cj_uf_less(T a, T b) { return a < b; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_less_equal(T a, T b) { return a <= b; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_greater(T a, T b) { return a > b; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_greater_equal(T a, T b) { return a >= b; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_equal(T a, T b) { return a == b; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_not_equal(T a, T b) { return a != b; }\n"
    "CJ_DEVICE bool cj_uf_less(long long a, unsigned long long b) { return a < 0 || (unsigned long long)a < b; }\n"
    "CJ_DEVICE bool cj_uf_less(unsigned long long a, long long b) { return b >= 0 && a < (unsigned long long)b; }\n"
    "CJ_DEVICE bool cj_uf_equal(long long a, unsigned long long b) { return a >= 0 && (unsigned long long)a == b; }\n"
    "CJ_DEVICE bool cj_uf_equal(unsigned long long a, long long b) { return cj_uf_equal(b, a); }\n"
    "#define CJ_UF_MIXED(T, U) \\\n"
    "    CJ_DEVICE bool cj_uf_greater(T a, U b) { return cj_uf_less(b, a); } \\\n"
    "    CJ_DEVICE bool cj_uf_greater_equal(T a, U b) { return !cj_uf_less(a, b); } \\\n"
    "    CJ_DEVICE bool cj_uf_less_equal(T a, U b) { return !cj_uf_less(b, a); } \\\n"
    "    CJ_DEVICE bool cj_uf_not_equal(T a, U b) { return !cj_uf_equal(a, b); }\n"
    "CJ_UF_MIXED(long long, unsigned long long) CJ_UF_MIXED(unsigned long long, long long)\n"
    "template <typename T> CJ_DEVICE bool cj_uf_truth(T x) { return x != T(0); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_logical_and(T a, T b) { return cj_uf_truth(a) && cj_uf_truth(b); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_logical_or(T a, T b) { return cj_uf_truth(a) || cj_uf_truth(b); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_logical_xor(T a, T b) { return cj_uf_truth(a) != cj_uf_truth(b); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_logical_not(T a) { return !cj_uf_truth(a); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_isnan(T x) { return x != x; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_isinf(T x) { return x == x && x - x != x - x; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_isfinite(T x) { return x - x == x - x; }\n"
    "/* maximum and minimum pass a NaN on, fmax and fmin pass it over */\n"
    "template <typename T> CJ_DEVICE T cj_uf_maximum(T a, T b) { return cj_uf_isnan(a) || cj_uf_greater_equal(a, b) ? a : b; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_minimum(T a, T b) { return cj_uf_isnan(a) || cj_uf_less_equal(a, b) ? a : b; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_fmax(T a, T b) { return cj_uf_isnan(b) || cj_uf_greater_equal(a, b) ? a : b; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_fmin(T a, T b) { return cj_uf_isnan(b) || cj_uf_less_equal(a, b) ? a : b; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_bitwise_and(T a, T b) { return T(a & b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_bitwise_or(T a, T b) { return T(a | b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_bitwise_xor(T a, T b) { return T(a ^ b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_invert(T a) { return T(~a); }\n"
    "CJ_DEVICE bool cj_uf_invert(bool a) { return !a; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_add(T a, T b) { return T(a + b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_subtract(T a, T b) { return T(a - b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_multiply(T a, T b) { return T(a * b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_negative(T a) { return T(-a); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_square(T a) { return T(a * a); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_absolute(T a) { return a < T(0) ? T(-a) : a; }\n"
    "CJ_DEVICE bool cj_uf_absolute(bool a) { return a; }\n"
    "/* int and int64 wrap around as NumPy's do (in unsigned: no overflow in C++) */\n"
    "#define CJ_UF_WRAP(T, U) \\\n"
    "    CJ_DEVICE T cj_uf_add(T a, T b) { return (T)((U)a + (U)b); } \\\n"
    "    CJ_DEVICE T cj_uf_subtract(T a, T b) { return (T)((U)a - (U)b); } \\\n"
    "    CJ_DEVICE T cj_uf_multiply(T a, T b) { return (T)((U)a * (U)b); } \\\n"
    "    CJ_DEVICE T cj_uf_square(T a) { return (T)((U)a * (U)a); } \\\n"
    "    CJ_DEVICE T cj_uf_negative(T a) { return (T)((U)0 - (U)a); } \\\n"
    "    CJ_DEVICE T cj_uf_absolute(T a) { return a < 0 ? (T)((U)0 - (U)a) : a; }\n"
    "CJ_UF_WRAP(int, unsigned) CJ_UF_WRAP(long long, unsigned long long)\n"
    "CJ_DEVICE float cj_uf_absolute(float a) { return fabsf(a); }\n"
    "CJ_DEVICE double cj_uf_absolute(double a) { return fabs(a); }\n"
    "/* rounding keeps an integer as it is */\n"
    "#define CJ_UF_ROUND(name, fn) \\\n"
    "    template <typename T> CJ_DEVICE T cj_uf_##name(T x) { return x; } \\\n"
    "    CJ_UF_REAL1(name, fn)\n"
    "CJ_UF_ROUND(floor, floor) CJ_UF_ROUND(ceil, ceil) CJ_UF_ROUND(trunc, trunc)\n"
    "CJ_UF_REAL1(rint, rint) CJ_UF_REAL1(fabs, fabs) CJ_UF_REAL1(cbrt, cbrt)\n"
    "CJ_DEVICE float cj_uf_copysign(float a, float b) { return copysignf(a, b); }\n"
    "CJ_DEVICE double cj_uf_copysign(double a, double b) { return copysign(a, b); }\n"
    "/* sign: -1, 0 or 1 (a NaN stays NaN) */\n"
    "template <typename T> CJ_DEVICE T cj_uf_sign(T x) { return x != x ? x : x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_positive(T x) { return x; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_conjugate(T x) { return x; }\n"
    "template <typename T> CJ_DEVICE T cj_uf_reciprocal(T x) { return T(T(1) / x); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_signbit(T x) { return x < T(0); }\n"
    "CJ_DEVICE bool cj_uf_signbit(float x) { return signbit(x); }\n"
    "CJ_DEVICE bool cj_uf_signbit(double x) { return signbit(x); }\n"
    "/* logaddexp and logaddexp2 as NumPy computes them (two equal infinities\n"
    " * give themselves, a NaN passes), nextafter, heaviside (h where x is 0) */\n"
    "template <typename T> CJ_DEVICE T cj_uf_logaddexp(T x, T y)\n"
    "{\n"
    "    T d = x - y;\n"
    "    return x == y ? T(x + T(0.6931471805599453)) : d > T(0) ? T(x + log1p(exp(-d)))\n"
    "           : d <= T(0) ? T(y + log1p(exp(d))) : d;\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_uf_logaddexp2(T x, T y)\n"
    "{\n"
    "    T d = x - y;\n"
    "    return x == y ? T(x + T(1)) : d > T(0) ? T(x + log1p(exp2(-d)) * T(1.4426950408889634))\n"
    "           : d <= T(0) ? T(y + log1p(exp2(d)) * T(1.4426950408889634)) : d;\n"
    "}\n"
    "CJ_DEVICE float cj_uf_nextafter(float a, float b) { return nextafterf(a, b); }\n"
    "CJ_DEVICE double cj_uf_nextafter(double a, double b) { return nextafter(a, b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_heaviside(T x, T h) { return x != x ? x : x < T(0) ? T(0) : x > T(0) ? T(1) : h; }\n"
    "/* shifts by a count outside [0, bits) give 0 (or -1 shifting a negative\n"
    " * right), as NumPy's do; gcd and lcm of the absolute values */\n"
    "template <typename T> CJ_DEVICE T cj_uf_left_shift(T a, T b)\n"
    "{\n"
    "    return (unsigned long long)b < sizeof(T) * 8 ? T((unsigned long long)a << b) : T(0);\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_uf_right_shift(T a, T b)\n"
    "{\n"
    "    return (unsigned long long)b < sizeof(T) * 8 ? T(a >> b) : a < T(0) ? T(-1) : T(0);\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_uf_gcd(T a, T b)\n"
    "{\n"
    "    T x = a < T(0) ? T(-a) : a, y = b < T(0) ? T(-b) : b;\n"
    "    while (y != T(0)) {\n"
    "        T r = T(x % y);\n"
    "        x = y;\n"
    "        y = r;\n"
    "    }\n"
    "    return x;\n"
    "}\n"
    "template <typename T> CJ_DEVICE T cj_uf_lcm(T a, T b)\n"
    "{\n"
    "    T g = cj_uf_gcd(a, b);\n"
    "    T x = a < T(0) ? T(-a) : a, y = b < T(0) ? T(-b) : b;\n"
    "    return g == T(0) ? T(0) : T(x / g * y);\n"
    "}\n";

/* the ufuncs of Python's // and %, fmod and power, which call the
 * prelude's cj_mod, cj_modf, cj_ipow ...: typeinfer sets FEAT_INTDIV,
 * FEAT_FLOATDIV and FEAT_IPOW together for them (a kernel's own // of
 * integers sets FEAT_INTDIV alone) */
static const char divide_ops[] =
    "/* power, remainder, floor_divide, fmod: NumPy's (Python's // and %, an\n"
    " * integer power by squaring, C's fmod; an integer divisor of 0 gives 0) */\n"
    "template <typename T> CJ_DEVICE T cj_uf_power(T a, T b) { return cj_ipow(a, b); }\n"
    "CJ_DEVICE float cj_uf_power(float a, float b) { return powf(a, b); }\n"
    "CJ_DEVICE double cj_uf_power(double a, double b) { return pow(a, b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_remainder(T a, T b) { return cj_mod(a, b); }\n"
    "CJ_DEVICE float cj_uf_remainder(float a, float b) { return cj_modf(a, b); }\n"
    "CJ_DEVICE double cj_uf_remainder(double a, double b) { return cj_modf(a, b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_floor_divide(T a, T b) { return cj_floordiv(a, b); }\n"
    "CJ_DEVICE float cj_uf_floor_divide(float a, float b) { return cj_floordivf(a, b); }\n"
    "CJ_DEVICE double cj_uf_floor_divide(double a, double b) { return cj_floordivf(a, b); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_fmod(T a, T b) { return b == T(0) ? T(0) : T(a % b); }\n"
    "CJ_DEVICE float cj_uf_fmod(float a, float b) { return fmodf(a, b); }\n"
    "CJ_DEVICE double cj_uf_fmod(double a, double b) { return fmod(a, b); }\n";

static const char complex_ops[] =
    "/* the ufuncs on complex numbers: cmath's functions (codegen/npfuncs.c) */\n"
    "#define CJ_UF_CPLX1(name, fn) \\\n"
    "    template <typename T> CJ_DEVICE cj_complex<T> cj_uf_##name(cj_complex<T> z) { return fn(z); }\n"
    "CJ_UF_CPLX1(sin, cj_csin) CJ_UF_CPLX1(cos, cj_ccos) CJ_UF_CPLX1(tan, cj_ctan)\n"
    "CJ_UF_CPLX1(arcsin, cj_casin) CJ_UF_CPLX1(arccos, cj_cacos) CJ_UF_CPLX1(arctan, cj_catan)\n"
    "CJ_UF_CPLX1(sinh, cj_csinh) CJ_UF_CPLX1(cosh, cj_ccosh) CJ_UF_CPLX1(tanh, cj_ctanh)\n"
    "CJ_UF_CPLX1(arcsinh, cj_casinh) CJ_UF_CPLX1(arccosh, cj_cacosh) CJ_UF_CPLX1(arctanh, cj_catanh)\n"
    "CJ_UF_CPLX1(log, cj_clog1) CJ_UF_CPLX1(log10, cj_clog10) CJ_UF_CPLX1(exp, cj_cexp)\n"
    "CJ_UF_CPLX1(sqrt, cj_csqrt)\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_log2(cj_complex<T> z)\n"
    "{\n"
    "    cj_complex<T> l = cj_clog1(z);\n"
    "    return {T(l.re / 0.6931471805599453), T(l.im / 0.6931471805599453)};\n"
    "}\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_log1p(cj_complex<T> z) { return cj_clog1(z + cj_complex<T>(T(1))); }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_expm1(cj_complex<T> z) { return cj_cexp(z) - cj_complex<T>(T(1)); }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_exp2(cj_complex<T> z)\n"
    "{\n"
    "    return cj_cexp(z * cj_complex<T>(T(0.6931471805599453)));\n"
    "}\n"
    "/* NumPy's order of complex numbers: by real part, then imaginary; a NaN\n"
    " * imaginary part orders nothing by the real parts */\n"
    "template <typename T> CJ_DEVICE bool cj_uf_nanim(cj_complex<T> a, cj_complex<T> b) { return a.im != a.im || b.im != b.im; }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_less(cj_complex<T> a, cj_complex<T> b)\n"
    "{\n"
    "    return (a.re < b.re && !cj_uf_nanim(a, b)) || (a.re == b.re && a.im < b.im);\n"
    "}\n"
    "template <typename T> CJ_DEVICE bool cj_uf_less_equal(cj_complex<T> a, cj_complex<T> b)\n"
    "{\n"
    "    return (a.re < b.re && !cj_uf_nanim(a, b)) || (a.re == b.re && a.im <= b.im);\n"
    "}\n"
    "template <typename T> CJ_DEVICE bool cj_uf_greater(cj_complex<T> a, cj_complex<T> b) { return cj_uf_less(b, a); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_greater_equal(cj_complex<T> a, cj_complex<T> b) { return cj_uf_less_equal(b, a); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_truth(cj_complex<T> z) { return z.re != T(0) || z.im != T(0); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_isnan(cj_complex<T> z) { return cj_uf_isnan(z.re) || cj_uf_isnan(z.im); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_isinf(cj_complex<T> z) { return cj_uf_isinf(z.re) || cj_uf_isinf(z.im); }\n"
    "template <typename T> CJ_DEVICE bool cj_uf_isfinite(cj_complex<T> z) { return cj_uf_isfinite(z.re) && cj_uf_isfinite(z.im); }\n"
    "template <typename T> CJ_DEVICE T cj_uf_absolute(cj_complex<T> z) { return hypot(z.re, z.im); }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_conjugate(cj_complex<T> z) { return cj_conj(z); }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_positive(cj_complex<T> z) { return z; }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_reciprocal(cj_complex<T> z) { return cj_complex<T>(T(1)) / z; }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_power(cj_complex<T> a, cj_complex<T> b) { return cj_cpow(a, b); }\n"
    "/* NumPy 2's sign of a complex number: z / |z| (0 for 0) */\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_uf_sign(cj_complex<T> z)\n"
    "{\n"
    "    T m = hypot(z.re, z.im);\n"
    "    if (m != m) {\n"
    "        return {m, m};\n"
    "    }\n"
    "    return m == T(0) ? cj_complex<T>(T(0)) : cj_complex<T>{z.re / m, z.im / m};\n"
    "}\n";

static const char maps[] =
    "/* the functions as objects, for cj_uf_map1 and cj_uf_map2 */\n"
    "#define CJ_UF_F1(name) struct cj_uf_f_##name { \\\n"
    "    template <typename A> __device__ auto operator()(A a) const { return cj_uf_##name(a); } };\n"
    "#define CJ_UF_F2(name) struct cj_uf_f_##name { \\\n"
    "    template <typename A, typename B> __device__ auto operator()(A a, B b) const { return cj_uf_##name(a, b); } };\n"
    "CJ_UF_F1(sin) CJ_UF_F1(cos) CJ_UF_F1(tan) CJ_UF_F1(arcsin) CJ_UF_F1(arccos) CJ_UF_F1(arctan)\n"
    "CJ_UF_F1(sinh) CJ_UF_F1(cosh) CJ_UF_F1(tanh) CJ_UF_F1(arcsinh) CJ_UF_F1(arccosh) CJ_UF_F1(arctanh)\n"
    "CJ_UF_F1(deg2rad) CJ_UF_F1(radians) CJ_UF_F1(rad2deg) CJ_UF_F1(degrees)\n"
    "CJ_UF_F1(log) CJ_UF_F1(log2) CJ_UF_F1(log10) CJ_UF_F1(log1p) CJ_UF_F1(exp) CJ_UF_F1(exp2)\n"
    "CJ_UF_F1(expm1) CJ_UF_F1(sqrt) CJ_UF_F1(logical_not) CJ_UF_F1(invert) CJ_UF_F1(isnan)\n"
    "CJ_UF_F1(isinf) CJ_UF_F1(isfinite) CJ_UF_F1(negative) CJ_UF_F1(absolute) CJ_UF_F1(square)\n"
    "CJ_UF_F2(arctan2) CJ_UF_F2(hypot) CJ_UF_F2(greater) CJ_UF_F2(greater_equal) CJ_UF_F2(less)\n"
    "CJ_UF_F2(less_equal) CJ_UF_F2(equal) CJ_UF_F2(not_equal) CJ_UF_F2(logical_and)\n"
    "CJ_UF_F2(logical_or) CJ_UF_F2(logical_xor) CJ_UF_F2(maximum) CJ_UF_F2(minimum) CJ_UF_F2(fmax)\n"
    "CJ_UF_F2(fmin) CJ_UF_F2(bitwise_and) CJ_UF_F2(bitwise_or) CJ_UF_F2(bitwise_xor) CJ_UF_F2(add)\n"
    "CJ_UF_F2(subtract) CJ_UF_F2(multiply) CJ_UF_F2(divide)\n"
    "CJ_UF_F1(floor) CJ_UF_F1(ceil) CJ_UF_F1(trunc) CJ_UF_F1(rint) CJ_UF_F1(fabs) CJ_UF_F1(cbrt)\n"
    "CJ_UF_F1(sign) CJ_UF_F1(positive) CJ_UF_F1(conjugate) CJ_UF_F1(reciprocal) CJ_UF_F1(signbit)\n"
    "CJ_UF_F2(copysign) CJ_UF_F2(power) CJ_UF_F2(remainder) CJ_UF_F2(floor_divide) CJ_UF_F2(fmod)\n"
    "CJ_UF_F2(logaddexp) CJ_UF_F2(logaddexp2) CJ_UF_F2(nextafter) CJ_UF_F2(heaviside)\n"
    "CJ_UF_F2(left_shift) CJ_UF_F2(right_shift) CJ_UF_F2(gcd) CJ_UF_F2(lcm)\n"
    "/* an input's element at the output's index idx (n dimensions): a number\n"
    " * everywhere; an array's dimensions aligned on the right, one of length 1\n"
    " * repeated (an index past a length that does not broadcast reads its 0) */\n"
    "template <typename L, typename T> CJ_DEVICE L cj_uf_get(const T &x, const long long *, int) { return L(x); }\n"
    "template <typename L, typename T, typename J>\n"
    "CJ_DEVICE L cj_uf_get(const cj_array<T, 0, J> &x, const long long *, int) { return L(*x.data); }\n"
    "template <typename L, typename T, int M, typename J>\n"
    "CJ_DEVICE L cj_uf_get(const cj_array<T, M, J> &x, const long long *idx, int n)\n"
    "{\n"
    "    long long off = 0;\n"
    "    for (int d = 0; d < M; d++) {\n"
    "        long long i = idx[n - M + d];\n"
    "        off += (i < (long long)x.shape[d] ? i : 0) * (long long)x.strides[d];\n"
    "    }\n"
    "    return L(*(const T *)((const char *)x.data + off));\n"
    "}\n"
    "/* the byte offset of out's element k (C order), its index into idx */\n"
    "template <typename O, int N, typename I>\n"
    "CJ_DEVICE long long cj_uf_index(const cj_array<O, N, I> &out, long long k, long long *idx)\n"
    "{\n"
    "    long long off = 0;\n"
    "    for (int d = N - 1; d >= 0; d--) {\n"
    "        idx[d] = k % out.shape[d];\n"
    "        k /= out.shape[d];\n"
    "        off += idx[d] * (long long)out.strides[d];\n"
    "    }\n"
    "    return off;\n"
    "}\n"
    "template <typename O, typename I>\n"
    "CJ_DEVICE long long cj_uf_index(const cj_array<O, 0, I> &, long long, long long *) { return 0; }\n"
    "template <typename L0, typename O, int N, typename I, typename F, typename X0>\n"
    "CJ_DEVICE cj_array<O, N, I> cj_uf_map1(const cj_array<O, N, I> &out, F f, const X0 &x0)\n"
    "{\n"
    "    long long idx[N > 0 ? N : 1];\n"
    "    for (long long k = 0, n = cj_np_size(out); k < n; k++) {\n"
    "        long long off = cj_uf_index(out, k, idx);\n"
    "        *(O *)((char *)out.data + off) = O(f(cj_uf_get<L0>(x0, idx, N)));\n"
    "    }\n"
    "    return out;\n"
    "}\n"
    "template <typename L0, typename L1, typename O, int N, typename I, typename F, typename X0, typename X1>\n"
    "CJ_DEVICE cj_array<O, N, I> cj_uf_map2(const cj_array<O, N, I> &out, F f, const X0 &x0, const X1 &x1)\n"
    "{\n"
    "    long long idx[N > 0 ? N : 1];\n"
    "    for (long long k = 0, n = cj_np_size(out); k < n; k++) {\n"
    "        long long off = cj_uf_index(out, k, idx);\n"
    "        *(O *)((char *)out.data + off) = O(f(cj_uf_get<L0>(x0, idx, N), cj_uf_get<L1>(x1, idx, N)));\n"
    "    }\n"
    "    return out;\n"
    "}\n";

void
cg_ufunc_prelude(Buf *b, Features features)
{
    if (features & FEAT_NPFUNC) {
        buf_puts(b, real_ops);
        Features div = FEAT_INTDIV | FEAT_FLOATDIV | FEAT_IPOW;
        if ((features & div) == div) {
            buf_puts(b, divide_ops);    /* what they call is there: typeinfer's ufunc_helpers */
        }
        if (features & FEAT_COMPLEX) {
            buf_puts(b, complex_ops);
        }
        buf_puts(b, maps);
    }
}

/* the dtype input i is computed in: the loop's, or for an exact int64 /
 * uint64 comparison its own kind's 64-bit integer */
static DType
operand_dtype(Cg *g, Node *n, int i, DType loop, int mixed)
{
    if (!mixed) {
        return loop;
    }
    const Type *x = cg_type(g, n->list[i]);
    DType dt = x->kind == TY_ARRAY ? x->dtype : cj_concrete(x)->dtype;
    return cj_dtypes[dt].kind == 'u' ? DT_U64 : DT_I64;
}

/* np.f(x ...) of numbers: cj_uf_f(x converted to the loop dtype ...) */
static void
scalar_call(Cg *g, Node *n, const DType *dts, int nin)
{
    P("cj_uf_%s(", cj_np_funcs[n->axis].name);
    for (int i = 0; i < nin; i++) {
        S(i ? ", " : "");
        cg_conv(g, n->list[i], cj_scalar(dts[i]), PR_COMMA);
    }
    S(")");
}

/* np.f(x ..., out): cj_uf_map<n><loop dtypes>(out, cj_uf_f_f(), x ...) */
static void
map_call(Cg *g, Node *n, const DType *dts, int nin)
{
    P("cj_uf_map%d<", nin);
    for (int i = 0; i < nin; i++) {
        P("%s%s", i ? ", " : "", cg_ctype(g, cj_scalar(dts[i])));
    }
    S(">(");
    cg_view_base(g, n->list[nin], cg_type(g, n->list[nin]));
    P(", cj_uf_f_%s()", cj_np_funcs[n->axis].name);
    for (int i = 0; i < nin; i++) {
        const Type *x = cg_type(g, n->list[i]);
        S(", ");
        if (x->kind == TY_ARRAY) {
            cg_view_base(g, n->list[i], x);
        } else {
            cg_expr(g, n->list[i], PR_COMMA);
        }
    }
    S(")");
}

void
cg_ufunc(Cg *g, Node *n)
{
    int nin = cj_np_funcs[n->axis].min_args, mixed;
    const Type *in[2] = {NULL, NULL};
    for (int i = 0; i < nin; i++) {
        in[i] = cg_type(g, n->list[i]);
    }
    DType loop = cj_ufunc_loop(n->axis, in, nin, &mixed), dts[2];
    for (int i = 0; i < nin; i++) {
        dts[i] = operand_dtype(g, n, i, loop, mixed);
    }
    if (n->n == nin) {
        scalar_call(g, n, dts, nin);
        return;
    }
    map_call(g, n, dts, nin);
}
