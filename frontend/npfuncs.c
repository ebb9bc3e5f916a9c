/* npfuncs.c - NumPy's functions and array methods in kernels (np.sum(a),
 * a.max(), np.count_nonzero(a), a.copy(), a.view(dtype), a.reshape(shape)),
 * cmath's functions, and NumPy arrays read as globals: each becomes a
 * constant table, as Numba freezes a global array into the kernel.  The
 * calls are one builtin, BI_NPFUNC, with the function (NP_*, cj.h's
 * CJ_NP_FUNCS) in the node's axis; typeinfer/npfuncs.c types them. */
#include <stdio.h>
#include <string.h>

#include "fe_impl.h"

/* the NP_* row called `name` whose kind is one of `kinds`, or -1 */
static int
np_row(const char *name, const char *kinds)
{
    for (int i = 0; i < NP_COUNT; i++) {
        if (strcmp(cj_np_funcs[i].name, name) == 0 && strchr(kinds, cj_np_funcs[i].kind)) {
            return i;
        }
    }
    return -1;
}

/* obj.__module__ and obj.__name__ as C strings (copied into out), 0 if
 * either is missing */
static int
module_and_name(PyObject *obj, char *mod, size_t nmod, char *name, size_t nname)
{
    PyObject *m = PyObject_GetAttr(obj, fe_names[S___module__]);
    PyObject *n = m ? PyObject_GetAttr(obj, fe_names[S___name__]) : NULL;
    int ok = m && n && PyUnicode_Check(m) && PyUnicode_Check(n);
    if (ok) {
        snprintf(mod, nmod, "%s", PyUnicode_AsUTF8(m));
        snprintf(name, nname, "%s", PyUnicode_AsUTF8(n));
    }
    Py_XDECREF(m);
    Py_XDECREF(n);
    PyErr_Clear();
    return ok;
}

/* Is obj a CuPy ufunc (cupy.sqrt: an instance of cupy._core._kernel.ufunc,
 * named "cupy_sqrt")?  Seen by its type's name and module, so that CuPy is
 * never imported. */
static int
cupy_ufunc(PyObject *obj)
{
    const char *tn = Py_TYPE(obj)->tp_name, *dot = strrchr(tn, '.');
    if (strcmp(dot ? dot + 1 : tn, "ufunc") != 0) {
        return 0;
    }
    PyObject *m = PyObject_GetAttr((PyObject *)Py_TYPE(obj), fe_names[S___module__]);
    int ok = m && PyUnicode_Check(m) && strncmp(PyUnicode_AsUTF8(m), "cupy", 4) == 0;
    Py_XDECREF(m);
    PyErr_Clear();
    return ok;
}

/* obj.__name__ copied into out (a CuPy ufunc's __module__ may be None) */
static int
ufunc_name(PyObject *obj, char *out, size_t n)
{
    PyObject *nm = PyObject_GetAttr(obj, fe_names[S___name__]);
    int ok = nm && PyUnicode_Check(nm);
    if (ok) {
        snprintf(out, n, "%s", PyUnicode_AsUTF8(nm));
    }
    Py_XDECREF(nm);
    PyErr_Clear();
    return ok;
}

/* a CuPy ufunc's NumPy name: "cupy_sqrt" -> "sqrt", true_divide -> divide */
static const char *
cupy_ufunc_name(const char *name)
{
    const char *nm = strncmp(name, "cupy_", 5) == 0 ? name + 5 : name;
    return strcmp(nm, "true_divide") == 0 ? "divide" : nm;
}

/* np.sum and friends (functions of the numpy module), NumPy's and CuPy's
 * ufuncs, and cmath.sqrt and friends: a BI_NPFUNC builtin with its row in
 * r->axis; 0 for anything else */
int
fe_np_function(PyObject *obj, Resolved *r)
{
    char mod[64], name[64];
    int row = -1;
    if (PyType_Check(obj) || !PyCallable_Check(obj)) {
        return 0;
    }
    if (cupy_ufunc(obj)) {
        row = ufunc_name(obj, name, sizeof name) ? np_row(cupy_ufunc_name(name), "u") : -1;
    } else if (!module_and_name(obj, mod, sizeof mod, name, sizeof name)) {
        return 0;
    } else if (strcmp(mod, "cmath") == 0 && PyCFunction_Check(obj)) {
        row = np_row(name, "c");
    } else if (strcmp(mod, "numpy") == 0 || strncmp(mod, "numpy.", 6) == 0) {
        row = np_row(name, "rfu");
    }
    if (row < 0) {
        return 0;
    }
    r->kind = R_BUILTIN;
    r->bi = BI_NPFUNC;
    r->axis = row;
    return 1;
}

/* np.real(x), np.imag(x) (x.real, x.imag: of numbers and arrays),
 * np.conj(z) / np.conjugate(z) of a number (z.conjugate()) and np.angle(z)
 * of a number (cmath.phase), as Numba has them; NULL for another object */
Node *
fe_np_alias_call(Fe *f, PyObject *e, PyObject *obj, Loc loc)
{
    static const char *const names[] = {"real", "imag", "conjugate", "angle"};
    char mod[64], name[64];
    if (!obj || PyType_Check(obj) || !module_and_name(obj, mod, sizeof mod, name, sizeof name)
        || (strcmp(mod, "numpy") != 0 && strncmp(mod, "numpy.", 6) != 0)) {
        return NULL;
    }
    int which = 0;
    while (which < 4 && strcmp(names[which], name) != 0) {
        which++;
    }
    if (which == 4) {
        return NULL;
    }
    PyObject *args = fe_get(f, e, S_args);
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords)) || PyList_GET_SIZE(args) != 1
        || fe_is(PyList_GET_ITEM(args, 0), A_Starred)) {
        fe_fail_kind(f, loc, CE_TYPE, "np.%s() in a kernel takes one argument (no out= or "
                     "deg=)", name);
    }
    Node *x = fe_expr(f, PyList_GET_ITEM(args, 0));
    if (which < 2) {
        Node *n = fe_new_node(f, ND_ATTR, loc);
        n->op = which == 0 ? AT_REAL : AT_IMAG;
        n->str = names[which];
        n->a = x;
        return n;
    }
    Node *n = fe_new_node(f, ND_CALL, loc);
    n->op = which == 2 ? BI_CONJUGATE : BI_NPFUNC;
    n->axis = which == 2 ? 0 : NP_C_PHASE;
    n->n = 1;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * 2);
    n->list[0] = x;
    return n;
}

/* A function of numpy that kernels lack (np.argsort, np.sin): an error
 * that lists those they have; nothing for another object */
void
fe_np_unsupported(Fe *f, PyObject *obj, Loc loc)
{
    char mod[64], name[64];
    if (!obj || PyType_Check(obj)) {
        return;
    }
    if (cupy_ufunc(obj) && ufunc_name(obj, name, sizeof name)) {
        fe_fail_kind(f, loc, CE_TYPE, "cannot call cupy.%s in a kernel: kernels have CuPy's "
                     "and NumPy's elementwise ufuncs that README lists (cupy.sin, cupy.maximum, "
                     "cupy.floor, ...); for other elementwise math use the math module's "
                     "functions", cupy_ufunc_name(name));
    }
    if (!module_and_name(obj, mod, sizeof mod, name, sizeof name)
        || (strcmp(mod, "numpy") != 0 && strncmp(mod, "numpy.", 6) != 0)) {
        return;
    }
    fe_fail_kind(f, loc, CE_TYPE, "cannot call np.%s in a kernel: kernels have np.sum, prod, "
                 "min, max, amin, amax, mean, var, std, all, any, nansum, nanprod, nanmin, "
                 "nanmax, nanmean, count_nonzero, argmin and argmax of a whole array, NumPy's "
                 "elementwise ufuncs "
                 "(np.sin, np.maximum, ...: README's list) and NumPy dtype casts; for other "
                 "elementwise math use the math module's functions", name);
}

/* the call's arguments into n (after `first`, the array of a method), their
 * number checked against the row's */
static Node *
np_args(Fe *f, PyObject *e, Node *n, Node *first, int row, Loc loc)
{
    const NpFuncInfo *fi = &cj_np_funcs[row];
    const char *pre = fi->kind == 'c' ? "cmath." : fi->kind == 'm' ? "a." : "np.";
    if (PyList_GET_SIZE(fe_get(f, e, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "%s%s() takes no keyword arguments in kernels%s", pre,
                     fi->name, fi->kind == 'r' || fi->kind == 'f'
                     ? " (axis=, dtype=, out=, ddof= are not supported: it reduces the whole "
                       "array in the calling thread)" : "");
    }
    int na;
    Node **args = fe_call_args(f, fe_get(f, e, S_args), &na);
    int got = na + (first != NULL);
    if (got < fi->min_args || got > fi->max_args) {
        int lo = fi->min_args - (first != NULL), hi = fi->max_args - (first != NULL);
        fe_fail_kind(f, loc, CE_TYPE, "%s%s() takes %d%s%s argument%s in kernels, got %d", pre,
                     fi->name, lo, hi > lo ? " to " : "",
                     hi > lo ? cj_aprintf(f->cx->arena, "%d", hi) : "", hi == 1 ? "" : "s", na);
    }
    n->op = BI_NPFUNC;
    n->axis = row;
    n->n = got;
    n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(got + 1));
    if (first) {
        n->list[0] = first;
    }
    memcpy(n->list + (first != NULL), args, sizeof(Node *) * (size_t)na);
    return n;
}

/* is `name` a method of arrays that kernels have (sum, max, copy, view ...)? */
int
fe_np_method_name(const char *name)
{
    return np_row(name, "rm") >= 0;
}

/* np_call := ('np.' reduction | 'cmath.' function) '(' exprs ')' */
Node *
fe_np_call(Fe *f, PyObject *e, Node *n, int row, Loc loc)
{
    if (cj_np_funcs[row].kind == 'u') {
        return fe_ufunc_call(f, e, n, row, loc);
    }
    return np_args(f, e, n, NULL, row, loc);
}

/* np_method := expr '.' (reduction | 'copy' | 'view' | 'reshape') '(' exprs ')';
 * NULL when the method is none of these */
Node *
fe_np_method(Fe *f, PyObject *e, PyObject *fn, Node *n, const char *name, Loc loc)
{
    int row = np_row(name, "rm");
    if (row < 0) {
        return NULL;
    }
    Node *self = fe_expr(f, fe_get(f, fn, S_value));
    return np_args(f, e, n, self, row, loc);
}

/* ---- NumPy arrays read as globals ---- */

/* a NumPy array's dtype, shape and bytes (C order), read now, as a table;
 * `what` names the construct in messages */
CjTable *
fe_ndarray_table(Fe *f, PyObject *arr, const char *what, Loc loc)
{
    CjTable *t = cj_alloc(f->cx->arena, sizeof *t);
    PyObject *dt = fe_keep(f, PyObject_GetAttr(arr, fe_names[S_dtype]));
    PyObject *shape = fe_keep(f, PyObject_GetAttrString(arr, "shape"));
    PyObject *bytes = fe_keep(f, PyObject_CallMethod(arr, "tobytes", NULL));
    if (!dt || !shape || !bytes || !PyTuple_Check(shape) || !PyBytes_Check(bytes)) {
        fe_fail_py(f, loc, cj_aprintf(f->cx->arena, "%s: cannot read the array", what));
    }
    t->ndim = (int)PyTuple_GET_SIZE(shape);
    if (!fe_dtype_of_object(f, dt, &t->dt) || t->ndim < 1 || t->ndim > 8) {
        fe_fail_kind(f, loc, CE_TYPE, "%s: kernels take NumPy arrays of 1 to 8 dimensions "
                     "of a number, bool or record dtype, not %s of %d dimensions", what,
                     fe_describe_object(f, arr), t->ndim);
    }
    t->shape = cj_alloc(f->cx->arena, sizeof(int64_t) * (size_t)t->ndim);
    for (int i = 0; i < t->ndim; i++) {
        t->shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    }
    t->nbytes = (int64_t)PyBytes_GET_SIZE(bytes);
    unsigned char *copy = cj_alloc(f->cx->arena, (size_t)t->nbytes + 1);
    memcpy(copy, PyBytes_AS_STRING(bytes), (size_t)t->nbytes);
    t->data = copy;
    return t;
}

/* A NumPy array read as a global or closure variable: a read-only constant
 * table (BI_CONST_ARRAY, as cuda.const.array_like makes), its values taken
 * when the kernel compiles, as Numba does; a 0-d array is its item, a NumPy
 * scalar.  NULL when obj is not a NumPy array. */
Node *
fe_ndarray_const(Fe *f, PyObject *obj, Loc loc)
{
    if (strcmp(Py_TYPE(obj)->tp_name, "numpy.ndarray") != 0) {
        return NULL;
    }
    PyObject *nd = fe_keep(f, PyObject_GetAttrString(obj, "ndim"));
    if (nd && PyLong_Check(nd) && PyLong_AsLong(nd) == 0) {
        PyObject *item = fe_keep(f, PyObject_GetItem(obj, fe_keep(f, PyTuple_New(0))));
        Node *c = item ? fe_object_const(f, item, loc) : NULL;
        PyErr_Clear();
        return c;
    }
    PyErr_Clear();
    Node *n = fe_new_node(f, ND_CALL, loc);
    n->op = BI_CONST_ARRAY;
    n->table = fe_ndarray_table(f, obj, "a global NumPy array", loc);
    return n;
}
