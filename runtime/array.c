/* array.c - cujit.DeviceArray: an n-d view of device memory (shape, byte
 * strides, dtype), owning its allocation or viewing another array's; host
 * copies in and out; export through __cuda_array_interface__ (v3) and DLPack;
 * basic indexing; and the creation functions (to_device, empty, zeros, ones,
 * full, *_like, asnumpy). */
#include <string.h>

#include "rt_impl.h"

#define HOST_FILL_CHUNK (4 << 20)

static int64_t
shape_size(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        n *= shape[i];
    }
    return n;
}

static void
c_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *out)
{
    int64_t s = itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        out[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

static void
f_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *out)
{
    int64_t s = itemsize;
    for (int i = 0; i < ndim; i++) {
        out[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

/* NumPy's rule: extents of 1 do not matter; empty arrays are both */
void
rt_contiguity(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize, int *c,
              int *f)
{
    int64_t expect = itemsize;
    *c = *f = 1;
    if (shape_size(ndim, shape) == 0) {
        return;
    }
    for (int i = ndim - 1; i >= 0; i--) {
        if (shape[i] != 1) {
            *c &= strides[i] == expect;
            expect *= shape[i];
        }
    }
    expect = itemsize;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] != 1) {
            *f &= strides[i] == expect;
            expect *= shape[i];
        }
    }
}

/* the byte range [lo, hi) that a strided view touches, relative to its first element */
static void
span(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize, int64_t *lo,
     int64_t *hi)
{
    *lo = 0;
    *hi = itemsize;
    for (int i = 0; i < ndim; i++) {
        int64_t d = (shape[i] - 1) * strides[i];
        if (d < 0) {
            *lo += d;
        } else {
            *hi += d;
        }
    }
}

/* host-to-host copy between two strided layouts of the same shape (size > 0) */
static void
strided_copy(char *dst, const int64_t *ds, const char *src, const int64_t *ss, int ndim,
             const int64_t *shape, int64_t itemsize)
{
    int64_t idx[RT_MAXDIM] = {0};
    if (ndim == 0) {
        memcpy(dst, src, (size_t)itemsize);
        return;
    }
    int last = ndim - 1;
    for (;;) {
        int64_t so = 0, dof = 0;
        for (int k = 0; k < last; k++) {
            so += idx[k] * ss[k];
            dof += idx[k] * ds[k];
        }
        for (int64_t j = 0; j < shape[last]; j++) {
            memcpy(dst + dof + j * ds[last], src + so + j * ss[last], (size_t)itemsize);
        }
        int k = last - 1;
        while (k >= 0 && ++idx[k] == shape[k]) {
            idx[k] = 0;
            k--;
        }
        if (k < 0) {
            break;
        }
    }
}

int
rt_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult r;
    if (n == 0) {
        return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuMemcpyDtoHAsync(dst, src, n, s);
    if (r == CUDA_SUCCESS) {
        r = rt_cu.cuStreamSynchronize(s);   /* pinned destinations copy asynchronously */
    }
    Py_END_ALLOW_THREADS
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "copying %zu bytes from the device", n);
}

/* pageable sources are staged before this returns, so they may be reused */
int
rt_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    CUresult r;
    if (n == 0) {
        return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuMemcpyHtoDAsync(dst, src, n, s);
    Py_END_ALLOW_THREADS
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "copying %zu bytes to the device", n);
}

static int
same_layout(int ndim, const int64_t *shape, const int64_t *a, const int64_t *b, int64_t itemsize)
{
    int ac, af, bc, bf;
    rt_contiguity(ndim, shape, a, itemsize, &ac, &af);
    rt_contiguity(ndim, shape, b, itemsize, &bc, &bf);
    return (ac && bc) || (af && bf);
}

int
rt_copy_to_host(void *dst, const int64_t *dst_strides, CUdeviceptr src, const int64_t *src_strides,
                int ndim, const int64_t *shape, int64_t itemsize, CUstream s)
{
    int64_t cs[RT_MAXDIM], lo, hi;
    int64_t size = shape_size(ndim, shape);
    if (size == 0) {
        return 0;
    }
    c_strides(ndim, shape, itemsize, cs);
    dst_strides = dst_strides ? dst_strides : cs;
    src_strides = src_strides ? src_strides : cs;
    if (same_layout(ndim, shape, dst_strides, src_strides, itemsize)) {
        return rt_dtoh(dst, src, (size_t)(size * itemsize), s);
    }
    span(ndim, shape, src_strides, itemsize, &lo, &hi);
    char *tmp = malloc((size_t)(hi - lo));
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    if (rt_dtoh(tmp, src + lo, (size_t)(hi - lo), s) < 0) {
        free(tmp);
        return -1;
    }
    strided_copy(dst, dst_strides, tmp - lo, src_strides, ndim, shape, itemsize);
    free(tmp);
    return 0;
}

int
rt_copy_from_host(CUdeviceptr dst, const int64_t *dst_strides, const void *src,
                  const int64_t *src_strides, int ndim, const int64_t *shape, int64_t itemsize,
                  CUstream s)
{
    int64_t cs[RT_MAXDIM], lo, hi;
    int dc, df, r;
    int64_t size = shape_size(ndim, shape);
    if (size == 0) {
        return 0;
    }
    c_strides(ndim, shape, itemsize, cs);
    dst_strides = dst_strides ? dst_strides : cs;
    src_strides = src_strides ? src_strides : cs;
    size_t nbytes = (size_t)(size * itemsize);
    if (same_layout(ndim, shape, dst_strides, src_strides, itemsize)) {
        return rt_htod(dst, src, nbytes, s);
    }
    rt_contiguity(ndim, shape, dst_strides, itemsize, &dc, &df);
    if (dc || df) {
        /* gather into the destination's layout, then one copy */
        char *tmp = malloc(nbytes);
        if (!tmp) {
            PyErr_NoMemory();
            return -1;
        }
        strided_copy(tmp, dst_strides, src, src_strides, ndim, shape, itemsize);
        r = rt_htod(dst, tmp, nbytes, s);
        free(tmp);
        return r;
    }
    /* read the destination's span, scatter into it, write it back */
    span(ndim, shape, dst_strides, itemsize, &lo, &hi);
    char *tmp = malloc((size_t)(hi - lo));
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    r = rt_dtoh(tmp, dst + lo, (size_t)(hi - lo), s);
    if (r == 0) {
        strided_copy(tmp - lo, dst_strides, src, src_strides, ndim, shape, itemsize);
        r = rt_htod(dst + lo, tmp, (size_t)(hi - lo), s);
    }
    free(tmp);
    return r;
}

/* fills n elements at p with one element's bytes: a memset when the bytes
 * repeat with period 1, 2 or 4, else copies of a host buffer */
static int
fill_contig(CUdeviceptr p, int64_t n, int itemsize, const unsigned char *elem, CUstream s)
{
    size_t nbytes = (size_t)(n * itemsize);
    int period = itemsize;
    CUresult r;
    if (n == 0) {
        return 0;
    }
    for (int per = 1; per < itemsize; per *= 2) {
        int ok = 1;
        for (int i = per; i < itemsize && ok; i++) {
            ok = elem[i] == elem[i - per];
        }
        if (ok) {
            period = per;
            break;
        }
    }
    if (period == 1) {
        r = rt_cu.cuMemsetD8Async(p, elem[0], nbytes, s);
    } else if (period == 2) {
        unsigned short v;
        memcpy(&v, elem, 2);
        r = rt_cu.cuMemsetD16Async(p, v, nbytes / 2, s);
    } else if (period == 4) {
        unsigned v;
        memcpy(&v, elem, 4);
        r = rt_cu.cuMemsetD32Async(p, v, nbytes / 4, s);
    } else {
        size_t chunk = nbytes < HOST_FILL_CHUNK ? nbytes : HOST_FILL_CHUNK / (size_t)itemsize
                                                                * (size_t)itemsize;
        unsigned char *buf = malloc(chunk);
        if (!buf) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < chunk; i += (size_t)itemsize) {
            memcpy(buf + i, elem, (size_t)itemsize);
        }
        int ret = 0;
        for (size_t off = 0; off < nbytes && ret == 0; off += chunk) {
            ret = rt_htod(p + off, buf, nbytes - off < chunk ? nbytes - off : chunk, s);
        }
        free(buf);
        return ret;
    }
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "filling device memory");
}

/* ---- construction ---- */

static RtDeviceArray *
array_struct(int ndim, const int64_t *shape, const int64_t *strides, DType dt, int dev)
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
    for (int i = 0; i < ndim; i++) {
        a->shape[i] = shape[i];
        a->strides[i] = strides[i];
    }
    a->size = shape_size(ndim, shape);
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
        f_strides(ndim, shape, cj_dtypes[dt].size, strides);
    } else {
        c_strides(ndim, shape, cj_dtypes[dt].size, strides);
    }
    RtDeviceArray *a = array_struct(ndim, shape, strides, dt, dev);
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

PyObject *
rt_empty_order(int ndim, const int64_t *shape, DType dt, char order, void *stream)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return NULL;
    }
    return (PyObject *)rt_array_new(ndim, shape, dt, order, dev, stream, NULL);
}

PyObject *
rt_empty(int ndim, const int64_t *shape, DType dt, void *stream)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return NULL;
    }
    return (PyObject *)rt_array_new(ndim, shape, dt, 'C', dev, stream, NULL);
}

int
rt_is_device_array(PyObject *o)
{
    return PyObject_TypeCheck(o, &rt_DeviceArray_Type);
}

static PyObject *
make_view(RtDeviceArray *src, CUdeviceptr ptr, int ndim, const int64_t *shape,
          const int64_t *strides)
{
    RtDeviceArray *v = array_struct(ndim, shape, strides, src->dtype, src->device);
    if (!v) {
        return NULL;
    }
    v->ptr = ptr;
    v->stream = src->stream;
    v->base = Py_NewRef(src->base ? src->base : (PyObject *)src);
    return (PyObject *)v;
}

static void
DeviceArray_dealloc(RtDeviceArray *self)
{
    if (self->weakreflist) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    if (self->alloc) {
        rt_mem_free(self->device, self->alloc, self->stream);
    }
    Py_CLEAR(self->base);
    Py_CLEAR(self->stream_ref);
    PyObject_Free(self);
}

/* the stream argument of a method: the array's own when None */
static int
method_stream(RtDeviceArray *self, PyObject *o, CUstream *s)
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

/* makes the array's device current for the copy; -1 with exception */
static int
enter_device(RtDeviceArray *a, int *pushed)
{
    if (rt_ensure_context() < 0) {
        return -1;
    }
    if (rt_ctx_enter_quiet(a->device, pushed) < 0) {
        PyErr_Format(rt_CudaError, "cannot make device %d current", a->device);
        return -1;
    }
    return 0;
}

static PyObject *
shape_tuple(int ndim, const int64_t *v)
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
static int
parse_shape_signed(PyObject *o, int64_t *shape, int *ndim)
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
static int
parse_shape(PyObject *o, int64_t *shape, int *ndim)
{
    if (parse_shape_signed(o, shape, ndim) < 0) {
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

static int
parse_order(const char *order, char *out)
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

/* ---- host <-> device ---- */

/* a new NumPy array of the array's shape and dtype, C order */
static PyObject *
host_empty(RtDeviceArray *a)
{
    PyObject *np = rt_numpy(), *shape, *dt, *res;
    if (!np) {
        return NULL;
    }
    shape = shape_tuple(a->ndim, a->shape);
    dt = rt_dtype_object(a->dtype);
    res = shape && dt ? PyObject_CallMethod(np, "empty", "OO", shape, dt) : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(dt);
    return res;
}

static int
check_same(RtDeviceArray *a, int ndim, const int64_t *shape, DType dt, const char *what)
{
    int same = ndim == a->ndim && dt == a->dtype;
    for (int i = 0; same && i < ndim; i++) {
        same = shape[i] == a->shape[i];
    }
    if (!same) {
        PyObject *s1 = shape_tuple(a->ndim, a->shape), *s2 = shape_tuple(ndim, shape);
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
    if (PyObject_GetBuffer(out, &view, PyBUF_RECORDS) < 0) {
        return -1;
    }
    if (view.ndim > RT_MAXDIM || rt_dtype_from_format(view.format, view.itemsize, &dt) < 0) {
        goto done;
    }
    for (int i = 0; i < view.ndim; i++) {
        shape[i] = view.shape[i];
        strides[i] = view.strides[i];
    }
    if (check_same(a, view.ndim, shape, dt, "copy_to_host") < 0 || enter_device(a, &pushed) < 0) {
        goto done;
    }
    ret = rt_copy_to_host(view.buf, strides, a->ptr, a->strides, a->ndim, a->shape,
                          cj_dtypes[a->dtype].size, s);
    rt_ctx_leave(pushed);
done:
    PyBuffer_Release(&view);
    return ret;
}

static PyObject *
to_host(RtDeviceArray *a, PyObject *ary, CUstream s)
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

static PyObject *
DeviceArray_copy_to_host(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary = NULL, *so = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:copy_to_host", kwlist, &ary, &so)
        || method_stream(self, so, &s) < 0) {
        return NULL;
    }
    return to_host(self, ary, s);
}

/* ---- writes: a[...] = value ----
 *
 * What one driver call does stays here: a memset of a contiguous array
 * with a Python number, one device-to-device copy between arrays of the
 * same shape, dtype and contiguous layout, host data of the array's shape
 * and dtype into a contiguous array.  Everything else (strided
 * destinations, other layouts, dtype conversions, broadcasting, overlapping
 * copies, NumPy scalars) is the stdlib's assign (cujit/_stdlib.py): NumPy's
 * conversions, then device kernels; host data crosses the bus once, as
 * given (not broadcast). */

static int stdlib_assign(RtDeviceArray *a, PyObject *value, CUstream s);

/* device data: a DeviceArray, CUDA Array Interface or DLPack object (CuPy
 * arrays expose a buffer slot that refuses: CAI first) */
static int
on_device(PyObject *o)
{
    return rt_is_array(o) && (PyObject_HasAttrString(o, "__cuda_array_interface__")
                              || !PyObject_CheckBuffer(o));
}

static int
is_number(PyObject *v)
{
    return PyLong_Check(v) || PyFloat_Check(v) || PyComplex_Check(v) || PyBool_Check(v);
}

/* a Python number rt_scalar_to_bytes converts exactly as NumPy does
 * (others, NumPy scalars among them, are converted by NumPy itself) */
static int
plain_number(PyObject *v, DType dt)
{
    char k = cj_dtypes[dt].kind;
    return PyBool_Check(v) || PyLong_CheckExact(v)
           || (PyFloat_CheckExact(v) && (k == 'f' || k == 'c'))
           || (PyComplex_CheckExact(v) && k == 'c');
}

/* a[...] = number: a memset of a contiguous array, else the stdlib */
static int
fill_number(RtDeviceArray *a, PyObject *v, CUstream s)
{
    unsigned char elem[16];
    if (!(a->c_contig || a->f_contig) || !plain_number(v, a->dtype)) {
        return stdlib_assign(a, v, s);
    }
    if (rt_scalar_to_bytes(v, a->dtype, elem) < 0) {
        return -1;
    }
    return fill_contig(a->ptr, a->size, cj_dtypes[a->dtype].size, elem, s);
}

/* one driver copy does a[...] = in: the same shape, dtype and contiguous
 * layout, and the two are the same memory or do not overlap */
static int
direct_copy(const RtDeviceArray *a, const RtArray *in)
{
    int64_t itemsize = cj_dtypes[a->dtype].size, nbytes = a->size * itemsize;
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)in->ptr;
    if (in->dtype != a->dtype || in->ndim != a->ndim) {
        return 0;
    }
    for (int i = 0; i < a->ndim; i++) {
        if (in->shape[i] != a->shape[i]) {
            return 0;
        }
    }
    if (nbytes == 0) {
        return 1;
    }
    if (!same_layout(a->ndim, a->shape, a->strides, in->strides, itemsize)) {
        return 0;
    }
    return p == a->ptr || p + (CUdeviceptr)nbytes <= a->ptr
           || a->ptr + (CUdeviceptr)nbytes <= p;
}

/* a's bytes from device address p, on stream s (cuMemcpyDtoDAsync) */
static int
dtod(RtDeviceArray *a, CUdeviceptr p, CUstream s)
{
    size_t n = (size_t)(a->size * cj_dtypes[a->dtype].size);
    if (n == 0 || p == a->ptr) {
        return 0;
    }
    CUresult r = rt_cu.cuMemcpyDtoDAsync(a->ptr, p, n, s);
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "copying between device arrays");
}

/* a DeviceArray over a borrowed device array, for the stdlib: it owns
 * nothing and must not outlive `in` */
static PyObject *
borrowed_view(const RtArray *in, int dev)
{
    RtDeviceArray *v = array_struct(in->ndim, in->shape, in->strides, in->dtype, dev);
    if (v) {
        v->ptr = (CUdeviceptr)(uintptr_t)in->ptr;
    }
    return (PyObject *)v;
}

/* a[...] = src for any device array (DeviceArray, CAI, DLPack): one copy
 * when the layouts match, else the stdlib's kernels.  strict: src has a's
 * shape and dtype (copy_to_device, to_device, copy); else NumPy's casting
 * and broadcasting (a[key] = src). */
static int
copy_from_device(RtDeviceArray *a, PyObject *src, CUstream s, int strict)
{
    RtArray in;
    PyObject *view = NULL;
    int ret = -1;
    if (rt_get_array(src, &in, s, "source") < 0) {
        return -1;
    }
    if (strict && check_same(a, in.ndim, in.shape, in.dtype, "copy_to_device") < 0) {
        goto done;
    }
    if (direct_copy(a, &in)) {
        ret = dtod(a, (CUdeviceptr)(uintptr_t)in.ptr, s);
        goto done;
    }
    view = rt_is_device_array(src) ? Py_NewRef(src) : borrowed_view(&in, a->device);
    ret = view ? stdlib_assign(a, view, s) : -1;
done:
    Py_XDECREF(view);
    if (rt_array_release(&in, s, 0) < 0) {
        ret = -1;
    }
    return ret;
}

/* host data (any buffer or anything numpy.asarray takes), cast to a's dtype
 * and broadcast to its shape: one host-to-device copy into a contiguous
 * array; the stdlib for a strided one */
static int
copy_from_hostobj(RtDeviceArray *a, PyObject *src, CUstream s)
{
    PyObject *np, *dt = NULL, *h = NULL, *shape = NULL, *b = NULL;
    Py_buffer view;
    int ret = -1;
    if (!a->c_contig && !a->f_contig) {
        return stdlib_assign(a, src, s);
    }
    if (!(np = rt_numpy())) {
        return -1;
    }
    dt = rt_dtype_object(a->dtype);
    shape = shape_tuple(a->ndim, a->shape);
    if (!dt || !shape) {
        goto done;
    }
    h = PyObject_CallMethod(np, "asarray", "OO", src, dt);
    if (!h) {
        goto done;
    }
    b = PyObject_CallMethod(np, "broadcast_to", "OO", h, shape);
    if (!b || PyObject_GetBuffer(b, &view, PyBUF_RECORDS_RO) < 0) {
        goto done;
    }
    int64_t strides[RT_MAXDIM];
    for (int i = 0; i < view.ndim && i < RT_MAXDIM; i++) {
        strides[i] = view.strides[i];
    }
    ret = rt_copy_from_host(a->ptr, a->strides, view.buf, strides, a->ndim, a->shape,
                            cj_dtypes[a->dtype].size, s);
    PyBuffer_Release(&view);
done:
    Py_XDECREF(dt);
    Py_XDECREF(shape);
    Py_XDECREF(h);
    Py_XDECREF(b);
    return ret;
}

/* host data that is already what a contiguous array holds: a buffer of its
 * shape and dtype (bytes and str are not arrays to NumPy) */
static int
host_as_is(RtDeviceArray *a, PyObject *v)
{
    Py_buffer view;
    DType dt;
    int same;
    if (!(a->c_contig || a->f_contig) || PyBytes_Check(v) || PyByteArray_Check(v)
        || PyUnicode_Check(v) || !PyObject_CheckBuffer(v)) {
        return 0;
    }
    if (PyObject_GetBuffer(v, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    same = view.ndim == a->ndim
           && rt_dtype_from_format(view.format, view.itemsize, &dt) == 0 && dt == a->dtype;
    PyErr_Clear();
    for (int i = 0; same && i < view.ndim; i++) {
        same = view.shape[i] == a->shape[i];
    }
    PyBuffer_Release(&view);
    return same;
}

/* copy_to_device, to_device, copy: device data of a's shape and dtype, host
 * data cast and broadcast (numpy.asarray, numpy.broadcast_to), numbers */
static int
assign(RtDeviceArray *a, PyObject *value, CUstream s)
{
    int pushed = 0, ret;
    if (enter_device(a, &pushed) < 0) {
        return -1;
    }
    if (is_number(value)) {
        ret = fill_number(a, value, s);
    } else if (on_device(value)) {
        ret = copy_from_device(a, value, s, 1);
    } else {
        ret = copy_from_hostobj(a, value, s);
    }
    rt_ctx_leave(pushed);
    return ret;
}

/* a[key] = value: NumPy's casting and broadcasting (the stdlib's), the
 * direct cases by the driver */
static int
setitem(RtDeviceArray *a, PyObject *value, CUstream s)
{
    int pushed = 0, ret;
    if (enter_device(a, &pushed) < 0) {
        return -1;
    }
    if (plain_number(value, a->dtype)) {
        ret = fill_number(a, value, s);
    } else if (on_device(value)) {
        ret = copy_from_device(a, value, s, 0);
    } else if (host_as_is(a, value)) {
        ret = copy_from_hostobj(a, value, s);
    } else {
        ret = stdlib_assign(a, value, s);
    }
    rt_ctx_leave(pushed);
    return ret;
}

static PyObject *
DeviceArray_copy_to_device(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary, *so = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:copy_to_device", kwlist, &ary, &so)
        || method_stream(self, so, &s) < 0 || assign(self, ary, s) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* copy(order='C', stream=None): a new array on the array's own device; one
 * device-to-device copy when the layout allows, else a copy kernel ('A'
 * and 'K': Fortran order for a Fortran-contiguous array, else C) */
static PyObject *
DeviceArray_copy(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"order", "stream", NULL};
    PyObject *so = NULL;
    const char *order = NULL;
    char o;
    CUstream s;
    int pushed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zO:copy", kwlist, &order, &so)
        || parse_order(order, &o) < 0 || method_stream(self, so, &s) < 0
        || enter_device(self, &pushed) < 0) {
        return NULL;
    }
    if (o == 'K') {
        o = self->f_contig && !self->c_contig ? 'F' : 'C';
    }
    RtDeviceArray *c = rt_array_new(self->ndim, self->shape, self->dtype, o, self->device, s,
                                    so && !PyLong_Check(so) && so != Py_None ? so : NULL);
    if (c && copy_from_device(c, (PyObject *)self, s, 1) < 0) {
        Py_CLEAR(c);
    }
    rt_ctx_leave(pushed);
    return (PyObject *)c;
}

/* ---- item access ---- */

static PyObject *
element_object(const unsigned char *p, DType dt)
{
    long long i = 0;
    unsigned long long u = 0;
    switch (dt) {
    case DT_BOOL:
        return PyBool_FromLong(p[0] != 0);
    case DT_I8: case DT_I16: case DT_I32: case DT_I64:
        memcpy(&i, p, (size_t)cj_dtypes[dt].size);
        i = cj_dtypes[dt].size == 8 ? i : (i << (64 - 8 * cj_dtypes[dt].size))
                                             >> (64 - 8 * cj_dtypes[dt].size);
        return PyLong_FromLongLong(i);
    case DT_U8: case DT_U16: case DT_U32: case DT_U64:
        memcpy(&u, p, (size_t)cj_dtypes[dt].size);
        return PyLong_FromUnsignedLongLong(u);
    case DT_F16:
#if PY_VERSION_HEX >= 0x030B0000
        return PyFloat_FromDouble(PyFloat_Unpack2((const char *)p, 1));
#else
        return PyFloat_FromDouble(_PyFloat_Unpack2(p, 1));
#endif
    case DT_F32: {
        float f;
        memcpy(&f, p, 4);
        return PyFloat_FromDouble(f);
    }
    case DT_F64: {
        double d;
        memcpy(&d, p, 8);
        return PyFloat_FromDouble(d);
    }
    case DT_C64: {
        float c[2];
        memcpy(c, p, 8);
        return PyComplex_FromDoubles(c[0], c[1]);
    }
    case DT_C128: {
        double c[2];
        memcpy(c, p, 16);
        return PyComplex_FromDoubles(c[0], c[1]);
    }
    case DT_COUNT:
        break;
    }
    PyErr_SetString(PyExc_SystemError, "bad dtype");
    return NULL;
}

static PyObject *
DeviceArray_item(RtDeviceArray *self, PyObject *noargs)
{
    unsigned char buf[16];
    int pushed;
    if (self->size != 1) {
        PyErr_SetString(PyExc_ValueError, "can only convert an array of size 1 to a Python scalar");
        return NULL;
    }
    if (enter_device(self, &pushed) < 0) {
        return NULL;
    }
    int r = rt_dtoh(buf, self->ptr, (size_t)cj_dtypes[self->dtype].size, self->stream);
    rt_ctx_leave(pushed);
    return r < 0 ? NULL : element_object(buf, self->dtype);
}

static PyObject *
DeviceArray_float(RtDeviceArray *self)
{
    PyObject *v = DeviceArray_item(self, NULL), *f;
    if (!v) {
        return NULL;
    }
    f = PyComplex_Check(v) ? PyFloat_FromDouble(PyComplex_RealAsDouble(v)) : PyNumber_Float(v);
    Py_DECREF(v);
    return f;
}

static PyObject *
DeviceArray_int(RtDeviceArray *self)
{
    PyObject *v = DeviceArray_item(self, NULL), *i;
    if (!v) {
        return NULL;
    }
    i = PyComplex_Check(v) ? NULL : PyNumber_Long(v);
    if (PyComplex_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "cannot convert a complex array to int");
    }
    Py_DECREF(v);
    return i;
}

static int
DeviceArray_bool(RtDeviceArray *self)
{
    if (self->size != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "the truth value of an array with other than one element is ambiguous");
        return -1;
    }
    PyObject *v = DeviceArray_item(self, NULL);
    if (!v) {
        return -1;
    }
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

/* ---- indexing: integers, slices, Ellipsis, None ---- */

static PyObject *
index_view(RtDeviceArray *self, PyObject *key)
{
    PyObject *const *items = &key;
    Py_ssize_t nitems = 1;
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM];
    int consumed = 0, ellipses = 0, nd = 0, dim = 0;
    int64_t offset = 0;

    if (PyTuple_Check(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        nitems = PyTuple_GET_SIZE(key);
    }
    for (Py_ssize_t i = 0; i < nitems; i++) {
        if (items[i] == Py_Ellipsis) {
            ellipses++;
        } else if (items[i] != Py_None) {
            consumed++;
        }
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
        return NULL;
    }
    if (consumed > self->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices for array: array is %d-dimensional, but %d were indexed",
                     self->ndim, consumed);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *it = items[i];
        if (nd >= RT_MAXDIM && (it == Py_None || PySlice_Check(it))) {
            PyErr_Format(PyExc_IndexError, "at most %d dimensions are supported", RT_MAXDIM);
            return NULL;
        }
        if (it == Py_Ellipsis) {
            for (int k = 0; k < self->ndim - consumed; k++, dim++, nd++) {
                shape[nd] = self->shape[dim];
                strides[nd] = self->strides[dim];
            }
        } else if (it == Py_None) {
            shape[nd] = 1;
            strides[nd++] = 0;
        } else if (PySlice_Check(it)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(it, &start, &stop, &step) < 0) {
                return NULL;
            }
            Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)self->shape[dim], &start, &stop,
                                                   step);
            offset += start * self->strides[dim];
            shape[nd] = len;
            strides[nd++] = step * self->strides[dim++];
        } else if (PyIndex_Check(it) && !PyBool_Check(it)) {
            Py_ssize_t k = PyNumber_AsSsize_t(it, PyExc_IndexError);
            if (k == -1 && PyErr_Occurred()) {
                return NULL;
            }
            if (k < 0) {
                k += (Py_ssize_t)self->shape[dim];
            }
            if (k < 0 || k >= self->shape[dim]) {
                PyErr_Format(PyExc_IndexError,
                             "index %zd is out of bounds for axis %d with size %lld",
                             PyNumber_AsSsize_t(it, NULL), dim, (long long)self->shape[dim]);
                return NULL;
            }
            offset += k * self->strides[dim++];
        } else {
            PyErr_Format(PyExc_IndexError,
                         "cujit.DeviceArray supports basic indexing only (integers, slices, "
                         "'...' and None), not %.100s", Py_TYPE(it)->tp_name);
            return NULL;
        }
    }
    for (; dim < self->ndim; dim++, nd++) {
        if (nd >= RT_MAXDIM) {
            PyErr_Format(PyExc_IndexError, "at most %d dimensions are supported", RT_MAXDIM);
            return NULL;
        }
        shape[nd] = self->shape[dim];
        strides[nd] = self->strides[dim];
    }
    return make_view(self, self->ptr + (CUdeviceptr)offset, nd, shape, strides);
}

static PyObject *
DeviceArray_subscript(RtDeviceArray *self, PyObject *key)
{
    return index_view(self, key);
}

static PyObject *
DeviceArray_item_at(RtDeviceArray *self, Py_ssize_t i)
{
    PyObject *k = PyLong_FromSsize_t(i), *r;
    if (!k) {
        return NULL;
    }
    r = index_view(self, k);
    Py_DECREF(k);
    return r;
}

static int
DeviceArray_ass_subscript(RtDeviceArray *self, PyObject *key, PyObject *value)
{
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete array elements");
        return -1;
    }
    PyObject *v = index_view(self, key);
    if (!v) {
        return -1;
    }
    int r = setitem((RtDeviceArray *)v, value, self->stream);
    Py_DECREF(v);
    return r;
}

static Py_ssize_t
DeviceArray_length(RtDeviceArray *self)
{
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)self->shape[0];
}

/* ---- attributes ---- */

static PyObject *
DeviceArray_get_shape(RtDeviceArray *self, void *c)
{
    return shape_tuple(self->ndim, self->shape);
}

static PyObject *
DeviceArray_get_strides(RtDeviceArray *self, void *c)
{
    return shape_tuple(self->ndim, self->strides);
}

static PyObject *
DeviceArray_get_dtype(RtDeviceArray *self, void *c)
{
    return rt_dtype_object(self->dtype);
}

static PyObject *
DeviceArray_get_size(RtDeviceArray *self, void *c)
{
    return PyLong_FromLongLong(self->size);
}

static PyObject *
DeviceArray_get_ndim(RtDeviceArray *self, void *c)
{
    return PyLong_FromLong(self->ndim);
}

static PyObject *
DeviceArray_get_itemsize(RtDeviceArray *self, void *c)
{
    return PyLong_FromLong(cj_dtypes[self->dtype].size);
}

static PyObject *
DeviceArray_get_nbytes(RtDeviceArray *self, void *c)
{
    return PyLong_FromLongLong(self->size * cj_dtypes[self->dtype].size);
}

static PyObject *
DeviceArray_get_ptr(RtDeviceArray *self, void *c)
{
    return PyLong_FromUnsignedLongLong(self->ptr);
}

static PyObject *
DeviceArray_get_device(RtDeviceArray *self, void *c)
{
    return rt_device_object(self->device);
}

static PyObject *
DeviceArray_get_base(RtDeviceArray *self, void *c)
{
    return Py_NewRef(self->base ? self->base : Py_None);
}

static PyObject *
DeviceArray_get_c_contig(RtDeviceArray *self, void *c)
{
    return PyBool_FromLong(self->c_contig);
}

static PyObject *
DeviceArray_get_f_contig(RtDeviceArray *self, void *c)
{
    return PyBool_FromLong(self->f_contig);
}

/* CAI v3.  The data is written by work on the array's stream (the legacy
 * default stream unless it was created on another), which may still be
 * running, so "stream" names it: 1 for the legacy default stream. */
static PyObject *
DeviceArray_get_cai(RtDeviceArray *self, void *c)
{
    PyObject *shape = shape_tuple(self->ndim, self->shape), *strides = NULL, *stream, *d = NULL;
    if (!shape) {
        return NULL;
    }
    if (self->c_contig) {
        strides = Py_NewRef(Py_None);
    } else {
        strides = shape_tuple(self->ndim, self->strides);
    }
    CUstream s = rt_norm_stream(self->stream);
    stream = PyLong_FromVoidPtr(s);
    if (strides && stream) {
        const char *ts = rt_dtype_typestr(self->dtype);
        d = Py_BuildValue("{s:N,s:s,s:[(s,s)],s:(K,O),s:N,s:i,s:N}", "shape", shape, "typestr", ts,
                          "descr", "", ts, "data", self->ptr, Py_False, "strides", strides,
                          "version", 3, "stream", stream);
        return d;
    }
    Py_DECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(stream);
    return NULL;
}

/* ---- DLPack export ---- */

typedef struct {
    union {
        RtDLManagedTensor legacy;
        RtDLManagedTensorVersioned versioned;
    } t;
    int64_t shape[RT_MAXDIM];
    int64_t strides[RT_MAXDIM];
} Export;

static void
release_owner(void *ctx)
{
    /* consumers may call the deleter from any thread, with or without the
     * GIL; after interpreter exit the reference is left */
    if (ctx && Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF((PyObject *)ctx);
        PyGILState_Release(g);
    }
}

static void
legacy_deleter(RtDLManagedTensor *m)
{
    release_owner(m->manager_ctx);
    free(m);
}

static void
versioned_deleter(RtDLManagedTensorVersioned *m)
{
    release_owner(m->manager_ctx);
    free(m);
}

static void
legacy_capsule_destructor(PyObject *cap)
{
    /* still named "dltensor": no consumer took it */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        RtDLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter) {
            m->deleter(m);
        }
    } else {
        PyErr_Clear();
    }
}

static void
versioned_capsule_destructor(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        RtDLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter) {
            m->deleter(m);
        }
    } else {
        PyErr_Clear();
    }
}

static void
fill_dltensor(RtDeviceArray *self, RtDLTensor *t, Export *e)
{
    int64_t itemsize = cj_dtypes[self->dtype].size;
    t->data = (void *)(uintptr_t)self->ptr;
    t->device.device_type = RT_kDLCUDA;
    t->device.device_id = self->device;
    t->ndim = self->ndim;
    rt_dtype_to_dlpack(self->dtype, &t->dtype.code, &t->dtype.bits);
    t->dtype.lanes = 1;
    for (int i = 0; i < self->ndim; i++) {
        e->shape[i] = self->shape[i];
        e->strides[i] = self->strides[i] / itemsize;
    }
    t->shape = e->shape;
    t->strides = e->strides;
    t->byte_offset = 0;
}

/* the consumer's stream (DLPack's convention) as a CUstream; *none: no sync */
static int
dlpack_stream(PyObject *o, CUstream *s, int *none)
{
    *none = 0;
    *s = RT_STREAM_LEGACY;
    if (o == NULL || o == Py_None) {
        return 0;
    }
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v == -1) {
        *none = 1;
    } else if (v == 2) {
        *s = RT_STREAM_PER_THREAD;
    } else if (v != 0 && v != 1) {
        *s = (CUstream)(uintptr_t)v;
    }
    return 0;
}

static PyObject *
DeviceArray_dlpack(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *so = NULL, *maxv = NULL, *dldev = NULL, *copy = NULL;
    CUstream s;
    int none, versioned = 0, pushed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__", kwlist, &so, &maxv, &dldev,
                                     &copy)) {
        return NULL;
    }
    if (dlpack_stream(so, &s, &none) < 0) {
        return NULL;
    }
    if (maxv && maxv != Py_None) {
        PyObject *major = PySequence_GetItem(maxv, 0);
        long m = major ? PyLong_AsLong(major) : -1;
        Py_XDECREF(major);
        if (m == -1 && PyErr_Occurred()) {
            return NULL;
        }
        versioned = m >= 1;
    }
    if (dldev && dldev != Py_None) {
        int dt, id;
        if (!PyArg_ParseTuple(dldev, "ii", &dt, &id)) {
            return NULL;
        }
        if (dt != RT_kDLCUDA || id != self->device) {
            PyErr_SetString(PyExc_BufferError, "cujit.DeviceArray can only be exported to "
                            "its own CUDA device");
            return NULL;
        }
    }
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "cujit.DeviceArray.__dlpack__ does not copy");
        return NULL;
    }
    if (!none) {
        if (enter_device(self, &pushed) < 0) {
            return NULL;
        }
        int r = rt_stream_wait(self->device, s, self->stream);
        rt_ctx_leave(pushed);
        if (r < 0) {
            return NULL;
        }
    }
    Export *e = calloc(1, sizeof *e);
    if (!e) {
        return PyErr_NoMemory();
    }
    PyObject *cap;
    if (versioned) {
        RtDLManagedTensorVersioned *m = &e->t.versioned;
        m->version.major = 1;
        m->version.minor = 0;
        m->manager_ctx = self;
        m->deleter = versioned_deleter;
        m->flags = 0;
        fill_dltensor(self, &m->dl_tensor, e);
        cap = PyCapsule_New(m, "dltensor_versioned", versioned_capsule_destructor);
    } else {
        RtDLManagedTensor *m = &e->t.legacy;
        m->manager_ctx = self;
        m->deleter = legacy_deleter;
        fill_dltensor(self, &m->dl_tensor, e);
        cap = PyCapsule_New(m, "dltensor", legacy_capsule_destructor);
    }
    if (!cap) {
        free(e);
        return NULL;
    }
    Py_INCREF(self);            /* released by the deleter */
    return cap;
}

static PyObject *
DeviceArray_dlpack_device(RtDeviceArray *self, PyObject *noargs)
{
    return Py_BuildValue("(ii)", RT_kDLCUDA, self->device);
}

static PyObject *
DeviceArray_array(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    PyErr_SetString(PyExc_TypeError,
                    "implicit conversion of a cujit.DeviceArray to a NumPy array is not "
                    "allowed: use .copy_to_host() or cujit.asnumpy()");
    return NULL;
}

/* ---- repr ---- */

#define REPR_MAX_ELEMS 1000

static PyObject *
repr_shape(RtDeviceArray *self)
{
    PyObject *shape = shape_tuple(self->ndim, self->shape), *r;
    if (!shape) {
        return NULL;
    }
    r = PyUnicode_FromFormat("DeviceArray(shape=%S, dtype=%s)", shape, cj_dtypes[self->dtype].name);
    Py_DECREF(shape);
    return r;
}

static PyObject *
DeviceArray_repr(RtDeviceArray *self)
{
    PyObject *np, *host = NULL, *s = NULL, *r = NULL;
    if (self->size > REPR_MAX_ELEMS || !(np = rt_numpy())) {
        PyErr_Clear();
        return repr_shape(self);
    }
    host = to_host(self, NULL, self->stream);
    if (host) {
        s = PyObject_CallMethod(np, "array2string", "OOOOss", host, Py_None, Py_None, Py_None,
                                ", ", "DeviceArray(");
    }
    if (!s) {
        PyErr_Clear();
        Py_XDECREF(host);
        return repr_shape(self);
    }
    r = PyUnicode_FromFormat("DeviceArray(%U, dtype=%s)", s, cj_dtypes[self->dtype].name);
    Py_DECREF(s);
    Py_DECREF(host);
    return r;
}

/* ---- operators and stdlib methods: forwarded to Python ----
 *
 * The arithmetic, comparisons and methods such as sum() are written in
 * Python over bundled kernels (cujit/_stdlib.py, stdlib/).  That module
 * registers one callable per name through _set_array_ops(dict) when it is
 * imported, which happens here on the first use, so `import cujit` pays
 * nothing for them.  A binary slot calls ops[name](a, b) (either operand may
 * be the DeviceArray); a method calls ops[name](self, *args, **kwargs);
 * NumPy's protocols __array_ufunc__ and __array_function__ are methods too;
 * writes the driver cannot do alone call ops["assign"](a, value, stream). */

#define ARRAY_OPS(X) \
    X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(TRUEDIV, "truediv") \
    X(FLOORDIV, "floordiv") X(MOD, "mod") X(POW, "pow") X(DIVMOD, "divmod") \
    X(LSHIFT, "lshift") X(RSHIFT, "rshift") X(AND, "and") X(OR, "or") X(XOR, "xor") \
    X(IADD, "iadd") X(ISUB, "isub") X(IMUL, "imul") X(ITRUEDIV, "itruediv") \
    X(IFLOORDIV, "ifloordiv") X(IMOD, "imod") X(IPOW, "ipow") X(ILSHIFT, "ilshift") \
    X(IRSHIFT, "irshift") X(IAND, "iand") X(IOR, "ior") X(IXOR, "ixor") \
    X(NEG, "neg") X(POS, "pos") X(ABS, "abs") X(INVERT, "invert") \
    X(LT, "lt") X(LE, "le") X(EQ, "eq") X(NE, "ne") X(GT, "gt") X(GE, "ge") \
    X(M_SUM, "sum") X(M_PROD, "prod") X(M_MIN, "min") X(M_MAX, "max") X(M_MEAN, "mean") \
    X(M_ARGMIN, "argmin") X(M_ARGMAX, "argmax") X(M_ANY, "any") X(M_ALL, "all") \
    X(M_CUMSUM, "cumsum") X(M_ASTYPE, "astype") X(M_FILL, "fill") X(M_RESHAPE, "reshape") \
    X(M_RAVEL, "ravel") X(M_FLATTEN, "flatten") X(M_TRANSPOSE, "transpose") \
    X(M_SQUEEZE, "squeeze") X(M_REAL, "real") X(M_IMAG, "imag") \
    X(M_ARRAY_UFUNC, "array_ufunc") X(M_ARRAY_FUNCTION, "array_function") X(ASSIGN, "assign")

enum {
#define AOP_ENUM(e, name) AOP_##e,
    ARRAY_OPS(AOP_ENUM)
#undef AOP_ENUM
    AOP_COUNT
};

static const char *const op_names[AOP_COUNT] = {
#define AOP_NAME(e, name) name,
    ARRAY_OPS(AOP_NAME)
#undef AOP_NAME
};

static PyObject *op_fns[AOP_COUNT];     /* strong references; NULL: not provided */
static int ops_registered;

/* _set_array_ops(dict): the callables behind operators and methods */
PyObject *
rt_py_set_array_ops(PyObject *self, PyObject *ops)
{
    PyObject *fns[AOP_COUNT];
    if (!PyDict_Check(ops)) {
        PyErr_SetString(PyExc_TypeError, "_set_array_ops() takes a dict");
        return NULL;
    }
    for (int i = 0; i < AOP_COUNT; i++) {
        PyObject *f = PyDict_GetItemString(ops, op_names[i]);    /* borrowed */
        if (f && !PyCallable_Check(f)) {
            PyErr_Format(PyExc_TypeError, "_set_array_ops(): '%s' is not callable", op_names[i]);
            return NULL;
        }
        fns[i] = f;
    }
    for (int i = 0; i < AOP_COUNT; i++) {
        Py_XSETREF(op_fns[i], Py_XNewRef(fns[i]));
    }
    ops_registered = 1;
    Py_RETURN_NONE;
}

/* the callable for op (borrowed), importing cujit._stdlib on first use;
 * NULL without an exception when none is registered */
static PyObject *
op_function(int op)
{
    if (!ops_registered) {
        PyObject *m = PyImport_ImportModule("cujit._stdlib");
        if (!m) {
            return NULL;
        }
        Py_DECREF(m);
        if (!ops_registered) {
            PyErr_SetString(PyExc_ImportError,
                            "cujit._stdlib did not register the array operations");
            return NULL;
        }
    }
    return op_fns[op];
}

static PyObject *
forward(int op, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *f = op_function(op);
    if (!f) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    return PyObject_Vectorcall(f, args, (size_t)nargs, NULL);
}

/* see "writes" above: ops["assign"](a, value, stream handle or None) */
static int
stdlib_assign(RtDeviceArray *a, PyObject *value, CUstream s)
{
    PyObject *so = s ? PyLong_FromVoidPtr(s) : Py_NewRef(Py_None), *r;
    if (!so) {
        return -1;
    }
    PyObject *args[3] = {(PyObject *)a, value, so};
    r = forward(AOP_ASSIGN, args, 3);
    Py_DECREF(so);
    if (!r) {
        return -1;
    }
    if (r == Py_NotImplemented) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ImportError, "cujit._stdlib did not register 'assign'");
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

static PyObject *
forward2(int op, PyObject *a, PyObject *b)
{
    PyObject *args[2] = {a, b};
    return forward(op, args, 2);
}

static PyObject *
forward1(int op, PyObject *a)
{
    return forward(op, &a, 1);
}

#define BINARY_SLOT(fname, op) \
    static PyObject *fname(PyObject *a, PyObject *b) { return forward2(op, a, b); }
BINARY_SLOT(DeviceArray_add, AOP_ADD)
BINARY_SLOT(DeviceArray_sub, AOP_SUB)
BINARY_SLOT(DeviceArray_mul, AOP_MUL)
BINARY_SLOT(DeviceArray_truediv, AOP_TRUEDIV)
BINARY_SLOT(DeviceArray_floordiv, AOP_FLOORDIV)
BINARY_SLOT(DeviceArray_mod, AOP_MOD)
BINARY_SLOT(DeviceArray_divmod, AOP_DIVMOD)
BINARY_SLOT(DeviceArray_lshift, AOP_LSHIFT)
BINARY_SLOT(DeviceArray_rshift, AOP_RSHIFT)
BINARY_SLOT(DeviceArray_and, AOP_AND)
BINARY_SLOT(DeviceArray_or, AOP_OR)
BINARY_SLOT(DeviceArray_xor, AOP_XOR)
BINARY_SLOT(DeviceArray_iadd, AOP_IADD)
BINARY_SLOT(DeviceArray_isub, AOP_ISUB)
BINARY_SLOT(DeviceArray_imul, AOP_IMUL)
BINARY_SLOT(DeviceArray_itruediv, AOP_ITRUEDIV)
BINARY_SLOT(DeviceArray_ifloordiv, AOP_IFLOORDIV)
BINARY_SLOT(DeviceArray_imod, AOP_IMOD)
BINARY_SLOT(DeviceArray_ilshift, AOP_ILSHIFT)
BINARY_SLOT(DeviceArray_irshift, AOP_IRSHIFT)
BINARY_SLOT(DeviceArray_iand, AOP_IAND)
BINARY_SLOT(DeviceArray_ior, AOP_IOR)
BINARY_SLOT(DeviceArray_ixor, AOP_IXOR)
#undef BINARY_SLOT

/* pow(a, b, mod): three-argument pow is not an array operation */
static PyObject *
DeviceArray_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return forward2(AOP_POW, a, b);
}

static PyObject *
DeviceArray_ipow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return forward2(AOP_IPOW, a, b);
}

#define UNARY_SLOT(fname, op) \
    static PyObject *fname(PyObject *a) { return forward1(op, a); }
UNARY_SLOT(DeviceArray_neg, AOP_NEG)
UNARY_SLOT(DeviceArray_pos, AOP_POS)
UNARY_SLOT(DeviceArray_abs, AOP_ABS)
UNARY_SLOT(DeviceArray_invert, AOP_INVERT)
#undef UNARY_SLOT

/* self is always the DeviceArray: CPython swaps the operator for reflected
 * comparisons (3 < x calls x > 3) */
static PyObject *
DeviceArray_richcompare(PyObject *self, PyObject *other, int cmp)
{
    int op;
    switch (cmp) {
    case Py_LT:
        op = AOP_LT;
        break;
    case Py_LE:
        op = AOP_LE;
        break;
    case Py_EQ:
        op = AOP_EQ;
        break;
    case Py_NE:
        op = AOP_NE;
        break;
    case Py_GT:
        op = AOP_GT;
        break;
    case Py_GE:
        op = AOP_GE;
        break;
    default:
        Py_RETURN_NOTIMPLEMENTED;
    }
    return forward2(op, self, other);
}

/* a method: ops[name](self, *args, **kwargs) */
static PyObject *
forward_method(int op, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    PyObject *small[8], **all = small, *r;
    PyObject *f = op_function(op);
    if (!f) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_AttributeError, "cujit.DeviceArray.%s() is not available",
                         op_names[op]);
        }
        return NULL;
    }
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    if (n + 1 > (Py_ssize_t)(sizeof small / sizeof small[0])) {
        all = PyMem_Malloc(sizeof(PyObject *) * (size_t)(n + 1));
        if (!all) {
            return PyErr_NoMemory();
        }
    }
    all[0] = self;
    for (Py_ssize_t i = 0; i < n; i++) {
        all[i + 1] = args[i];
    }
    r = PyObject_Vectorcall(f, all, (size_t)(nargs + 1), kwnames);
    if (all != small) {
        PyMem_Free(all);
    }
    return r;
}

#define METHOD(fname, op) \
    static PyObject *fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                           PyObject *kwnames) \
    { \
        return forward_method(op, self, args, nargs, kwnames); \
    }
METHOD(DeviceArray_m_sum, AOP_M_SUM)
METHOD(DeviceArray_m_prod, AOP_M_PROD)
METHOD(DeviceArray_m_min, AOP_M_MIN)
METHOD(DeviceArray_m_max, AOP_M_MAX)
METHOD(DeviceArray_m_mean, AOP_M_MEAN)
METHOD(DeviceArray_m_argmin, AOP_M_ARGMIN)
METHOD(DeviceArray_m_argmax, AOP_M_ARGMAX)
METHOD(DeviceArray_m_any, AOP_M_ANY)
METHOD(DeviceArray_m_all, AOP_M_ALL)
METHOD(DeviceArray_m_cumsum, AOP_M_CUMSUM)
METHOD(DeviceArray_m_astype, AOP_M_ASTYPE)
METHOD(DeviceArray_m_fill, AOP_M_FILL)
METHOD(DeviceArray_m_reshape, AOP_M_RESHAPE)
METHOD(DeviceArray_m_ravel, AOP_M_RAVEL)
METHOD(DeviceArray_m_flatten, AOP_M_FLATTEN)
METHOD(DeviceArray_m_transpose, AOP_M_TRANSPOSE)
METHOD(DeviceArray_m_squeeze, AOP_M_SQUEEZE)
METHOD(DeviceArray_m_array_ufunc, AOP_M_ARRAY_UFUNC)
METHOD(DeviceArray_m_array_function, AOP_M_ARRAY_FUNCTION)
#undef METHOD

static PyObject *
DeviceArray_get_T(PyObject *self, void *c)
{
    return forward_method(AOP_M_TRANSPOSE, self, NULL, 0, NULL);
}

static PyObject *
DeviceArray_get_real(PyObject *self, void *c)
{
    return forward_method(AOP_M_REAL, self, NULL, 0, NULL);
}

static PyObject *
DeviceArray_get_imag(PyObject *self, void *c)
{
    return forward_method(AOP_M_IMAG, self, NULL, 0, NULL);
}

/* _view(shape, strides, offset=0, dtype=None): a view of the same memory
 * with other extents and byte strides, starting `offset` bytes after the
 * first element, of another dtype if given (aligned to its size); it must
 * lie inside this array's own span (the stdlib's reshape, transpose and
 * complex parts are built on it) */
static PyObject *
DeviceArray_view(RtDeviceArray *self, PyObject *args)
{
    PyObject *shape_o, *strides_o, *dtype_o = Py_None, *v;
    long long offset = 0;
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM], lo, hi, olo, ohi;
    int nd, nds;
    DType dt = self->dtype;
    if (!PyArg_ParseTuple(args, "OO|LO:_view", &shape_o, &strides_o, &offset, &dtype_o)
        || parse_shape(shape_o, shape, &nd) < 0
        || parse_shape_signed(strides_o, strides, &nds) < 0
        || (dtype_o != Py_None && rt_dtype_from_obj(dtype_o, &dt) < 0)) {
        return NULL;
    }
    if (nd != nds) {
        PyErr_SetString(PyExc_ValueError, "_view(): shape and strides differ in length");
        return NULL;
    }
    int64_t itemsize = cj_dtypes[dt].size;
    if (shape_size(nd, shape) > 0) {
        span(nd, shape, strides, itemsize, &lo, &hi);
        span(self->ndim, self->shape, self->strides, cj_dtypes[self->dtype].size, &olo, &ohi);
        if (self->size == 0 || offset + lo < olo || offset + hi > ohi) {
            PyErr_SetString(PyExc_ValueError, "_view(): the view reaches outside the array");
            return NULL;
        }
        int aligned = (self->ptr + (CUdeviceptr)offset) % (CUdeviceptr)itemsize == 0;
        for (int i = 0; i < nd; i++) {
            aligned &= strides[i] % itemsize == 0;
        }
        if (!aligned) {
            PyErr_SetString(PyExc_ValueError, "_view(): elements would not be aligned");
            return NULL;
        }
    } else {
        offset = 0;
    }
    v = make_view(self, self->ptr + (CUdeviceptr)offset, nd, shape, strides);
    if (v && dt != self->dtype) {
        RtDeviceArray *a = (RtDeviceArray *)v;
        a->dtype = dt;
        rt_contiguity(nd, shape, strides, itemsize, &a->c_contig, &a->f_contig);
    }
    return v;
}

static PyNumberMethods DeviceArray_as_number = {
    .nb_add = DeviceArray_add,
    .nb_subtract = DeviceArray_sub,
    .nb_multiply = DeviceArray_mul,
    .nb_remainder = DeviceArray_mod,
    .nb_divmod = DeviceArray_divmod,
    .nb_power = DeviceArray_pow,
    .nb_negative = DeviceArray_neg,
    .nb_positive = DeviceArray_pos,
    .nb_absolute = DeviceArray_abs,
    .nb_bool = (inquiry)DeviceArray_bool,
    .nb_invert = DeviceArray_invert,
    .nb_lshift = DeviceArray_lshift,
    .nb_rshift = DeviceArray_rshift,
    .nb_and = DeviceArray_and,
    .nb_xor = DeviceArray_xor,
    .nb_or = DeviceArray_or,
    .nb_int = (unaryfunc)DeviceArray_int,
    .nb_float = (unaryfunc)DeviceArray_float,
    .nb_inplace_add = DeviceArray_iadd,
    .nb_inplace_subtract = DeviceArray_isub,
    .nb_inplace_multiply = DeviceArray_imul,
    .nb_inplace_remainder = DeviceArray_imod,
    .nb_inplace_power = DeviceArray_ipow,
    .nb_inplace_lshift = DeviceArray_ilshift,
    .nb_inplace_rshift = DeviceArray_irshift,
    .nb_inplace_and = DeviceArray_iand,
    .nb_inplace_xor = DeviceArray_ixor,
    .nb_inplace_or = DeviceArray_ior,
    .nb_floor_divide = DeviceArray_floordiv,
    .nb_true_divide = DeviceArray_truediv,
    .nb_inplace_floor_divide = DeviceArray_ifloordiv,
    .nb_inplace_true_divide = DeviceArray_itruediv,
};

static PySequenceMethods DeviceArray_as_sequence = {
    .sq_length = (lenfunc)DeviceArray_length,
    .sq_item = (ssizeargfunc)DeviceArray_item_at,
};

static PyMappingMethods DeviceArray_as_mapping = {
    .mp_length = (lenfunc)DeviceArray_length,
    .mp_subscript = (binaryfunc)DeviceArray_subscript,
    .mp_ass_subscript = (objobjargproc)DeviceArray_ass_subscript,
};

static PyGetSetDef DeviceArray_getset[] = {
    {"shape", (getter)DeviceArray_get_shape, NULL, "tuple of extents", NULL},
    {"strides", (getter)DeviceArray_get_strides, NULL, "tuple of byte strides", NULL},
    {"dtype", (getter)DeviceArray_get_dtype, NULL, "numpy.dtype of the elements", NULL},
    {"size", (getter)DeviceArray_get_size, NULL, "number of elements", NULL},
    {"ndim", (getter)DeviceArray_get_ndim, NULL, "number of dimensions", NULL},
    {"itemsize", (getter)DeviceArray_get_itemsize, NULL, "bytes per element", NULL},
    {"nbytes", (getter)DeviceArray_get_nbytes, NULL, "size * itemsize", NULL},
    {"ptr", (getter)DeviceArray_get_ptr, NULL, "device address of the first element", NULL},
    {"device", (getter)DeviceArray_get_device, NULL, "the cujit.Device holding the data", NULL},
    {"base", (getter)DeviceArray_get_base, NULL, "the array a view looks into, or None", NULL},
    {"c_contiguous", (getter)DeviceArray_get_c_contig, NULL, "C-contiguous?", NULL},
    {"f_contiguous", (getter)DeviceArray_get_f_contig, NULL, "Fortran-contiguous?", NULL},
    {"__cuda_array_interface__", (getter)DeviceArray_get_cai, NULL, "CUDA Array Interface v3",
     NULL},
    {"T", (getter)DeviceArray_get_T, NULL, "the transposed view (axes reversed)", NULL},
    {"real", (getter)DeviceArray_get_real, NULL,
     "the real parts (a view of a complex array; the array itself otherwise)", NULL},
    {"imag", (getter)DeviceArray_get_imag, NULL,
     "the imaginary parts (a view of a complex array; zeros otherwise)", NULL},
    {NULL},
};

static PyMethodDef DeviceArray_methods[] = {
    {"copy_to_host", (PyCFunction)(void (*)(void))DeviceArray_copy_to_host,
     METH_VARARGS | METH_KEYWORDS,
     "copy_to_host(ary=None, stream=None): a NumPy array with the data (into ary if given)"},
    {"copy_to_device", (PyCFunction)(void (*)(void))DeviceArray_copy_to_device,
     METH_VARARGS | METH_KEYWORDS,
     "copy_to_device(ary, stream=None): copy host or device data (same shape) into this array"},
    {"copy", (PyCFunction)(void (*)(void))DeviceArray_copy, METH_VARARGS | METH_KEYWORDS,
     "copy(order='C', stream=None): a copy on the device ('F', or 'A' / 'K': the array's "
     "order)"},
    {"item", (PyCFunction)DeviceArray_item, METH_NOARGS, "the one element as a Python scalar"},
    {"__dlpack__", (PyCFunction)(void (*)(void))DeviceArray_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)"},
    {"__dlpack_device__", (PyCFunction)DeviceArray_dlpack_device, METH_NOARGS,
     "(kDLCUDA, device id)"},
    {"__array__", (PyCFunction)(void (*)(void))DeviceArray_array, METH_VARARGS | METH_KEYWORDS,
     "refuses: device data is copied to the host only explicitly"},
    {"_view", (PyCFunction)DeviceArray_view, METH_VARARGS,
     "_view(shape, strides, offset=0, dtype=None): a view of this array's memory (inside "
     "its span)"},
#define FWD(name, fn, doc) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc},
    FWD("sum", DeviceArray_m_sum, "sum(axis=None, dtype=None, out=None, keepdims=False)")
    FWD("prod", DeviceArray_m_prod, "prod(axis=None, dtype=None, out=None, keepdims=False)")
    FWD("min", DeviceArray_m_min, "min(axis=None, out=None, keepdims=False)")
    FWD("max", DeviceArray_m_max, "max(axis=None, out=None, keepdims=False)")
    FWD("mean", DeviceArray_m_mean, "mean(axis=None, dtype=None, out=None, keepdims=False)")
    FWD("argmin", DeviceArray_m_argmin, "argmin(axis=None, out=None, *, keepdims=False)")
    FWD("argmax", DeviceArray_m_argmax, "argmax(axis=None, out=None, *, keepdims=False)")
    FWD("any", DeviceArray_m_any, "any(axis=None, out=None, keepdims=False)")
    FWD("all", DeviceArray_m_all, "all(axis=None, out=None, keepdims=False)")
    FWD("cumsum", DeviceArray_m_cumsum, "cumsum(axis=None, dtype=None, out=None)")
    FWD("astype", DeviceArray_m_astype, "astype(dtype, order='K', copy=True): a converted copy")
    FWD("fill", DeviceArray_m_fill, "fill(value): set every element to value")
    FWD("reshape", DeviceArray_m_reshape,
        "reshape(*shape, order='C'): a view when the layout allows, else a copy")
    FWD("ravel", DeviceArray_m_ravel, "ravel(order='C'): 1-d; a view when the layout allows")
    FWD("flatten", DeviceArray_m_flatten, "flatten(order='C'): a 1-d copy")
    FWD("transpose", DeviceArray_m_transpose, "transpose(*axes): a view with permuted axes")
    FWD("squeeze", DeviceArray_m_squeeze, "squeeze(axis=None): a view without extents of 1")
    FWD("__array_ufunc__", DeviceArray_m_array_ufunc,
        "NumPy ufuncs (numpy.sqrt(a), numpy.add(a, b, out=c), numpy.add.reduce(a)) run as "
        "cujit's kernels")
    FWD("__array_function__", DeviceArray_m_array_function,
        "numpy.sum, mean, where, clip, ... run as cujit's; other NumPy functions as NumPy's "
        "own code (implicit copies to the host are refused)")
#undef FWD
    {NULL},
};

PyTypeObject rt_DeviceArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.DeviceArray",
    .tp_basicsize = sizeof(RtDeviceArray),
    .tp_dealloc = (destructor)DeviceArray_dealloc,
    .tp_repr = (reprfunc)DeviceArray_repr,
    .tp_as_number = &DeviceArray_as_number,
    .tp_as_sequence = &DeviceArray_as_sequence,
    .tp_as_mapping = &DeviceArray_as_mapping,
    .tp_richcompare = DeviceArray_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An n-dimensional array in CUDA device memory.  Create with cujit.to_device, "
              "empty, zeros, ones, full or the *_like functions.",
    .tp_weaklistoffset = offsetof(RtDeviceArray, weakreflist),
    .tp_methods = DeviceArray_methods,
    .tp_getset = DeviceArray_getset,
};

/* ---- module-level creation functions ---- */

/* to_device(obj, stream=None): a new DeviceArray (C-contiguous, or Fortran
 * when obj is) with a copy of obj: host data (a buffer or anything
 * numpy.asarray takes) or device data */
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
        if (a && assign(a, obj, s) < 0) {
            Py_CLEAR(a);
        }
        return (PyObject *)a;
    }
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        PyObject *np = rt_numpy();
        PyErr_Clear();
        conv = np ? PyObject_CallMethod(np, "asarray", "O", obj) : NULL;
        if (!conv || PyObject_GetBuffer(conv, &view, PyBUF_RECORDS_RO) < 0) {
            Py_XDECREF(conv);
            return NULL;
        }
    }
    if (view.ndim > RT_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported", RT_MAXDIM);
        goto done;
    }
    if (rt_dtype_from_format(view.format, view.itemsize, &dt) < 0) {
        goto done;
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
        return NULL;
    }
    return rt_array_new(c->ndim, c->shape, c->dt, c->order == 'F' ? 'F' : 'C', dev, c->s, c->ref);
}

static int
creation_args(PyObject *shape, PyObject *dtype, DType dflt, const char *order, PyObject *stream,
              Creation *c)
{
    c->dt = dflt;
    if (parse_shape(shape, c->shape, &c->ndim) < 0
        || (dtype && dtype != Py_None && rt_dtype_from_obj(dtype, &c->dt) < 0)
        || parse_order(order, &c->order) < 0 || creation_stream(stream, &c->s, &c->ref) < 0) {
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
    if (fill_contig(a->ptr, a->size, cj_dtypes[a->dtype].size, elem, a->stream) < 0) {
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
        int r = dt ? parse_shape(shape, c->shape, &c->ndim) : -1;
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
        || parse_order(order ? order : "K", &c->order) < 0
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
        if (method_stream(d, so, &s) < 0) {
            return NULL;
        }
        return to_host(d, NULL, s);
    }
    int on_device = PyObject_HasAttrString(a, "__cuda_array_interface__");
    if (!on_device && (!rt_is_array(a) || PyObject_CheckBuffer(a))) {
        np = rt_numpy();
        return np ? PyObject_CallMethod(np, "asarray", "O", a) : NULL;
    }
    /* a foreign device array: view it as a DeviceArray, then copy */
    void *h = NULL;
    RtArray in;
    if ((so && so != Py_None && rt_get_stream(so, &h) < 0) || rt_ensure_context() < 0
        || rt_get_array(a, &in, h, "asnumpy") < 0) {
        return NULL;
    }
    RtDeviceArray *v = array_struct(in.ndim, in.shape, in.strides, in.dtype, rt_ensure_context());
    if (v) {
        v->ptr = (CUdeviceptr)(uintptr_t)in.ptr;
        out = to_host(v, NULL, h);
        Py_DECREF(v);
    }
    rt_array_release(&in, h, 0);
    return out;
}
