/* expr.c - reads Python expressions into IR nodes. */
#include <string.h>

#include "fe_impl.h"

/* exprs := expr { ',' expr }   (no *starred) */
Node **
fe_expr_list(Fe *f, PyObject *list, int *n)
{
    Py_ssize_t len = PyList_Check(list) ? PyList_GET_SIZE(list) : PyTuple_GET_SIZE(list);
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(len + 1));
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *it = PyList_Check(list) ? PyList_GET_ITEM(list, i) : PyTuple_GET_ITEM(list, i);
        if (fe_is(it, A_Starred)) {
            fe_fail(f, fe_loc_of(f, it), "star-arguments (*args) are not supported in kernels; "
                    "pass the values one by one");
        }
        out[i] = fe_expr(f, it);
    }
    *n = (int)len;
    return out;
}

/* operator := '+' | '-' | '*' | '/' | '//' | '%' | '**' | '<<' | '>>' | '|' | '^'
 *           | '&'   (not '@'); augmented assignment uses it too */
int
fe_binop_kind(Fe *f, PyObject *op, Loc loc)
{
    static const int map[][2] = {
        {A_Add, OP_ADD}, {A_Sub, OP_SUB}, {A_Mult, OP_MUL}, {A_Div, OP_DIV},
        {A_FloorDiv, OP_FLOORDIV}, {A_Mod, OP_MOD}, {A_Pow, OP_POW}, {A_LShift, OP_LSHIFT},
        {A_RShift, OP_RSHIFT}, {A_BitOr, OP_BITOR}, {A_BitXor, OP_BITXOR},
        {A_BitAnd, OP_BITAND},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (fe_is(op, map[i][0])) {
            return map[i][1];
        }
    }
    fe_fail(f, loc, "the matrix-multiplication operator '@' is not supported in kernels");
}

/* cmpop := '==' | '!=' | '<' | '<=' | '>' | '>=' | 'is' | 'is not' | 'in' | 'not in' */
static int
cmpop_kind(PyObject *op)
{
    static const int map[][2] = {
        {A_Eq, OP_EQ}, {A_NotEq, OP_NE}, {A_Lt, OP_LT}, {A_LtE, OP_LE}, {A_Gt, OP_GT},
        {A_GtE, OP_GE}, {A_Is, OP_IS}, {A_IsNot, OP_ISNOT}, {A_In, OP_IN},
        {A_NotIn, OP_NOTIN},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (fe_is(op, map[i][0])) {
            return map[i][1];
        }
    }
    return OP_EQ;       /* no other comparison operator exists */
}

/* threadIdx, blockIdx, blockDim, gridDim: the builtin, or -1 */
static int
dim3_builtin(const char *tag)
{
    static const struct { const char *name; int bi; } dims[] = {
        {"threadIdx", BI_THREADIDX}, {"blockIdx", BI_BLOCKIDX}, {"blockDim", BI_BLOCKDIM},
        {"gridDim", BI_GRIDDIM},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (strcmp(dims[i].name, tag) == 0) {
            return dims[i].bi;
        }
    }
    return -1;
}

/* cuda.threadIdx as a value (print(cuda.threadIdx)): the tuple (x, y, z) */
static Node *
dim3_value(Fe *f, int bi, Loc loc)
{
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->n = 3;
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * 3);
    for (int i = 0; i < 3; i++) {
        t->list[i] = fe_new_node(f, ND_CALL, loc);
        t->list[i]->op = bi;
        t->list[i]->axis = i;
    }
    return t;
}

/* A resolved non-local read as a value: a constant, jit.threadIdx.x and
 * friends, or a dtype; functions, kernels and modules are not values. */
/* a NumPy dtype no kernel type matches (object, void without fields,
 * datetime units): what it is, not its Python class (cuda.shared.array(10,
 * dtype=np.dtype("O"))) */
static void
numpy_dtype_value(Fe *f, PyObject *obj, PyObject *e, Loc loc)
{
    if (!obj || strncmp(Py_TYPE(obj)->tp_name, "numpy.dtypes.", 13) != 0) {
        return;
    }
    PyObject *r = fe_keep(f, PyObject_Repr(obj));
    if (!r) {
        PyErr_Clear();
        return;
    }
    const char *what = fe_is(e, A_Call) ? "the value of this call"
                       : fe_is(e, A_Name) ? cj_aprintf(f->cx->arena, "global '%s'",
                                                       fe_utf8(f, fe_get(f, e, S_id)))
                       : "this value";
    fe_fail_kind(f, loc, CE_TYPE, "%s is NumPy's %s, which has no type in kernels: arrays and "
                 "values in kernels are of numbers, bools, complex numbers or records "
                 "(numpy.float32, 'int32', a structured dtype)", what, fe_utf8(f, r));
}

static Node *
resolved_value(Fe *f, Resolved *r, PyObject *e, Loc loc)
{
    switch (r->kind) {
    case R_CONST:
        return r->node;
    case R_BUILTIN:
        if (r->bi == BI_THRUST || r->bi == BI_THRUST_POLICY) {
            fe_fail_kind(f, loc, CE_TYPE, "%s can only be %s here",
                         r->bi == BI_THRUST ? "a jit.thrust algorithm" : "an execution policy",
                         r->bi == BI_THRUST ? "called" : "the first argument of a jit.thrust "
                         "algorithm");
        }
        if (r->bi == BI_THREADIDX || r->bi == BI_BLOCKIDX || r->bi == BI_BLOCKDIM
            || r->bi == BI_GRIDDIM) {
            Node *n = fe_new_node(f, ND_CALL, loc);
            n->op = r->bi;
            n->axis = r->axis;
            return n;
        }
        if (r->bi == BI_VECTOR) {
            fe_fail_kind(f, loc, CE_TYPE, "cuda.%sx%d is a vector type: call it to make a "
                         "vector (cuda.float32x2(x, y)); arrays of vectors are not supported "
                         "(use an array of numbers, the lanes its last dimension)",
                         cj_dtypes[r->dt].name, r->axis);
        }
        if (r->bi != BI_INTRIN && r->axis == FE_V_VALUE) {
            Node *n = fe_new_node(f, ND_CALL, loc);      /* cuda.laneid */
            n->op = r->bi;
            return n;
        }
        fe_fail(f, loc, "'%s' is a function: call it", r->bi == BI_INTRIN
                ? cj_intrins[r->axis].name : cj_builtin_names[r->bi]);
    case R_DTYPE: {
        Const c;
        memset(&c, 0, sizeof c);
        c.kind = CK_DTYPE;
        c.dt = r->dt;
        return fe_const_node(f, loc, c);
    }
    case R_DEVFUNC:
    case R_KERNEL:
    case R_OVERLOAD:
        fe_fail(f, loc, "a kernel or device function can only be called here, not used as a value");
    case R_COLLECTIVE:
        fe_fail(f, loc, "a collective (%s) can only be called here, not used as a value",
                fe_describe_object(f, r->obj));
    case R_NAMESPACE: {
        PyObject *tag = PyObject_GetAttr(r->obj, fe_names[S___cujit_builtin__]);
        if (tag && PyUnicode_Check(tag)) {
            const char *t = fe_utf8(f, tag);
            Py_DECREF(tag);
            int bi = dim3_builtin(t);
            if (bi >= 0) {
                return dim3_value(f, bi, loc);
            }
            if (strcmp(t, "cg") == 0) {
                fe_fail(f, loc, "jit.cg is a namespace, not a value: call its functions "
                        "(jit.cg.this_thread_block(), ...)");
            }
            if (strncmp(t, "cuda.", 5) == 0) {
                fe_fail(f, loc, "%s is a namespace, not a value: use its names (%s.<name>)",
                        t, t);
            }
            fe_fail(f, loc, "jit.%s is not a value: use jit.%s.x, jit.%s.y or jit.%s.z",
                    t, t, t, t);
        }
        Py_XDECREF(tag);
        PyErr_Clear();
        fe_fail(f, loc, "module or namespace '%s' cannot be used as a value in a kernel",
                fe_module_name(r->obj) ? fe_module_name(r->obj) : "jit");
    }
    case R_FUSE_REDUCE:
        fe_fail(f, loc, "a reduction of a fused function is a function: call it as the value "
                "of the last statement, return np.sum(expr, axis=...)");
    case R_OPERATOR:
        fe_fail(f, loc, "operator.%s is a function: call it (operator functions cannot be "
                "kept in variables or passed in kernels)", fe_operator(r->bi)->name);
    case R_NONE:
    case R_OTHER:
        break;
    }
    numpy_dtype_value(f, r->obj, e, loc);
    fe_fail_kind(f, loc, CE_TYPE, "%s%s%s is %s, which kernels cannot use: only bool, int, float, "
            "complex, NumPy scalars and tuples of these are folded in as constants",
            fe_is(e, A_Call) ? "the value of this call" : "global '",
            fe_is(e, A_Name) ? fe_utf8(f, fe_get(f, e, S_id))
            : fe_is(e, A_Attribute) ? fe_utf8(f, fe_get(f, e, S_attr)) : "",
            fe_is(e, A_Call) ? "" : "'", fe_describe_object(f, r->obj));
}

Node *
fe_resolved_value(Fe *f, Resolved *r, PyObject *e, Loc loc)
{
    return resolved_value(f, r, e, loc);
}

static Node *
attr_node(Fe *f, PyObject *e, Loc loc, int kind, const char *name)
{
    Node *n = fe_new_node(f, ND_ATTR, loc);
    n->op = kind;
    n->str = name;          /* fe_utf8 copied it into the arena */
    n->a = fe_expr(f, fe_get(f, e, S_value));
    return n;
}

/* expr '.ctypes.data': the array's address (Numba's, NumPy's spelling) */
static Node *
address_of(Fe *f, PyObject *e, Loc loc)
{
    PyObject *v = fe_get(f, e, S_value);
    if (!fe_is(v, A_Attribute) || strcmp(fe_utf8(f, fe_get(f, v, S_attr)), "ctypes") != 0
        || strcmp(fe_utf8(f, fe_get(f, e, S_attr)), "data") != 0 || fe_fused(f)) {
        return NULL;
    }
    Node *n = fe_new_node(f, ND_ATTR, loc);
    n->op = AT_ADDRESS;
    n->str = "ctypes.data";
    n->a = fe_expr(f, fe_get(f, v, S_value));
    return n;
}

/* attribute := dotted global name (math.pi, jit.blockIdx.x)
 *            | expr '.' ('shape' | 'size' | 'ndim' | 'strides' | 'real' | 'imag'
 *                       | 'itemsize' | 'x' | 'y' | 'z'    (x, y, z: of a dim3)
 *                       | field)                            (of a record)
 *            | expr '.ctypes.data'                          (an array's address) */
static Node *
attribute(Fe *f, PyObject *e, Loc loc)
{
    Resolved r;
    if (fe_resolve(f, e, &r)) {
        return resolved_value(f, &r, e, loc);
    }
    Node *addr = address_of(f, e, loc);
    if (addr) {
        return addr;
    }
    static const struct { const char *name; int kind; } attrs[] = {
        {"shape", AT_SHAPE}, {"size", AT_SIZE}, {"ndim", AT_NDIM}, {"strides", AT_STRIDES},
        {"real", AT_REAL}, {"imag", AT_IMAG}, {"itemsize", AT_DTYPE_ITEMSIZE},
        {"nbytes", AT_NBYTES}, {"T", AT_T},
        {"x", AT_X}, {"y", AT_Y}, {"z", AT_Z},
    };
    const char *an = fe_utf8(f, fe_get(f, e, S_attr));
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        if (strcmp(attrs[i].name, an) == 0 && fe_fused(f) && attrs[i].kind != AT_REAL
            && attrs[i].kind != AT_IMAG) {
            fe_fail_kind(f, loc, CE_TYPE, ".%s cannot be fused: a fused function sees one "
                         "element of each array, not its shape; pass what depends on the "
                         "shape as an argument", an);
        }
        if (strcmp(attrs[i].name, an) == 0) {
            return attr_node(f, e, loc, attrs[i].kind, an);
        }
    }
    Node *ov = fe_fused(f) ? NULL : fe_attribute_overload(f, e, an, loc);
    if (ov) {
        return ov;          /* an attribute with @overload_attribute implementations */
    }
    if (fe_fused(f)) {
        fe_fail(f, loc, "attribute '%s' is not supported in kernels (arrays have .shape, "
                ".size, .ndim, .strides; numbers have .real, .imag; a group's dim3 has .x, "
                ".y, .z; records have their fields)", an);
    }
    return attr_node(f, e, loc, AT_FIELD, an);
}

/* slice := [expr] ':' [expr] [':' [expr]]   (inside [] only: a view) */
static Node *
slice_expr(Fe *f, PyObject *e)
{
    Node *n = fe_new_node(f, ND_SLICE, fe_loc_of(f, e));
    PyObject *lo = fe_get(f, e, S_lower), *hi = fe_get(f, e, S_upper);
    PyObject *st = fe_get(f, e, S_step);
    n->a = lo == Py_None ? NULL : fe_expr(f, lo);
    n->b = hi == Py_None ? NULL : fe_expr(f, hi);
    n->c = st == Py_None ? NULL : fe_expr(f, st);
    return n;
}

static Node *
index_item(Fe *f, PyObject *e)
{
    return fe_is(e, A_Slice) ? slice_expr(f, e) : fe_expr(f, e);
}

/* subscript := expr '[' item { ',' item } ']'   item := expr | slice */
Node *
fe_subscript(Fe *f, PyObject *e, Loc loc)
{
    if (fe_fused(f)) {
        fe_fail_kind(f, loc, CE_TYPE, "indexing cannot be fused: a fused function sees one "
                     "element of each array; index the arrays before the call");
    }
    Resolved r;
    if (fe_enum_item(f, e, &r, loc)) {
        return r.node;          /* Color["red"]: the member */
    }
    Node *n = fe_new_node(f, ND_INDEX, loc);
    n->a = fe_expr(f, fe_get(f, e, S_value));
    PyObject *sl = fe_get(f, e, S_slice);
    if (fe_is(sl, A_Tuple)) {
        PyObject *elts = fe_get(f, sl, S_elts);
        n->n = (int)PyList_GET_SIZE(elts);
        n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(n->n + 1));
        for (int i = 0; i < n->n; i++) {
            n->list[i] = index_item(f, PyList_GET_ITEM(elts, i));
        }
    } else {
        n->list = cj_alloc(f->cx->arena, sizeof(Node *));
        n->list[0] = index_item(f, sl);
        n->n = 1;
    }
    return n;
}

/* keywords := { name '=' expr }   (no **kwargs) */
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
        PyObject *name = fe_get(f, kw, S_arg);
        if (name == Py_None) {
            fe_fail(f, fe_loc_of(f, kw), "**kwargs are not supported in kernels");
        }
        n->kwnames[i] = fe_utf8(f, name);
        n->list2[i] = fe_expr(f, fe_get(f, kw, S_value));
    }
}

/* fused: a call's out=name, allowed only in a statement of its own
 * (np.add(x, y, out=z), read as z = x + y); the keyword is taken out */
static PyObject *
take_out_keyword(Fe *f, PyObject *kws, int allowed)
{
    PyObject *rest = fe_keep(f, PyList_New(0));
    if (!rest) {
        fe_fail_py(f, f->fn->loc, "cujit");
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(kws); i++) {
        PyObject *kw = PyList_GET_ITEM(kws, i);
        PyObject *name = fe_get(f, kw, S_arg);
        if (name == Py_None || strcmp(fe_utf8(f, name), "out") != 0) {
            PyList_Append(rest, kw);
            continue;
        }
        Loc kl = fe_loc_of(f, kw);
        PyObject *v = fe_get(f, kw, S_value);
        if (!allowed) {
            fe_fail_kind(f, kl, CE_TYPE, "out= in a fused function is taken by a call that is "
                         "a statement of its own (np.add(x, y, out=z))");
        }
        if (!fe_is(v, A_Name) || !fe_is_local_name(f, fe_get(f, v, S_id))) {
            fe_fail_kind(f, kl, CE_TYPE, "out= in a fused function names one of its array "
                         "arguments");
        }
        f->out_target = fe_name_expr(f, v, fe_loc_of(f, v));
    }
    return rest;
}

/* fused: x.astype(dtype) is a cast; reductions only end the function */
static Node *
fused_method(Fe *f, PyObject *e, PyObject *fn, Node *n, const char *an, Loc loc)
{
    if (fe_fuse_method_red(an)) {
        fe_fail_kind(f, loc, CE_TYPE, "a reduction in a fused function must be the value of its "
                     "last statement: return x.%s(...)", an);
    }
    PyObject *args = fe_get(f, e, S_args);
    Resolved r;
    if (strcmp(an, "astype") != 0) {
        fe_fail_kind(f, loc, CE_TYPE, "method '%s' cannot be fused (a fused function takes "
                     "x.astype(dtype), x.conj() and a final x.sum(...) and friends)", an);
    }
    if (PyList_GET_SIZE(args) != 1 || PyList_GET_SIZE(fe_get(f, e, S_keywords))
        || !fe_resolve(f, PyList_GET_ITEM(args, 0), &r) || r.kind != R_DTYPE) {
        fe_fail_kind(f, loc, CE_TYPE, "astype() in a fused function takes one dtype "
                     "(x.astype(np.float32))");
    }
    n->op = BI_CAST;
    n->cval.kind = CK_DTYPE;
    n->cval.dt = r.dt;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *));
    n->list[0] = fe_expr(f, fe_get(f, fn, S_value));
    n->n = 1;
    return n;
}

/* Numba's cuda.shared.array(shape, dtype) / cuda.local.array(shape, dtype):
 * the positional arguments become keywords by Numba's names, so typing binds
 * them as jit.shared_memory(dtype=, shape=); shape=0 is Numba's dynamic
 * shared memory (jit.shared_memory(dtype, None)). */
static void
numba_alloc_args(Fe *f, Node *n, Loc loc)
{
    static const char *const pn[] = {"shape", "dtype"};
    if (n->n > 2) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes shape and dtype, got %d arguments",
                     n->op == BI_SHARED_MEMORY ? "cuda.shared.array" : "cuda.local.array",
                     n->n + n->n2);
    }
    int nk = n->n + n->n2;
    Node **vals = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)nk);
    const char **names = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)nk);
    for (int i = 0; i < nk; i++) {
        vals[i] = i < n->n ? n->list[i] : n->list2[i - n->n];
        names[i] = i < n->n ? pn[i] : n->kwnames[i - n->n];
        if (strcmp(names[i], "shape") == 0 && vals[i]->kind == ND_CONST
            && vals[i]->cval.kind == CK_INT && vals[i]->cval.i == 0) {
            Const none;
            memset(&none, 0, sizeof none);
            none.kind = CK_NONE;
            vals[i] = fe_const_node(f, vals[i]->loc, none);
        }
    }
    n->list = NULL;
    n->n = 0;
    n->list2 = vals;
    n->kwnames = names;
    n->n2 = nk;
}

/* Numba's cuda.atomic.compare_and_swap(ary, old, val): atomic_cas on ary[0] */
static void
first_element_args(Fe *f, Node *n, Loc loc)
{
    if (n->n != 3 || n->n2) {
        fe_fail_kind(f, loc, CE_TYPE, "cuda.atomic.compare_and_swap() takes 3 positional "
                     "arguments (ary, old, val), got %d", n->n + n->n2);
    }
    Const zero;
    memset(&zero, 0, sizeof zero);
    zero.kind = CK_INT;
    zero.i = 0;
    zero.weak = 1;
    Node **all = cj_alloc(f->cx->arena, sizeof(Node *) * 4);
    all[0] = n->list[0];
    all[1] = fe_const_node(f, loc, zero);
    all[2] = n->list[1];
    all[3] = n->list[2];
    n->list = all;
    n->n = 4;
}

/* A group's method by its Python name (GM_*), -1 for none. */
static int
group_method(const char *name)
{
    for (int m = 0; m < GM_COUNT; m++) {
        if (strcmp(cj_group_method_names[m], name) == 0) {
            return m;
        }
    }
    return -1;
}

/* iterator := expr '.' ('begin' | 'end') '(' ')'   (jit.thrust's iterators of
 * a 1-d array; typeinfer checks that expr is one) */
static Node *
iterator_method(Fe *f, PyObject *e, PyObject *fn, Node *n, const char *an, Loc loc)
{
    if (PyList_GET_SIZE(fe_get(f, e, S_args)) || PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes no arguments", an);
    }
    n->op = an[0] == 'b' ? BI_ARRAY_BEGIN : BI_ARRAY_END;
    n->n = 1;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *));
    n->list[0] = fe_expr(f, fe_get(f, fn, S_value));
    return n;
}

/* method := expr '.' ('conjugate' | 'conj') '(' ')'
 *         | expr '.' group_method '(' exprs ')'   (a jit.cg group: g.sync(),
 *           t.shfl_down(v, 1); typeinfer checks that expr is a group) */
static Node *
method_call(Fe *f, PyObject *e, PyObject *fn, Node *n, Loc loc)
{
    const char *an = fe_utf8(f, fe_get(f, fn, S_attr));
    Node *ov = fe_method_overload(f, e, fe_get(f, fn, S_value), n, an, loc);
    if (ov) {
        return ov;          /* a method with @overload_method implementations */
    }
    if (fe_fused(f) && strcmp(an, "conjugate") != 0 && strcmp(an, "conj") != 0) {
        return fused_method(f, e, fn, n, an, loc);
    }
    if (strcmp(an, "begin") == 0 || strcmp(an, "end") == 0) {
        return iterator_method(f, e, fn, n, an, loc);
    }
    int gm = group_method(an);
    if ((gm == GM_ANY || gm == GM_ALL) && !PyList_GET_SIZE(fe_get(f, e, S_args))) {
        gm = -1;            /* a.any(), a.all() of an array: g.any(pred) takes one */
    }
    Node *np = gm < 0 ? fe_np_method(f, e, fn, n, an, loc) : NULL;
    if (np) {
        return np;
    }
    int bit_count = strcmp(an, "bit_count") == 0;   /* int.bit_count(): popc */
    if (strcmp(an, "conjugate") != 0 && strcmp(an, "conj") != 0 && gm < 0 && !bit_count) {
        fe_fail(f, loc, "method '%s' is not supported in kernels", an);
    }
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail(f, loc, "%s() takes no keyword arguments in kernels", an);
    }
    int nargs;
    Node **args = fe_expr_list(f, fe_get(f, e, S_args), &nargs);
    n->op = gm >= 0 ? BI_CG_METHOD : bit_count ? BI_POPC : BI_CONJUGATE;
    n->axis = gm >= 0 ? gm : 0;
    n->n = nargs + 1;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(nargs + 1));
    n->list[0] = fe_expr(f, fe_get(f, fn, S_value));
    for (int i = 0; i < nargs; i++) {
        n->list[i + 1] = args[i];
    }
    if (gm < 0 && nargs) {
        fe_fail(f, loc, "%s() takes no arguments", bit_count ? "bit_count" : "conjugate");
    }
    return n;
}

/* const_array := 'cuda.const.array_like' '(' name ')' where name is a global
 * or closure NumPy array: its dtype, shape and bytes (C order), read now */
static Node *
const_array(Fe *f, PyObject *e, Node *n, Loc loc)
{
    PyObject *args = fe_get(f, e, S_args);
    if (PyList_GET_SIZE(args) != 1 || PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "cuda.const.array_like() takes one argument, a NumPy "
                     "array");
    }
    PyObject *a = PyList_GET_ITEM(args, 0);
    Resolved r;
    int global = fe_resolve(f, a, &r);
    if (!global || !r.obj || strcmp(Py_TYPE(r.obj)->tp_name, "numpy.ndarray") != 0) {
        fe_fail_kind(f, fe_loc_of(f, a), CE_TYPE, "cuda.const.array_like() takes a NumPy "
                     "array that is a global or closure variable (its values are copied "
                     "into the kernel when it compiles), not %s",
                     !global || !r.obj ? "a local variable or an expression"
                     : fe_describe_object(f, r.obj));
    }
    CjTable *t = fe_ndarray_table(f, r.obj, "cuda.const.array_like()", loc);
    n->op = BI_CONST_ARRAY;
    n->table = t;
    return n;
}

/* thrust := 'jit.thrust.' algo '(' policy ',' exprs ')'
 *         | 'jit.thrust.make_' ('constant' | 'counting') '_iterator(' expr ')'
 * policy := jit.thrust.device | jit.thrust.seq: both run the algorithm in the
 * calling thread (as Thrust does in device code), so the policy is dropped */
static Node *
thrust_call(Fe *f, PyObject *e, Node *n, int algo, Loc loc)
{
    PyObject *args = fe_get(f, e, S_args);
    Py_ssize_t na = PyList_GET_SIZE(args);
    int policy = algo != TH_MAKE_CONSTANT_ITERATOR && algo != TH_MAKE_COUNTING_ITERATOR;
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "jit.thrust.%s() takes no keyword arguments",
                     cj_thrust_names[algo]);
    }
    if (policy) {
        Resolved r;
        if (na < 1 || !fe_resolve(f, PyList_GET_ITEM(args, 0), &r) || r.kind != R_BUILTIN
            || r.bi != BI_THRUST_POLICY) {
            fe_fail_kind(f, na ? fe_loc_of(f, PyList_GET_ITEM(args, 0)) : loc, CE_TYPE,
                         "jit.thrust.%s() takes an execution policy first: "
                         "jit.thrust.device or jit.thrust.seq", cj_thrust_names[algo]);
        }
    }
    n->op = BI_THRUST;
    n->axis = algo;
    n->n = (int)na - policy;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(n->n + 1));
    for (int i = 0; i < n->n; i++) {
        n->list[i] = fe_expr(f, PyList_GET_ITEM(args, i + policy));
    }
    return n;
}

/* A name of a peer's API that cujit has no version of (cujit.cuda's
 * cuda.const.array_like ...) carries __cujit_unsupported__, the message that
 * says so and what to do instead: a call of it fails with that message, a
 * type error (Numba's TypingError: kernels have no type for the object). */
static void
unsupported_call(Fe *f, PyObject *obj, Loc loc)
{
    if (!obj) {
        return;
    }
    PyObject *why = PyObject_GetAttr(obj, fe_names[S___cujit_unsupported__]);
    if (why && PyUnicode_Check(why)) {
        const char *msg = fe_utf8(f, fe_keep(f, why));
        fe_fail_kind(f, loc, CE_TYPE, "%s", msg);
    }
    Py_XDECREF(why);
    PyErr_Clear();
}

/* operator_call := operator_function '(' expr [',' expr] ')': operator.add(a, b)
 * is a + b, operator.lt(a, b) is a < b, operator.neg(a) is -a, pow(a, b) is a ** b */
static Node *
operator_call(Fe *f, PyObject *e, int which, Loc loc)
{
    const FeOperator *op = fe_operator(which);
    int want = op->kind == ND_UNARY ? 1 : 2, nargs;
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes no keyword arguments in kernels", op->name);
    }
    Node **args = fe_expr_list(f, fe_get(f, e, S_args), &nargs);
    if (nargs != want) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes %d argument%s in kernels, got %d%s", op->name,
                     want, want == 1 ? "" : "s", nargs, op->op == OP_POW && nargs == 3
                     ? " (pow(x, y, mod) is not supported: write x ** y % mod)" : "");
    }
    Node *n = fe_new_node(f, (NodeKind)op->kind, loc);
    if (op->kind == ND_COMPARE) {
        n->n = 2;
        n->list = args;
        n->ops = cj_alloc(f->cx->arena, sizeof(int));
        n->ops[0] = op->op;
        return n;
    }
    n->op = op->op;
    n->a = args[0];
    n->b = want == 2 ? args[1] : NULL;
    return n;
}

static Node *tuple(Fe *f, PyObject *e, Loc loc);

/* tuple_call := 'tuple' '(' ( tuple | '[' exprs ']' ) ')' reading local
 * values (one reading none ran in Python at compile time): the tuple of the
 * items written (Numba's tests spell a tuple of vectors so); NULL when obj
 * is not the builtin tuple.  Of anything else it is an error: which tuple
 * an array or a variable makes is not known here. */
static Node *
tuple_call(Fe *f, PyObject *e, PyObject *obj, Loc loc)
{
    if (obj != PyDict_GetItemString(fe_builtins_dict, "tuple")) {
        return NULL;
    }
    PyObject *args = fe_get(f, e, S_args);
    PyObject *a = PyList_GET_SIZE(args) == 1 ? PyList_GET_ITEM(args, 0) : NULL;
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords)) || !a
        || !(fe_is(a, A_Tuple) || fe_is(a, A_List))) {
        fe_fail_kind(f, loc, CE_TYPE, "tuple() in a kernel takes one tuple or list written "
                     "out, tuple((a, b)); write the tuple itself for anything else");
    }
    return tuple(f, a, loc);
}

/* divmod_call := 'divmod' '(' expr ',' expr ')': the tuple (a // b, a % b),
 * each operand read twice (a call among them is refused, so nothing runs
 * twice); NULL when obj is not the builtin divmod */
static Node *
divmod_call(Fe *f, PyObject *e, PyObject *obj, Loc loc)
{
    if (obj != PyDict_GetItemString(fe_builtins_dict, "divmod")) {
        return NULL;
    }
    PyObject *args = fe_get(f, e, S_args);
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords)) || PyList_GET_SIZE(args) != 2) {
        fe_fail_kind(f, loc, CE_TYPE, "divmod() takes two arguments, divmod(a, b)");
    }
    PyObject *a = PyList_GET_ITEM(args, 0), *b = PyList_GET_ITEM(args, 1);
    if (fe_is(a, A_Call) || fe_is(b, A_Call) || fe_is(a, A_Starred) || fe_is(b, A_Starred)) {
        fe_fail(f, loc, "divmod() in a kernel takes values, not calls: assign the call's "
                "result to a name first and pass that");
    }
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->n = 2;
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * 3);
    for (int i = 0; i < 2; i++) {
        Node *op = fe_new_node(f, ND_BINOP, loc);
        op->op = i == 0 ? OP_FLOORDIV : OP_MOD;
        op->a = fe_expr(f, a);
        op->b = fe_expr(f, b);
        t->list[i] = op;
    }
    return t;
}

/* The item for field i of a namedtuple call that did not give it: the
 * class's default, a constant */
static Node *
namedtuple_default(Fe *f, PyObject *cls, const char *name, Loc loc)
{
    PyObject *defs = PyObject_GetAttrString(cls, "_field_defaults");
    PyObject *v = defs && PyDict_Check(defs) ? PyDict_GetItemString(defs, name) : NULL;
    Node *c = v ? fe_object_const(f, v, loc) : NULL;
    Py_XDECREF(defs);
    PyErr_Clear();
    if (!c) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() misses field '%s' (give it, or a default in "
                     "the namedtuple's defaults=)", ((PyTypeObject *)cls)->tp_name, name);
    }
    return c;
}

/* call := C '(' exprs [',' keywords] ')', C a namedtuple class: the tuple
 * of C's fields in their order (a keyword by its name, a missing field from
 * C's defaults), carrying the field names; NULL when C is not one */
static Node *
namedtuple_call(Fe *f, PyObject *e, PyObject *cls, Loc loc)
{
    int nf;
    const char **names = fe_namedtuple_fields(f, cls, &nf);
    if (!names) {
        return NULL;
    }
    const char *cname = ((PyTypeObject *)cls)->tp_name;
    PyObject *args = fe_get(f, e, S_args), *kws = fe_get(f, e, S_keywords);
    if (PyList_GET_SIZE(args) > nf) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() has %d fields, got %d arguments", cname, nf,
                     (int)PyList_GET_SIZE(args));
    }
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->n = nf;
    t->kwnames = names;
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(nf + 1));
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(args); i++) {
        PyObject *a = PyList_GET_ITEM(args, i);
        if (fe_is(a, A_Starred)) {
            fe_fail(f, loc, "%s(*args) is not supported in kernels: give the fields one "
                    "by one", cname);
        }
        t->list[i] = fe_expr(f, a);
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(kws); k++) {
        PyObject *kw = PyList_GET_ITEM(kws, k), *name = fe_get(f, kw, S_arg);
        const char *s = name == Py_None ? NULL : fe_utf8(f, name);
        int j = 0;
        while (s && j < nf && strcmp(names[j], s) != 0) {
            j++;
        }
        if (!s || j == nf) {
            fe_fail_kind(f, loc, CE_TYPE, s ? "%s() has no field '%s'"
                         : "%s(**kwargs) is not supported in kernels", cname, s);
        }
        if (t->list[j]) {
            fe_fail_kind(f, loc, CE_TYPE, "%s() got field '%s' twice", cname, s);
        }
        t->list[j] = fe_expr(f, fe_get(f, kw, S_value));
    }
    for (int i = 0; i < nf; i++) {
        if (!t->list[i]) {
            t->list[i] = namedtuple_default(f, cls, names[i], loc);
        }
    }
    return t;
}

/* call := name '(' exprs [',' keywords] ')' | method | const_array
 * where name is a jit, math or Python builtin, a NumPy dtype (a cast) or a
 * device function */
static Node *
call(Fe *f, PyObject *e, Loc loc)
{
    PyObject *fn = fe_get(f, e, S_func);
    Node *n = fe_new_node(f, ND_CALL, loc);
    Resolved r;
    int out_kw = f->out_kw;
    f->out_kw = 0;
    PyObject *kws = fe_get(f, e, S_keywords);
    if (fe_fused(f)) {
        kws = take_out_keyword(f, kws, out_kw);
    }
    if (fe_is(fn, A_Attribute) && !fe_resolve(f, fn, &r)) {
        return method_call(f, e, fn, n, loc);
    }
    if (fe_is(fn, A_Lambda)) {
        fe_fail(f, loc, "calling a lambda where it is written is not supported in kernels; "
                "assign it to a name first (g = lambda v: ...) and call g");
    }
    if (!fe_is(fn, A_Name) && !fe_is(fn, A_Attribute) && !fe_is(fn, A_Call)) {
        fe_fail(f, loc, "only named functions can be called in kernels");
    }
    if (fe_is(fn, A_Call) && !fe_resolve(f, fn, &r)) {
        fe_fail_kind(f, loc, CE_TYPE, "a function made by a call (make(10)(x)) must be made "
                     "at compile time: the call may not use local variables, and must call "
                     "plain Python code");
    }
    if (!fe_resolve(f, fn, &r)) {
        fe_fail(f, loc, "'%s' is a local variable, not a function: it cannot be called",
                fe_utf8(f, fe_get(f, fn, S_id)));
    }
    switch (r.kind) {
    case R_BUILTIN:
        if (r.bi == BI_INTRIN) {
            n->op = BI_INTRIN;      /* axis: the row of cj_intrins */
            n->axis = r.axis;
            break;
        }
        if (r.bi == BI_VECTOR) {
            n->op = BI_VECTOR;      /* axis: the lanes; cval.dt: the element's dtype */
            n->axis = r.axis;
            n->cval.kind = CK_DTYPE;
            n->cval.dt = r.dt;
            break;
        }
        if (r.bi == BI_EXTERN) {
            n->op = BI_EXTERN;
            n->ext = fe_extern_read(f, r.obj, loc);
            break;
        }
        if (r.bi == BI_CONST_ARRAY) {
            return const_array(f, e, n, loc);
        }
        if (r.bi == BI_NPFUNC) {    /* the axis holds the function, not a variant */
            return fe_np_call(f, e, n, r.axis, loc);
        }
        if (r.bi == BI_THRUST) {    /* the axis holds the algorithm, not a variant */
            return thrust_call(f, e, n, r.axis, loc);
        }
        if (r.bi == BI_THRUST_POLICY) {
            fe_fail_kind(f, loc, CE_TYPE, "jit.thrust.device and jit.thrust.seq are execution "
                         "policies, not functions: pass one as the first argument of a "
                         "jit.thrust algorithm");
        }
        if (r.bi == BI_THREADIDX || r.bi == BI_BLOCKIDX || r.bi == BI_BLOCKDIM
            || r.bi == BI_GRIDDIM) {
            fe_fail(f, loc, "%s.%c is a number, not a function: it cannot be called; drop the ()",
                    cj_builtin_names[r.bi], "xyz"[r.axis]);
        }
        if (r.axis == FE_V_VALUE) {
            fe_fail_kind(f, loc, CE_TYPE, "cuda.laneid is a number, not a function: it cannot "
                         "be called; drop the ()");
        }
        if (r.bi >= BI_BLOCK_REDUCE && r.bi <= BI_WARP_SCAN) {
            fe_collective_builtin(f, e, n, r.bi, loc);
            return n;
        }
        n->op = r.bi;
        n->axis = r.axis;
        break;
    case R_COLLECTIVE:
        fe_collective_object(f, e, n, r.obj, loc);
        return n;
    case R_DTYPE:
        n->op = BI_CAST;
        n->cval.kind = CK_DTYPE;
        n->cval.dt = r.dt;
        break;
    case R_DEVFUNC:
    case R_KERNEL:
        if (f->cx->depth >= FE_MAX_DEPTH) {
            fe_fail_kind(f, loc, CE_VALUE, "device functions nested more than %d deep: a "
                         "factory whose products call the next product without end?",
                         FE_MAX_DEPTH);
        }
        return fe_devfunc_call(f, e, n, r.obj, r.sigs, kws, loc);
    case R_FUSE_REDUCE:
        fe_fail_kind(f, loc, CE_TYPE, "a reduction in a fused function must be the value of its "
                     "last statement: return np.sum(expr, axis=...)");
    case R_OPERATOR:
        return operator_call(f, e, r.bi, loc);
    case R_OVERLOAD:
        return fe_overload_call(f, e, n, r.obj, kws, loc);
    case R_CONST:
    case R_NAMESPACE:
    case R_NONE:
    case R_OTHER:
        unsupported_call(f, r.obj, loc);
        if ((n = fe_np_alias_call(f, e, r.obj, loc))) {
            return n;           /* np.real(x) is x.real ... */
        }
        fe_np_unsupported(f, r.obj, loc);
        if (fe_resolve(f, e, &r)) {
            return resolved_value(f, &r, e, loc);     /* run by Python: its value */
        }
        if ((n = tuple_call(f, e, r.obj, loc))) {
            return n;           /* tuple((a, b)) of local values */
        }
        if ((n = divmod_call(f, e, r.obj, loc))) {
            return n;           /* (a // b, a % b) */
        }
        if ((n = namedtuple_call(f, e, r.obj, loc))) {
            return n;           /* Point(x, y) of local values */
        }
        if (PyFunction_Check(r.obj)) {
            fe_fail_kind(f, loc, CE_TYPE, "cannot call plain Python function '%s' from a kernel; decorate it "
                    "with @jit.rawkernel(device=True)", fe_utf8(f, fe_get(f, r.obj, S___name__)));
        }
        fe_fail_kind(f, loc, CE_TYPE, "cannot call %s in a kernel: only jit builtins, math functions, NumPy "
                "dtype casts and @jit.rawkernel(device=True) functions can be called",
                fe_describe_object(f, r.obj));
    }
    n->list = fe_call_args(f, fe_get(f, e, S_args), &n->n);
    keywords(f, n, kws);
    if (r.kind == R_BUILTIN && r.bi != BI_THREADIDX && r.bi != BI_BLOCKIDX
        && r.bi != BI_BLOCKDIM && r.bi != BI_GRIDDIM && r.bi != BI_INTRIN && r.bi != BI_VECTOR) {
        if (r.axis == FE_V_NUMBA_ALLOC) {
            numba_alloc_args(f, n, loc);
        } else if (r.axis == FE_V_FIRST_ELEMENT) {
            first_element_args(f, n, loc);
        }
        /* from here on, the builtin in cujit's own form (a cache hint's axis: the hint) */
        n->axis = r.axis >= FE_V_HINT ? r.axis - FE_V_HINT : 0;
    }
    return n;
}

/* constant := int | float | complex | bool | None | str | bytes   (not ...) */
static Node *
constant(Fe *f, PyObject *e, Loc loc)
{
    PyObject *v = fe_get(f, e, S_value);
    if (v == Py_Ellipsis) {
        fe_fail(f, loc, "this constant is not supported in kernels");
    }
    Node *c = fe_object_const(f, v, loc);
    if (!c) {
        fe_fail(f, loc, "constant %s is not supported in kernels", fe_describe_object(f, v));
    }
    return c;
}

/* name := local variable | global, closure or builtin name (resolved) */
Node *
fe_name_expr(Fe *f, PyObject *e, Loc loc)
{
    PyObject *id = fe_get(f, e, S_id);
    if (fe_is_local_name(f, id)) {
        const char *nm = fe_utf8(f, id);
        Var *v = fe_find_var(f, nm);
        if (!v) {
            v = fe_add_var(f, nm, loc, 0);
        }
        Node *n = fe_new_node(f, ND_VAR, loc);
        n->var = v;
        return n;
    }
    Resolved r;
    fe_resolve(f, e, &r);
    return resolved_value(f, &r, e, loc);
}

/* binop := expr operator expr */
static Node *
binop(Fe *f, PyObject *e, Loc loc)
{
    Node *n = fe_new_node(f, ND_BINOP, loc);
    n->op = fe_binop_kind(f, fe_get(f, e, S_op), loc);
    n->a = fe_expr(f, fe_get(f, e, S_left));
    n->b = fe_expr(f, fe_get(f, e, S_right));
    return n;
}

/* unary := ('-' | '+' | 'not' | '~') expr */
static Node *
unary(Fe *f, PyObject *e, Loc loc)
{
    PyObject *op = fe_get(f, e, S_op);
    Node *n = fe_new_node(f, ND_UNARY, loc);
    n->op = fe_is(op, A_USub) ? OP_NEG : fe_is(op, A_UAdd) ? OP_POS
            : fe_is(op, A_Not) ? OP_NOT : OP_INVERT;
    n->a = fe_expr(f, fe_get(f, e, S_operand));
    return n;
}

/* boolop := expr ('and' | 'or') expr { ('and' | 'or') expr }, one operator */
static Node *
boolop(Fe *f, PyObject *e, Loc loc)
{
    Node *n = fe_new_node(f, ND_BOOLOP, loc);
    n->op = fe_is(fe_get(f, e, S_op), A_And) ? OP_AND : OP_OR;
    n->list = fe_expr_list(f, fe_get(f, e, S_values), &n->n);
    return n;
}

/* one comparison of two string constants as Python makes it: 1 or 0, or
 * -1 where Python raises (the order of a str and a bytes) or for is / in */
static int
compare_strings(int op, const Const *a, const Const *b)
{
    int c;
    if (a->bytes != b->bytes) {
        c = 1;                  /* never equal */
        if (op != OP_EQ && op != OP_NE) {
            return -1;
        }
    } else if (a->bytes) {
        int64_t n = a->len < b->len ? a->len : b->len;
        c = memcmp(a->s, b->s, (size_t)n);
        c = c ? c : (a->len > b->len) - (a->len < b->len);
    } else {
        c = strcmp(a->s, b->s);     /* UTF-8's byte order is the code points' */
    }
    switch (op) {
    case OP_IN: case OP_NOTIN: return -1;
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    default: return -1;
    }
}

/* s in t of two string constants: whether t holds s; -1 where Python
 * raises (a str in a bytes) */
static int
contains_string(int op, const Const *s, const Const *t)
{
    if (s->bytes != t->bytes) {
        return -1;
    }
    int found = 0;
    for (int64_t i = 0; i + s->len <= t->len && !found; i++) {
        found = memcmp(t->s + i, s->s, (size_t)s->len) == 0;
    }
    return op == OP_IN ? found : !found;
}

/* a comparison of string constants only ("1" == "1", "a" in "abc", a string
 * argument of a device function bound as a constant: Numba's literal
 * strings) is folded to its bool; NULL where it is not one */
static Node *
fold_strings(Fe *f, Node *n)
{
    int v = 1;
    for (int i = 0; i < n->n; i++) {
        if (n->list[i]->kind != ND_CONST || n->list[i]->cval.kind != CK_STR) {
            return NULL;
        }
    }
    for (int i = 0; i + 1 < n->n && v; i++) {
        const Const *a = &n->list[i]->cval, *b = &n->list[i + 1]->cval;
        int op = n->ops[i];
        v = op == OP_IN || op == OP_NOTIN ? contains_string(op, a, b)
            : compare_strings(op, a, b);
        if (v < 0) {
            return NULL;
        }
    }
    Const c = {.kind = CK_BOOL, .dt = DT_BOOL, .i = v};
    return fe_const_node(f, n->loc, c);
}

/* container := '[' [ exprs ] ']' | expr: the right operand of 'in', where
 * a list written out is read as the tuple of its items (Numba takes one) */
static Node *
container(Fe *f, PyObject *e)
{
    if (fe_is(e, A_List)) {
        Node *n = fe_new_node(f, ND_TUPLE, fe_loc_of(f, e));
        n->list = fe_expr_list(f, fe_get(f, e, S_elts), &n->n);
        return n;
    }
    return fe_expr(f, e);
}

/* compare := expr cmpop expr { cmpop expr }   (a chain: a < b <= c); 'in'
 * and 'not in' stand alone (x in t, not a < x in t) */
static Node *
compare(Fe *f, PyObject *e, Loc loc)
{
    PyObject *ops = fe_get(f, e, S_ops), *cmps = fe_get(f, e, S_comparators);
    Py_ssize_t k = PyList_GET_SIZE(ops);
    Node *n = fe_new_node(f, ND_COMPARE, loc);
    n->n = (int)k + 1;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(k + 1));
    n->ops = cj_alloc(f->cx->arena, sizeof(int) * (size_t)k);
    n->list[0] = fe_expr(f, fe_get(f, e, S_left));
    for (Py_ssize_t i = 0; i < k; i++) {
        n->ops[i] = cmpop_kind(PyList_GET_ITEM(ops, i));
        int in = n->ops[i] == OP_IN || n->ops[i] == OP_NOTIN;
        if (in && k > 1) {
            fe_fail(f, loc, "'in' and 'not in' in a chain of comparisons are not supported "
                    "in kernels; write the comparisons apart, joined by 'and' "
                    "((a < b) and (b in t))");
        }
        PyObject *c = PyList_GET_ITEM(cmps, i);
        n->list[i + 1] = in ? container(f, c) : fe_expr(f, c);
    }
    Node *folded = fold_strings(f, n);
    return folded ? folded : n;
}

/* ifexp := expr 'if' expr 'else' expr */
static Node *
ifexp(Fe *f, PyObject *e, Loc loc)
{
    Node *n = fe_new_node(f, ND_IFEXP, loc);
    n->a = fe_expr(f, fe_get(f, e, S_test));
    n->b = fe_expr(f, fe_get(f, e, S_body));
    n->c = fe_expr(f, fe_get(f, e, S_orelse));
    return n;
}

/* tuple := '(' [ exprs [','] ] ')' */
static Node *
tuple(Fe *f, PyObject *e, Loc loc)
{
    Node *n = fe_new_node(f, ND_TUPLE, loc);
    n->list = fe_expr_list(f, fe_get(f, e, S_elts), &n->n);
    return n;
}

/* Any other expression is an error; the common ones say what to use instead. */
CJ_NORETURN static void
unsupported_expr(Fe *f, PyObject *e, Loc loc)
{
    if (fe_is(e, A_List)) {
        fe_fail(f, loc, "lists are not supported in kernels; use a tuple, or "
                "jit.local_memory(dtype, n) for a small per-thread array");
    }
    if (fe_is(e, A_Lambda)) {
        fe_fail(f, loc, "a lambda here is not supported in kernels: assign it to a name "
                "first (g = lambda v: ...), or use a def or a @jit.rawkernel(device=True) "
                "function");
    }
    if (fe_is(e, A_NamedExpr)) {
        fe_fail(f, loc, "assignment expressions (:=) are not supported in kernels; assign on "
                "a line of its own");
    }
    if (fe_is(e, A_JoinedStr)) {
        fe_fail(f, loc, "f-strings are not supported in kernels; pass the values to print() "
                "as separate arguments");
    }
    fe_fail(f, loc, "%s expressions are not supported in kernels", Py_TYPE(e)->tp_name);
}

/* expr := name | constant | binop | unary | boolop | compare | ifexp | call
 *       | attribute | subscript | tuple */
Node *
fe_expr(Fe *f, PyObject *e)
{
    Loc loc = fe_loc_of(f, e);
    if (fe_is(e, A_Name)) {
        return fe_name_expr(f, e, loc);
    }
    if (fe_is(e, A_Constant)) {
        return constant(f, e, loc);
    }
    if (fe_is(e, A_BinOp)) {
        return binop(f, e, loc);
    }
    if (fe_is(e, A_UnaryOp)) {
        return unary(f, e, loc);
    }
    if (fe_is(e, A_BoolOp)) {
        return boolop(f, e, loc);
    }
    if (fe_is(e, A_Compare)) {
        return compare(f, e, loc);
    }
    if (fe_is(e, A_IfExp)) {
        return ifexp(f, e, loc);
    }
    if (fe_is(e, A_Call)) {
        return call(f, e, loc);
    }
    if (fe_is(e, A_Attribute)) {
        return attribute(f, e, loc);
    }
    if (fe_is(e, A_Subscript)) {
        return fe_subscript(f, e, loc);
    }
    if (fe_is(e, A_Tuple)) {
        return tuple(f, e, loc);
    }
    unsupported_expr(f, e, loc);
}
