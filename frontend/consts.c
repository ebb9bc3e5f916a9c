/* consts.c - Python objects folded into IR constants: int, float, complex,
 * bool, None, str, NumPy scalars and dtypes, tuples of these, and device
 * arrays of any library read as globals (their address, shape and
 * strides). */
#include <stdio.h>
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

static FeRecordReader record_reader;

void
fe_set_record_reader(FeRecordReader r)
{
    record_reader = r;
}

/* a structured dtype (one with .names) as a record DType; 0: not one */
static int
record_dtype(PyObject *obj, DType *dt)
{
    PyObject *names = PyObject_GetAttrString(obj, "names");
    int is_rec = names && names != Py_None;
    Py_XDECREF(names);
    PyErr_Clear();
    if (!is_rec || !record_reader) {
        return 0;
    }
    if (record_reader(obj, dt) < 0) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* A structured dtype the record table refuses (fields off their alignment,
 * object fields ...): fails at loc with the reason; else returns */
void
fe_check_record_dtype(Fe *f, PyObject *obj, Loc loc)
{
    DType dt;
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) != 0 || !record_reader) {
        return;
    }
    PyObject *names = PyObject_GetAttrString(obj, "names");
    int is_rec = names && names != Py_None;
    Py_XDECREF(names);
    PyErr_Clear();
    if (!is_rec || record_reader(obj, &dt) == 0) {
        return;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    char text[512];
    snprintf(text, sizeof text, "%s", s && PyUnicode_AsUTF8(s) ? PyUnicode_AsUTF8(s)
             : "a record dtype kernels cannot hold");
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
    fe_fail_kind(f, loc, CE_TYPE, "%s", text);
}

/* The dtype named by a NumPy scalar type (np.float32), a numpy.dtype
 * instance (a structured one: a record dtype) or a dtype string. */
int
fe_dtype_of_object(Fe *f, PyObject *obj, DType *dt)
{
    PyObject *name = NULL;
    (void)f;
    if (PyUnicode_Check(obj)) {
        return cj_dtype_from_name(PyUnicode_AsUTF8(obj), dt);
    }
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) == 0) {
        if (record_dtype(obj, dt)) {
            return 1;
        }
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

/* A NumPy scalar (np.float32(1.5), ml_dtypes.bfloat16(3.0): a numpy.generic
 * of another module) as a strong constant. */
static int
numpy_scalar_const(Fe *f, PyObject *obj, Const *c)
{
    if ((strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) != 0
         && !is_numpy_scalar_type((PyObject *)Py_TYPE(obj)))
        || strcmp(Py_TYPE(obj)->tp_name, "numpy.ndarray") == 0) {
        return 0;       /* an array of one element is an array (npfuncs.c) */
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

/* The field names of namedtuple class cls (its _fields), *n of them, kept
 * for the compilation; NULL when cls is not a namedtuple class */
const char **
fe_namedtuple_fields(Fe *f, PyObject *cls, int *n)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &PyTuple_Type)) {
        return NULL;
    }
    PyObject *fields = PyObject_GetAttrString(cls, "_fields");
    if (!fields || !PyTuple_Check(fields)) {
        Py_XDECREF(fields);
        PyErr_Clear();
        return NULL;
    }
    fields = fe_keep(f, fields);
    if (!fields) {
        fe_fail_py(f, (Loc){0, 0, 0}, "cannot keep a namedtuple's fields");
    }
    *n = (int)PyTuple_GET_SIZE(fields);
    const char **names = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(*n + 1));
    for (int i = 0; i < *n; i++) {
        names[i] = fe_utf8(f, PyTuple_GET_ITEM(fields, i));
    }
    return names;
}

/* a tuple of constants as an ND_TUPLE of constant nodes (a namedtuple's
 * with its field names); NULL if an item is not a constant */
static Node *
tuple_const(Fe *f, PyObject *obj, Loc loc)
{
    Node *t = fe_new_node(f, ND_TUPLE, loc);
    t->n = (int)PyTuple_GET_SIZE(obj);
    int nf = 0;
    const char **names = fe_namedtuple_fields(f, (PyObject *)Py_TYPE(obj), &nf);
    t->kwnames = names && nf == t->n ? names : NULL;
    t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(t->n + 1));
    for (int i = 0; i < t->n; i++) {
        t->list[i] = fe_object_const(f, PyTuple_GET_ITEM(obj, i), loc);
        if (!t->list[i]) {
            return NULL;
        }
    }
    return t;
}

/* Python int / float / complex / bool / None / str / bytes / NumPy scalar /
 * tuple of these -> a constant node, or NULL if obj is none of them. */
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
    } else if (PyBytes_Check(obj)) {
        c.kind = CK_STR;    /* stored into S12 elements: its bytes, NULs too */
        c.bytes = 1;
        c.len = PyBytes_GET_SIZE(obj);
        char *s = cj_alloc(f->cx->arena, (size_t)c.len + 1);
        memcpy(s, PyBytes_AS_STRING(obj), (size_t)c.len + 1);
        c.s = s;
    } else if (PyTuple_Check(obj)) {
        return tuple_const(f, obj, loc);
    } else {
        return fe_enum_const(f, obj, loc);
    }
    return fe_const_node(f, loc, c);
}

/* ---- device arrays read as globals ---- */

/* d[key] of a __cuda_array_interface__ dict, borrowed; NULL if missing */
static PyObject *
cai_item(Fe *f, PyObject *d, const char *key)
{
    PyObject *v = PyDict_GetItemString(d, key);
    PyErr_Clear();
    return v;
}

/* the interface's dtype (typestr '<f4') as cujit's; fails at loc if none */
static DType
cai_dtype(Fe *f, PyObject *typestr, const char *what, Loc loc)
{
    PyObject *np = fe_keep(f, PyImport_ImportModule("numpy"));
    PyObject *dt = np && typestr ? fe_keep(f, PyObject_CallMethod(np, "dtype", "O", typestr))
                                 : NULL;
    DType out;
    if (!dt || !fe_dtype_of_object(f, dt, &out)) {
        PyErr_Clear();
        fe_fail_kind(f, loc, CE_TYPE, "a global %s is a device array of dtype %s, which "
                     "kernels cannot use (numbers and bool only)", what,
                     typestr && PyUnicode_Check(typestr) ? fe_utf8(f, typestr) : "?");
    }
    return out;
}

/* shape and byte strides (C order when the interface gives none) into a */
static void
cai_layout(Fe *f, PyObject *shape, PyObject *strides, CjDevArray *a, const char *what, Loc loc)
{
    int size = cj_dtypes[a->dt].size;
    a->shape = cj_alloc(f->cx->arena, sizeof(int64_t) * (size_t)(a->ndim + 1));
    a->strides = cj_alloc(f->cx->arena, sizeof(int64_t) * (size_t)(a->ndim + 1));
    int64_t lo = 0, hi = 0, step = size;
    int c_order = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        a->shape[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
        a->strides[d] = strides ? PyLong_AsLongLong(PyTuple_GET_ITEM(strides, d)) : step;
        if (PyErr_Occurred() || a->shape[d] < 0) {
            PyErr_Clear();
            fe_fail_kind(f, loc, CE_TYPE, "a global %s: its __cuda_array_interface__ has a "
                         "shape or strides that are not ints", what);
        }
        c_order &= a->shape[d] == 1 || a->strides[d] == step;
        step *= a->shape[d];
        int64_t ext = (a->shape[d] - 1) * a->strides[d];
        if (a->shape[d] > 0) {
            lo += ext < 0 ? ext : 0;
            hi += ext > 0 ? ext : 0;
        }
    }
    a->span = hi - lo + size;
    a->layout = c_order ? 'C' : 'A';
}

/* what the interface says about obj, or NULL when obj has none (a dict with
 * shape, typestr and data: a device array) */
static PyObject *
cai_dict(Fe *f, PyObject *obj)
{
    if (PyType_Check(obj) || PyModule_Check(obj)) {
        return NULL;
    }
    PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (!d || !PyDict_Check(d)) {
        Py_XDECREF(d);
        PyErr_Clear();
        return NULL;
    }
    return fe_keep(f, d);
}

Node *
fe_device_array_const(Fe *f, PyObject *obj, Loc loc)
{
    PyObject *d = cai_dict(f, obj);
    if (!d) {
        return NULL;
    }
    const char *what = Py_TYPE(obj)->tp_name;
    PyObject *shape = cai_item(f, d, "shape"), *data = cai_item(f, d, "data");
    PyObject *strides = cai_item(f, d, "strides"), *mask = cai_item(f, d, "mask");
    if (!shape || !PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > 8 || !data
        || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2
        || (strides && strides != Py_None && (!PyTuple_Check(strides)
                                              || PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape)))) {
        fe_fail_kind(f, loc, CE_TYPE, "a global %s: its __cuda_array_interface__ is not one "
                     "of an array of 0 to 8 dimensions (shape, strides, data)", what);
    }
    if (mask && mask != Py_None) {
        fe_fail_kind(f, loc, CE_TYPE, "a global %s is a masked array, which kernels cannot "
                     "use", what);
    }
    CjDevArray *a = cj_alloc(f->cx->arena, sizeof *a);
    a->dt = cai_dtype(f, cai_item(f, d, "typestr"), what, loc);
    a->ndim = (int)PyTuple_GET_SIZE(shape);
    a->ptr = PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(data, 0));
    a->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1;
    PyErr_Clear();
    cai_layout(f, shape, strides == Py_None ? NULL : strides, a, what, loc);
    if (!f->cx->captured && !(f->cx->captured = PyList_New(0))) {
        fe_fail_py(f, loc, "cujit");
    }
    if (PyList_Append(f->cx->captured, obj) < 0) {
        fe_fail_py(f, loc, "cujit");
    }
    Const c;
    memset(&c, 0, sizeof c);
    c.kind = CK_DEVARRAY;
    c.dt = a->dt;
    c.arr = a;
    return fe_const_node(f, loc, c);
}
