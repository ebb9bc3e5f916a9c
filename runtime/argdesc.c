/* argdesc.c - what an argument is, as far as choosing a compiled signature
 * goes: the dtype of a Python or NumPy number, an array's dtype, rank,
 * layout and writability (from cujit arrays, __cuda_array_interface__ or
 * the buffer protocol, without touching the device), and the compact
 * ArgKey the launch paths compare.  See argdesc.h. */
#include <string.h>

#include "argdesc.h"
#include "rt_impl.h"

char
rt_layout_of(int ndim, const int64_t *shape, const int64_t *strides, int itemsize)
{
    int64_t size = 1;
    for (int i = 0; i < ndim; i++) {
        size *= shape[i];
    }
    if (size <= 1) {
        return 'C';
    }
    int64_t s = itemsize;
    int c = 1, f = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        if (shape[i] != 1 && strides[i] != s) {
            c = 0;
        }
        s *= shape[i];
    }
    s = itemsize;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] != 1 && strides[i] != s) {
            f = 0;
        }
        s *= shape[i];
    }
    return c ? 'C' : f ? 'F' : 'A';
}


/* t derives from numpy.generic */
static int
is_numpy_scalar(PyTypeObject *t)
{
    while (t && strcmp(t->tp_name, "numpy.generic") != 0) {
        t = t->tp_base;
    }
    return t != NULL;
}

/* o is a record: a numpy.void (or numpy.record) of a structured dtype */
static int
is_numpy_record(PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    while (t && strcmp(t->tp_name, "numpy.void") != 0) {
        t = t->tp_base;
    }
    if (!t) {
        return 0;
    }
    PyObject *d = PyObject_GetAttrString(o, "dtype");
    PyObject *names = d ? PyObject_GetAttrString(d, "names") : NULL;
    int r = names && names != Py_None;
    Py_XDECREF(d);
    Py_XDECREF(names);
    PyErr_Clear();
    return r;
}

/* An array's type information without touching the device (NumPy arrays,
 * buffers, anything with __cuda_array_interface__).  1: an array, 0: not. */
int
rt_describe_array(PyObject *o, RtArray *d)
{
    PyObject *cai = PyObject_GetAttrString(o, "__cuda_array_interface__");
    if (cai) {
        memset(d, 0, sizeof *d);
        int r = rt_cai_read(o, cai, d, "example argument");
        Py_DECREF(cai);
        return r < 0 ? -1 : 1;
    }
    PyErr_Clear();
    if (!PyObject_CheckBuffer(o) && !PyType_Check(o)
        && PyObject_HasAttrString((PyObject *)Py_TYPE(o), "__array__")) {
        /* an object NumPy converts (a launch reads it so too: args.c's
         * K_HOSTCONV), such as a struct model's instance (cujit/_structs.py) */
        PyObject *h = PyObject_CallMethod(rt_numpy(), "asarray", "O", o);
        int r = !h ? -1 : PyObject_CheckBuffer(h) ? rt_describe_array(h, d) : 0;
        Py_XDECREF(h);
        return r;
    }
    if (!PyObject_CheckBuffer(o) || PyBytes_Check(o) || PyUnicode_Check(o)) {
        return 0;
    }
    if (is_numpy_record(o)) {
        /* a record (numpy.void, numpy.record): the 0-d array of its memory */
        PyObject *h = PyObject_CallMethod(rt_numpy(), "asarray", "O", o);
        int r = h ? rt_describe_array(h, d) : -1;
        Py_XDECREF(h);
        return r;
    }
    if (is_numpy_scalar(Py_TYPE(o))) {
        /* not a number (rt_scalar_dtype said so): datetime64, void, str_ */
        PyErr_Format(PyExc_TypeError, "NumPy scalars of type %s are not supported",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_buffer v;
    if (PyObject_GetBuffer(o, &v, PyBUF_RECORDS_RO) < 0) {
        PyObject *counts = rt_datetime_counts(o);
        int r = counts ? rt_describe_array(counts, d) : -1;
        if (r >= 0 && rt_is_bfloat16(o)) {
            d->dtype = DT_BF16;         /* its bits were read as uint16 */
        }
        Py_XDECREF(counts);
        return r;
    }
    int ok = v.ndim <= RT_MAXDIM && v.format
             && rt_buffer_dtype(o, v.format, v.itemsize, &d->dtype) == 0;
    if (ok) {
        /* an exporter may leave shape or strides NULL (NumPy's datetime64
         * scalar does, though asked for strides): then one dimension of
         * len / itemsize items, C-contiguous */
        d->ndim = v.ndim;
        Py_ssize_t step = v.itemsize;
        for (int i = v.ndim - 1; i >= 0; i--) {
            d->shape[i] = v.shape ? v.shape[i] : v.len / (v.itemsize ? v.itemsize : 1);
            d->strides[i] = v.strides ? v.strides[i] : step;
            step *= d->shape[i];
        }
        d->readonly = v.readonly;
        d->ptr = NULL;          /* a device copy is aligned */
        rt_contiguity(d->ndim, d->shape, d->strides, v.itemsize, &d->c_contig, &d->f_contig);
    }
    PyBuffer_Release(&v);
    if (!ok && v.format && v.format[0] == 'T' && PyErr_Occurred()) {
        return -1;              /* a record dtype's own message */
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "arrays of format '%s' are not supported",
                     v.format ? v.format : "?");
        return -1;
    }
    return 1;
}

/* numpy scalar types seen so far and their dtypes */
static struct {

    PyTypeObject *type;
    DType dt;
} scalar_types[32];
static int nscalar_types;

int
rt_numpy_scalar_dtype(PyObject *o, DType *dt)
{
    PyTypeObject *t = Py_TYPE(o);
    for (int i = 0; i < nscalar_types; i++) {
        if (scalar_types[i].type == t) {
            *dt = scalar_types[i].dt;
            return *dt != DT_COUNT;     /* DT_COUNT: a type known not to be one */
        }
    }
    int ok = 0;
    if (is_numpy_scalar(t)) {
        PyObject *d = PyObject_GetAttrString(o, "dtype");
        PyObject *s = d ? PyObject_GetAttrString(d, "str") : NULL;
        Py_XDECREF(d);
        ok = s && PyUnicode_Check(s) && cj_dtype_from_name(PyUnicode_AsUTF8(s), dt);
        Py_XDECREF(s);
        PyErr_Clear();
        if (!ok && rt_is_datetime(o)) {
            *dt = DT_I64;       /* datetime64 / timedelta64: its int64 count */
            ok = 1;
        } else if (!ok && rt_is_bfloat16(o)) {
            *dt = DT_BF16;      /* ml_dtypes.bfloat16(x) */
            ok = 1;
        }
    }
    if (nscalar_types < 32) {
        Py_INCREF(t);               /* the pointer must stay this type's */
        scalar_types[nscalar_types].type = t;
        scalar_types[nscalar_types++].dt = ok ? *dt : DT_COUNT;
    }
    return ok;
}

/* a tuple's or an Enum member's "argument: <what>" becomes "name(): argument i: <what>" */
static void
name_tuple_error(PyObject *name, Py_ssize_t i)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *m = s ? PyUnicode_AsUTF8(s) : NULL;
    if (m) {
        m += strncmp(m, "argument: ", 10) == 0 ? 10 : 0;
        PyErr_Format(type ? type : PyExc_TypeError, "%U(): argument %zd: %s", name, i + 1, m);
    }
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

/* keys from example arguments (host or device arrays, scalars, tuples) */
int
rt_keys_from_args(PyObject *name, PyObject *const *args, Py_ssize_t n, ArgKey *keys, int *idx32)
{
    *idx32 = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        DType dt;
        if (rt_scalar_dtype(args[i], &dt)) {
            keys[i] = rt_scalar_key(dt);
            continue;
        }
        if (PyTuple_Check(args[i])) {
            RtLeaves lv = {NULL, 0, 0};
            int r = rt_tuple_key(args[i], &lv, 0, NULL, &keys[i], idx32);
            PyMem_Free(lv.a);
            if (r < 0) {
                name_tuple_error(name, i);
                return -1;
            }
            continue;
        }
        int en = rt_enum_key(args[i], &keys[i]);
        if (en != 0) {
            if (en < 0) {
                name_tuple_error(name, i);
                return -1;
            }
            continue;
        }
        RtArray d;
        int r = rt_describe_array(args[i], &d);
        if (r < 0) {
            return -1;
        }
        if (r == 0) {
            PyErr_Format(PyExc_TypeError, "%U(): argument %zd has type '%s', which kernels "
                         "cannot take: pass arrays (NumPy, CuPy, PyTorch, Numba, cujit) or "
                         "numbers", name, i + 1, Py_TYPE(args[i])->tp_name);
            return -1;
        }
        keys[i] = rt_array_key(d.dtype, d.ndim,
                               rt_layout_of(d.ndim, d.shape, d.strides, cj_dtypes[d.dtype].size),
                               d.readonly);
        *idx32 &= rt_fits32(d.ndim, d.shape, d.strides);
    }
    return 0;
}

