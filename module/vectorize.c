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
    snprintf(label, sizeof label, "vectorize %s", PyUnicode_AsUTF8(v->name));
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
    Form *f = form_new(key);
    if (f && pl_transpile(&rq, &f->c) < 0) {
        form_free(f);
        return NULL;
    }
    return f;
}

/* NumPy broadcasting of the array operands' shapes */
static int
broadcast(Operand *ops, int n, int *ndim, int64_t *shape)
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

/* vectorize_call's per-operand storage (58 KB: see rt_scratch_get) */
typedef struct {
    Operand ops[MAXIN], outs[MAXOUT];
    int64_t st[MAXIN + MAXOUT][RT_MAXDIM];
    void *params[MAXIN + MAXOUT + 1];
    unsigned char buf[(MAXIN + MAXOUT + 2) * (8 + 16 * RT_MAXDIM)] __attribute__((aligned(16)));
} VecScratch;

static VecScratch vec_static;
static int vec_static_busy;

static PyObject *
vectorize_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    VectorizeObject *v = (VectorizeObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    PyObject *out_arg = NULL, *stream_arg = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *kn = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (kn && strcmp(kn, "out") == 0) {
            out_arg = args[n + k];
        } else if (kn && strcmp(kn, "stream") == 0) {
            stream_arg = args[n + k];
        } else {
            PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%s' "
                         "(it takes out= and stream=)", v->name, kn ? kn : "?");
            return NULL;
        }
    }
    if (n != v->nparams) {
        PyErr_Format(PyExc_TypeError, "%U() takes %d input%s, got %zd", v->name, v->nparams,
                     v->nparams == 1 ? "" : "s", n);
        return NULL;
    }
    if (n > MAXIN) {
        PyErr_SetString(PyExc_TypeError, "too many inputs");
        return NULL;
    }
    void *stream = NULL;
    if (rt_get_stream(stream_arg ? stream_arg : Py_None, &stream) < 0) {
        return NULL;
    }
    VecScratch *sc = rt_scratch_get(&vec_static, &vec_static_busy, sizeof *sc);
    if (!sc) {
        return NULL;
    }
    Operand *ops = sc->ops, *outs = sc->outs;
    int nops = 0, nouts = 0;
    PyObject *result = NULL, *made[MAXOUT] = {NULL};
    for (; nops < n; nops++) {
        char what[48];
        snprintf(what, sizeof what, "input %d", nops + 1);
        if (operand(args[nops], &ops[nops], stream, what) < 0) {
            goto done;
        }
    }
    /* the scalar function's parameter types */
    EwPlan plan;
    memset(&plan, 0, sizeof plan);
    plan.n = (int)n;
    int sig = -1;
    if (v->nsigs) {
        sig = pick_sig(v, ops, (int)n);
        if (sig < 0) {
            sig_error(v, ops, (int)n);
            goto done;
        }
    }
    for (int i = 0; i < n; i++) {
        plan.fn_args[i] = sig >= 0 ? rt_scalar_key(v->sigs[sig].in[i]) : operand_key(&ops[i]);
    }
    int ndim;
    int64_t shape[RT_MAXDIM];
    if (broadcast(ops, (int)n, &ndim, shape) < 0) {
        goto done;
    }
    int64_t total = 1;
    for (int d = 0; d < ndim; d++) {
        total *= shape[d];
    }
    /* outputs given */
    if (out_arg && out_arg != Py_None) {
        int tup = PyTuple_Check(out_arg);
        int k = tup ? (int)PyTuple_GET_SIZE(out_arg) : 1;
        for (; nouts < k && nouts < MAXOUT; nouts++) {
            PyObject *o = tup ? PyTuple_GET_ITEM(out_arg, nouts) : out_arg;
            if (rt_get_array(o, &outs[nouts].a, stream, "out") < 0) {
                goto done;
            }
            outs[nouts].is_array = 1;
            outs[nouts].obj = o;
            RtArray *a = &outs[nouts].a;
            int same = a->ndim == ndim;
            for (int d = 0; same && d < ndim; d++) {
                same = a->shape[d] == shape[d];
            }
            if (!same) {
                PyErr_Format(PyExc_ValueError, "%U(): out= has the wrong shape for the "
                             "broadcast inputs", v->name);
                nouts++;
                goto done;
            }
            plan.out_given[nouts] = a->dtype;
        }
        plan.nout_given = nouts;
    }
    /* layout: flat when every array operand is contiguous in one order with
     * the full shape; otherwise strided */
    char order = 'C';
    int any_f = 0, all_f = 1;
    for (int i = 0; i < n; i++) {
        if (ops[i].is_array) {
            any_f |= ops[i].a.f_contig && !ops[i].a.c_contig;
            all_f &= ops[i].a.f_contig;
        }
    }
    if (any_f && all_f) {
        order = 'F';
    }
    int flat = 1;
    for (int i = 0; i < n && flat; i++) {
        if (ops[i].is_array) {
            flat = is_contig(&ops[i].a, order) && ops[i].a.ndim == ndim;
            for (int d = 0; flat && d < ndim; d++) {
                flat = ops[i].a.shape[d] == shape[d];
            }
        }
    }
    for (int k = 0; k < nouts && flat; k++) {
        flat = is_contig(&outs[k].a, order);
    }
    /* typing: result dtypes */
    Key tk;
    tk.n = 0;
    key_int(&tk, 0);
    for (int i = 0; i < n; i++) {
        key_int(&tk, (ops[i].is_array ? 1 : 0) | (ops[i].weak ? 2 : 0) | (ops[i].dt << 4)
                     | ((int64_t)(sig >= 0 ? v->sigs[sig].in[i] : 99) << 12));
    }
    for (int k = 0; k < nouts; k++) {
        key_int(&tk, 1000 + plan.out_given[k]);
    }
    Form *typed = form_find(v->forms, &tk);
    if (!typed) {
        typed = ew_compile(v, ops, &plan, &tk, 1);
        if (!typed) {
            goto done;
        }
        typed->next = v->forms;
        v->forms = typed;
    }
    if (sig >= 0) {
        for (int k = 0; k < typed->c.nout && k < v->sigs[sig].nout; k++) {
            if (k >= nouts) {
                typed->c.out[k] = v->sigs[sig].out[k];
            }
        }
    }
    if (check_python_ints(typed, sig >= 0 ? &v->sigs[sig] : NULL, ops, (int)n) < 0) {
        goto done;
    }
    if (nouts && nouts != typed->c.nout) {
        PyErr_Format(PyExc_ValueError, "%U() has %d outputs but out= gives %d", v->name,
                     typed->c.nout, nouts);
        goto done;
    }
    /* outputs made here */
    for (; nouts < typed->c.nout; nouts++) {
        /* F-ordered inputs give F-ordered results (NumPy's order='K') */
        made[nouts] = rt_empty_order(ndim, shape, typed->c.out[nouts], order, stream);
        if (!made[nouts]) {
            goto done;
        }
        if (rt_get_array(made[nouts], &outs[nouts].a, stream, "out") < 0) {
            goto done;
        }
        outs[nouts].is_array = 1;
        outs[nouts].obj = made[nouts];
    }
    if (total == 0) {
        goto finish;
    }
    int idx32 = total < INT32_MAX;
    int maxsize = 1;
    for (int i = 0; i < n; i++) {
        if (ops[i].is_array) {
            idx32 &= rt_fits32(ops[i].a.ndim, ops[i].a.shape, ops[i].a.strides);
            if (cj_dtypes[ops[i].dt].size > maxsize) {
                maxsize = cj_dtypes[ops[i].dt].size;
            }
        }
    }
    for (int k = 0; k < nouts; k++) {
        idx32 &= rt_fits32(outs[k].a.ndim, outs[k].a.shape, outs[k].a.strides);
        if (cj_dtypes[outs[k].a.dtype].size > maxsize) {
            maxsize = cj_dtypes[outs[k].a.dtype].size;
        }
    }
    plan.idx32 = idx32;
    int64_t (*st)[RT_MAXDIM] = sc->st;
    int64_t cshape[RT_MAXDIM];
    int nd = 0;
    plan.vec = 1;
    if (flat) {
        int vec = 16 / maxsize;
        if (vec > 8) {
            vec = 8;
        }
        for (int i = 0; i < n && vec > 1; i++) {
            if (ops[i].is_array
                && (uintptr_t)ops[i].a.ptr % ((uintptr_t)cj_dtypes[ops[i].dt].size * vec)) {
                vec = 1;
            }
        }
        for (int k = 0; k < nouts && vec > 1; k++) {
            if ((uintptr_t)outs[k].a.ptr % ((uintptr_t)cj_dtypes[outs[k].a.dtype].size * vec)) {
                vec = 1;
            }
        }
        plan.vec = vec > 1 ? vec : 1;
        plan.ndim = 0;
    } else {
        memcpy(cshape, shape, sizeof(int64_t) * (size_t)ndim);
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (ops[i].is_array) {
                rt_broadcast_strides(&ops[i].a, ndim, shape, st[k++]);
            }
        }
        for (int j = 0; j < nouts; j++) {
            rt_broadcast_strides(&outs[j].a, ndim, shape, st[k++]);
        }
        nd = rt_collapse_dims(ndim, cshape, st, k);
        plan.ndim = nd;
    }
    /* the kernel */
    Key kk = tk;
    key_int(&kk, 7777);
    key_int(&kk, plan.ndim);
    key_int(&kk, plan.vec);
    key_int(&kk, plan.idx32);
    for (int k = 0; k < nouts; k++) {
        key_int(&kk, outs[k].a.dtype);
    }
    Form *f = form_find(v->forms, &kk);
    if (!f) {
        for (int k = 0; k < nouts; k++) {
            plan.out_given[k] = outs[k].a.dtype;
        }
        plan.nout_given = nouts;
        f = ew_compile(v, ops, &plan, &kk, 0);
        if (!f) {
            goto done;
        }
        f->next = v->forms;
        v->forms = f;
    }
    int dev = form_load(f, NULL);
    if (dev < 0) {
        goto done;
    }
    unsigned char *buf = sc->buf;
    void **params = sc->params;
    size_t off = 0;
    int np = 0, k = 0;
    for (int i = 0; i < n; i++) {
        size_t before;
        if (!ops[i].is_array) {
            int sz = cj_dtypes[plan.fn_args[i].dtype].size;
            size_t al = (size_t)(sz > 8 ? 8 : sz);
            off = (off + al - 1) & ~(al - 1);
            before = off;
            if (pack_operand_scalar(buf, &off, &ops[i], plan.fn_args[i]) < 0) {
                goto done;
            }
        } else if (plan.ndim == 0) {
            off = (off + 7) & ~(size_t)7;
            before = off;
            uint64_t ptr = (uint64_t)(uintptr_t)ops[i].a.ptr;
            rt_put(buf, &off, &ptr, 8, 8);
        } else {
            off = (off + 7) & ~(size_t)7;
            before = off;
            rt_pack_view(buf, &off, (uint64_t)(uintptr_t)ops[i].a.ptr, nd, cshape, st[k++], idx32);
        }
        params[np++] = buf + before;
    }
    for (int j = 0; j < nouts; j++) {
        off = (off + 7) & ~(size_t)7;
        size_t before = off;
        if (plan.ndim == 0) {
            uint64_t ptr = (uint64_t)(uintptr_t)outs[j].a.ptr;
            rt_put(buf, &off, &ptr, 8, 8);
        } else {
            rt_pack_view(buf, &off, (uint64_t)(uintptr_t)outs[j].a.ptr, nd, cshape, st[k++], idx32);
        }
        params[np++] = buf + before;
    }
    off = (off + 7) & ~(size_t)7;
    params[np++] = buf + off;
    rt_pack_index(buf, &off, total, idx32);
    unsigned grid[3] = {grid_for(total / plan.vec + 1, 256), 1, 1}, block[3] = {256, 1, 1};
    if (rt_launch(&f->rk[dev], grid, block, 0, stream, params, PyUnicode_AsUTF8(v->name)) < 0) {
        goto done;
    }
finish:
    if (typed->c.nout == 1) {
        result = outs[0].obj;
        Py_INCREF(result);
    } else {
        result = PyTuple_New(typed->c.nout);
        for (int j = 0; result && j < typed->c.nout; j++) {
            Py_INCREF(outs[j].obj);
            PyTuple_SET_ITEM(result, j, outs[j].obj);
        }
    }
done:
    release(ops, nops, stream, 0);
    release(outs, nouts, stream, result != NULL);
    for (int j = 0; j < MAXOUT; j++) {
        Py_XDECREF(made[j]);
    }
    rt_scratch_put(sc, &vec_static, &vec_static_busy);
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
        char msg[512];
        int nt = cj_parse_signature(&a, PyUnicode_AsUTF8(item), &types, &ret, msg, sizeof msg);
        Py_DECREF(item);
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
            PyErr_Format(PyExc_TypeError, "vectorize signature %zd: %s", s + 1,
                         nt < 0 ? msg : "expected 'ret(arg, ...)' with scalar types and one "
                         "argument per parameter");
            return -1;
        }
        v->nsigs++;
    }
    return 0;
}

static PyObject *
vectorize_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "signatures", NULL};
    PyObject *func, *sigs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Vectorize", kwlist, &func, &sigs)) {
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
    if (!v->name || (sigs && sigs != Py_None && parse_sigs(v, sigs) < 0)) {
        Py_DECREF(v);
        return NULL;
    }
    return (PyObject *)v;
}

static void
vectorize_dealloc(PyObject *self)
{
    VectorizeObject *v = (VectorizeObject *)self;
    Py_XDECREF(v->pyfunc);
    Py_XDECREF(v->name);
    free(v->sigs);
    forms_free(&v->forms);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
vectorize_inspect_cuda(PyObject *self, PyObject *noargs)
{
    return forms_sources(((VectorizeObject *)self)->forms);
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
    {"inspect_cuda", vectorize_inspect_cuda, METH_NOARGS,
     "the CUDA C++ of every kernel compiled so far, as a list"},
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
