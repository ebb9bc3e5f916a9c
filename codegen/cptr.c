/* cptr.c - cuda.carray / farray(ptr, shape, dtype) in CUDA: cj_carray<T, N,
 * I>(ptr, {extents}, f) (codegen/prelude.c) builds the array's view struct
 * over the pointer, strides in bytes for C or Fortran order. */
#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

void
cg_carray(Cg *g, Node *n)
{
    const Type *rt = cg_type(g, n);
    const char *ity = g->p->idx32 ? "int" : "long long";
    Node *s = n->list[1];
    P("cj_carray<%s, %d, %s>(", cj_dtypes[rt->dtype].ctype, rt->ndim, ity);
    cg_expr(g, n->list[0], PR_COMMA);
    S(", {");
    if (cg_type(g, s)->kind != TY_TUPLE) {
        cg_conv(g, s, cj_scalar(g->p->idx32 ? DT_I32 : DT_I64), PR_COMMA);
    }
    for (int i = 0; cg_type(g, s)->kind == TY_TUPLE && i < rt->ndim; i++) {
        P("%s(%s)(", i ? ", " : "", ity);
        cg_tuple_elem(g, s, i, PR_COMMA);
        S(")");
    }
    P("}, %s)", n->axis ? "true" : "false");
}
