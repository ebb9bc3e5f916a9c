/* npfuncs.c - NumPy's reductions of a whole array in kernels (np.sum(a),
 * a.max(), np.nanmean(a), np.count_nonzero(a) ...: a loop of the calling
 * thread over the elements in C order, with NumPy's NaN rules and result
 * dtypes) and cmath's functions on cj_complex (C99 Annex G's special values,
 * as CPython's cmath gives them), with their C++. */
#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

static const char reductions[] =
    "/* NumPy's reductions of a whole array by one thread: elements in C order */\n"
    "template <typename T, int N, typename I>\n"
    "CJ_DEVICE long long cj_np_size(const cj_array<T, N, I> &a)\n"
    "{\n"
    "    long long n = 1;\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        n *= a.shape[d];\n"
    "    }\n"
    "    return n;\n"
    "}\n"
    "template <typename T, typename I> CJ_DEVICE long long cj_np_size(const cj_array<T, 0, I> &) { return 1; }\n"
    "template <typename T> CJ_DEVICE long long cj_np_size(const T &) { return 1; }\n"
    "template <typename T, int N, typename I>\n"
    "CJ_DEVICE T cj_np_at(const cj_array<T, N, I> &a, long long k)\n"
    "{\n"
    "    long long off = 0;\n"
    "    for (int d = N - 1; d >= 0; d--) {\n"
    "        off += k % a.shape[d] * (long long)a.strides[d];\n"
    "        k /= a.shape[d];\n"
    "    }\n"
    "    return *(const T *)((const char *)a.data + off);\n"
    "}\n"
    "template <typename T, typename I> CJ_DEVICE T cj_np_at(const cj_array<T, 0, I> &a, long long) { return *a.data; }\n"
    "template <typename T> CJ_DEVICE T cj_np_at(const T &x, long long) { return x; }\n"
    "template <typename T> CJ_DEVICE bool cj_np_nan(T x) { return x != x; }\n"
    "template <typename T> CJ_DEVICE bool cj_np_true(T x) { return x != T(0); }\n"
    "template <typename T> CJ_DEVICE T cj_np_abs2(T x) { return x * x; }\n"
    "template <typename A, typename X> CJ_DEVICE A cj_np_sum(const X &a, bool skip_nan)\n"
    "{\n"
    "    A s = A(0);\n"
    "    for (long long k = 0, n = cj_np_size(a); k < n; k++) {\n"
    "        A v = (A)cj_np_at(a, k);\n"
    "        s = skip_nan && cj_np_nan(v) ? s : s + v;\n"
    "    }\n"
    "    return s;\n"
    "}\n"
    "template <typename A, typename X> CJ_DEVICE A cj_np_prod(const X &a, bool skip_nan)\n"
    "{\n"
    "    A s = A(1);\n"
    "    for (long long k = 0, n = cj_np_size(a); k < n; k++) {\n"
    "        A v = (A)cj_np_at(a, k);\n"
    "        s = skip_nan && cj_np_nan(v) ? s : s * v;\n"
    "    }\n"
    "    return s;\n"
    "}\n"
    "/* max (sign 1) or min (-1): a NaN wins, or with skip_nan is passed over\n"
    " * (all NaN: NaN); an empty array gives 0, where NumPy raises */\n"
    "template <typename A, typename X> CJ_DEVICE A cj_np_extreme(const X &a, int sign, bool skip_nan)\n"
    "{\n"
    "    long long n = cj_np_size(a);\n"
    "    A m = n ? (A)cj_np_at(a, 0) : A(0);\n"
    "    bool have = !cj_np_nan(m);\n"
    "    if (!have && !skip_nan) {\n"
    "        return m;\n"
    "    }\n"
    "    for (long long k = 1; k < n; k++) {\n"
    "        A v = (A)cj_np_at(a, k);\n"
    "        if (cj_np_nan(v)) {\n"
    "            if (!skip_nan) {\n"
    "                return v;\n"
    "            }\n"
    "        } else if (!have || (sign > 0 ? v > m : v < m)) {\n"
    "            m = v;\n"
    "            have = true;\n"
    "        }\n"
    "    }\n"
    "    return m;\n"
    "}\n"
    "/* argmax (sign 1) or argmin (-1): the index in C order of the first extreme\n"
    " * element, or of the first NaN; an empty array gives 0, where NumPy raises */\n"
    "template <typename X> CJ_DEVICE long long cj_np_argextreme(const X &a, int sign)\n"
    "{\n"
    "    long long n = cj_np_size(a), best = 0;\n"
    "    if (n == 0) {\n"
    "        return 0;\n"
    "    }\n"
    "    auto m = cj_np_at(a, 0);\n"
    "    if (cj_np_nan(m)) {\n"
    "        return 0;\n"
    "    }\n"
    "    for (long long k = 1; k < n; k++) {\n"
    "        auto v = cj_np_at(a, k);\n"
    "        if (cj_np_nan(v)) {\n"
    "            return k;\n"
    "        }\n"
    "        if (sign > 0 ? v > m : v < m) {\n"
    "            m = v;\n"
    "            best = k;\n"
    "        }\n"
    "    }\n"
    "    return best;\n"
    "}\n"
    "template <typename A, typename X> CJ_DEVICE A cj_np_mean(const X &a, bool skip_nan)\n"
    "{\n"
    "    A s = A(0);\n"
    "    long long count = 0;\n"
    "    for (long long k = 0, n = cj_np_size(a); k < n; k++) {\n"
    "        A v = (A)cj_np_at(a, k);\n"
    "        if (!(skip_nan && cj_np_nan(v))) {\n"
    "            s = s + v;\n"
    "            count++;\n"
    "        }\n"
    "    }\n"
    "    return s / A(count);\n"
    "}\n"
    "/* NumPy's two passes: the mean, then the mean of |x - mean|^2 (ddof 0) */\n"
    "template <typename R, typename A, typename X> CJ_DEVICE R cj_np_var(const X &a)\n"
    "{\n"
    "    A m = cj_np_mean<A>(a, false);\n"
    "    R s = R(0);\n"
    "    long long n = cj_np_size(a);\n"
    "    for (long long k = 0; k < n; k++) {\n"
    "        s = s + cj_np_abs2((A)cj_np_at(a, k) - m);\n"
    "    }\n"
    "    return s / R(n);\n"
    "}\n"
    "/* all (want false: stop at a false element), any (want true) */\n"
    "template <typename X> CJ_DEVICE bool cj_np_find(const X &a, bool want)\n"
    "{\n"
    "    for (long long k = 0, n = cj_np_size(a); k < n; k++) {\n"
    "        if (cj_np_true(cj_np_at(a, k)) == want) {\n"
    "            return true;\n"
    "        }\n"
    "    }\n"
    "    return false;\n"
    "}\n"
    "template <typename X> CJ_DEVICE long long cj_np_count(const X &a)\n"
    "{\n"
    "    long long c = 0;\n"
    "    for (long long k = 0, n = cj_np_size(a); k < n; k++) {\n"
    "        c += cj_np_true(cj_np_at(a, k));\n"
    "    }\n"
    "    return c;\n"
    "}\n"
    "/* a.T: the axes reversed */\n"
    "template <typename T, int N, typename I>\n"
    "CJ_DEVICE cj_array<T, N, I> cj_np_transpose(const cj_array<T, N, I> &a)\n"
    "{\n"
    "    cj_array<T, N, I> r;\n"
    "    r.data = a.data;\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        r.shape[d] = a.shape[N - 1 - d];\n"
    "        r.strides[d] = a.strides[N - 1 - d];\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename T, typename I>\n"
    "CJ_DEVICE cj_array<T, 0, I> cj_np_transpose(const cj_array<T, 0, I> &a) { return a; }\n";

static const char complex_abs2[] =
    "template <typename T> CJ_DEVICE T cj_np_abs2(cj_complex<T> z) { return z.re * z.re + z.im * z.im; }\n"
    "/* a.real, a.imag of a complex array: views of its parts */\n"
    "template <typename R, int N, typename I>\n"
    "CJ_DEVICE cj_array<R, N, I> cj_np_part(const cj_array<cj_complex<R>, N, I> &a, int imag)\n"
    "{\n"
    "    cj_array<R, N, I> r;\n"
    "    r.data = (R *)a.data + imag;\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        r.shape[d] = a.shape[d];\n"
    "        r.strides[d] = a.strides[d];\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename R, typename I>\n"
    "CJ_DEVICE cj_array<R, 0, I> cj_np_part(const cj_array<cj_complex<R>, 0, I> &a, int imag) { return {(R *)a.data + imag}; }\n";


static const char cmath[] =
    "/* cmath on complex128 (complex64 through it, rounded once): the finite\n"
    " * formulas are Kahan's and the textbook ones, scaled where they overflow\n"
    " * early; infinities and NaNs as C99 Annex G and CPython's cmath give them */\n"
    "typedef cj_complex<double> cj_cmz;\n"
    "CJ_DEVICE double cj_cm_inf() { return __longlong_as_double(0x7ff0000000000000LL); }\n"
    "CJ_DEVICE double cj_cm_nan() { return __longlong_as_double(0x7ff8000000000000LL); }\n"
    "CJ_DEVICE bool cj_cm_isnan(double x) { return x != x; }\n"
    "CJ_DEVICE bool cj_cm_isinf(double x) { return fabs(x) == cj_cm_inf(); }\n"
    "CJ_DEVICE bool cj_cm_fin(double x) { return x - x == 0.0; }\n"
    "CJ_DEVICE cj_cmz cj_cm_mul_i(cj_cmz z) { return {-z.im, z.re}; }    /* i z */\n"
    "CJ_DEVICE cj_cmz cj_cm_div_i(cj_cmz z) { return {z.im, -z.re}; }    /* -i z */\n"
    "CJ_DEVICE cj_cmz cj_cm_nan2() { return {cj_cm_nan(), cj_cm_nan()}; }\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_sqrt(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_isinf(y)) {\n"
    "        return {cj_cm_inf(), y};\n"
    "    }\n"
    "    if (cj_cm_isinf(x)) {\n"
    "        if (x > 0) {\n"
    "            return {x, cj_cm_isnan(y) ? y : copysign(0.0, y)};\n"
    "        }\n"
    "        return {cj_cm_isnan(y) ? y : 0.0, copysign(cj_cm_inf(), y)};\n"
    "    }\n"
    "    if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "        return cj_cm_nan2();\n"
    "    }\n"
    "    if (x == 0.0 && y == 0.0) {\n"
    "        return {0.0, y};\n"
    "    }\n"
    "    double ax = fabs(x), ay = fabs(y), s;\n"
    "    if (ax < 2.2250738585072014e-308 && ay < 2.2250738585072014e-308) {\n"
    "        ax = ldexp(ax, 53);\n"
    "        s = ldexp(sqrt(ax + hypot(ax, ldexp(ay, 53))), -27);\n"
    "    } else {\n"
    "        ax /= 8.0;\n"
    "        s = 2.0 * sqrt(ax + hypot(ax, ay / 8.0));\n"
    "    }\n"
    "    double d = ay / (2.0 * s);\n"
    "    if (x >= 0) {\n"
    "        return {s, copysign(d, y)};\n"
    "    }\n"
    "    return {d, copysign(s, y)};\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_exp(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_fin(x) && cj_cm_fin(y)) {\n"
    "        if (x > 708.0) {\n"
    "            double l = exp(x - 1.0);\n"
    "            return {l * cos(y) * 2.718281828459045, l * sin(y) * 2.718281828459045};\n"
    "        }\n"
    "        double l = exp(x);\n"
    "        return {l * cos(y), y == 0.0 ? y : l * sin(y)};\n"
    "    }\n"
    "    if (cj_cm_isinf(x) && cj_cm_fin(y)) {\n"
    "        if (y == 0.0) {\n"
    "            return {x > 0 ? x : 0.0, y};\n"
    "        }\n"
    "        double m = x > 0 ? x : 0.0;\n"
    "        return {copysign(m, cos(y)), copysign(m, sin(y))};\n"
    "    }\n"
    "    if (cj_cm_isnan(x)) {\n"
    "        return {x, y == 0.0 ? y : cj_cm_nan()};\n"
    "    }\n"
    "    if (x == -cj_cm_inf()) {\n"
    "        return {0.0, 0.0};         /* -inf + i inf or i nan */\n"
    "    }\n"
    "    if (x == cj_cm_inf()) {\n"
    "        return {x, cj_cm_nan()};   /* +inf + i nan */\n"
    "    }\n"
    "    return cj_cm_nan2();           /* finite + i nan */\n"
    "}\n"
    "\n"
    "/* log|z| without the cancellation of log(hypot) near |z| = 1 */\n"
    "CJ_DEVICE double cj_cm_logabs(double x, double y)\n"
    "{\n"
    "    double ax = fabs(x), ay = fabs(y);\n"
    "    if (ax < ay) {\n"
    "        double t = ax;\n"
    "        ax = ay;\n"
    "        ay = t;\n"
    "    }\n"
    "    if (ax > 4.49423283715579e+307) {\n"
    "        return log(hypot(ax / 2.0, ay / 2.0)) + 0.6931471805599453;\n"
    "    }\n"
    "    if (ax < 2.2250738585072014e-308 && ay < 2.2250738585072014e-308) {\n"
    "        return log(hypot(ldexp(ax, 53), ldexp(ay, 53))) - 53 * 0.6931471805599453;\n"
    "    }\n"
    "    double h = hypot(ax, ay);\n"
    "    if (0.71 <= h && h <= 1.73) {\n"
    "        return log1p((ax - 1.0) * (ax + 1.0) + ay * ay) / 2.0;\n"
    "    }\n"
    "    return log(h);\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_log(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_isinf(x) || cj_cm_isinf(y)) {\n"
    "        return {cj_cm_inf(), atan2(y, x)};\n"
    "    }\n"
    "    if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "        return cj_cm_nan2();\n"
    "    }\n"
    "    return {cj_cm_logabs(x, y), atan2(y, x)};\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_cosh(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_fin(x) && cj_cm_fin(y)) {\n"
    "        if (fabs(x) > 708.0) {\n"
    "            double l = x - copysign(1.0, x);\n"
    "            return {cos(y) * cosh(l) * 2.718281828459045, sin(y) * sinh(l) * 2.718281828459045};\n"
    "        }\n"
    "        return {cos(y) * cosh(x), y == 0.0 ? copysign(0.0, x) * y : sin(y) * sinh(x)};\n"
    "    }\n"
    "    if (cj_cm_isinf(x) && cj_cm_fin(y)) {\n"
    "        if (y == 0.0) {\n"
    "            return {cj_cm_inf(), copysign(0.0, x) * y};\n"
    "        }\n"
    "        return {copysign(cj_cm_inf(), cos(y)), copysign(cj_cm_inf(), sin(y)) * copysign(1.0, x)};\n"
    "    }\n"
    "    if (x == 0.0) {\n"
    "        return {cj_cm_nan(), 0.0};      /* 0 + i inf, 0 + i nan: NaN + i0 */\n"
    "    }\n"
    "    if (cj_cm_isinf(x)) {\n"
    "        return {cj_cm_inf(), cj_cm_nan()};\n"
    "    }\n"
    "    if (y == 0.0) {\n"
    "        return {cj_cm_nan(), y};        /* nan + i0 */\n"
    "    }\n"
    "    return cj_cm_nan2();\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_sinh(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_fin(x) && cj_cm_fin(y)) {\n"
    "        if (fabs(x) > 708.0) {\n"
    "            double l = x - copysign(1.0, x);\n"
    "            return {cos(y) * sinh(l) * 2.718281828459045, sin(y) * cosh(l) * 2.718281828459045};\n"
    "        }\n"
    "        return {y == 0.0 ? sinh(x) : cos(y) * sinh(x), sin(y) * cosh(x)};\n"
    "    }\n"
    "    if (cj_cm_isinf(x) && cj_cm_fin(y)) {\n"
    "        if (y == 0.0) {\n"
    "            return {x, y};\n"
    "        }\n"
    "        return {copysign(cj_cm_inf(), cos(y)) * copysign(1.0, x), copysign(cj_cm_inf(), sin(y))};\n"
    "    }\n"
    "    if (x == 0.0) {\n"
    "        return {0.0, cj_cm_nan()};      /* +-0 + i inf, +-0 + i nan */\n"
    "    }\n"
    "    if (cj_cm_isinf(x)) {\n"
    "        return {cj_cm_inf(), cj_cm_nan()};\n"
    "    }\n"
    "    if (y == 0.0) {\n"
    "        return {cj_cm_nan(), y};\n"
    "    }\n"
    "    return cj_cm_nan2();\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_tanh(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_fin(x) && cj_cm_fin(y)) {\n"
    "        if (fabs(x) > 354.0) {\n"
    "            return {copysign(1.0, x), 4.0 * sin(y) * cos(y) * exp(-2.0 * fabs(x))};\n"
    "        }\n"
    "        double tx = tanh(x), ty = tan(y), cx = 1.0 / cosh(x), txty = tx * ty;\n"
    "        double den = 1.0 + txty * txty;\n"
    "        return {tx * (1.0 + ty * ty) / den, ((ty / den) * cx) * cx};\n"
    "    }\n"
    "    if (cj_cm_isinf(x) && cj_cm_fin(y)) {\n"
    "        return {copysign(1.0, x), copysign(0.0, 2.0 * sin(y) * cos(y))};\n"
    "    }\n"
    "    if (cj_cm_isinf(x)) {\n"
    "        return {copysign(1.0, x), 0.0};      /* +-inf + i inf, +-inf + i nan */\n"
    "    }\n"
    "    if (cj_cm_isnan(x) && y == 0.0) {\n"
    "        return {x, y};\n"
    "    }\n"
    "    return cj_cm_nan2();\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_asinh(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_isinf(x) || cj_cm_isinf(y)) {\n"
    "        if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "            return {cj_cm_isinf(x) ? x : cj_cm_inf(), cj_cm_nan()};\n"
    "        }\n"
    "        return {copysign(cj_cm_inf(), x), atan2(y, fabs(x))};\n"
    "    }\n"
    "    if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "        if (y == 0.0) {\n"
    "            return {x, y};\n"
    "        }\n"
    "        return cj_cm_nan2();\n"
    "    }\n"
    "    if (fabs(x) > 1.3407807929942596e+154 || fabs(y) > 1.3407807929942596e+154) {\n"
    "        return {copysign(log(hypot(x / 2.0, y / 2.0)) + 2 * 0.6931471805599453, x),\n"
    "                atan2(y, fabs(x))};\n"
    "    }\n"
    "    cj_cmz s1 = cj_cm_sqrt({1.0 + y, -x}), s2 = cj_cm_sqrt({1.0 - y, x});\n"
    "    return {asinh(s1.re * s2.im - s2.re * s1.im), atan2(y, s1.re * s2.re - s1.im * s2.im)};\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_acosh(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_isinf(x) || cj_cm_isinf(y)) {\n"
    "        if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "            return {cj_cm_inf(), cj_cm_nan()};\n"
    "        }\n"
    "        return {cj_cm_inf(), atan2(y, x)};\n"
    "    }\n"
    "    if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "        return cj_cm_nan2();\n"
    "    }\n"
    "    if (fabs(x) > 1.3407807929942596e+154 || fabs(y) > 1.3407807929942596e+154) {\n"
    "        return {log(hypot(x / 2.0, y / 2.0)) + 2 * 0.6931471805599453, atan2(y, x)};\n"
    "    }\n"
    "    cj_cmz s1 = cj_cm_sqrt({x - 1.0, y}), s2 = cj_cm_sqrt({x + 1.0, y});\n"
    "    return {asinh(s1.re * s2.re + s1.im * s2.im), 2.0 * atan2(s1.im, s2.re)};\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_acos(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (cj_cm_isinf(x) || cj_cm_isinf(y)) {\n"
    "        if (cj_cm_isnan(x)) {\n"
    "            return {x, -y};                     /* nan + i inf: nan - i inf */\n"
    "        }\n"
    "        if (cj_cm_isnan(y)) {\n"
    "            return {y, cj_cm_inf()};            /* inf + i nan: nan +- i inf */\n"
    "        }\n"
    "        return {atan2(fabs(y), x), copysign(cj_cm_inf(), -y)};\n"
    "    }\n"
    "    if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "        if (x == 0.0) {\n"
    "            return {1.5707963267948966, y};\n"
    "        }\n"
    "        return cj_cm_nan2();\n"
    "    }\n"
    "    if (fabs(x) > 1.3407807929942596e+154 || fabs(y) > 1.3407807929942596e+154) {\n"
    "        double l = log(hypot(x / 2.0, y / 2.0)) + 2 * 0.6931471805599453;\n"
    "        return {atan2(fabs(y), x), y < 0 ? l : -l};\n"
    "    }\n"
    "    cj_cmz s1 = cj_cm_sqrt({1.0 - x, -y}), s2 = cj_cm_sqrt({1.0 + x, y});\n"
    "    return {2.0 * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re)};\n"
    "}\n"
    "\n"
    "CJ_DEVICE cj_cmz cj_cm_atanh(cj_cmz z)\n"
    "{\n"
    "    double x = z.re, y = z.im;\n"
    "    if (x < 0 || (x == 0.0 && copysign(1.0, x) < 0)) {\n"
    "        cj_cmz r = cj_cm_atanh({-x, -y});\n"
    "        return {-r.re, -r.im};\n"
    "    }\n"
    "    if (cj_cm_isinf(x) || cj_cm_isinf(y)) {\n"
    "        if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "            return {cj_cm_isnan(x) ? 0.0 * copysign(1.0, x) : 0.0,\n"
    "                    cj_cm_isinf(y) ? copysign(1.5707963267948966, y) : y};\n"
    "        }\n"
    "        return {0.0, copysign(1.5707963267948966, y)};\n"
    "    }\n"
    "    if (cj_cm_isnan(x) || cj_cm_isnan(y)) {\n"
    "        if (x == 0.0) {\n"
    "            return {x, y};\n"
    "        }\n"
    "        return cj_cm_nan2();\n"
    "    }\n"
    "    double ay = fabs(y);\n"
    "    if (x > 1.3407807929942596e+154 || ay > 1.3407807929942596e+154) {\n"
    "        double h = hypot(x / 2.0, y / 2.0);\n"
    "        return {x / 4.0 / h / h, -copysign(1.5707963267948966, -y)};\n"
    "    }\n"
    "    if (x == 1.0 && ay < 1.4916681462400413e-154) {\n"
    "        return {-log(sqrt(ay) / sqrt(hypot(ay, 2.0))), copysign(atan2(2.0, -ay) / 2.0, y)};\n"
    "    }\n"
    "    return {log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0,\n"
    "            -atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0};\n"
    "}\n"
    "\n"
    "/* the functions of cmath, on complex128 and complex64 */\n"
    "CJ_DEVICE cj_cmz cj_cm_d(cj_complex<double> z) { return z; }\n"
    "CJ_DEVICE cj_cmz cj_cm_d(cj_complex<float> z) { return {(double)z.re, (double)z.im}; }\n"
    "CJ_DEVICE cj_complex<double> cj_cm_back(cj_cmz r, cj_complex<double>) { return r; }\n"
    "CJ_DEVICE cj_complex<float> cj_cm_back(cj_cmz r, cj_complex<float>) { return {(float)r.re, (float)r.im}; }\n"
    "#define CJ_CMATH1(name, expr) \\\n"
    "    template <typename T> CJ_DEVICE cj_complex<T> name(cj_complex<T> z0) \\\n"
    "    { \\\n"
    "        cj_cmz z = cj_cm_d(z0); \\\n"
    "        return cj_cm_back(expr, z0); \\\n"
    "    }\n"
    "CJ_CMATH1(cj_csqrt, cj_cm_sqrt(z))\n"
    "CJ_CMATH1(cj_cexp, cj_cm_exp(z))\n"
    "CJ_CMATH1(cj_clog1, cj_cm_log(z))\n"
    "CJ_CMATH1(cj_ccosh, cj_cm_cosh(z))\n"
    "CJ_CMATH1(cj_csinh, cj_cm_sinh(z))\n"
    "CJ_CMATH1(cj_ctanh, cj_cm_tanh(z))\n"
    "CJ_CMATH1(cj_casinh, cj_cm_asinh(z))\n"
    "CJ_CMATH1(cj_cacosh, cj_cm_acosh(z))\n"
    "CJ_CMATH1(cj_catanh, cj_cm_atanh(z))\n"
    "CJ_CMATH1(cj_cacos, cj_cm_acos(z))\n"
    "CJ_CMATH1(cj_ccos, cj_cm_cosh(cj_cm_mul_i(z)))\n"
    "CJ_CMATH1(cj_csin, cj_cm_div_i(cj_cm_sinh(cj_cm_mul_i(z))))\n"
    "CJ_CMATH1(cj_ctan, cj_cm_div_i(cj_cm_tanh(cj_cm_mul_i(z))))\n"
    "CJ_CMATH1(cj_casin, cj_cm_div_i(cj_cm_asinh(cj_cm_mul_i(z))))\n"
    "CJ_CMATH1(cj_catan, cj_cm_div_i(cj_cm_atanh(cj_cm_mul_i(z))))\n"
    "CJ_CMATH1(cj_clog10, (cj_cmz{cj_cm_log(z).re / 2.302585092994046, cj_cm_log(z).im / 2.302585092994046}))\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_clog(cj_complex<T> z) { return cj_clog1(z); }\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_clog(cj_complex<T> z, cj_complex<T> b)\n"
    "{\n"
    "    return cj_cm_back(cj_cm_log(cj_cm_d(z)) / cj_cm_log(cj_cm_d(b)), z);\n"
    "}\n"
    "template <typename T> CJ_DEVICE bool cj_cisnan(cj_complex<T> z) { return z.re != z.re || z.im != z.im; }\n"
    "template <typename T> CJ_DEVICE bool cj_cisinf(cj_complex<T> z) { return cj_cm_isinf(z.re) || cj_cm_isinf(z.im); }\n"
    "template <typename T> CJ_DEVICE bool cj_cisfinite(cj_complex<T> z) { return cj_cm_fin(z.re) && cj_cm_fin(z.im); }\n"
    "template <typename T> CJ_DEVICE T cj_cphase(cj_complex<T> z) { return (T)atan2((double)z.im, (double)z.re); }\n"
    "template <typename S, typename T> CJ_DEVICE S cj_cpolar(cj_complex<T> z)\n"
    "{\n"
    "    return S{(T)hypot((double)z.re, (double)z.im), (T)atan2((double)z.im, (double)z.re)};\n"
    "}\n"
    "CJ_DEVICE cj_cmz cj_cm_rect(double r, double phi)\n"
    "{\n"
    "    if (cj_cm_fin(r) && cj_cm_fin(phi)) {\n"
    "        return {phi == 0.0 ? r : r * cos(phi), phi == 0.0 ? r * phi : r * sin(phi)};\n"
    "    }\n"
    "    if (cj_cm_isinf(r) && cj_cm_fin(phi) && phi != 0.0) {\n"
    "        double s = r > 0 ? 1.0 : -1.0;\n"
    "        return {s * copysign(cj_cm_inf(), cos(phi)), s * copysign(cj_cm_inf(), sin(phi))};\n"
    "    }\n"
    "    if (r == 0.0 && !cj_cm_fin(phi)) {\n"
    "        return {0.0, 0.0};\n"
    "    }\n"
    "    if (cj_cm_isinf(r) && phi == 0.0) {\n"
    "        return {r, copysign(0.0, r) * phi};\n"
    "    }\n"
    "    if (cj_cm_isinf(r) && cj_cm_isnan(phi)) {\n"
    "        return {cj_cm_inf(), phi};\n"
    "    }\n"
    "    if (cj_cm_isnan(r) && phi == 0.0) {\n"
    "        return {r, phi};\n"
    "    }\n"
    "    return cj_cm_nan2();\n"
    "}\n"
    "template <typename T> CJ_DEVICE cj_complex<T> cj_crect(T r, T phi)\n"
    "{\n"
    "    return cj_cm_back(cj_cm_rect(r, phi), cj_complex<T>(T(0)));\n"
    "}\n";

static const char methods[] =
    "/* a.view(dtype): another itemsize scales the last dimension, which must be\n"
    " * contiguous and divide evenly (else an empty view: NumPy raises) */\n"
    "template <typename U, typename T, int N, typename I>\n"
    "CJ_DEVICE cj_array<U, N, I> cj_np_view(const cj_array<T, N, I> &a)\n"
    "{\n"
    "    cj_array<U, N, I> r;\n"
    "    r.data = (U *)a.data;\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        r.shape[d] = a.shape[d];\n"
    "        r.strides[d] = a.strides[d];\n"
    "    }\n"
    "    if (N > 0 && sizeof(U) != sizeof(T)) {\n"
    "        long long bytes = (long long)a.shape[N - 1] * (long long)sizeof(T);\n"
    "        bool ok = (a.shape[N - 1] <= 1 || a.strides[N - 1] == (I)sizeof(T))\n"
    "                  && bytes % (long long)sizeof(U) == 0;\n"
    "        r.shape[N - 1] = ok ? (I)(bytes / (long long)sizeof(U)) : 0;\n"
    "        r.strides[N - 1] = (I)sizeof(U);\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename U, typename T, typename I>\n"
    "CJ_DEVICE cj_array<U, 0, I> cj_np_view(const cj_array<T, 0, I> &a) { return {(U *)a.data}; }\n"
    "/* a.reshape(shape) of a C-contiguous a: a C-order view; one -1 takes what\n"
    " * is left; a shape of another size gives an empty view (NumPy raises) */\n"
    "template <int M, typename T, int N, typename I, typename... D>\n"
    "CJ_DEVICE cj_array<T, M, I> cj_np_reshape(const cj_array<T, N, I> &a, D... dims)\n"
    "{\n"
    "    long long want[M] = {(long long)dims...}, size = cj_np_size(a), known = 1;\n"
    "    int free = -1;\n"
    "    for (int d = 0; d < M; d++) {\n"
    "        if (want[d] == -1 && free < 0) {\n"
    "            free = d;\n"
    "        } else {\n"
    "            known *= want[d];\n"
    "        }\n"
    "    }\n"
    "    if (free >= 0) {\n"
    "        want[free] = known > 0 && size % known == 0 ? size / known : -1;\n"
    "    }\n"
    "    long long total = 1;\n"
    "    for (int d = 0; d < M; d++) {\n"
    "        total *= want[d];\n"
    "    }\n"
    "    cj_array<T, M, I> r;\n"
    "    r.data = a.data;\n"
    "    long long st = sizeof(T);\n"
    "    for (int d = M - 1; d >= 0; d--) {\n"
    "        r.shape[d] = total == size && want[d] >= 0 ? (I)want[d] : 0;\n"
    "        r.strides[d] = (I)st;\n"
    "        st *= want[d] > 0 ? want[d] : 1;\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "/* q = a.copy(): a's elements in C order into the local array q */\n"
    "template <typename T, typename X> CJ_DEVICE void cj_np_copy(T *q, const X &a)\n"
    "{\n"
    "    for (long long k = 0, n = cj_np_size(a); k < n; k++) {\n"
    "        q[k] = cj_np_at(a, k);\n"
    "    }\n"
    "}\n"
    "/* a.name of an array of records: the view of one field of every element */\n"
    "template <typename F, typename T, int N, typename I>\n"
    "CJ_DEVICE cj_array<F, N, I> cj_np_field(const cj_array<T, N, I> &a, int offset)\n"
    "{\n"
    "    cj_array<F, N, I> r;\n"
    "    r.data = (F *)((char *)a.data + offset);\n"
    "    for (int d = 0; d < N; d++) {\n"
    "        r.shape[d] = a.shape[d];\n"
    "        r.strides[d] = a.strides[d];\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename F, typename T, typename I>\n"
    "CJ_DEVICE cj_array<F, 0, I> cj_np_field(const cj_array<T, 0, I> &a, int offset) { return {(F *)((char *)a.data + offset)}; }\n";

/* a.view(dtype), a.reshape(shape) as views; a.copy() only as the value of an
 * assignment (cg_np_assign) */
static void
cg_array_method(Cg *g, Node *n)
{
    const Type *rt = cg_type(g, n), *at = cg_type(g, n->list[0]);
    if (n->axis == NP_COPY) {
        cj_fail(g->p->try_, g->fn->file, n->loc, "a.copy() can only be assigned to a variable "
                "name (q = a.copy()) in a kernel");
    }
    if (n->axis == NP_VIEW) {
        P("cj_np_view<%s>(", cj_dtypes[rt->dtype].ctype);
        cg_view_base(g, n->list[0], at);
        S(")");
        return;
    }
    P("cj_np_reshape<%d>(", rt->ndim);
    cg_view_base(g, n->list[0], at);
    for (int i = 1; i < n->n; i++) {
        const Type *x = cg_type(g, n->list[i]);
        for (int k = 0; k < (x->kind == TY_TUPLE ? x->ntup : 1); k++) {
            S(", (long long)");
            if (x->kind == TY_TUPLE) {
                cg_tuple_elem(g, n->list[i], k, PR_UNARY);
            } else {
                cg_expr(g, n->list[i], PR_UNARY);
            }
        }
    }
    S(")");
}

/* a.real / a.imag of an array: a view of a complex array's parts, or a
 * real array itself */
void
cg_array_part(Cg *g, Node *n, const Type *at, int prec)
{
    if (cj_dtypes[at->dtype].kind != 'c') {
        cg_expr(g, n->a, prec);
        return;
    }
    P("cj_np_part<%s>(", cj_dtypes[at->dtype == DT_C64 ? DT_F32 : DT_F64].ctype);
    cg_view_base(g, n->a, at);
    P(", %d)", n->op == AT_IMAG);
}

/* a.T: the view with the axes reversed */
void
cg_array_transpose(Cg *g, Node *n, const Type *at)
{
    S("cj_np_transpose(");
    cg_view_base(g, n->a, at);
    S(")");
}

/* a.name of an array of records: the field's view (ti_field_view) */
void
cg_field_view(Cg *g, Node *n, const Type *at)
{
    const CjField *f = cj_record_field(at->dtype, n->str);
    P("cj_np_field<%s>(", cj_dtypes[f->dt].ctype);
    cg_view_base(g, n->a, at);
    P(", %d)", f->offset);
}

/* q = a.copy(): the copy into q's local array; 0 for any other assignment */
int
cg_np_assign(Cg *g, Node *n)
{
    Node *v = n->a;
    if (v->kind != ND_CALL || v->op != BI_NPFUNC || v->axis != NP_COPY) {
        return 0;
    }
    cg_line_mark(g, n->loc.line);
    buf_indent(g->out);
    S("cj_np_copy(");
    cg_expr(g, n->list[0], PR_COMMA);
    S(", ");
    cg_view_base(g, v->list[0], cg_type(g, v->list[0]));
    S(");\n");
    return 1;
}

void
cg_np_prelude(Buf *b, Features features)
{
    if (features & FEAT_NPFUNC) {
        buf_puts(b, reductions);
        buf_puts(b, methods);
        if (features & FEAT_COMPLEX) {
            buf_puts(b, complex_abs2);
            buf_puts(b, cmath);
        }
    }
}

/* the array argument of a reduction as a cj_array (a static array wrapped),
 * or a number as it is */
static void
reduce_operand(Cg *g, Node *a)
{
    const Type *at = cg_type(g, a);
    if (at->kind == TY_ARRAY) {
        cg_view_base(g, a, at);
        return;
    }
    cg_expr(g, a, PR_COMMA);
}

/* np.sum(a) ... as cj_np_<op><result[, accumulator]>(a, ...) */
static void
reduce_call(Cg *g, Node *n)
{
    const Type *rt = cg_type(g, n), *at = cg_type(g, n->list[0]);
    const char *r = cg_ctype(g, rt);
    DType edt = at->kind == TY_ARRAY ? at->dtype : cj_concrete(at)->dtype;
    char ek = cj_dtypes[edt].kind;
    /* mean / var / std accumulate in the result's type, complex in the input's */
    const char *acc = ek == 'c' ? cj_dtypes[edt].ctype : r;
    switch ((NpFunc)n->axis) {
    case NP_SUM: case NP_NANSUM:
        P("cj_np_sum<%s>(", r);
        break;
    case NP_PROD: case NP_NANPROD:
        P("cj_np_prod<%s>(", r);
        break;
    case NP_MAX: case NP_AMAX: case NP_NANMAX: case NP_MIN: case NP_AMIN: case NP_NANMIN:
        P("cj_np_extreme<%s>(", r);
        break;
    case NP_MEAN: case NP_NANMEAN:
        P("cj_np_mean<%s>(", r);
        break;
    case NP_VAR: case NP_STD:
        P("%scj_np_var<%s, %s>(", n->axis == NP_STD ? "sqrt(" : "", r, acc);
        break;
    case NP_ALL: case NP_ANY:
        S(n->axis == NP_ALL ? "!cj_np_find(" : "cj_np_find(");
        break;
    case NP_COUNT_NONZERO:
        S("cj_np_count(");
        break;
    case NP_ARGMIN: case NP_ARGMAX:
        S("cj_np_argextreme(");
        break;
    default:
        cj_unreachable(g->p->try_, "not a reduction");
    }
    reduce_operand(g, n->list[0]);
    switch ((NpFunc)n->axis) {
    case NP_SUM: case NP_PROD: case NP_MEAN:
        S(", false)");
        return;
    case NP_NANSUM: case NP_NANPROD: case NP_NANMEAN:
        S(", true)");
        return;
    case NP_MAX: case NP_AMAX: case NP_MIN: case NP_AMIN: case NP_NANMAX: case NP_NANMIN:
        P(", %d, %s)", n->axis == NP_MAX || n->axis == NP_AMAX || n->axis == NP_NANMAX ? 1 : -1,
          n->axis == NP_NANMAX || n->axis == NP_NANMIN ? "true" : "false");
        return;
    case NP_VAR:
        S(")");
        return;
    case NP_STD:
        S("))");
        return;
    case NP_ALL:
        S(", false)");
        return;
    case NP_ANY:
        S(", true)");
        return;
    case NP_ARGMIN: case NP_ARGMAX:
        P(", %d)", n->axis == NP_ARGMAX ? 1 : -1);
        return;
    default:
        S(")");
        return;
    }
}

/* cmath.f(z ...): cj_c<f>(z converted to the call's complex type ...) */
static void
cmath_call(Cg *g, Node *n)
{
    DType dt = DT_C64;
    for (int i = 0; i < n->n; i++) {
        const Type *x = cj_concrete(cg_type(g, n->list[i]));
        if (!(x->dtype == DT_C64 || x->dtype == DT_F32 || cj_is_half(x->dtype))) {
            dt = DT_C128;
        }
    }
    const NpFuncInfo *fi = &cj_np_funcs[n->axis];
    if (n->axis == NP_C_POLAR) {
        P("cj_cpolar<%s>(", cg_ctype(g, cg_type(g, n)));
    } else {
        P("cj_c%s(", fi->name);
    }
    const Type *arg = cj_scalar(n->axis == NP_C_RECT ? (dt == DT_C64 ? DT_F32 : DT_F64) : dt);
    for (int i = 0; i < n->n; i++) {
        S(i ? ", " : "");
        cg_conv(g, n->list[i], arg, PR_COMMA);
    }
    S(")");
}

void
cg_npfunc(Cg *g, Node *n, int prec)
{
    (void)prec;
    char kind = cj_np_funcs[n->axis].kind;
    if (kind == 'c') {
        cmath_call(g, n);
        return;
    }
    if (kind == 'm') {
        cg_array_method(g, n);
        return;
    }
    if (kind == 'u') {
        cg_ufunc(g, n);
        return;
    }
    reduce_call(g, n);
}
