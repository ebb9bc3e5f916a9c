/* fuse.c - cujit.FuseReduce: a fused function (@cujit.fuse, cujit/_fuse.py)
 * that ends in a reduction, `return np.sum(expr, axis=..., keepdims=...)`.
 * The function, read in fused mode, is the reduction's map over several
 * inputs broadcast together: one kernel reads each input once and writes
 * only the result.  Every array input is seen through the broadcast shape
 * (stride 0 where broadcast), its kept and reduced dimensions grouped and
 * merged where every input allows; contiguous rows of every input are read
 * at one offset in aligned packs.  Elementwise fused functions are
 * Vectorize objects (vectorize.c). */
#include "forms.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/shape.h"

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    PyObject *names;        /* fuse_names */
    PyObject *axis;         /* None, an int or a tuple */
    char *kname;            /* kernel_name=, or NULL */
    int op;                 /* RedOp */
    int keepdims;
    int nparams;
    Form *forms;
    vectorcallfunc vectorcall;
} FuseReduceObject;

/* One call's state */
typedef struct {
    FuseReduceObject *r;
    void *stream;
    int n, nops, dry;
    Operand ops[MAXIN];
    ArgKey keys[MAXIN];
    int ndim;                   /* the broadcast shape */
    int64_t shape[RT_MAXDIM];
    int red[RT_MAXDIM];
    int ond;                    /* the result's shape */
    int64_t oshape[RT_MAXDIM];
    int64_t nout, nred;
    int narr, arr[MAXIN];       /* the array inputs */
    int nkeep, ngred;           /* grouped dimensions: kept, then reduced */
    int64_t gshape[RT_MAXDIM];
    int64_t st[MAXIN][RT_MAXDIM];   /* per array input, grouped strides */
    int outer, contiguous, vec, idx32;
    int64_t splits, chunk;
    Operand o;
    PyObject *made, *partial;
    unsigned char buf[(MAXIN + 8) * (8 + 16 * RT_MAXDIM)] __attribute__((aligned(16)));
} FrCall;

static const char *const op_names[] = {"", "sum", "prod", "minimum", "maximum", "mean", "any",
                                       "all", "argmin", "argmax"};

/* the inputs (read, or described), their keys and the broadcast shape */
static int
fr_inputs(FrCall *c, PyObject *const *args)
{
    for (; c->nops < c->n; c->nops++) {
        char what[48];
        snprintf(what, sizeof what, "input %d", c->nops + 1);
        Operand *op = &c->ops[c->nops];
        int r = c->dry ? operand_describe(args[c->nops], op)
                       : operand(args[c->nops], op, c->stream, what);
        if (r < 0) {
            return -1;
        }
        c->keys[c->nops] = operand_key(op);
        if (op->is_array) {
            c->arr[c->narr++] = c->nops;
        }
    }
    if (c->narr == 0) {
        PyErr_Format(PyExc_TypeError, "%U() reduces arrays: give it at least one array",
                     c->r->name);
        return -1;
    }
    return form_broadcast(c->ops, c->n, &c->ndim, c->shape);
}

/* the reduced dimensions, the result's shape and the counts */
static int
fr_shape(FrCall *c)
{
    if (form_parse_axes(c->r->axis, c->ndim, c->red) < 0) {
        return -1;
    }
    c->ond = 0;
    c->nout = c->nred = 1;
    for (int d = 0; d < c->ndim; d++) {
        if (!c->red[d]) {
            c->oshape[c->ond++] = c->shape[d];
            c->nout *= c->shape[d];
        } else {
            c->nred *= c->shape[d];
            if (c->r->keepdims) {
                c->oshape[c->ond++] = 1;
            }
        }
    }
    int op = c->r->op;
    if (c->nred == 0 && c->nout > 0 && (op == RED_ARGMIN || op == RED_ARGMAX)) {
        PyErr_Format(PyExc_ValueError, "attempt to get %s of an empty sequence", op_names[op]);
        return -1;
    }
    if (c->nred == 0 && c->nout > 0 && (op == RED_MIN || op == RED_MAX)) {
        PyErr_Format(PyExc_ValueError, "zero-size array to reduction operation %s which has "
                     "no identity", op_names[op]);
        return -1;
    }
    return 0;
}

/* the grouped dimensions and strides, the kernel's form (outer when a kept
 * dimension is innermost in the first array; contiguous when every array's
 * reduced run is contiguous) and 32-bit indexing */
static void
fr_layout(FrCall *c)
{
    for (int i = 0; i < c->narr; i++) {
        rt_broadcast_strides(&c->ops[c->arr[i]].a, c->ndim, c->shape, c->st[i]);
    }
    rt_group_dims_n(c->ndim, c->shape, c->st, c->narr, c->red, &c->nkeep, &c->ngred,
                    c->gshape);
    int nd = c->nkeep + c->ngred;
    c->contiguous = c->ngred <= 1;
    c->idx32 = c->nout * 64 < INT32_MAX;
    for (int i = 0; i < c->narr; i++) {
        const RtArray *a = &c->ops[c->arr[i]].a;
        if (c->ngred == 1) {
            c->contiguous &= c->st[i][c->nkeep] == cj_dtypes[a->dtype].size;
        }
        c->idx32 &= rt_fits32(nd, c->gshape, c->st[i]) && rt_fits32(a->ndim, a->shape,
                                                                    a->strides);
    }
    c->outer = 0;
    if (c->nkeep && c->ngred) {
        int64_t kmin = INT64_MAX, rmin = INT64_MAX;
        for (int d = 0; d < nd; d++) {
            int64_t s = c->st[0][d] < 0 ? -c->st[0][d] : c->st[0][d];
            if (s == 0) {
                continue;       /* broadcast: says nothing of the order */
            }
            if (d < c->nkeep) {
                kmin = s < kmin ? s : kmin;
            } else {
                rmin = s < rmin ? s : rmin;
            }
        }
        c->outer = kmin < rmin;
    }
    if (c->outer) {
        c->contiguous = 0;
    }
}

/* blocks per output and the vector width, as reduce.c's splits */
static int
fr_splits(FrCall *c)
{
    int sms = c->dry ? 132 : rt_multiprocessor_count();
    if (sms < 0) {
        return -1;
    }
    int64_t target = (int64_t)sms * 8;
    c->splits = 1;
    c->chunk = c->nred > 0 ? c->nred : 1;
    c->vec = 1;
    if (c->outer) {
        rt_red_splits_cols((c->nout + 255) / 256, c->nred, target, &c->splits, &c->chunk);
        return 0;
    }
    if (c->contiguous) {
        int maxsize = 1, aligned = 1;
        for (int i = 0; i < c->narr; i++) {
            const RtArray *a = &c->ops[c->arr[i]].a;
            int sz = cj_dtypes[a->dtype].size;
            maxsize = sz > maxsize ? sz : maxsize;
            aligned &= (uintptr_t)a->ptr % 16 == 0;
            for (int d = 0; d < c->nkeep; d++) {
                aligned &= c->st[i][d] % 16 == 0;
            }
        }
        c->vec = aligned && 16 / maxsize > 1 ? 16 / maxsize : 1;
    }
    c->splits = rt_red_splits_rows(c->nout, c->nred, target);
    return 0;
}

/* the kernel for these input types and this layout, compiled if new */
static Form *
fr_kernel(FrCall *c)
{
    FuseReduceObject *r = c->r;
    Key k;
    k.n = 0;
    unsigned char is_array[MAXIN];
    DType in_dtype[MAXIN];
    for (int i = 0; i < c->n; i++) {
        const Operand *op = &c->ops[i];
        is_array[i] = (unsigned char)op->is_array;
        in_dtype[i] = op->dt;
        key_int(&k, (op->is_array ? 1 : 0) | (op->weak ? 2 : 0) | (op->dt << 4));
    }
    key_int(&k, c->outer | (c->contiguous << 1) | (c->vec << 4) | (c->nkeep << 12)
                | (c->ngred << 20) | ((int64_t)c->idx32 << 28));
    Form *f = form_find(r->forms, &k);
    if (f) {
        return f;
    }
    char label[256];
    snprintf(label, sizeof label, "fuse %s", PyUnicode_AsUTF8(r->name));
    PlRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = PL_FUSE_REDUCTION;
    rq.func = r->pyfunc;
    rq.label = label;
    rq.idx32 = c->idx32;
    rq.args = c->keys;
    rq.nargs = c->n;
    rq.is_array = is_array;
    rq.in_dtype = in_dtype;
    rq.outer = c->outer;
    rq.contiguous = c->contiguous;
    rq.red_vec = c->vec;
    rq.nkeep = c->nkeep;
    rq.nred = c->ngred;
    rq.fuse_names = r->names;
    rq.kname = r->kname;
    rq.fuse_red = r->op;
    f = form_new(&k);
    if (!f || pl_transpile(&rq, &f->c) < 0) {
        if (f) {
            form_free(f);
        }
        return NULL;
    }
    f->next = r->forms;
    r->forms = f;
    return f;
}

/* the inputs as parameters: array views (grouped) and numbers */
static size_t
fr_pack_inputs(FrCall *c, void **params)
{
    size_t off = 0;
    int nd = c->nkeep + c->ngred, ai = 0;
    int64_t one[1] = {1};
    for (int i = 0; i < c->n; i++) {
        const Operand *op = &c->ops[i];
        if (op->is_array) {
            int64_t isz[1] = {cj_dtypes[op->a.dtype].size};
            off = (off + 7) & ~(size_t)7;
            params[i] = c->buf + off;
            rt_pack_view(c->buf, &off, (uint64_t)(uintptr_t)op->a.ptr, nd ? nd : 1,
                         nd ? c->gshape : one, nd ? c->st[ai] : isz, c->idx32);
            ai++;
            continue;
        }
        int sz = cj_dtypes[op->dt].size;
        size_t al = (size_t)(sz > 8 ? 8 : sz);
        off = (off + al - 1) & ~(al - 1);
        params[i] = c->buf + off;
        unsigned char bytes[16];
        if (rt_scalar_to_bytes(op->obj, op->dt, bytes) < 0) {
            return (size_t)-1;
        }
        rt_put(c->buf, &off, bytes, (size_t)sz, al);
    }
    return off;
}

/* pass 1 (and pass 2 over the splits' partials) */
static int
fr_launch(FrCall *c, Form *f, int dev, uint64_t part_ptr)
{
    void *params[MAXIN + 8];
    size_t off = fr_pack_inputs(c, params);
    if (off == (size_t)-1) {
        return -1;
    }
    int np = c->n;
    uint64_t out_ptr = (uint64_t)(uintptr_t)c->o.a.ptr;
    off = (off + 7) & ~(size_t)7;
    params[np++] = c->buf + off;
    rt_put(c->buf, &off, &part_ptr, 8, 8);
    params[np++] = c->buf + off;
    rt_put(c->buf, &off, &out_ptr, 8, 8);
    int64_t vals[4] = {c->nout, c->nred, c->splits, c->chunk};
    for (int i = 0; i < (c->outer ? 4 : 3); i++) {
        off = (off + 7) & ~(size_t)7;
        params[np++] = c->buf + off;
        rt_pack_index(c->buf, &off, vals[i], c->idx32);
    }
    unsigned grid[3], blk[3] = {256, 1, 1};
    if (!c->outer) {
        grid[0] = (unsigned)c->splits;
        grid[2] = (unsigned)(c->nout < 65535 ? c->nout : 65535);
        grid[1] = (unsigned)((c->nout + grid[2] - 1) / grid[2]);
    } else {
        grid[0] = (unsigned)((c->nout + 255) / 256);
        grid[1] = (unsigned)c->splits;
        grid[2] = 1;
    }
    const char *name = PyUnicode_AsUTF8(c->r->name);
    if (rt_launch(&f->rk[dev], grid, blk, 0, c->stream, params, name) < 0 || c->splits == 1) {
        return c->splits == 1 ? 0 : -1;
    }
    unsigned char b2[96] __attribute__((aligned(16)));
    void *p2[6];
    size_t o2 = 0;
    p2[0] = b2 + o2;
    rt_put(b2, &o2, &part_ptr, 8, 8);
    p2[1] = b2 + o2;
    rt_put(b2, &o2, &out_ptr, 8, 8);
    p2[2] = b2 + o2;
    rt_pack_index(b2, &o2, c->nout, c->idx32);
    o2 = (o2 + 7) & ~(size_t)7;
    p2[3] = b2 + o2;
    rt_pack_index(b2, &o2, c->splits, c->idx32);
    o2 = (o2 + 3) & ~(size_t)3;
    p2[4] = b2 + o2;
    rt_put(b2, &o2, &c->outer, 4, 4);
    o2 = (o2 + 7) & ~(size_t)7;
    p2[5] = b2 + o2;
    rt_pack_index(b2, &o2, c->nred, c->idx32);
    unsigned g2[3] = {c->outer ? (unsigned)((c->nout + 255) / 256) : (unsigned)c->nout, 1, 1};
    return rt_launch(&f->rk2[dev], g2, blk, 0, c->stream, p2, name);
}

/* the result, the partials and the passes */
static int
fr_run(FrCall *c, Form *f)
{
    c->made = rt_empty(c->ond, c->oshape, f->c.out[0], c->stream, NULL);
    if (!c->made || rt_get_array(c->made, &c->o.a, c->stream, "out") < 0) {
        return -1;
    }
    c->o.is_array = 1;
    c->o.obj = c->made;
    if (c->nout == 0) {
        return 0;
    }
    int dev = form_load(f, "_final");
    if (dev < 0) {
        return -1;
    }
    uint64_t part_ptr = 0;
    if (c->splits > 1) {
        int64_t nbytes = (int64_t)f->c.acc_size * c->nout * c->splits;
        c->partial = rt_empty(1, &nbytes, DT_U8, c->stream, NULL);
        RtArray pa;
        if (!c->partial || rt_get_array(c->partial, &pa, c->stream, "partials") < 0) {
            return -1;
        }
        part_ptr = (uint64_t)(uintptr_t)pa.ptr;
        if (rt_array_release(&pa, c->stream, 0) < 0) {
            return -1;
        }
    }
    return fr_launch(c, f, dev, part_ptr);
}

/* inputs, shape, layout and kernel; the form, or NULL with an exception */
static Form *
fr_plan(FrCall *c, PyObject *const *args)
{
    if (fr_inputs(c, args) < 0 || fr_shape(c) < 0) {
        return NULL;
    }
    fr_layout(c);
    return fr_splits(c) == 0 ? fr_kernel(c) : NULL;
}

static FrCall *
fr_start(FuseReduceObject *r, Py_ssize_t n, int dry)
{
    if (n != r->nparams) {
        PyErr_Format(PyExc_TypeError, "%U() takes %d argument%s, got %zd", r->name, r->nparams,
                     r->nparams == 1 ? "" : "s", n);
        return NULL;
    }
    FrCall *c = PyMem_Calloc(1, sizeof *c);
    if (!c) {
        return (FrCall *)PyErr_NoMemory();
    }
    c->r = r;
    c->n = (int)n;
    c->dry = dry;
    return c;
}

static PyObject *
fuse_reduce_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FuseReduceObject *r = (FuseReduceObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        PyErr_Format(PyExc_TypeError, "%U() takes its arguments by position", r->name);
        return NULL;
    }
    FrCall *c = fr_start(r, n, 0);
    if (!c) {
        return NULL;
    }
    PyObject *result = NULL;
    Form *f = fr_plan(c, args);
    if (f) {
        int ran = fr_run(c, f);
        if (pl_log_pending) {
            pl_log_launched(ran == 0);
        }
        if (ran == 0) {
            result = Py_NewRef(c->made);
        }
    }
    /* a failed release (a copy or a free) is the call's error */
    int rel = release(c->ops, c->nops, c->stream, 0);
    if (c->o.is_array && rt_array_release(&c->o.a, c->stream, 0) < 0) {
        rel = -1;
    }
    if (rel < 0) {
        Py_CLEAR(result);
    }
    Py_XDECREF(c->made);
    Py_XDECREF(c->partial);
    PyMem_Free(c);
    return result;
}

/* the form a call with example arguments runs, without a GPU */
static Form *
fr_dry_form(FuseReduceObject *r, PyObject *const *args, Py_ssize_t n)
{
    FrCall *c = fr_start(r, n, 1);
    Form *f = c ? fr_plan(c, args) : NULL;
    PyMem_Free(c);
    return f;
}

/* inspect_cuda(): every kernel compiled so far; inspect_cuda(*args): the
 * kernel a call with these example arguments runs, without a GPU */
static PyObject *
fuse_reduce_inspect_cuda(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    FuseReduceObject *r = (FuseReduceObject *)self;
    if (n == 0) {
        return forms_sources(r->forms);
    }
    Form *f = fr_dry_form(r, args, n);
    return f ? PyUnicode_FromString(f->c.src) : NULL;
}

/* inspect_ptx(*args, arch="sm_90"): NVRTC's PTX of that kernel */
static PyObject *
fuse_reduce_inspect_ptx(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                        PyObject *kwnames)
{
    const char *arch = "sm_90";
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (form_arch_keyword(args, n, kwnames, &arch) < 0) {
        return NULL;
    }
    Form *f = fr_dry_form((FuseReduceObject *)self, args, n);
    return f ? pl_binary(&f->c, arch, 0) : NULL;
}

static PyObject *
fuse_reduce_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "op", "axis", "keepdims", "fuse_names", "kernel_name",
                             NULL};
    PyObject *func, *axis = Py_None, *names, *kname = Py_None;
    int op, keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|OpO!O:FuseReduce", kwlist, &func, &op,
                                     &axis, &keepdims, &PyDict_Type, &names, &kname)) {
        return NULL;
    }
    if (!PyFunction_Check(func) || op <= RED_NONE || op > RED_ARGMAX) {
        PyErr_SetString(PyExc_TypeError, "FuseReduce(func, op): a Python function and a "
                        "reduction");
        return NULL;
    }
    FuseReduceObject *r = (FuseReduceObject *)type->tp_alloc(type, 0);
    if (!r) {
        return NULL;
    }
    r->pyfunc = Py_NewRef(func);
    r->names = Py_NewRef(names);
    r->axis = Py_NewRef(axis);
    r->op = op;
    r->keepdims = keepdims;
    r->nparams = param_count(func);
    r->vectorcall = fuse_reduce_call;
    r->name = PyObject_GetAttrString(func, "__name__");
    const char *k = kname != Py_None && PyUnicode_Check(kname) ? PyUnicode_AsUTF8(kname) : NULL;
    if (k && (r->kname = malloc(strlen(k) + 1))) {
        strcpy(r->kname, k);
    }
    if (!r->name || (k && !r->kname)) {
        Py_DECREF(r);
        return k && !PyErr_Occurred() ? PyErr_NoMemory() : NULL;
    }
    rt_nvrtc_warm_up();         /* NVRTC ready before the first call needs it */
    return (PyObject *)r;
}

static void
fuse_reduce_dealloc(PyObject *self)
{
    FuseReduceObject *r = (FuseReduceObject *)self;
    Py_XDECREF(r->pyfunc);
    Py_XDECREF(r->name);
    Py_XDECREF(r->names);
    Py_XDECREF(r->axis);
    free(r->kname);
    forms_free(&r->forms);
    Py_TYPE(self)->tp_free(self);
}

static PyMethodDef fuse_reduce_methods[] = {
    {"inspect_cuda", (PyCFunction)(void (*)(void))fuse_reduce_inspect_cuda, METH_FASTCALL,
     "inspect_cuda(): the CUDA C++ of every kernel compiled so far, as a list; "
     "inspect_cuda(*args): the kernel a call with these example arguments runs"},
    {"inspect_ptx", (PyCFunction)(void (*)(void))fuse_reduce_inspect_ptx,
     METH_FASTCALL | METH_KEYWORDS, "inspect_ptx(*args, arch='sm_90'): PTX from NVRTC"},
    {NULL},
};

PyTypeObject FuseReduceType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.FuseReduce",
    .tp_basicsize = sizeof(FuseReduceObject),
    .tp_dealloc = fuse_reduce_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FuseReduceObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_methods = fuse_reduce_methods,
    .tp_new = fuse_reduce_new,
    .tp_doc = "A fused function ending in a reduction (@cujit.fuse): one kernel, its body "
              "the reduction's map over the broadcast inputs.",
};
