/* cptr.c - the typing of Numba's cuda.carray(ptr, shape, dtype=None) and
 * cuda.farray(...): an array in C (Node.axis 0) or Fortran (1) order over
 * a raw pointer parameter ("dtype*", types.CPointer), of the pointer's
 * dtype; the shape an integer or a tuple of integers, constant or not. */
#include <stdio.h>

#include "ti.h"

static int
is_int(const Type *ty)
{
    char k = cj_type_kind(ty);
    return ty && cj_is_numeric(ty) && (k == 'i' || k == 'u');
}

/* the shape's rank: 1 for an integer, the length of a tuple of integers */
static int
shape_rank(Ti *t, Node *n, Node *s, Type *st, const char *name)
{
    if (is_int(st)) {
        return 1;
    }
    int ok = st && st->kind == TY_TUPLE && st->ntup >= 1 && st->ntup <= CJ_MAXDIMS;
    for (int i = 0; ok && i < st->ntup; i++) {
        ok = is_int(st->tup[i]);
    }
    if (!ok) {
        ti_err(t, s, "%s(): the shape is an integer or a tuple of integers, got %s", name,
               ti_tstr(t, st));
    }
    return st->ntup;
}

Type *
ti_carray_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"ptr", "shape", "dtype"};
    const char *name = n->axis ? "cuda.farray" : "cuda.carray";
    int na = ti_bind_keywords(t, n, pn, 3);
    if (na < 2 || na > 3) {
        ti_err(t, n, "%s(ptr, shape, dtype=None) takes 2 or 3 arguments, got %d", name, na);
    }
    Type *p = ti_expr_pub(t, n->list[0]), *st = ti_expr_pub(t, n->list[1]);
    Type *dt = na == 3 ? ti_expr_pub(t, n->list[2]) : NULL;
    if (!p || !st || (na == 3 && !dt)) {
        return NULL;
    }
    if (p->kind != TY_ITER || p->layout != 'P') {
        ti_err(t, n->list[0], "%s() needs a raw pointer (a parameter typed "
               "types.CPointer(dtype) in the signature), got %s%s", name, ti_tstr(t, p),
               p->kind == TY_ARRAY ? ": an array is one already" : "");
    }
    if (dt && dt->kind != TY_NONE && dt->kind != TY_DTYPE) {
        ti_err(t, n->list[2], "%s(): dtype is a type such as cuda.float32 or None, got %s",
               name, ti_tstr(t, dt));
    }
    if (dt && dt->kind == TY_DTYPE && dt->dtype != p->dtype) {
        ti_err(t, n->list[2], "%s(): dtype %s differs from the pointer's %s; give the "
               "pointer's dtype or leave it out", name, cj_dtypes[dt->dtype].name,
               cj_dtypes[p->dtype].name);
    }
    int nd = shape_rank(t, n, n->list[1], st, name);
    t->p->features |= FEAT_VIEW;        /* cj_carray (codegen/prelude.c) */
    return cj_array_type(t->p->arena, p->dtype, nd, n->axis ? 'F' : 'C');
}
