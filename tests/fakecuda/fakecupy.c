/* fakecupy.c - a stand-in for cupy.ndarray's object layout, for testing
 * how cujit reads CuPy arrays' fields in place (runtime/args.c) without a
 * GPU.  Built by tests/test_runtime_nogpu.py as the module _fakecupy.
 *
 * The types are named as CuPy's (cupy._core.core._ndarray_base, its
 * subclass cupy.ndarray, cupy.cuda.memory.MemoryPointer) and laid out as
 * Cython lays out such classes: a vtable pointer first, then the declared
 * fields, with shape and strides as std::vector<Py_ssize_t> (three
 * pointers: begin, end, end of capacity).  The attributes data, shape,
 * strides and dtype are getters as in CuPy; `shape` may be set in place.
 *
 *   _fakecupy.ndarray(ptr, shape, strides, dtype)
 *
 * A decoy field looks like a vector of the array's ndim elements but
 * points at unmapped memory: learning the offsets must not fault on it.
 * After a.set_lie(1) the dtype getter reports float64 whatever the field
 * holds: attributes that disagree with the fields, which cujit must notice
 * while it verifies what it learnt.  ndarray_liar is another subclass, so
 * that its instances get a type (and a learnt layout) of their own. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    void *vtab;
    intptr_t ptr;
    int device_id;
    PyObject *mem;
} MemPtr;

typedef struct {
    Py_ssize_t *begin, *end, *cap;
} Vec;

typedef struct {
    PyObject_HEAD
    void *vtab;
    PyObject *weakref;
    Py_ssize_t size;
    Vec shape, strides;
    int c_contig, f_contig, index_32;
    PyObject *dtype;
    MemPtr *data;
    PyObject *base;
    int lie;
    Vec decoy;      /* looks like a vector of ndim elements, points at nothing */
} Arr;

static int dummy_vtab;

static PyObject *
memptr_ptr(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t((Py_ssize_t)((MemPtr *)self)->ptr);
}

static void
memptr_dealloc(PyObject *self)
{
    Py_XDECREF(((MemPtr *)self)->mem);
    Py_TYPE(self)->tp_free(self);
}

static PyGetSetDef memptr_getset[] = {
    {"ptr", memptr_ptr, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject MemPtrType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cupy.cuda.memory.MemoryPointer",
    .tp_basicsize = sizeof(MemPtr),
    .tp_dealloc = memptr_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = memptr_getset,
};

static void
vec_free(Vec *v)
{
    PyMem_Free(v->begin);
    v->begin = v->end = v->cap = NULL;
}

/* a vector of n values from a sequence (n >= 0), with spare capacity */
static int
vec_set(Vec *v, PyObject *seq, Py_ssize_t n)
{
    Py_ssize_t *b = NULL;
    if (n > 0) {
        b = PyMem_Calloc((size_t)n + 2, sizeof(Py_ssize_t));
        if (!b) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PySequence_GetItem(seq, i);
            b[i] = x ? PyLong_AsSsize_t(x) : -1;
            Py_XDECREF(x);
            if (PyErr_Occurred()) {
                PyMem_Free(b);
                return -1;
            }
        }
    }
    vec_free(v);
    v->begin = b;
    v->end = b ? b + n : NULL;
    v->cap = b ? b + n + 2 : NULL;
    return 0;
}

static PyObject *
vec_tuple(const Vec *v)
{
    Py_ssize_t n = v->end - v->begin;
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t && i < n; i++) {
        PyObject *x = PyLong_FromSsize_t(v->begin[i]);
        if (!x) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static int
arr_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"ptr", "shape", "strides", "dtype", NULL};
    Arr *a = (Arr *)self;
    Py_ssize_t ptr;
    PyObject *shape, *strides, *dtype;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "nOOO", names, &ptr, &shape, &strides, &dtype)) {
        return -1;
    }
    Py_ssize_t n = PySequence_Size(shape);
    if (n < 0 || PySequence_Size(strides) != n) {
        PyErr_SetString(PyExc_ValueError, "shape and strides differ in length");
        return -1;
    }
    if (vec_set(&a->shape, shape, n) < 0 || vec_set(&a->strides, strides, n) < 0) {
        return -1;
    }
    a->size = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        a->size *= a->shape.begin[i];
    }
    MemPtr *m = PyObject_New(MemPtr, &MemPtrType);
    if (!m) {
        return -1;
    }
    m->vtab = &dummy_vtab;
    m->ptr = (intptr_t)ptr;
    m->device_id = 0;
    m->mem = Py_NewRef(Py_None);
    Py_XSETREF(a->data, m);
    Py_XSETREF(a->dtype, Py_NewRef(dtype));
    a->vtab = &dummy_vtab;
    a->lie = 0;
    /* below mmap_min_addr: never mapped; cujit must not fault reading it */
    a->decoy.begin = (Py_ssize_t *)(uintptr_t)0x8000;
    a->decoy.end = a->decoy.begin + n;
    a->decoy.cap = a->decoy.end;
    return 0;
}

static void
arr_dealloc(PyObject *self)
{
    Arr *a = (Arr *)self;
    vec_free(&a->shape);
    vec_free(&a->strides);
    Py_XDECREF(a->dtype);
    Py_XDECREF(a->data);
    Py_XDECREF(a->base);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
arr_data(PyObject *self, void *c)
{
    (void)c;
    return Py_NewRef((PyObject *)((Arr *)self)->data);
}

static PyObject *
arr_shape(PyObject *self, void *c)
{
    (void)c;
    return vec_tuple(&((Arr *)self)->shape);
}

/* a.shape = s: in place, C-contiguous strides (as CuPy does for a
 * contiguous array) */
static int
arr_set_shape(PyObject *self, PyObject *v, void *c)
{
    Arr *a = (Arr *)self;
    (void)c;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete shape");
        return -1;
    }
    Py_ssize_t n = PySequence_Size(v), itemsize;
    if (n < 0 || vec_set(&a->shape, v, n) < 0 || vec_set(&a->strides, v, n) < 0) {
        return -1;
    }
    PyObject *isz = PyObject_GetAttrString(a->dtype, "itemsize");
    itemsize = isz ? PyLong_AsSsize_t(isz) : -1;
    Py_XDECREF(isz);
    if (itemsize < 0) {
        return -1;
    }
    for (Py_ssize_t i = n - 1, s = itemsize; i >= 0; i--) {
        a->strides.begin[i] = s;
        s *= a->shape.begin[i];
    }
    return 0;
}

static PyObject *
arr_strides(PyObject *self, void *c)
{
    (void)c;
    return vec_tuple(&((Arr *)self)->strides);
}

static PyObject *
arr_dtype(PyObject *self, void *c)
{
    Arr *a = (Arr *)self;
    (void)c;
    if (a->lie) {
        PyObject *np = PyImport_ImportModule("numpy");
        PyObject *d = np ? PyObject_CallMethod(np, "dtype", "s", "float64") : NULL;
        Py_XDECREF(np);
        return d;
    }
    return Py_NewRef(a->dtype);
}

static PyObject *
arr_set_lie(PyObject *self, PyObject *v)
{
    ((Arr *)self)->lie = PyObject_IsTrue(v);
    Py_RETURN_NONE;
}

static PyMethodDef arr_methods[] = {
    {"set_lie", arr_set_lie, METH_O, NULL},
    {NULL},
};

static PyGetSetDef arr_getset[] = {
    {"data", arr_data, NULL, NULL, NULL},
    {"shape", arr_shape, arr_set_shape, NULL, NULL},
    {"strides", arr_strides, NULL, NULL, NULL},
    {"dtype", arr_dtype, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject BaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cupy._core.core._ndarray_base",
    .tp_basicsize = sizeof(Arr),
    .tp_dealloc = arr_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_getset = arr_getset,
    .tp_methods = arr_methods,
    .tp_init = arr_init,
    .tp_new = PyType_GenericNew,
};

static PyTypeObject NdarrayType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cupy.ndarray",
    .tp_basicsize = sizeof(Arr),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
};

static PyTypeObject LiarType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cupy.ndarray_liar",
    .tp_basicsize = sizeof(Arr),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
};

static struct PyModuleDef fakecupy_module = {
    PyModuleDef_HEAD_INIT, "_fakecupy", "CuPy's ndarray layout, for cujit's tests", -1, NULL,
};

PyMODINIT_FUNC
PyInit__fakecupy(void)
{
    NdarrayType.tp_base = &BaseType;
    LiarType.tp_base = &BaseType;
    if (PyType_Ready(&MemPtrType) < 0 || PyType_Ready(&BaseType) < 0
        || PyType_Ready(&NdarrayType) < 0 || PyType_Ready(&LiarType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&fakecupy_module);
    if (!m || PyModule_AddObjectRef(m, "_ndarray_base", (PyObject *)&BaseType) < 0
        || PyModule_AddObjectRef(m, "ndarray", (PyObject *)&NdarrayType) < 0
        || PyModule_AddObjectRef(m, "ndarray_liar", (PyObject *)&LiarType) < 0) {
        Py_XDECREF(m);
        return NULL;
    }
    return m;
}
