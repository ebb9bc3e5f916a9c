/* consts.c - Python objects folded into IR constants: int, float, complex,
 * bool, None, str, NumPy scalars and dtypes, and tuples of these. */
#include <string.h>

#include "fe_impl.h"

/* an ND_CONST node holding `c` */
Node *
fe_const_node(Fe *f, Loc loc, Const c)
{
    Node *n = fe_new_node(f, ND_CONST, loc);
    n->cval = c;
    return n;
}

/* is `obj` a NumPy scalar type (a subclass of numpy.generic)? */
static int
is_numpy_scalar_type(PyObject *obj)
{
    if (!PyType_Check(obj)) {
        return 0;
    }
    for (PyTypeObject *t = (PyTypeObject *)obj; t; t = t->tp_base) {
        if (strcmp(t->tp_name, "numpy.generic") == 0) {
            return 1;
        }
    }
    return 0;
}

/* The dtype named by a NumPy scalar type (np.float32), a numpy.dtype
 * instance or a dtype string. */
int
fe_dtype_of_object(Fe *f, PyObject *obj, DType *dt)
{
    PyObject *name = NULL;
    (void)f;
    if (PyUnicode_Check(obj)) {
        return cj_dtype_from_name(PyUnicode_AsUTF8(obj), dt);
    }
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) == 0) {
        name = PyObject_GetAttrString(obj, "name");
    } else if (is_numpy_scalar_type(obj)) {
        PyObject *npmod = PyImport_ImportModule("numpy");
        PyObject *d = npmod ? PyObject_CallMethod(npmod, "dtype", "O", obj) : NULL;
        Py_XDECREF(npmod);
        name = d ? PyObject_GetAttrString(d, "name") : NULL;
        Py_XDECREF(d);
    } else {
        return 0;
    }
    int ok = name && PyUnicode_Check(name) && cj_dtype_from_name(PyUnicode_AsUTF8(name), dt);
    Py_XDECREF(name);
    PyErr_Clear();
    return ok;
}

/* A NumPy scalar (np.float32(1.5)) as a strong constant. */
static int
numpy_scalar_const(Fe *f, PyObject *obj, Const *c)
{
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) != 0) {
        return 0;
    }
    PyObject *d = PyObject_GetAttr(obj, fe_names[S_dtype]);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    DType dt;
    int ok = fe_dtype_of_object(f, d, &dt);
    Py_DECREF(d);
    if (!ok) {
        return 0;
    }
    PyObject *v = PyObject_CallMethodNoArgs(obj, fe_names[S_item]);
    if (!v) {
        PyErr_Clear();
        return 0;
    }
    memset(c, 0, sizeof *c);
    c->dt = dt;
    char kind = cj_dtypes[dt].kind;
    if (kind == 'b') {
        c->kind = CK_BOOL;
        c->i = PyObject_IsTrue(v);
    } else if (kind == 'i') {
        c->kind = CK_INT;
        c->i = PyLong_AsLongLong(v);
    } else if (kind == 'u') {
        c->kind = CK_UINT;
        c->u = PyLong_AsUnsignedLongLong(v);
        c->i = (int64_t)c->u;
    } else if (kind == 'f') {
        c->kind = CK_FLOAT;
        c->f = PyFloat_AsDouble(v);
    } else {
        c->kind = CK_COMPLEX;
        Py_complex z = PyComplex_AsCComplex(v);
        c->f = z.real;
        c->im = z.imag;
    }
    Py_DECREF(v);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* A Python int: int64, or uint64 above INT64_MAX; weak (it takes the other
 * operand's type). */
static void
int_const(Fe *f, PyObject *obj, Loc loc, Const *c)
{
    int overflow;
    c->kind = CK_INT;
    c->weak = 1;
    c->dt = DT_I64;
    c->i = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow > 0) {
        c->u = PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            fe_fail(f, loc, "integer constant too large for 64 bits");
        }
        c->kind = CK_UINT;
        c->dt = DT_U64;
    } else if (overflow < 0) {
        fe_fail(f, loc, "integer constant too small for 64 bits");
    }
}

/* a tuple of constants as an ND_TUPLE of constant nodes; NULL if an item
 * is not a constant */
static Node *
tuple_const(Fe *f, PyObject *obj, Loc loc)
{
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->n = (int)PyTuple_GET_SIZE(obj);
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(t->n + 1));
    for (int i = 0; i < t->n; i++) {
        t->list[i] = fe_object_const(f, PyTuple_GET_ITEM(obj, i), loc);
        if (!t->list[i]) {
            return NULL;
        }
    }
    return t;
}

/* Python int / float / complex / bool / None / str / NumPy scalar / tuple
 * of these -> a constant node, or NULL if obj is none of them. */
Node *
fe_object_const(Fe *f, PyObject *obj, Loc loc)
{
    Const c;
    memset(&c, 0, sizeof c);
    if (PyBool_Check(obj)) {
        c.kind = CK_BOOL;
        c.dt = DT_BOOL;
        c.i = obj == Py_True;
    } else if (!PyLong_CheckExact(obj) && !PyFloat_CheckExact(obj)
               && !PyComplex_CheckExact(obj) && numpy_scalar_const(f, obj, &c)) {
        /* np.float64 subclasses float, but is a strong NumPy scalar */
    } else if (PyLong_Check(obj)) {
        int_const(f, obj, loc, &c);
    } else if (PyFloat_Check(obj)) {
        c.kind = CK_FLOAT;
        c.weak = 1;
        c.dt = DT_F64;
        c.f = PyFloat_AS_DOUBLE(obj);
    } else if (PyComplex_Check(obj)) {
        c.kind = CK_COMPLEX;
        c.weak = 1;
        c.dt = DT_C128;
        c.f = PyComplex_RealAsDouble(obj);
        c.im = PyComplex_ImagAsDouble(obj);
    } else if (obj == Py_None) {
        c.kind = CK_NONE;
    } else if (PyUnicode_Check(obj)) {
        c.kind = CK_STR;
        c.s = fe_utf8(f, obj);
    } else if (PyTuple_Check(obj)) {
        return tuple_const(f, obj, loc);
    } else {
        return NULL;
    }
    return fe_const_node(f, loc, c);
}
