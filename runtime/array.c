/* array.c - the cujit.DeviceArray type: an n-d view of device memory
 * (shape, byte strides, dtype), owning its allocation or viewing another
 * array's.  Here: its lifetime, attributes (with __cuda_array_interface__ v3),
 * repr, copy_to_host, and the slot and method tables that name the functions
 * of array_ops.c, array_index.c and array_dlpack.c. */
#include "rt_impl.h"

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

static PyObject *
DeviceArray_copy_to_host(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary = NULL, *so = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:copy_to_host", kwlist, &ary, &so)
        || rt_method_stream(self, so, &s) < 0) {
        return NULL;
    }
    return rt_to_host(self, ary, s);
}

/* ---- attributes ---- */

static PyObject *
DeviceArray_get_shape(RtDeviceArray *self, void *c)
{
    return rt_shape_tuple(self->ndim, self->shape);
}

static PyObject *
DeviceArray_get_strides(RtDeviceArray *self, void *c)
{
    return rt_shape_tuple(self->ndim, self->strides);
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

/* Numba's names: device_ctypes_pointer (a ctypes.c_void_p of ptr),
 * alloc_size (bytes of the allocation the array lies in: its owner's),
 * stream (the stream it was made on: its Python object, else the handle, 0
 * for the default stream) */
static PyObject *
DeviceArray_get_ctypes_ptr(RtDeviceArray *self, void *c)
{
    PyObject *ct = PyImport_ImportModule("ctypes");
    PyObject *r = ct ? PyObject_CallMethod(ct, "c_void_p", "K",
                                           (unsigned long long)self->ptr) : NULL;
    Py_XDECREF(ct);
    return r;
}

static PyObject *
DeviceArray_get_alloc_size(RtDeviceArray *self, void *c)
{
    RtDeviceArray *root = self;
    while (root->base && rt_is_device_array(root->base)) {
        root = (RtDeviceArray *)root->base;
    }
    return PyLong_FromLongLong(root->size * cj_dtypes[root->dtype].size);
}

/* Numba's gpu_data is the memory object views share; here the address of
 * the array the views look into, equal for all views of one allocation: a
 * cujit._gpudata.GpuData (an int with Numba's .device_pointer), which also
 * knows this view's first byte and extent (what CUDA IPC shares of it) and
 * the size of the allocation when the root array owns it (0 otherwise) */
static PyObject *
DeviceArray_get_gpu_data(RtDeviceArray *self, void *c)
{
    static PyObject *cls;           /* GpuData, kept for the process */
    RtDeviceArray *root = self;
    while (root->base && rt_is_device_array(root->base)) {
        root = (RtDeviceArray *)root->base;
    }
    if (!cls) {
        PyObject *mod = PyImport_ImportModule("cujit._gpudata");
        cls = mod ? PyObject_GetAttrString(mod, "GpuData") : NULL;
        Py_XDECREF(mod);
        if (!cls) {
            return NULL;
        }
    }
    int64_t lo, hi;
    rt_span(self->ndim, self->shape, self->strides, cj_dtypes[self->dtype].size, &lo, &hi);
    long long owned = root->alloc ? root->size * cj_dtypes[root->dtype].size : 0;
    return PyObject_CallFunction(cls, "KKLL", (unsigned long long)root->ptr,
                                 (unsigned long long)self->ptr, (long long)(self->size ? hi : 0),
                                 owned);
}

static PyObject *
DeviceArray_get_stream(RtDeviceArray *self, void *c)
{
    if (self->stream_ref) {
        return Py_NewRef(self->stream_ref);
    }
    return PyLong_FromVoidPtr(self->stream);
}

/* NumPy's flags as a dict (what Numba's device arrays give) */
static PyObject *
DeviceArray_get_flags(RtDeviceArray *self, void *c)
{
    return Py_BuildValue("{s:O,s:O,s:O,s:O,s:O}", "C_CONTIGUOUS",
                         self->c_contig ? Py_True : Py_False, "F_CONTIGUOUS",
                         self->f_contig ? Py_True : Py_False, "OWNDATA",
                         self->alloc ? Py_True : Py_False, "WRITEABLE", Py_True,
                         "ALIGNED", Py_True);
}

/* a.get_ipc_handle(): cujit._ipc.array_handle(a) (Numba's IpcArrayHandle) */
static PyObject *
DeviceArray_get_ipc_handle(RtDeviceArray *self, PyObject *noargs)
{
    PyObject *mod = PyImport_ImportModule("cujit._ipc");
    PyObject *r = mod ? PyObject_CallMethod(mod, "array_handle", "O", (PyObject *)self) : NULL;
    Py_XDECREF(mod);
    return r;
}

static PyObject *
DeviceArray_get_c_contig(RtDeviceArray *self, void *c)
{
    return PyBool_FromLong(self->c_contig);
}

/* ---- Numba's DeviceNDArray methods ---- */

static PyObject *
DeviceArray_is_c_contiguous(RtDeviceArray *self, PyObject *noargs)
{
    return PyBool_FromLong(self->c_contig);
}

static PyObject *
DeviceArray_is_f_contiguous(RtDeviceArray *self, PyObject *noargs)
{
    return PyBool_FromLong(self->f_contig);
}

/* a view of the whole array whose methods default to `so`'s stream (None
 * or 0: the array's own); the view keeps the stream's object alive */
static PyObject *
bound_view(RtDeviceArray *self, PyObject *so)
{
    void *h = NULL;
    if (so && so != Py_None && rt_get_stream(so, &h) < 0) {
        return NULL;
    }
    RtDeviceArray *v = (RtDeviceArray *)rt_make_view(self, self->ptr, self->ndim, self->shape,
                                                     self->strides);
    if (v && h) {
        v->stream = (CUstream)h;
        v->stream_ref = PyLong_Check(so) ? NULL : Py_NewRef(so);
    }
    return (PyObject *)v;
}

/* a.bind(stream=0): Numba's: the array with later operations on stream */
static PyObject *
DeviceArray_bind(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *so = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:bind", kwlist, &so)) {
        return NULL;
    }
    return bound_view(self, so);
}

/* a.getitem(item, stream=0): a[item], its copy (an element read) on stream */
static PyObject *
DeviceArray_getitem(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"item", "stream", NULL};
    PyObject *item, *so = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:getitem", kwlist, &item, &so)) {
        return NULL;
    }
    PyObject *v = bound_view(self, so);
    PyObject *r = v ? PyObject_GetItem(v, item) : NULL;
    Py_XDECREF(v);
    return r;
}

/* a.setitem(key, value, stream=0): a[key] = value, the copy on stream */
static PyObject *
DeviceArray_setitem(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"key", "value", "stream", NULL};
    PyObject *key, *value, *so = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:setitem", kwlist, &key, &value, &so)) {
        return NULL;
    }
    PyObject *v = bound_view(self, so);
    int rc = v ? PyObject_SetItem(v, key, value) : -1;
    Py_XDECREF(v);
    return rc < 0 ? NULL : Py_NewRef(Py_None);
}

/* a.split(section, stream=0): Numba's: a 1-d contiguous array cut into views
 * of `section` elements, the last one shorter when they do not divide it */
static PyObject *
DeviceArray_split(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"section", "stream", NULL};
    long long section;
    PyObject *so = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "L|O:split", kwlist, &section, &so)) {
        return NULL;
    }
    if (self->ndim != 1 || !self->c_contig) {
        return PyErr_Format(PyExc_ValueError, "split(): only a 1-d contiguous array can be "
                            "split (this one has %d dimension%s%s); ravel() it first",
                            self->ndim, self->ndim == 1 ? "" : "s",
                            self->c_contig ? "" : " and is not contiguous");
    }
    if (section <= 0) {
        return PyErr_Format(PyExc_ValueError, "split(): the section must be positive, got %lld",
                            section);
    }
    PyObject *base = bound_view(self, so), *out = base ? PyList_New(0) : NULL;
    int64_t n = self->shape[0], stride = self->strides[0];
    for (int64_t b = 0; out && b < n; b += section) {
        int64_t len = n - b < section ? n - b : section;
        RtDeviceArray *bv = (RtDeviceArray *)base;
        PyObject *v = rt_make_view(bv, bv->ptr + (CUdeviceptr)(b * stride), 1, &len, &stride);
        if (!v || PyList_Append(out, v) < 0) {
            Py_CLEAR(out);
        }
        Py_XDECREF(v);
    }
    Py_XDECREF(base);
    return out;
}

static PyObject *
DeviceArray_get_f_contig(RtDeviceArray *self, void *c)
{
    return PyBool_FromLong(self->f_contig);
}

/* CAI v3.  The data is written by work on the array's stream, which may
 * still be running, so "stream" names a stream cujit made; an array of the
 * default stream says None, as Numba's do (ARCHITECTURE.md: the legacy
 * default stream orders itself with every blocking stream). */
/* a record dtype's descr for __cuda_array_interface__ (dtype.descr); NULL
 * without an exception for a number's dtype */
static PyObject *
record_descr(DType dt)
{
    if (!cj_is_record(dt)) {
        return NULL;
    }
    PyObject *d = rt_dtype_object(dt);
    PyObject *descr = d ? PyObject_GetAttrString(d, "descr") : NULL;
    Py_XDECREF(d);
    return descr;
}

static PyObject *
DeviceArray_get_cai(RtDeviceArray *self, void *c)
{
    PyObject *shape = rt_shape_tuple(self->ndim, self->shape), *strides = NULL, *stream, *d = NULL;
    if (!shape) {
        return NULL;
    }
    if (self->c_contig) {
        strides = Py_NewRef(Py_None);
    } else {
        strides = rt_shape_tuple(self->ndim, self->strides);
    }
    CUstream s = rt_norm_stream(self->stream);
    stream = s == RT_STREAM_LEGACY ? Py_NewRef(Py_None) : PyLong_FromVoidPtr(s);
    if (strides && stream) {
        const char *ts = rt_dtype_typestr(self->dtype);
        PyObject *descr = record_descr(self->dtype);
        if (descr) {
            d = Py_BuildValue("{s:N,s:s,s:N,s:(K,O),s:N,s:i,s:N}", "shape", shape, "typestr",
                              ts, "descr", descr, "data", self->ptr, Py_False, "strides",
                              strides, "version", 3, "stream", stream);
        } else if (PyErr_Occurred()) {
            Py_DECREF(shape);
            Py_DECREF(strides);
            Py_DECREF(stream);
        } else {
            d = Py_BuildValue("{s:N,s:s,s:[(s,s)],s:(K,O),s:N,s:i,s:N}", "shape", shape,
                              "typestr", ts, "descr", "", ts, "data", self->ptr, Py_False,
                              "strides", strides, "version", 3, "stream", stream);
        }
        return d;
    }
    Py_DECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(stream);
    return NULL;
}

/* ---- repr ---- */

#define REPR_MAX_ELEMS 1000

static PyObject *
repr_shape(RtDeviceArray *self)
{
    PyObject *shape = rt_shape_tuple(self->ndim, self->shape), *r;
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
    host = rt_to_host(self, NULL, self->stream);
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

#define METHOD(fname, op) \
    static PyObject *fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                           PyObject *kwnames) \
    { \
        return rt_forward_method(op, self, args, nargs, kwnames); \
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
    return rt_forward_method(AOP_M_TRANSPOSE, self, NULL, 0, NULL);
}

static PyObject *
DeviceArray_get_real(PyObject *self, void *c)
{
    return rt_forward_method(AOP_M_REAL, self, NULL, 0, NULL);
}

static PyObject *
DeviceArray_get_imag(PyObject *self, void *c)
{
    return rt_forward_method(AOP_M_IMAG, self, NULL, 0, NULL);
}

static PyObject *
DeviceArray_get_numba(RtDeviceArray *self, void *c)
{
    return PyBool_FromLong(self->numba_rules);
}

static PyGetSetDef DeviceArray_getset[] = {
    {"_numba", (getter)DeviceArray_get_numba, NULL,
     "whether the array follows Numba's host rules (made through cujit.cuda)", NULL},
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
    {"device_ctypes_pointer", (getter)DeviceArray_get_ctypes_ptr, NULL,
     "ptr as a ctypes.c_void_p (Numba's name)", NULL},
    {"alloc_size", (getter)DeviceArray_get_alloc_size, NULL,
     "bytes of the allocation the array lies in (Numba's name)", NULL},
    {"gpu_data", (getter)DeviceArray_get_gpu_data, NULL,
     "the device address of the array that views of it share (Numba's attribute, there "
     "the memory object): equal for views of one allocation", NULL},
    {"flags", (getter)DeviceArray_get_flags, NULL,
     "{'C_CONTIGUOUS': ..., 'F_CONTIGUOUS': ..., 'OWNDATA': ...}, as NumPy's flags", NULL},
    {"stream", (getter)DeviceArray_get_stream, NULL,
     "the stream the array was made on (its object, or its handle; 0: the default)", NULL},
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
    {"copy_to_device", (PyCFunction)(void (*)(void))rt_DeviceArray_copy_to_device,
     METH_VARARGS | METH_KEYWORDS,
     "copy_to_device(ary, stream=None): copy host or device data (same shape) into this array"},
    {"copy", (PyCFunction)(void (*)(void))rt_DeviceArray_copy, METH_VARARGS | METH_KEYWORDS,
     "copy(order='C', stream=None): a copy on the device ('F', or 'A' / 'K': the array's "
     "order)"},
    {"item", (PyCFunction)rt_DeviceArray_item, METH_NOARGS, "the one element as a Python scalar"},
    {"is_c_contiguous", (PyCFunction)DeviceArray_is_c_contiguous, METH_NOARGS,
     "is_c_contiguous(): C-contiguous? (Numba's name)"},
    {"is_f_contiguous", (PyCFunction)DeviceArray_is_f_contiguous, METH_NOARGS,
     "is_f_contiguous(): Fortran-contiguous? (Numba's name)"},
    {"bind", (PyCFunction)(void (*)(void))DeviceArray_bind, METH_VARARGS | METH_KEYWORDS,
     "bind(stream=0): the array, its later operations on stream (Numba's)"},
    {"getitem", (PyCFunction)(void (*)(void))DeviceArray_getitem, METH_VARARGS | METH_KEYWORDS,
     "getitem(item, stream=0): a[item], an element's copy on stream (Numba's)"},
    {"setitem", (PyCFunction)(void (*)(void))DeviceArray_setitem, METH_VARARGS | METH_KEYWORDS,
     "setitem(key, value, stream=0): a[key] = value, the copy on stream (Numba's)"},
    {"split", (PyCFunction)(void (*)(void))DeviceArray_split, METH_VARARGS | METH_KEYWORDS,
     "split(section, stream=0): a 1-d contiguous array as views of section elements, the "
     "last one shorter (Numba's)"},
    {"get_ipc_handle", (PyCFunction)DeviceArray_get_ipc_handle, METH_NOARGS,
     "Numba's IPC export: not supported (NotImplementedError says why)"},
    {"__dlpack__", (PyCFunction)(void (*)(void))rt_DeviceArray_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)"},
    {"__dlpack_device__", (PyCFunction)rt_DeviceArray_dlpack_device, METH_NOARGS,
     "(kDLCUDA, device id)"},
    {"__array__", (PyCFunction)(void (*)(void))rt_DeviceArray_array, METH_VARARGS | METH_KEYWORDS,
     "refuses (device data is copied to the host only explicitly), or copies for an "
     "array made through cujit.cuda, as Numba's"},
    {"_numba_rules", (PyCFunction)rt_DeviceArray_numba_rules, METH_NOARGS,
     "_numba_rules(): marks the array (and its later views) with Numba's host rules: "
     "an element read gives a NumPy scalar, __array__ copies; returns it"},
    {"view", (PyCFunction)rt_DeviceArray_view_as, METH_O,
     "view(dtype): the same memory as another dtype (the same itemsize keeps the shape; "
     "another rescales a contiguous last axis), as NumPy's and Numba's"},
    {"_view", (PyCFunction)rt_DeviceArray_view, METH_VARARGS,
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
    .tp_as_number = &rt_DeviceArray_as_number,
    .tp_as_sequence = &rt_DeviceArray_as_sequence,
    .tp_as_mapping = &rt_DeviceArray_as_mapping,
    .tp_richcompare = rt_DeviceArray_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An n-dimensional array in CUDA device memory.  Create with cujit.to_device, "
              "empty, zeros, ones, full or the *_like functions.",
    .tp_weaklistoffset = offsetof(RtDeviceArray, weakreflist),
    .tp_methods = DeviceArray_methods,
    .tp_getset = DeviceArray_getset,
};
