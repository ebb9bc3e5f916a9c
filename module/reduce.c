/* reduce.c - cujit.Reduce (@reduce): a two-pass reduction around a binary
 * combiner (and an optional map=), over any axes, keepdims, out=, dtype=. */
#include "forms.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/shape.h"

typedef struct {
    DType in, elem, out;    /* array dtype, dtype= (elements cast to it), out= dtype or -1 */
    int has_out;
    PyObject *map;          /* a Python function or NULL */
    int outer, contiguous, vec, nkeep, nred, idx32;
} RedPlan;

static Form *
red_compile(ReduceObject *r, RedPlan *pl, const Key *key)
{
    char label[256];
    snprintf(label, sizeof label, "reduce %s", PyUnicode_AsUTF8(r->name));
    PlRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = PL_REDUCTION;
    rq.func = r->pyfunc;
    rq.label = label;
    rq.idx32 = pl->idx32;
    rq.map = pl->map;
    rq.identity = r->identity;
    rq.in = pl->in;
    rq.elem = pl->elem;
    rq.out = pl->out;
    rq.has_out = pl->has_out;
    rq.outer = pl->outer;
    rq.contiguous = pl->contiguous;
    rq.red_vec = pl->vec;
    rq.nkeep = pl->nkeep;
    rq.nred = pl->nred;
    Form *f = form_new(key);
    if (!f || pl_transpile(&rq, &f->c) < 0) {
        if (f) {
            form_free(f);
        }
        return NULL;
    }
    if (pl->map) {
        f->keep = Py_NewRef(pl->map);     /* what the key points at stays alive */
    }
    return f;
}

/* axis= as a set of dimensions; 1 if none given (all) */
static int
parse_axes(PyObject *axis, int ndim, int *red)
{
    for (int d = 0; d < ndim; d++) {
        red[d] = axis == NULL || axis == Py_None;
    }
    if (!axis || axis == Py_None) {
        return 0;
    }
    PyObject *seq = PyTuple_Check(axis) ? Py_NewRef(axis) : PyTuple_Pack(1, axis);
    if (!seq) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++) {
        long a = PyLong_AsLong(PyTuple_GET_ITEM(seq, i));
        if (a == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "axis must be None, an int or a tuple of ints");
            return -1;
        }
        if (a < -ndim || a >= ndim) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "axis %ld is out of bounds for an array of "
                         "dimension %d", a, ndim);
            return -1;
        }
        if (a < 0) {
            a += ndim;
        }
        if (red[a]) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "duplicate value in 'axis'");
            return -1;
        }
        red[a] = 1;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *
reduce_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    ReduceObject *r = (ReduceObject *)self;
    static char *kwlist[] = {"x", "axis", "keepdims", "out", "dtype", "map", "stream", NULL};
    PyObject *xo, *axis = NULL, *out_arg = NULL, *dtype_arg = NULL, *map_arg = NULL;
    PyObject *stream_arg = NULL;
    int keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OpOOOO:reduce", kwlist, &xo, &axis,
                                     &keepdims, &out_arg, &dtype_arg, &map_arg, &stream_arg)) {
        return NULL;
    }
    void *stream = NULL;
    if (rt_get_stream(stream_arg ? stream_arg : Py_None, &stream) < 0) {
        return NULL;
    }
    Operand x, o;
    memset(&o, 0, sizeof o);
    PyObject *result = NULL, *made = NULL, *partial = NULL;
    if (operand(xo, &x, stream, "x") < 0) {
        return NULL;
    }
    if (!x.is_array) {
        PyErr_SetString(PyExc_TypeError, "reduce() needs an array");
        return NULL;
    }
    RedPlan pl;
    memset(&pl, 0, sizeof pl);
    pl.in = pl.elem = x.dt;
    if (dtype_arg && dtype_arg != Py_None) {
        PyObject *name = PyObject_Str(dtype_arg);
        PyObject *dt = NULL;
        if (PyType_Check(dtype_arg) || !PyUnicode_Check(dtype_arg)) {
            PyObject *np = PyImport_ImportModule("numpy");
            dt = np ? PyObject_CallMethod(np, "dtype", "O", dtype_arg) : NULL;
            Py_XDECREF(np);
            Py_XDECREF(name);
            name = dt ? PyObject_GetAttrString(dt, "name") : NULL;
            Py_XDECREF(dt);
        }
        int ok = name && cj_dtype_from_name(PyUnicode_AsUTF8(name), &pl.elem);
        Py_XDECREF(name);
        if (!ok) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "dtype= must be a NumPy dtype cujit supports");
            goto done;
        }
    }
    if (map_arg && map_arg != Py_None) {
        pl.map = scalar_function(map_arg);
        if (!pl.map) {
            goto done;
        }
    }
    int red[RT_MAXDIM];
    if (parse_axes(axis, x.a.ndim, red) < 0) {
        goto done;
    }
    /* output shape */
    int ond = 0;
    int64_t oshape[RT_MAXDIM], nout = 1, nred = 1;
    for (int d = 0; d < x.a.ndim; d++) {
        if (!red[d]) {
            oshape[ond++] = x.a.shape[d];
            nout *= x.a.shape[d];
        } else {
            nred *= x.a.shape[d];
            if (keepdims) {
                oshape[ond++] = 1;
            }
        }
    }
    if (nred == 0 && r->identity == Py_None) {
        PyErr_Format(PyExc_ValueError, "zero-size array to reduction operation %U which has "
                     "no identity", r->name);
        goto done;
    }
    if (out_arg && out_arg != Py_None) {
        if (rt_get_array(out_arg, &o.a, stream, "out") < 0) {
            goto done;
        }
        o.is_array = 1;
        o.obj = out_arg;
        int same = o.a.ndim == ond;
        for (int d = 0; same && d < ond; d++) {
            same = o.a.shape[d] == oshape[d];
        }
        if (!same || !o.a.c_contig) {
            PyErr_Format(PyExc_ValueError, "%U(): out= must be a contiguous array of the "
                         "result's shape", r->name);
            goto done;
        }
        pl.has_out = 1;
        pl.out = o.a.dtype;
    }
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM];
    rt_group_dims(&x.a, red, &pl.nkeep, &pl.nred, shape, strides);
    pl.idx32 = rt_fits32(x.a.ndim, x.a.shape, x.a.strides) && nout * 64 < INT32_MAX;
    int isz = cj_dtypes[x.dt].size;
    pl.contiguous = pl.nred <= 1 && (pl.nred == 0 || strides[pl.nkeep] == isz);
    /* outer when the innermost (smallest stride) dimension is a kept one */
    if (pl.nkeep && pl.nred) {
        int64_t kmin = INT64_MAX, rmin = INT64_MAX;
        for (int d = 0; d < pl.nkeep; d++) {
            int64_t s = strides[d] < 0 ? -strides[d] : strides[d];
            kmin = s < kmin ? s : kmin;
        }
        for (int d = pl.nkeep; d < pl.nkeep + pl.nred; d++) {
            int64_t s = strides[d] < 0 ? -strides[d] : strides[d];
            rmin = s < rmin ? s : rmin;
        }
        pl.outer = kmin < rmin;
    }
    if (pl.outer) {
        pl.contiguous = 0;
    }
    /* splits and vector width */
    int sms = rt_multiprocessor_count();
    if (sms < 0) {
        goto done;
    }
    int64_t target = (int64_t)sms * 8, splits = 1, chunk = nred > 0 ? nred : 1;
    int block = 256;
    pl.vec = 1;
    if (!pl.outer) {
        if (pl.contiguous) {
            int vec = 16 / isz;
            int aligned = (uintptr_t)x.a.ptr % 16 == 0;
            for (int d = 0; d < pl.nkeep; d++) {
                aligned &= strides[d] % 16 == 0;
            }
            pl.vec = aligned && vec > 1 ? vec : 1;
        }
        if (nout < target && nred > 8192) {
            splits = (target + nout - 1) / nout;
            int64_t maxs = nred / 4096;
            splits = splits < maxs ? splits : maxs;
            splits = splits < 1 ? 1 : splits;
        }
        /* the blocks of one output interleave over its row (no chunk) */
        splits = splits > 65535 ? 65535 : splits;
    } else {
        int vec = 16 / isz;
        int packs = vec > 1 && pl.nkeep == 1 && strides[0] == isz && nout % vec == 0
                    && (uintptr_t)x.a.ptr % 16 == 0;
        for (int d = pl.nkeep; packs && d < pl.nkeep + pl.nred; d++) {
            packs = strides[d] % 16 == 0;
        }
        pl.vec = packs ? vec : 1;
        int64_t bx = (nout / pl.vec + block - 1) / block;
        if (bx < target && nred > 64) {
            splits = (target + bx - 1) / bx;
            int64_t maxs = nred / 32;
            splits = splits < maxs ? splits : maxs;
            splits = splits < 1 ? 1 : splits;
            splits = splits > 65535 ? 65535 : splits;
        }
        chunk = (nred + splits - 1) / splits;
        splits = nred > 0 ? (nred + chunk - 1) / chunk : 1;
    }
    /* the kernel */
    Key k;
    k.n = 0;
    key_int(&k, pl.in | (pl.elem << 8) | ((int64_t)(pl.has_out ? pl.out : 255) << 16));
    if (pl.map) {
        /* the map's code, globals and closure values (a lambda made anew at
         * each call finds its kernel again) */
        key_int(&k, (int64_t)(uintptr_t)PyFunction_GET_CODE(pl.map));
        key_int(&k, (int64_t)(uintptr_t)PyFunction_GET_GLOBALS(pl.map));
        PyObject *cl = PyFunction_GET_CLOSURE(pl.map);
        for (Py_ssize_t i = 0; cl && i < PyTuple_GET_SIZE(cl); i++) {
            key_int(&k, (int64_t)(uintptr_t)PyCell_GET(PyTuple_GET_ITEM(cl, i)));
        }
    } else {
        key_int(&k, 0);
    }
    key_int(&k, pl.outer | (pl.contiguous << 1) | (pl.vec << 4) | (pl.nkeep << 12)
                | (pl.nred << 20) | ((int64_t)pl.idx32 << 28));
    Form *f = form_find(r->forms, &k);
    if (!f) {
        f = red_compile(r, &pl, &k);
        if (!f) {
            goto done;
        }
        f->next = r->forms;
        r->forms = f;
    }
    if (!o.is_array) {
        made = rt_empty(ond, oshape, f->c.out[0], stream);
        if (!made || rt_get_array(made, &o.a, stream, "out") < 0) {
            goto done;
        }
        o.is_array = 1;
        o.obj = made;
    }
    if (nout == 0) {
        result = Py_NewRef(o.obj);
        goto done;
    }
    int dev = form_load(f, "_final");
    if (dev < 0) {
        goto done;
    }
    uint64_t part_ptr = 0;
    if (splits > 1) {
        int64_t nbytes = (int64_t)f->c.acc_size * nout * splits;
        partial = rt_empty(1, &nbytes, DT_U8, stream);
        Operand po;
        if (!partial || rt_get_array(partial, &po.a, stream, "partials") < 0) {
            goto done;
        }
        part_ptr = (uint64_t)(uintptr_t)po.a.ptr;
        rt_array_release(&po.a, stream, 0);
    }
    unsigned char buf[2048] __attribute__((aligned(16)));
    void *params[8];
    size_t off = 0;
    int nd = pl.nkeep + pl.nred;
    if (nd == 0) {
        shape[0] = 1;
        strides[0] = isz;
    }
    params[0] = buf;
    rt_pack_view(buf, &off, (uint64_t)(uintptr_t)x.a.ptr, nd > 0 ? nd : 1, shape, strides,
              pl.idx32);
    uint64_t out_ptr = (uint64_t)(uintptr_t)o.a.ptr;
    params[1] = buf + off;
    rt_put(buf, &off, &part_ptr, 8, 8);
    params[2] = buf + off;
    rt_put(buf, &off, &out_ptr, 8, 8);
    int64_t vals[4] = {nout, nred, splits, chunk};
    for (int i = 0; i < (pl.outer ? 4 : 3); i++) {
        off = (off + 7) & ~(size_t)7;
        params[3 + i] = buf + off;
        rt_pack_index(buf, &off, vals[i], pl.idx32);
    }
    unsigned grid[3], blk[3] = {(unsigned)block, 1, 1};
    const char *kname = PyUnicode_AsUTF8(r->name);
    if (!pl.outer) {
        grid[0] = (unsigned)splits;
        grid[2] = (unsigned)(nout < 65535 ? nout : 65535);
        grid[1] = (unsigned)((nout + grid[2] - 1) / grid[2]);
    } else {
        grid[0] = (unsigned)((nout / pl.vec + block - 1) / block);
        grid[1] = (unsigned)splits;
        grid[2] = 1;
    }
    if (rt_launch(&f->rk[dev], grid, blk, 0, stream, params, kname) < 0) {
        goto done;
    }
    if (splits > 1) {
        void *p2[5];
        size_t o2 = 0;
        unsigned char b2[64] __attribute__((aligned(16)));
        int outer = pl.outer;
        p2[0] = b2 + o2;
        rt_put(b2, &o2, &part_ptr, 8, 8);
        p2[1] = b2 + o2;
        rt_put(b2, &o2, &out_ptr, 8, 8);
        p2[2] = b2 + o2;
        rt_pack_index(b2, &o2, nout, pl.idx32);
        o2 = (o2 + 7) & ~(size_t)7;
        p2[3] = b2 + o2;
        rt_pack_index(b2, &o2, splits, pl.idx32);
        o2 = (o2 + 3) & ~(size_t)3;
        p2[4] = b2 + o2;
        rt_put(b2, &o2, &outer, 4, 4);
        unsigned g2[3] = {outer ? (unsigned)((nout + 255) / 256) : (unsigned)nout, 1, 1};
        if (rt_launch(&f->rk2[dev], g2, blk, 0, stream, p2, kname) < 0) {
            goto done;
        }
    }
    result = Py_NewRef(o.obj);
done:
    rt_array_release(&x.a, stream, 0);
    if (o.is_array) {
        rt_array_release(&o.a, stream, result != NULL);
    }
    Py_XDECREF(made);
    Py_XDECREF(partial);
    return result;
}

static PyObject *
reduce_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "identity", NULL};
    PyObject *func, *identity = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Reduce", kwlist, &func, &identity)) {
        return NULL;
    }
    PyObject *pf = scalar_function(func);
    if (!pf) {
        return NULL;
    }
    if (param_count(pf) != 2) {
        PyErr_SetString(PyExc_TypeError, "@reduce decorates a function of two arguments "
                        "(the combiner)");
        return NULL;
    }
    Const c;
    if (identity != Py_None && pl_const_of(identity, &c) < 0) {
        return NULL;
    }
    ReduceObject *r = (ReduceObject *)type->tp_alloc(type, 0);
    if (!r) {
        return NULL;
    }
    r->pyfunc = Py_NewRef(pf);
    r->identity = Py_NewRef(identity);
    r->name = PyObject_GetAttrString(pf, "__name__");
    if (!r->name) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static void
reduce_dealloc(PyObject *self)
{
    ReduceObject *r = (ReduceObject *)self;
    Py_XDECREF(r->pyfunc);
    Py_XDECREF(r->name);
    Py_XDECREF(r->identity);
    forms_free(&r->forms);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
reduce_inspect_cuda(PyObject *self, PyObject *noargs)
{
    return forms_sources(((ReduceObject *)self)->forms);
}

static PyObject *
reduce_get_identity(PyObject *self, void *c)
{
    return Py_NewRef(((ReduceObject *)self)->identity);
}

static PyObject *
reduce_get_pyfunc(PyObject *self, void *c)
{
    return Py_NewRef(((ReduceObject *)self)->pyfunc);
}

static PyGetSetDef reduce_getset[] = {
    {"identity", reduce_get_identity, NULL, "the identity (None: none)", NULL},
    {"py_func", reduce_get_pyfunc, NULL, "the combiner", NULL},
    {NULL},
};

static PyMethodDef reduce_methods[] = {
    {"inspect_cuda", reduce_inspect_cuda, METH_NOARGS,
     "the CUDA C++ of every reduction kernel compiled so far, as a list"},
    {NULL},
};

PyTypeObject ReduceType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Reduce",
    .tp_basicsize = sizeof(ReduceObject),
    .tp_dealloc = reduce_dealloc,
    .tp_call = reduce_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = reduce_methods,
    .tp_getset = reduce_getset,
    .tp_new = reduce_new,
    .tp_doc = "A reduction by a binary combiner (@reduce(identity=...)): "
              "r(x, axis=None, keepdims=False, out=None, dtype=None, map=None).",
};
