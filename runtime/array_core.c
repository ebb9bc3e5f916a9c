/* array_core.c - what every DeviceArray file builds on: the struct of an
 * owning array or a view, the stream and device a method works on, the
 * shape and order arguments, and copies of an array out to the host. */
#include <string.h>

#include "rt_impl.h"

/* ---- construction ---- */

RtDeviceArray *
rt_array_struct(int ndim, const int64_t *shape, const int64_t *strides, DType dt, int dev)
{
    RtDeviceArray *a = PyObject_New(RtDeviceArray, &rt_DeviceArray_Type);
    if (!a) {
        return NULL;
    }
    a->ptr = 0;
    a->ndim = ndim;
    a->dtype = dt;
    a->device = dev;
    a->base = NULL;
    a->alloc = 0;
    a->stream = NULL;
    a->stream_ref = NULL;
    a->weakreflist = NULL;
    a->numba_rules = 0;
    for (int i = 0; i < ndim; i++) {
        a->shape[i] = shape[i];
        a->strides[i] = strides[i];
    }
    a->size = rt_shape_size(ndim, shape);
    rt_contiguity(ndim, shape, strides, cj_dtypes[dt].size, &a->c_contig, &a->f_contig);
    return a;
}

RtDeviceArray *
rt_array_new(int ndim, const int64_t *shape, DType dt, char order, int dev, CUstream s,
             PyObject *stream_ref)
{
    int64_t strides[RT_MAXDIM], nbytes = cj_dtypes[dt].size;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
            return NULL;
        }
        if (__builtin_mul_overflow(nbytes, shape[i], &nbytes)) {
            PyErr_SetString(PyExc_ValueError, "array is too big");
            return NULL;
        }
    }
    if (order == 'F') {
        rt_f_strides(ndim, shape, cj_dtypes[dt].size, strides);
    } else {
        rt_c_strides(ndim, shape, cj_dtypes[dt].size, strides);
    }
    RtDeviceArray *a = rt_array_struct(ndim, shape, strides, dt, dev);
    if (!a) {
        return NULL;
    }
    a->stream = s;
    a->stream_ref = Py_XNewRef(stream_ref);
    if (rt_mem_alloc(dev, (size_t)nbytes, s, &a->alloc) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    a->ptr = a->alloc;
    return a;
}

/* The stream object an array made on `stream` keeps alive: the caller's
 * stream argument unless it is None or a bare handle (an int).  The array
 * frees its memory on that stream, so a cujit.Stream must outlive it (a
 * free on a destroyed stream crashed the driver: Numba's test_1d_async). */
static PyObject *
kept_stream(PyObject *stream_obj)
{
    if (!stream_obj || stream_obj == Py_None || PyLong_Check(stream_obj)) {
        return NULL;
    }
    return stream_obj;
}

PyObject *
rt_empty_order(int ndim, const int64_t *shape, DType dt, char order, void *stream,
               PyObject *stream_obj)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("allocating an array");
        return NULL;
    }
    return (PyObject *)rt_array_new(ndim, shape, dt, order, dev, stream,
                                    kept_stream(stream_obj));
}

PyObject *
rt_empty(int ndim, const int64_t *shape, DType dt, void *stream, PyObject *stream_obj)
{
    return rt_empty_order(ndim, shape, dt, 'C', stream, stream_obj);
}

int
rt_is_device_array(PyObject *o)
{
    return PyObject_TypeCheck(o, &rt_DeviceArray_Type);
}

PyObject *
rt_make_view(RtDeviceArray *src, CUdeviceptr ptr, int ndim, const int64_t *shape,
             const int64_t *strides)
{
    RtDeviceArray *v = rt_array_struct(ndim, shape, strides, src->dtype, src->device);
    if (!v) {
        return NULL;
    }
    v->ptr = ptr;
    v->stream = src->stream;
    v->base = Py_NewRef(src->base ? src->base : (PyObject *)src);
    v->numba_rules = src->numba_rules;
    return (PyObject *)v;
}

/* the stream argument of a method: the array's own when None */
int
rt_method_stream(RtDeviceArray *self, PyObject *o, CUstream *s)
{
    void *h;
    if (o == NULL || o == Py_None) {
        *s = self->stream;
        return 0;
    }
    if (rt_get_stream(o, &h) < 0) {
        return -1;
    }
    *s = h;
    return 0;
}

/* makes the array's device current for `what`; -1 with exception */
int
rt_enter_device(RtDeviceArray *a, int *pushed, const char *what)
{
    if (rt_ensure_context() < 0) {
        rt_err_context("%s", what);
        return -1;
    }
    if (rt_ctx_enter_quiet(a->device, pushed) < 0) {
        PyErr_Format(rt_CudaError, "%s: cannot make device %d current (its context is lost)",
                     what, a->device);
        return -1;
    }
    return 0;
}

PyObject *
rt_shape_tuple(int ndim, const int64_t *v)
{
    PyObject *t = PyTuple_New(ndim);
    if (!t) {
        return NULL;
    }
    for (int i = 0; i < ndim; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* an int or a sequence of ints (any sign) */
int
rt_parse_shape_signed(PyObject *o, int64_t *shape, int *ndim)
{
    if (PyIndex_Check(o)) {
        PyObject *i = PyNumber_Index(o);
        shape[0] = i ? PyLong_AsLongLong(i) : -1;
        Py_XDECREF(i);
        if (shape[0] == -1 && PyErr_Occurred()) {
            return -1;
        }
        *ndim = 1;
    } else {
        PyObject *seq = PySequence_Fast(o, "shape must be an int or a sequence of ints");
        if (!seq) {
            return -1;
        }
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n > RT_MAXDIM) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported", RT_MAXDIM);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
            shape[i] = x ? PyLong_AsLongLong(x) : -1;
            Py_XDECREF(x);
            if (shape[i] == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
        }
        *ndim = (int)n;
        Py_DECREF(seq);
    }
    return 0;
}

/* an int or a sequence of ints, none negative */
int
rt_parse_shape(PyObject *o, int64_t *shape, int *ndim)
{
    if (rt_parse_shape_signed(o, shape, ndim) < 0) {
        return -1;
    }
    for (int i = 0; i < *ndim; i++) {
        if (shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
            return -1;
        }
    }
    return 0;
}

int
rt_parse_order(const char *order, char *out)
{
    if (!order || !strcmp(order, "C") || !strcmp(order, "c")) {
        *out = 'C';
    } else if (!strcmp(order, "F") || !strcmp(order, "f")) {
        *out = 'F';
    } else if (!strcmp(order, "K") || !strcmp(order, "A")) {
        *out = 'K';
    } else {
        PyErr_Format(PyExc_ValueError, "order must be 'C' or 'F', not '%s'", order);
        return -1;
    }
    return 0;
}

/* ---- host <-> device ---- */

/* a new NumPy array of the array's shape and dtype, C order */
static PyObject *
host_empty(RtDeviceArray *a)
{
    PyObject *np = rt_numpy(), *shape, *dt, *res;
    if (!np) {
        return NULL;
    }
    shape = rt_shape_tuple(a->ndim, a->shape);
    dt = rt_dtype_object(a->dtype);
    res = shape && dt ? PyObject_CallMethod(np, "empty", "OO", shape, dt) : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(dt);
    return res;
}

int
rt_check_same(RtDeviceArray *a, int ndim, const int64_t *shape, DType dt, const char *what)
{
    int same = ndim == a->ndim && dt == a->dtype;
    for (int i = 0; same && i < ndim; i++) {
        same = shape[i] == a->shape[i];
    }
    if (!same) {
        PyObject *s1 = rt_shape_tuple(a->ndim, a->shape), *s2 = rt_shape_tuple(ndim, shape);
        if (s1 && s2) {
            PyErr_Format(PyExc_ValueError, "%s: shape %S and dtype %s do not match %S, %s", what,
                         s2, cj_dtypes[dt].name, s1, cj_dtypes[a->dtype].name);
        }
        Py_XDECREF(s1);
        Py_XDECREF(s2);
        return -1;
    }
    return 0;
}

/* copies the array into the writable buffer of `out` (shape and dtype checked) */
static int
copy_into_host(RtDeviceArray *a, PyObject *out, CUstream s)
{
    Py_buffer view;
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM];
    DType dt;
    int ret = -1, pushed = 0;
    PyObject *bits = NULL;      /* a bfloat16 (datetime64) array's uint16 (int64) view */
    if (PyObject_GetBuffer(out, &view, PyBUF_RECORDS) < 0) {
        bits = rt_datetime_counts(out);
        if (!bits || PyObject_GetBuffer(bits, &view, PyBUF_RECORDS) < 0) {
            Py_XDECREF(bits);
            return -1;
        }
    }
    if (view.ndim > RT_MAXDIM
        || rt_buffer_dtype(bits ? bits : out, view.format, view.itemsize, &dt) < 0) {
        goto done;
    }
    if (bits && rt_is_bfloat16(out)) {
        dt = DT_BF16;
    }
    for (int i = 0; i < view.ndim; i++) {
        shape[i] = view.shape[i];
        strides[i] = view.strides[i];
    }
    if (rt_check_same(a, view.ndim, shape, dt, "copy_to_host") < 0
        || rt_enter_device(a, &pushed, "copy_to_host") < 0) {
        goto done;
    }
    ret = rt_copy_to_host(view.buf, strides, a->ptr, a->strides, a->ndim, a->shape,
                          cj_dtypes[a->dtype].size, s);
    rt_ctx_leave(pushed);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(bits);
    return ret;
}

PyObject *
rt_to_host(RtDeviceArray *a, PyObject *ary, CUstream s)
{
    PyObject *out = ary && ary != Py_None ? Py_NewRef(ary) : host_empty(a);
    if (!out) {
        return NULL;
    }
    if (copy_into_host(a, out, s) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}
