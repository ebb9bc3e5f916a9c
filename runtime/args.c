/* args.c - array arguments of a launch, from every library that has them.
 *
 * In the order of speed: cujit.DeviceArray (the struct itself); cupy.ndarray
 * and torch.Tensor through their attributes (.data.ptr, .shape, .strides,
 * .dtype; data_ptr(), .shape, .stride(), .dtype), several times cheaper than
 * the dict their __cuda_array_interface__ builds on every read, but without
 * its stream field (as CuPy's own RawKernel); other __cuda_array_interface__
 * producers (Numba, ...), whose stream field the launch stream is made to
 * wait for; __dlpack__ producers on a CUDA device; host data (NumPy arrays,
 * buffers, CPU tensors) copied to the device and back.  What kind a type is
 * gets decided once per type. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_impl.h"

/* K_INST: a type with none of the others' marks, whose instances may carry
 * __cuda_array_interface__ as an instance attribute (Numba's test helper
 * ForeignArray sets it in __init__): asked per object */
enum { K_NONE, K_CUPY, K_TORCH, K_CAI, K_DLPACK, K_HOST, K_HOSTCONV, K_INST };

/* how a CuPy type's fields are read (see "cupy.ndarray's fields" below) */
enum { CF_LEARN, CF_VERIFY, CF_ON, CF_OFF };
#define CUPY_TRIES 64               /* arrays to learn the offsets from */
#define CUPY_VERIFY 32              /* reads made both ways once learnt */

typedef struct {
    int state, tries, verify;
    Py_ssize_t off_dtype, off_data, off_shape, off_strides, off_ptr;
    PyTypeObject *mp_type;          /* cupy.cuda.memory.MemoryPointer */
} CupyFields;

typedef struct {
    PyTypeObject *type;
    int kind;
    CupyFields cupy;                /* K_CUPY only */
} TypeEntry;

#define TYPE_CACHE 64
static TypeEntry tc[TYPE_CACHE];
static int ntc;

static PyObject *s_data, *s_ptr, *s_shape, *s_strides, *s_dtype, *s_data_ptr, *s_stride,
    *s_is_cuda, *s_cai, *s_dlpack, *s_dlpack_device;

static int
intern_names(void)
{
    static const struct {
        PyObject **slot;
        const char *s;
    } names[] = {
        {&s_data, "data"}, {&s_ptr, "ptr"}, {&s_shape, "shape"}, {&s_strides, "strides"},
        {&s_dtype, "dtype"}, {&s_data_ptr, "data_ptr"}, {&s_stride, "stride"},
        {&s_is_cuda, "is_cuda"}, {&s_cai, "__cuda_array_interface__"},
        {&s_dlpack, "__dlpack__"}, {&s_dlpack_device, "__dlpack_device__"},
    };
    if (s_dlpack_device) {
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!*names[i].slot && !(*names[i].slot = PyUnicode_InternFromString(names[i].s))) {
            return -1;
        }
    }
    return 0;
}

/* a heap type's __module__ and __name__ are module and name */
static int
type_is(PyTypeObject *t, const char *module, const char *name)
{
    PyObject *m, *n;
    int r = 0;
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        size_t ml = strlen(module);
        return strncmp(t->tp_name, module, ml) == 0 && t->tp_name[ml] == '.'
               && strcmp(t->tp_name + ml + 1, name) == 0;
    }
    m = PyObject_GetAttrString((PyObject *)t, "__module__");
    n = m ? PyObject_GetAttrString((PyObject *)t, "__name__") : NULL;
    if (m && n && PyUnicode_Check(m) && PyUnicode_Check(n)) {
        r = PyUnicode_CompareWithASCIIString(m, module) == 0
            && PyUnicode_CompareWithASCIIString(n, name) == 0;
    }
    Py_XDECREF(m);
    Py_XDECREF(n);
    PyErr_Clear();
    return r;
}

static int
type_has(PyTypeObject *t, const char *attr)
{
    int r = PyObject_HasAttrString((PyObject *)t, attr);
    PyErr_Clear();
    return r;
}

static int
classify_type(PyTypeObject *t)
{
    PyObject *mro = t->tp_mro;
    for (Py_ssize_t i = 0; mro && PyTuple_Check(mro) && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *b = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (type_is(b, "cupy", "ndarray") || type_is(b, "cupy._core.core", "_ndarray_base")
            || type_is(b, "cupy._core.core", "ndarray")) {
            return K_CUPY;
        }
        if (type_is(b, "torch", "Tensor") || type_is(b, "torch._C", "TensorBase")
            || type_is(b, "torch._C", "_TensorBase")) {
            return K_TORCH;
        }
        if (type_is(b, "numpy", "ndarray")) {
            /* a NumPy array the device addresses (managed or mapped memory,
             * cujit._hostmem) is read through its interface, not copied */
            return type_has(t, "__cuda_array_interface__") ? K_CAI : K_HOST;
        }
        if (type_is(b, "numpy", "void")) {
            return K_HOSTCONV;          /* a record: np.asarray views its memory */
        }
        if (type_is(b, "numpy", "generic")) {
            return K_NONE;              /* NumPy scalars are scalars */
        }
    }
    if (t == &PyBytes_Type || t == &PyByteArray_Type || t == &PyUnicode_Type
        || PyType_IsSubtype(t, &PyLong_Type) || PyType_IsSubtype(t, &PyFloat_Type)
        || PyType_IsSubtype(t, &PyComplex_Type)) {
        return K_NONE;
    }
    if (type_has(t, "__cuda_array_interface__")) {
        return K_CAI;
    }
    if (type_has(t, "__dlpack__") && type_has(t, "__dlpack_device__")) {
        return K_DLPACK;
    }
    if (t->tp_as_buffer && t->tp_as_buffer->bf_getbuffer) {
        return K_HOST;
    }
    if (type_has(t, "__array__")) {
        return K_HOSTCONV;
    }
    if (t == &PyBool_Type || t == Py_TYPE(Py_None) || PyType_IsSubtype(t, &PyTuple_Type)
        || PyType_IsSubtype(t, &PyList_Type) || PyType_IsSubtype(t, &PyDict_Type)
        || PyType_IsSubtype(t, &PyType_Type) || PyType_IsSubtype(t, &PyFunction_Type)) {
        return K_NONE;
    }
    return K_INST;
}

static int cupy_fields_qualify(PyTypeObject *t);

/* o's kind; *entry its type's cache entry (NULL when the cache is full) */
static int
kind_of_entry(PyObject *o, TypeEntry **entry)
{
    PyTypeObject *t = Py_TYPE(o);
    *entry = NULL;
    for (int i = 0; i < ntc; i++) {
        if (tc[i].type == t) {
            *entry = &tc[i];
            return tc[i].kind;
        }
    }
    int k = classify_type(t);
    if (ntc < TYPE_CACHE) {
        TypeEntry *e = &tc[ntc++];
        Py_INCREF(t);               /* the pointer must stay this type's */
        memset(e, 0, sizeof *e);
        e->type = t;
        e->kind = k;
        e->cupy.state = k == K_CUPY && cupy_fields_qualify(t) ? CF_LEARN : CF_OFF;
        e->cupy.tries = CUPY_TRIES;
        *entry = e;
    }
    return k;
}

static int
kind_of(PyObject *o)
{
    TypeEntry *e;
    int k = kind_of_entry(o, &e);
    if (k == K_INST) {
        /* an instance attribute, never the type's (that is K_CAI) */
        k = intern_names() == 0 && PyObject_HasAttr(o, s_cai) ? K_CAI : K_NONE;
        PyErr_Clear();
    }
    return k;
}

int
rt_is_array(PyObject *o)
{
    if (Py_IS_TYPE(o, &rt_DeviceArray_Type)) {
        return 1;
    }
    return kind_of(o) != K_NONE;
}

/* ---- readers ---- */

static int
arg_error(const char *what, const char *fmt, PyObject *o)
{
    PyObject *msg = PyUnicode_FromFormat(fmt, Py_TYPE(o)->tp_name);
    if (msg) {
        PyErr_Format(PyExc_TypeError, "%s: %U", what, msg);
        Py_DECREF(msg);
    }
    return -1;
}

/* a tuple (or sequence) of ints into v, scaled by `scale`; the count or -1 */
static int
int_tuple(PyObject *t, int64_t *v, int64_t scale, const char *what)
{
    PyObject *seq = PyTuple_Check(t) ? Py_NewRef(t) : PySequence_Tuple(t);
    if (!seq) {
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n > RT_MAXDIM) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: at most %d dimensions are supported", what, RT_MAXDIM);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long x = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        v[i] = x * scale;
    }
    Py_DECREF(seq);
    return (int)n;
}

static void *
as_ptr(PyObject *o)
{
    unsigned long long p = PyLong_AsUnsignedLongLong(o);
    if (p == (unsigned long long)-1 && PyErr_Occurred()) {
        return NULL;
    }
    return (void *)(uintptr_t)p;
}

static void
finish(RtArray *out)
{
    rt_contiguity(out->ndim, out->shape, out->strides, cj_dtypes[out->dtype].size,
                  &out->c_contig, &out->f_contig);
}

static void
c_layout(RtArray *out)
{
    int64_t s = cj_dtypes[out->dtype].size;
    for (int i = out->ndim - 1; i >= 0; i--) {
        out->strides[i] = s;
        s *= out->shape[i] > 1 ? out->shape[i] : 1;
    }
}

static int
dtype_attr(PyObject *o, DType *dt)
{
    PyObject *d = PyObject_GetAttr(o, s_dtype);
    if (!d) {
        return -1;
    }
    int r = rt_dtype_from_obj(d, dt);
    Py_DECREF(d);
    return r;
}

/* cupy.ndarray: .data.ptr, .shape, .strides, .dtype */
static int
from_cupy(PyObject *o, RtArray *out, const char *what)
{
    PyObject *data = PyObject_GetAttr(o, s_data), *p = NULL, *shape = NULL, *strides = NULL;
    int r = -1;
    if (!data || !(p = PyObject_GetAttr(data, s_ptr)) || !(shape = PyObject_GetAttr(o, s_shape))
        || !(strides = PyObject_GetAttr(o, s_strides))) {
        goto done;
    }
    out->ptr = as_ptr(p);
    if (PyErr_Occurred() || dtype_attr(o, &out->dtype) < 0) {
        goto done;
    }
    out->ndim = int_tuple(shape, out->shape, 1, what);
    if (out->ndim < 0 || int_tuple(strides, out->strides, 1, what) != out->ndim) {
        goto done;
    }
    finish(out);
    r = 0;
done:
    Py_XDECREF(data);
    Py_XDECREF(p);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return r;
}

/* ---- cupy.ndarray's fields, read in place ----
 *
 * A CuPy array is a Cython object: its dtype, its MemoryPointer (whose first
 * field of interest is the device address) and two std::vector<Py_ssize_t>
 * (shape, strides) sit at fixed offsets in the object.  Going through the
 * attributes instead costs five lookups, two tuples built anew and a PyLong:
 * most of a launch's host budget.  CuPy does not publish the offsets, so they
 * are learnt, per type, from an array that was also read through the
 * attributes: each field must be found at exactly one offset (candidate
 * vector buffers are read through a pipe, which fails instead of
 * faulting), and then the next CUPY_VERIFY reads of that type are made both
 * ways and compared.  Any doubt leaves the type on the attribute path for
 * good.  A type qualifies only when none of data/shape/strides/dtype is
 * redefined below cupy._core.core._ndarray_base.  The fields are read anew
 * on every launch, so `a.shape = ...` in place is seen.  CUJIT_CUPY_FIELDS=0
 * turns this off. */

/* Is `name` found first in cupy._core.core._ndarray_base along t's MRO? */
static int
defined_in_ndarray_base(PyTypeObject *t, const char *name)
{
    PyObject *mro = t->tp_mro;
    for (Py_ssize_t i = 0; mro && PyTuple_Check(mro) && i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *b = PyTuple_GET_ITEM(mro, i);
        PyObject *d = PyObject_GetAttrString(b, "__dict__");
        int has = d ? PyMapping_HasKeyString(d, name) : 0;
        Py_XDECREF(d);
        PyErr_Clear();
        if (has) {
            return type_is((PyTypeObject *)b, "cupy._core.core", "_ndarray_base");
        }
    }
    return 0;
}

static int
cupy_fields_qualify(PyTypeObject *t)
{
    static const char *const names[] = {"data", "shape", "strides", "dtype"};
    if (sizeof(Py_ssize_t) != sizeof(int64_t) || rt_env_off(getenv("CUJIT_CUPY_FIELDS"))) {
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!defined_in_ndarray_base(t, names[i])) {
            return 0;
        }
    }
    return 1;
}

/* n (<= PIPE_BUF) bytes at src, or -1 where they cannot be read: through a
 * pipe, whose write() fails with EFAULT instead of faulting (and, unlike
 * process_vm_readv, no seccomp profile forbids it) */
static int
safe_read(void *dst, const void *src, size_t n)
{
    int fd[2], ok;
    if (pipe(fd) < 0) {
        return -1;
    }
    ok = write(fd[1], src, n) == (ssize_t)n && read(fd[0], dst, n) == (ssize_t)n;
    close(fd[0]);
    close(fd[1]);
    return ok ? 0 : -1;
}

#define WORD(o, off) (*(uintptr_t *)((char *)(o) + (off)))

/* the only word-aligned offset in o's struct holding v, or -1 */
static Py_ssize_t
unique_word(PyObject *o, uintptr_t v)
{
    Py_ssize_t found = -1, end = Py_TYPE(o)->tp_basicsize - (Py_ssize_t)sizeof(uintptr_t);
    for (Py_ssize_t off = sizeof(PyObject); off <= end; off += sizeof(uintptr_t)) {
        if (WORD(o, off) == v) {
            if (found >= 0) {
                return -1;
            }
            found = off;
        }
    }
    return found;
}

/* the only offset in o's struct of a std::vector<Py_ssize_t> (begin, end,
 * capacity pointers) holding v[0..n-1], or -1 */
static Py_ssize_t
unique_vector(PyObject *o, const int64_t *v, int n)
{
    Py_ssize_t found = -1, end = Py_TYPE(o)->tp_basicsize - 3 * (Py_ssize_t)sizeof(uintptr_t);
    int64_t buf[RT_MAXDIM];
    for (Py_ssize_t off = sizeof(PyObject); off <= end; off += sizeof(uintptr_t)) {
        uintptr_t b = WORD(o, off), e = WORD(o, off + 8), c = WORD(o, off + 16);
        if (b < 4096 || b % sizeof(int64_t) || e - b != (uintptr_t)n * sizeof(int64_t) || c < e
            || safe_read(buf, (const void *)b, (size_t)n * sizeof(int64_t)) < 0
            || memcmp(buf, v, (size_t)n * sizeof(int64_t)) != 0) {
            continue;
        }
        if (found >= 0) {
            return -1;
        }
        found = off;
    }
    return found;
}

/* Learns f's offsets from o, whose attributes gave ref.  An array that
 * cannot tell the fields apart (no dimension, shape equal to strides, a
 * null pointer) teaches nothing; after CUPY_TRIES of those, f is off. */
static void
cupy_learn(PyObject *o, const RtArray *ref, CupyFields *f)
{
    if (--f->tries < 0) {
        f->state = CF_OFF;
        return;
    }
    if (ref->ndim < 1 || !ref->ptr
        || memcmp(ref->shape, ref->strides, sizeof(int64_t) * (size_t)ref->ndim) == 0) {
        return;
    }
    PyObject *data = PyObject_GetAttr(o, s_data), *dtype = data ? PyObject_GetAttr(o, s_dtype) : NULL;
    if (data && dtype) {
        f->off_data = unique_word(o, (uintptr_t)data);
        f->off_dtype = unique_word(o, (uintptr_t)dtype);
        f->off_ptr = unique_word(data, (uintptr_t)ref->ptr);
        f->off_shape = unique_vector(o, ref->shape, ref->ndim);
        f->off_strides = unique_vector(o, ref->strides, ref->ndim);
        if (f->off_data >= 0 && f->off_dtype >= 0 && f->off_ptr >= 0 && f->off_shape >= 0
            && f->off_strides >= 0) {
            f->mp_type = (PyTypeObject *)Py_NewRef(Py_TYPE(data));
            f->state = CF_VERIFY;
            f->verify = CUPY_VERIFY;
        }
    }
    Py_XDECREF(data);
    Py_XDECREF(dtype);
    PyErr_Clear();
}

/* o's fields in place: 1 read, 0 not possible here (use the attributes),
 * -1 error (an unsupported dtype) */
static int
cupy_fields_read(PyObject *o, const CupyFields *f, RtArray *out)
{
    PyObject *data = (PyObject *)WORD(o, f->off_data), *dtype = (PyObject *)WORD(o, f->off_dtype);
    const int64_t *sb = (const int64_t *)WORD(o, f->off_shape);
    const int64_t *se = (const int64_t *)WORD(o, f->off_shape + 8);
    const int64_t *tb = (const int64_t *)WORD(o, f->off_strides);
    const int64_t *te = (const int64_t *)WORD(o, f->off_strides + 8);
    ptrdiff_t nd = se - sb;
    if (!data || !dtype || Py_TYPE(data) != f->mp_type || nd < 0 || nd > RT_MAXDIM
        || te - tb != nd) {
        return 0;
    }
    if (rt_dtype_from_obj(dtype, &out->dtype) < 0) {
        return -1;
    }
    out->ptr = (void *)WORD(data, f->off_ptr);
    out->ndim = (int)nd;
    if (nd) {
        memcpy(out->shape, sb, sizeof(int64_t) * (size_t)nd);
        memcpy(out->strides, tb, sizeof(int64_t) * (size_t)nd);
    }
    finish(out);
    return 1;
}

static int
same_array(const RtArray *a, const RtArray *b)
{
    return a->ptr == b->ptr && a->ndim == b->ndim && a->dtype == b->dtype
           && memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0
           && memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

static int
get_cupy(PyObject *o, CupyFields *f, RtArray *out, const char *what)
{
    int r;
    if (f && f->state == CF_ON) {
        r = cupy_fields_read(o, f, out);
        if (r != 0) {
            return r < 0 ? -1 : 0;
        }
    } else if (f && f->state == CF_VERIFY) {
        RtArray fast;
        if (from_cupy(o, out, what) < 0) {
            return -1;
        }
        r = cupy_fields_read(o, f, &fast);
        if (r < 0) {
            PyErr_Clear();
            f->state = CF_OFF;
        } else if (r == 1) {
            f->state = !same_array(&fast, out) ? CF_OFF : --f->verify == 0 ? CF_ON : CF_VERIFY;
        }
        return 0;
    }
    r = from_cupy(o, out, what);
    if (r == 0 && f && f->state == CF_LEARN) {
        cupy_learn(o, out, f);
    }
    return r;
}

const char *
rt_cupy_fields_state(PyObject *o)
{
    static const char *const names[] = {"learning", "verifying", "on", "off"};
    TypeEntry *e;
    if (intern_names() < 0) {
        PyErr_Clear();
        return "off";
    }
    if (kind_of_entry(o, &e) != K_CUPY) {
        return "not a CuPy array";
    }
    return e ? names[e->cupy.state] : "off";
}

static int from_host(PyObject *o, RtArray *out, void *stream, const char *what);

/* torch.Tensor on a CUDA device: data_ptr(), .shape, .stride() (elements),
 * .dtype; a CPU tensor is host data (its .numpy() view, copied back) */
static int
from_torch(PyObject *o, RtArray *out, void *stream, const char *what)
{
    PyObject *is_cuda = PyObject_GetAttr(o, s_is_cuda), *p = NULL, *shape = NULL, *st = NULL;
    int r = -1;
    if (!is_cuda) {
        return -1;
    }
    if (is_cuda != Py_True) {
        Py_DECREF(is_cuda);
        PyObject *det = PyObject_CallMethod(o, "detach", NULL);
        PyObject *h = det ? PyObject_CallMethod(det, "numpy", NULL) : NULL;
        Py_XDECREF(det);
        if (!h) {
            return -1;
        }
        r = from_host(h, out, stream, what);
        Py_DECREF(h);
        return r;
    }
    Py_DECREF(is_cuda);
    if (!(p = PyObject_CallMethodNoArgs(o, s_data_ptr)) || !(shape = PyObject_GetAttr(o, s_shape))
        || !(st = PyObject_CallMethodNoArgs(o, s_stride))) {
        goto done;
    }
    out->ptr = as_ptr(p);
    if (PyErr_Occurred() || dtype_attr(o, &out->dtype) < 0) {
        goto done;
    }
    out->ndim = int_tuple(shape, out->shape, 1, what);
    if (out->ndim < 0
        || int_tuple(st, out->strides, cj_dtypes[out->dtype].size, what) != out->ndim) {
        goto done;
    }
    finish(out);
    r = 0;
done:
    Py_XDECREF(p);
    Py_XDECREF(shape);
    Py_XDECREF(st);
    return r;
}

/* CAI's stream field: 1 legacy default, 2 per-thread default, else a handle */
static CUstream
cai_stream(long long v)
{
    return v == 2 ? RT_STREAM_PER_THREAD : v <= 1 ? RT_STREAM_LEGACY : (CUstream)(uintptr_t)v;
}

/* typestr |V<n>: a record dtype, from the interface's descr (NumPy's
 * descr_to_dtype drops the padding entries descr lists) */
static int
cai_record(PyObject *d, const char *ts, DType *dt)
{
    PyObject *descr = PyDict_GetItemString(d, "descr");
    PyObject *fmt = descr ? PyImport_ImportModule("numpy.lib.format") : NULL;
    PyObject *npd = fmt ? PyObject_CallMethod(fmt, "descr_to_dtype", "O", descr) : NULL;
    int r = npd ? rt_dtype_of(npd, dt) : -1;
    if (r == 0 && cj_dtypes[*dt].size != atoi(ts + 2)) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: typestr '%s' does not match "
                     "its descr (%d bytes)", ts, cj_dtypes[*dt].size);
        r = -1;
    }
    if (!descr && !PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: typestr '%s' without the "
                     "descr of its fields", ts);
    }
    Py_XDECREF(fmt);
    Py_XDECREF(npd);
    return r;
}

static int cai_rest(PyObject *o, PyObject *d, RtArray *out, const char *what);

/* The fields of a __cuda_array_interface__ dict d (of object o): dtype,
 * shape, strides, data pointer and readonly; -1 with an exception naming
 * `what`.  Also how inspect_* describes example arguments (argdesc.c). */
int
rt_cai_read(PyObject *o, PyObject *d, RtArray *out, const char *what)
{
    PyObject *v;
    if (!PyDict_Check(d)) {
        arg_error(what, "%s.__cuda_array_interface__ is not a dict", o);
        return -1;
    }
    v = PyDict_GetItemString(d, "mask");
    if (v && v != Py_None) {
        arg_error(what, "masked arrays (%s) are not supported", o);
        return -1;
    }
    v = PyDict_GetItemString(d, "typestr");
    const char *ts = v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    if (ts && (ts[0] == '|' || ts[0] == '<') && ts[1] == 'V') {
        return cai_record(d, ts, &out->dtype) < 0 ? -1 : cai_rest(o, d, out, what);
    }
    if (!ts || rt_dtype_from_typestr(ts, &out->dtype) < 0) {
        if (!PyErr_Occurred()) {
            arg_error(what, "%s.__cuda_array_interface__ has no typestr", o);
        }
        return -1;
    }
    return cai_rest(o, d, out, what);
}

/* the interface's shape, strides and data, after its typestr */
static int
cai_rest(PyObject *o, PyObject *d, RtArray *out, const char *what)
{
    PyObject *v = PyDict_GetItemString(d, "shape");
    if (!v || (out->ndim = int_tuple(v, out->shape, 1, what)) < 0) {
        if (!PyErr_Occurred()) {
            arg_error(what, "%s.__cuda_array_interface__ has no shape", o);
        }
        return -1;
    }
    v = PyDict_GetItemString(d, "strides");
    if (v && v != Py_None) {
        if (int_tuple(v, out->strides, 1, what) != out->ndim) {
            if (!PyErr_Occurred()) {
                arg_error(what, "%s.__cuda_array_interface__ strides do not match its shape", o);
            }
            return -1;
        }
    } else {
        c_layout(out);
    }
    v = PyDict_GetItemString(d, "data");
    if (!v || !PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) {
        arg_error(what, "%s.__cuda_array_interface__ has no (ptr, readonly) data", o);
        return -1;
    }
    out->ptr = as_ptr(PyTuple_GET_ITEM(v, 0));
    if (PyErr_Occurred()) {
        return -1;
    }
    out->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(v, 1)) == 1;
    finish(out);
    return 0;
}

static int
from_cai(PyObject *o, RtArray *out, void *stream, const char *what)
{
    PyObject *d = PyObject_GetAttr(o, s_cai), *v;
    int r = -1;
    if (!d) {
        return -1;
    }
    if (rt_cai_read(o, d, out, what) < 0) {
        goto done;
    }
    v = PyDict_GetItemString(d, "stream");
    if (v && v != Py_None) {
        long long sv = PyLong_AsLongLong(v);
        if (sv == -1 && PyErr_Occurred()) {
            goto done;
        }
        out->stream = cai_stream(sv);
        int dev = rt_ensure_context();
        if (dev < 0 || rt_stream_wait(dev, stream, out->stream) < 0) {
            goto done;
        }
    }
    r = 0;
done:
    Py_DECREF(d);
    return r;
}

/* the consumer's stream in DLPack's convention */
static PyObject *
dlpack_stream_arg(void *stream)
{
    CUstream s = rt_norm_stream(stream);
    if (s == RT_STREAM_LEGACY) {
        return PyLong_FromLong(1);
    }
    if (s == RT_STREAM_PER_THREAD) {
        return PyLong_FromLong(2);
    }
    return PyLong_FromVoidPtr(s);
}

static int
read_dltensor(const RtDLTensor *t, RtArray *out, const char *what)
{
    if (t->ndim < 0 || t->ndim > RT_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "%s: at most %d dimensions are supported", what,
                     RT_MAXDIM);
        return -1;
    }
    if (rt_dtype_from_dlpack(t->dtype.code, t->dtype.bits, t->dtype.lanes, &out->dtype) < 0) {
        return -1;
    }
    out->ptr = (char *)t->data + t->byte_offset;
    out->ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++) {
        out->shape[i] = t->shape[i];
    }
    if (t->strides) {
        for (int i = 0; i < t->ndim; i++) {
            out->strides[i] = t->strides[i] * cj_dtypes[out->dtype].size;
        }
    } else {
        c_layout(out);
    }
    finish(out);
    return 0;
}

static int
from_dlpack(PyObject *o, RtArray *out, void *stream, const char *what)
{
    PyObject *dev = PyObject_CallMethodNoArgs(o, s_dlpack_device), *cap = NULL, *kw = NULL;
    PyObject *sarg = NULL, *meth = NULL, *empty = NULL;
    int r = -1, devtype = 0, devid = 0;
    if (!dev) {
        return -1;
    }
    if (!PyArg_ParseTuple(dev, "i|i", &devtype, &devid)) {
        Py_DECREF(dev);
        return -1;
    }
    Py_DECREF(dev);
    if (devtype == RT_kDLCPU) {
        PyObject *np = rt_numpy(), *h;
        h = np ? PyObject_CallMethod(np, "from_dlpack", "O", o) : NULL;
        if (!h) {
            return -1;
        }
        r = from_host(h, out, stream, what);
        Py_DECREF(h);
        return r;
    }
    if (devtype != RT_kDLCUDA && devtype != RT_kDLCUDAHost && devtype != RT_kDLCUDAManaged) {
        PyErr_Format(PyExc_TypeError, "%s: DLPack device type %d is not a CUDA device", what,
                     devtype);
        return -1;
    }
    if (!(meth = PyObject_GetAttr(o, s_dlpack)) || !(sarg = dlpack_stream_arg(stream))
        || !(kw = Py_BuildValue("{s:O}", "stream", sarg)) || !(empty = PyTuple_New(0))) {
        goto done;
    }
    cap = PyObject_Call(meth, empty, kw);
    if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        cap = PyObject_CallNoArgs(meth);        /* producers without the stream keyword */
    }
    if (!cap) {
        goto done;
    }
    /* not consumed: the capsule's destructor gives the export back, the
     * memory stays the producer's (alive as long as `o`) */
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        RtDLManagedTensorVersioned *v = PyCapsule_GetPointer(cap, "dltensor_versioned");
        r = v ? read_dltensor(&v->dl_tensor, out, what) : -1;
        out->readonly = v && (v->flags & RT_DLPACK_FLAG_READ_ONLY) != 0;
    } else {
        RtDLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        r = m ? read_dltensor(&m->dl_tensor, out, what) : -1;
    }
done:
    Py_XDECREF(cap);
    Py_XDECREF(meth);
    Py_XDECREF(sarg);
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    return r;
}

/* host data: copied to new device memory on `stream`; copied back and freed
 * by rt_array_release */
static int
from_host(PyObject *o, RtArray *out, void *stream, const char *what)
{
    Py_buffer view;
    CUdeviceptr p = 0;
    int r = -1;
    if (PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) < 0) {
        PyObject *counts = rt_datetime_counts(o);
        r = counts ? from_host(counts, out, stream, what) : -1;
        if (r >= 0 && rt_is_bfloat16(o)) {
            out->dtype = DT_BF16;       /* its bits were read as uint16 */
        }
        Py_XDECREF(counts);
        return r;
    }
    if (view.ndim > RT_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "%s: at most %d dimensions are supported", what,
                     RT_MAXDIM);
        goto done;
    }
    if (rt_buffer_dtype(o, view.format, view.itemsize, &out->dtype) < 0) {
        if (!view.format || view.format[0] != 'T') {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: unsupported element type (buffer format '%s')",
                         what, view.format ? view.format : "B");
        }
        goto done;
    }
    int dev = rt_ensure_context();
    if (dev < 0 || rt_mem_alloc(dev, (size_t)view.len, stream, &p) < 0) {
        goto done;
    }
    if (PyBuffer_IsContiguous(&view, 'C')) {
        r = rt_htod(p, view.buf, (size_t)view.len, stream);
    } else {
        char *tmp = malloc((size_t)view.len + 1);
        r = -1;
        if (!tmp) {
            PyErr_NoMemory();
        } else if (PyBuffer_ToContiguous(tmp, &view, view.len, 'C') == 0) {
            r = rt_htod(p, tmp, (size_t)view.len, stream);
        }
        free(tmp);
    }
    if (r < 0) {
        rt_mem_free(dev, p, stream);
        goto done;
    }
    out->ptr = (void *)(uintptr_t)p;
    out->owned = out->ptr;
    out->owned_dev = dev;
    out->ndim = view.ndim;
    for (int i = 0; i < view.ndim; i++) {
        out->shape[i] = view.shape ? view.shape[i] : view.len / view.itemsize;
    }
    c_layout(out);
    finish(out);
    out->readonly = view.readonly;
    out->host = Py_NewRef(o);
done:
    PyBuffer_Release(&view);
    return r;
}

int
rt_get_array(PyObject *o, RtArray *out, void *stream, const char *what)
{
    out->stream = NULL;
    out->host = NULL;
    out->owned = NULL;
    out->readonly = 0;
    if (Py_IS_TYPE(o, &rt_DeviceArray_Type)) {
        RtDeviceArray *a = (RtDeviceArray *)o;
        out->ptr = (void *)(uintptr_t)a->ptr;
        out->ndim = a->ndim;
        out->dtype = a->dtype;
        memcpy(out->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
        memcpy(out->strides, a->strides, sizeof(int64_t) * (size_t)a->ndim);
        out->c_contig = a->c_contig;
        out->f_contig = a->f_contig;
        return 0;
    }
    if (intern_names() < 0) {
        return -1;
    }
    TypeEntry *e;
    int kind = kind_of_entry(o, &e);
    if (kind == K_INST) {
        kind = kind_of(o);
    }
    switch (kind) {
    case K_CUPY:
        if (stream) {
            /* a launch on a stream of the caller's: the interface's stream
             * field names where CuPy made the array, which this launch waits
             * for (the attribute fast path does not read it) */
            return from_cai(o, out, stream, what);
        }
        return get_cupy(o, e ? &e->cupy : NULL, out, what);
    case K_TORCH:
        return from_torch(o, out, stream, what);
    case K_CAI:
        return from_cai(o, out, stream, what);
    case K_DLPACK:
        return from_dlpack(o, out, stream, what);
    case K_HOST:
        return from_host(o, out, stream, what);
    case K_HOSTCONV: {
        PyObject *np = rt_numpy(), *h;
        h = np ? PyObject_CallMethod(np, "asarray", "O", o) : NULL;
        if (!h) {
            return -1;
        }
        int r = from_host(h, out, stream, what);
        Py_DECREF(h);
        return r;
    }
    default:
        return arg_error(what, "expected an array (cujit.DeviceArray, CuPy, PyTorch, Numba, "
                         "DLPack or NumPy), got %s", o);
    }
}

int
rt_array_release(RtArray *a, void *stream, int copy_back)
{
    int ret = 0;
    if (a->host && a->owned && copy_back && !a->readonly) {
        Py_buffer view;
        if (PyObject_GetBuffer(a->host, &view, PyBUF_RECORDS) < 0) {
            ret = -1;
        } else {
            CUdeviceptr p = (CUdeviceptr)(uintptr_t)a->owned;
            if (PyBuffer_IsContiguous(&view, 'C')) {
                ret = rt_dtoh(view.buf, p, (size_t)view.len, stream);
            } else {
                char *tmp = malloc((size_t)view.len + 1);
                ret = tmp ? rt_dtoh(tmp, p, (size_t)view.len, stream) : (PyErr_NoMemory(), -1);
                if (ret == 0) {
                    ret = PyBuffer_FromContiguous(&view, tmp, view.len, 'C');
                }
                free(tmp);
            }
            PyBuffer_Release(&view);
        }
    }
    Py_CLEAR(a->host);
    if (a->owned) {
        rt_mem_free(a->owned_dev, (CUdeviceptr)(uintptr_t)a->owned, stream);
        a->owned = NULL;
    }
    return ret;
}
