/* array_create.c - the module-level creation functions: to_device, empty,
 * zeros, ones, full, empty_like, zeros_like, ones_like, full_like, asnumpy. */
#include <string.h>

#include "rt_impl.h"

/* stream argument of a creation function: the handle, and the object to
 * keep alive while the array lives (not for ints and None) */
static int
creation_stream(PyObject *o, CUstream *s, PyObject **ref)
{
    void *h = NULL;
    *ref = NULL;
    if (o && o != Py_None) {
        if (rt_get_stream(o, &h) < 0) {
            return -1;
        }
        if (!PyLong_Check(o)) {
            *ref = o;
        }
    }
    *s = h;
    return 0;
}

/* ---- module-level creation functions ---- */

/* to_device(obj, stream=None): a new DeviceArray (C-contiguous, or Fortran
 * when obj is) with a copy of obj: host data (a buffer or anything
 * numpy.asarray takes) or device data */
/* _as_device_array(obj, stream=None): a DeviceArray over the memory of another library's
 * device array (its __cuda_array_interface__ or DLPack), no copy; obj is its
 * base, so the memory stays alive while the view does; stream (kept) is its
 * methods' default stream.  Host data is a TypeError: it has no device
 * memory to view. */
PyObject *
rt_py_as_device_array(PyObject *self, PyObject *args)
{
    RtArray in;
    PyObject *obj, *so = NULL, *ref;
    CUstream s;
    if (!PyArg_ParseTuple(args, "O|O:_as_device_array", &obj, &so)
        || creation_stream(so, &s, &ref) < 0) {
        return NULL;
    }
    if (rt_is_device_array(obj)) {
        return Py_NewRef(obj);
    }
    if (!rt_is_array(obj)) {
        PyErr_Format(PyExc_TypeError, "as_cuda_array: %.100s is not a device array (it has "
                     "no __cuda_array_interface__); copy host data with to_device()",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("as_cuda_array");
        return NULL;
    }
    if (rt_get_array(obj, &in, NULL, "as_cuda_array") < 0) {
        return NULL;
    }
    RtDeviceArray *v = NULL;
    if (in.host) {
        PyErr_Format(PyExc_TypeError, "as_cuda_array: %.100s holds host data; copy it with "
                     "to_device()", Py_TYPE(obj)->tp_name);
    } else if ((v = rt_array_struct(in.ndim, in.shape, in.strides, in.dtype, dev))) {
        v->ptr = (CUdeviceptr)(uintptr_t)in.ptr;
        v->base = Py_NewRef(obj);
        v->stream = s;                  /* its methods' default stream */
        v->stream_ref = Py_XNewRef(ref);
    }
    if (rt_array_release(&in, NULL, 0) < 0) {
        Py_CLEAR(v);
    }
    return (PyObject *)v;
}

PyObject *
rt_py_to_device(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"obj", "stream", NULL};
    PyObject *obj, *so = NULL, *ref, *conv = NULL;
    Py_buffer view;
    CUstream s;
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM];
    DType dt;
    RtDeviceArray *a = NULL;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:to_device", kwlist, &obj, &so)
        || creation_stream(so, &s, &ref) < 0) {
        return NULL;
    }
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("to_device");
        return NULL;
    }
    /* CuPy arrays expose a buffer slot that refuses: ask for the CUDA array
     * interface first */
    if (rt_is_array(obj) && (PyObject_HasAttrString(obj, "__cuda_array_interface__")
                             || !PyObject_CheckBuffer(obj))) {
        RtArray in;
        if (rt_get_array(obj, &in, s, "to_device") < 0) {
            return NULL;
        }
        a = rt_array_new(in.ndim, in.shape, in.dtype, 'C', dev, s, ref);
        rt_array_release(&in, s, 0);
        if (a && rt_assign(a, obj, s) < 0) {
            Py_CLEAR(a);
        }
        return (PyObject *)a;
    }
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();          /* before the import: none may be pending */
        PyObject *np = rt_numpy();
        /* datetime64 / timedelta64: their int64 counts (rt_datetime_counts) */
        conv = !np ? NULL : rt_is_datetime(obj) ? PyObject_CallMethod(obj, "view", "s", "int64")
               : rt_is_bfloat16(obj) ? PyObject_CallMethod(obj, "view", "s", "uint16")
                                     : PyObject_CallMethod(np, "asarray", "O", obj);
        if (!conv || PyObject_GetBuffer(conv, &view, PyBUF_RECORDS_RO) < 0) {
            Py_XDECREF(conv);
            return NULL;
        }
    }
    if (view.ndim > RT_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported", RT_MAXDIM);
        goto done;
    }
    if (rt_buffer_dtype(conv ? conv : obj, view.format, view.itemsize, &dt) < 0) {
        goto done;
    }
    if (conv && rt_is_bfloat16(obj)) {
        dt = DT_BF16;           /* its bits were read as uint16 */
    }
    for (int i = 0; i < view.ndim; i++) {
        shape[i] = view.shape ? view.shape[i] : view.len / view.itemsize;
        strides[i] = view.strides ? view.strides[i] : view.itemsize;
    }
    /* Fortran-ordered data stays Fortran-ordered (one copy); any other
     * layout becomes C-contiguous */
    char order = 'C';
    if (!PyBuffer_IsContiguous(&view, 'C') && PyBuffer_IsContiguous(&view, 'F')) {
        order = 'F';
    }
    a = rt_array_new(view.ndim, shape, dt, order, dev, s, ref);
    if (a && rt_copy_from_host(a->ptr, a->strides, view.buf, strides, view.ndim, shape,
                               view.itemsize, s) < 0) {
        Py_CLEAR(a);
    }
done:
    PyBuffer_Release(&view);
    Py_XDECREF(conv);
    return (PyObject *)a;
}

/* the arguments every creation function shares */
typedef struct {
    int ndim;
    int64_t shape[RT_MAXDIM];
    DType dt;
    char order;
    CUstream s;
    PyObject *ref;
} Creation;

static RtDeviceArray *
create(Creation *c)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("allocating an array");
        return NULL;
    }
    return rt_array_new(c->ndim, c->shape, c->dt, c->order == 'F' ? 'F' : 'C', dev, c->s, c->ref);
}

static int
creation_args(PyObject *shape, PyObject *dtype, DType dflt, const char *order, PyObject *stream,
              Creation *c)
{
    c->dt = dflt;
    if (rt_parse_shape(shape, c->shape, &c->ndim) < 0
        || (dtype && dtype != Py_None && rt_dtype_from_obj(dtype, &c->dt) < 0)
        || rt_parse_order(order, &c->order) < 0 || creation_stream(stream, &c->s, &c->ref) < 0) {
        return -1;
    }
    return 0;
}

static RtDeviceArray *
filled(Creation *c, PyObject *value)
{
    unsigned char elem[16];
    RtDeviceArray *a;
    if (rt_scalar_to_bytes(value, c->dt, elem) < 0 || !(a = create(c))) {
        return NULL;
    }
    if (rt_fill_contig(a->ptr, a->size, cj_dtypes[a->dtype].size, elem, a->stream) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

PyObject *
rt_py_empty(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"shape", "dtype", "order", "stream", NULL};
    PyObject *shape, *dtype = NULL, *stream = NULL;
    const char *order = NULL;
    Creation c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OzO:empty", kwlist, &shape, &dtype, &order,
                                     &stream)
        || creation_args(shape, dtype, DT_F64, order, stream, &c) < 0) {
        return NULL;
    }
    return (PyObject *)create(&c);
}

static PyObject *
const_fill(PyObject *args, PyObject *kw, const char *fname, long value)
{
    static char *kwlist[] = {"shape", "dtype", "order", "stream", NULL};
    PyObject *shape, *dtype = NULL, *stream = NULL, *v, *r;
    const char *order = NULL;
    char fmt[32];
    Creation c;
    snprintf(fmt, sizeof fmt, "O|OzO:%s", fname);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &shape, &dtype, &order, &stream)
        || creation_args(shape, dtype, DT_F64, order, stream, &c) < 0) {
        return NULL;
    }
    v = PyLong_FromLong(value);
    r = v ? (PyObject *)filled(&c, v) : NULL;
    Py_XDECREF(v);
    return r;
}

PyObject *
rt_py_zeros(PyObject *self, PyObject *args, PyObject *kw)
{
    return const_fill(args, kw, "zeros", 0);
}

PyObject *
rt_py_ones(PyObject *self, PyObject *args, PyObject *kw)
{
    return const_fill(args, kw, "ones", 1);
}

/* the dtype NumPy gives a fill value when none is named */
static int
value_dtype(PyObject *v, DType *out)
{
    if (PyBool_Check(v)) {
        *out = DT_BOOL;
    } else if (PyLong_Check(v)) {
        *out = DT_I64;
    } else if (PyFloat_Check(v)) {
        *out = DT_F64;
    } else if (PyComplex_Check(v)) {
        *out = DT_C128;
    } else {
        PyObject *dt = PyObject_GetAttrString(v, "dtype");     /* NumPy scalars */
        if (!dt) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "fill value must be a number, not %.100s",
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        int r = rt_dtype_from_obj(dt, out);
        Py_DECREF(dt);
        return r;
    }
    return 0;
}

PyObject *
rt_py_full(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"shape", "fill_value", "dtype", "order", "stream", NULL};
    PyObject *shape, *value, *dtype = NULL, *stream = NULL;
    const char *order = NULL;
    DType dflt;
    Creation c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OzO:full", kwlist, &shape, &value, &dtype,
                                     &order, &stream)
        || value_dtype(value, &dflt) < 0
        || creation_args(shape, dtype, dflt, order, stream, &c) < 0) {
        return NULL;
    }
    return (PyObject *)filled(&c, value);
}

/* shape, dtype and layout of any array-like (without copying it) */
static int
like_args(PyObject *a, PyObject *dtype, const char *order, PyObject *stream, Creation *c)
{
    int cc = 1, ff = 0;
    if (PyObject_TypeCheck(a, &rt_DeviceArray_Type)) {
        RtDeviceArray *d = (RtDeviceArray *)a;
        c->ndim = d->ndim;
        memcpy(c->shape, d->shape, sizeof(int64_t) * (size_t)d->ndim);
        c->dt = d->dtype;
        cc = d->c_contig;
        ff = d->f_contig;
    } else if (PyObject_HasAttrString(a, "shape") && PyObject_HasAttrString(a, "dtype")) {
        PyObject *shape = PyObject_GetAttrString(a, "shape");
        PyObject *dt = shape ? PyObject_GetAttrString(a, "dtype") : NULL;
        int r = dt ? rt_parse_shape(shape, c->shape, &c->ndim) : -1;
        if (r == 0) {
            r = rt_dtype_from_obj(dt, &c->dt);
        }
        Py_XDECREF(shape);
        Py_XDECREF(dt);
        if (r < 0) {
            return -1;
        }
    } else {
        /* a device array known only through CAI or DLPack */
        RtArray in;
        if (rt_ensure_context() < 0 || rt_get_array(a, &in, NULL, "the array") < 0) {
            return -1;
        }
        c->ndim = in.ndim;
        memcpy(c->shape, in.shape, sizeof(int64_t) * (size_t)in.ndim);
        c->dt = in.dtype;
        cc = in.c_contig;
        ff = in.f_contig;
        if (rt_array_release(&in, NULL, 0) < 0) {
            return -1;
        }
    }
    if ((dtype && dtype != Py_None && rt_dtype_from_obj(dtype, &c->dt) < 0)
        || rt_parse_order(order ? order : "K", &c->order) < 0
        || creation_stream(stream, &c->s, &c->ref) < 0) {
        return -1;
    }
    if (c->order == 'K') {
        c->order = ff && !cc ? 'F' : 'C';
    }
    return 0;
}

static PyObject *
like(PyObject *args, PyObject *kw, const char *fname, PyObject *value)
{
    static char *kwlist[] = {"a", "dtype", "order", "stream", NULL};
    PyObject *a, *dtype = NULL, *stream = NULL;
    const char *order = NULL;
    char fmt[32];
    Creation c;
    snprintf(fmt, sizeof fmt, "O|OzO:%s", fname);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &a, &dtype, &order, &stream)
        || like_args(a, dtype, order, stream, &c) < 0) {
        return NULL;
    }
    return (PyObject *)(value ? filled(&c, value) : create(&c));
}

PyObject *
rt_py_empty_like(PyObject *self, PyObject *args, PyObject *kw)
{
    return like(args, kw, "empty_like", NULL);
}

PyObject *
rt_py_zeros_like(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *v = PyLong_FromLong(0), *r = v ? like(args, kw, "zeros_like", v) : NULL;
    Py_XDECREF(v);
    return r;
}

PyObject *
rt_py_ones_like(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *v = PyLong_FromLong(1), *r = v ? like(args, kw, "ones_like", v) : NULL;
    Py_XDECREF(v);
    return r;
}

PyObject *
rt_py_full_like(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "fill_value", "dtype", "order", "stream", NULL};
    PyObject *a, *value, *dtype = NULL, *stream = NULL;
    const char *order = NULL;
    Creation c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OzO:full_like", kwlist, &a, &value, &dtype,
                                     &order, &stream)
        || like_args(a, dtype, order, stream, &c) < 0) {
        return NULL;
    }
    return (PyObject *)filled(&c, value);
}

/* asnumpy(a, stream=None): a NumPy array with a's data (device arrays of any
 * kind are copied; host data goes through numpy.asarray) */
PyObject *
rt_py_asnumpy(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "stream", NULL};
    PyObject *a, *so = NULL, *np, *out = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:asnumpy", kwlist, &a, &so)) {
        return NULL;
    }
    if (PyObject_TypeCheck(a, &rt_DeviceArray_Type)) {
        RtDeviceArray *d = (RtDeviceArray *)a;
        if (rt_method_stream(d, so, &s) < 0) {
            return NULL;
        }
        return rt_to_host(d, NULL, s);
    }
    int on_device = PyObject_HasAttrString(a, "__cuda_array_interface__");
    if (!on_device && (!rt_is_array(a) || PyObject_CheckBuffer(a))) {
        np = rt_numpy();
        return np ? PyObject_CallMethod(np, "asarray", "O", a) : NULL;
    }
    /* a foreign device array: view it as a DeviceArray, then copy */
    void *h = NULL;
    RtArray in;
    int dev = -1;
    if ((so && so != Py_None && rt_get_stream(so, &h) < 0) || (dev = rt_ensure_context()) < 0
        || rt_get_array(a, &in, h, "asnumpy") < 0) {
        return NULL;
    }
    RtDeviceArray *v = rt_array_struct(in.ndim, in.shape, in.strides, in.dtype, dev);
    if (v) {
        v->ptr = (CUdeviceptr)(uintptr_t)in.ptr;
        out = rt_to_host(v, NULL, h);
        Py_DECREF(v);
    }
    rt_array_release(&in, h, 0);
    return out;
}
