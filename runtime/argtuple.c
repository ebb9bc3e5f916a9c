/* argtuple.c - tuple and namedtuple kernel arguments: their keys (the
 * elements' keys, interned as an RtTuple so that equal tuple types share one
 * ArgKey), the arrays inside them read for a launch, and their packing as
 * codegen's tuple struct (members f0, f1 ... at their C++ alignment).  See
 * argdesc.h. */
#include <stdlib.h>
#include <string.h>

#include "pack.h"
#include "rt_impl.h"

#define MAXTUPLES 65535         /* numbers fit dtype | ndim << 8 */
#define MAXNEST 16              /* tuples inside tuples */

/* a copy of s for the table's life (never freed), or NULL */
static char *
copy_str(const char *s)
{
    size_t n = s ? strlen(s) + 1 : 0;
    char *c = s ? malloc(n) : NULL;
    return c ? memcpy(c, s, n) : NULL;
}

static RtTuple **tuples;
static int ntuples, tcap;

const RtTuple *
rt_tuple_of(ArgKey k)
{
    int id = k.dtype | k.ndim << 8;
    return id >= 1 && id <= ntuples ? tuples[id - 1] : NULL;
}

/* ---- layout ---- */

/* a scalar member's alignment: complex numbers are alignas(2 * sizeof(T)) */
static int
scalar_align(DType dt)
{
    int sz = cj_dtypes[dt].size;
    return cj_dtypes[dt].kind == 'c' ? sz : sz > 8 ? 8 : sz;
}

static void
key_layout(ArgKey k, int *align, size_t *maxbytes)
{
    if (k.kind == RT_KEY_ENUM) {
        k = rt_enum_of(k)->vkey;        /* a member: its value */
    }
    if (k.kind == RT_KEY_TUPLE) {
        const RtTuple *t = rt_tuple_of(k);
        *align = t->align;
        *maxbytes = t->maxbytes;
    } else if (k.kind == 2) {
        *align = 8;
        *maxbytes = 16 + 16 * (size_t)k.ndim;
    } else {
        *align = scalar_align((DType)k.dtype);
        *maxbytes = 2 * (size_t)cj_dtypes[k.dtype].size;
    }
}

int
rt_key_align(ArgKey k)
{
    int al;
    size_t mb;
    key_layout(k, &al, &mb);
    return al;
}

/* ---- interning ---- */

static int
same_tuple(const RtTuple *t, const ArgKey *elems, int n, PyObject *cls)
{
    return t->n == n && t->cls == cls && memcmp(t->elems, elems, sizeof(ArgKey) * (size_t)n) == 0;
}

/* a namedtuple's class name and fields copied into t; -1 with an exception */
static int
named_fields(RtTuple *t, PyObject *cls)
{
    PyObject *f = PyObject_GetAttrString(cls, "_fields");
    PyObject *q = f ? PyObject_GetAttrString(cls, "__qualname__") : NULL;
    int ok = q && PyUnicode_Check(q) && PyTuple_Check(f) && PyTuple_GET_SIZE(f) == t->n;
    t->names = ok ? calloc((size_t)t->n + 1, sizeof(char *)) : NULL;
    t->cname = ok ? copy_str(PyUnicode_AsUTF8(q)) : NULL;
    for (int i = 0; ok && t->names && i < t->n; i++) {
        PyObject *s = PyTuple_GET_ITEM(f, i);
        const char *u = PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
        ok = u && (t->names[i] = copy_str(u));
    }
    Py_XDECREF(f);
    Py_XDECREF(q);
    if (ok && t->names && t->cname) {
        t->cls = Py_NewRef(cls);
        return 0;
    }
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "namedtuple %s has no usable _fields",
                     ((PyTypeObject *)cls)->tp_name);
    }
    return -1;      /* t is leaked on purpose: a table entry never made */
}

/* the key of the tuple type with these elements (cls: a namedtuple's class) */
static int
intern(const ArgKey *elems, int n, PyObject *cls, ArgKey *key)
{
    int id = 0;
    for (int i = 0; i < ntuples && !id; i++) {
        id = same_tuple(tuples[i], elems, n, cls) ? i + 1 : 0;
    }
    if (!id) {
        if (ntuples >= MAXTUPLES) {
            PyErr_SetString(PyExc_TypeError, "too many different tuple types in kernel "
                            "arguments (65535)");
            return -1;
        }
        RtTuple *t = calloc(1, sizeof *t);
        ArgKey *ek = t ? malloc(sizeof(ArgKey) * (size_t)(n + 1)) : NULL;
        if (!ek) {
            free(t);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(ek, elems, sizeof(ArgKey) * (size_t)n);
        t->n = n;
        t->elems = ek;
        t->align = 1;
        t->maxbytes = 1;
        for (int i = 0; i < n; i++) {
            int al;
            size_t mb;
            key_layout(elems[i], &al, &mb);
            t->align = al > t->align ? al : t->align;
            t->maxbytes += mb + (size_t)al;
        }
        t->maxbytes += (size_t)t->align;
        if (cls && named_fields(t, cls) < 0) {
            return -1;
        }
        if (ntuples == tcap) {
            int cap = tcap ? 2 * tcap : 16;
            RtTuple **nt = realloc(tuples, sizeof(RtTuple *) * (size_t)cap);
            if (!nt) {
                PyErr_NoMemory();
                return -1;
            }
            tuples = nt;
            tcap = cap;
        }
        tuples[ntuples++] = t;
        id = ntuples;
    }
    key->kind = RT_KEY_TUPLE;
    key->dtype = (unsigned char)(id & 0xff);
    key->ndim = (unsigned char)(id >> 8);
    key->flags = 0;
    return 0;
}

int
rt_tuple_key_of(const ArgKey *elems, int n, ArgKey *key)
{
    return intern(elems, n, NULL, key);
}

/* ---- keys from values ---- */

static RtArray *
leaf_push(RtLeaves *lv)
{
    if (lv->n == lv->cap) {
        int cap = lv->cap ? 2 * lv->cap : 8;
        RtArray *a = PyMem_Realloc(lv->a, sizeof(RtArray) * (size_t)cap);
        if (!a) {
            PyErr_NoMemory();
            return NULL;
        }
        lv->a = a;
        lv->cap = cap;
    }
    RtArray *a = &lv->a[lv->n];
    memset(a, 0, sizeof *a);
    return a;
}

/* element o of a tuple: an array's key, its RtArray appended to lv */
static int
array_key(PyObject *o, RtLeaves *lv, int launch, void *stream, ArgKey *key, int *idx32)
{
    RtArray *a = leaf_push(lv);
    if (!a) {
        return -1;
    }
    if (launch) {
        if (rt_get_array(o, a, stream, "argument") < 0) {
            return -1;
        }
    } else {
        int r = rt_describe_array(o, a);
        if (r <= 0) {
            return r;
        }
    }
    lv->n++;
    char lay = a->c_contig ? 'C' : (a->f_contig && a->ndim >= 2) ? 'F' : 'A';
    *key = rt_array_key(a->dtype, a->ndim, lay, a->readonly);
    *idx32 &= rt_fits32(a->ndim, a->shape, a->strides);
    return 1;
}

/* a tuple's class when it is a namedtuple (a tuple subclass with _fields) */
static PyObject *
named_class(PyObject *o)
{
    if (PyTuple_CheckExact(o)) {
        return NULL;
    }
    PyObject *f = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "_fields");
    int named = f && PyTuple_Check(f);
    Py_XDECREF(f);
    PyErr_Clear();
    return named ? (PyObject *)Py_TYPE(o) : NULL;
}

static int tuple_key(PyObject *o, RtLeaves *lv, int launch, void *stream, ArgKey *key,
                     int *idx32, int depth);

/* one element's key: a number, an array or a tuple */
static int
elem_key(PyObject *o, RtLeaves *lv, int launch, void *stream, ArgKey *key, int *idx32,
         int depth, Py_ssize_t i)
{
    DType dt;
    if (PyTuple_Check(o)) {
        return tuple_key(o, lv, launch, stream, key, idx32, depth + 1);
    }
    if (rt_scalar_dtype(o, &dt) && !cj_is_record(dt)) {
        *key = rt_scalar_key(dt);
        return 0;
    }
    int en = rt_enum_key(o, key);
    if (en != 0) {
        return en < 0 ? -1 : 0;
    }
    int r = PyUnicode_Check(o) || PyBytes_Check(o) ? 0
            : array_key(o, lv, launch, stream, key, idx32);
    if (r < 0 && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        r = 0;
    }
    if (r == 0) {
        PyErr_Format(PyExc_TypeError, "argument: tuple element %zd has type '%s', which kernels "
                     "cannot take: a tuple argument may hold numbers, arrays and tuples of "
                     "them", i, Py_TYPE(o)->tp_name);
        return -1;
    }
    return r < 0 ? -1 : 0;
}

static int
tuple_key(PyObject *o, RtLeaves *lv, int launch, void *stream, ArgKey *key, int *idx32,
          int depth)
{
    if (depth > MAXNEST) {
        PyErr_Format(PyExc_TypeError, "argument: tuples nested more than %d deep are not "
                     "supported", MAXNEST);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(o);
    if (n > 255) {
        PyErr_Format(PyExc_TypeError, "argument: a tuple of %zd elements is too long for a "
                     "kernel argument (255 at most): pass an array", n);
        return -1;
    }
    ArgKey elems[256];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (elem_key(PyTuple_GET_ITEM(o, i), lv, launch, stream, &elems[i], idx32, depth,
                     i) < 0) {
            return -1;
        }
    }
    return intern(elems, (int)n, named_class(o), key);
}

int
rt_tuple_key(PyObject *o, RtLeaves *lv, int launch, void *stream, ArgKey *key, int *idx32)
{
    return tuple_key(o, lv, launch, stream, key, idx32, 0);
}

int
rt_leaves_release(RtLeaves *lv, void *stream, int copy_back)
{
    int ret = 0;
    for (int i = 0; i < lv->n; i++) {
        if (rt_array_release(&lv->a[i], stream, copy_back) < 0) {
            ret = -1;
            copy_back = 0;
        }
    }
    PyMem_Free(lv->a);
    memset(lv, 0, sizeof *lv);
    return ret;
}

/* ---- packing ---- */

int
rt_pack_tuple(unsigned char *buf, size_t *off, PyObject *o, const RtTuple *t,
              const RtArray **leaf, int idx32)
{
    size_t al = (size_t)t->align;
    *off = (*off + al - 1) & ~(al - 1);
    size_t start = *off;
    for (int i = 0; i < t->n; i++) {
        ArgKey k = t->elems[i];
        PyObject *item = PyTuple_GET_ITEM(o, i);
        if (k.kind == RT_KEY_TUPLE) {
            if (rt_pack_tuple(buf, off, item, rt_tuple_of(k), leaf, idx32) < 0) {
                return -1;
            }
        } else if (k.kind == RT_KEY_ENUM) {
            size_t sa = (size_t)rt_key_align(k);
            *off = (*off + sa - 1) & ~(sa - 1);
            if (rt_pack_enum(buf, off, item, k) < 0) {
                return -1;
            }
        } else if (k.kind == 2) {
            const RtArray *a = (*leaf)++;
            rt_pack_view(buf, off, (uint64_t)(uintptr_t)a->ptr, a->ndim, a->shape, a->strides,
                         idx32);
        } else {
            size_t sa = (size_t)scalar_align((DType)k.dtype);
            *off = (*off + sa - 1) & ~(sa - 1);
            if (rt_pack_scalar(buf, off, item, (DType)k.dtype) < 0) {
                return -1;
            }
        }
    }
    if (t->n == 0) {
        buf[(*off)++] = 0;          /* an empty C++ struct has one byte */
    }
    *off = start + ((*off - start + al - 1) & ~(al - 1));
    return 0;
}
