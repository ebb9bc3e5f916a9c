/* array_index.c - DeviceArray indexing and writes: basic indexing
 * (integers, slices, Ellipsis, None) as views, _view, and a[...] = value,
 * copy_to_device and copy. */
#include "rt_impl.h"

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
        return rt_stdlib_assign(a, v, s);
    }
    if (rt_scalar_to_bytes(v, a->dtype, elem) < 0) {
        return -1;
    }
    return rt_fill_contig(a->ptr, a->size, cj_dtypes[a->dtype].size, elem, s);
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
    if (!rt_same_layout(a->ndim, a->shape, a->strides, in->strides, itemsize)) {
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
    RtDeviceArray *v = rt_array_struct(in->ndim, in->shape, in->strides, in->dtype, dev);
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
    if (strict && rt_check_same(a, in.ndim, in.shape, in.dtype, "copy_to_device") < 0) {
        goto done;
    }
    if (direct_copy(a, &in)) {
        ret = dtod(a, (CUdeviceptr)(uintptr_t)in.ptr, s);
        goto done;
    }
    view = rt_is_device_array(src) ? Py_NewRef(src) : borrowed_view(&in, a->device);
    ret = view ? rt_stdlib_assign(a, view, s) : -1;
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
        return rt_stdlib_assign(a, src, s);
    }
    if (!(np = rt_numpy())) {
        return -1;
    }
    dt = rt_dtype_object(a->dtype);
    shape = rt_shape_tuple(a->ndim, a->shape);
    if (!dt || !shape) {
        goto done;
    }
    h = PyObject_CallMethod(np, "asarray", "OO", src, dt);
    if (h && a->dtype == DT_BF16) {
        Py_SETREF(h, PyObject_CallMethod(h, "view", "s", "uint16"));   /* no buffer of its own */
    }
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
           && rt_buffer_dtype(v, view.format, view.itemsize, &dt) == 0 && dt == a->dtype;
    PyErr_Clear();
    for (int i = 0; same && i < view.ndim; i++) {
        same = view.shape[i] == a->shape[i];
    }
    PyBuffer_Release(&view);
    return same;
}

/* copy_to_device, to_device, copy: device data of a's shape and dtype, host
 * data cast and broadcast (numpy.asarray, numpy.broadcast_to), numbers */
int
rt_assign(RtDeviceArray *a, PyObject *value, CUstream s)
{
    int pushed = 0, ret;
    if (rt_enter_device(a, &pushed, "copying into a device array") < 0) {
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
    if (rt_enter_device(a, &pushed, "writing a[...] = value") < 0) {
        return -1;
    }
    if (plain_number(value, a->dtype)) {
        ret = fill_number(a, value, s);
    } else if (on_device(value)) {
        ret = copy_from_device(a, value, s, 0);
    } else if (host_as_is(a, value)) {
        ret = copy_from_hostobj(a, value, s);
    } else {
        ret = rt_stdlib_assign(a, value, s);
    }
    rt_ctx_leave(pushed);
    return ret;
}

PyObject *
rt_DeviceArray_copy_to_device(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary, *so = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:copy_to_device", kwlist, &ary, &so)
        || rt_method_stream(self, so, &s) < 0 || rt_assign(self, ary, s) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* copy(order='C', stream=None): a new array on the array's own device; one
 * device-to-device copy when the layout allows, else a copy kernel ('A'
 * and 'K': Fortran order for a Fortran-contiguous array, else C) */
PyObject *
rt_DeviceArray_copy(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"order", "stream", NULL};
    PyObject *so = NULL;
    const char *order = NULL;
    char o;
    CUstream s;
    int pushed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zO:copy", kwlist, &order, &so)
        || rt_parse_order(order, &o) < 0 || rt_method_stream(self, so, &s) < 0
        || rt_enter_device(self, &pushed, "copy") < 0) {
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
    return rt_make_view(self, self->ptr + (CUdeviceptr)offset, nd, shape, strides);
}

/* Numba's rule for an array made through cujit.cuda: a read of one element
 * (not of a record) is copied to the host as a NumPy scalar; a view stays a view */
static PyObject *
numba_element(PyObject *view)
{
    RtDeviceArray *v = (RtDeviceArray *)view;
    if (!view || !v->numba_rules || v->ndim != 0 || cj_is_record(v->dtype)) {
        return view;
    }
    PyObject *h = PyObject_CallMethod(view, "copy_to_host", NULL), *r = NULL;
    Py_DECREF(view);
    if (h) {
        PyObject *empty = PyTuple_New(0);
        r = empty ? PyObject_GetItem(h, empty) : NULL;
        Py_XDECREF(empty);
        Py_DECREF(h);
    }
    return r;
}

static PyObject *
DeviceArray_subscript(RtDeviceArray *self, PyObject *key)
{
    return numba_element(index_view(self, key));
}

static PyObject *
DeviceArray_item_at(RtDeviceArray *self, Py_ssize_t i)
{
    PyObject *k = PyLong_FromSsize_t(i), *r;
    if (!k) {
        return NULL;
    }
    r = numba_element(index_view(self, k));
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

/* _view(shape, strides, offset=0, dtype=None): a view of the same memory
 * with other extents and byte strides, starting `offset` bytes after the
 * first element, of another dtype if given (aligned to its size); it must
 * lie inside this array's own span (the stdlib's reshape, transpose and
 * complex parts are built on it) */
PyObject *
rt_DeviceArray_view(RtDeviceArray *self, PyObject *args)
{
    PyObject *shape_o, *strides_o, *dtype_o = Py_None, *v;
    long long offset = 0;
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM], lo, hi, olo, ohi;
    int nd, nds;
    DType dt = self->dtype;
    if (!PyArg_ParseTuple(args, "OO|LO:_view", &shape_o, &strides_o, &offset, &dtype_o)
        || rt_parse_shape(shape_o, shape, &nd) < 0
        || rt_parse_shape_signed(strides_o, strides, &nds) < 0
        || (dtype_o != Py_None && rt_dtype_from_obj(dtype_o, &dt) < 0)) {
        return NULL;
    }
    if (nd != nds) {
        PyErr_SetString(PyExc_ValueError, "_view(): shape and strides differ in length");
        return NULL;
    }
    int64_t itemsize = cj_dtypes[dt].size;
    if (rt_shape_size(nd, shape) > 0) {
        rt_span(nd, shape, strides, itemsize, &lo, &hi);
        rt_span(self->ndim, self->shape, self->strides, cj_dtypes[self->dtype].size, &olo, &ohi);
        if (self->size == 0 || offset + lo < olo || offset + hi > ohi) {
            PyErr_SetString(PyExc_ValueError, "_view(): the view reaches outside the array");
            return NULL;
        }
        /* a record's itemsize need not be a power of two (28 bytes): its
         * elements are aligned to the largest one dividing it */
        int64_t align = itemsize & -itemsize;
        int aligned = (self->ptr + (CUdeviceptr)offset) % (CUdeviceptr)align == 0;
        for (int i = 0; i < nd; i++) {
            aligned &= strides[i] % align == 0;
        }
        if (!aligned) {
            PyErr_SetString(PyExc_ValueError, "_view(): elements would not be aligned");
            return NULL;
        }
    } else {
        offset = 0;
    }
    v = rt_make_view(self, self->ptr + (CUdeviceptr)offset, nd, shape, strides);
    if (v && dt != self->dtype) {
        RtDeviceArray *a = (RtDeviceArray *)v;
        a->dtype = dt;
        rt_contiguity(nd, shape, strides, itemsize, &a->c_contig, &a->f_contig);
    }
    return v;
}

static PyObject *
int_tuple_of(int n, const int64_t *v)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* a.view(dtype): the same memory read as another dtype (NumPy's and Numba's
 * rule: the same itemsize keeps the shape; another one rescales a
 * contiguous last axis) */
PyObject *
rt_DeviceArray_view_as(RtDeviceArray *self, PyObject *dtype_o)
{
    DType dt;
    int nd = self->ndim;
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM], was = cj_dtypes[self->dtype].size;
    if (rt_dtype_from_obj(dtype_o, &dt) < 0) {
        return NULL;
    }
    int64_t now = cj_dtypes[dt].size;
    memcpy(shape, self->shape, sizeof(int64_t) * (size_t)nd);
    memcpy(strides, self->strides, sizeof(int64_t) * (size_t)nd);
    if (was != now) {
        if (nd == 0 || strides[nd - 1] != was || (shape[nd - 1] * was) % now != 0) {
            PyErr_Format(PyExc_ValueError, "view(%R): changing the itemsize (%lld to %lld "
                         "bytes) needs a contiguous last axis whose length in bytes divides "
                         "by the new itemsize", dtype_o, (long long)was, (long long)now);
            return NULL;
        }
        shape[nd - 1] = shape[nd - 1] * was / now;
        strides[nd - 1] = now;
    }
    PyObject *sh = int_tuple_of(nd, shape), *st = int_tuple_of(nd, strides), *args = NULL;
    PyObject *v = NULL;
    if (sh && st && (args = Py_BuildValue("(OOiO)", sh, st, 0, dtype_o))) {
        v = rt_DeviceArray_view(self, args);
    }
    Py_XDECREF(sh);
    Py_XDECREF(st);
    Py_XDECREF(args);
    return v;
}

PySequenceMethods rt_DeviceArray_as_sequence = {
    .sq_length = (lenfunc)DeviceArray_length,
    .sq_item = (ssizeargfunc)DeviceArray_item_at,
};

PyMappingMethods rt_DeviceArray_as_mapping = {
    .mp_length = (lenfunc)DeviceArray_length,
    .mp_subscript = (binaryfunc)DeviceArray_subscript,
    .mp_ass_subscript = (objobjargproc)DeviceArray_ass_subscript,
};
