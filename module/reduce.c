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

/* axis= as a set of dimensions; 1 if none given (all) (forms.h) */
int
form_parse_axes(PyObject *axis, int ndim, int *red)
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

/* One reduction call's state */
typedef struct {
    ReduceObject *r;
    void *stream;
    PyObject *stream_obj;       /* the stream= argument (borrowed), kept by the output */
    Operand x, o;               /* the array, the output */
    RedPlan pl;
    int red[RT_MAXDIM];         /* reduced dimensions of x */
    int ond;                    /* the output's shape */
    int64_t oshape[RT_MAXDIM];
    int64_t nout, nred;         /* outputs, elements reduced into each */
    int64_t shape[RT_MAXDIM], strides[RT_MAXDIM];   /* x: kept dims, then reduced */
    int64_t splits, chunk;      /* blocks per output, elements per split */
    int block;
    PyObject *made, *partial;
} RedCall;

/* dtype=: the dtype elements are cast to before the map and the combiner */
static int
red_elem_dtype(PyObject *dtype_arg, DType *elem)
{
    if (!dtype_arg || dtype_arg == Py_None) {
        return 0;
    }
    PyObject *name = PyObject_Str(dtype_arg);
    if (PyType_Check(dtype_arg) || !PyUnicode_Check(dtype_arg)) {
        PyObject *np = PyImport_ImportModule("numpy");
        PyObject *dt = np ? PyObject_CallMethod(np, "dtype", "O", dtype_arg) : NULL;
        Py_XDECREF(np);
        Py_XDECREF(name);
        name = dt ? PyObject_GetAttrString(dt, "name") : NULL;
        Py_XDECREF(dt);
    }
    int ok = name && cj_dtype_from_name(PyUnicode_AsUTF8(name), elem);
    Py_XDECREF(name);
    if (!ok) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "dtype= must be a NumPy dtype cujit supports");
        return -1;
    }
    return 0;
}

/* the output's shape (keepdims keeps reduced dimensions as 1) */
static int
red_out_shape(RedCall *c, int keepdims)
{
    const RtArray *a = &c->x.a;
    c->ond = 0;
    c->nout = c->nred = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (!c->red[d]) {
            c->oshape[c->ond++] = a->shape[d];
            c->nout *= a->shape[d];
        } else {
            c->nred *= a->shape[d];
            if (keepdims) {
                c->oshape[c->ond++] = 1;
            }
        }
    }
    if (c->nred == 0 && c->r->identity == Py_None) {
        PyErr_Format(PyExc_ValueError, "zero-size array to reduction operation %U which has "
                     "no identity", c->r->name);
        return -1;
    }
    return 0;
}

/* out=: a contiguous array of the output's shape */
static int
red_given_out(RedCall *c, PyObject *out_arg)
{
    if (!out_arg || out_arg == Py_None) {
        return 0;
    }
    if (rt_get_array(out_arg, &c->o.a, c->stream, "out") < 0) {
        return -1;
    }
    c->o.is_array = 1;
    c->o.obj = out_arg;
    int same = c->o.a.ndim == c->ond;
    for (int d = 0; same && d < c->ond; d++) {
        same = c->o.a.shape[d] == c->oshape[d];
    }
    if (!same || !c->o.a.c_contig) {
        PyErr_Format(PyExc_ValueError, "%U(): out= must be a contiguous array of the "
                     "result's shape", c->r->name);
        return -1;
    }
    c->pl.has_out = 1;
    c->pl.out = c->o.a.dtype;
    return 0;
}

/* kept and reduced dimensions grouped; contiguous runs, or outer (the
 * innermost, smallest-stride dimension is a kept one) */
static void
red_layout(RedCall *c)
{
    RedPlan *pl = &c->pl;
    const RtArray *a = &c->x.a;
    rt_group_dims(a, c->red, &pl->nkeep, &pl->nred, c->shape, c->strides);
    pl->idx32 = rt_fits32(a->ndim, a->shape, a->strides) && c->nout * 64 < INT32_MAX;
    int isz = cj_dtypes[a->dtype].size;
    pl->contiguous = pl->nred <= 1 && (pl->nred == 0 || c->strides[pl->nkeep] == isz);
    if (pl->nkeep && pl->nred) {
        int64_t kmin = INT64_MAX, rmin = INT64_MAX;
        for (int d = 0; d < pl->nkeep + pl->nred; d++) {
            int64_t s = c->strides[d] < 0 ? -c->strides[d] : c->strides[d];
            if (d < pl->nkeep) {
                kmin = s < kmin ? s : kmin;
            } else {
                rmin = s < rmin ? s : rmin;
            }
        }
        pl->outer = kmin < rmin;
    }
    if (pl->outer) {
        pl->contiguous = 0;
    }
}

/* blocks per output (interleaved over its row) and the vector width, when
 * the reduced dimensions are the innermost */
static void
red_splits_inner(RedCall *c, int64_t target, int isz)
{
    RedPlan *pl = &c->pl;
    if (pl->contiguous) {
        int vec = 16 / isz;
        int aligned = (uintptr_t)c->x.a.ptr % 16 == 0;
        for (int d = 0; d < pl->nkeep; d++) {
            aligned &= c->strides[d] % 16 == 0;
        }
        pl->vec = aligned && vec > 1 ? vec : 1;
    }
    c->splits = rt_red_splits_rows(c->nout, c->nred, target);
}

/* the same when a kept dimension is innermost: outputs side by side in
 * packs, the reduced rows cut into chunks */
static void
red_splits_outer(RedCall *c, int64_t target, int isz)
{
    RedPlan *pl = &c->pl;
    int vec = 16 / isz;
    int packs = vec > 1 && pl->nkeep == 1 && c->strides[0] == isz && c->nout % vec == 0
                && (uintptr_t)c->x.a.ptr % 16 == 0;
    for (int d = pl->nkeep; packs && d < pl->nkeep + pl->nred; d++) {
        packs = c->strides[d] % 16 == 0;
    }
    pl->vec = packs ? vec : 1;
    int64_t bx = (c->nout / pl->vec + c->block - 1) / c->block;
    rt_red_splits_cols(bx, c->nred, target, &c->splits, &c->chunk);
}

static int
red_splits(RedCall *c)
{
    int sms = rt_multiprocessor_count();
    if (sms < 0) {
        return -1;
    }
    c->splits = 1;
    c->chunk = c->nred > 0 ? c->nred : 1;
    c->block = 256;
    c->pl.vec = 1;
    int isz = cj_dtypes[c->x.a.dtype].size;
    if (c->pl.outer) {
        red_splits_outer(c, (int64_t)sms * 8, isz);
    } else {
        red_splits_inner(c, (int64_t)sms * 8, isz);
    }
    return 0;
}

/* the kernel for this plan, compiled if new */
static Form *
red_kernel(RedCall *c)
{
    RedPlan *pl = &c->pl;
    Key k;
    k.n = 0;
    key_int(&k, pl->in | (pl->elem << 8) | ((int64_t)(pl->has_out ? pl->out : 255) << 16));
    if (pl->map) {
        /* the map's code, globals and closure values (a lambda made anew at
         * each call finds its kernel again) */
        key_int(&k, (int64_t)(uintptr_t)PyFunction_GET_CODE(pl->map));
        key_int(&k, (int64_t)(uintptr_t)PyFunction_GET_GLOBALS(pl->map));
        PyObject *cl = PyFunction_GET_CLOSURE(pl->map);
        for (Py_ssize_t i = 0; cl && i < PyTuple_GET_SIZE(cl); i++) {
            key_int(&k, (int64_t)(uintptr_t)PyCell_GET(PyTuple_GET_ITEM(cl, i)));
        }
    } else {
        key_int(&k, 0);
    }
    key_int(&k, pl->outer | (pl->contiguous << 1) | (pl->vec << 4) | (pl->nkeep << 12)
                | (pl->nred << 20) | ((int64_t)pl->idx32 << 28));
    Form *f = form_find(c->r->forms, &k);
    if (!f) {
        f = red_compile(c->r, pl, &k);
        if (f) {
            f->next = c->r->forms;
            c->r->forms = f;
        }
    }
    return f;
}

/* the output out= did not give */
static int
red_make_out(RedCall *c, const Form *f)
{
    if (c->o.is_array) {
        return 0;
    }
    c->made = rt_empty(c->ond, c->oshape, f->c.out[0], c->stream, c->stream_obj);
    if (!c->made) {
        rt_err_context("the output of reduction %s", PyUnicode_AsUTF8(c->r->name));
        return -1;
    }
    if (rt_get_array(c->made, &c->o.a, c->stream, "out") < 0) {
        return -1;
    }
    c->o.is_array = 1;
    c->o.obj = c->made;
    return 0;
}

/* the first pass: each split of each output into an accumulator (into the
 * output itself when there is one split) */
static int
red_pass1(RedCall *c, Form *f, int dev, uint64_t part_ptr)
{
    RedPlan *pl = &c->pl;
    unsigned char buf[2048] __attribute__((aligned(16)));
    void *params[8];
    size_t off = 0;
    int nd = pl->nkeep + pl->nred;
    if (nd == 0) {
        c->shape[0] = 1;
        c->strides[0] = cj_dtypes[c->x.a.dtype].size;
    }
    params[0] = buf;
    rt_pack_view(buf, &off, (uint64_t)(uintptr_t)c->x.a.ptr, nd > 0 ? nd : 1, c->shape,
                 c->strides, pl->idx32);
    uint64_t out_ptr = (uint64_t)(uintptr_t)c->o.a.ptr;
    params[1] = buf + off;
    rt_put(buf, &off, &part_ptr, 8, 8);
    params[2] = buf + off;
    rt_put(buf, &off, &out_ptr, 8, 8);
    int64_t vals[4] = {c->nout, c->nred, c->splits, c->chunk};
    for (int i = 0; i < (pl->outer ? 4 : 3); i++) {
        off = (off + 7) & ~(size_t)7;
        params[3 + i] = buf + off;
        rt_pack_index(buf, &off, vals[i], pl->idx32);
    }
    unsigned grid[3], blk[3] = {(unsigned)c->block, 1, 1};
    if (!pl->outer) {
        grid[0] = (unsigned)c->splits;
        grid[2] = (unsigned)(c->nout < 65535 ? c->nout : 65535);
        grid[1] = (unsigned)((c->nout + grid[2] - 1) / grid[2]);
    } else {
        grid[0] = (unsigned)((c->nout / pl->vec + c->block - 1) / c->block);
        grid[1] = (unsigned)c->splits;
        grid[2] = 1;
    }
    return rt_launch(&f->rk[dev], grid, blk, 0, c->stream, params, PyUnicode_AsUTF8(c->r->name));
}

/* the second pass ("_final"): the splits' accumulators into the output */
static int
red_pass2(RedCall *c, Form *f, int dev, uint64_t part_ptr)
{
    void *p2[5];
    size_t o2 = 0;
    unsigned char b2[64] __attribute__((aligned(16)));
    int outer = c->pl.outer;
    uint64_t out_ptr = (uint64_t)(uintptr_t)c->o.a.ptr;
    p2[0] = b2 + o2;
    rt_put(b2, &o2, &part_ptr, 8, 8);
    p2[1] = b2 + o2;
    rt_put(b2, &o2, &out_ptr, 8, 8);
    p2[2] = b2 + o2;
    rt_pack_index(b2, &o2, c->nout, c->pl.idx32);
    o2 = (o2 + 7) & ~(size_t)7;
    p2[3] = b2 + o2;
    rt_pack_index(b2, &o2, c->splits, c->pl.idx32);
    o2 = (o2 + 3) & ~(size_t)3;
    p2[4] = b2 + o2;
    rt_put(b2, &o2, &outer, 4, 4);
    unsigned g2[3] = {outer ? (unsigned)((c->nout + 255) / 256) : (unsigned)c->nout, 1, 1};
    unsigned blk[3] = {(unsigned)c->block, 1, 1};
    return rt_launch(&f->rk2[dev], g2, blk, 0, c->stream, p2, PyUnicode_AsUTF8(c->r->name));
}

/* the partial accumulators (several splits), then both passes */
static int
red_run(RedCall *c, Form *f)
{
    int dev = form_load(f, "_final");
    if (dev < 0) {
        return -1;
    }
    uint64_t part_ptr = 0;
    if (c->splits > 1) {
        int64_t nbytes = (int64_t)f->c.acc_size * c->nout * c->splits;
        c->partial = rt_empty(1, &nbytes, DT_U8, c->stream, NULL);
        RtArray pa;
        if (!c->partial) {
            rt_err_context("the partial results of reduction %s", PyUnicode_AsUTF8(c->r->name));
            return -1;
        }
        if (rt_get_array(c->partial, &pa, c->stream, "partials") < 0) {
            return -1;
        }
        part_ptr = (uint64_t)(uintptr_t)pa.ptr;
        rt_array_release(&pa, c->stream, 0);
    }
    int r = red_pass1(c, f, dev, part_ptr) < 0 ? -1
            : c->splits > 1 ? red_pass2(c, f, dev, part_ptr) : 0;
    if (pl_log_pending) {
        pl_log_launched(r == 0);    /* CUJIT_LOG: with both passes */
    }
    return r;
}

/* after the input is read: the plan, the kernel, the output and the run */
static int
red_body(RedCall *c, PyObject *axis, int keepdims, PyObject *out_arg, PyObject *dtype_arg,
         PyObject *map_arg)
{
    if (red_elem_dtype(dtype_arg, &c->pl.elem) < 0) {
        return -1;
    }
    if (map_arg && map_arg != Py_None && !(c->pl.map = scalar_function(map_arg))) {
        return -1;
    }
    if (form_parse_axes(axis, c->x.a.ndim, c->red) < 0 || red_out_shape(c, keepdims) < 0
        || red_given_out(c, out_arg) < 0) {
        return -1;
    }
    red_layout(c);
    Form *f = red_splits(c) == 0 ? red_kernel(c) : NULL;
    if (!f || red_make_out(c, f) < 0) {
        return -1;
    }
    return c->nout == 0 ? 0 : red_run(c, f);
}

static PyObject *
reduce_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"x", "axis", "keepdims", "out", "dtype", "map", "stream", NULL};
    PyObject *xo, *axis = NULL, *out_arg = NULL, *dtype_arg = NULL, *map_arg = NULL;
    PyObject *stream_arg = NULL, *result = NULL;
    int keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OpOOOO:reduce", kwlist, &xo, &axis,
                                     &keepdims, &out_arg, &dtype_arg, &map_arg, &stream_arg)) {
        return NULL;
    }
    RedCall c;
    memset(&c, 0, sizeof c);
    c.r = (ReduceObject *)self;
    c.stream_obj = stream_arg;
    if (rt_get_stream(stream_arg ? stream_arg : Py_None, &c.stream) < 0
        || operand(xo, &c.x, c.stream, "x") < 0) {
        return NULL;
    }
    if (!c.x.is_array) {
        PyErr_SetString(PyExc_TypeError, "reduce() needs an array");
        return NULL;
    }
    c.pl.in = c.pl.elem = c.x.dt;
    if (red_body(&c, axis, keepdims, out_arg, dtype_arg, map_arg) == 0) {
        result = Py_NewRef(c.o.obj);
    }
    int bad = rt_array_release(&c.x.a, c.stream, 0) < 0;
    if (c.o.is_array && rt_array_release(&c.o.a, c.stream, result != NULL) < 0) {
        bad = 1;
    }
    if (bad) {
        Py_CLEAR(result);
    }
    Py_XDECREF(c.made);
    Py_XDECREF(c.partial);
    if (!result) {
        rt_err_in(PyUnicode_AsUTF8(c.r->name), "reduction %s", PyUnicode_AsUTF8(c.r->name));
    }
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
    rt_nvrtc_warm_up();         /* NVRTC ready before the first call needs it */
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
