/* ufuncs.c - the calls of NumPy's elementwise ufuncs in kernels (np.sin(x),
 * np.maximum(a, b, out), np.add(a, b, out=o)): a BI_NPFUNC node of a kind
 * 'u' row (cj.h's CJ_NP_UFUNCS) whose list is the inputs, then out when
 * given; typeinfer/ufuncs.c types them, codegen/ufuncs.c emits them. */
#include <string.h>

#include "fe_impl.h"

/* the keyword out=: the output array (or a 1-tuple of it, NumPy's other
 * spelling); any other keyword is an error that names what is supported */
static Node *
out_keyword(Fe *f, PyObject *kw, const char *name)
{
    PyObject *key = fe_get(f, kw, S_arg);
    if (key == Py_None || strcmp(fe_utf8(f, key), "out") != 0) {
        fe_fail_kind(f, fe_loc_of(f, kw), CE_TYPE, "np.%s() in a kernel takes the keyword "
                     "out= only, not %s= (where=, casting=, dtype= are not supported: "
                     "compute into out and convert with a loop)", name,
                     key == Py_None ? "**" : fe_utf8(f, key));
    }
    PyObject *v = fe_get(f, kw, S_value);
    Node *o = fe_expr(f, v);
    if (o->kind == ND_TUPLE && o->n == 1) {
        return o->list[0];
    }
    return o;
}

/* ufunc_call := 'np.' ufunc '(' expr {',' expr} [',' out] [',' 'out=' out] ')' */
Node *
fe_ufunc_call(Fe *f, PyObject *e, Node *n, int row, Loc loc)
{
    const NpFuncInfo *fi = &cj_np_funcs[row];
    PyObject *kws = fe_get(f, e, S_keywords);
    int na;
    Node **args = fe_call_args(f, fe_get(f, e, S_args), &na);
    Node *out = NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(kws); k++) {
        Node *o = out_keyword(f, PyList_GET_ITEM(kws, k), fi->name);
        if (out || na > fi->min_args) {
            fe_fail_kind(f, loc, CE_TYPE, "np.%s() got its output array twice", fi->name);
        }
        out = o;
    }
    int got = na + (out != NULL);
    if (na < fi->min_args || got > fi->max_args) {
        fe_fail_kind(f, loc, CE_TYPE, "np.%s() takes %d input%s and an optional output "
                     "array in kernels, got %d argument%s", fi->name, fi->min_args,
                     fi->min_args == 1 ? "" : "s", got, got == 1 ? "" : "s");
    }
    n->op = BI_NPFUNC;
    n->axis = row;
    n->n = got;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(got + 1));
    memcpy(n->list, args, sizeof(Node *) * (size_t)na);
    if (out) {
        n->list[na] = out;
    }
    return n;
}
