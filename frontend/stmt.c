/* stmt.c - reads Python statements (and assignment targets) into IR nodes. */
#include <string.h>

#include "fe_impl.h"

/* target := name | subscript | attribute (a record's field)
 *         | '(' target { ',' target } ')'   (no *starred) */
Node *
fe_target(Fe *f, PyObject *t)
{
    Loc loc = fe_loc_of(f, t);
    if (fe_is(t, A_Name)) {
        return fe_name_expr(f, t, loc);
    }
    if (fe_is(t, A_Subscript)) {
        return fe_subscript(f, t, loc);
    }
    if (fe_is(t, A_Tuple) || fe_is(t, A_List)) {
        Node *n = fe_new_node(f, ND_TUPLE, loc);
        PyObject *elts = fe_get(f, t, S_elts);
        n->n = (int)PyList_GET_SIZE(elts);
        n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(n->n + 1));
        for (int i = 0; i < n->n; i++) {
            PyObject *el = PyList_GET_ITEM(elts, i);
            if (fe_is(el, A_Starred)) {
                fe_fail(f, fe_loc_of(f, el), "starred assignment targets are not supported "
                        "in kernels");
            }
            n->list[i] = fe_target(f, el);
        }
        return n;
    }
    if (fe_is(t, A_Attribute)) {
        Node *n = fe_expr(f, t);
        if (n->kind != ND_ATTR) {
            fe_fail(f, loc, "cannot assign to an attribute in a kernel (only a record's "
                    "fields: r.x = ...)");
        }
        return n;
    }
    fe_fail(f, loc, "cannot assign to this expression in a kernel");
}

/* unroll := 'unroll' '=' (True | False | None | int constant in [1, 2**31))
 * True: `#pragma unroll`, False: `#pragma unroll 1`, n: `#pragma unroll n`,
 * None: no pragma (jit.range only; Python's range takes no keywords) */
static int
unroll_value(Fe *f, PyObject *it, int is_jit)
{
    PyObject *kws = fe_get(f, it, S_keywords);
    int unroll = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(kws); i++) {
        PyObject *kw = PyList_GET_ITEM(kws, i);
        PyObject *name = fe_get(f, kw, S_arg);
        Loc loc = fe_loc_of(f, kw);
        if (!is_jit || name == Py_None || strcmp(fe_utf8(f, name), "unroll") != 0) {
            fe_fail_kind(f, loc, CE_TYPE, is_jit ? "jit.range() takes one keyword, "
                         "unroll" : "range() takes no keyword arguments; jit.range(..., "
                         "unroll=n) unrolls a loop");
        }
        Node *v = fe_expr(f, fe_get(f, kw, S_value));
        if (v->kind != ND_CONST || (v->cval.kind != CK_BOOL && v->cval.kind != CK_INT
                                    && v->cval.kind != CK_UINT && v->cval.kind != CK_NONE)) {
            fe_fail_kind(f, loc, CE_TYPE, "unroll must be a compile-time constant: "
                         "True, False, None or an int");
        }
        if (v->cval.kind == CK_BOOL) {
            unroll = v->cval.i ? -1 : 1;
        } else if (v->cval.kind == CK_NONE) {
            unroll = 0;
        } else if (v->cval.kind == CK_UINT || v->cval.i < 1 || v->cval.i > INT32_MAX) {
            fe_fail_kind(f, loc, CE_VALUE, "unroll=%lld is out of range: the constant "
                         "must be from 1 to 2**31 - 1", (long long)v->cval.i);
        } else {
            unroll = (int)v->cval.i;
        }
    }
    return unroll;
}

/* for := 'for' name 'in' ('range' | 'jit.range') '(' expr [',' expr [',' expr]]
 *        [',' unroll] ')' ':' block [ 'else' ':' block ]
 * (over anything else: loops.c) */
static Node *
for_stmt(Fe *f, PyObject *s, Loc loc)
{
    PyObject *it = fe_get(f, s, S_iter);
    PyObject *fn = fe_is(it, A_Call) ? fe_get(f, it, S_func) : NULL;
    Resolved r;
    int ok = fn && (fe_is(fn, A_Name) || fe_is(fn, A_Attribute)) && fe_resolve(f, fn, &r)
             && r.kind == R_BUILTIN && r.bi == BI_RANGE;
    PyObject *tg = fe_get(f, s, S_target);
    if (!ok || !fe_is(tg, A_Name)) {
        return fe_for_items(f, s, loc);
    }
    Node *n = fe_new_node(f, ND_FOR, loc);
    Node *t = fe_name_expr(f, tg, fe_loc_of(f, tg));
    n->var = t->var;
    int na;
    Node **args = fe_expr_list(f, fe_get(f, it, S_args), &na);
    n->unroll = unroll_value(f, it, !PyType_Check(r.obj));
    if (na < 1 || na > 3) {
        fe_fail(f, fe_loc_of(f, it), "range() expects 1 to 3 arguments, got %d", na);
    }
    n->a = na == 1 ? NULL : args[0];
    n->b = na == 1 ? args[0] : args[1];
    n->c = na == 3 ? args[2] : NULL;
    n->list = fe_stmts(f, fe_get(f, s, S_body), &n->n);
    n->list2 = fe_stmts(f, fe_get(f, s, S_orelse), &n->n2);
    return n;
}

/* assign := target '=' { target '=' } expr */
static Node *
assign(Fe *f, PyObject *s, Loc loc)
{
    Node *n = fe_new_node(f, ND_ASSIGN, loc);
    n->a = fe_expr(f, fe_get(f, s, S_value));
    PyObject *tl = fe_get(f, s, S_targets);
    n->n = (int)PyList_GET_SIZE(tl);
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)n->n);
    for (int i = 0; i < n->n; i++) {
        n->list[i] = fe_target(f, PyList_GET_ITEM(tl, i));
    }
    return n;
}

/* augassign := (name | subscript | attribute) operator'=' expr   (attribute:
 * a record's field) */
static Node *
aug_assign(Fe *f, PyObject *s, Loc loc)
{
    Node *n = fe_new_node(f, ND_AUGASSIGN, loc);
    n->op = fe_binop_kind(f, fe_get(f, s, S_op), loc);
    n->b = fe_expr(f, fe_get(f, s, S_value));
    PyObject *t = fe_get(f, s, S_target);
    if (!fe_is(t, A_Name) && !fe_is(t, A_Subscript) && !fe_is(t, A_Attribute)) {
        fe_fail(f, fe_loc_of(f, t), "augmented assignment needs a variable or an array "
                "element");
    }
    n->a = fe_target(f, t);
    return n;
}

/* annassign := target ':' annotation '=' expr   (the annotation is ignored) */
static Node *
ann_assign(Fe *f, PyObject *s, Loc loc)
{
    PyObject *v = fe_get(f, s, S_value);
    if (v == Py_None) {
        fe_fail(f, loc, "a bare annotation declares nothing in a kernel; assign a value");
    }
    Node *n = fe_new_node(f, ND_ASSIGN, loc);
    n->a = fe_expr(f, v);
    n->n = 1;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *));
    n->list[0] = fe_target(f, fe_get(f, s, S_target));
    return n;
}

/* if := 'if' expr ':' block { 'elif' expr ':' block } [ 'else' ':' block ]
 * A condition known at compile time (cj_fold_truth) becomes a bool constant
 * and the branch it never takes is not read: it may call what cannot be
 * compiled (a factory's next step, code for another dtype). */
static Node *
if_stmt(Fe *f, PyObject *s, Loc loc)
{
    Node *n = fe_new_node(f, ND_IF, loc);
    n->a = fe_expr(f, fe_get(f, s, S_test));
    int truth;
    if (!cj_fold_truth(n->a, &truth)) {
        n->list = fe_stmts(f, fe_get(f, s, S_body), &n->n);
        n->list2 = fe_stmts(f, fe_get(f, s, S_orelse), &n->n2);
        return n;
    }
    Const c = {.kind = CK_BOOL, .dt = DT_BOOL, .i = truth};
    n->a = fe_const_node(f, n->a->loc, c);
    if (truth) {
        n->list = fe_stmts(f, fe_get(f, s, S_body), &n->n);
    } else {
        n->list2 = fe_stmts(f, fe_get(f, s, S_orelse), &n->n2);
    }
    return n;
}

/* while := 'while' expr ':' block [ 'else' ':' block ] */
static Node *
while_stmt(Fe *f, PyObject *s, Loc loc)
{
    Node *n = fe_new_node(f, ND_WHILE, loc);
    n->a = fe_expr(f, fe_get(f, s, S_test));
    n->list = fe_stmts(f, fe_get(f, s, S_body), &n->n);
    n->list2 = fe_stmts(f, fe_get(f, s, S_orelse), &n->n2);
    return n;
}

/* fused: a call with out=name as a statement is `name = call` */
static Node *
out_call_stmt(Fe *f, PyObject *v, Loc loc)
{
    f->out_kw = 1;
    f->out_target = NULL;
    Node *call = fe_expr(f, v);
    f->out_kw = 0;
    if (!f->out_target) {
        Node *n = fe_new_node(f, ND_EXPR, loc);
        n->a = call;
        return n;
    }
    Node *n = fe_new_node(f, ND_ASSIGN, loc);
    n->a = call;
    n->n = 1;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *));
    n->list[0] = f->out_target;
    f->out_target = NULL;
    return n;
}

/* exprstmt := expr   (a string or ... alone, as a docstring, is a pass) */
static Node *
expr_stmt(Fe *f, PyObject *s, Loc loc)
{
    PyObject *v = fe_get(f, s, S_value);
    if (fe_is(v, A_Constant)) {
        PyObject *c = fe_get(f, v, S_value);
        if (PyUnicode_Check(c) || c == Py_Ellipsis) {
            return fe_new_node(f, ND_PASS, loc);      /* docstring or ... */
        }
    }
    if (fe_fused(f) && fe_is(v, A_Call)) {
        return out_call_stmt(f, v, loc);
    }
    Node *n = fe_new_node(f, ND_EXPR, loc);
    n->a = fe_expr(f, v);
    return n;
}

/* fused: the value of `return np.sum(expr, ...)` or `return expr.sum(...)`
 * is expr, the reduction's map (module/fuse.c read its axis and keepdims
 * from the same statement); *red is its RedOp, 0 if none */
static PyObject *
fused_reduction(Fe *f, PyObject *v, int *red)
{
    *red = 0;
    if (!fe_is(v, A_Call)) {
        return v;
    }
    PyObject *fn = fe_get(f, v, S_func), *args = fe_get(f, v, S_args);
    Resolved r;
    if (fe_is(fn, A_Attribute) && !fe_resolve(f, fn, &r)) {
        *red = fe_fuse_method_red(fe_utf8(f, fe_get(f, fn, S_attr)));
        return *red ? fe_get(f, fn, S_value) : v;
    }
    if (!fe_is(fn, A_Name) && !fe_is(fn, A_Attribute)) {
        return v;
    }
    if (!fe_resolve(f, fn, &r) || r.kind != R_FUSE_REDUCE) {
        return v;
    }
    if (PyList_GET_SIZE(args) < 1) {
        fe_fail_kind(f, fe_loc_of(f, v), CE_TYPE, "a reduction takes the array to reduce");
    }
    *red = r.bi;
    return PyList_GET_ITEM(args, 0);
}

/* fused: the values of the parameters written in place come first among
 * the results, then what the function returns (e: its value, or NULL) */
static Node *
fused_results(Fe *f, Node *e, Loc loc)
{
    const FeCtx *cx = f->cx;
    int nv = e ? (e->kind == ND_TUPLE ? e->n : 1) : 0;
    if (cx->ninplace + nv == 0) {
        fe_fail_kind(f, loc, CE_TYPE, "a fused function must return a value or write into "
                     "an argument (x += y, np.add(x, y, out=x))");
    }
    if (cx->ninplace == 0) {
        return e;
    }
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->n = cx->ninplace + nv;
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)t->n);
    for (int i = 0; i < cx->ninplace; i++) {
        Node *var = fe_new_node(f, ND_VAR, loc);
        var->var = f->vars[cx->inplace[i]];
        t->list[i] = var;
    }
    for (int i = 0; i < nv; i++) {
        t->list[cx->ninplace + i] = e->kind == ND_TUPLE ? e->list[i] : e;
    }
    return t->n == 1 ? t->list[0] : t;
}

/* the return a fused function's body ends in when it has none of its own */
Node *
fe_fused_return(Fe *f, Loc loc)
{
    Node *n = fe_new_node(f, ND_RETURN, loc);
    n->a = fused_results(f, NULL, loc);
    return n;
}

/* return := 'return' [ expr ]   ('return None' is a bare return, as in a
 * kernel or a device function that returns nothing) */
static Node *
return_stmt(Fe *f, PyObject *s, Loc loc)
{
    Node *n = fe_new_node(f, ND_RETURN, loc);
    PyObject *v = fe_get(f, s, S_value);
    if (v != Py_None && fe_is(v, A_Constant) && fe_get(f, v, S_value) == Py_None) {
        v = Py_None;
    }
    if (!fe_fused(f)) {
        n->a = v == Py_None ? NULL : fe_expr(f, v);
        return n;
    }
    int red = 0;
    if (v != Py_None) {
        v = fused_reduction(f, v, &red);
    }
    if (red) {
        f->cx->fuse_red = red;
    }
    n->a = fused_results(f, v == Py_None ? NULL : fe_expr(f, v), loc);
    return n;
}

/* assert := 'assert' expr [ ',' string ] */
static Node *
assert_stmt(Fe *f, PyObject *s, Loc loc)
{
    Node *n = fe_new_node(f, ND_ASSERT, loc);
    n->a = fe_expr(f, fe_get(f, s, S_test));
    PyObject *m = fe_get(f, s, S_msg);
    if (m != Py_None) {
        PyObject *mv = fe_is(m, A_Constant) ? fe_get(f, m, S_value) : NULL;
        if (!mv || !PyUnicode_Check(mv)) {
            fe_fail(f, fe_loc_of(f, m), "an assert message in a kernel must be a string "
                    "literal");
        }
        n->str = fe_utf8(f, mv);
    }
    return n;
}

/* Any other statement is an error; the common ones say what to do instead. */
CJ_NORETURN static void
unsupported_stmt(Fe *f, PyObject *s, Loc loc)
{
    const char *what = Py_TYPE(s)->tp_name;
    const char *hint = "";
    if (strcmp(what, "FunctionDef") == 0 || strcmp(what, "AsyncFunctionDef") == 0) {
        hint = "; define it at module level with @jit.rawkernel(device=True)";
    } else if (strcmp(what, "Import") == 0 || strcmp(what, "ImportFrom") == 0) {
        hint = "; import at module level";
    } else if (strcmp(what, "Global") == 0 || strcmp(what, "Nonlocal") == 0) {
        hint = "; kernels read globals as constants and write only to arrays";
    } else if (strcmp(what, "Try") == 0) {
        hint = "; use assert to check conditions";
    }
    fe_fail(f, loc, "'%s' statements are not supported in kernels%s", what, hint);
}

/* stmt := assign | augassign | annassign | if | while | for | exprstmt | return
 *       | 'pass' | 'break' | 'continue' | assert | raise */
static Node *
stmt(Fe *f, PyObject *s)
{
    Loc loc = fe_loc_of(f, s);
    if (fe_is_lambda_def(f, s) && !fe_fused(f)) {
        return fe_inner_lambda(f, s, loc);      /* g = lambda t: ...: a def */
    }
    if (fe_is(s, A_Assign)) {
        return fe_collective_alias(f, s) ? fe_new_node(f, ND_PASS, loc) : assign(f, s, loc);
    }
    if (fe_is(s, A_AugAssign)) {
        return aug_assign(f, s, loc);
    }
    if (fe_is(s, A_AnnAssign)) {
        return ann_assign(f, s, loc);
    }
    if (fe_is(s, A_If)) {
        return if_stmt(f, s, loc);
    }
    if (fe_is(s, A_While)) {
        return while_stmt(f, s, loc);
    }
    if (fe_is(s, A_For)) {
        return for_stmt(f, s, loc);
    }
    if (fe_is(s, A_Expr)) {
        return expr_stmt(f, s, loc);
    }
    if (fe_is(s, A_Return)) {
        return return_stmt(f, s, loc);
    }
    if (fe_is(s, A_Pass)) {
        return fe_new_node(f, ND_PASS, loc);
    }
    if (fe_is(s, A_Break) || fe_is(s, A_Continue)) {
        return fe_new_node(f, fe_is(s, A_Break) ? ND_BREAK : ND_CONTINUE, loc);
    }
    if (fe_is(s, A_Assert)) {
        return assert_stmt(f, s, loc);
    }
    if (fe_is(s, A_Raise)) {
        return fe_raise_stmt(f, s, loc);
    }
    if (fe_is(s, A_FunctionDef) && !fe_fused(f)) {
        return fe_inner_def(f, s, loc);
    }
    if (fe_is(s, A_Nonlocal) && fe_nonlocal_ok(f, s)) {
        return fe_new_node(f, ND_PASS, loc);    /* its names are by-reference parameters */
    }
    unsupported_stmt(f, s, loc);
}

/* block := stmt { stmt } */
Node **
fe_stmts(Fe *f, PyObject *list, int *n)
{
    Py_ssize_t len = PyList_GET_SIZE(list);
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(len + 1));
    for (Py_ssize_t i = 0; i < len; i++) {
        out[i] = stmt(f, PyList_GET_ITEM(list, i));
    }
    *n = (int)len;
    return out;
}
