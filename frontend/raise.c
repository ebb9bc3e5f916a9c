/* raise.c - `raise E` and `raise E(args)` in kernels, read into a raise:
 * an ND_ASSERT node with op 1 (ND_RAISE_OP) whose message (Node.str) names
 * the exception for the host, "module\nqualname\nrepr(args)".  The class
 * must be known at compile time and its arguments constants; the thread
 * that raises ends, and the launch raises the exception on the host
 * (module/launch.c), as it does for a failed assert. */
#include <string.h>

#include "fe_impl.h"

/* the class a raise names: a subclass of BaseException known at compile time */
static PyObject *
exception_class(Fe *f, PyObject *e, Loc loc)
{
    Resolved r;
    if ((fe_is(e, A_Name) || fe_is(e, A_Attribute)) && fe_resolve(f, e, &r) && r.value
        && PyType_Check(r.value)
        && PyType_IsSubtype((PyTypeObject *)r.value, (PyTypeObject *)PyExc_BaseException)) {
        return r.value;
    }
    fe_fail_kind(f, loc, CE_TYPE, "a raise in a kernel names an exception class known at "
                 "compile time: raise ValueError, raise MyError(\"message\", 3)");
}

/* one argument of the exception: a literal, or a name of a constant */
static PyObject *
exception_arg(Fe *f, PyObject *e)
{
    Resolved r;
    if (fe_is(e, A_Constant)) {
        return fe_get(f, e, S_value);
    }
    if ((fe_is(e, A_Name) || fe_is(e, A_Attribute)) && fe_resolve(f, e, &r)
        && r.kind == R_CONST && r.value) {
        return r.value;
    }
    fe_fail_kind(f, fe_loc_of(f, e), CE_TYPE, "the arguments of an exception raised in a "
                 "kernel must be constants (strings, numbers), known at compile time");
}

/* "module\nqualname\nrepr(args)" of the exception, in the arena */
static const char *
describe(Fe *f, PyObject *cls, PyObject *args, Loc loc)
{
    PyObject *mod = fe_keep(f, PyObject_GetAttrString(cls, "__module__"));
    PyObject *qual = fe_keep(f, PyObject_GetAttrString(cls, "__qualname__"));
    PyObject *rep = fe_keep(f, PyObject_Repr(args));
    if (!mod || !qual || !rep || !PyUnicode_Check(mod) || !PyUnicode_Check(qual)) {
        fe_fail_py(f, loc, "reading the exception class");
    }
    PyObject *s = fe_keep(f, PyUnicode_FromFormat("%U\n%U\n%U", mod, qual, rep));
    if (!s) {
        fe_fail_py(f, loc, "reading the exception class");
    }
    return fe_utf8(f, s);
}

/* raise := 'raise' name ['(' constant {',' constant} ')'] */
Node *
fe_raise_stmt(Fe *f, PyObject *s, Loc loc)
{
    PyObject *e = fe_get(f, s, S_exc);
    if (e == Py_None) {
        fe_fail(f, loc, "a bare raise (re-raising) is not supported in kernels: raise an "
                "exception class, raise ValueError(\"message\")");
    }
    if (fe_get(f, s, S_cause) != Py_None) {
        fe_fail(f, loc, "raise ... from ... is not supported in kernels: raise the exception "
                "alone");
    }
    PyObject *call = fe_is(e, A_Call) ? e : NULL;
    PyObject *cls = exception_class(f, call ? fe_get(f, call, S_func) : e, loc);
    PyObject *argl = call ? fe_get(f, call, S_args) : NULL;
    if (call && PyList_GET_SIZE(fe_get(f, call, S_keywords)) > 0) {
        fe_fail(f, loc, "an exception raised in a kernel takes positional arguments only");
    }
    Py_ssize_t na = argl ? PyList_GET_SIZE(argl) : 0;
    PyObject *args = fe_keep(f, PyTuple_New(na));
    if (!args) {
        fe_fail_py(f, loc, "reading the exception's arguments");
    }
    for (Py_ssize_t i = 0; i < na; i++) {
        PyTuple_SET_ITEM(args, i, Py_NewRef(exception_arg(f, PyList_GET_ITEM(argl, i))));
    }
    Node *n = fe_new_node(f, ND_ASSERT, loc);
    Const no;
    memset(&no, 0, sizeof no);
    no.kind = CK_BOOL;
    no.dt = DT_BOOL;
    n->a = fe_const_node(f, loc, no);
    n->op = ND_RAISE_OP;
    n->str = describe(f, cls, args, loc);
    return n;
}
