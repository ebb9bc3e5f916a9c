/* vectorize.c - cujit.Vectorize (@vectorize): an elementwise kernel
 * around a scalar function, with NumPy broadcasting, lazy or eager (Numba's
 * signature strings) typing, out= and streams. */
#include "forms.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/shape.h"

/* the first eager signature every input casts to safely (Python numbers by
 * kind, as NumPy's value-based rules for weak scalars); -1 if none */
static int
pick_sig(VectorizeObject *v, Operand *ops, int n)
{
    for (int s = 0; s < v->nsigs; s++) {
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            DType to = v->sigs[s].in[i];
            if (ops[i].weak) {
                char fk = cj_dtypes[ops[i].dt].kind, tk = cj_dtypes[to].kind;
                ok = fk == 'i' ? tk != 'b' : fk == 'f' ? (tk == 'f' || tk == 'c') : tk == 'c';
            } else {
                ok = cj_can_cast_safe(ops[i].dt, to);
            }
        }
        if (ok) {
            return s;
        }
    }
    return -1;
}

static void
sig_error(VectorizeObject *v, Operand *ops, int n)
{
    Buf b;
    buf_init(&b);
    buf_printf(&b, "%s() has no signature for inputs (", PyUnicode_AsUTF8(v->name));
    for (int i = 0; i < n; i++) {
        buf_printf(&b, "%s%s", i ? ", " : "", ops[i].weak ? (cj_dtypes[ops[i].dt].kind == 'f'
                                                              ? "float" : cj_dtypes[ops[i].dt].kind
                                                              == 'c' ? "complex" : "int")
                                                           : cj_dtypes[ops[i].dt].name);
    }
    buf_puts(&b, "); its signatures are:");
    for (int s = 0; s < v->nsigs; s++) {
        buf_puts(&b, s ? ", " : " ");
        buf_printf(&b, "%s(", cj_dtypes[v->sigs[s].out[0]].name);
        for (int i = 0; i < v->nparams; i++) {
            buf_printf(&b, "%s%s", i ? ", " : "", cj_dtypes[v->sigs[s].in[i]].name);
        }
        buf_puts(&b, ")");
    }
    PyErr_SetString(PyExc_TypeError, b.s);
    buf_free(&b);
}

typedef struct {
    int n;                      /* inputs */
    ArgKey fn_args[MAXIN];      /* the scalar function's parameter types */
    int ndim, vec, idx32;
    int nout_given;             /* out= arrays */
    DType out_given[MAXOUT];
} EwPlan;

/* types the scalar function for `plan` and, unless typing_only, emits the
 * kernel through the pipeline */
static Form *
ew_compile(VectorizeObject *v, Operand *ops, EwPlan *plan, const Key *key, int typing_only)
{
    char label[256];
    unsigned char is_array[MAXIN];
    DType in_dtype[MAXIN];
    for (int i = 0; i < plan->n; i++) {
        is_array[i] = (unsigned char)ops[i].is_array;
        in_dtype[i] = ops[i].dt;
    }
    snprintf(label, sizeof label, "%s %s", v->fuse_names ? "fuse" : "vectorize",
             PyUnicode_AsUTF8(v->name));
    PlRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = PL_ELEMENTWISE;
    rq.func = v->pyfunc;
    rq.label = label;
    rq.idx32 = plan->idx32;
    rq.args = plan->fn_args;
    rq.nargs = plan->n;
    rq.typing_only = typing_only;
    rq.is_array = is_array;
    rq.in_dtype = in_dtype;
    rq.ndim = plan->ndim;
    rq.vec = plan->vec;
    rq.nout_given = plan->nout_given;
    memcpy(rq.out_given, plan->out_given, sizeof rq.out_given);
    rq.fuse_names = v->fuse_names;
    rq.kname = v->kname;
    rq.inplace = v->inplace;
    rq.ninplace = v->ninplace;
    rq.numba = v->numba;
    Form *f = form_new(key);
    if (f && pl_transpile(&rq, &f->c) < 0) {
        form_free(f);
        return NULL;
    }
    return f;
}

/* NumPy broadcasting of the array operands' shapes (forms.h) */
int
form_broadcast(Operand *ops, int n, int *ndim, int64_t *shape)
{
    *ndim = 0;
    for (int i = 0; i < n; i++) {
        if (ops[i].is_array && ops[i].a.ndim > *ndim) {
            *ndim = ops[i].a.ndim;
        }
    }
    for (int d = 0; d < *ndim; d++) {
        shape[d] = 1;
    }
    for (int i = 0; i < n; i++) {
        if (!ops[i].is_array) {
            continue;
        }
        int off = *ndim - ops[i].a.ndim;
        for (int d = 0; d < ops[i].a.ndim; d++) {
            int64_t s = ops[i].a.shape[d];
            if (s != 1 && shape[off + d] != 1 && s != shape[off + d]) {
                PyErr_Format(PyExc_ValueError, "operands could not be broadcast together: "
                             "input %d has shape dimension %lld where another has %lld", i + 1,
                             (long long)s, (long long)shape[off + d]);
                return -1;
            }
            if (s != 1) {
                shape[off + d] = s;
            }
        }
    }
    return 0;
}

/* a scalar operand as the kernel parameter of type t */
static int
pack_operand_scalar(unsigned char *buf, size_t *off, const Operand *op, ArgKey t)
{
    DType dt = (DType)t.dtype;
    unsigned char bytes[16];
    if (rt_scalar_to_bytes(op->obj, dt, bytes) < 0) {
        return -1;
    }
    int sz = cj_dtypes[dt].size;
    rt_put(buf, off, bytes, (size_t)sz, (size_t)(sz > 8 ? 8 : sz));
    return 0;
}

/* NEP 50: a Python int argument must fit each integer dtype the function
 * converts it to (the eager signature's input type, or what it meets as an
 * operand); NumPy's OverflowError otherwise, raised before launching */
static int
check_python_ints(const Form *typed, const Sig *sig, const Operand *ops, int n)
{
    for (int i = 0; i < n; i++) {
        if (!ops[i].weak || cj_dtypes[ops[i].dt].kind != 'i') {
            continue;
        }
        uint32_t to = typed->c.weak_to[i];
        char k = sig ? cj_dtypes[sig->in[i]].kind : 0;
        if (k == 'i' || k == 'u') {
            to |= 1u << sig->in[i];
        }
        for (int d = 0; d < DT_COUNT; d++) {
            unsigned char bytes[16];
            if ((to >> d & 1) && rt_scalar_to_bytes(ops[i].obj, (DType)d, bytes) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

static int
is_contig(const RtArray *a, char order)
{
    return order == 'F' ? a->f_contig : a->c_contig;
}

/* One call's state, in storage too large for the stack (58 KB: see
 * rt_scratch_get).  Only the fields above `cshape` are reset per call; the
 * operands are filled as they are read. */
typedef struct {
    VectorizeObject *v;
    int n;                      /* inputs */
    void *stream;
    PyObject *stream_obj;       /* the stream= argument (borrowed), kept by outputs */
    int nops, nouts;            /* operands read so far (released at the end) */
    PyObject *made[MAXOUT];     /* outputs allocated here */
    int sig;                    /* the eager signature chosen; -1: lazy typing */
    int ndim;                   /* the broadcast shape */
    int64_t shape[RT_MAXDIM];
    int64_t total;
    char order;                 /* 'F' when F-ordered inputs give F-ordered results */
    int flat;                   /* every operand contiguous in that order, full shape */
    int dry;                    /* inspect_cuda(*args): described, not copied or run */
    Form *typed;                /* the result dtypes */
    Key tk;                     /* typing key */
    EwPlan plan;
    int nd;                     /* strided: the collapsed shape and strides */
    int64_t cshape[RT_MAXDIM];
    Operand ops[MAXIN], outs[MAXOUT];
    int64_t st[MAXIN + MAXOUT][RT_MAXDIM];
    void *params[MAXIN + MAXOUT + 1];
    unsigned char buf[(MAXIN + MAXOUT + 2) * (8 + 16 * RT_MAXDIM)] __attribute__((aligned(16)));
} VecCall;

static VecCall vec_static;
static int vec_static_busy;

/* out= and stream=; -1 with TypeError for any other keyword */
static int
vec_keywords(VectorizeObject *v, PyObject *const *args, Py_ssize_t n, PyObject *kwnames,
             PyObject **out_arg, PyObject **stream_arg)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *kn = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (kn && strcmp(kn, "out") == 0) {
            *out_arg = args[n + k];
        } else if (kn && strcmp(kn, "stream") == 0) {
            *stream_arg = args[n + k];
        } else {
            PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%s' "
                         "(it takes out= and stream=)", v->name, kn ? kn : "?");
            return -1;
        }
    }
    if (n != v->nparams) {
        PyErr_Format(PyExc_TypeError, "%U() takes %d input%s, got %zd", v->name, v->nparams,
                     v->nparams == 1 ? "" : "s", n);
        return -1;
    }
    if (n > MAXIN) {
        PyErr_SetString(PyExc_TypeError, "too many inputs");
        return -1;
    }
    return 0;
}

/* the inputs, the scalar function's parameter types and the broadcast shape */
static int
vec_inputs(VecCall *c, PyObject *const *args)
{
    VectorizeObject *v = c->v;
    for (; c->nops < c->n; c->nops++) {
        char what[48];
        snprintf(what, sizeof what, "input %d", c->nops + 1);
        int r = c->dry ? operand_describe(args[c->nops], &c->ops[c->nops])
                       : operand(args[c->nops], &c->ops[c->nops], c->stream, what);
        if (r < 0) {
            return -1;
        }
    }
    c->sig = -1;
    if (v->nsigs) {
        c->sig = pick_sig(v, c->ops, c->n);
        if (c->sig < 0) {
            sig_error(v, c->ops, c->n);
            return -1;
        }
    }
    for (int i = 0; i < c->n; i++) {
        c->plan.fn_args[i] = c->sig >= 0 ? rt_scalar_key(v->sigs[c->sig].in[i])
                                         : operand_key(&c->ops[i]);
    }
    if (form_broadcast(c->ops, c->n, &c->ndim, c->shape) < 0) {
        return -1;
    }
    c->total = 1;
    for (int d = 0; d < c->ndim; d++) {
        c->total *= c->shape[d];
    }
    return 0;
}

/* a fused function's arguments written in place (x += y): the first
 * outputs, arrays of the broadcast shape (NumPy: "non-broadcastable
 * output"); read again as outputs, so a host array is copied back */
static int
vec_inplace_outputs(VecCall *c, PyObject *const *args)
{
    VectorizeObject *v = c->v;
    for (; c->nouts < v->ninplace; c->nouts++) {
        int p = v->inplace[c->nouts];
        Operand *o = &c->outs[c->nouts];
        const Operand *in = &c->ops[p];
        int same = in->is_array && in->a.ndim == c->ndim;
        for (int d = 0; same && d < c->ndim; d++) {
            same = in->a.shape[d] == c->shape[d];
        }
        if (!same) {
            PyErr_Format(PyExc_ValueError, "%U() writes into its argument %d in place (x += "
                         "..., out=x), so it must be an array of the broadcast shape of the "
                         "inputs", v->name, p + 1);
            return -1;
        }
        *o = *in;
        o->a.host = NULL;
        o->a.owned = NULL;
        if (!c->dry && rt_get_array(args[p], &o->a, c->stream, "argument written in place") < 0) {
            return -1;
        }
        c->plan.out_given[c->nouts] = o->a.dtype;
    }
    c->plan.nout_given = c->nouts;
    return 0;
}

/* out= arrays (one, or a tuple), which must have the broadcast shape */
static int
vec_given_outputs(VecCall *c, PyObject *out_arg)
{
    if (!out_arg || out_arg == Py_None) {
        return 0;
    }
    if (c->v->ninplace) {
        PyErr_Format(PyExc_TypeError, "%U() writes into its arguments in place; it takes no "
                     "out=", c->v->name);
        return -1;
    }
    int tup = PyTuple_Check(out_arg);
    int k = tup ? (int)PyTuple_GET_SIZE(out_arg) : 1;
    for (; c->nouts < k && c->nouts < MAXOUT; c->nouts++) {
        Operand *o = &c->outs[c->nouts];
        PyObject *obj = tup ? PyTuple_GET_ITEM(out_arg, c->nouts) : out_arg;
        if (rt_get_array(obj, &o->a, c->stream, "out") < 0) {
            return -1;
        }
        o->is_array = 1;
        o->obj = obj;
        int same = o->a.ndim == c->ndim;
        for (int d = 0; same && d < c->ndim; d++) {
            same = o->a.shape[d] == c->shape[d];
        }
        if (!same) {
            PyErr_Format(PyExc_ValueError, "%U(): out= has the wrong shape for the "
                         "broadcast inputs", c->v->name);
            c->nouts++;
            return -1;
        }
        c->plan.out_given[c->nouts] = o->a.dtype;
    }
    c->plan.nout_given = c->nouts;
    return 0;
}

/* flat when every array operand is contiguous in one order with the full
 * shape; otherwise strided */
static void
vec_layout(VecCall *c)
{
    int any_f = 0, all_f = 1;
    for (int i = 0; i < c->n; i++) {
        if (c->ops[i].is_array) {
            any_f |= c->ops[i].a.f_contig && !c->ops[i].a.c_contig;
            all_f &= c->ops[i].a.f_contig;
        }
    }
    c->order = any_f && all_f ? 'F' : 'C';
    c->flat = 1;
    for (int i = 0; i < c->n && c->flat; i++) {
        const RtArray *a = &c->ops[i].a;
        if (c->ops[i].is_array) {
            c->flat = is_contig(a, c->order) && a->ndim == c->ndim;
            for (int d = 0; c->flat && d < c->ndim; d++) {
                c->flat = a->shape[d] == c->shape[d];
            }
        }
    }
    for (int k = 0; k < c->nouts && c->flat; k++) {
        c->flat = is_contig(&c->outs[k].a, c->order);
    }
}

/* the result dtypes: the scalar function typed for these inputs (once per
 * typing key), then the checks that need them */
static int
vec_typing(VecCall *c)
{
    VectorizeObject *v = c->v;
    const Sig *sig = c->sig >= 0 ? &v->sigs[c->sig] : NULL;
    c->tk.n = 0;
    key_int(&c->tk, 0);
    for (int i = 0; i < c->n; i++) {
        const Operand *op = &c->ops[i];
        key_int(&c->tk, (op->is_array ? 1 : 0) | (op->weak ? 2 : 0) | (op->dt << 4)
                        | ((int64_t)(sig ? sig->in[i] : 99) << 12));
    }
    for (int k = 0; k < c->nouts; k++) {
        key_int(&c->tk, 1000 + c->plan.out_given[k]);
    }
    Form *typed = form_find(v->forms, &c->tk);
    if (!typed) {
        typed = ew_compile(v, c->ops, &c->plan, &c->tk, 1);
        if (!typed) {
            return -1;
        }
        typed->next = v->forms;
        v->forms = typed;
    }
    for (int k = c->nouts; sig && k < typed->c.nout && k < sig->nout; k++) {
        typed->c.out[k] = sig->out[k];
    }
    c->typed = typed;
    if (check_python_ints(typed, sig, c->ops, c->n) < 0) {
        return -1;
    }
    if (c->nouts && !v->ninplace && c->nouts != typed->c.nout) {
        PyErr_Format(PyExc_ValueError, "%U() has %d outputs but out= gives %d", v->name,
                     typed->c.nout, c->nouts);
        return -1;
    }
    return 0;
}

/* an output as it would be made: contiguous in the call's order, aligned */
static void
dry_output(VecCall *c, Operand *o, DType dt)
{
    memset(o, 0, sizeof *o);
    o->is_array = 1;
    o->dt = o->a.dtype = dt;
    o->a.ndim = c->ndim;
    int64_t step = cj_dtypes[dt].size;
    for (int k = 0; k < c->ndim; k++) {
        int d = c->order == 'F' ? k : c->ndim - 1 - k;
        o->a.shape[d] = c->shape[d];
        o->a.strides[d] = step;
        step *= c->shape[d] > 1 ? c->shape[d] : 1;
    }
    o->a.c_contig = c->order != 'F' || c->ndim <= 1;
    o->a.f_contig = c->order == 'F' || c->ndim <= 1;
}

/* the outputs out= did not give, in the inputs' order (NumPy's order='K') */
static int
vec_make_outputs(VecCall *c)
{
    for (; c->nouts < c->typed->c.nout; c->nouts++) {
        Operand *o = &c->outs[c->nouts];
        if (c->dry) {
            dry_output(c, o, c->typed->c.out[c->nouts]);
            continue;
        }
        PyObject *m = rt_empty_order(c->ndim, c->shape, c->typed->c.out[c->nouts], c->order,
                                     c->stream, c->stream_obj);
        c->made[c->nouts] = m;
        if (!m) {
            rt_err_context("the output of %s()", PyUnicode_AsUTF8(c->v->name));
            return -1;
        }
        if (rt_get_array(m, &o->a, c->stream, "out") < 0) {
            return -1;
        }
        o->is_array = 1;
        o->obj = m;
    }
    return 0;
}

/* 32-bit indexing, and the vector width (flat) or collapsed strides (strided) */
static void
vec_geometry(VecCall *c)
{
    int idx32 = c->total < INT32_MAX, maxsize = 1;
    for (int i = 0; i < c->n + c->nouts; i++) {
        const Operand *op = i < c->n ? &c->ops[i] : &c->outs[i - c->n];
        if (op->is_array) {
            idx32 &= rt_fits32(op->a.ndim, op->a.shape, op->a.strides);
            int sz = cj_dtypes[op->a.dtype].size;
            maxsize = sz > maxsize ? sz : maxsize;
        }
    }
    c->plan.idx32 = idx32;
    c->plan.vec = 1;
    c->plan.ndim = 0;
    if (c->flat) {
        int vec = 16 / maxsize;
        vec = vec > 8 ? 8 : vec;
        for (int i = 0; i < c->n + c->nouts && vec > 1; i++) {
            const Operand *op = i < c->n ? &c->ops[i] : &c->outs[i - c->n];
            if (op->is_array
                && (uintptr_t)op->a.ptr % ((uintptr_t)cj_dtypes[op->a.dtype].size * vec)) {
                vec = 1;
            }
        }
        c->plan.vec = vec > 1 ? vec : 1;
        return;
    }
    memcpy(c->cshape, c->shape, sizeof(int64_t) * (size_t)c->ndim);
    int k = 0;
    for (int i = 0; i < c->n + c->nouts; i++) {
        const Operand *op = i < c->n ? &c->ops[i] : &c->outs[i - c->n];
        if (op->is_array) {
            rt_broadcast_strides(&op->a, c->ndim, c->shape, c->st[k++]);
        }
    }
    c->nd = rt_collapse_dims(c->ndim, c->cshape, c->st, k);
    c->plan.ndim = c->nd;
}

/* the kernel for this geometry and these output dtypes, compiled if new */
static Form *
vec_kernel(VecCall *c)
{
    Key kk = c->tk;
    key_int(&kk, 7777);
    key_int(&kk, c->plan.ndim);
    key_int(&kk, c->plan.vec);
    key_int(&kk, c->plan.idx32);
    for (int k = 0; k < c->nouts; k++) {
        key_int(&kk, c->outs[k].a.dtype);
    }
    Form *f = form_find(c->v->forms, &kk);
    if (f) {
        return f;
    }
    for (int k = 0; k < c->nouts; k++) {
        c->plan.out_given[k] = c->outs[k].a.dtype;
    }
    c->plan.nout_given = c->nouts;
    f = ew_compile(c->v, c->ops, &c->plan, &kk, 0);
    if (f) {
        f->next = c->v->forms;
        c->v->forms = f;
    }
    return f;
}

/* an array operand: its pointer (flat) or its view through the collapsed
 * strides st (strided) */
static void
vec_pack_array(VecCall *c, const RtArray *a, const int64_t *st, size_t *off)
{
    if (c->plan.ndim == 0) {
        uint64_t ptr = (uint64_t)(uintptr_t)a->ptr;
        rt_put(c->buf, off, &ptr, 8, 8);
    } else {
        rt_pack_view(c->buf, off, (uint64_t)(uintptr_t)a->ptr, c->nd, c->cshape, st,
                     c->plan.idx32);
    }
}

/* the parameters: inputs, outputs, the element count; -1 with an exception */
static int
vec_pack(VecCall *c)
{
    size_t off = 0;
    int np = 0, k = 0;
    for (int i = 0; i < c->n + c->nouts; i++) {
        const Operand *op = i < c->n ? &c->ops[i] : &c->outs[i - c->n];
        if (op->is_array) {
            off = (off + 7) & ~(size_t)7;
            c->params[np++] = c->buf + off;
            vec_pack_array(c, &op->a, c->plan.ndim ? c->st[k++] : NULL, &off);
            continue;
        }
        int sz = cj_dtypes[c->plan.fn_args[i].dtype].size;
        size_t al = (size_t)(sz > 8 ? 8 : sz);
        off = (off + al - 1) & ~(al - 1);
        c->params[np++] = c->buf + off;
        if (pack_operand_scalar(c->buf, &off, op, c->plan.fn_args[i]) < 0) {
            return -1;
        }
    }
    off = (off + 7) & ~(size_t)7;
    c->params[np++] = c->buf + off;
    rt_pack_index(c->buf, &off, c->total, c->plan.idx32);
    return 0;
}

/* geometry, kernel, parameters, launch */
static int
vec_run(VecCall *c)
{
    vec_geometry(c);
    Form *f = vec_kernel(c);
    int dev = f ? form_load(f, NULL) : -1;
    if (dev < 0 || vec_pack(c) < 0) {
        return -1;
    }
    unsigned grid[3] = {grid_for(c->total / c->plan.vec + 1, 256), 1, 1};
    unsigned block[3] = {256, 1, 1};
    if (!grid[0]) {
        return -1;
    }
    int r = rt_launch(&f->rk[dev], grid, block, 0, c->stream, c->params,
                      PyUnicode_AsUTF8(c->v->name));
    if (pl_log_pending) {
        pl_log_launched(r == 0);
    }
    return r;
}

/* the output, or a tuple of them */
static PyObject *
vec_result(VecCall *c)
{
    int skip = c->v->ninplace;          /* written in place: not returned */
    int nout = c->typed->c.nout - skip;
    if (nout <= 0) {
        Py_RETURN_NONE;
    }
    if (nout == 1) {
        return Py_NewRef(c->outs[skip].obj);
    }
    PyObject *r = PyTuple_New(nout);
    for (int j = 0; r && j < nout; j++) {
        PyTuple_SET_ITEM(r, j, Py_NewRef(c->outs[skip + j].obj));
    }
    return r;
}

static PyObject *
vectorize_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    VectorizeObject *v = (VectorizeObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    PyObject *out_arg = NULL, *stream_arg = NULL, *result = NULL;
    void *stream = NULL;
    if (vec_keywords(v, args, n, kwnames, &out_arg, &stream_arg) < 0
        || rt_get_stream(stream_arg ? stream_arg : Py_None, &stream) < 0) {
        return NULL;
    }
    VecCall *c = rt_scratch_get(&vec_static, &vec_static_busy, sizeof *c);
    if (!c) {
        return NULL;
    }
    memset(c, 0, offsetof(VecCall, cshape));
    c->v = v;
    c->n = (int)n;
    c->stream = stream;
    c->stream_obj = stream_arg;
    c->plan.n = (int)n;
    if (vec_inputs(c, args) == 0 && vec_inplace_outputs(c, args) == 0
        && vec_given_outputs(c, out_arg) == 0) {
        vec_layout(c);
        if (vec_typing(c) == 0 && vec_make_outputs(c) == 0
            && (c->total == 0 || vec_run(c) == 0)) {
            result = vec_result(c);
        }
    }
    int bad = release(c->ops, c->nops, stream, 0) < 0;
    if (release(c->outs, c->nouts, stream, result != NULL) < 0) {
        bad = 1;
    }
    if (bad) {
        Py_CLEAR(result);
    }
    for (int j = 0; j < MAXOUT; j++) {
        Py_XDECREF(c->made[j]);
    }
    if (!result) {
        rt_err_in(PyUnicode_AsUTF8(v->name), "%s()", PyUnicode_AsUTF8(v->name));
    }
    rt_scratch_put(c, &vec_static, &vec_static_busy);
    return result;
}

/* "float32(float32, float32)" strings, Numba's eager signatures */
static int
parse_sigs(VectorizeObject *v, PyObject *list)
{
    Py_ssize_t ns = PySequence_Size(list);
    if (ns < 0) {
        return -1;
    }
    v->sigs = calloc((size_t)ns + 1, sizeof(Sig));
    if (!v->sigs) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t s = 0; s < ns; s++) {
        PyObject *item = PySequence_GetItem(list, s);
        if (!item) {
            return -1;
        }
        if (!PyUnicode_Check(item)) {
            Py_DECREF(item);
            PyErr_SetString(PyExc_TypeError, "vectorize signatures are strings like "
                            "'float32(float32, float32)'");
            return -1;
        }
        Arena a;
        cj_arena_init(&a);
        Type **types, *ret;
        int nt = mod_parse_signature(&a, item, &types, &ret);
        Py_DECREF(item);
        if (nt < 0) {
            cj_arena_free(&a);
            return -1;
        }
        int ok = nt >= 0 && nt == v->nparams && nt <= MAXIN && ret && ret->kind != TY_VOID;
        for (int i = 0; ok && i < nt; i++) {
            ok = types[i]->kind == TY_SCALAR;
            v->sigs[s].in[i] = types[i]->dtype;
        }
        if (ok && ret->kind == TY_SCALAR) {
            v->sigs[s].out[0] = ret->dtype;
            v->sigs[s].nout = 1;
        } else if (ok && ret->kind == TY_TUPLE && ret->ntup <= MAXOUT) {
            for (int k = 0; k < ret->ntup; k++) {
                v->sigs[s].out[k] = ret->tup[k]->dtype;
            }
            v->sigs[s].nout = ret->ntup;
        } else {
            ok = 0;
        }
        cj_arena_free(&a);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "vectorize signature %zd: expected 'ret(arg, ...)' "
                         "with scalar types and one argument per parameter", s + 1);
            return -1;
        }
        v->nsigs++;
    }
    return 0;
}

/* fuse_names=, kernel_name= and inplace= (parameter indices) of a fused
 * function (cujit/_fuse.py) */
static int
fuse_options(VectorizeObject *v, PyObject *names, PyObject *kname, PyObject *inplace)
{
    if (names && names != Py_None) {
        if (!PyDict_Check(names)) {
            PyErr_SetString(PyExc_TypeError, "fuse_names must be a dict");
            return -1;
        }
        v->fuse_names = Py_NewRef(names);
    }
    if (kname && kname != Py_None) {
        const char *k = PyUnicode_Check(kname) ? PyUnicode_AsUTF8(kname) : NULL;
        size_t n = k ? strlen(k) + 1 : 0;
        if (!k || !(v->kname = malloc(n))) {
            return k ? (PyErr_NoMemory(), -1) : -1;
        }
        memcpy(v->kname, k, n);
    }
    Py_ssize_t ni = inplace && inplace != Py_None ? PySequence_Size(inplace) : 0;
    for (Py_ssize_t i = 0; i < ni && i < MAXIN; i++) {
        PyObject *it = PySequence_GetItem(inplace, i);
        long p = it ? PyLong_AsLong(it) : -1;
        Py_XDECREF(it);
        if (p < 0 || p >= v->nparams) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "inplace= holds parameter indices");
            }
            return -1;
        }
        v->inplace[v->ninplace++] = (int)p;
    }
    return ni < 0 ? -1 : 0;
}

static PyObject *
vectorize_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "signatures", "fuse_names", "kernel_name", "inplace",
                             "numba", NULL};
    PyObject *func, *sigs = NULL, *names = NULL, *kname = NULL, *inplace = NULL;
    int numba = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOOp:Vectorize", kwlist, &func, &sigs,
                                     &names, &kname, &inplace, &numba)) {
        return NULL;
    }
    PyObject *pf = scalar_function(func);
    if (!pf) {
        return NULL;
    }
    VectorizeObject *v = (VectorizeObject *)type->tp_alloc(type, 0);
    if (!v) {
        return NULL;
    }
    v->pyfunc = pf;
    Py_INCREF(pf);
    v->name = PyObject_GetAttrString(pf, "__name__");
    v->nparams = param_count(pf);
    v->vectorcall = vectorize_call;
    v->numba = numba;
    if (!v->name || (sigs && sigs != Py_None && parse_sigs(v, sigs) < 0)
        || fuse_options(v, names, kname, inplace) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    rt_nvrtc_warm_up();         /* NVRTC ready before the first call needs it */
    return (PyObject *)v;
}

static void
vectorize_dealloc(PyObject *self)
{
    VectorizeObject *v = (VectorizeObject *)self;
    Py_XDECREF(v->pyfunc);
    Py_XDECREF(v->name);
    Py_XDECREF(v->fuse_names);
    free(v->kname);
    free(v->sigs);
    forms_free(&v->forms);
    Py_TYPE(self)->tp_free(self);
}

/* the form a call with example arguments args runs, found or compiled
 * without a GPU (arrays described, not copied; outputs as they would be
 * made); NULL with an exception */
static Form *
vec_dry_form(VectorizeObject *v, PyObject *const *args, Py_ssize_t n)
{
    if (vec_keywords(v, args, n, NULL, NULL, NULL) < 0) {
        return NULL;
    }
    VecCall *c = calloc(1, sizeof *c);
    if (!c) {
        return (Form *)PyErr_NoMemory();
    }
    c->v = v;
    c->n = c->plan.n = (int)n;
    c->dry = 1;
    Form *f = NULL;
    if (vec_inputs(c, args) == 0 && vec_inplace_outputs(c, args) == 0) {
        vec_layout(c);
        if (vec_typing(c) == 0 && vec_make_outputs(c) == 0) {
            vec_geometry(c);
            f = vec_kernel(c);
        }
    }
    free(c);
    return f;
}

/* inspect_cuda(): every kernel compiled so far; inspect_cuda(*args): the
 * kernel a call with these example arguments runs, no GPU needed */
static PyObject *
vectorize_inspect_cuda(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    VectorizeObject *v = (VectorizeObject *)self;
    if (n == 0) {
        return forms_sources(v->forms);
    }
    Form *f = vec_dry_form(v, args, n);
    return f ? PyUnicode_FromString(f->c.src) : NULL;
}

/* inspect_ptx(*args, arch="sm_90"): NVRTC's PTX of that kernel */
static PyObject *
vectorize_inspect_ptx(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                      PyObject *kwnames)
{
    const char *arch = "sm_90";
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (form_arch_keyword(args, n, kwnames, &arch) < 0) {
        return NULL;
    }
    Form *f = vec_dry_form((VectorizeObject *)self, args, n);
    return f ? pl_binary(&f->c, arch, 0) : NULL;
}

static PyObject *
get_pyfunc(PyObject *self, void *c)
{
    return Py_NewRef(((VectorizeObject *)self)->pyfunc);
}

static PyObject *
get_name(PyObject *self, void *c)
{
    return Py_NewRef(((VectorizeObject *)self)->name);
}

static PyGetSetDef vectorize_getset[] = {
    {"py_func", get_pyfunc, NULL, "the scalar Python function", NULL},
    {"__name__", get_name, NULL, NULL, NULL},
    {NULL},
};

static PyMethodDef vectorize_methods[] = {
    {"inspect_cuda", (PyCFunction)(void (*)(void))vectorize_inspect_cuda, METH_FASTCALL,
     "inspect_cuda(): the CUDA C++ of every kernel compiled so far, as a list; "
     "inspect_cuda(*args): the kernel a call with these example arguments runs"},
    {"inspect_ptx", (PyCFunction)(void (*)(void))vectorize_inspect_ptx,
     METH_FASTCALL | METH_KEYWORDS, "inspect_ptx(*args, arch='sm_90'): PTX from NVRTC"},
    {NULL},
};

PyTypeObject VectorizeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Vectorize",
    .tp_basicsize = sizeof(VectorizeObject),
    .tp_dealloc = vectorize_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(VectorizeObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_methods = vectorize_methods,
    .tp_getset = vectorize_getset,
    .tp_new = vectorize_new,
    .tp_doc = "A scalar function applied elementwise with NumPy broadcasting (@vectorize).",
};
