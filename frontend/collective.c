/* collective.c - calls of the block and warp collectives, in each of their
 * spellings, read into one form: an ND_CALL of BI_BLOCK_REDUCE,
 * BI_WARP_REDUCE, BI_BLOCK_SCAN or BI_WARP_SCAN whose list is (value
 * [, valid or initial]) and whose Node.coll holds the combiner and flags.
 *   - cujit's own: jit.block_reduce(value, op='sum', valid=None) ...
 *   - objects tagged __cujit_collective__ with a tuple (cujit/_collectives.py):
 *     cupyx.jit.cub's WarpReduce[T](storage).Sum(value) and .Reduce(value, op),
 *     cuda.coop's block.reduce(T, threads, op) called as f([storage,] value ...)
 *   - cupyx's class objects (WarpReduce[T], tagged "class") bound to local
 *     names: `BR = jit.cub.BlockReduce[T, 256]` binds BR at compile time. */
#include <string.h>

#include "fe_impl.h"

enum { MAXP = 5 };

/* what a call means: the builtin, what its spelling fixes, and its
 * parameters (the op, inclusive and the extra one: valid or initial) */
typedef struct {
    int bi;
    int op;                 /* CO_*, or 0: the call's `op` argument (sum if none) */
    PyObject *opobj;        /* a combiner fixed by the spelling (a function) */
    PyObject *dtype;        /* the spelling's element type, or NULL */
    int inclusive;          /* scans: 0/1, or -1: the call's `inclusive` (True if none) */
    PyObject *initial;      /* scans: an initial value fixed by the spelling */
    const char *params[MAXP + 1];
} Spec;

/* 'sum' ('add', '+'), 'max', 'min' */
static int
combiner_name(const char *s)
{
    if (strcmp(s, "sum") == 0 || strcmp(s, "add") == 0 || strcmp(s, "+") == 0) {
        return CO_SUM;
    }
    return strcmp(s, "max") == 0 ? CO_MAX : strcmp(s, "min") == 0 ? CO_MIN : 0;
}

static CJ_NORETURN void
bad_combiner(Fe *f, Loc loc, const char *what)
{
    fe_fail_kind(f, loc, CE_TYPE, "the combiner of a collective must be 'sum', 'max', 'min', "
                 "max, min, jit.cub.Sum() / Max() / Min() or a function of two values "
                 "(a device function), not %s", what);
}

/* A combiner given as an object: a device function (or a plain Python
 * function, read as one), Python's max / min, a string, or an object tagged
 * __cujit_combiner__ (jit.cub.Sum()). */
static int
combiner_object(Fe *f, Node *n, PyObject *obj, Loc loc)
{
    if (PyUnicode_Check(obj)) {
        int op = combiner_name(fe_utf8(f, obj));
        if (!op) {
            fe_fail_kind(f, loc, CE_VALUE, "unknown combiner '%s': use 'sum', 'max', 'min' or "
                         "a device function", fe_utf8(f, obj));
        }
        return op;
    }
    PyObject *tag = PyObject_GetAttrString(obj, "__cujit_combiner__");
    if (tag && PyUnicode_Check(tag)) {
        fe_keep(f, tag);
        return combiner_object(f, n, tag, loc);
    }
    Py_XDECREF(tag);
    PyErr_Clear();
    Resolved r = fe_classify(f, obj, loc);
    if (r.kind == R_BUILTIN && (r.bi == BI_MAX || r.bi == BI_MIN)) {
        return r.bi == BI_MAX ? CO_MAX : CO_MIN;
    }
    if (r.kind == R_DEVFUNC || (r.kind == R_OTHER && PyFunction_Check(obj))) {
        if (f->cx->depth >= FE_MAX_DEPTH) {
            fe_fail_kind(f, loc, CE_VALUE, "device functions nested more than %d deep",
                         FE_MAX_DEPTH);
        }
        n->fn = fe_read(f->cx, r.obj, 1, f->fn->boundscheck);
        return CO_FUNC;
    }
    if (r.kind == R_CONST && r.node->cval.kind == CK_STR) {
        return combiner_object(f, n, fe_keep(f, PyUnicode_FromString(r.node->cval.s)), loc);
    }
    bad_combiner(f, loc, fe_describe_object(f, obj));
}

/* op := str | name | call made at compile time (jit.cub.Max()) */
static int
combiner(Fe *f, Node *n, PyObject *e)
{
    Loc loc = fe_loc_of(f, e);
    if (fe_is(e, A_Constant)) {
        return combiner_object(f, n, fe_get(f, e, S_value), loc);
    }
    Resolved r;
    if (!fe_resolve(f, e, &r)) {
        bad_combiner(f, loc, "a local variable or a value computed in the kernel");
    }
    if (r.kind == R_CONST && r.node->cval.kind != CK_STR) {
        bad_combiner(f, loc, "a number");
    }
    return combiner_object(f, n, r.obj, loc);
}

static int
param_index(const Spec *s, const char *name)
{
    for (int i = 0; s->params[i]; i++) {
        if (strcmp(s->params[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* args := expr { ',' expr } { ',' name '=' expr }, bound to s->params */
static void
bind(Fe *f, PyObject *e, const Spec *s, PyObject **slot, const char *fname, Loc loc)
{
    PyObject *args = fe_get(f, e, S_args), *kws = fe_get(f, e, S_keywords);
    int np = 0;
    while (s->params[np]) {
        np++;
    }
    if (PyList_GET_SIZE(args) > np) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes at most %d arguments, got %d", fname, np,
                     (int)PyList_GET_SIZE(args));
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(args); i++) {
        slot[i] = PyList_GET_ITEM(args, i);
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(kws); k++) {
        PyObject *kw = PyList_GET_ITEM(kws, k), *name = fe_get(f, kw, S_arg);
        int i = name == Py_None ? -1 : param_index(s, fe_utf8(f, name));
        if (i < 0) {
            fe_fail_kind(f, fe_loc_of(f, kw), CE_TYPE, "%s() has no keyword argument '%s' "
                         "(it takes %s%s%s%s%s%s%s)", fname,
                         name == Py_None ? "**" : fe_utf8(f, name), s->params[0],
                         np > 1 ? ", " : "", np > 1 ? s->params[1] : "",
                         np > 2 ? ", " : "", np > 2 ? s->params[2] : "",
                         np > 3 ? ", " : "", np > 3 ? s->params[3] : "");
        }
        if (slot[i]) {
            fe_fail_kind(f, fe_loc_of(f, kw), CE_TYPE, "%s() got argument '%s' twice", fname,
                         s->params[i]);
        }
        slot[i] = fe_get(f, kw, S_value);
    }
}

/* inclusive := a condition known at compile time */
static int
inclusive_arg(Fe *f, PyObject *e, const char *fname)
{
    int v;
    if (!cj_fold_truth(fe_expr(f, e), &v)) {
        fe_fail_kind(f, fe_loc_of(f, e), CE_TYPE, "%s(): inclusive must be True or False, "
                     "known when the kernel compiles", fname);
    }
    return v;
}

static void
set_dtype(Fe *f, Node *n, PyObject *dtype, Loc loc)
{
    if (!dtype || dtype == Py_None) {
        return;
    }
    DType dt;
    if (!fe_dtype_of_object(f, dtype, &dt)) {
        fe_fail_kind(f, loc, CE_TYPE, "the element type of a collective must be a NumPy "
                     "dtype, not %s", fe_describe_object(f, dtype));
    }
    n->cval.kind = CK_DTYPE;
    n->cval.dt = dt;
}

/* The call read into n by the parameters' names. */
static void
build(Fe *f, PyObject *e, Node *n, const Spec *s, const char *fname, Loc loc)
{
    PyObject *slot[MAXP + 1] = {NULL};
    bind(f, e, s, slot, fname, loc);
    int iv = param_index(s, "value"), iop = param_index(s, "op");
    int iinc = param_index(s, "inclusive"), iextra = param_index(s, "valid");
    if (iextra < 0) {
        iextra = param_index(s, "initial");
    }
    if (!slot[iv]) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() is missing its argument '%s'", fname,
                     s->params[iv]);
    }
    n->op = s->bi;
    n->coll = s->op ? s->op : s->opobj ? combiner_object(f, n, s->opobj, loc)
              : iop >= 0 && slot[iop] ? combiner(f, n, slot[iop]) : CO_SUM;
    int scan = s->bi == BI_BLOCK_SCAN || s->bi == BI_WARP_SCAN;
    int inc = s->inclusive >= 0 ? s->inclusive
              : iinc >= 0 && slot[iinc] ? inclusive_arg(f, slot[iinc], fname) : 1;
    n->coll |= scan && inc ? CO_INCLUSIVE : 0;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * 2);
    n->list[0] = fe_expr(f, slot[iv]);
    n->n = 1;
    if (iextra >= 0 && slot[iextra]) {
        n->list[n->n++] = fe_expr(f, slot[iextra]);
    } else if (s->initial && s->initial != Py_None) {
        n->list[n->n++] = fe_object_const(f, s->initial, loc);
    }
    set_dtype(f, n, s->dtype, loc);
}

/* cuda.coop's call: ([temp_storage,] value [, valid]), positional; whether
 * the first is the storage, typing decides (an array is) */
static void
build_storage_form(Fe *f, PyObject *e, Node *n, const Spec *s, const char *fname, Loc loc)
{
    PyObject *args = fe_get(f, e, S_args);
    int na = (int)PyList_GET_SIZE(args);
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes positional arguments only", fname);
    }
    if (na < 1 || na > 3) {
        fe_fail_kind(f, loc, CE_TYPE, "%s() takes ([temp_storage,] value%s), got %d "
                     "arguments", fname, s->bi == BI_BLOCK_REDUCE || s->bi == BI_WARP_REDUCE
                     ? " [, num_valid]" : "", na);
    }
    n->op = s->bi;
    n->coll = (s->op ? s->op : combiner_object(f, n, s->opobj, loc)) | CO_STORAGE;
    n->coll |= s->inclusive > 0 ? CO_INCLUSIVE : 0;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * 4);
    for (int i = 0; i < na; i++) {
        n->list[n->n++] = fe_expr(f, PyList_GET_ITEM(args, i));
    }
    if (s->initial && s->initial != Py_None) {
        n->list[n->n++] = fe_object_const(f, s->initial, loc);
    }
    set_dtype(f, n, s->dtype, loc);
}

/* jit.block_reduce(value, op='sum', valid=None), jit.warp_reduce(...),
 * jit.block_scan(value, op='sum', inclusive=True, initial=None), jit.warp_scan(...) */
void
fe_collective_builtin(Fe *f, PyObject *e, Node *n, int bi, Loc loc)
{
    static const Spec reduce = {0, 0, NULL, NULL, -1, NULL, {"value", "op", "valid", NULL}};
    static const Spec scan = {0, 0, NULL, NULL, -1, NULL,
                              {"value", "op", "inclusive", "initial", NULL}};
    Spec s = bi == BI_BLOCK_REDUCE || bi == BI_WARP_REDUCE ? reduce : scan;
    s.bi = bi;
    build(f, e, n, &s, cj_builtin_names[bi], loc);
}

static int
builtin_of(const char *name)
{
    static const struct { const char *name; int bi; } t[] = {
        {"block_reduce", BI_BLOCK_REDUCE}, {"warp_reduce", BI_WARP_REDUCE},
        {"block_scan", BI_BLOCK_SCAN}, {"warp_scan", BI_WARP_SCAN},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (strcmp(t[i].name, name) == 0) {
            return t[i].bi;
        }
    }
    return -1;
}

/* spec := (name, op, dtype, inclusive, initial, params): name one of the
 * four collectives; op None (the call's), a string or a function; params the
 * call's parameter names, ("temp_storage",) for cuda.coop's form */
void
fe_collective_object(Fe *f, PyObject *e, Node *n, PyObject *obj, Loc loc)
{
    PyObject *t = fe_keep(f, PyObject_GetAttrString(obj, "__cujit_collective__"));
    if (!t || !PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 6
        || !PyUnicode_Check(PyTuple_GET_ITEM(t, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(t, 5))
        || PyTuple_GET_SIZE(PyTuple_GET_ITEM(t, 5)) > MAXP) {
        PyErr_Clear();
        fe_fail(f, loc, "%s is not a collective cujit knows", fe_describe_object(f, obj));
    }
    Spec s;
    memset(&s, 0, sizeof s);
    const char *name = fe_utf8(f, PyTuple_GET_ITEM(t, 0));
    s.bi = builtin_of(name);
    if (s.bi < 0) {
        fe_fail(f, loc, "unknown collective '%s'", name);
    }
    PyObject *op = PyTuple_GET_ITEM(t, 1);
    s.opobj = op == Py_None ? NULL : op;
    s.dtype = PyTuple_GET_ITEM(t, 2);
    s.inclusive = PyObject_IsTrue(PyTuple_GET_ITEM(t, 3));
    s.initial = PyTuple_GET_ITEM(t, 4);
    PyObject *params = PyTuple_GET_ITEM(t, 5);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(params); i++) {
        s.params[i] = fe_utf8(f, PyTuple_GET_ITEM(params, i));
    }
    PyObject *pyname = PyObject_GetAttrString(obj, "__name__");
    const char *fname = pyname && PyUnicode_Check(pyname) ? fe_utf8(f, pyname) : name;
    Py_XDECREF(pyname);
    PyErr_Clear();
    if (s.params[0] && strcmp(s.params[0], "temp_storage") == 0) {
        build_storage_form(f, e, n, &s, fname, loc);
    } else {
        build(f, e, n, &s, fname, loc);
    }
}

/* Is obj one of cupyx.jit.cub's class objects (WarpReduce[T], tagged "class")? */
int
fe_is_collective_class(PyObject *obj)
{
    PyObject *t = PyObject_GetAttrString(obj, "__cujit_collective__");
    int r = t && PyUnicode_Check(t) && PyUnicode_CompareWithASCIIString(t, "class") == 0;
    Py_XDECREF(t);
    PyErr_Clear();
    return r;
}

/* The class object an expression names without running anything: a name
 * (an alias too), jit.cub.BlockReduce[T, 256], or a call of a class object
 * (its argument, the temp storage, is not needed); NULL if none. */
static PyObject *
class_value(Fe *f, PyObject *e)
{
    if (fe_is(e, A_Call)) {
        PyObject *fn = fe_get(f, e, S_func);
        return fe_is(fn, A_Call) ? NULL : class_value(f, fn);
    }
    Resolved r;
    if (!(fe_is(e, A_Name) || fe_is(e, A_Attribute) || fe_is(e, A_Subscript))
        || !fe_resolve(f, e, &r)) {
        return NULL;
    }
    return fe_is_collective_class(r.obj) ? r.obj : NULL;
}

/* alias := name '=' class_value: binds the name to the class object at
 * compile time (nothing runs); 1 if the assignment was one */
int
fe_collective_alias(Fe *f, PyObject *s)
{
    PyObject *tl = fe_get(f, s, S_targets);
    PyObject *t = PyList_GET_ITEM(tl, 0);
    if (PyList_GET_SIZE(tl) != 1 || !fe_is(t, A_Name)) {
        return 0;
    }
    PyObject *v = class_value(f, fe_get(f, s, S_value));
    if (!v) {
        return 0;
    }
    if (!f->aliases) {
        f->aliases = fe_keep(f, PyDict_New());
    }
    if (!f->aliases || PyDict_SetItem(f->aliases, fe_get(f, t, S_id), v) < 0) {
        fe_fail_py(f, fe_loc_of(f, t), "cujit");
    }
    return 1;
}
