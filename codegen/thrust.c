/* thrust.c - jit.thrust (cupyx.jit.thrust) in cujit's own C++: the iterators
 * (a pointer, a strided iterator over a view, constant and counting
 * iterators) and Thrust's algorithms, run in the calling thread as Thrust
 * runs them in device code.  Thrust's own headers do not compile under
 * NVRTC (ARCHITECTURE.md, "jit.thrust"); the algorithms here have Thrust's
 * results, including the order of the pairs they return. */
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

static const char iterators[] =
    "/* jit.thrust: iterators and algorithms (cujit's own, run by the calling thread) */\n"
    "#define CJ_TH static __device__\n"
    "template <typename It> struct cj_itv;\n"
    "template <typename T> struct cj_itv<T *> { typedef T type; };\n"
    "template <typename T> struct cj_itv<const T *> { typedef T type; };\n"
    "template <typename T> struct cj_siter {     /* a 1-d view's elements: s bytes apart */\n"
    "    T *p;\n"
    "    long long s;\n"
    "    __device__ T &operator*() const { return *p; }\n"
    "    __device__ T &operator[](long long k) const { return *(T *)((char *)p + k * s); }\n"
    "    __device__ cj_siter &operator++() { p = (T *)((char *)p + s); return *this; }\n"
    "    __device__ cj_siter &operator--() { p = (T *)((char *)p - s); return *this; }\n"
    "    __device__ cj_siter operator+(long long k) const { return {(T *)((char *)p + k * s), s}; }\n"
    "    __device__ cj_siter operator-(long long k) const { return *this + -k; }\n"
    "    __device__ long long operator-(const cj_siter &o) const\n"
    "    {\n"
    "        return s ? ((char *)p - (char *)o.p) / s : 0;\n"
    "    }\n"
    "    __device__ bool operator==(const cj_siter &o) const { return p == o.p; }\n"
    "    __device__ bool operator!=(const cj_siter &o) const { return p != o.p; }\n"
    "};\n"
    "template <typename T> struct cj_itv<cj_siter<T>> { typedef T type; };\n"
    "template <typename T> struct cj_kiter {     /* make_constant_iterator: v everywhere */\n"
    "    T v;\n"
    "    long long i;\n"
    "    __device__ T operator*() const { return v; }\n"
    "    __device__ T operator[](long long) const { return v; }\n"
    "    __device__ cj_kiter &operator++() { i++; return *this; }\n"
    "    __device__ cj_kiter &operator--() { i--; return *this; }\n"
    "    __device__ cj_kiter operator+(long long k) const { return {v, i + k}; }\n"
    "    __device__ cj_kiter operator-(long long k) const { return {v, i - k}; }\n"
    "    __device__ long long operator-(const cj_kiter &o) const { return i - o.i; }\n"
    "    __device__ bool operator==(const cj_kiter &o) const { return i == o.i; }\n"
    "    __device__ bool operator!=(const cj_kiter &o) const { return i != o.i; }\n"
    "};\n"
    "template <typename T> struct cj_itv<cj_kiter<T>> { typedef T type; };\n"
    "template <typename T> struct cj_niter {     /* make_counting_iterator: v, v + 1, ... */\n"
    "    T v;\n"
    "    __device__ T operator*() const { return v; }\n"
    "    __device__ T operator[](long long k) const { return (T)(v + k); }\n"
    "    __device__ cj_niter &operator++() { v++; return *this; }\n"
    "    __device__ cj_niter &operator--() { v--; return *this; }\n"
    "    __device__ cj_niter operator+(long long k) const { return {(T)(v + k)}; }\n"
    "    __device__ cj_niter operator-(long long k) const { return {(T)(v - k)}; }\n"
    "    __device__ long long operator-(const cj_niter &o) const { return (long long)v - (long long)o.v; }\n"
    "    __device__ bool operator==(const cj_niter &o) const { return v == o.v; }\n"
    "    __device__ bool operator!=(const cj_niter &o) const { return v != o.v; }\n"
    "};\n"
    "template <typename T> struct cj_itv<cj_niter<T>> { typedef T type; };\n"
    "template <typename T> CJ_DEVICE cj_siter<T> operator+(long long k, cj_siter<T> it) { return it + k; }\n"
    "template <typename T> CJ_DEVICE cj_kiter<T> operator+(long long k, cj_kiter<T> it) { return it + k; }\n"
    "template <typename T> CJ_DEVICE cj_niter<T> operator+(long long k, cj_niter<T> it) { return it + k; }\n"
    "template <typename A, typename B> struct cj_pair { A f0; B f1; };\n"
    "template <typename S, typename A, typename B> CJ_DEVICE S cj_pair_to(cj_pair<A, B> p)\n"
    "{\n"
    "    return S{p.f0, p.f1};\n"
    "}\n"
    "template <typename T> CJ_DEVICE void cj_swap(T &a, T &b) { T t = a; a = b; b = t; }\n";

static const char algorithms[] =
    "#define CJ_V(I) typename cj_itv<I>::type\n"
    "template <typename I, typename O> CJ_TH O cj_th_adjacent_difference(I f, I l, O r)\n"
    "{\n"
    "    if (f == l) { return r; }\n"
    "    CJ_V(I) prev = *f;\n"
    "    *r = prev;\n"
    "    for (++f, ++r; f != l; ++f, ++r) { CJ_V(I) v = *f; *r = v - prev; prev = v; }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename V> CJ_TH I cj_th_lower_bound(I f, I l, V v)\n"
    "{\n"
    "    for (long long n = l - f; n > 0;) {\n"
    "        long long h = n / 2;\n"
    "        if (f[h] < v) { f = f + (h + 1); n -= h + 1; } else { n = h; }\n"
    "    }\n"
    "    return f;\n"
    "}\n"
    "template <typename I, typename V> CJ_TH I cj_th_upper_bound(I f, I l, V v)\n"
    "{\n"
    "    for (long long n = l - f; n > 0;) {\n"
    "        long long h = n / 2;\n"
    "        if (!(v < f[h])) { f = f + (h + 1); n -= h + 1; } else { n = h; }\n"
    "    }\n"
    "    return f;\n"
    "}\n"
    "template <typename I, typename V> CJ_TH bool cj_th_binary_search(I f, I l, V v)\n"
    "{\n"
    "    I i = cj_th_lower_bound(f, l, v);\n"
    "    return i != l && !(v < *i);\n"
    "}\n"
    "#define CJ_TH_VEC(name, fn, res) \\\n"
    "    template <typename I, typename J, typename O> CJ_TH O name(I f, I l, J vf, J vl, O o) \\\n"
    "    { \\\n"
    "        for (; vf != vl; ++vf, ++o) { *o = res; } \\\n"
    "        return o; \\\n"
    "    }\n"
    "CJ_TH_VEC(cj_th_lower_bound, lower, cj_th_lower_bound(f, l, *vf) - f)\n"
    "CJ_TH_VEC(cj_th_upper_bound, upper, cj_th_upper_bound(f, l, *vf) - f)\n"
    "CJ_TH_VEC(cj_th_binary_search, search, cj_th_binary_search(f, l, *vf))\n"
    "template <typename I, typename O> CJ_TH O cj_th_copy(I f, I l, O r)\n"
    "{\n"
    "    for (; f != l; ++f, ++r) { *r = *f; }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename V> CJ_TH long long cj_th_count(I f, I l, V v)\n"
    "{\n"
    "    long long c = 0;\n"
    "    for (; f != l; ++f) { c += *f == v; }\n"
    "    return c;\n"
    "}\n"
    "template <typename I, typename J> CJ_TH bool cj_th_equal(I f, I l, J g)\n"
    "{\n"
    "    for (; f != l; ++f, ++g) { if (!(*f == *g)) { return false; } }\n"
    "    return true;\n"
    "}\n"
    "template <typename I, typename V> CJ_TH cj_pair<I, I> cj_th_equal_range(I f, I l, V v)\n"
    "{\n"
    "    return {cj_th_lower_bound(f, l, v), cj_th_upper_bound(f, l, v)};\n"
    "}\n"
    "template <typename I, typename O, typename T> CJ_TH O cj_th_exclusive_scan(I f, I l, O r, T init)\n"
    "{\n"
    "    T acc = init;\n"
    "    for (; f != l; ++f, ++r) { T v = *f; *r = acc; acc = acc + v; }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename O> CJ_TH O cj_th_exclusive_scan(I f, I l, O r)\n"
    "{\n"
    "    return cj_th_exclusive_scan(f, l, r, (CJ_V(I))0);\n"
    "}\n"
    "template <typename K, typename I, typename O, typename T>\n"
    "CJ_TH O cj_th_exclusive_scan_by_key(K kf, K kl, I f, O r, T init)\n"
    "{\n"
    "    T acc = init;\n"
    "    for (bool first = true; kf != kl; ++kf, ++f, ++r) {\n"
    "        if (!first && !(kf[-1] == *kf)) { acc = init; }\n"
    "        first = false;\n"
    "        T v = *f;\n"
    "        *r = acc;\n"
    "        acc = acc + v;\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename K, typename I, typename O> CJ_TH O cj_th_exclusive_scan_by_key(K kf, K kl, I f, O r)\n"
    "{\n"
    "    return cj_th_exclusive_scan_by_key(kf, kl, f, r, (CJ_V(I))0);\n"
    "}\n"
    "template <typename I, typename V> CJ_TH void cj_th_fill(I f, I l, V v)\n"
    "{\n"
    "    for (; f != l; ++f) { *f = v; }\n"
    "}\n"
    "template <typename I, typename V> CJ_TH I cj_th_find(I f, I l, V v)\n"
    "{\n"
    "    for (; f != l; ++f) { if (*f == v) { break; } }\n"
    "    return f;\n"
    "}\n"
    "template <typename M, typename I, typename O> CJ_TH O cj_th_gather(M f, M l, I in, O r)\n"
    "{\n"
    "    for (; f != l; ++f, ++r) { *r = in[*f]; }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename O> CJ_TH O cj_th_inclusive_scan(I f, I l, O r)\n"
    "{\n"
    "    CJ_V(I) acc = 0;\n"
    "    for (bool first = true; f != l; ++f, ++r) {\n"
    "        acc = first ? (CJ_V(I))*f : (CJ_V(I))(acc + *f);\n"
    "        first = false;\n"
    "        *r = acc;\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename K, typename I, typename O> CJ_TH O cj_th_inclusive_scan_by_key(K kf, K kl, I f, O r)\n"
    "{\n"
    "    CJ_V(I) acc = 0;\n"
    "    for (bool first = true; kf != kl; ++kf, ++f, ++r) {\n"
    "        acc = first || !(kf[-1] == *kf) ? (CJ_V(I))*f : (CJ_V(I))(acc + *f);\n"
    "        first = false;\n"
    "        *r = acc;\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename J, typename T> CJ_TH T cj_th_inner_product(I f, I l, J g, T init)\n"
    "{\n"
    "    for (; f != l; ++f, ++g) { init = init + *f * *g; }\n"
    "    return init;\n"
    "}\n"
    "template <typename I> CJ_TH I cj_th_is_sorted_until(I f, I l)\n"
    "{\n"
    "    if (f == l) { return l; }\n"
    "    for (I n = f + 1; n != l; ++f, ++n) { if (*n < *f) { return n; } }\n"
    "    return l;\n"
    "}\n"
    "template <typename I> CJ_TH bool cj_th_is_sorted(I f, I l) { return cj_th_is_sorted_until(f, l) == l; }\n"
    "template <typename T> CJ_DEVICE cj_kiter<T> cj_th_make_constant_iterator(T v) { return {v, 0}; }\n"
    "template <typename T> CJ_DEVICE cj_niter<T> cj_th_make_counting_iterator(T v) { return {v}; }\n"
    "template <typename I, typename J> CJ_TH cj_pair<I, J> cj_th_mismatch(I f, I l, J g)\n"
    "{\n"
    "    for (; f != l && *f == *g; ++f, ++g) {\n"
    "    }\n"
    "    return {f, g};\n"
    "}\n"
    "template <typename I, typename T> CJ_TH T cj_th_reduce(I f, I l, T init)\n"
    "{\n"
    "    for (; f != l; ++f) { init = init + *f; }\n"
    "    return init;\n"
    "}\n"
    "template <typename I> CJ_TH CJ_V(I) cj_th_reduce(I f, I l) { return cj_th_reduce(f, l, (CJ_V(I))0); }\n"
    "template <typename K, typename I, typename KO, typename VO>\n"
    "CJ_TH cj_pair<KO, VO> cj_th_reduce_by_key(K kf, K kl, I f, KO ko, VO vo)\n"
    "{\n"
    "    if (kf == kl) { return {ko, vo}; }\n"
    "    CJ_V(K) key = *kf;\n"
    "    CJ_V(I) acc = *f;\n"
    "    for (++kf, ++f; kf != kl; ++kf, ++f) {\n"
    "        if (*kf == key) { acc = acc + *f; continue; }\n"
    "        *ko = key; *vo = acc; ++ko; ++vo;\n"
    "        key = *kf; acc = *f;\n"
    "    }\n"
    "    *ko = key; *vo = acc; ++ko; ++vo;\n"
    "    return {ko, vo};\n"
    "}\n"
    "template <typename I, typename O, typename V> CJ_TH O cj_th_remove_copy(I f, I l, O r, V v)\n"
    "{\n"
    "    for (; f != l; ++f) { if (!(*f == v)) { *r = *f; ++r; } }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename V> CJ_TH I cj_th_remove(I f, I l, V v) { return cj_th_remove_copy(f, l, f, v); }\n"
    "template <typename I, typename O, typename A, typename B> CJ_TH O cj_th_replace_copy(I f, I l, O r, A a, B b)\n"
    "{\n"
    "    for (; f != l; ++f, ++r) { CJ_V(I) v = *f; *r = v == a ? (CJ_V(I))b : v; }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename A, typename B> CJ_TH void cj_th_replace(I f, I l, A a, B b) { cj_th_replace_copy(f, l, f, a, b); }\n"
    "template <typename I> CJ_TH void cj_th_reverse(I f, I l)\n"
    "{\n"
    "    while (f != l && f != --l) { cj_swap(*f, *l); ++f; }\n"
    "}\n"
    "template <typename I, typename O> CJ_TH O cj_th_reverse_copy(I f, I l, O r)\n"
    "{\n"
    "    while (f != l) { --l; *r = *l; ++r; }\n"
    "    return r;\n"
    "}\n"
    "template <typename I, typename M, typename O> CJ_TH void cj_th_scatter(I f, I l, M m, O r)\n"
    "{\n"
    "    for (; f != l; ++f, ++m) { r[*m] = *f; }\n"
    "}\n"
    "template <typename I, typename A, typename B> CJ_TH void cj_th_sequence(I f, I l, A init, B step)\n"
    "{\n"
    "    for (long long i = 0; f != l; ++f, ++i) { *f = (CJ_V(I))((CJ_V(I))init + (CJ_V(I))i * (CJ_V(I))step); }\n"
    "}\n"
    "template <typename I, typename A> CJ_TH void cj_th_sequence(I f, I l, A init) { cj_th_sequence(f, l, init, 1); }\n"
    "template <typename I> CJ_TH void cj_th_sequence(I f, I l) { cj_th_sequence(f, l, 0, 1); }\n"
    "/* the set operations on sorted ranges: what of each side is written (bit 0:\n"
    " * an element only in the first, 1: only in the second, 2: in both, taken\n"
    " * from the first), each key with its value where values are given */\n"
    "template <int W, bool V2, typename K1, typename K2, typename V1, typename V2T, typename KO, typename VO>\n"
    "CJ_TH cj_pair<KO, VO> cj_th_set_op(K1 a, K1 al, K2 b, K2 bl, V1 va, V2T vb, KO ko, VO vo, bool vals)\n"
    "{\n"
    "    while (a != al || b != bl) {\n"
    "        int side = a == al ? 1 : b == bl ? 0 : *a < *b ? 0 : *b < *a ? 1 : 2;\n"
    "        if (W & (1 << side)) {\n"
    "            if (side == 1) { *ko = *b; } else { *ko = *a; }\n"
    "            if (vals) {\n"
    "                if (side == 1) { if (V2) { *vo = *vb; } } else { *vo = *va; }\n"
    "                ++vo;\n"
    "            }\n"
    "            ++ko;\n"
    "        }\n"
    "        if (side != 1) { ++a; if (vals) { ++va; } }\n"
    "        if (side != 0) { ++b; if (vals && V2) { ++vb; } }\n"
    "        if ((W == 1 || W == 4) && (a == al || (W == 4 && b == bl))) { break; }\n"
    "    }\n"
    "    return {ko, vo};\n"
    "}\n"
    "#define CJ_TH_SET(name, W) \\\n"
    "    template <typename A, typename B, typename O> CJ_TH O cj_th_##name(A a, A al, B b, B bl, O o) \\\n"
    "    { \\\n"
    "        return cj_th_set_op<W, false>(a, al, b, bl, a, a, o, o, false).f0; \\\n"
    "    }\n"
    "CJ_TH_SET(set_difference, 1)\n"
    "CJ_TH_SET(set_intersection, 4)\n"
    "CJ_TH_SET(set_symmetric_difference, 3)\n"
    "CJ_TH_SET(set_union, 7)\n"
    "#define CJ_TH_SET_BY_KEY(name, W) \\\n"
    "    template <typename A, typename B, typename VA, typename VB, typename KO, typename VO> \\\n"
    "    CJ_TH cj_pair<KO, VO> cj_th_##name(A a, A al, B b, B bl, VA va, VB vb, KO ko, VO vo) \\\n"
    "    { \\\n"
    "        return cj_th_set_op<W, true>(a, al, b, bl, va, vb, ko, vo, true); \\\n"
    "    }\n"
    "CJ_TH_SET_BY_KEY(set_difference_by_key, 1)\n"
    "CJ_TH_SET_BY_KEY(set_symmetric_difference_by_key, 3)\n"
    "CJ_TH_SET_BY_KEY(set_union_by_key, 7)\n"
    "template <typename A, typename B, typename VA, typename KO, typename VO>\n"
    "CJ_TH cj_pair<KO, VO> cj_th_set_intersection_by_key(A a, A al, B b, B bl, VA va, KO ko, VO vo)\n"
    "{\n"
    "    return cj_th_set_op<4, false>(a, al, b, bl, va, va, ko, vo, true);\n"
    "}\n"
    "/* sort: heapsort, in place; stable_sort: insertion sort (stable, O(n^2)) */\n"
    "template <bool KV, typename K, typename V> CJ_TH void cj_th_sift(K k, V v, long long i, long long n)\n"
    "{\n"
    "    for (long long c; (c = 2 * i + 1) < n; i = c) {\n"
    "        if (c + 1 < n && k[c] < k[c + 1]) { c++; }\n"
    "        if (!(k[i] < k[c])) { break; }\n"
    "        cj_swap(k[i], k[c]);\n"
    "        if (KV) { cj_swap(v[i], v[c]); }\n"
    "    }\n"
    "}\n"
    "template <bool KV, typename K, typename V> CJ_TH void cj_th_heapsort(K k, K kl, V v)\n"
    "{\n"
    "    long long n = kl - k;\n"
    "    for (long long i = n / 2 - 1; i >= 0; i--) { cj_th_sift<KV>(k, v, i, n); }\n"
    "    for (long long e = n - 1; e > 0; e--) {\n"
    "        cj_swap(k[0], k[e]);\n"
    "        if (KV) { cj_swap(v[0], v[e]); }\n"
    "        cj_th_sift<KV>(k, v, 0, e);\n"
    "    }\n"
    "}\n"
    "template <bool KV, typename K, typename V> CJ_TH void cj_th_insertion(K k, K kl, V v)\n"
    "{\n"
    "    long long n = kl - k;\n"
    "    for (long long i = 1; i < n; i++) {\n"
    "        CJ_V(K) x = k[i];\n"
    "        CJ_V(V) y = v[i];\n"
    "        long long j = i;\n"
    "        for (; j > 0 && x < k[j - 1]; j--) {\n"
    "            k[j] = k[j - 1];\n"
    "            if (KV) { v[j] = v[j - 1]; }\n"
    "        }\n"
    "        k[j] = x;\n"
    "        if (KV) { v[j] = y; }\n"
    "    }\n"
    "}\n"
    "template <typename I> CJ_TH void cj_th_sort(I f, I l) { cj_th_heapsort<false>(f, l, f); }\n"
    "template <typename K, typename V> CJ_TH void cj_th_sort_by_key(K f, K l, V v) { cj_th_heapsort<true>(f, l, v); }\n"
    "template <typename I> CJ_TH void cj_th_stable_sort(I f, I l) { cj_th_insertion<false>(f, l, f); }\n"
    "template <typename K, typename V> CJ_TH void cj_th_stable_sort_by_key(K f, K l, V v) { cj_th_insertion<true>(f, l, v); }\n"
    "template <typename I, typename J> CJ_TH J cj_th_swap_ranges(I f, I l, J g)\n"
    "{\n"
    "    for (; f != l; ++f, ++g) { cj_swap(*f, *g); }\n"
    "    return g;\n"
    "}\n"
    "template <typename K, typename V> CJ_TH cj_pair<K, V> cj_th_unique_by_key(K f, K l, V v)\n"
    "{\n"
    "    if (f == l) { return {f, v}; }\n"
    "    K r = f;\n"
    "    V rv = v;\n"
    "    for (++f, ++v; f != l; ++f, ++v) {\n"
    "        if (!(*r == *f)) { ++r; ++rv; *r = *f; *rv = *v; }\n"
    "    }\n"
    "    return {++r, ++rv};\n"
    "}\n"
    "template <typename I> CJ_TH I cj_th_unique(I f, I l) { return cj_th_unique_by_key(f, l, f).f0; }\n";

/* the algorithms' order of complex numbers: NumPy's (the real parts, then
 * the imaginary ones), as CuPy's sort of complex arrays */
static const char complex_order[] =
    "template <typename T> CJ_TH bool operator<(const cj_complex<T> &a, const cj_complex<T> &b)\n"
    "{\n"
    "    return a.re < b.re || (a.re == b.re && a.im < b.im);\n"
    "}\n";

void
cg_thrust_prelude(Buf *b, Features features)
{
    if (features & FEAT_THRUST) {
        buf_puts(b, iterators);
        buf_puts(b, (features & FEAT_COMPLEX) ? complex_order : "");
        buf_puts(b, algorithms);
    }
}

/* pointer 'P', strided 'S', constant 'K', counting 'N' */
const char *
cg_iter_ctype(Cg *g, const Type *t)
{
    const char *ct = cj_dtypes[t->dtype].ctype;
    switch (t->layout) {
    case 'P':
        return cj_aprintf(g->p->arena, "%s *", ct);
    case 'S':
        return cj_aprintf(g->p->arena, "cj_siter<%s>", ct);
    case 'K':
        return cj_aprintf(g->p->arena, "cj_kiter<%s>", ct);
    default:
        return cj_aprintf(g->p->arena, "cj_niter<%s>", ct);
    }
}

/* the first element's address (an argument or view's .data, else the array) */
static void
data_ptr(Cg *g, Node *a, const Type *at)
{
    P("(%s *)", cj_dtypes[at->dtype].ctype);
    cg_expr(g, a, PR_UNARY);
    S(at->mem == MEM_GLOBAL ? ".data" : "");
}

/* a.size of a 1-d array: its static extent or .shape[0] */
static void
extent0(Cg *g, Node *a, const Type *at)
{
    if (at->sshape) {
        P("%lld", (long long)at->sshape[0]);
    } else if (at->mem == MEM_DYNSHARED) {
        P("(long long)(cj_dyn_smem_size() / %d)", cj_dtypes[at->dtype].size);
    } else {
        cg_expr(g, a, PR_POSTFIX);
        S(".shape[0]");
    }
}

/* a.begin() / a.end(): a pointer (contiguous) or {pointer, stride} */
void
cg_array_iter(Cg *g, Node *n, int prec)
{
    Node *a = n->list[0];
    const Type *at = cg_type(g, a), *it = cg_type(g, n);
    int end = n->op == BI_ARRAY_END;
    if (it->layout == 'P') {
        cg_open(g, prec, PR_ADD);
        data_ptr(g, a, at);
        if (end) {
            S(" + ");
            extent0(g, a, at);
        }
        cg_close(g, prec, PR_ADD);
        return;
    }
    P("%s{", cg_iter_ctype(g, it));
    if (end) {
        S("(");
        P("%s *)((char *)", cj_dtypes[at->dtype].ctype);
        cg_expr(g, a, PR_POSTFIX);
        S(".data + (long long)");
        cg_expr(g, a, PR_POSTFIX);
        S(".shape[0] * ");
        cg_expr(g, a, PR_POSTFIX);
        S(".strides[0])");
    } else {
        cg_expr(g, a, PR_POSTFIX);
        S(".data");
    }
    S(", ");
    cg_expr(g, a, PR_POSTFIX);
    S(".strides[0]}");
}

/* it + k, it - k, k + it, smem + k, it - jt: C++'s own operators */
void
cg_iter_binop(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    int diff = rt->kind == TY_SCALAR;
    cg_open(g, prec, diff ? PR_UNARY : PR_ADD);
    if (diff) {
        S("(long long)(");
    }
    cg_expr(g, n->a, PR_ADD);
    S(n->op == OP_ADD ? " + " : " - ");
    cg_expr(g, n->b, PR_ADD + 1);
    if (diff) {
        S(")");
    }
    cg_close(g, prec, diff ? PR_UNARY : PR_ADD);
}

/* it[k] */
void
cg_iter_index(Cg *g, Node *n)
{
    cg_expr(g, n->a, PR_POSTFIX);
    S("[");
    cg_conv(g, n->list[0], cj_scalar(DT_I64), PR_COMMA);
    S("]");
}

/* jit.thrust.name(policy, ...) -> cj_th_name(...): iterators as they are,
 * numbers in their concrete types; a pair becomes the tuple's struct */
void
cg_thrust(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    if (rt->kind == TY_TUPLE) {
        P("cj_pair_to<%s>(", cg_ctype(g, rt));
    }
    P("cj_th_%s(", cj_thrust_names[n->axis]);
    for (int i = 0; i < n->n; i++) {
        const Type *at = cg_type(g, n->list[i]);
        S(i ? ", " : "");
        if (at->kind == TY_ITER) {
            cg_expr(g, n->list[i], PR_COMMA);
        } else if (at->kind == TY_ARRAY) {
            data_ptr(g, n->list[i], at);        /* a shared or local array: its start */
        } else {
            cg_conv(g, n->list[i], cj_concrete(at), PR_COMMA);
        }
    }
    S(rt->kind == TY_TUPLE ? "))" : ")");
    (void)prec;
}
