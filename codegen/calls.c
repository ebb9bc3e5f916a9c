/* calls.c - CUDA C++ for builtin calls and device-function calls. */
#include <stdio.h>
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

static const Type *
arg_type(Cg *g, Node *n, int i)
{
    return cg_type(g, n->list[i]);
}

static int
is64(const Type *t)
{
    return t->kind == TY_SCALAR && cj_dtypes[t->dtype].size == 8;
}

/* name of the CUDA math function for a float type */
static void
math_fn(Cg *g, Node *n, const char *base, const Type *ft)
{
    int f16 = cj_is_half(ft->dtype);
    const Type *work = f16 ? cj_scalar(DT_F32) : ft;
    const char *suffix = work->dtype == DT_F32 ? "f" : "";
    if (f16) {
        P("%s(", cj_dtypes[ft->dtype].ctype);
    }
    P("%s%s(", base, suffix);
    for (int i = 0; i < n->n; i++) {
        if (i) {
            S(", ");
        }
        cg_conv(g, n->list[i], work, PR_COMMA);
    }
    S(")");
    if (f16) {
        S(")");
    }
}

static const char *
math_name(int bi)
{
    switch (bi) {
    case BI_SQRT: return "sqrt";
    case BI_EXP: return "exp";
    case BI_EXPM1: return "expm1";
    case BI_LOG: return "log";
    case BI_LOG1P: return "log1p";
    case BI_LOG2: return "log2";
    case BI_LOG10: return "log10";
    case BI_POW: return "pow";
    case BI_SIN: return "sin";
    case BI_COS: return "cos";
    case BI_TAN: return "tan";
    case BI_ASIN: return "asin";
    case BI_ACOS: return "acos";
    case BI_ATAN: return "atan";
    case BI_ATAN2: return "atan2";
    case BI_SINH: return "sinh";
    case BI_COSH: return "cosh";
    case BI_TANH: return "tanh";
    case BI_ASINH: return "asinh";
    case BI_ACOSH: return "acosh";
    case BI_ATANH: return "atanh";
    case BI_HYPOT: return "hypot";
    case BI_FLOOR: return "floor";
    case BI_CEIL: return "ceil";
    case BI_TRUNC: return "trunc";
    case BI_FABS: return "fabs";
    case BI_FMOD: return "fmod";
    case BI_COPYSIGN: return "copysign";
    case BI_ERF: return "erf";
    case BI_ERFC: return "erfc";
    case BI_GAMMA: return "tgamma";
    case BI_LGAMMA: return "lgamma";
    case BI_ISNAN: return "isnan";
    case BI_ISINF: return "isinf";
    case BI_ISFINITE: return "isfinite";
    case BI_CBRT: return "cbrt";
    case BI_FMA: return "fma";
    default: return NULL;
    }
}

/* the float type a math call computes in: in a cuda.jit kernel its float
 * result's (Numba's typing, numba_math_float in typeinfer/calls.c) */
static const Type *
math_work_type(Cg *g, Node *n)
{
    const Type *rt = cg_type(g, n);
    if (g->p->numba && rt->kind == TY_SCALAR && cj_dtypes[rt->dtype].kind == 'f') {
        return rt;
    }
    const Type *r = NULL;
    for (int i = 0; i < n->n; i++) {
        const Type *x = g->in->ntype[n->list[i]->id];
        r = r ? cj_promote(r, x) : x;
    }
    r = cj_concrete(r);
    DType f = cj_float_for(r->dtype);
    return cj_scalar(f == DT_F16 && r->dtype != DT_F16 && !g->in->fn->numpy_math ? DT_F32 : f);
}

static void
math_call(Cg *g, Node *n, int prec)
{
    const Type *ft = math_work_type(g, n);
    const Type *rt = cg_type(g, n);
    const char *name = math_name(n->op);
    if (n->op == BI_ISNAN || n->op == BI_ISINF || n->op == BI_ISFINITE) {
        const Type *at = arg_type(g, n, 0);
        char k = cj_dtypes[at->dtype].kind;
        if (k == 'i' || k == 'u' || k == 'b') {
            S(n->op == BI_ISFINITE ? "true" : "false");
            return;
        }
        P("%s(", name);
        cg_conv(g, n->list[0], cj_is_half(ft->dtype) ? cj_scalar(DT_F32) : ft, PR_COMMA);
        S(")");
        return;
    }
    if (n->op == BI_LOG && n->n == 2) {
        /* math.log(x, base) */
        const char *sfx = ft->dtype == DT_F32 ? "f" : "";
        cg_open(g, prec, PR_MUL);
        P("log%s(", sfx);
        cg_conv(g, n->list[0], ft, PR_COMMA);
        P(") / log%s(", sfx);
        cg_conv(g, n->list[1], ft, PR_COMMA);
        S(")");
        cg_close(g, prec, PR_MUL);
        return;
    }
    if (n->op == BI_FLOOR || n->op == BI_CEIL || n->op == BI_TRUNC) {
        const Type *at = arg_type(g, n, 0);
        char k = cj_dtypes[at->dtype].kind;
        if (k != 'f') {
            cg_conv(g, n->list[0], rt, prec);
            return;
        }
        cg_open(g, prec, PR_UNARY);
        P("(%s)", cj_dtypes[rt->dtype].ctype);
        math_fn(g, n, name, ft);
        cg_close(g, prec, PR_UNARY);
        return;
    }
    math_fn(g, n, name, ft);
}

/* isinstance(x, T or (T1, ...)): x's type (a Python literal's default) is one of them */
static int
isinstance_value(Cg *g, Node *n)
{
    const Type *x = cj_concrete(arg_type(g, n, 0)), *c = arg_type(g, n, 1);
    if (c->kind == TY_DTYPE) {
        return x->kind == TY_SCALAR && x->dtype == c->dtype;
    }
    for (int i = 0; i < c->ntup; i++) {
        if (x->kind == TY_SCALAR && x->dtype == c->tup[i]->dtype) {
            return 1;
        }
    }
    return 0;
}

/* ---- intrinsics (cj_intrins: cuda.fp16, math.exp2 and friends, cuda.libdevice) ---- */

static const Type *
intrin_letter_type(char c, const Type *work)
{
    switch (c) {
    case 'b': return cj_scalar(DT_BOOL);
    case 'i': return cj_scalar(DT_I32);
    case 'u': return cj_scalar(DT_U32);
    case 'l': return cj_scalar(DT_I64);
    case 'L': return cj_scalar(DT_U64);
    case 'w': return cj_scalar(DT_U16);
    case 'h': return cj_scalar(DT_F16);
    case 'y': return cj_scalar(DT_BF16);
    case 'c': return cj_scalar(DT_I8);
    case 'C': return cj_scalar(DT_U8);
    case 's': return cj_scalar(DT_I16);
    case 'f': return cj_scalar(DT_F32);
    case 'F': return work;
    default: return cj_scalar(DT_F64);
    }
}

/* the type an intrinsic's 'F' arguments compute in: math's float type,
 * float16 and bfloat16 in float32 (*half: that 16-bit type, else NULL) */
static const Type *
intrin_work(Cg *g, Node *n, const char *args, const Type **half)
{
    const Type *r = NULL;
    int k = 0;
    for (const char *c = args; *c; c++) {
        if (*c == '*') {
            c++;
            continue;
        }
        if (*c == 'F') {
            const Type *x = g->in->ntype[n->list[k]->id];
            r = r ? cj_promote(r, x) : x;
        }
        k++;
    }
    *half = NULL;
    if (!r) {
        return NULL;
    }
    r = cj_concrete(r);
    DType f = cj_float_for(r->dtype);
    f = f == DT_F16 && r->dtype != DT_F16 && !g->in->fn->numpy_math ? DT_F32 : f;
    *half = cj_is_half(f) ? cj_scalar(f) : NULL;
    return cj_scalar(cj_is_half(f) ? DT_F32 : f);
}

/* name(args...[, &cj_o1, ...]) with each argument converted to its letter's type */
static void
intrin_apply(Cg *g, Node *n, const CjIntrin *in, const Type *work)
{
    int generic = work && strchr(in->sig, 'F') && strncmp(in->cname, "cj_", 3) != 0;
    P("%s%s(", in->cname, generic && work->dtype == DT_F32 ? "f" : "");
    int k = 0, o = 0;
    for (const char *c = in->sig + 1; *c; c++) {
        if (k + o) {
            S(", ");
        }
        if (*c == '*') {
            P("&cj_o%d", o++);
            c++;
            continue;
        }
        cg_conv(g, n->list[k++], intrin_letter_type(*c, work), PR_COMMA);
    }
    S(")");
}

/* a call through pointers: a lambda that returns the tuple
 * (result, *out1, ...) */
static void
intrin_tuple(Cg *g, Node *n, const CjIntrin *in, const Type *work)
{
    const char *tup = cg_ctype(g, cg_type(g, n));
    P("[&]() -> %s { ", tup);
    int o = 0;
    for (const char *c = in->sig + 1; *c; c++) {
        if (*c == '*') {
            c++;
            P("%s cj_o%d; ", cg_ctype(g, intrin_letter_type(*c, work)), o++);
        }
    }
    int ret = in->sig[0] != 'v';
    if (ret) {
        P("%s cj_r = ", cg_ctype(g, intrin_letter_type(in->sig[0], work)));
    }
    intrin_apply(g, n, in, work);
    P("; return %s{%s", tup, ret ? "cj_r" : "");
    for (int i = 0; i < o; i++) {
        P("%scj_o%d", ret || i ? ", " : "", i);
    }
    S("}; }()");
}

static void
intrin_call(Cg *g, Node *n)
{
    const CjIntrin *in = &cj_intrins[n->axis];
    const Type *half;
    const Type *work = intrin_work(g, n, in->sig + 1, &half);
    if (!g->p->intrin_used) {
        g->p->intrin_used = cj_alloc(g->p->arena, (size_t)cj_nintrins);
    }
    g->p->intrin_used[n->axis] = 1;
    if (strchr(in->sig, '*')) {
        intrin_tuple(g, n, in, work);
        return;
    }
    if (half && in->sig[0] == 'F') {
        P("%s(", cj_dtypes[half->dtype].ctype);
    }
    intrin_apply(g, n, in, work);
    if (half && in->sig[0] == 'F') {
        S(")");
    }
}

static void
abs_call(Cg *g, Node *n, int prec)
{
    const Type *at = arg_type(g, n, 0);
    char k = cj_dtypes[at->dtype].kind;
    if (k == 'c') {
        S("cj_cabs(");
        cg_expr(g, n->list[0], PR_COMMA);
        S(")");
    } else if (k == 'u' || k == 'b') {
        cg_expr(g, n->list[0], prec);
    } else if (at->dtype == DT_F16) {
        g->p->features |= FEAT_F16_OPS;     /* abs.f16, as Numba */
        S("cj_habs(");
        cg_expr(g, n->list[0], PR_COMMA);
        S(")");
    } else if (at->dtype == DT_BF16) {
        S("cj_bf16(fabsf((float)");        /* exact */
        cg_expr(g, n->list[0], PR_UNARY);
        S("))");
    } else if (k == 'f') {
        P("%s(", at->dtype == DT_F32 ? "fabsf" : "fabs");
        cg_expr(g, n->list[0], PR_COMMA);
        S(")");
    } else {
        if (cj_dtypes[at->dtype].size < 4) {
            P("(%s)", cj_dtypes[at->dtype].ctype);
        }
        P("%s(", is64(at) ? "llabs" : "abs");
        cg_expr(g, n->list[0], PR_COMMA);
        S(")");
    }
}

/* item k of the tuple argument of min(t), max(t), sum(t), as type rt */
static void
tuple_item_as(Cg *g, Node *t, int k, const Type *rt)
{
    P("static_cast<%s>(", cg_ctype(g, rt));
    cg_tuple_elem(g, t, k, PR_COMMA);
    S(")");
}

/* sum(t [, start]): (start + t[0] + t[1] ...) in the result's type */
static void
sum_call(Cg *g, Node *n, int prec)
{
    const Type *rt = cj_concrete(cg_type(g, n));
    const Type *tt = cg_type(g, n->list[0]);
    cg_open(g, prec, PR_ADD);
    if (n->n > 1) {
        cg_conv(g, n->list[1], rt, PR_ADD);
    } else {
        P("static_cast<%s>(0)", cg_ctype(g, rt));
    }
    for (int k = 0; k < tt->ntup; k++) {
        S(" + ");
        tuple_item_as(g, n->list[0], k, rt);
    }
    cg_close(g, prec, PR_ADD);
}

static void
minmax_call(Cg *g, Node *n)
{
    const Type *rt = cg_type(g, n);
    const char *fn = n->op == BI_MIN ? "cj_min" : "cj_max";
    if (rt->kind == TY_SCALAR && (rt->dtype == DT_F32 || rt->dtype == DT_F64)) {
        g->p->features |= FEAT_FMINMAX;
        fn = n->op == BI_MIN ? "cj_fmin" : "cj_fmax";
        if (g->p->numba && n->n == 2) {     /* numba-cuda's max(a, b) of two floats is
                                             * libdevice's fmax: a NaN loses either side */
            fn = rt->dtype == DT_F32 ? (n->op == BI_MIN ? "fminf" : "fmaxf")
                                     : (n->op == BI_MIN ? "fmin" : "fmax");
        }
    }
    const Type *tt = n->n == 1 ? cg_type(g, n->list[0]) : NULL;
    if (tt && tt->kind == TY_TUPLE) {       /* min(t): its items */
        const Type *ct = cj_concrete(rt);
        for (int k = 1; k < tt->ntup; k++) {
            P("%s(", fn);
        }
        tuple_item_as(g, n->list[0], 0, ct);
        for (int k = 1; k < tt->ntup; k++) {
            S(", ");
            tuple_item_as(g, n->list[0], k, ct);
            S(")");
        }
        return;
    }
    for (int i = 1; i < n->n; i++) {
        P("%s(", fn);
    }
    cg_conv(g, n->list[0], rt, PR_COMMA);
    for (int i = 1; i < n->n; i++) {
        S(", ");
        cg_conv(g, n->list[i], rt, PR_COMMA);
        S(")");
    }
}

static void
round_call(Cg *g, Node *n, int prec)
{
    const Type *at = arg_type(g, n, 0);
    const Type *rt = cg_type(g, n);
    if (n->n == 2 && cj_dtypes[rt->dtype].kind == 'f' && rt->dtype != at->dtype) {
        at = rt;        /* Numba's round(int or float16, n): rounded in its float result */
    }
    char k = cj_dtypes[at->dtype].kind;
    if (k != 'f') {
        cg_conv(g, n->list[0], rt, prec);
        return;
    }
    const Type *work = cj_is_half(at->dtype) ? cj_scalar(DT_F64) : at;
    const char *rint = work->dtype == DT_F32 ? "rintf" : "rint";
    if (n->n == 1) {
        cg_open(g, prec, PR_UNARY);
        P("(%s)%s(", cj_dtypes[rt->dtype].ctype, rint);
        cg_conv(g, n->list[0], work, PR_COMMA);
        S(")");
        cg_close(g, prec, PR_UNARY);
        return;
    }
    int64_t d;
    int most = work->dtype == DT_F32 ? 38 : 308;    /* 10**d a constant of the work type */
    if (!cj_fold_int(n->list[1], &d) || d > most || d < -most) {
        /* ndigits known when the kernel runs, or beyond the type's range:
         * CPython's fallback algorithm in double */
        g->p->features |= FEAT_MATH_EXTRA;
        cg_open(g, prec, PR_UNARY);
        P("(%s)cj_round_nd(", cj_dtypes[rt->dtype].ctype);
        cg_conv(g, n->list[0], cj_scalar(DT_F64), PR_COMMA);
        S(", ");
        cg_conv(g, n->list[1], cj_scalar(DT_I64), PR_COMMA);
        S(")");
        cg_close(g, prec, PR_UNARY);
        return;
    }
    /* round(x, d): half to even at d decimals (NumPy's way) */
    char scale[48];
    snprintf(scale, sizeof scale, "1e%lld%s", (long long)(d < 0 ? -d : d),
             work->dtype == DT_F32 ? "f" : "");
    if (cj_is_half(at->dtype)) {
        /* float16 from float (as before); bfloat16 from the double, one rounding */
        P("%s((%s)(", cj_dtypes[at->dtype].ctype, at->dtype == DT_F16 ? "float" : "double");
    }
    cg_open(g, prec, PR_MUL);
    P("%s(", rint);
    cg_conv(g, n->list[0], work, PR_MUL);
    P(" %s %s) %s %s", d >= 0 ? "*" : "/", scale, d >= 0 ? "/" : "*", scale);
    cg_close(g, prec, PR_MUL);
    if (cj_is_half(at->dtype)) {
        S("))");
    }
}

static const char *
atomic_fn(int bi)
{
    switch (bi) {
    case BI_ATOMIC_ADD: return "cj_atomic_add";
    case BI_ATOMIC_SUB: return "cj_atomic_sub";
    case BI_ATOMIC_MAX: return "cj_atomic_max";
    case BI_ATOMIC_MIN: return "cj_atomic_min";
    case BI_ATOMIC_EXCH: return "cj_atomic_exch";
    case BI_ATOMIC_AND: return "cj_atomic_and";
    case BI_ATOMIC_OR: return "cj_atomic_or";
    case BI_ATOMIC_XOR: return "cj_atomic_xor";
    case BI_ATOMIC_INC: return "cj_atomic_inc";
    case BI_ATOMIC_DEC: return "cj_atomic_dec";
    case BI_ATOMIC_NANMAX: return "cj_atomic_nanmax";
    case BI_ATOMIC_NANMIN: return "cj_atomic_nanmin";
    default: return "cj_atomic_cas";
    }
}

static void
atomic_call(Cg *g, Node *n)
{
    const Type *at = arg_type(g, n, 0);
    const Type *el = cj_scalar(at->dtype);
    int op = n->op;
    if ((op == BI_ATOMIC_NANMAX || op == BI_ATOMIC_NANMIN) && cj_dtypes[at->dtype].kind != 'f') {
        op = op == BI_ATOMIC_NANMAX ? BI_ATOMIC_MAX : BI_ATOMIC_MIN;   /* no NaN in integers */
    }
    P("%s(&", atomic_fn(op));
    cg_element(g, n->list[0], n->list[1]);
    for (int i = 2; i < n->n; i++) {
        S(", ");
        cg_conv(g, n->list[i], el, PR_COMMA);
    }
    S(")");
}

static void
shfl_call(Cg *g, Node *n, int prec)
{
    static const char *const fns[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                      "__shfl_xor_sync"};
    const char *fn = fns[n->op - BI_SHFL_SYNC];
    const Type *vt = cg_type(g, n);
    char k = cj_dtypes[vt->dtype].kind;
    const Type *u32 = cj_scalar(DT_U32), *i32 = cj_scalar(DT_I32);
    if (k == 'c') {
        const char *ct = cj_dtypes[vt->dtype].ctype;
        P("[&]() -> %s { %s cj_s = ", ct, ct);
        cg_expr(g, n->list[1], PR_ASSIGN);
        S("; unsigned cj_mask = ");
        cg_conv(g, n->list[0], u32, PR_ASSIGN);
        S("; int cj_l = ");
        cg_conv(g, n->list[2], i32, PR_ASSIGN);
        S("; int cj_w = ");
        if (n->n == 4) {
            cg_conv(g, n->list[3], i32, PR_ASSIGN);
        } else {
            S("32");
        }
        P("; return %s(%s(cj_mask, cj_s.re, cj_l, cj_w), %s(cj_mask, cj_s.im, cj_l, cj_w)); }()",
          ct, fn, fn);
        return;
    }
    int narrow = cj_dtypes[vt->dtype].size < 4;
    if (narrow) {
        cg_open(g, prec, PR_UNARY);
        P("(%s)", cj_dtypes[vt->dtype].ctype);
    }
    P("%s(", fn);
    cg_conv(g, n->list[0], u32, PR_COMMA);
    S(", ");
    cg_conv(g, n->list[1], narrow ? (cj_is_half(vt->dtype) ? cj_scalar(DT_F32) : i32) : vt,
            PR_COMMA);
    S(", ");
    cg_conv(g, n->list[2], n->op == BI_SHFL_SYNC || n->op == BI_SHFL_XOR_SYNC ? i32 : u32,
            PR_COMMA);
    S(", ");
    if (n->n == 4) {
        cg_conv(g, n->list[3], i32, PR_COMMA);
    } else {
        S("32");
    }
    S(")");
    if (narrow) {
        cg_close(g, prec, PR_UNARY);
    }
}

/* selp(p, a, b): cj_selp<T>(p, a, b) in the result type T, a call as in
 * Numba: both values are evaluated, so no branch guards a load in them */
static void
selp_call(Cg *g, Node *n)
{
    const Type *rt = cg_type(g, n);
    P("cj_selp<%s>(", cg_ctype(g, rt));
    cg_truth(g, n->list[0], PR_ASSIGN);
    S(", ");
    cg_conv(g, n->list[1], rt, PR_ASSIGN);
    S(", ");
    cg_conv(g, n->list[2], rt, PR_ASSIGN);
    S(")");
}

/* cuda.ld<hint>(a, i) -> cj_ld<hint>(&a[i]); cuda.st<hint>(a, i, v) ->
 * cj_st<hint>(&a[i], (T)v) (prelude.c: PTX ld.global.<hint> / st.global.<hint>);
 * a raw pointer p: &p[i] */
static void
cache_hint_call(Cg *g, Node *n)
{
    int ld = n->op == BI_CACHE_LD;
    const Type *et = cj_scalar(arg_type(g, n, 0)->dtype);
    P("cj_%s%s(&", ld ? "ld" : "st", ld ? cj_ld_hints[n->axis] : cj_st_hints[n->axis]);
    if (arg_type(g, n, 0)->kind == TY_ITER) {
        cg_expr(g, n->list[0], PR_POSTFIX);
        S("[");
        cg_conv(g, n->list[1], cj_scalar(DT_I64), PR_COMMA);
        S("]");
    } else {
        cg_element(g, n->list[0], n->list[1]);
    }
    if (!ld) {
        S(", ");
        cg_conv(g, n->list[2], et, PR_COMMA);
    }
    S(")");
}

/* popc, clz, ffs and brev as Numba defines them: popc and clz count in the
 * argument's own width (clz(uint8(1)) is 7, popc(int8(-1)) is 8: the value
 * is zero-extended and clz takes off the extra bits), ffs gives the
 * 1-based position of the lowest set bit (0 for none), brev reverses 32 or
 * 64 bits */
static void
bits_call(Cg *g, Node *n)
{
    const Type *at = cj_concrete(arg_type(g, n, 0));
    int size = cj_dtypes[at->dtype].size, w = size == 8;
    const char *fn = n->op == BI_POPC ? "__popc" : n->op == BI_CLZ ? "__clz"
                     : n->op == BI_FFS ? "__ffs" : "__brev";
    const Type *u = cj_scalar(w ? DT_U64 : DT_U32);
    int narrow = size < 4 && n->op != BI_BREV;
    if (n->op == BI_CLZ && narrow) {
        S("(");
    }
    P("%s%s(", fn, w ? "ll" : "");
    if (n->op == BI_CLZ || n->op == BI_FFS) {
        S(w ? "(long long)" : "(int)");
    }
    if (narrow) {
        cg_conv(g, n->list[0], cj_scalar(size == 1 ? DT_U8 : DT_U16), PR_UNARY);
    } else {
        cg_conv(g, n->list[0], u, n->op == BI_CLZ || n->op == BI_FFS ? PR_UNARY : PR_COMMA);
    }
    S(")");
    if (n->op == BI_CLZ && narrow) {
        P(" - %d)", 32 - 8 * size);
    }
}

/* printf text for a string literal: C escapes, % doubled */
static void
print_str(Buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '%') {
            buf_puts(b, "%%");
        } else if (c == '"' || c == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, (char)c);
        } else if (c == '\n') {
            buf_puts(b, "\\n");
        } else if (c == '\t') {
            buf_puts(b, "\\t");
        } else if (c < 32 || c == 127) {
            buf_printf(b, "\\%03o", c);
        } else {
            buf_putc(b, (char)c);
        }
    }
}

static const char *
kw_str(Node *n, const char *name, const char *dflt)
{
    for (int k = 0; k < n->n2; k++) {
        if (strcmp(n->kwnames[k], name) == 0) {
            return n->list2[k]->cval.s;
        }
    }
    return dflt;
}

/* the printf format of a value (numba-cuda's: floats with %f, bools as
 * True / False, tuples as Python writes them: (1, 2.000000), (1,)) */
static void
print_fmt(Buf *fmt, const Type *t)
{
    if (t->kind == TY_TUPLE) {
        buf_putc(fmt, '(');
        for (int k = 0; k < t->ntup; k++) {
            buf_puts(fmt, k ? ", " : "");
            print_fmt(fmt, t->tup[k]);
        }
        buf_puts(fmt, t->ntup == 1 ? ",)" : ")");
        return;
    }
    char k = cj_type_kind(t);
    buf_puts(fmt, k == 'b' ? "%s" : k == 'i' ? "%lld" : k == 'u' ? "%llu"
             : k == 'c' ? "(%g%+gj)" : "%f");
}

/* printf's arguments for the value `expr` (C++ text) of type t */
static void
print_vals(Cg *g, const Type *t, const char *expr)
{
    if (t->kind == TY_TUPLE) {
        for (int k = 0; k < t->ntup; k++) {
            print_vals(g, t->tup[k], cj_aprintf(g->p->arena, "%s.f%d", expr, k));
        }
        return;
    }
    char k = cj_type_kind(t);
    if (k == 'b') {
        P(", %s ? \"True\" : \"False\"", expr);
    } else if (k == 'c') {
        P(", %s.re, %s.im", expr, expr);
    } else {
        P(", (%s)%s", k == 'i' ? "long long" : k == 'u' ? "unsigned long long" : "double", expr);
    }
}

/* the conversions (%lld, %f ...) of a printf format; %% is none */
static int
conversions(const char *s)
{
    int n = 0;
    for (; s && *s; s++) {
        if (*s == '%') {
            n += s[1] != '%';
            s += s[1] == '%';
        }
    }
    return n;
}

/* print(a, b, ...): one printf; a tuple that is no variable is evaluated
 * once, into cj_p<i> in a lambda around the printf */
static void
print_call(Cg *g, Node *n)
{
    Buf fmt;
    buf_init(&fmt);
    const char *sep = kw_str(n, "sep", " "), *end = kw_str(n, "end", "\n");
    int temps = 0;
    for (int i = 0; i < n->n; i++) {
        Node *a = n->list[i];
        const Type *t = cg_type(g, a);
        if (i) {
            print_str(&fmt, sep);
        }
        if (a->kind == ND_CONST && a->cval.kind == CK_STR) {
            print_str(&fmt, a->cval.s);
            continue;
        }
        temps |= t->kind == TY_TUPLE && a->kind != ND_VAR;
        print_fmt(&fmt, t);
    }
    print_str(&fmt, end);
    if (conversions(fmt.s) > 32) {
        /* CUDA's printf takes 32 values: the format itself is printed, as
         * numba-cuda does, and the pipeline warns */
        g->p->print_raw = 1;
        P("printf(\"%%s\", \"%s\")", fmt.s);
        buf_free(&fmt);
        return;
    }
    if (temps) {
        S("[&]() { ");
        for (int i = 0; i < n->n; i++) {
            if (cg_type(g, n->list[i])->kind == TY_TUPLE && n->list[i]->kind != ND_VAR) {
                P("%s cj_p%d = ", cg_ctype(g, cg_type(g, n->list[i])), i);
                cg_expr(g, n->list[i], PR_ASSIGN);
                S("; ");
            }
        }
    }
    P("printf(\"%s\"", fmt.s ? fmt.s : "");
    buf_free(&fmt);
    for (int i = 0; i < n->n; i++) {
        Node *a = n->list[i];
        const Type *t = cg_type(g, a);
        if (a->kind == ND_CONST && a->cval.kind == CK_STR) {
            continue;
        }
        if (t->kind == TY_TUPLE) {
            print_vals(g, t, a->kind == ND_VAR ? a->var->cname
                       : cj_aprintf(g->p->arena, "cj_p%d", i));
            continue;
        }
        char k = cj_dtypes[t->dtype].kind;
        S(", ");
        if (k == 'b') {
            cg_expr(g, a, PR_LOR);
            S(" ? \"True\" : \"False\"");
        } else if (k == 'c') {
            cg_expr(g, a, PR_POSTFIX);
            S(".re, ");
            cg_expr(g, a, PR_POSTFIX);
            S(".im");
        } else {
            cg_conv(g, a, cj_scalar(k == 'i' ? DT_I64 : k == 'u' ? DT_U64 : DT_F64), PR_COMMA);
        }
    }
    S(temps ? "); }()" : ")");
}

static void
devfunc_call(Cg *g, Node *n)
{
    Inst *in = g->in->callee[n->id];
    P("%s(", in->cname);
    for (int i = 0; i < n->n; i++) {
        if (i) {
            S(", ");
        }
        if (in->args[i]->kind == TY_RECORD) {
            S("&");             /* records are passed by reference, as Numba does */
            cg_expr(g, n->list[i], PR_UNARY);
            continue;
        }
        cg_conv(g, n->list[i], in->args[i], PR_COMMA);
    }
    S(")");
}

/* the combiner of a collective as a C++ function object */
static void
combiner(Cg *g, Node *n, const char *T)
{
    switch (n->coll & CO_MASK) {
    case CO_SUM:
        S("cj_op_sum()");
        return;
    case CO_MAX:
        S("cj_op_max()");
        return;
    case CO_MIN:
        S("cj_op_min()");
        return;
    case CO_FUNC:
        P("[](%s a, %s b) -> %s { return (%s)%s(a, b); }", T, T, T, T,
          g->in->callee[n->id]->cname);
        return;
    }
    cj_unreachable(g->p->try_, "combiner");
}

/* len() of a tuple or of a static-shape array: a literal of the type typeinfer
 * gave it (4LL where that is int64, as in a cuda.jit kernel: helper templates
 * such as cj_floordiv deduce one type) */
static void
len_literal(Cg *g, Node *n, long long v)
{
    const Type *t = cg_type(g, n);
    P("%lld%s", v, t->kind == TY_SCALAR && t->dtype == DT_I64 ? "LL" : "");
}

/* block_reduce(value, op, valid) -> cj_coll_block_reduce(v, op, valid);
 * block_scan(value, op, inclusive, initial) -> cj_coll_block_scan(v, op, incl, has, init).
 * A float16 sum reduces in float32 and rounds once, as NumPy's float16 sums do
 * (cj_half(cj_coll_block_reduce((float)v, ...))). */
static void
collective_call(Cg *g, Node *n)
{
    static const char *const fns[] = {"cj_coll_block_reduce", "cj_coll_warp_reduce",
                                      "cj_coll_block_scan", "cj_coll_warp_scan"};
    const Type *T = cg_type(g, n);
    int scan = n->op == BI_BLOCK_SCAN || n->op == BI_WARP_SCAN;
    int wide = !scan && T->kind == TY_SCALAR && cj_is_half(T->dtype)
               && (n->coll & CO_MASK) == CO_SUM;
    const char *ct;
    if (wide) {
        P("%s(", cj_dtypes[T->dtype].ctype);
        T = cj_scalar(DT_F32);
    }
    ct = cg_ctype(g, T);
    P("%s(", fns[n->op - BI_BLOCK_REDUCE]);
    cg_conv(g, n->list[0], T, PR_COMMA);
    S(", ");
    combiner(g, n, ct);
    if (scan) {
        P(", %s, %s, ", n->coll & CO_INCLUSIVE ? "true" : "false", n->n > 1 ? "true" : "false");
        if (n->n > 1) {
            cg_conv(g, n->list[1], T, PR_COMMA);
        } else {
            P("(%s)0", ct);
        }
    } else if (n->n > 1) {
        S(", ");
        cg_conv(g, n->list[1], cj_scalar(DT_I64), PR_COMMA);
    } else {
        S(", 0x7fffffffLL");
    }
    S(wide ? "))" : ")");
}

static void
special_reg(Cg *g, Node *n, int prec)
{
    static const char *const regs[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    cg_open(g, prec, PR_UNARY);
    P("(int)%s.%c", regs[n->op - BI_THREADIDX], "xyz"[n->axis]);
    cg_close(g, prec, PR_UNARY);
}

static void
cast_call(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    if (n->op == BI_COMPLEX) {
        const Type *ft = cj_scalar(rt->dtype == DT_C64 ? DT_F32 : DT_F64);
        if (n->n == 1 && cj_dtypes[arg_type(g, n, 0)->dtype].kind == 'c') {
            cg_conv(g, n->list[0], rt, prec);
            return;
        }
        P("%s(", cj_dtypes[rt->dtype].ctype);
        cg_conv(g, n->list[0], ft, PR_COMMA);
        if (n->n == 2) {
            S(", ");
            cg_conv(g, n->list[1], ft, PR_COMMA);
        }
        S(")");
        return;
    }
    if (rt->dtype == DT_BOOL) {
        const Type *at = arg_type(g, n, 0);
        if (at->dtype != DT_BOOL) {
            cg_open(g, prec, PR_UNARY);
            S("(bool)");
            cg_truth(g, n->list[0], PR_UNARY);
            cg_close(g, prec, PR_UNARY);
            return;
        }
    }
    cg_conv(g, n->list[0], rt, prec);
}

void
cg_call(Cg *g, Node *n, int prec)
{
    switch ((BuiltinKind)n->op) {
    case BI_THREADIDX: case BI_BLOCKIDX: case BI_BLOCKDIM: case BI_GRIDDIM:
        special_reg(g, n, prec);
        return;
    case BI_GRID:
    case BI_GRIDSIZE:
        if (n->axis == 1) {
            cg_tuple_elem(g, n, 0, prec);
            return;
        }
        P("%s{", cg_ctype(g, cg_type(g, n)));
        for (int k = 0; k < n->axis; k++) {
            if (k) {
                S(", ");
            }
            cg_tuple_elem(g, n, k, PR_COMMA);
        }
        S("}");
        return;
    case BI_LANEID:
        g->p->features |= FEAT_WARP;
        S("cj_laneid()");
        return;
    case BI_SYNCTHREADS:
        S("__syncthreads()");
        return;
    case BI_SYNCWARP:
        S("__syncwarp(");
        if (n->n) {
            cg_conv(g, n->list[0], cj_scalar(DT_U32), PR_COMMA);
        } else {
            S("0xffffffffu");
        }
        S(")");
        return;
    case BI_SYNCTHREADS_COUNT:
    case BI_SYNCTHREADS_AND:
    case BI_SYNCTHREADS_OR:
        P("%s(", n->op == BI_SYNCTHREADS_COUNT ? "__syncthreads_count"
          : n->op == BI_SYNCTHREADS_AND ? "__syncthreads_and" : "__syncthreads_or");
        cg_truth(g, n->list[0], PR_COMMA);
        S(")");
        return;
    case BI_THREADFENCE:
        S("__threadfence()");
        return;
    case BI_THREADFENCE_BLOCK:
        S("__threadfence_block()");
        return;
    case BI_THREADFENCE_SYSTEM:
        S("__threadfence_system()");
        return;
    case BI_CONST_ARRAY: {
        const Type *t = cg_type(g, n);
        const char *ct = cj_dtypes[t->dtype].ctype;
        P("((const %s *)cj_table%d)", ct, t->table->id);
        return;
    }
    case BI_SHARED_MEMORY:
    case BI_LOCAL_MEMORY:
        cj_fail(g->p->try_, g->fn->file, n->loc, "%s() can only be assigned to a variable",
                cj_builtin_names[n->op]);
    case BI_ATOMIC_ADD: case BI_ATOMIC_SUB: case BI_ATOMIC_MAX: case BI_ATOMIC_MIN:
    case BI_ATOMIC_EXCH: case BI_ATOMIC_AND: case BI_ATOMIC_OR: case BI_ATOMIC_XOR:
    case BI_ATOMIC_INC: case BI_ATOMIC_DEC: case BI_ATOMIC_CAS:
    case BI_ATOMIC_NANMAX: case BI_ATOMIC_NANMIN:
        atomic_call(g, n);
        return;
    case BI_MATCH_ANY_SYNC:
    case BI_MATCH_ALL_SYNC:
        cg_match_call(g, n);
        return;
    case BI_CG_THIS_BLOCK: case BI_CG_THIS_GRID: case BI_CG_TILED_PARTITION:
    case BI_CG_COALESCED: case BI_CG_SYNC: case BI_CG_WAIT: case BI_CG_WAIT_PRIOR:
    case BI_CG_MEMCPY_ASYNC: case BI_CG_METHOD:
        cg_group_call(g, n, prec);
        return;
    case BI_THRUST:
        cg_thrust(g, n, prec);
        return;
    case BI_ARRAY_BEGIN: case BI_ARRAY_END:
        cg_array_iter(g, n, prec);
        return;
    case BI_THRUST_POLICY:
        break;
    case BI_SHFL_SYNC: case BI_SHFL_UP_SYNC: case BI_SHFL_DOWN_SYNC: case BI_SHFL_XOR_SYNC:
        shfl_call(g, n, prec);
        return;
    case BI_ALL_SYNC:
    case BI_ANY_SYNC:
    case BI_EQ_SYNC:
    case BI_BALLOT_SYNC:
        if (n->op != BI_BALLOT_SYNC) {
            S("(bool)");
        }
        P("%s(", n->op == BI_ALL_SYNC ? "__all_sync" : n->op == BI_ANY_SYNC ? "__any_sync"
          : n->op == BI_EQ_SYNC ? "__uni_sync" : "__ballot_sync");
        cg_conv(g, n->list[0], cj_scalar(DT_U32), PR_COMMA);
        S(", ");
        cg_truth(g, n->list[1], PR_COMMA);
        S(")");
        return;
    case BI_ACTIVEMASK:
        S("__activemask()");
        return;
    case BI_LANEMASK_LT:
        S("cj_lanemask_lt()");
        return;
    case BI_SELP:
        selp_call(g, n);
        return;
    case BI_CACHE_LD:
    case BI_CACHE_ST:
        cache_hint_call(g, n);
        return;
    case BI_CARRAY:
        cg_carray(g, n);
        return;
    case BI_NANOSLEEP:
        S("__nanosleep(");
        cg_conv(g, n->list[0], cj_scalar(DT_U32), PR_COMMA);
        S(")");
        return;
    case BI_POPC: case BI_CLZ: case BI_FFS: case BI_BREV:
        bits_call(g, n);
        return;
    case BI_PRINT:
        print_call(g, n);
        return;
    case BI_RANGE:
        break;
    case BI_ISINSTANCE:
        S(isinstance_value(g, n) ? "true" : "false");
        return;
    case BI_LEN: {
        const Type *at = arg_type(g, n, 0);
        if (at->kind == TY_TUPLE || at->sshape) {
            len_literal(g, n, at->kind == TY_TUPLE ? at->ntup : at->sshape[0]);
            return;
        }
        cg_expr(g, n->list[0], PR_POSTFIX);
        S(".shape[0]");
        return;
    }
    case BI_INT: case BI_FLOAT: case BI_BOOL: case BI_COMPLEX: case BI_CAST:
        cast_call(g, n, prec);
        return;
    case BI_ABS:
        abs_call(g, n, prec);
        return;
    case BI_MIN:
    case BI_MAX:
        minmax_call(g, n);
        return;
    case BI_SUM:
        sum_call(g, n, prec);
        return;
    case BI_ROUND:
        round_call(g, n, prec);
        return;
    case BI_CONJUGATE:
        if (cj_dtypes[arg_type(g, n, 0)->dtype].kind == 'c') {
            S("cj_conj(");
            cg_expr(g, n->list[0], PR_COMMA);
            S(")");
        } else {
            cg_expr(g, n->list[0], prec);
        }
        return;
    case BI_SQRT: case BI_EXP: case BI_EXPM1: case BI_LOG: case BI_LOG1P: case BI_LOG2:
    case BI_LOG10: case BI_POW: case BI_SIN: case BI_COS: case BI_TAN: case BI_ASIN:
    case BI_ACOS: case BI_ATAN: case BI_ATAN2: case BI_SINH: case BI_COSH: case BI_TANH:
    case BI_ASINH: case BI_ACOSH: case BI_ATANH: case BI_HYPOT: case BI_FLOOR:
    case BI_CEIL: case BI_TRUNC: case BI_FABS: case BI_FMOD: case BI_COPYSIGN:
    case BI_ERF: case BI_ERFC: case BI_GAMMA: case BI_LGAMMA: case BI_ISNAN:
    case BI_ISINF: case BI_ISFINITE: case BI_CBRT: case BI_FMA:
        math_call(g, n, prec);
        return;
    case BI_INTRIN:
        intrin_call(g, n);
        return;
    case BI_VECTOR:
        cg_vector_ctor(g, n);
        return;
    case BI_BLOCK_REDUCE: case BI_WARP_REDUCE: case BI_BLOCK_SCAN: case BI_WARP_SCAN:
        collective_call(g, n);
        return;
    case BI_DEVFUNC:
        devfunc_call(g, n);
        return;
    case BI_NPFUNC:
        cg_npfunc(g, n, prec);
        return;
    case BI_EXTERN:
        cg_extern_call(g, n);
        return;
    case BI_FROM_BUFFER:
        cg_array_iter(g, n, prec);      /* the first element's address */
        return;
    case BI_COUNT:
        break;
    }
    cj_unreachable(g->p->try_, "call");
}
