/* ufuncs.c - the typing of NumPy's elementwise ufuncs in kernels
 * (np.sin(x), np.maximum(a, b, out)): NumPy's loop and result dtypes
 * (common/ufuncs.c), the kinds each ufunc takes, and the output array's
 * dtype, which the result must cast to under NumPy's 'same_kind' rule. */
#include <stdio.h>
#include <string.h>

#include "ti.h"

/* a kind's rank for 'same_kind' casting: bool < unsigned < signed < float
 * < complex; a result casts to an out whose rank is not lower */
static int
kind_rank(DType dt)
{
    switch (cj_dtypes[dt].kind) {
    case 'b': return 0;
    case 'u': return 1;
    case 'i': return 2;
    case 'f': return 3;
    default: return 4;
    }
}

/* the kinds of numbers fn takes in loop dtype dt: an error for the others */
static void
check_loop(Ti *t, Node *n, const char *name, DType dt)
{
    char k = cj_dtypes[dt].kind;
    UfClass c = cj_ufunc_class(n->axis);
    if (cj_ufunc_real_only(n->axis) && k == 'c') {
        ti_err(t, n, "np.%s() takes real numbers, not complex (NumPy has no complex loop "
               "for it)", name);
    }
    if (c == UC_BITS && (k == 'f' || k == 'c')) {
        ti_err(t, n, "np.%s() takes integers or bool, not %s (NumPy has no %s loop for it)",
               name, cj_dtypes[dt].name, k == 'f' ? "float" : "complex");
    }
    if (k == 'b' && (n->axis == NP_U_GCD || n->axis == NP_U_LCM)) {
        ti_err(t, n, "np.%s() takes integers, not bool (NumPy has no bool loop for it)", name);
    }
    if (k == 'b' && (n->axis == NP_U_SUBTRACT || n->axis == NP_U_NEGATIVE)) {
        ti_err(t, n, "np.%s() of bool is not supported (NumPy raises TypeError: use "
               "np.logical_xor or np.logical_not)", name);
    }
}

/* the prelude's helpers the ufuncs of Python's // and %, fmod and power call
 * (cj_mod, cj_modf, cj_ipow ...: codegen/ufuncs.c's divide_ops) */
static Features
ufunc_helpers(int fn)
{
    int divides = fn == NP_U_REMAINDER || fn == NP_U_FLOOR_DIVIDE || fn == NP_U_POWER
                  || fn == NP_U_FMOD;
    return divides ? FEAT_INTDIV | FEAT_FLOATDIV | FEAT_IPOW : 0;
}

/* np.f(x ..., out): out must be a writable array of numbers that the
 * inputs broadcast to, and the result must cast to its dtype */
static Type *
out_type(Ti *t, Node *n, const char *name, Type **in, int nin, DType res)
{
    Node *o = n->list[nin];
    Type *out = ti_expr_pub(t, o);
    if (!out) {
        return NULL;
    }
    if (out->kind != TY_ARRAY) {
        ti_err(t, o, "np.%s(): the output must be an array, got %s", name, ti_tstr(t, out));
    }
    if (out->readonly || out->mem == MEM_CONST) {
        ti_err(t, o, "np.%s(): the output array %s is read-only", name, ti_tstr(t, out));
    }
    if (out->dtype >= DT_COUNT || cj_is_half(out->dtype)) {
        ti_err(t, o, "np.%s(): the output array holds %s; kernels write numbers or bool "
               "(not float16, bfloat16 or records)", name, ti_tstr(t, out));
    }
    if (kind_rank(out->dtype) < kind_rank(res)) {
        ti_err(t, o, "np.%s(): cannot cast the result, %s, to the output's %s under "
               "NumPy's rule 'same_kind'", name, cj_dtypes[res].name,
               cj_dtypes[out->dtype].name);
    }
    for (int i = 0; i < nin; i++) {
        if (in[i]->kind == TY_ARRAY && in[i]->ndim > out->ndim) {
            ti_err(t, n->list[i], "np.%s(): an input of %d dimensions does not broadcast "
                   "to the output's %d", name, in[i]->ndim, out->ndim);
        }
    }
    return out;
}

/* np.f(x ...) of numbers is a number; np.f(x ..., out) of arrays and
 * numbers writes out and is out */
Type *
ti_ufunc(Ti *t, Node *n)
{
    const NpFuncInfo *fi = &cj_np_funcs[n->axis];
    int nin = fi->min_args;
    Type *in[2];
    for (int i = 0; i < nin; i++) {
        in[i] = ti_expr_pub(t, n->list[i]);
        if (!in[i]) {
            return NULL;
        }
        if (in[i]->kind == TY_ARRAY && n->n == nin) {
            ti_err(t, n, "np.%s() of an array in a kernel needs an output array, "
                   "np.%s(%s, out): kernels do not allocate arrays", fi->name, fi->name,
                   nin == 1 ? "a" : "a, b");
        }
    }
    int mixed;
    DType dt = cj_ufunc_loop(n->axis, (const Type *const *)in, nin, &mixed);
    if (dt == DT_COUNT) {
        ti_err(t, n, "np.%s() in a kernel takes numbers, bool, or arrays of them (not "
               "float16, bfloat16 or records), got %s%s%s", fi->name, ti_tstr(t, in[0]),
               nin > 1 ? " and " : "", nin > 1 ? ti_tstr(t, in[1]) : "");
    }
    check_loop(t, n, fi->name, dt);
    DType res = cj_ufunc_result(n->axis, dt);
    t->p->features |= FEAT_NPFUNC | FEAT_MATH | ufunc_helpers(n->axis);
    for (int i = 0; i <= nin && i < n->n; i++) {
        Type *x = i < nin ? in[i] : ti_expr_pub(t, n->list[i]);
        if (x && x->kind == TY_ARRAY && x->mem == MEM_DYNSHARED) {
            t->p->features |= FEAT_DYNSHARED | FEAT_VIEW;
        }
        if (x && x->kind == TY_ARRAY && x->dtype < DT_COUNT && cj_dtypes[x->dtype].kind == 'c') {
            t->p->features |= FEAT_COMPLEX;
        }
    }
    if (cj_dtypes[dt].kind == 'c') {
        t->p->features |= FEAT_COMPLEX;
    }
    if (n->n == nin) {
        return cj_scalar(res);
    }
    return out_type(t, n, fi->name, in, nin, res);
}
