/* expr.c - reads Python expressions into IR nodes. */
#include <string.h>

#include "fe_impl.h"


Node **
expr_list(Fe *f, PyObject *list, int *n)
{
    Py_ssize_t len = PyList_Check(list) ? PyList_GET_SIZE(list) : PyTuple_GET_SIZE(list);
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(len + 1));
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *it = PyList_Check(list) ? PyList_GET_ITEM(list, i) : PyTuple_GET_ITEM(list, i);
        if (is(it, A_Starred)) {
            fail(f, loc_of(f, it), "star-arguments (*args) are not supported in kernels; "
                 "pass the values one by one");
        }
        out[i] = expr(f, it);
    }
    *n = (int)len;
    return out;
}

int
binop_kind(Fe *f, PyObject *op, Loc loc)
{
    static const int map[][2] = {
        {A_Add, OP_ADD}, {A_Sub, OP_SUB}, {A_Mult, OP_MUL}, {A_Div, OP_DIV},
        {A_FloorDiv, OP_FLOORDIV}, {A_Mod, OP_MOD}, {A_Pow, OP_POW}, {A_LShift, OP_LSHIFT},
        {A_RShift, OP_RSHIFT}, {A_BitOr, OP_BITOR}, {A_BitXor, OP_BITXOR},
        {A_BitAnd, OP_BITAND},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (is(op, map[i][0])) {
            return map[i][1];
        }
    }
    fail(f, loc, "the matrix-multiplication operator '@' is not supported in kernels");
}

static int
cmpop_kind(Fe *f, PyObject *op, Loc loc)
{
    static const int map[][2] = {
        {A_Eq, OP_EQ}, {A_NotEq, OP_NE}, {A_Lt, OP_LT}, {A_LtE, OP_LE}, {A_Gt, OP_GT},
        {A_GtE, OP_GE}, {A_Is, OP_IS}, {A_IsNot, OP_ISNOT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (is(op, map[i][0])) {
            return map[i][1];
        }
    }
    fail(f, loc, "'in' and 'not in' are not supported in kernels; compare the values "
         "one by one");
}

static Node *
resolved_value(Fe *f, Resolved *r, PyObject *e, Loc loc)
{
    switch (r->kind) {
    case R_CONST:
        return r->node;
    case R_BUILTIN:
        if (r->bi == BI_THREADIDX || r->bi == BI_BLOCKIDX || r->bi == BI_BLOCKDIM
            || r->bi == BI_GRIDDIM) {
            Node *n = new_node(f, ND_CALL, loc);
            n->op = r->bi;
            n->axis = r->axis;
            return n;
        }
        fail(f, loc, "'%s' is a function: call it", cj_builtin_names[r->bi]);
    case R_DTYPE: {
        Const c;
        memset(&c, 0, sizeof c);
        c.kind = CK_DTYPE;
        c.dt = r->dt;
        return const_node(f, loc, c);
    }
    case R_DEVFUNC:
    case R_KERNEL:
        fail(f, loc, "a kernel or device function can only be called here, not used as a value");
    case R_NAMESPACE: {
        PyObject *tag = PyObject_GetAttr(r->obj, names[S___cujit_builtin__]);
        if (tag && PyUnicode_Check(tag)) {
            const char *t = utf8(f, tag);
            Py_DECREF(tag);
            fail(f, loc, "jit.%s is not a value: use jit.%s.x, jit.%s.y or jit.%s.z", t, t, t, t);
        }
        Py_XDECREF(tag);
        PyErr_Clear();
        fail(f, loc, "module or namespace '%s' cannot be used as a value in a kernel",
             module_name(r->obj) ? module_name(r->obj) : "jit");
    }
    case R_NONE:
    case R_OTHER:
        break;
    }
    fail(f, loc, "global '%s' is %s, which kernels cannot use: only bool, int, float, "
         "complex, NumPy scalars and tuples of these are folded in as constants",
         is(e, A_Name) ? utf8(f, get(f, e, S_id)) : utf8(f, get(f, e, S_attr)),
         describe_object(f, r->obj));
}

static Node *
attribute(Fe *f, PyObject *e, Loc loc)
{
    Resolved r;
    if (resolve(f, e, &r)) {
        return resolved_value(f, &r, e, loc);
    }
    static const struct { const char *name; int kind; } attrs[] = {
        {"shape", AT_SHAPE}, {"size", AT_SIZE}, {"ndim", AT_NDIM}, {"strides", AT_STRIDES},
        {"real", AT_REAL}, {"imag", AT_IMAG}, {"itemsize", AT_DTYPE_ITEMSIZE},
    };
    const char *an = utf8(f, get(f, e, S_attr));
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        if (strcmp(attrs[i].name, an) == 0) {
            Node *n = new_node(f, ND_ATTR, loc);
            n->op = attrs[i].kind;
            n->a = expr(f, get(f, e, S_value));
            return n;
        }
    }
    fail(f, loc, "attribute '%s' is not supported in kernels (arrays have .shape, .size, "
         ".ndim, .strides; numbers have .real, .imag)", an);
}

Node *
subscript(Fe *f, PyObject *e, Loc loc)
{
    Node *n = new_node(f, ND_INDEX, loc);
    n->a = expr(f, get(f, e, S_value));
    PyObject *sl = get(f, e, S_slice);
    if (is(sl, A_Slice)) {
        fail(f, loc_of(f, sl), "slicing is not supported inside kernels; index single "
             "elements (a[i], a[i, j]) instead");
    }
    if (is(sl, A_Tuple)) {
        PyObject *elts = get(f, sl, S_elts);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(elts); i++) {
            if (is(PyList_GET_ITEM(elts, i), A_Slice)) {
                fail(f, loc_of(f, PyList_GET_ITEM(elts, i)), "slicing is not supported inside "
                     "kernels; index single elements (a[i], a[i, j]) instead");
            }
        }
        n->list = expr_list(f, elts, &n->n);
    } else {
        n->list = cj_alloc(f->cx->arena, sizeof(Node *));
        n->list[0] = expr(f, sl);
        n->n = 1;
    }
    return n;
}

static void
keywords(Fe *f, Node *n, PyObject *kws)
{
    Py_ssize_t nk = PyList_GET_SIZE(kws);
    if (!nk) {
        return;
    }
    n->n2 = (int)nk;
    n->list2 = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)nk);
    n->kwnames = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)nk);
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *kw = PyList_GET_ITEM(kws, i);
        PyObject *name = get(f, kw, S_arg);
        if (name == Py_None) {
            fail(f, loc_of(f, kw), "**kwargs are not supported in kernels");
        }
        n->kwnames[i] = utf8(f, name);
        n->list2[i] = expr(f, get(f, kw, S_value));
    }
}

static Node *
call(Fe *f, PyObject *e, Loc loc)
{
    PyObject *fn = get(f, e, S_func);
    Node *n = new_node(f, ND_CALL, loc);
    Resolved r;
    if (is(fn, A_Attribute) && !resolve(f, fn, &r)) {
        const char *an = utf8(f, get(f, fn, S_attr));
        if (strcmp(an, "conjugate") == 0 || strcmp(an, "conj") == 0) {
            n->op = BI_CONJUGATE;
            n->list = cj_alloc(f->cx->arena, sizeof(Node *));
            n->list[0] = expr(f, get(f, fn, S_value));
            n->n = 1;
            if (PyList_GET_SIZE(get(f, e, S_args)) || PyList_GET_SIZE(get(f, e, S_keywords))) {
                fail(f, loc, "conjugate() takes no arguments");
            }
            return n;
        }
        fail(f, loc, "method '%s' is not supported in kernels", an);
    }
    if (!is(fn, A_Name) && !is(fn, A_Attribute)) {
        fail(f, loc, "only named functions can be called in kernels");
    }
    if (!resolve(f, fn, &r)) {
        fail(f, loc, "'%s' is a local variable, not a function: it cannot be called",
             utf8(f, get(f, fn, S_id)));
    }
    switch (r.kind) {
    case R_BUILTIN:
        if (r.bi == BI_THREADIDX || r.bi == BI_BLOCKIDX || r.bi == BI_BLOCKDIM
            || r.bi == BI_GRIDDIM) {
            fail(f, loc, "%s.%c is a number, not a function: it cannot be called; drop the ()",
                 cj_builtin_names[r.bi], "xyz"[r.axis]);
        }
        n->op = r.bi;
        n->axis = r.axis;
        break;
    case R_DTYPE:
        n->op = BI_CAST;
        n->cval.kind = CK_DTYPE;
        n->cval.dt = r.dt;
        break;
    case R_DEVFUNC:
        n->op = BI_DEVFUNC;
        n->fn = fe_read(f->cx, r.obj, 1, f->fn->boundscheck);
        break;
    case R_KERNEL:
        fail(f, loc, "a kernel cannot call another kernel; decorate the callee with "
             "@jit.rawkernel(device=True) to make it a device function");
    case R_CONST:
    case R_NAMESPACE:
    case R_NONE:
    case R_OTHER:
        if (PyFunction_Check(r.obj)) {
            fail(f, loc, "cannot call plain Python function '%s' from a kernel; decorate it "
                 "with @jit.rawkernel(device=True)", utf8(f, get(f, r.obj, S___name__)));
        }
        fail(f, loc, "cannot call %s in a kernel: only jit builtins, math functions, NumPy "
             "dtype casts and @jit.rawkernel(device=True) functions can be called",
             describe_object(f, r.obj));
    }
    n->list = expr_list(f, get(f, e, S_args), &n->n);
    keywords(f, n, get(f, e, S_keywords));
    return n;
}

static Node *
constant(Fe *f, PyObject *e, Loc loc)
{
    PyObject *v = get(f, e, S_value);
    if (v == Py_Ellipsis || PyBytes_Check(v)) {
        fail(f, loc, "this constant is not supported in kernels");
    }
    Node *c = object_const(f, v, loc);
    if (!c) {
        fail(f, loc, "constant %s is not supported in kernels", describe_object(f, v));
    }
    return c;
}

Node *
name_expr(Fe *f, PyObject *e, Loc loc)
{
    PyObject *id = get(f, e, S_id);
    if (is_local_name(f, id)) {
        const char *nm = utf8(f, id);
        Var *v = find_var(f, nm);
        if (!v) {
            v = add_var(f, nm, loc, 0);
        }
        Node *n = new_node(f, ND_VAR, loc);
        n->var = v;
        return n;
    }
    Resolved r;
    resolve(f, e, &r);
    return resolved_value(f, &r, e, loc);
}

Node *
expr(Fe *f, PyObject *e)
{
    Loc loc = loc_of(f, e);
    Node *n;
    if (is(e, A_Name)) {
        return name_expr(f, e, loc);
    }
    if (is(e, A_Constant)) {
        return constant(f, e, loc);
    }
    if (is(e, A_BinOp)) {
        n = new_node(f, ND_BINOP, loc);
        n->op = binop_kind(f, get(f, e, S_op), loc);
        n->a = expr(f, get(f, e, S_left));
        n->b = expr(f, get(f, e, S_right));
        return n;
    }
    if (is(e, A_UnaryOp)) {
        PyObject *op = get(f, e, S_op);
        n = new_node(f, ND_UNARY, loc);
        n->op = is(op, A_USub) ? OP_NEG : is(op, A_UAdd) ? OP_POS : is(op, A_Not) ? OP_NOT
                : OP_INVERT;
        n->a = expr(f, get(f, e, S_operand));
        return n;
    }
    if (is(e, A_BoolOp)) {
        n = new_node(f, ND_BOOLOP, loc);
        n->op = is(get(f, e, S_op), A_And) ? OP_AND : OP_OR;
        n->list = expr_list(f, get(f, e, S_values), &n->n);
        return n;
    }
    if (is(e, A_Compare)) {
        PyObject *ops = get(f, e, S_ops), *cmps = get(f, e, S_comparators);
        Py_ssize_t k = PyList_GET_SIZE(ops);
        n = new_node(f, ND_COMPARE, loc);
        n->n = (int)k + 1;
        n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(k + 1));
        n->ops = cj_alloc(f->cx->arena, sizeof(int) * (size_t)k);
        n->list[0] = expr(f, get(f, e, S_left));
        for (Py_ssize_t i = 0; i < k; i++) {
            n->ops[i] = cmpop_kind(f, PyList_GET_ITEM(ops, i), loc);
            n->list[i + 1] = expr(f, PyList_GET_ITEM(cmps, i));
        }
        return n;
    }
    if (is(e, A_IfExp)) {
        n = new_node(f, ND_IFEXP, loc);
        n->a = expr(f, get(f, e, S_test));
        n->b = expr(f, get(f, e, S_body));
        n->c = expr(f, get(f, e, S_orelse));
        return n;
    }
    if (is(e, A_Call)) {
        return call(f, e, loc);
    }
    if (is(e, A_Attribute)) {
        return attribute(f, e, loc);
    }
    if (is(e, A_Subscript)) {
        return subscript(f, e, loc);
    }
    if (is(e, A_Tuple)) {
        n = new_node(f, ND_TUPLE, loc);
        n->list = expr_list(f, get(f, e, S_elts), &n->n);
        return n;
    }
    if (is(e, A_List)) {
        fail(f, loc, "lists are not supported in kernels; use a tuple, or "
             "jit.local_memory(dtype, n) for a small per-thread array");
    }
    if (is(e, A_Lambda)) {
        fail(f, loc, "lambda is not supported inside kernels; use a "
             "@jit.rawkernel(device=True) function");
    }
    if (is(e, A_NamedExpr)) {
        fail(f, loc, "assignment expressions (:=) are not supported in kernels; assign on "
             "a line of its own");
    }
    if (is(e, A_JoinedStr)) {
        fail(f, loc, "f-strings are not supported in kernels; pass the values to print() "
             "as separate arguments");
    }
    fail(f, loc, "%s expressions are not supported in kernels", Py_TYPE(e)->tp_name);
}
