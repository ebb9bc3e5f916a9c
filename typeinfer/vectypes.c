/* vectypes.c - the typing of CUDA's vector types (Numba's cuda.float32x4
 * ...): their constructors, the lanes .x .y .z .w, and the refusals of
 * what Numba's vector types do not have (arithmetic, indexing). */
#include <stdio.h>
#include <string.h>

#include "ti.h"

/* the vector type of a constructor call (BI_VECTOR: axis the lanes, cval.dt
 * the element's dtype) */
static Type *
call_vector(Node *n)
{
    return cj_vector_type(n->cval.dt, n->axis);
}

/* one argument of a constructor: a real number (1 lane, converted to the
 * element's dtype as a cast does) or a vector of the same element type
 * (its lanes); returns its lanes */
static int
ctor_part(Ti *t, Node *n, Node *a, Type *x, const Type *vt)
{
    if (x->kind == TY_VECTOR && x->dtype == vt->dtype) {
        return x->lanes;
    }
    char k = cj_type_kind(x);
    if (x->kind != TY_VECTOR && cj_is_numeric(x) && k != 'c') {
        ti_weak_to(t, a, cj_scalar(vt->dtype));
        return 1;
    }
    ti_err_kind(t, a, CE_TYPE, "%s() takes numbers and %s vectors (%sx1 ... %sx%d) whose "
                "lanes add up to %d, got %s", ti_tstr(t, vt), cj_dtypes[vt->dtype].name,
                cj_dtypes[vt->dtype].name, cj_dtypes[vt->dtype].name, vt->lanes, vt->lanes,
                ti_tstr(t, x));
}

/* vector := vtype '(' part { ',' part } ')' where the parts' lanes add up
 * to the vector's: float32x4(x, y, z, w), float32x4(v2, z, w), float32x3(v3) */
Type *
ti_vector_ctor(Ti *t, Node *n)
{
    Type *vt = call_vector(n);
    if (n->n2) {
        ti_err_kind(t, n->list2[0], CE_TYPE, "%s() takes no keyword argument '%s'",
                    ti_tstr(t, vt), n->kwnames[0]);
    }
    int lanes = 0;
    for (int i = 0; i < n->n; i++) {
        Type *x = ti_expr_pub(t, n->list[i]);
        if (!x) {
            return NULL;
        }
        lanes += ctor_part(t, n, n->list[i], x, vt);
    }
    if (lanes != vt->lanes) {
        ti_err_kind(t, n, CE_TYPE, "%s() needs %d lane%s from its arguments (numbers, and "
                    "vectors of %s that give their lanes), got %d", ti_tstr(t, vt), vt->lanes,
                    vt->lanes == 1 ? "" : "s", cj_dtypes[vt->dtype].name, lanes);
    }
    return vt;
}

/* the lane an attribute names (x 0, y 1, z 2, w 3), or -1 */
static int
lane_of(const Node *n)
{
    switch (n->op) {
    case AT_X:
    case AT_Y:
    case AT_Z:
        return n->op - AT_X;
    case AT_FIELD:
        return strcmp(n->str, "w") == 0 ? 3 : -1;
    default:
        return -1;
    }
}

/* v.x, v.y, v.z, v.w of a vector with that many lanes: a number of its
 * element type; the lane's index goes in aux */
Type *
ti_vector_attr(Ti *t, Node *n, const Type *x)
{
    int k = lane_of(n);
    if (k < 0 || k >= x->lanes) {
        ti_err_kind(t, n, CE_TYPE, "%s has no attribute '%s' (its lanes: %s)", ti_tstr(t, x),
                    n->str, x->lanes == 1 ? ".x" : x->lanes == 2 ? ".x, .y"
                    : x->lanes == 3 ? ".x, .y, .z" : ".x, .y, .z, .w");
    }
    t->in->aux[n->id] = k;
    return cj_scalar(x->dtype);
}

/* what Numba's vector types lack, said where the kernel asks for it: an
 * operator on a vector ("operator ", "+"), or a vector used as a sequence */
void
ti_vector_refuse(Ti *t, Node *n, const Type *x, const Type *y, const char *what,
                 const char *op)
{
    const Type *v = x && x->kind == TY_VECTOR ? x : y && y->kind == TY_VECTOR ? y : NULL;
    if (!v) {
        return;
    }
    ti_err_kind(t, n, CE_TYPE, "%s%s is not supported on CUDA vector types (%s), as in Numba: "
                "compute on the lanes (.x, .y, .z, .w) and make a new vector from them",
                what, op, ti_tstr(t, v));
}
