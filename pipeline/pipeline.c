/* pipeline.c - the driver: one request through frontend -> typeinfer ->
 * codegen (pl_transpile), then NVRTC -> disk cache -> loaded module
 * (pl_load), timing each stage for CUJIT_LOG.  What differs between a
 * kernel, an elementwise form and a reduction form is only how the typed
 * program is asked for (type_*) and which codegen entry prints it (emit);
 * the frame (arena, error jump, frontend context) and the error conversion
 * are written once, here.  Before the stages, the front key (frontkey.c)
 * may find the whole result in the disk cache's index (record.c). */
#include "pl_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../frontend/fe.h"

double
pl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

PlKernelFunction pl_kernel_function;

int
pl_init(PyObject *module, PlKernelFunction kernel_function)
{
    pl_kernel_function = kernel_function;
    fe_set_kernel_function(kernel_function);
    fe_set_record_reader(rt_dtype_of);
    fe_store_install();
    pl_front_init();
    return pl_add_errors(module);
}

/* ---- the frame of one compilation ---- */

typedef struct {
    Arena arena;
    CjTry tr;
    FeCtx cx;
} Frame;

static int
frame_open(Frame *fr)
{
    memset(fr, 0, sizeof *fr);
    cj_arena_init(&fr->arena);
    fr->cx.arena = &fr->arena;
    fr->cx.try_ = &fr->tr;
    fr->cx.keep = PyList_New(0);
    return fr->cx.keep ? 0 : -1;
}

static void
frame_close(Frame *fr)
{
    Py_XDECREF(fr->cx.keep);
    Py_XDECREF(fr->cx.captured);
    cj_arena_free(&fr->arena);
}

/* ---- types from the request ---- */

static Type *type_of_key(Arena *a, ArgKey k);

/* a tuple argument's type: its elements', a namedtuple's fields */
static Type *
tuple_of_key(Arena *a, const RtTuple *t)
{
    Type **elems = cj_alloc(a, sizeof(Type *) * (size_t)(t->n + 1));
    for (int i = 0; i < t->n; i++) {
        elems[i] = type_of_key(a, t->elems[i]);
    }
    Type *ty = cj_tuple_type(a, elems, t->n);
    ty->names = t->names;
    return ty;
}

static Type *
type_of_key(Arena *a, ArgKey k)
{
    if (k.kind == PL_WEAK) {
        char c = cj_dtypes[k.dtype].kind;
        return cj_weak(c == 'c' ? TY_WEAK_COMPLEX : c == 'f' ? TY_WEAK_FLOAT : TY_WEAK_INT);
    }
    if (k.kind == 1) {
        return cj_scalar((DType)k.dtype);
    }
    if (k.kind == RT_KEY_TUPLE) {
        return tuple_of_key(a, rt_tuple_of(k));
    }
    if (k.kind == RT_KEY_PTR) {
        return cj_iter_type(a, (DType)k.dtype, 'P');
    }
    if (k.kind == RT_KEY_ENUM) {
        /* a member: its value's type, tagged with its class */
        Type *t = type_of_key(a, rt_enum_of(k)->vkey);
        if (t->kind == TY_TUPLE) {
            t->enm = rt_enum_of(k)->tag;
            return t;
        }
        return cj_enum_type(a, t->dtype, rt_enum_of(k)->tag);
    }
    if (k.ndim == 0 && cj_is_record((DType)k.dtype)) {
        /* a record (np.void): its memory */
        return cj_elem_type((DType)k.dtype, (k.flags >> 2) & 1);
    }
    int l = k.flags & 3;
    Type *t = cj_array_type(a, (DType)k.dtype, k.ndim, l == 1 ? 'C' : l == 2 ? 'F' : 'A');
    t->readonly = (char)((k.flags >> 2) & 1);
    return t;
}

static Type **
types_of(Arena *a, const PlRequest *rq)
{
    Type **types = cj_alloc(a, sizeof(Type *) * (size_t)(rq->nargs + 1));
    for (int i = 0; i < rq->nargs; i++) {
        types[i] = type_of_key(a, rq->args[i]);
    }
    return types;
}

/* ---- a kernel ---- */

static void
signature_text(Buf *b, Type **types, int n)
{
    buf_putc(b, '(');
    for (int i = 0; i < n; i++) {
        if (i) {
            buf_puts(b, ", ");
        }
        cj_type_str(b, types[i]);
    }
    buf_putc(b, ')');
}

/* a kernel's signature text, messages and launch needs; -1: no memory */
static int
kernel_result(Program *p, Type **types, int n, PlCompiled *out)
{
    Buf sig;
    buf_init(&sig);
    signature_text(&sig, types, n);
    out->sig = buf_steal(&sig);
    out->kname = xstrdup(cg_kernel_name(p));
    out->msgs = calloc((size_t)p->nmsgs + 1, sizeof(char *));
    if (!out->sig || !out->kname || !out->msgs) {
        return -1;
    }
    for (int i = 0; i < p->nmsgs; i++) {
        if (!(out->msgs[i] = xstrdup(p->msgs[i]))) {
            return -1;
        }
        out->nmsgs = i + 1;
    }
    out->check_errors = (p->features & (FEAT_ASSERT | FEAT_BOUNDS)) != 0;
    out->has_dynshared = (p->features & FEAT_DYNSHARED) != 0;
    out->has_print = (p->features & FEAT_PRINT) != 0;
    out->print_raw = p->print_raw;
    if (p->undef_warn && !(out->undef_warn = xstrdup(p->undef_warn))) {
        return -1;
    }
    /* the grid group (this_grid()) or a cooperative foreign function: Numba's rule */
    out->cooperative = (p->features & (FEAT_GRID_SYNC | FEAT_CG_GRID)) != 0;
    out->coarse_vec = p->coarse_vec;
    out->coarse_mask = p->coarse_mask;
    return 0;
}

/* ---- an elementwise form ---- */

/* the scalar function's result dtypes (a number or a tuple of numbers) */
static void
ew_outputs(Frame *fr, const PlRequest *rq, Func *fn, Program *p, PlCompiled *out)
{
    Type *ret = cj_concrete(p->kernel->ret);
    out->nout = 0;
    if (ret->kind == TY_SCALAR) {
        out->out[out->nout++] = ret->dtype;
    } else if (ret->kind == TY_TUPLE && ret->ntup <= PL_MAXOUT) {
        for (int k = 0; k < ret->ntup; k++) {
            Type *e = cj_concrete(ret->tup[k]);
            if (e->kind != TY_SCALAR) {
                break;
            }
            out->out[out->nout++] = e->dtype;
        }
    }
    if (out->nout == 0 || (ret->kind == TY_TUPLE && out->nout != ret->ntup)) {
        cj_fail(&fr->tr, fn->file, fn->loc, "a vectorized function must return a number or a "
                "tuple of numbers, not %s", ret->kind == TY_VOID ? "nothing" : "this");
    }
    for (int k = 0; k < rq->nout_given && k < out->nout; k++) {
        out->out[k] = rq->out_given[k];
    }
    for (int i = 0; i < rq->nargs && i < PL_MAXIN; i++) {
        out->weak_to[i] = p->kernel->weak_to[i];
    }
}

static void
ew_emit(Frame *fr, const PlRequest *rq, Program *p, Type **fn_args, PlCompiled *out, Buf *src)
{
    EwSpec s;
    memset(&s, 0, sizeof s);
    s.nin = rq->nargs;
    s.in = cj_alloc(&fr->arena, sizeof(Type *) * (size_t)(rq->nargs + 1));
    for (int i = 0; i < rq->nargs; i++) {
        s.in[i] = rq->is_array[i] ? cj_array_type(&fr->arena, rq->in_dtype[i], rq->ndim, 'C')
                                  : fn_args[i];
    }
    s.nout = out->nout;
    s.out = out->out;
    s.ndim = rq->ndim;
    s.vec = rq->vec;
    s.kname = rq->kname;
    cg_emit_elementwise(p, &s, src);
    out->fast_compile = 1;      /* costs elementwise forms no bandwidth on an H100 */
}

/* ---- a reduction form ---- */

int
pl_const_of(PyObject *o, Const *c)
{
    memset(c, 0, sizeof *c);
    c->weak = 1;
    if (PyBool_Check(o)) {
        c->kind = CK_BOOL;
        c->i = o == Py_True;
    } else if (PyLong_Check(o)) {
        c->kind = CK_INT;
        c->i = PyLong_AsLongLong(o);
    } else if (PyFloat_Check(o)) {
        c->kind = CK_FLOAT;
        c->f = PyFloat_AsDouble(o);
    } else if (PyComplex_Check(o)) {
        c->kind = CK_COMPLEX;
        c->f = PyComplex_RealAsDouble(o);
        c->im = PyComplex_ImagAsDouble(o);
    } else {
        PyObject *item = PyObject_CallMethod(o, "item", NULL);
        if (!item) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "identity must be a number, got %s",
                         Py_TYPE(o)->tp_name);
            return -1;
        }
        int r = PyNumber_Check(item) ? pl_const_of(item, c) : -1;
        Py_DECREF(item);
        if (r < 0 && !PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "identity must be a number");
        }
        return r;
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* types the map (elements -> values) and the combiner (values, values) */
static Program *
red_type(Frame *fr, const PlRequest *rq, Func *comb, Func *map, RedSpec *s)
{
    Type *elem = cj_scalar(rq->elem);
    Program *p = NULL;
    if (map) {
        if (map->nparams != 1) {
            cj_fail(&fr->tr, map->file, map->loc, "map= takes a function of one argument");
        }
        Type **margs = cj_alloc(&fr->arena, sizeof(Type *));
        margs[0] = elem;    /* the instance keeps this array */
        p = ti_infer(&fr->arena, &fr->tr, map, margs, 1, rq->idx32, 0);
        s->map = p->kernel;
        elem = cj_concrete(s->map->ret);
    }
    Type **two = cj_alloc(&fr->arena, sizeof(Type *) * 2);
    two[0] = two[1] = elem;
    Inst *ci;
    if (map) {
        ci = ti_add(p, comb, two);
    } else {
        p = ti_infer(&fr->arena, &fr->tr, comb, two, 2, rq->idx32, 0);
        ci = p->kernel;
    }
    Type *acc = cj_concrete(ci->ret);
    if (acc->kind != TY_SCALAR && acc->kind != TY_TUPLE) {
        cj_fail(&fr->tr, comb->file, comb->loc, "a reduction's combiner must return a value "
                "of the elements' kind");
    }
    if (!cj_type_eq(acc, elem)) {
        Type **again = cj_alloc(&fr->arena, sizeof(Type *) * 2);
        again[0] = again[1] = acc;
        ci = ti_add(p, comb, again);
        if (!cj_type_eq(cj_concrete(ci->ret), acc)) {
            cj_fail(&fr->tr, comb->file, comb->loc, "the combiner's result type changes when "
                    "it is fed its own results; return the type of its arguments");
        }
    }
    s->combine = ci;
    s->acc = acc;
    return p;
}

/* -1: the identity is no number (exception set) */
static int
red_emit(const PlRequest *rq, Program *p, RedSpec *s, PlCompiled *out, Buf *src)
{
    Type *acc = s->acc;
    s->in = rq->in;
    s->elem = rq->elem;
    s->out = rq->has_out ? rq->out : (acc->kind == TY_SCALAR ? acc->dtype : DT_F64);
    s->has_identity = rq->identity && rq->identity != Py_None;
    if (s->has_identity && pl_const_of(rq->identity, &s->identity) < 0) {
        return -1;
    }
    s->outer = rq->outer;
    s->contiguous = rq->contiguous;
    s->vec = rq->red_vec;
    s->nkeep = rq->nkeep;
    s->nred = rq->nred;
    cg_emit_reduction(p, s, src);
    out->out[0] = s->out;
    out->nout = 1;
    /* bytes of one cj_acc: the value, and a flag when there is no identity */
    out->acc_size = acc->kind == TY_SCALAR
                    ? cj_dtypes[acc->dtype].size * (s->has_identity ? 1 : 2)
                      + (s->has_identity ? 0 : 8)
                    : 128;
    return 0;
}

/* ---- a generalized ufunc ---- */

/* the function writes its outputs; it returns nothing */
static void
gu_check(Frame *fr, Func *fn, Program *p)
{
    Type *ret = cj_concrete(p->kernel->ret);
    if (ret->kind != TY_VOID) {
        cj_fail(&fr->tr, fn->file, fn->loc, "a guvectorized function writes its outputs "
                "(its trailing arguments) and returns nothing");
    }
}

static void
gu_emit(const PlRequest *rq, Program *p, PlCompiled *out, Buf *src)
{
    GuSpec s;
    s.nparam = rq->nargs;
    s.nin = rq->gu_nin;
    s.nloop = rq->gu_nloop;
    s.mode = rq->gu_mode;
    s.dtype = rq->gu_dtype;
    s.ncore = rq->gu_ncore;
    s.stage = rq->gu_stage && !(p->features & FEAT_DYNSHARED);
    cg_emit_gufunc(p, &s, src);
    for (int i = 0; i < rq->nargs && i < PL_MAXIN; i++) {
        out->weak_to[i] = p->kernel->weak_to[i];
    }
}

/* ---- a fused function's reduction ---- */

/* NumPy's accumulator and result dtypes of reduction op over values of
 * dtype v: sum / prod widen small integers and bool to 64 bits, mean of
 * integers is float64, float16 accumulates in float32 */
static void
fred_dtypes(RedOp op, DType v, DType *acc, DType *out)
{
    char k = cj_dtypes[v].kind;
    int small = cj_dtypes[v].size < 8;
    *acc = *out = v;
    switch (op) {
    case RED_SUM:
    case RED_PROD:
        if (k == 'b' || (k == 'i' && small)) {
            *acc = *out = DT_I64;
        } else if (k == 'u' && small) {
            *acc = *out = DT_U64;
        }
        break;
    case RED_MEAN:
        if (k == 'b' || k == 'i' || k == 'u') {
            *acc = *out = DT_F64;
        }
        break;
    case RED_ANY:
    case RED_ALL:
        *acc = *out = DT_BOOL;
        return;
    case RED_ARGMIN:
    case RED_ARGMAX:
        *out = DT_I64;          /* the accumulator: the value and its index */
        return;
    case RED_MIN:
    case RED_MAX:
    case RED_NONE:
        return;
    }
    if (cj_is_half(v)) {
        *acc = DT_F32;
    }
}

/* the map's value: one number (a Python number is NumPy's default dtype) */
static DType
fred_value(Frame *fr, Func *fn, Program *p, RedOp op)
{
    Type *ret = cj_concrete(p->kernel->ret);
    if (ret->kind != TY_SCALAR) {
        cj_fail(&fr->tr, fn->file, fn->loc, "a fused reduction reduces one value per element, "
                "not %s", ret->kind == TY_TUPLE ? "a tuple" : "this");
    }
    if (cj_dtypes[ret->dtype].kind == 'c' && (op == RED_MIN || op == RED_MAX
                                               || op == RED_ARGMIN || op == RED_ARGMAX)) {
        cj_fail(&fr->tr, fn->file, fn->loc, "min, max, argmin and argmax of complex values "
                "are not supported in fused functions");
    }
    return ret->dtype;
}

static void
fred_emit(Frame *fr, const PlRequest *rq, Func *fn, Program *p, PlCompiled *out, Buf *src)
{
    FuseRedSpec s;
    memset(&s, 0, sizeof s);
    s.map = p->kernel;
    s.nin = rq->nargs;
    s.in = cj_alloc(&fr->arena, sizeof(Type *) * (size_t)(rq->nargs + 1));
    int nd = rq->nkeep + rq->nred;
    for (int i = 0; i < rq->nargs; i++) {
        s.in[i] = rq->is_array[i] ? cj_array_type(&fr->arena, rq->in_dtype[i], nd ? nd : 1, 'A')
                                  : type_of_key(&fr->arena, rq->args[i]);
    }
    s.op = (RedOp)rq->fuse_red;
    s.val = fred_value(fr, fn, p, s.op);
    fred_dtypes(s.op, s.val, &s.acc, &s.out);
    s.outer = rq->outer;
    s.contiguous = rq->contiguous;
    s.vec = rq->red_vec;
    s.nkeep = rq->nkeep;
    s.nred = rq->nred;
    s.kname = rq->kname;
    cg_emit_fused_reduction(p, &s, src);
    out->out[0] = s.out;
    out->nout = 1;
    out->acc_size = s.op == RED_ARGMIN || s.op == RED_ARGMAX ? 16 : cj_dtypes[s.acc].size;
}

/* ---- a device function on its own ---- */

/* the entry (extern "C", named rq->kname) returns the declared type, or
 * the function's own; -1: no memory */
static int
device_emit(Frame *fr, const PlRequest *rq, Program *p, PlCompiled *out, Buf *src)
{
    Type *ret = rq->has_ret == 2 ? cj_void() : rq->has_ret ? type_of_key(&fr->arena, rq->ret)
                                                           : cj_concrete(p->kernel->ret);
    if (rq->has_ret && ret->kind == TY_ARRAY) {
        cj_fail(&fr->tr, p->kernel->fn->file, p->kernel->fn->loc, "a device function "
                "returns numbers or tuples of numbers, not an array");
    }
    if (rq->has_ret == 1) {
        ti_declare_return(p, p->kernel, ret);   /* its returns convert to it */
    }
    cg_emit_device_entry(p, rq->kname, ret, rq->forceinline, src);
    Buf b;
    buf_init(&b);
    cj_type_str(&b, ret);
    out->sig = buf_steal(&b);
    out->kname = xstrdup(rq->kname);
    return out->sig && out->kname ? 0 : -1;
}

/* ---- the driver ---- */

int
pl_callee_key(PyObject *pyfunc, Buf *b)
{
    PyObject *code = PyFunction_Check(pyfunc) ? PyFunction_GetCode(pyfunc) : NULL;
    if (!code) {
        return -1;
    }
    PyCodeObject *co = (PyCodeObject *)code;
    const char *file = PyUnicode_AsUTF8(co->co_filename);
    const char *qual = PyUnicode_AsUTF8(((PyFunctionObject *)pyfunc)->func_qualname);
    if (!file || !qual) {
        PyErr_Clear();
        return -1;
    }
    buf_printf(b, "%s:%d:%s", file, co->co_firstlineno, qual);
    return 0;
}

/* the Python function the frontend read into fn, or NULL */
static PyObject *
pyfunc_of(const FeCtx *cx, const Func *fn)
{
    for (int i = 0; i < cx->nseen; i++) {
        if (cx->seen[i].fn == fn) {
            return cx->seen[i].pyfunc;
        }
    }
    return NULL;
}

/* (int32, int64): a device function's parameters as a call gave them, a
 * compile-time argument (bound to its value) by its value's type */
static void
callee_signature(Buf *b, const Inst *in)
{
    const Func *fn = in->fn;
    int np = fn->npnames > fn->nparams ? fn->npnames : fn->nparams, v = 0;
    buf_putc(b, '(');
    for (int i = 0; i < np; i++) {
        buf_puts(b, i ? ", " : "");
        if (i < fn->npnames && i < 64 && (fn->bound >> i & 1) && fn->pbound) {
            buf_puts(b, fn->pbound[i] ? fn->pbound[i] : "?");
        } else if (v < fn->nparams) {
            cj_type_str(b, in->args[v++]);
        }
    }
    for (; v < fn->nparams; v++) {      /* *args: the tuple of the extra ones */
        buf_puts(b, ", ");
        cj_type_str(b, in->args[v]);
    }
    buf_putc(b, ')');
}

/* out->callees: each device function the program calls, by its Python
 * function, and the signature it was typed for (Numba lists them in the
 * device function's dispatcher) */
static void
callees(Frame *fr, Program *p, PlCompiled *out)
{
    Buf b;
    buf_init(&b);
    for (int i = 0; i < p->ninsts; i++) {
        Inst *in = p->insts[i];
        PyObject *f = in == p->kernel ? NULL : pyfunc_of(&fr->cx, in->fn);
        if (f && pl_callee_key(f, &b) == 0) {
            buf_putc(&b, '\t');
            callee_signature(&b, in);
            buf_putc(&b, '\n');
        }
    }
    out->callees = b.s ? buf_steal(&b) : NULL;
}

/* typeinfer and codegen for the request's kind; -1 with an exception */
static int
type_and_emit(Frame *fr, const PlRequest *rq, Func *fn, Func *map, PlCompiled *out, Buf *src)
{
    double t1 = pl_now_ms();
    Type **types = types_of(&fr->arena, rq);
    Program *p = NULL;
    RedSpec rs;
    memset(&rs, 0, sizeof rs);
    switch (rq->kind) {
    case PL_KERNEL:
    case PL_ELEMENTWISE:
    case PL_GUFUNC:
    case PL_FUSE_REDUCTION:
    case PL_DEVICE:
        p = ti_infer(&fr->arena, &fr->tr, fn, types, rq->nargs, rq->idx32, rq->numba);
        break;
    case PL_REDUCTION:
        p = red_type(fr, rq, fn, map, &rs);
        break;
    }
    if (rq->kind == PL_ELEMENTWISE) {
        ew_outputs(fr, rq, fn, p, out);
    } else if (rq->kind == PL_GUFUNC) {
        gu_check(fr, fn, p);
    }
    double t2 = pl_now_ms();
    out->ms_typeinfer = t2 - t1;
    if (rq->typing_only) {
        return 0;
    }
    int r = 0;
    switch (rq->kind) {
    case PL_KERNEL:
        memcpy(p->launch_bounds, rq->launch_bounds, sizeof p->launch_bounds);
        cg_emit(p, src);
        r = kernel_result(p, types, rq->nargs, out);
        break;
    case PL_ELEMENTWISE:
        ew_emit(fr, rq, p, types, out, src);
        break;
    case PL_REDUCTION:
        r = red_emit(rq, p, &rs, out, src);
        break;
    case PL_GUFUNC:
        gu_emit(rq, p, out, src);
        break;
    case PL_FUSE_REDUCTION:
        fred_emit(fr, rq, fn, p, out, src);
        break;
    case PL_DEVICE:
        r = device_emit(fr, rq, p, out, src);
        break;
    }
    if (r == 0 && rq->kind != PL_KERNEL && rq->kind != PL_DEVICE) {
        out->kname = xstrdup(p->ew_name);
        r = out->kname ? 0 : -1;
    }
    if (r == 0) {
        callees(fr, p, out);
    }
    if (r < 0 && !PyErr_Occurred()) {
        PyErr_NoMemory();
    }
    out->ms_codegen = pl_now_ms() - t2;
    return r;
}

static int
run_stages(const PlRequest *rq, PlCompiled *out)
{
    Frame fr;
    Buf src;
    int volatile r = -1;
    memset(out, 0, sizeof *out);
    buf_init(&src);
    if (frame_open(&fr) < 0) {
        return -1;
    }
    if (setjmp(fr.tr.jb)) {
        if (!PyErr_Occurred() || !fr.tr.err.internal) {
            PyErr_Clear();
            pl_raise_frame_error(&fr.tr.err, &fr.cx);
        }
        goto done;
    }
    double t0 = pl_now_ms();
    int device = rq->kind != PL_KERNEL;
    fr.cx.fuse_names = rq->fuse_names;
    fr.cx.numba = rq->numba;
    fr.cx.links = rq->links;
    fr.cx.inplace = rq->inplace;
    fr.cx.ninplace = rq->ninplace;
    Func *fn = fe_read(&fr.cx, rq->func, device, rq->boundscheck);
    if (rq->fuse_names && fr.cx.fuse_red != rq->fuse_red) {
        cj_fail(&fr.tr, fn->file, fn->loc, "a fused function's reduction must be the value of "
                "its last statement (return np.sum(expr, axis=...)), and only there");
    }
    Func *map = rq->map ? fe_read(&fr.cx, rq->map, 1, 0) : NULL;
    out->ms_source = fr.cx.ms_source;
    out->ms_parse = fr.cx.ms_parse;
    out->ms_frontend = pl_now_ms() - t0 - fr.cx.ms_source - fr.cx.ms_parse;
    if (type_and_emit(&fr, rq, fn, map, out, &src) < 0) {
        goto done;
    }
    if (!rq->typing_only) {
        out->src = buf_steal(&src);
    }
    out->keep = fr.cx.captured;         /* the addresses in src stay valid */
    fr.cx.captured = NULL;
    r = 0;
done:
    buf_free(&src);
    frame_close(&fr);
    if (r < 0) {
        pl_compiled_free(out);
    }
    return r;
}

/* ---- the front key ---- */

/* the index's entry for key into *out; 1 found, 0 not */
static int
front_lookup(const uint64_t key[2], PlCompiled *out)
{
    char *data;
    size_t len;
    if (!rt_record_load(key, &data, &len)) {
        return 0;
    }
    int ok = pl_record_decode(data, len, out) == 0;
    free(data);
    return ok;
}

/* 0: stored; -1: not (no cache, or it cannot be written) */
static int
front_store(const uint64_t key[2], const PlCompiled *c)
{
    char *data;
    size_t len;
    int r = -1;
    if (pl_record_encode(c, &data, &len) == 0) {
        r = rt_record_store(key, data, len);
        free(data);
    }
    return r;
}

static void
front_log(const PlRequest *rq, const PlCompiled *c, const char *why, int stored)
{
    const char *what = c->front == PL_FRONT_HIT ? "hit: transpile skipped"
                       : c->front == PL_FRONT_MISS ? "miss" : "not keyed";
    const char *note = c->front == PL_FRONT_HIT ? "" : c->front == PL_FRONT_MISS
                       ? (stored ? "stored" : "not stored") : why;
    fprintf(stderr, "cujit: %s%s: front key %s%s%s%s, %.3f ms\n", rq->label,
            c->sig ? c->sig : "", what, *note ? " (" : "", note, *note ? ")" : "", c->ms_front);
}

int
pl_transpile(const PlRequest *rq, PlCompiled *out)
{
    uint64_t key[2];
    const char *why = "CUJIT_FRONT_KEY=0";
    double t0 = pl_now_ms();
    const char *fk = getenv("CUJIT_FRONT_KEY");
    int keyed = !(fk && strcmp(fk, "0") == 0) && pl_front_key(rq, key, &why);
    int hit = keyed && front_lookup(key, out);
    double ms = pl_now_ms() - t0;
    if (!hit && run_stages(rq, out) < 0) {
        return -1;
    }
    if (out->print_raw && PyErr_WarnEx(PyExc_UserWarning, "CUDA print() cannot print more "
                                       "than 32 items. The raw format string will be emitted "
                                       "by the kernel instead.", 1) < 0) {
        pl_compiled_free(out);
        return -1;
    }
    if (out->undef_warn && PyErr_WarnEx(PyExc_UserWarning, out->undef_warn, 1) < 0) {
        pl_compiled_free(out);
        return -1;
    }
    int stored = keyed && !hit && !out->print_raw && !out->undef_warn
                 && front_store(key, out) == 0;
    out->front = hit ? PL_FRONT_HIT : keyed ? PL_FRONT_MISS : PL_FRONT_OFF;
    out->ms_front = ms;
    if (env_on("CUJIT_LOG")) {
        front_log(rq, out, why, stored);
    }
    if (out->src && env_on("CUJIT_DUMP")) {
        fprintf(stderr, "// ---- cujit: %s%s ----\n%s\n", rq->label, out->sig ? out->sig : "",
                out->src);
    }
    return 0;
}

void
pl_compiled_free(PlCompiled *c)
{
    free(c->src);
    free(c->kname);
    free(c->sig);
    free(c->undef_warn);
    free(c->callees);
    c->callees = NULL;
    for (int i = 0; i < c->nmsgs; i++) {
        free(c->msgs[i]);
    }
    free(c->msgs);
    Py_CLEAR(c->keep);
    c->src = c->kname = c->sig = c->undef_warn = NULL;
    c->msgs = NULL;
    c->nmsgs = 0;
}

/* ---- NVRTC, the cache, loading ---- */

/* ---- CUJIT_LOG's line of a first call ---- */

int pl_log_pending;
static double import_ms = -1;       /* printed once, then -1 */
static struct {
    char text[1024];                /* the line up to its launch */
    const char *disk;               /* how the disk cache answered (static text) */
    double total_ms;                /* of the parts in text, import excepted */
    double loaded_at;               /* pl_now_ms() when pl_load returned */
} held;

void
pl_set_import_ms(double ms)
{
    import_ms = ms;
}

/* "<what> <ms> ms[ <note>], " appended to the held line */
static void
held_part(size_t *len, const char *what, double ms, int digits, const char *note)
{
    if (*len < sizeof held.text) {
        *len += (size_t)snprintf(held.text + *len, sizeof held.text - *len, "%s %.*f ms%s%s, ",
                                 what, digits, ms, *note ? " " : "", note);
    }
}

/* kernel (arch): [import, cuda init,] front key, source, parse, frontend,
 * typeinfer, codegen, key, disk, nvrtc, module */
static void
log_hold(const PlCompiled *c, const RtLoadStats *st)
{
    if (pl_log_pending) {
        pl_log_launched(0);
    }
    size_t len = (size_t)snprintf(held.text, sizeof held.text, "cujit: kernel %s (%s): ",
                                  c->kname, st->arch);
    double ctx = rt_take_context_ms();
    if (import_ms >= 0) {
        held_part(&len, "import", import_ms, 2, "");
        import_ms = -1;
    }
    if (ctx > 0) {
        held_part(&len, "cuda init", ctx, 2, "");
    }
    held_part(&len, c->front == PL_FRONT_HIT ? "front key hit" : c->front ? "front key miss"
              : "front key off", c->ms_front, 3, "");
    double parts[] = {c->ms_source, c->ms_parse, c->ms_frontend, c->ms_typeinfer, c->ms_codegen,
                      st->key_ms, st->disk_ms, st->nvrtc_ms, st->module_ms};
    const char *names[] = {"source", "parse", "frontend", "typeinfer", "codegen", "key", "disk",
                           "nvrtc", "module"};
    held.total_ms = ctx + c->ms_front;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        held_part(&len, names[i], parts[i], i == 5 || i == 6 ? 3 : 2,
                  i == 7 && st->fast ? "(--Ofast-compile=min)" : "");
        held.total_ms += parts[i];
    }
    if (st->link_ms > 0) {              /* foreign code linked (runtime/link.c) */
        held_part(&len, "link", st->link_ms, 2, "");
        held.total_ms += st->link_ms;
    }
    held.disk = st->disk;
    pl_log_pending = 1;
}

void
pl_log_launched(int launched)
{
    if (!pl_log_pending) {
        return;
    }
    pl_log_pending = 0;
    double launch = pl_now_ms() - held.loaded_at;
    if (launched) {
        held.total_ms += launch;
        fprintf(stderr, "%slaunch %.3f ms, total %.2f ms, disk cache %s\n", held.text, launch,
                held.total_ms, held.disk);
    } else {
        fprintf(stderr, "%stotal %.2f ms, disk cache %s\n", held.text, held.total_ms,
                held.disk);
    }
}

/* NVRTC's options for one compilation: the caller's, then c's own */
typedef struct {
    const char *v[RT_MAXOPTS];
    int n;
    Buf text;                   /* the -I options, each NUL-terminated */
    size_t at[RT_MAXOPTS];      /* where option i starts in text (SIZE_MAX: v[i] is static) */
} BuildOpts;

static void
opts_add(BuildOpts *o, const char *opt)
{
    if (o->n < RT_MAXOPTS) {
        o->at[o->n] = SIZE_MAX;
        o->v[o->n++] = opt;
    }
}

/* the option just written into o->text from `start` (NUL-terminated), unless
 * o has it already; its pointer is set by opts_fix once the text is whole */
static void
opts_add_text(BuildOpts *o, size_t start)
{
    for (int i = 0; i < o->n; i++) {
        if (o->at[i] != SIZE_MAX && strcmp(o->text.s + o->at[i], o->text.s + start) == 0) {
            o->text.len = start;
            return;
        }
    }
    if (o->n == RT_MAXOPTS) {
        o->text.len = start;
        return;
    }
    o->at[o->n] = start;
    o->v[o->n++] = NULL;
}

/* the options kept in o->text point into it, which no longer moves */
static void
opts_fix(BuildOpts *o)
{
    for (int i = 0; i < o->n; i++) {
        if (o->at[i] != SIZE_MAX) {
            o->v[i] = o->text.s + o->at[i];
        }
    }
}

/* a linked source's include directory: `//cujit-include: DIR` on a line of
 * its own (cujit/_extern.py writes one per directory before the source: the
 * file's own, then CUDA_NVRTC_EXTRA_SEARCH_PATHS), as -IDIR, once each */
static void
opts_add_includes(BuildOpts *o, const char *src)
{
    static const char mark[] = "\n//cujit-include: ";
    for (const char *p = strstr(src, mark); p; p = strstr(p, mark)) {
        p += sizeof mark - 1;
        size_t start = o->text.len;
        buf_puts(&o->text, "-I");
        buf_putmem(&o->text, p, strcspn(p, "\n"));
        buf_putc(&o->text, '\0');
        opts_add_text(o, start);
    }
}

/* how NVRTC compiles c: fastmath=True (approximate division, square root and
 * transcendentals, ftz), lineinfo=True (.loc lines of the #line marks),
 * opt=False (NVVM's -opt=0, as Numba: locals in the local depot; and
 * --fmad=false: PTX's mul.rn / add.rn, which ptxas does not contract into an
 * fma either), max_registers=N (ptxas's limit), and the include directories
 * of its linked sources.  All of them are in the binary's cache key
 * (rt_load_kernel_ex keys its options). */
static void
opts_of(BuildOpts *o, const PlCompiled *c, int flags)
{
    if (flags && c->fastmath) {
        opts_add(o, "--use_fast_math");
    }
    if (flags && c->lineinfo) {
        opts_add(o, "-lineinfo");
    }
    if (flags && c->noopt) {
        opts_add(o, "-Xnvvm=-opt=0");
        opts_add(o, "--fmad=false");        /* nor ptxas's contraction of mul and add */
    }
    if (flags && c->maxrreg > 0) {
        size_t start = o->text.len;
        buf_printf(&o->text, "--maxrregcount=%d", c->maxrreg);
        buf_putc(&o->text, '\0');
        opts_add_text(o, start);
    }
    opts_add_includes(o, c->src);
    opts_fix(o);
}

static void
opts_init(BuildOpts *o, const char *const *given, int ngiven)
{
    o->n = 0;
    buf_init(&o->text);
    for (int i = 0; i < ngiven; i++) {
        opts_add(o, given[i]);
    }
}

int
pl_load(const PlCompiled *c, const char *sibling, RtKernel *rk, RtKernel *rk2)
{
    RtLoadStats st;
    memset(&st, 0, sizeof st);
    BuildOpts bo;
    opts_init(&bo, NULL, 0);
    opts_of(&bo, c, 1);
    RtLoadOptions o = {.key_extra = "cujit " CJ_VERSION, .fast_compile = c->fast_compile,
                       .stats = &st, .opts = bo.v, .nopts = bo.n};
    int hit;
    int r = rt_load_kernel_ex(c->src, c->kname, &o, rk, &hit);
    buf_free(&bo.text);
    if (r < 0) {
        return -1;
    }
    if (sibling) {
        char name[512];
        snprintf(name, sizeof name, "%s%s", c->kname, sibling);
        if (rt_kernel_sibling(rk, name, rk2) < 0) {
            return -1;
        }
    }
    if (st.loaded && env_on("CUJIT_LOG")) {
        log_hold(c, &st);
        held.loaded_at = pl_now_ms();
    }
    return hit;
}

/* c's binary with the caller's options, and c's own when flags is set */
static PyObject *
binary(const PlCompiled *c, const char *arch, int output, const char *const *opts, int nopts,
       int flags)
{
    RtCompiled bin;
    char *log = NULL;
    BuildOpts bo;
    memset(&bin, 0, sizeof bin);
    opts_init(&bo, opts, nopts);
    opts_of(&bo, c, flags);
    if (rt_link_marked(c->src)) {
        /* foreign code to link: the kernel's own relocatable code, whose
         * declared functions stay external (the driver links them at load) */
        opts_add(&bo, "-rdc=true");
    }
    int r = rt_nvrtc_compile_ex(c->src, c->kname, arch, output, bo.v, bo.n, &bin, &log);
    buf_free(&bo.text);
    if (r < 0) {
        if (!PyErr_Occurred()) {
            pl_raise_nvrtc_error(log, c->src);
        }
        free(log);
        return NULL;
    }
    free(log);
    PyObject *res = output == RT_OUT_LTOIR
                        ? PyBytes_FromStringAndSize(bin.ltoir, (Py_ssize_t)bin.ltoir_len)
                    : output == RT_OUT_CUBIN
                        ? PyBytes_FromStringAndSize(bin.cubin, (Py_ssize_t)bin.cubin_len)
                        : PyUnicode_FromString(bin.ptx);
    rt_compiled_free(&bin);
    return res;
}

PyObject *
pl_binary(const PlCompiled *c, const char *arch, int cubin)
{
    return binary(c, arch, cubin ? RT_OUT_CUBIN : RT_OUT_PTX, NULL, 0, 1);
}

PyObject *
pl_binary_ex(const PlCompiled *c, const char *arch, int output, const char *const *opts,
             int nopts)
{
    return binary(c, arch, output, opts, nopts, 0);
}
