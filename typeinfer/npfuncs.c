/* npfuncs.c - the typing of NumPy's functions and array methods in kernels
 * (np.sum(a), a.max(), np.count_nonzero(a) ..., computed by the calling
 * thread over the whole array, with NumPy's result dtypes), of a.copy(),
 * a.view(dtype) and a.reshape(shape), and of cmath's functions. */
#include <stdio.h>
#include <string.h>

#include "ti.h"

static const char *
fname(Node *n)
{
    static char buf[64];
    const NpFuncInfo *fi = &cj_np_funcs[n->axis];
    snprintf(buf, sizeof buf, "%s%s", fi->kind == 'c' ? "cmath." : fi->kind == 'm' ? "a."
             : "np.", fi->name);
    return buf;
}

/* the complex dtype a cmath argument is computed in: complex64 for complex64
 * and float32 (and smaller), complex128 for the rest (Python's complex) */
static DType
complex_dtype(Ti *t, Node *n, Node *a)
{
    Type *x = ti_expr_pub(t, a);
    if (!x) {
        return DT_C128;
    }
    if (!cj_is_numeric(x)) {
        ti_err(t, a, "%s() takes a number, got %s", fname(n), ti_tstr(t, x));
    }
    DType dt = cj_is_weak(x) ? cj_weak_default(x) : x->dtype;
    return dt == DT_C64 || dt == DT_F32 || cj_is_half(dt) ? DT_C64 : DT_C128;
}

static DType
real_of(DType c)
{
    return c == DT_C64 ? DT_F32 : DT_F64;
}

/* cmath.f(z): complex -> complex; isnan / isinf / isfinite -> bool; phase ->
 * float; polar -> (float, float); rect(r, phi) -> complex; log(z, base) */
static Type *
cmath_type(Ti *t, Node *n)
{
    DType dt = complex_dtype(t, n, n->list[0]);
    for (int i = 1; i < n->n; i++) {
        DType d2 = complex_dtype(t, n, n->list[i]);
        dt = dt == DT_C128 || d2 == DT_C128 ? DT_C128 : DT_C64;
    }
    t->p->features |= FEAT_NPFUNC | FEAT_COMPLEX;
    int fn = n->axis;
    if (fn == NP_C_ISNAN || fn == NP_C_ISINF || fn == NP_C_ISFINITE) {
        return cj_scalar(DT_BOOL);
    }
    if (fn == NP_C_PHASE) {
        return cj_scalar(real_of(dt));
    }
    if (fn == NP_C_POLAR) {
        Type **two = cj_alloc(t->p->arena, sizeof(Type *) * 2);
        two[0] = two[1] = cj_scalar(real_of(dt));
        return cj_tuple_type(t->p->arena, two, 2);
    }
    return cj_scalar(dt);
}

/* NumPy's result dtype of a reduction of elements of dtype dt */
static DType
reduce_dtype(NpFunc fn, DType dt)
{
    char k = cj_dtypes[dt].kind;
    int intish = k == 'i' || k == 'u' || k == 'b';
    switch (fn) {
    case NP_SUM: case NP_PROD: case NP_NANSUM: case NP_NANPROD:
        return k == 'u' ? DT_U64 : intish ? DT_I64 : dt;
    case NP_MEAN: case NP_NANMEAN:
        return intish ? DT_F64 : dt;
    case NP_VAR: case NP_STD:
        return intish ? DT_F64 : k == 'c' ? real_of(dt) : dt;
    case NP_ALL: case NP_ANY:
        return DT_BOOL;
    case NP_COUNT_NONZERO: case NP_ARGMIN: case NP_ARGMAX:
        return DT_I64;
    case NP_MIN: case NP_MAX: case NP_AMIN: case NP_AMAX: case NP_NANMIN: case NP_NANMAX:
        return dt;
    default:
        return dt;          /* not a reduction: not asked */
    }
}

/* the element dtypes a reduction takes: numbers and bool; no float16; no
 * complex for the orderings and the nan* family */
static void
check_reduce_dtype(Ti *t, Node *n, DType dt, Type *x)
{
    char k = cj_dtypes[dt].kind;
    NpFunc fn = (NpFunc)n->axis;
    int orders = fn == NP_MIN || fn == NP_MAX || fn == NP_AMIN || fn == NP_AMAX
                 || fn == NP_NANMIN || fn == NP_NANMAX || fn == NP_NANSUM
                 || fn == NP_NANPROD || fn == NP_NANMEAN || fn == NP_ARGMIN || fn == NP_ARGMAX;
    if (dt >= DT_COUNT || cj_is_half(dt)) {
        ti_err(t, n, "%s() in a kernel takes numbers or bool (not float16, bfloat16 or "
               "records), got %s",
               fname(n), ti_tstr(t, x));
    }
    if (k == 'c' && orders) {
        ti_err(t, n, "%s() of complex numbers is not supported in kernels", fname(n));
    }
}

/* np.sum(a) and friends: a reduction of every element of an array (or of a
 * number, as NumPy reduces a 0-d array) in the calling thread */
static Type *
reduce_type(Ti *t, Node *n)
{
    Type *x = ti_expr_pub(t, n->list[0]);
    if (!x) {
        return NULL;
    }
    if (x->kind != TY_ARRAY && !cj_is_numeric(x)) {
        ti_err(t, n, "%s() takes an array, got %s", fname(n), ti_tstr(t, x));
    }
    DType dt = x->kind == TY_ARRAY ? x->dtype : cj_is_weak(x) ? cj_weak_default(x) : x->dtype;
    check_reduce_dtype(t, n, dt, x);
    t->p->features |= FEAT_NPFUNC | (x->kind == TY_ARRAY && x->mem == MEM_DYNSHARED
                                      ? FEAT_DYNSHARED | FEAT_VIEW : 0);
    if (cj_dtypes[dt].kind == 'c') {
        t->p->features |= FEAT_COMPLEX;
    }
    return cj_scalar(reduce_dtype((NpFunc)n->axis, dt));
}

/* a.copy(): a local array of a's static shape (a shared, local or constant
 * array, a global NumPy array), filled with a's elements; it must be
 * assigned to a variable name (as cuda.local.array is) */
static Type *
copy_type(Ti *t, Node *n, Type *a)
{
    if (!a->sshape || a->mem == MEM_DYNSHARED) {
        ti_err(t, n, "a.copy() in a kernel needs an array whose shape is known when the "
               "kernel compiles (a local, shared or constant array, or a global NumPy "
               "array): cujit makes the copy in local memory; %s is not one: copy it into "
               "a cuda.local.array with a loop", ti_tstr(t, a));
    }
    Type *ty = cj_array_type(t->p->arena, a->dtype, a->ndim, 'C');
    ty->mem = MEM_LOCAL;
    ty->sshape = a->sshape;
    return ty;
}

/* a.view(dtype): a's memory read as dtype; another itemsize scales the last
 * dimension, which must be contiguous (NumPy's rule, checked when it runs) */
static Type *
view_type(Ti *t, Node *n, Type *a)
{
    Node *d = n->list[1];
    if (d->kind != ND_CONST || d->cval.kind != CK_DTYPE) {
        ti_err(t, d, "a.view() takes a NumPy dtype known when the kernel compiles "
               "(np.int32, np.float32 ...)");
    }
    DType dt = d->cval.dt;
    if (dt >= DT_COUNT || a->dtype >= DT_COUNT || cj_is_half(dt)) {
        ti_err(t, n, "a.view() in a kernel reads numbers as numbers (not records, float16 or "
               "bfloat16)");
    }
    int same = cj_dtypes[dt].size == cj_dtypes[a->dtype].size;
    if (!same && a->ndim == 0) {
        ti_err(t, n, "a.view() of a 0-d array cannot change the itemsize");
    }
    char layout = a->mem != MEM_GLOBAL ? 'C' : a->layout;
    Type *ty = cj_array_type(t->p->arena, dt, a->ndim, same || layout == 'C' ? layout : 'A');
    ty->readonly = a->readonly || a->mem == MEM_CONST;
    if (cj_dtypes[dt].kind == 'c') {
        t->p->features |= FEAT_COMPLEX;
    }
    return ty;
}

/* a.reshape(d0, d1 ...) | a.reshape((d0, d1 ...)) | a.reshape(d0): a C-order
 * view of a C-contiguous array; one dimension may be -1 */
static Type *
reshape_type(Ti *t, Node *n, Type *a)
{
    int ndim = n->n - 1;
    if (n->n == 2) {
        Type *s = ti_expr_pub(t, n->list[1]);
        if (s && s->kind == TY_TUPLE) {
            ndim = s->ntup;
            for (int i = 0; i < s->ntup; i++) {
                if (!cj_is_numeric(s->tup[i]) || cj_type_kind(s->tup[i]) == 'f'
                    || cj_type_kind(s->tup[i]) == 'c' || cj_type_kind(s->tup[i]) == 'b') {
                    ti_err(t, n->list[1], "a.reshape() takes integers, got %s", ti_tstr(t, s));
                }
            }
        }
    }
    for (int i = 1; i < n->n; i++) {
        Type *x = ti_expr_pub(t, n->list[i]);
        if (x && x->kind != TY_TUPLE && (!cj_is_numeric(x) || (cj_type_kind(x) != 'i'
                                                             && cj_type_kind(x) != 'u'))) {
            ti_err(t, n->list[i], "a.reshape() takes integers or one tuple of them, got %s",
                   ti_tstr(t, x));
        }
        if (x && x->kind == TY_TUPLE && n->n > 2) {
            ti_err(t, n->list[i], "a.reshape() takes integers or one tuple of them");
        }
    }
    if (ndim < 1 || ndim > CJ_MAXDIMS) {
        ti_err(t, n, "a.reshape() gives 1 to %d dimensions in kernels, not %d", CJ_MAXDIMS,
               ndim);
    }
    if (a->mem == MEM_GLOBAL && a->layout != 'C') {
        ti_err(t, n, "a.reshape() in a kernel makes a view, which needs a C-contiguous array; "
               "%s may not be (pass a C-contiguous array, or copy the elements with a loop)",
               ti_tstr(t, a));
    }
    Type *ty = cj_array_type(t->p->arena, a->dtype, ndim, 'C');
    ty->readonly = a->readonly || a->mem == MEM_CONST;
    return ty;
}

/* a.copy(), a.view(dtype), a.reshape(shape) */
static Type *
ti_array_method(Ti *t, Node *n)
{
    Type *a = ti_expr_pub(t, n->list[0]);
    if (!a) {
        return NULL;
    }
    if (a->kind != TY_ARRAY) {
        ti_err(t, n, "%s() is a method of arrays, not of %s", fname(n), ti_tstr(t, a));
    }
    t->p->features |= FEAT_NPFUNC | (a->mem == MEM_DYNSHARED ? FEAT_DYNSHARED | FEAT_VIEW : 0);
    if (n->axis == NP_COPY) {
        return copy_type(t, n, a);
    }
    if (n->axis == NP_VIEW) {
        return view_type(t, n, a);
    }
    return reshape_type(t, n, a);
}

/* a.real, a.imag of an array: a view of the parts of a complex array (of
 * the real dtype, strided); a.real of a real array is a */
Type *
ti_array_part(Ti *t, Node *n, Type *a)
{
    int is_real = n->op == AT_REAL;
    if (a->dtype >= DT_COUNT || (cj_dtypes[a->dtype].kind != 'c' && !is_real)) {
        ti_err(t, n, "%s has no .%s in kernels (.real and .imag of an array are views of a "
               "complex array's parts; .real of a real array is the array)", ti_tstr(t, a),
               is_real ? "real" : "imag");
    }
    if (cj_dtypes[a->dtype].kind != 'c') {
        return a;
    }
    Type *ty = cj_array_type(t->p->arena, real_of(a->dtype), a->ndim, 'A');
    ty->readonly = a->readonly || a->mem == MEM_CONST;
    t->p->features |= FEAT_NPFUNC | FEAT_COMPLEX
                      | (a->mem == MEM_DYNSHARED ? FEAT_DYNSHARED | FEAT_VIEW : 0);
    return ty;
}

/* a.T: the view of a with its axes reversed (C order becomes F order) */
Type *
ti_array_transpose(Ti *t, Type *a)
{
    char layout = a->ndim < 2 ? a->layout : a->layout == 'C' ? 'F' : a->layout == 'F' ? 'C' : 'A';
    Type *ty = cj_array_type(t->p->arena, a->dtype, a->ndim, layout);
    ty->readonly = a->readonly || a->mem == MEM_CONST;
    t->p->features |= FEAT_NPFUNC | FEAT_VIEW | (a->mem == MEM_DYNSHARED ? FEAT_DYNSHARED : 0);
    return ty;
}

/* a.name of an array of records: a strided view of that field of every
 * element (Numba's attribute access on structured arrays) */
Type *
ti_field_view(Ti *t, Node *n, Type *a)
{
    const CjField *f = cj_record_field(a->dtype, n->str);
    if (!f) {
        ti_err_kind(t, n, CE_TYPE, "the records of %s have no field '%s'", ti_tstr(t, a),
                    n->str);
    }
    if (f->nsub) {
        ti_err(t, n, "'%s' is a sub-array field: a view of it across the array is not "
               "supported in kernels; index an element first (a[i].%s)", n->str, n->str);
    }
    /* a view's element type is the field's own: complex wants its whole size */
    int al = cj_is_record(f->dt) ? cj_record(f->dt)->align : cj_dtypes[f->dt].size;
    if (f->offset % al || cj_dtypes[a->dtype].size % al) {
        ti_err(t, n, "field '%s' (offset %d) is not aligned to %d bytes in every element of "
               "%s: a view of it is not supported; read it element by element (a[i].%s)",
               n->str, f->offset, al, ti_tstr(t, a), n->str);
    }
    Type *ty = cj_array_type(t->p->arena, f->dt, a->ndim, 'A');
    ty->readonly = a->readonly || a->mem == MEM_CONST;
    t->p->features |= FEAT_NPFUNC | (a->mem == MEM_DYNSHARED ? FEAT_DYNSHARED | FEAT_VIEW : 0);
    return ty;
}

Type *
ti_npfunc(Ti *t, Node *n)
{
    switch ((NpFunc)n->axis) {
    case NP_SUM: case NP_PROD: case NP_MIN: case NP_MAX: case NP_AMIN: case NP_AMAX:
    case NP_MEAN: case NP_VAR: case NP_STD: case NP_ALL: case NP_ANY: case NP_NANSUM:
    case NP_NANPROD: case NP_NANMIN: case NP_NANMAX: case NP_NANMEAN: case NP_COUNT_NONZERO:
    case NP_ARGMIN: case NP_ARGMAX:
        return reduce_type(t, n);
    case NP_COPY: case NP_VIEW: case NP_RESHAPE:
        return ti_array_method(t, n);
    case NP_C_ACOS: case NP_C_ACOSH: case NP_C_ASIN: case NP_C_ASINH: case NP_C_ATAN:
    case NP_C_ATANH: case NP_C_COS: case NP_C_COSH: case NP_C_EXP: case NP_C_ISFINITE:
    case NP_C_ISINF: case NP_C_ISNAN: case NP_C_LOG: case NP_C_LOG10: case NP_C_PHASE:
    case NP_C_POLAR: case NP_C_RECT: case NP_C_SIN: case NP_C_SINH: case NP_C_SQRT:
    case NP_C_TAN: case NP_C_TANH:
        return cmath_type(t, n);
#define CJ_NP_CASE(e, s, k, lo, hi) case NP_##e:
    CJ_NP_UFUNCS(CJ_NP_CASE)
#undef CJ_NP_CASE
        return ti_ufunc(t, n);
    case NP_COUNT:
        break;
    }
    cj_unreachable(t->p->try_, "npfunc");
}
