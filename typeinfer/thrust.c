/* thrust.c - the typing of jit.thrust (cupyx.jit.thrust): iterators (a.begin(),
 * a.end(), a shared array plus an offset, constant and counting iterators),
 * their arithmetic and indexing, and the algorithms' calls, checked against
 * the forms of CJ_THRUST_ALGOS (common/cj.h). */
#include <stdio.h>
#include <string.h>

#include "ti.h"

static int
is_int(const Type *ty)
{
    char k = cj_type_kind(ty);
    return cj_is_numeric(ty) && (k == 'i' || k == 'u');
}

/* a.begin() / a.end(): a pointer when a is contiguous (layout C, or shared,
 * local or constant memory), else a strided iterator; a must be 1-d */
Type *
ti_array_iter(Ti *t, Node *n)
{
    Type *a = ti_expr_pub(t, n->list[0]);
    const char *what = n->op == BI_ARRAY_BEGIN ? "begin" : "end";
    if (!a) {
        return NULL;
    }
    if (a->kind != TY_ARRAY) {
        ti_err(t, n, "%s() is a method of arrays (a jit.thrust iterator), not of %s", what,
               ti_tstr(t, a));
    }
    if (a->ndim != 1) {
        ti_err(t, n, "%s() needs a 1-d array, got %s: take a row first (x[i].%s())", what,
               ti_tstr(t, a), what);
    }
    t->p->features |= FEAT_THRUST | (a->mem == MEM_DYNSHARED ? FEAT_VIEW : 0);
    int contiguous = a->mem != MEM_GLOBAL || a->layout == 'C';
    return cj_iter_type(t->p->arena, a->dtype, contiguous ? 'P' : 'S');
}

/* it + k, k + it, it - k: an iterator like it; it - jt: int64; a shared,
 * local or dynamic shared 1-d array + k: a pointer (cupyx.jit's smem + 32) */
Type *
ti_iter_binop(Ti *t, Node *n, int op, Type *x, Type *y)
{
    if (x->kind == TY_ARRAY && x->mem != MEM_GLOBAL && x->mem != MEM_CONST && x->ndim == 1
        && is_int(y) && op == OP_ADD) {
        t->p->features |= FEAT_THRUST;
        return cj_iter_type(t->p->arena, x->dtype, 'P');
    }
    if (x->kind == TY_ITER && y->kind == TY_ITER && op == OP_SUB) {
        if (!cj_type_eq(x, y)) {
            ti_err(t, n, "cannot subtract iterators of different kinds: %s and %s",
                   ti_tstr(t, x), ti_tstr(t, y));
        }
        return cj_scalar(DT_I64);
    }
    if (x->kind == TY_ITER && is_int(y) && (op == OP_ADD || op == OP_SUB)) {
        return x;
    }
    if (y->kind == TY_ITER && is_int(x) && op == OP_ADD) {
        return y;
    }
    ti_err(t, n, "unsupported operand types for an iterator: %s and %s (iterators take + and "
           "- of an integer, and - of another iterator)", ti_tstr(t, x), ti_tstr(t, y));
}

/* it[k]: the value k places on */
Type *
ti_iter_index(Ti *t, Node *n, Type *it, Type *k)
{
    if (n->n != 1 || n->list[0]->kind == ND_SLICE || (k && !is_int(k))) {
        ti_err(t, n, "an iterator takes one integer index");
    }
    return cj_scalar(it->dtype);
}

/* a 1-d shared, local or dynamic shared array: a pointer in cupyx.jit, so
 * an iterator to its first element */
static int
pointer_array(const Type *ty)
{
    return ty->kind == TY_ARRAY && ty->ndim == 1 && ty->mem != MEM_GLOBAL
           && ty->mem != MEM_CONST;
}

/* does argument i of type ty match the form's letter c */
static int
form_arg_ok(char c, const Type *ty)
{
    return c == 'I' ? ty->kind == TY_ITER || pointer_array(ty) : cj_is_numeric(ty);
}

/* the form of `spec` (one of the '|'-separated forms) with n arguments */
static const char *
pick_form(const char *spec, int n)
{
    for (const char *f = spec; f; f = strchr(f, '|') ? strchr(f, '|') + 1 : NULL) {
        if ((int)(strchr(f, ':') - f) == n) {
            return f;
        }
    }
    return NULL;
}

static Type *
form_result(Ti *t, Node *n, const char *res, Type **args)
{
    Type *el[2];
    switch (res[0]) {
    case 'v':
        return cj_void();
    case 'b':
        return cj_scalar(DT_BOOL);
    case 'l':
        return cj_scalar(DT_I64);
    case 'i':
        return args[res[1] - '0'];
    case 'p':
        el[0] = args[res[1] - '0'];
        el[1] = args[res[2] - '0'];
        return cj_tuple_type(t->p->arena, el, 2);
    case 't':
        return cj_concrete(args[res[1] - '0']);
    case 'e':
        return cj_scalar(args[res[1] - '0']->dtype);
    case 'K':
    case 'N':
        if (!is_int(args[0]) && res[0] == 'N') {
            ti_err(t, n->list[0], "make_counting_iterator() counts from an integer, got %s",
                   ti_tstr(t, args[0]));
        }
        return cj_iter_type(t->p->arena, cj_concrete(args[0])->dtype, res[0]);
    }
    cj_unreachable(t->p->try_, "thrust result");
}

/* the arity message: "2 or 3 arguments after the policy" */
static void
arity_text(const char *spec, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const char *f = spec; f && len + 8 < cap; f = strchr(f, '|') ? strchr(f, '|') + 1 : NULL) {
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", len ? " or " : "",
                                (int)(strchr(f, ':') - f));
    }
}

/* jit.thrust.<algo>(policy, args...): the arguments against the form of
 * their number; iterators where the form has I, numbers where it has v */
Type *
ti_thrust(Ti *t, Node *n)
{
    Type *args[16];
    const char *name = cj_thrust_names[n->axis], *spec = cj_thrust_forms[n->axis];
    const char *form = n->n < 16 ? pick_form(spec, n->n) : NULL;
    if (!form) {
        char ar[64];
        arity_text(spec, ar, sizeof ar);
        ti_err(t, n, "jit.thrust.%s() takes %s arguments%s, got %d", name, ar,
               n->axis == TH_MAKE_CONSTANT_ITERATOR || n->axis == TH_MAKE_COUNTING_ITERATOR
               ? "" : " after the execution policy", n->n);
    }
    for (int i = 0; i < n->n; i++) {
        args[i] = ti_expr_pub(t, n->list[i]);
        if (!args[i]) {
            return NULL;
        }
        if (!form_arg_ok(form[i], args[i])) {
            ti_err(t, n->list[i], "argument %d of jit.thrust.%s() must be %s, got %s", i + 1,
                   name, form[i] == 'I' ? "an iterator (a.begin(), a.end(), smem + k)"
                   : "a number", ti_tstr(t, args[i]));
        }
        if (pointer_array(args[i])) {
            args[i] = cj_iter_type(t->p->arena, args[i]->dtype, 'P');
        }
    }
    t->p->features |= FEAT_THRUST;
    return form_result(t, n, strchr(form, ':') + 1, args);
}
