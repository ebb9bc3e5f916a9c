/* ufunc.c - cujit.Vectorize (@vectorize: an elementwise kernel around a
 * scalar function, NumPy broadcasting) and cujit.Reduce (@reduce: a
 * two-pass reduction around a binary combiner, any axes). */
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/argdesc.h"
#include "../runtime/pack.h"

#define MAXIN 32
#define MAXOUT 8

/* ---- compiled forms, keyed by bytes ---- */

typedef struct Form {
    struct Form *next;
    unsigned char key[512];
    size_t keylen;
    PlCompiled c;           /* typing only (the result dtypes): no c.src */
    PyObject *keep;         /* code objects the key points at */
    RtKernel rk[8], rk2[8];
    char loaded[8];
} Form;

typedef struct {
    unsigned char b[512];
    size_t n;
} Key;

static void
key_put(Key *k, const void *p, size_t n)
{
    if (k->n + n <= sizeof k->b) {
        memcpy(k->b + k->n, p, n);
    }
    k->n += n;
}

static void
key_int(Key *k, int64_t v)
{
    key_put(k, &v, sizeof v);
}

static Form *
form_find(Form *list, const Key *k)
{
    for (Form *f = list; f; f = f->next) {
        if (f->keylen == k->n && memcmp(f->key, k->b, k->n) == 0) {
            return f;
        }
    }
    return NULL;
}

static Form *
form_new(const Key *key)
{
    Form *f = calloc(1, sizeof(Form));
    if (!f) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(f->key, key->b, key->n);
    f->keylen = key->n;
    return f;
}

static void
form_free(Form *f)
{
    pl_compiled_free(&f->c);
    Py_XDECREF(f->keep);
    free(f);
}

/* loads a form for the current device (the second entry for reductions) */
static int
form_load(Form *f, const char *second)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    if (dev < 8 && f->loaded[dev]) {
        return dev;
    }
    if (dev >= 8 || pl_load(&f->c, second, &f->rk[dev], &f->rk2[dev]) < 0) {
        if (dev >= 8) {
            PyErr_SetString(PyExc_RuntimeError, "cujit supports devices 0 to 7");
        }
        return -1;
    }
    f->loaded[dev] = 1;
    return dev;
}

/* the Python function behind a map= / scalar function argument */
static PyObject *
scalar_function(PyObject *o);

/* ---- shared argument handling ---- */

typedef struct {
    int is_array;
    int weak;               /* a Python number: NEP 50 weak */
    DType dt;
    PyObject *obj;
    RtArray a;
} Operand;

static int
operand(PyObject *o, Operand *op, void *stream, const char *what)
{
    memset(op, 0, sizeof *op);
    op->obj = o;
    if (rt_scalar_dtype(o, &op->dt)) {
        op->weak = PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyComplex_CheckExact(o);
        return 0;
    }
    if (rt_get_array(o, &op->a, stream, what) < 0) {
        return -1;
    }
    op->is_array = 1;
    op->dt = op->a.dtype;
    return 0;
}

static void
release(Operand *ops, int n, void *stream, int copy_back)
{
    for (int i = 0; i < n; i++) {
        if (ops[i].is_array) {
            rt_array_release(&ops[i].a, stream, copy_back);
        }
    }
}

/* a scalar operand's type as the scalar function's parameter */
static ArgKey
operand_key(const Operand *op)
{
    ArgKey k = rt_scalar_key(op->dt);
    if (op->weak) {
        k.kind = PL_WEAK;
    }
    return k;
}

static unsigned
grid_for(int64_t work, int block)
{
    int sms = rt_multiprocessor_count();
    int64_t g = (work + block - 1) / block;
    int64_t cap = (int64_t)(sms > 0 ? sms : 132) * 32;
    if (g > cap) {
        g = cap;
    }
    return (unsigned)(g < 1 ? 1 : g);
}

/* ---- Vectorize ---- */

typedef struct {
    DType in[MAXIN];
    DType out[MAXOUT];
    int nout;
} Sig;

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    int nparams;
    Sig *sigs;
    int nsigs;
    Form *forms;
    vectorcallfunc vectorcall;
} VectorizeObject;

static PyTypeObject VectorizeType;

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

/* strides of operand `a` seen with the broadcast shape (0 where broadcast) */
static void
bstrides(const RtArray *a, int ndim, const int64_t *shape, int64_t *out)
{
    int off = ndim - a->ndim;
    for (int d = 0; d < ndim; d++) {
        int k = d - off;
        out[d] = (k < 0 || (a->shape[k] == 1 && shape[d] != 1)) ? 0 : a->strides[k];
    }
}

/* Merges dimensions that every operand steps through contiguously and
 * drops extents of 1; returns the new ndim. st[k] holds operand k. */
static int
collapse(int ndim, int64_t *shape, int64_t st[][RT_MAXDIM], int nops)
{
    int nd = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 1) {
            continue;
        }
        int merge = nd > 0;
        for (int k = 0; k < nops && merge; k++) {
            merge = st[k][nd - 1] == st[k][d] * shape[d];
        }
        if (merge) {
            shape[nd - 1] *= shape[d];
            for (int k = 0; k < nops; k++) {
                st[k][nd - 1] = st[k][d];
            }
            continue;
        }
        shape[nd] = shape[d];
        for (int k = 0; k < nops; k++) {
            st[k][nd] = st[k][d];
        }
        nd++;
    }
    if (nd == 0) {
        shape[0] = 1;
        for (int k = 0; k < nops; k++) {
            st[k][0] = 0;
        }
        nd = 1;
    }
    return nd;
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
                bstrides(&ops[i].a, ndim, shape, st[k++]);
            }
        }
        for (int j = 0; j < nouts; j++) {
            bstrides(&outs[j].a, ndim, shape, st[k++]);
        }
        nd = collapse(ndim, cshape, st, k);
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

static int
param_count(PyObject *func)
{
    PyObject *code = PyFunction_GET_CODE(func);
    return ((PyCodeObject *)code)->co_argcount;
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
forms_free(Form **list)
{
    while (*list) {
        Form *f = *list;
        *list = f->next;
        form_free(f);
    }
}

/* the CUDA of every compiled form (typing-only entries have none) */
static PyObject *
forms_sources(Form *list)
{
    PyObject *l = PyList_New(0);
    for (Form *f = list; l && f; f = f->next) {
        if (f->c.src && mod_list_append_str(l, f->c.src) < 0) {
            Py_CLEAR(l);
        }
    }
    return l;
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

static PyTypeObject VectorizeType = {
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

/* ---- Reduce ---- */

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    PyObject *identity;     /* None: no identity */
    Form *forms;
} ReduceObject;

static PyTypeObject ReduceType;

static PyObject *
scalar_function(PyObject *o)
{
    if (PyObject_TypeCheck(o, &VectorizeType)) {
        return ((VectorizeObject *)o)->pyfunc;
    }
    if (PyObject_TypeCheck(o, &ReduceType)) {
        return ((ReduceObject *)o)->pyfunc;
    }
    int dev;
    PyObject *k = mod_kernel_function(o, &dev);
    if (k) {
        if (!dev) {
            PyErr_SetString(PyExc_TypeError, "a kernel cannot be used as a scalar function; "
                            "use @jit.rawkernel(device=True)");
            return NULL;
        }
        return k;
    }
    if (PyFunction_Check(o)) {
        return o;
    }
    PyErr_Format(PyExc_TypeError, "expected a Python function (def or lambda), a vectorize or "
                 "a device function, got %s", Py_TYPE(o)->tp_name);
    return NULL;
}

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

/* x(..., kept dims in order, reduced dims in order) with each group's
 * contiguous dimensions merged */
static void
group_dims(const RtArray *a, const int *red, int *nkeep, int *nred, int64_t *shape,
           int64_t *strides)
{
    int64_t st[1][RT_MAXDIM];
    int64_t ks[RT_MAXDIM], rs[RT_MAXDIM];
    int nk = 0, nr = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (red[d]) {
            rs[nr] = a->shape[d];
            st[0][nr++] = a->strides[d];
        }
    }
    /* reduced group */
    int64_t rst[1][RT_MAXDIM];
    memcpy(rst[0], st[0], sizeof(int64_t) * (size_t)nr);
    int ndr = nr ? collapse(nr, rs, rst, 1) : 0;
    if (nr && ndr == 1 && rs[0] == 1) {
        ndr = 0;
    }
    for (int d = 0; d < a->ndim; d++) {
        if (!red[d]) {
            ks[nk] = a->shape[d];
            st[0][nk++] = a->strides[d];
        }
    }
    int ndk = nk ? collapse(nk, ks, st, 1) : 0;
    if (nk && ndk == 1 && ks[0] == 1) {
        ndk = 0;
    }
    for (int d = 0; d < ndk; d++) {
        shape[d] = ks[d];
        strides[d] = st[0][d];
    }
    for (int d = 0; d < ndr; d++) {
        shape[ndk + d] = rs[d];
        strides[ndk + d] = rst[0][d];
    }
    *nkeep = ndk;
    *nred = ndr;
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
    group_dims(&x.a, red, &pl.nkeep, &pl.nred, shape, strides);
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

static PyTypeObject ReduceType = {
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

int
ufunc_add_types(PyObject *m)
{
    if (PyType_Ready(&VectorizeType) < 0 || PyType_Ready(&ReduceType) < 0) {
        return -1;
    }
    if (PyModule_AddObjectRef(m, "Vectorize", (PyObject *)&VectorizeType) < 0
        || PyModule_AddObjectRef(m, "Reduce", (PyObject *)&ReduceType) < 0) {
        return -1;
    }
    return 0;
}
