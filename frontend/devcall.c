/* devcall.c - a call of a device function (or of a kernel, read as one):
 * the arguments known while the kernel compiles (a function, a dtype, a
 * constant) are offered to the callee, which binds its parameter to them as
 * it binds a closure variable, so the same function is read once per
 * distinct set of such arguments (frontend.c); *args is packed into a tuple
 * at the call and unpacked by `f(*args)` in the callee. */
#include <string.h>

#include "fe_impl.h"

/* One argument of a call: its compile-time object (NULL: none) and its
 * node (NULL: it is no value of the kernel, such as a function). */
typedef struct {
    PyObject *obj;
    Node *node;
    Loc loc;
} Arg;

typedef struct {
    Arg *v;
    int n, cap;
} Args;

static void
push(Fe *f, Args *a, Arg x)
{
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 8;
        Arg *nv = cj_alloc(f->cx->arena, sizeof(Arg) * (size_t)cap);
        if (a->n) {
            memcpy(nv, a->v, sizeof(Arg) * (size_t)a->n);
        }
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = x;
}

/* what a resolved name may give a callee at compile time: a function,
 * a dtype, a collective, a constant; not a value of the kernel
 * (threadIdx.x, cuda.laneid) or what kernels cannot use */
static int
offerable(const Resolved *r)
{
    switch (r->kind) {
    case R_DTYPE:
    case R_DEVFUNC:
    case R_KERNEL:
    case R_COLLECTIVE:
    case R_CONST:
    case R_OPERATOR:
    case R_OVERLOAD:
        return r->value != NULL;
    case R_BUILTIN:
        return r->value && r->bi != BI_THREADIDX && r->bi != BI_BLOCKIDX && r->bi != BI_BLOCKDIM
               && r->bi != BI_GRIDDIM && (r->bi == BI_VECTOR || r->axis != FE_V_VALUE);
    case R_NONE:
    case R_NAMESPACE:
    case R_OTHER:
    case R_FUSE_REDUCE:
        break;
    }
    return 0;
}

/* integer arithmetic of Python int literals only (N * 2, -1): its value
 * is a Python int (a NumPy scalar keeps its dtype: not one) */
static int
weak_int_expr(const Node *n)
{
    switch (n->kind) {
    case ND_CONST:
        return n->cval.weak && n->cval.kind == CK_INT;
    case ND_UNARY:
        return weak_int_expr(n->a);
    case ND_BINOP:
        return weak_int_expr(n->a) && weak_int_expr(n->b);
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_IF: case ND_WHILE: case ND_FOR:
    case ND_BREAK: case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT:
    case ND_EXPR: case ND_VAR: case ND_COMPARE: case ND_BOOLOP: case ND_IFEXP:
    case ND_INDEX: case ND_ATTR: case ND_CALL: case ND_TUPLE: case ND_SLICE:
        break;
    }
    return 0;
}

/* Does expression a read a parameter bound to a constant?  Arithmetic on
 * one (fact(n - 1)) is passed as a value: offered, it would make a new
 * function per value, without end in a recursion. */
static int
reads_bound(Fe *f, PyObject *a)
{
    if (!f->bound) {
        return 0;
    }
    PyObject *it = fe_keep(f, PyObject_CallOneArg(fe_ast_walk, a));
    PyObject *node;
    int found = 0;
    while (it && !found && (node = PyIter_Next(it))) {
        found = fe_is(node, A_Name) && PySet_Contains(f->bound, fe_get(f, node, S_id)) == 1;
        Py_DECREF(node);
    }
    if (!it || PyErr_Occurred()) {
        fe_fail_py(f, fe_loc_of(f, a), "cujit could not walk an expression");
    }
    return found;
}

static Arg arg_of(Fe *f, PyObject *a);

/* a tuple written out: a compile-time tuple when every item is a constant */
static Arg
tuple_arg(Fe *f, PyObject *a, Arg x)
{
    PyObject *elts = fe_get(f, a, S_elts);
    Py_ssize_t n = PyList_GET_SIZE(elts);
    PyObject *t = fe_keep(f, PyTuple_New(n));
    Node *tn = fe_new_node(f, ND_TUPLE, x.loc);
    tn->n = (int)n;
    tn->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(n + 1));
    int known = t != NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Arg y = arg_of(f, PyList_GET_ITEM(elts, i));
        if (!y.node) {
            fe_fail_kind(f, y.loc, CE_TYPE, "tuples in kernels hold numbers only: a function "
                         "or a dtype cannot be an item of a tuple");
        }
        tn->list[i] = y.node;
        known = known && y.obj;
        if (known) {
            Py_INCREF(y.obj);
            PyTuple_SET_ITEM(t, i, y.obj);
        }
    }
    PyErr_Clear();
    x.node = tn;
    x.obj = known ? t : NULL;
    return x;
}

/* A function defined in the kernel that reads the kernel's variables gets
 * their values at its calls there (inner.c): handed to another function
 * (it escapes, in Numba's words) it has none, and Numba refuses it too. */
static void
escape_check(Fe *f, const Resolved *r, Loc loc)
{
    PyObject *caps = r->kind == R_DEVFUNC ? fe_inner_params(f->cx, r->obj) : NULL;
    if (caps) {
        fe_escape_fail(f, caps, fe_get(f, r->obj, S___name__), loc);
    }
}

/* arg := constant | name or attribute known at compile time | tuple | expr */
static Arg
arg_of(Fe *f, PyObject *a)
{
    Arg x = {NULL, NULL, fe_loc_of(f, a)};
    Resolved r;
    if (fe_is(a, A_Constant)) {
        x.node = fe_expr(f, a);
        x.obj = fe_get(f, a, S_value);
        return x;
    }
    if (fe_is(a, A_Tuple)) {
        return tuple_arg(f, a, x);
    }
    if (fe_is(a, A_UnaryOp) && fe_is(fe_get(f, a, S_operand), A_Constant)
        && fe_is(fe_get(f, a, S_op), A_USub)) {
        PyObject *v = fe_get(f, fe_get(f, a, S_operand), S_value);   /* -1.5 */
        x.node = fe_expr(f, a);
        x.obj = PyNumber_Check(v) && !PyBool_Check(v) ? fe_keep(f, PyNumber_Negative(v)) : NULL;
        PyErr_Clear();
        return x;
    }
    int named = (fe_is(a, A_Name) && !fe_is_local_name(f, fe_get(f, a, S_id)))
                || fe_is(a, A_Attribute) || fe_is(a, A_Call);
    if (named && fe_resolve(f, a, &r)) {
        escape_check(f, &r, x.loc);
        int offer = offerable(&r);
        x.obj = offer ? r.value : NULL;
        x.node = !offer || r.kind == R_CONST ? fe_resolved_value(f, &r, a, x.loc) : NULL;
        return x;
    }
    x.node = fe_expr(f, a);
    int64_t v;
    if (weak_int_expr(x.node) && !reads_bound(f, a) && cj_fold_int(x.node, &v)) {
        x.obj = fe_keep(f, PyLong_FromLongLong((long long)v));
        PyErr_Clear();
    }
    return x;
}

/* '*' cmath.polar(z): its two items (the call read once for each: it is
 * pure); 0 if v is another expression */
static int
polar_items(Fe *f, PyObject *v, Args *out, Loc loc)
{
    Resolved r;
    PyObject *fn = fe_is(v, A_Call) ? fe_get(f, v, S_func) : NULL;
    if (!fn || !(fe_is(fn, A_Name) || fe_is(fn, A_Attribute)) || !fe_resolve(f, fn, &r)
        || r.kind != R_BUILTIN || r.bi != BI_NPFUNC || r.axis != NP_C_POLAR) {
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        Node *ix = fe_new_node(f, ND_INDEX, loc);
        ix->a = fe_expr(f, v);
        ix->n = 1;
        ix->list = cj_alloc(f->cx->arena, sizeof(Node *));
        Const c = {.kind = CK_INT, .weak = 1, .dt = DT_I64, .i = i};
        ix->list[0] = fe_const_node(f, loc, c);
        push(f, out, (Arg){NULL, ix, loc});
    }
    return 1;
}

/* starred := '*' (the function's own *args | tuple written out | a global
 * or compile-time tuple): its items, whose number is known now */
static void
starred(Fe *f, PyObject *s, Args *out)
{
    PyObject *v = fe_get(f, s, S_value);
    Loc loc = fe_loc_of(f, s);
    if (fe_is(v, A_Name) && f->vararg && fe_is_local_name(f, fe_get(f, v, S_id))
        && strcmp(fe_utf8(f, fe_get(f, v, S_id)), f->vararg) == 0) {
        for (int i = 0; i < f->nvararg; i++) {
            Node *ix = fe_new_node(f, ND_INDEX, loc);
            ix->a = fe_expr(f, v);
            ix->n = 1;
            ix->list = cj_alloc(f->cx->arena, sizeof(Node *));
            Const c = {.kind = CK_INT, .weak = 1, .dt = DT_I64, .i = i};
            ix->list[0] = fe_const_node(f, loc, c);
            push(f, out, (Arg){NULL, ix, loc});
        }
        return;
    }
    if (fe_is(v, A_Tuple)) {
        PyObject *elts = fe_get(f, v, S_elts);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(elts); i++) {
            push(f, out, arg_of(f, PyList_GET_ITEM(elts, i)));
        }
        return;
    }
    if (polar_items(f, v, out, loc)) {
        return;
    }
    Arg t = fe_is(v, A_Name) && fe_is_local_name(f, fe_get(f, v, S_id))
            ? (Arg){NULL, NULL, loc} : arg_of(f, v);
    if (!t.obj || !PyTuple_Check(t.obj)) {
        fe_fail_kind(f, loc, CE_TYPE, "*x in a call needs a tuple whose length is known when "
                     "the kernel compiles: the function's own *args, a tuple written out, or "
                     "a global or closure tuple");
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t.obj); i++) {
        PyObject *it = PyTuple_GET_ITEM(t.obj, i);
        push(f, out, (Arg){it, fe_object_const(f, it, loc), loc});
    }
}

/* args := { arg | starred } */
static Args
read_args(Fe *f, PyObject *list)
{
    Args out = {NULL, 0, 0};
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *a = PyList_GET_ITEM(list, i);
        if (fe_is(a, A_Starred)) {
            starred(f, a, &out);
        } else {
            push(f, &out, arg_of(f, a));
        }
    }
    return out;
}

/* exprs with *starred items expanded: the arguments of a builtin's call */
Node **
fe_call_args(Fe *f, PyObject *list, int *n)
{
    int plain = 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list) && plain; i++) {
        plain = !fe_is(PyList_GET_ITEM(list, i), A_Starred);
    }
    if (plain) {
        return fe_expr_list(f, list, n);
    }
    Args a = read_args(f, list);
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(a.n + 1));
    for (int i = 0; i < a.n; i++) {
        if (!a.v[i].node) {
            fe_fail_kind(f, a.v[i].loc, CE_TYPE, "a function or a dtype can be passed only "
                         "to a device function's parameter");
        }
        out[i] = a.v[i].node;
    }
    *n = a.n;
    return out;
}

/* the value of an argument the callee did not bind: it needs a node */
static Node *
value_of(Fe *f, const Arg *a, const Func *fn, int i)
{
    if (a->node) {
        return a->node;
    }
    if (i < fn->npnames) {
        fe_fail_kind(f, a->loc, CE_TYPE, "this argument is a function or a dtype, known only "
                     "while the kernel compiles, but '%s' assigns to its parameter '%s': give "
                     "the new value another name there", fn->name, fn->pnames[i]);
    }
    fe_fail_kind(f, a->loc, CE_TYPE, "a function or a dtype cannot be passed through *args "
                 "or as an extra argument of '%s'; name it as a parameter", fn->name);
}

static int
param_index(const Func *fn, const char *name)
{
    for (int i = 0; i < fn->npnames; i++) {
        if (strcmp(fn->pnames[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* the offers of the call: the compile-time objects of its arguments */
static FeOffers *
make_offers(Fe *f, const Args *pos, const Args *kw, const char **kwnames)
{
    FeOffers *of = cj_alloc(f->cx->arena, sizeof *of);
    of->npos = pos->n;
    of->pos = cj_alloc(f->cx->arena, sizeof(PyObject *) * (size_t)(pos->n + 1));
    for (int i = 0; i < pos->n; i++) {
        of->pos[i] = pos->v[i].obj;
    }
    of->nkw = kw->n;
    of->kw = cj_alloc(f->cx->arena, sizeof(PyObject *) * (size_t)(kw->n + 1));
    for (int i = 0; i < kw->n; i++) {
        of->kw[i] = kw->v[i].obj;
    }
    of->kwnames = kwnames;
    return of;
}

/* the extra positional arguments, from `first` on, as the tuple *args */
static Node *
vararg_tuple(Fe *f, const Args *pos, int first, const Func *fn, Loc loc)
{
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(pos->n + 1));
    for (int i = first; i < pos->n; i++) {
        t->list[t->n++] = value_of(f, &pos->v[i], fn, i);
    }
    return t;
}

/* Sets the call's arguments: those the callee did not bind, *args packed
 * (by keyword when named parameters were given by keyword). */
static void
set_args(Fe *f, Node *n, const Args *pos, const Args *kw, const char **kwnames, Loc loc)
{
    const Func *fn = n->fn;
    if (!fn->vararg && pos->n > fn->npnames) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes %d argument%s, got %d", fn->name,
                     fn->npnames, fn->npnames == 1 ? "" : "s", pos->n);
    }
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(pos->n + 2));
    n->list2 = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(kw->n + 2));
    n->kwnames = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(kw->n + 2));
    int last = fn->vararg ? (pos->n < fn->npnames ? pos->n : fn->npnames) : pos->n;
    for (int i = 0; i < last; i++) {
        if (i < 64 && (fn->bound >> i & 1)) {
            continue;
        }
        n->list[n->n++] = value_of(f, &pos->v[i], fn, i);
    }
    for (int k = 0; k < kw->n; k++) {
        int j = param_index(fn, kwnames[k]);
        if (j >= 0 && j < 64 && (fn->bound >> j & 1)) {
            continue;
        }
        n->kwnames[n->n2] = kwnames[k];
        n->list2[n->n2++] = value_of(f, &kw->v[k], fn, j >= 0 ? j : fn->npnames);
    }
    if (!fn->vararg) {
        return;
    }
    Node *t = vararg_tuple(f, pos, last, fn, loc);
    if (pos->n >= fn->npnames) {
        n->list[n->n++] = t;
    } else {
        n->kwnames[n->n2] = fn->pnames[fn->npnames];     /* the *args name */
        n->list2[n->n2++] = t;
    }
}

/* keywords := { name '=' arg }   (no **kwargs) */
static const char **
read_keywords(Fe *f, PyObject *kws, Args *kw)
{
    Py_ssize_t nk = PyList_GET_SIZE(kws);
    const char **kwnames = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(nk + 1));
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *k = PyList_GET_ITEM(kws, i);
        PyObject *name = fe_get(f, k, S_arg);
        if (name == Py_None) {
            fe_fail(f, fe_loc_of(f, k), "**kwargs are not supported in kernels");
        }
        kwnames[kw->n] = fe_utf8(f, name);
        push(f, kw, arg_of(f, fe_get(f, k, S_value)));
    }
    return kwnames;
}

static Node **
nodes_of(Fe *f, const Args *a)
{
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(a->n + 1));
    for (int i = 0; i < a->n; i++) {
        out[i] = a->v[i].node;
    }
    return out;
}

/* The arguments of call e read once, for a callee known only later (an
 * overloaded function or method, overload.c), after `first` (a method's
 * receiver; NULL: none; e NULL: no others, an attribute): their nodes (NULL: a compile-time object only) and
 * what they offer. */
FeOffers *
fe_call_offers(Fe *f, PyObject *e, PyObject *first, PyObject *kws, Node ***pos_nodes,
               Node ***kw_nodes)
{
    Args pos = {NULL, 0, 0};
    if (first) {
        push(f, &pos, arg_of(f, first));
    }
    Args rest = e ? read_args(f, fe_get(f, e, S_args)) : (Args){NULL, 0, 0};
    for (int i = 0; i < rest.n; i++) {
        push(f, &pos, rest.v[i]);
    }
    Args kw = {NULL, 0, 0};
    const char **kwnames = read_keywords(f, kws, &kw);
    *pos_nodes = nodes_of(f, &pos);
    *kw_nodes = nodes_of(f, &kw);
    return make_offers(f, &pos, &kw, kwnames);
}

/* a function defined in the kernel that reads the kernel's variables gets
 * their values at the call, as keywords (inner.c) */
static const char **
add_captures(Fe *f, PyObject *pyfunc, Args *kw, const char **kwnames, Loc loc)
{
    PyObject *caps = fe_inner_captures(f, pyfunc, loc);
    if (!caps) {
        return kwnames;
    }
    Py_ssize_t nc = PyTuple_GET_SIZE(caps);
    const char **all = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(kw->n + nc + 1));
    for (int i = 0; i < kw->n; i++) {
        all[i] = kwnames[i];
    }
    for (Py_ssize_t i = 0; i < nc; i++) {
        const char *nm = fe_utf8(f, PyTuple_GET_ITEM(caps, i));
        Var *v = fe_find_var(f, nm);
        Arg x = {NULL, fe_new_node(f, ND_VAR, loc), loc};
        x.node->var = v ? v : fe_add_var(f, nm, loc, 0);
        all[kw->n] = nm;
        push(f, kw, x);
    }
    return all;
}

/* devcall := callee '(' args [',' keywords] ')' where the callee is a
 * device function or a kernel (numba-cuda makes a kernel called from a
 * kernel a device function: so does cujit) */
Node *
fe_devfunc_call(Fe *f, PyObject *e, Node *n, PyObject *pyfunc, PyObject *sigs, PyObject *kws,
                Loc loc)
{
    Args pos = read_args(f, fe_get(f, e, S_args));
    Args kw = {NULL, 0, 0};
    const char **kwnames = read_keywords(f, kws, &kw);
    kwnames = add_captures(f, pyfunc, &kw, kwnames, loc);
    /* a device function with declared signatures (cuda.jit(sig, device=True))
     * takes values of its types, as in Numba: nothing is bound at compile time */
    FeOffers *of = sigs ? NULL : make_offers(f, &pos, &kw, kwnames);
    n->op = BI_DEVFUNC;
    n->fn = fe_read_call(f->cx, pyfunc, f->fn->boundscheck, of);
    if (sigs) {
        fe_declare_signatures(f, n->fn, sigs, loc);
    }
    set_args(f, n, &pos, &kw, kwnames, loc);
    return n;
}
