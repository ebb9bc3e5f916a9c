/* gufunc.c - cujit.GUFunc (@guvectorize): a generalized ufunc around a
 * function that writes its outputs (its trailing arguments) through views
 * of their core dimensions.  Numba's form: a layout "(m,n),(n,p)->(m,p)"
 * with eager signatures "void(float32[:,:], float32[:,:], float32[:,:])",
 * or typed lazily per call as @vectorize is.  NumPy's gufunc rules: the
 * loop dimensions (those before the core ones) broadcast, core dimensions
 * are checked with NumPy's messages, outputs are allocated with the loop
 * shape followed by their core shape unless out= gives them.  "()" inputs
 * are numbers in the function, "()" outputs 1-element arrays (out[0] = v).
 * The launch picks the plain entry (a thread per loop instance) or the
 * staged one (blocks of T instances whose contiguous input core blocks are
 * first copied to shared memory: stage_plan below, codegen/gufunc.c). */
#include "forms.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/shape.h"

#define GU_MAXOP PL_MAXIN       /* parameters of the function */
#define GU_MAXDIMS 32           /* distinct core dimension names */
#define GU_BLOCK 128
#define GU_STAGE_BUDGET (48 * 1024)   /* shared bytes per staged block (auto) */
/* auto stages only when the staged inputs hold at least this many bytes per
 * instance: on the H100 (bench section 7b) dot products of 7 float32 (56 B
 * of inputs) ran at 88.9 % of copy plain and 66.8 % staged, of 64 float32
 * (512 B) at 12.3 % plain and 63.0 % staged; where between the two the lines
 * cross is not measured yet */
#define GU_STAGE_MIN_BYTES 64
#define GU_PLAN_WORDS (1 + 4 * GU_MAXOP)

/* GUFunc.stage: which entry a launch may take */
enum { STAGE_OFF, STAGE_AUTO, STAGE_ALWAYS };

/* ---- the layout "(m,n),(n,p)->(m,p)" ---- */

typedef struct {
    int nin, nout;
    int ncore[GU_MAXOP];
    int dim[GU_MAXOP][RT_MAXDIM];   /* per operand and core dimension: a name */
    int ndims;
    char names[GU_MAXDIMS][32];
    int64_t fixed[GU_MAXDIMS];      /* a number in the layout; -1 for names */
} Layout;

static void
skip_ws(const char **s)
{
    while (**s == ' ' || **s == '\t') {
        (*s)++;
    }
}

/* dim := name | number; its index among the layout's dimensions, -1 if bad */
static int
lay_dim(Layout *l, const char **s)
{
    char w[32];
    int n = 0;
    skip_ws(s);
    while ((**s == '_' || (**s >= 'a' && **s <= 'z') || (**s >= 'A' && **s <= 'Z')
            || (**s >= '0' && **s <= '9')) && n < 31) {
        w[n++] = *(*s)++;
    }
    w[n] = 0;
    if (n == 0) {
        return -1;
    }
    for (int d = 0; d < l->ndims; d++) {
        if (strcmp(l->names[d], w) == 0) {
            return d;
        }
    }
    if (l->ndims == GU_MAXDIMS) {
        return -1;
    }
    int num = w[0] >= '0' && w[0] <= '9';
    for (int i = 0; i < n && num; i++) {
        if (w[i] < '0' || w[i] > '9') {
            return -1;
        }
    }
    memcpy(l->names[l->ndims], w, (size_t)n + 1);
    l->fixed[l->ndims] = num ? strtoll(w, NULL, 10) : -1;
    return l->ndims++;
}

/* core := "(" [dim ("," dim)*] ")"; 0, or -1 when malformed */
static int
lay_core(Layout *l, const char **s, int op)
{
    skip_ws(s);
    if (**s != '(' || op >= GU_MAXOP) {
        return -1;
    }
    (*s)++;
    skip_ws(s);
    l->ncore[op] = 0;
    if (**s == ')') {
        (*s)++;
        return 0;
    }
    for (;;) {
        int d = lay_dim(l, s);
        if (d < 0 || l->ncore[op] == RT_MAXDIM) {
            return -1;
        }
        l->dim[op][l->ncore[op]++] = d;
        skip_ws(s);
        if (**s == ')') {
            (*s)++;
            return 0;
        }
        if (**s != ',') {
            return -1;
        }
        (*s)++;
    }
}

/* cores := core ("," core)*; the number of operands, -1 when malformed */
static int
lay_cores(Layout *l, const char **s, int first)
{
    int op = first;
    for (;;) {
        if (lay_core(l, s, op++) < 0) {
            return -1;
        }
        skip_ws(s);
        if (**s != ',') {
            return op - first;
        }
        (*s)++;
    }
}

/* layout := cores "->" cores; -1 with NumPy's ValueError when malformed */
static int
parse_layout(const char *text, Layout *l)
{
    const char *s = text;
    memset(l, 0, sizeof *l);
    l->nin = lay_cores(l, &s, 0);
    skip_ws(&s);
    if (l->nin > 0 && s[0] == '-' && s[1] == '>') {
        s += 2;
        l->nout = lay_cores(l, &s, l->nin);
        skip_ws(&s);
    }
    if (l->nin <= 0 || l->nout <= 0 || *s || l->nout > MAXOUT) {
        PyErr_Format(PyExc_ValueError, "not a valid gufunc signature: %s", text);
        return -1;
    }
    return 0;
}

/* ---- the object ---- */

typedef struct {
    DType dt[GU_MAXOP];
    unsigned char scalar[GU_MAXOP];     /* a number ("()" inputs only) */
} GuSig;

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    PyObject *layout_text;
    Layout lay;
    GuSig *sigs;
    int nsigs;
    Form *forms;
    int stage;                  /* STAGE_*: CUJIT_GU_STAGE, then .stage */
    int last_block;             /* the last launch (.last_launch): -1 none, 0 plain */
    unsigned last_shmem;
    uint32_t last_mask;
    int numba;                  /* Numba's spelling (target='cuda'): its typing rules in
                                 * the body (PlRequest.numba) */
    vectorcallfunc vectorcall;
} GUFuncObject;

static int
gu_nparams(const GUFuncObject *g)
{
    return g->lay.nin + g->lay.nout;
}

/* ---- one call ---- */

typedef struct {
    GUFuncObject *g;
    void *stream;
    PyObject *stream_obj;       /* the stream= argument (borrowed), kept by outputs */
    int nops;                   /* operands read so far (released at the end) */
    PyObject *made[MAXOUT];     /* outputs allocated here */
    PyObject *cast[GU_MAXOP];   /* inputs cast to an eager signature's dtypes */
    int sig;                    /* the eager signature chosen; -1: lazy typing */
    int64_t size[GU_MAXDIMS];   /* the core dimensions' sizes, -1 while unknown */
    int nloop;                  /* the broadcast loop shape */
    int64_t loop[RT_MAXDIM];
    int64_t total;
    /* per parameter: how the kernel passes it, its dtype, its view's rank */
    unsigned char mode[GU_MAXOP];
    DType dt[GU_MAXOP];
    int ncore[GU_MAXOP];
    ArgKey fn_args[GU_MAXOP];
    int idx32;
    int nd;                     /* the collapsed loop shape */
    int64_t cshape[RT_MAXDIM];
    int staged;                 /* the form has the staged entry */
    int block;                  /* staged launch: instances per block; 0: plain */
    unsigned shmem;
    uint32_t plan[GU_PLAN_WORDS];   /* cj_gu_plan: mask, off[], len[], pitch[], magic[] */
    Operand ops[GU_MAXOP];
    int64_t st[GU_MAXOP][RT_MAXDIM];
    void *params[GU_MAXOP + 2];
    unsigned char buf[(GU_MAXOP + 1) * (8 + 16 * RT_MAXDIM) + 4 * GU_PLAN_WORDS]
        __attribute__((aligned(16)));
} GuCall;

static GuCall gu_static;
static int gu_static_busy;

/* NumPy's "(2,3)" and "(2,)" */
static void
shape_text(Buf *b, int nd, const int64_t *shape)
{
    buf_putc(b, '(');
    for (int d = 0; d < nd; d++) {
        buf_printf(b, "%s%lld", d ? "," : "", (long long)shape[d]);
    }
    buf_puts(b, nd == 1 ? ",)" : ")");
}

static const char *
op_kind(const GUFuncObject *g, int k)
{
    return k < g->lay.nin ? "Input" : "Output";
}

static int
op_number(const GUFuncObject *g, int k)
{
    return k < g->lay.nin ? k : k - g->lay.nin;
}

/* operand k's core dimensions against the sizes known so far (NumPy's
 * messages); its shape is `nd` long */
static int
check_core(GuCall *c, int k, int nd, const int64_t *shape)
{
    GUFuncObject *g = c->g;
    int nc = g->lay.ncore[k];
    if (nd < nc) {
        PyErr_Format(PyExc_ValueError, "%U: %s operand %d does not have enough dimensions (has "
                     "%d, gufunc core with signature %U requires %d)", g->name, op_kind(g, k),
                     op_number(g, k), nd, g->layout_text, nc);
        return -1;
    }
    for (int j = 0; j < nc; j++) {
        int d = g->lay.dim[k][j];
        int64_t s = shape[nd - nc + j];
        if (c->size[d] < 0) {
            c->size[d] = s;
        } else if (c->size[d] != s) {
            PyErr_Format(PyExc_ValueError, "%U: %s operand %d has a mismatch in its core "
                         "dimension %d, with gufunc signature %U (size %lld is different from "
                         "%lld)", g->name, op_kind(g, k), op_number(g, k), j, g->layout_text,
                         (long long)s, (long long)c->size[d]);
            return -1;
        }
    }
    return 0;
}

/* the first eager signature every input casts to safely; -1 if none */
static int
pick_sig(GUFuncObject *g, Operand *ops)
{
    for (int s = 0; s < g->nsigs; s++) {
        int ok = 1;
        for (int i = 0; i < g->lay.nin && ok; i++) {
            DType to = g->sigs[s].dt[i];
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
sig_error(GUFuncObject *g, Operand *ops)
{
    Buf b;
    buf_init(&b);
    buf_printf(&b, "%s() has no signature for inputs (", PyUnicode_AsUTF8(g->name));
    for (int i = 0; i < g->lay.nin; i++) {
        buf_printf(&b, "%s%s", i ? ", " : "", cj_dtypes[ops[i].dt].name);
    }
    buf_puts(&b, "); its signatures take:");
    for (int s = 0; s < g->nsigs; s++) {
        buf_puts(&b, s ? "; " : " ");
        for (int i = 0; i < g->lay.nin; i++) {
            buf_printf(&b, "%s%s", i ? ", " : "", cj_dtypes[g->sigs[s].dt[i]].name);
        }
    }
    PyErr_SetString(PyExc_TypeError, b.s);
    buf_free(&b);
}

/* an input array of another dtype than the signature's, cast by its own
 * astype() (on the device for device arrays, on the host for NumPy's) */
static int
cast_input(GuCall *c, int i, DType to)
{
    Operand *op = &c->ops[i];
    if (!op->is_array || op->dt == to) {
        return 0;
    }
    PyObject *obj = op->obj;
    if (release(op, 1, c->stream, 0) < 0) {
        op->is_array = 0;
        return -1;
    }
    PyObject *seq = c->cast[i];     /* a tuple or list input's array, or NULL */
    c->cast[i] = PyObject_CallMethod(obj, "astype", "s", cj_dtypes[to].name);
    Py_XDECREF(seq);
    char what[48];
    snprintf(what, sizeof what, "input %d", i + 1);
    if (!c->cast[i] || operand(c->cast[i], op, c->stream, what) < 0) {
        op->is_array = 0;   /* nothing to release */
        return -1;
    }
    return 0;
}

/* the inputs read, cast to the eager signature, their core dimensions checked */
static int
gu_inputs(GuCall *c, PyObject *const *args)
{
    GUFuncObject *g = c->g;
    for (; c->nops < g->lay.nin; c->nops++) {
        char what[48];
        snprintf(what, sizeof what, "input %d", c->nops + 1);
        PyObject *in = args[c->nops];
        if (PyTuple_Check(in) || PyList_Check(in)) {
            /* array_like, as NumPy's gufuncs take it (a tuple of arrays or
             * of tuples): NumPy's array of it */
            PyObject *np = PyImport_ImportModule("numpy");
            in = c->cast[c->nops] = np ? PyObject_CallMethod(np, "asarray", "(O)", in) : NULL;
            Py_XDECREF(np);
            if (!in) {
                return -1;
            }
        }
        if (operand(in, &c->ops[c->nops], c->stream, what) < 0) {
            return -1;
        }
    }
    c->sig = -1;
    if (g->nsigs) {
        c->sig = pick_sig(g, c->ops);
        if (c->sig < 0) {
            sig_error(g, c->ops);
            return -1;
        }
        for (int i = 0; i < g->lay.nin; i++) {
            if (cast_input(c, i, g->sigs[c->sig].dt[i]) < 0) {
                return -1;
            }
        }
    }
    for (int i = 0; i < g->lay.nin; i++) {
        const Operand *op = &c->ops[i];
        if (check_core(c, i, op->is_array ? op->a.ndim : 0, op->a.shape) < 0) {
            return -1;
        }
    }
    return 0;
}

/* out= (an array, or a tuple of one per output) or outputs given after the
 * inputs, read and their core dimensions checked */
static int
gu_given_outputs(GuCall *c, PyObject *const *args, Py_ssize_t n, PyObject *out_arg)
{
    GUFuncObject *g = c->g;
    int nout = g->lay.nout;
    PyObject *given[MAXOUT];
    if (out_arg && n > g->lay.nin) {
        PyErr_Format(PyExc_TypeError, "%U() got outputs both as arguments and out=", g->name);
        return -1;
    }
    if (!out_arg && n == g->lay.nin) {
        return 0;
    }
    for (int k = 0; k < nout; k++) {
        given[k] = n > g->lay.nin ? args[g->lay.nin + k]
                 : PyTuple_Check(out_arg) ? NULL : out_arg;
    }
    if (out_arg && PyTuple_Check(out_arg)) {
        if (PyTuple_GET_SIZE(out_arg) != nout) {
            PyErr_Format(PyExc_ValueError, "%U() has %d outputs but out= gives %zd", g->name,
                         nout, PyTuple_GET_SIZE(out_arg));
            return -1;
        }
        for (int k = 0; k < nout; k++) {
            given[k] = PyTuple_GET_ITEM(out_arg, k);
        }
    } else if (out_arg && nout != 1) {
        PyErr_Format(PyExc_ValueError, "%U() has %d outputs: out= must be a tuple of %d arrays",
                     g->name, nout, nout);
        return -1;
    }
    for (int k = 0; k < nout; k++) {
        int o = g->lay.nin + k;
        char what[48];
        snprintf(what, sizeof what, "output %d", k + 1);
        if (!rt_is_array(given[k])) {
            PyErr_Format(PyExc_TypeError, "%U(): %s must be an array, not %s", g->name, what,
                         Py_TYPE(given[k])->tp_name);
            return -1;
        }
        if (operand(given[k], &c->ops[o], c->stream, what) < 0) {
            return -1;
        }
        c->nops = o + 1;
        if (check_core(c, o, c->ops[o].a.ndim, c->ops[o].a.shape) < 0) {
            return -1;
        }
    }
    return 0;
}

/* every output's core dimensions known (from the inputs or out=) */
static int
gu_sizes_known(GuCall *c)
{
    GUFuncObject *g = c->g;
    for (int k = g->lay.nin; k < gu_nparams(g); k++) {
        for (int j = 0; j < g->lay.ncore[k]; j++) {
            int d = g->lay.dim[k][j];
            if (c->size[d] < 0) {
                PyErr_Format(PyExc_ValueError, "%U: Output operand %d has core dimension %d "
                             "unspecified, with gufunc signature %U", g->name, k - g->lay.nin,
                             j, g->layout_text);
                return -1;
            }
        }
    }
    return 0;
}

static void
broadcast_error(GuCall *c)
{
    GUFuncObject *g = c->g;
    Buf b;
    buf_init(&b);
    buf_puts(&b, "operands could not be broadcast together with remapped shapes "
             "[original->remapped]:");
    for (int k = 0; k < c->nops; k++) {
        const Operand *op = &c->ops[k];
        int nd = op->is_array ? op->a.ndim : 0;
        buf_putc(&b, ' ');
        shape_text(&b, nd, op->a.shape);
        buf_puts(&b, "->");
        shape_text(&b, nd - g->lay.ncore[k], op->a.shape);
    }
    PyErr_SetString(PyExc_ValueError, b.s);
    buf_free(&b);
}

/* the loop shape: the operands' loop dimensions broadcast (NumPy's rules);
 * outputs given must have all of it */
static int
gu_loop_shape(GuCall *c)
{
    GUFuncObject *g = c->g;
    c->nloop = 0;
    for (int k = 0; k < c->nops; k++) {
        int nl = c->ops[k].is_array ? c->ops[k].a.ndim - g->lay.ncore[k] : 0;
        for (; c->nloop < nl; c->nloop++) {
            c->loop[c->nloop] = 1;
        }
    }
    for (int k = 0; k < c->nops; k++) {
        int nl = c->ops[k].is_array ? c->ops[k].a.ndim - g->lay.ncore[k] : 0;
        for (int d = 0; d < nl; d++) {
            int64_t s = c->ops[k].a.shape[d], *to = &c->loop[c->nloop - nl + d];
            if (s != 1 && *to != 1 && s != *to) {
                broadcast_error(c);
                return -1;
            }
            *to = s != 1 ? s : *to;
        }
    }
    for (int k = g->lay.nin; k < c->nops; k++) {
        const RtArray *a = &c->ops[k].a;
        int ok = a->ndim - g->lay.ncore[k] == c->nloop;
        for (int d = 0; ok && d < c->nloop; d++) {
            ok = a->shape[d] == c->loop[d];
        }
        if (!ok) {
            Buf b;
            buf_init(&b);
            buf_puts(&b, "non-broadcastable output operand with shape ");
            shape_text(&b, a->ndim, a->shape);
            buf_puts(&b, " doesn't match the broadcast shape ");
            shape_text(&b, c->nloop, c->loop);
            PyErr_SetString(PyExc_ValueError, b.s);
            buf_free(&b);
            return -1;
        }
    }
    c->total = 1;
    for (int d = 0; d < c->nloop; d++) {
        c->total *= c->loop[d];
    }
    return 0;
}

/* NumPy's result dtype of the inputs (Python numbers weak): lazy outputs */
static DType
lazy_out_dtype(GuCall *c)
{
    Type *t = NULL;
    for (int i = 0; i < c->g->lay.nin; i++) {
        const Operand *op = &c->ops[i];
        Type *ti = cj_scalar(op->dt);
        if (op->weak) {
            char k = cj_dtypes[op->dt].kind;
            ti = cj_weak(k == 'c' ? TY_WEAK_COMPLEX : k == 'f' ? TY_WEAK_FLOAT : TY_WEAK_INT);
        }
        t = t ? cj_promote(t, ti) : ti;
    }
    return cj_concrete(t)->dtype;
}

/* parameter k's mode, dtype, view rank and type in the function */
static void
gu_param(GuCall *c, int k)
{
    GUFuncObject *g = c->g;
    const GuSig *sig = c->sig >= 0 ? &g->sigs[c->sig] : NULL;
    const Operand *op = &c->ops[k];
    int nc = g->lay.ncore[k];
    int is_out = k >= g->lay.nin;
    if (k < c->nops) {
        c->dt[k] = sig && !op->is_array ? sig->dt[k] : op->dt;
    } else {
        c->dt[k] = sig ? sig->dt[k] : lazy_out_dtype(c);
    }
    if (!is_out && !op->is_array) {
        c->mode[k] = GU_VALUE;
        c->fn_args[k] = sig ? rt_scalar_key(c->dt[k]) : operand_key(op);
        return;
    }
    if (!is_out && nc == 0 && (!sig || sig->scalar[k])) {
        c->mode[k] = GU_ELEM;
        c->fn_args[k] = rt_scalar_key(c->dt[k]);
        return;
    }
    c->mode[k] = GU_VIEW;
    c->ncore[k] = nc ? nc : 1;
    c->fn_args[k] = rt_array_key(c->dt[k], c->ncore[k], 'A', 0);
}

/* the outputs not given: loop shape then core shape, C order */
static int
gu_make_outputs(GuCall *c)
{
    GUFuncObject *g = c->g;
    for (int k = c->nops; k < gu_nparams(g); k++) {
        int64_t shape[RT_MAXDIM];
        int nd = c->nloop + g->lay.ncore[k];
        if (nd > RT_MAXDIM) {
            PyErr_SetString(PyExc_ValueError, "too many dimensions");
            return -1;
        }
        memcpy(shape, c->loop, sizeof(int64_t) * (size_t)c->nloop);
        for (int j = 0; j < g->lay.ncore[k]; j++) {
            shape[c->nloop + j] = c->size[g->lay.dim[k][j]];
        }
        Operand *o = &c->ops[k];
        PyObject *m = rt_empty_order(nd, shape, c->dt[k], 'C', c->stream, c->stream_obj);
        c->made[k - g->lay.nin] = m;
        c->nops = k + 1;
        if (!m) {
            rt_err_context("the outputs of %s()", PyUnicode_AsUTF8(c->g->name));
            return -1;
        }
        if (rt_get_array(m, &o->a, c->stream, "out") < 0) {
            return -1;
        }
        o->is_array = 1;
        o->obj = m;
        o->dt = c->dt[k];
    }
    return 0;
}

/* loop strides of every array (broadcast ones 0), the loop dimensions
 * collapsed where all step through them together; 32-bit indexing */
static void
gu_geometry(GuCall *c)
{
    GUFuncObject *g = c->g;
    int na = 0;
    c->idx32 = c->total < INT32_MAX;
    for (int k = 0; k < gu_nparams(g); k++) {
        const Operand *op = &c->ops[k];
        if (c->mode[k] == GU_VALUE) {
            continue;
        }
        RtArray lp = op->a;
        lp.ndim = op->a.ndim - g->lay.ncore[k];
        rt_broadcast_strides(&lp, c->nloop, c->loop, c->st[na++]);
        c->idx32 &= rt_fits32(op->a.ndim, op->a.shape, op->a.strides);
    }
    memcpy(c->cshape, c->loop, sizeof(int64_t) * (size_t)c->nloop);
    c->nd = rt_collapse_dims(c->nloop, c->cshape, c->st, na);
}

/* some parameter is a view with core dimensions: codegen emits the staged
 * entry when the request asks (PlRequest.gu_stage) */
static int
wants_staged_entry(const GuCall *c)
{
    if (c->g->stage == STAGE_OFF) {
        return 0;
    }
    for (int k = 0; k < gu_nparams(c->g); k++) {
        if (c->mode[k] == GU_VIEW && c->g->lay.ncore[k] > 0) {
            return 1;
        }
    }
    return 0;
}

/* the kernel for these parameters and this geometry, compiled if new */
static Form *
gu_kernel(GuCall *c)
{
    GUFuncObject *g = c->g;
    int np = gu_nparams(g);
    Key kk;
    kk.n = 0;
    key_int(&kk, c->nd);
    key_int(&kk, c->idx32);
    key_int(&kk, g->stage != STAGE_OFF);
    for (int k = 0; k < np; k++) {
        key_int(&kk, c->mode[k] | c->dt[k] << 4 | c->ncore[k] << 12);
        key_put(&kk, &c->fn_args[k], sizeof(ArgKey));
    }
    Form *f = form_find(g->forms, &kk);
    if (f) {
        return f;
    }
    char label[256];
    snprintf(label, sizeof label, "guvectorize %s", PyUnicode_AsUTF8(g->name));
    PlRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = PL_GUFUNC;
    rq.func = g->pyfunc;
    rq.label = label;
    rq.idx32 = c->idx32;
    rq.numba = g->numba;
    rq.args = c->fn_args;
    rq.nargs = np;
    rq.gu_mode = c->mode;
    rq.gu_dtype = c->dt;
    rq.gu_ncore = c->ncore;
    rq.gu_nin = g->lay.nin;
    rq.gu_nloop = c->nd;
    rq.gu_stage = wants_staged_entry(c);
    f = form_new(&kk);
    if (f && pl_transpile(&rq, &f->c) < 0) {
        form_free(f);
        return NULL;
    }
    if (f) {
        f->next = g->forms;
        g->forms = f;
    }
    return f;
}

/* NEP 50: a Python int must fit the integer dtypes the function converts
 * it to (NumPy's OverflowError) */
static int
check_python_ints(GuCall *c, const Form *f)
{
    for (int i = 0; i < c->g->lay.nin; i++) {
        const Operand *op = &c->ops[i];
        if (!op->weak || cj_dtypes[op->dt].kind != 'i') {
            continue;
        }
        uint32_t to = f->c.weak_to[i];
        if (c->sig >= 0) {
            to |= 1u << c->dt[i];
        }
        for (int d = 0; d < DT_COUNT; d++) {
            unsigned char bytes[16];
            if ((to >> d & 1) && cj_dtypes[d].kind != 'f' && cj_dtypes[d].kind != 'c'
                && rt_scalar_to_bytes(op->obj, (DType)d, bytes) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* ---- the staged entry's plan ---- */

/* cj_gu_plan's words: mask, then off[], len[], pitch[], magic[] (one per
 * parameter) */
enum { PLAN_OFF, PLAN_LEN, PLAN_PITCH, PLAN_MAGIC };

static uint32_t *
plan_at(GuCall *c, int field, int k)
{
    return &c->plan[1 + field * gu_nparams(c->g) + k];
}

/* the form has <kname>_st: asked for, and the function does not use
 * dynamic shared memory itself */
static int
has_staged_entry(const GuCall *c, const Form *f)
{
    return wants_staged_entry(c) && !f->c.has_dynshared;
}

/* strides that walk `nd` dimensions in C order from `unit` bytes up
 * (extents of 1 take any stride) */
static int
c_order(int nd, const int64_t *shape, const int64_t *strides, int64_t unit)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (shape[d] != 1 && strides[d] != unit) {
            return 0;
        }
        unit *= shape[d];
    }
    return 1;
}

/* operand k's core block in bytes when every instance's block follows the
 * previous one in memory (C-contiguous core dimensions, loop strides of one
 * block); 0 when it cannot be staged: another layout, one element, not in
 * whole aligned 4-byte words, or an output the call did not allocate (out=
 * keeps what the function does not write) */
static int64_t
stage_block_bytes(const GuCall *c, int k, const int64_t *loop_st)
{
    const RtArray *a = &c->ops[k].a;
    int nc = c->g->lay.ncore[k];
    int64_t size = cj_dtypes[a->dtype].size;
    if (c->mode[k] != GU_VIEW || !c->ops[k].is_array || nc == 0
        || (k >= c->g->lay.nin && !c->made[k - c->g->lay.nin])) {
        return 0;
    }
    const int64_t *shape = a->shape + a->ndim - nc, *strides = a->strides + a->ndim - nc;
    int64_t bytes = size;
    for (int j = 0; j < nc; j++) {
        bytes *= shape[j];
    }
    if (bytes < 2 * size || bytes % 4 || (uintptr_t)a->ptr % 4
        || !c_order(nc, shape, strides, size) || !c_order(c->nd, c->cshape, loop_st, bytes)) {
        return 0;
    }
    return bytes;
}

/* shared bytes of a block of T instances for the inputs in `mask` (each
 * input's part 16-byte aligned) */
static int64_t
stage_bytes(GuCall *c, uint32_t mask, int64_t T)
{
    int64_t total = 0;
    for (int k = 0; k < gu_nparams(c->g); k++) {
        if (mask >> k & 1) {
            total += (T * *plan_at(c, PLAN_PITCH, k) * 4 + 15) & ~(int64_t)15;
        }
    }
    return total;
}

/* input k's words per instance, pitch and magic: blocks an odd number of
 * units (4 bytes, or the element where larger) apart, so that the threads
 * of a warp reading element j of their own blocks hit distinct banks */
static void
stage_input(GuCall *c, int k, int64_t bytes)
{
    int64_t size = cj_dtypes[c->dt[k]].size, unit = size < 4 ? 4 : size;
    int64_t len = bytes / 4, pitch = (bytes / unit | 1) * unit / 4;
    /* e / len as __umulhi(e, magic) with magic = ceil(2^32 / len): exact while
     * e * len < 2^32, and e stays below T * len <= 128 * len */
    *plan_at(c, PLAN_LEN, k) = (uint32_t)len;
    *plan_at(c, PLAN_PITCH, k) = (uint32_t)pitch;
    *plan_at(c, PLAN_MAGIC, k) = pitch == len ? 0
                                 : (uint32_t)((((uint64_t)1 << 32) + len - 1) / len);
}

/* the plan's offsets for blocks of T instances, and the launch's shmem */
static void
stage_offsets(GuCall *c, int T)
{
    int64_t off = 0;
    for (int k = 0; k < gu_nparams(c->g); k++) {
        *plan_at(c, PLAN_OFF, k) = (uint32_t)off;
        if (c->plan[0] >> k & 1) {
            off += stage_bytes(c, 1u << k, T);
        }
    }
    c->block = T;
    c->shmem = (unsigned)off;
}

/* Which operands to stage and T, from the operands: each input, then each
 * output allocated here, whose blocks are contiguous, in order, while 32
 * instances of them fit the budget (48 KiB, so that four blocks share an
 * SM; "always": the device's opt-in maximum); T the largest of 128, 64, 32
 * within 48 KiB.  No input staged: the plain entry (c->block 0), since
 * staging an output alone changes only how it is written.  Rows are an odd
 * number of units apart. */
static int
stage_plan(GuCall *c)
{
    GUFuncObject *g = c->g;
    int na = 0;
    int64_t limit = GU_STAGE_BUDGET, in_bytes = 0;
    c->block = 0;
    if (!c->staged || c->total == 0) {
        return 0;
    }
    if (g->stage == STAGE_ALWAYS && (limit = rt_max_shared_per_block()) < 0) {
        return -1;
    }
    memset(c->plan, 0, sizeof c->plan);
    for (int k = 0; k < gu_nparams(g); k++) {
        int64_t bytes = c->mode[k] == GU_VALUE ? 0 : stage_block_bytes(c, k, c->st[na++]);
        if (bytes == 0 || bytes > limit) {
            continue;
        }
        stage_input(c, k, bytes);
        if (stage_bytes(c, c->plan[0] | 1u << k, 32) <= limit
            && 128 * (bytes / 4) * (bytes / 4) < ((int64_t)1 << 32)) {
            c->plan[0] |= 1u << k;
            in_bytes += k < g->lay.nin ? bytes : 0;
        }
    }
    if (!(c->plan[0] & ((1u << g->lay.nin) - 1))
        || (g->stage == STAGE_AUTO && in_bytes < GU_STAGE_MIN_BYTES)) {
        return 0;
    }
    int T = 128;
    while (T > 32 && stage_bytes(c, c->plan[0], T) > GU_STAGE_BUDGET) {
        T /= 2;
    }
    stage_offsets(c, T);
    return 0;
}

/* ---- parameters and the launch ---- */

/* array k: its loop dimensions (collapsed) and core dimensions; a "()"
 * view gets one dimension of extent 1 */
static void
pack_view(GuCall *c, int k, const int64_t *st, size_t *off)
{
    const RtArray *a = &c->ops[k].a;
    int nc = c->g->lay.ncore[k];
    int64_t shape[RT_MAXDIM + 1], strides[RT_MAXDIM + 1];
    memcpy(shape, c->cshape, sizeof(int64_t) * (size_t)c->nd);
    memcpy(strides, st, sizeof(int64_t) * (size_t)c->nd);
    int n = c->nd;
    if (c->mode[k] == GU_VIEW) {
        for (int j = 0; j < nc; j++, n++) {
            shape[n] = a->shape[a->ndim - nc + j];
            strides[n] = a->strides[a->ndim - nc + j];
        }
        if (nc == 0) {
            shape[n] = 1;
            strides[n++] = cj_dtypes[a->dtype].size;
        }
    }
    rt_pack_view(c->buf, off, (uint64_t)(uintptr_t)a->ptr, n, shape, strides, c->idx32);
}

/* the parameters: one per operand, then the loop count (and for the staged
 * entry its plan) */
static int
gu_pack(GuCall *c)
{
    size_t off = 0;
    int np = gu_nparams(c->g), na = 0;
    for (int k = 0; k < np; k++) {
        if (c->mode[k] != GU_VALUE) {
            off = (off + 7) & ~(size_t)7;
            c->params[k] = c->buf + off;
            pack_view(c, k, c->st[na++], &off);
            continue;
        }
        unsigned char bytes[16];
        if (rt_scalar_to_bytes(c->ops[k].obj, c->dt[k], bytes) < 0) {
            return -1;
        }
        int sz = cj_dtypes[c->dt[k]].size;
        size_t al = (size_t)(sz > 8 ? 8 : sz);
        off = (off + al - 1) & ~(al - 1);
        c->params[k] = c->buf + off;
        rt_put(c->buf, &off, bytes, (size_t)sz, al);
    }
    off = (off + 7) & ~(size_t)7;
    c->params[np] = c->buf + off;
    rt_pack_index(c->buf, &off, c->total, c->idx32);
    if (c->block) {
        off = (off + 3) & ~(size_t)3;
        c->params[np + 1] = c->buf + off;
        rt_put(c->buf, &off, c->plan, sizeof(uint32_t) * (size_t)(1 + 4 * np), 4);
    }
    return 0;
}

/* types, kernel, parameters, launch */
static int
gu_run(GuCall *c)
{
    int np = gu_nparams(c->g);
    for (int k = 0; k < np; k++) {
        gu_param(c, k);
    }
    if (gu_make_outputs(c) < 0) {
        return -1;
    }
    gu_geometry(c);
    Form *f = gu_kernel(c);
    if (!f || check_python_ints(c, f) < 0) {
        return -1;
    }
    if (c->total == 0) {
        return 0;
    }
    c->staged = has_staged_entry(c, f);
    int dev = form_load(f, c->staged ? "_st" : NULL);
    if (dev < 0 || stage_plan(c) < 0 || gu_pack(c) < 0) {
        return -1;
    }
    int threads = c->block ? c->block : GU_BLOCK;
    unsigned grid[3] = {grid_for(c->total, threads), 1, 1};
    unsigned block[3] = {(unsigned)threads, 1, 1};
    if (!grid[0]) {
        return -1;
    }
    RtKernel *k = c->block ? &f->rk2[dev] : &f->rk[dev];
    int r = rt_launch(k, grid, block, c->shmem, c->stream, c->params,
                      PyUnicode_AsUTF8(c->g->name));
    c->g->last_block = c->block;
    c->g->last_shmem = c->shmem;
    c->g->last_mask = c->block ? c->plan[0] : 0;
    if (pl_log_pending) {
        pl_log_launched(r == 0);
    }
    return r;
}

/* the output, or a tuple of them */
static PyObject *
gu_result(GuCall *c)
{
    GUFuncObject *g = c->g;
    if (g->lay.nout == 1) {
        return Py_NewRef(c->ops[g->lay.nin].obj);
    }
    PyObject *r = PyTuple_New(g->lay.nout);
    for (int j = 0; r && j < g->lay.nout; j++) {
        PyTuple_SET_ITEM(r, j, Py_NewRef(c->ops[g->lay.nin + j].obj));
    }
    return r;
}

/* out= and stream=; the inputs, optionally followed by the outputs */
static int
gu_keywords(GUFuncObject *g, PyObject *const *args, Py_ssize_t n, PyObject *kwnames,
            PyObject **out_arg, PyObject **stream_arg)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *kn = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (kn && strcmp(kn, "out") == 0) {
            *out_arg = args[n + k] == Py_None ? NULL : args[n + k];
        } else if (kn && strcmp(kn, "stream") == 0) {
            *stream_arg = args[n + k];
        } else {
            PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%s' "
                         "(it takes out= and stream=)", g->name, kn ? kn : "?");
            return -1;
        }
    }
    if (n != g->lay.nin && n != gu_nparams(g)) {
        PyErr_Format(PyExc_TypeError, "%U() takes %d input%s (and optionally its %d output%s), "
                     "got %zd arguments", g->name, g->lay.nin, g->lay.nin == 1 ? "" : "s",
                     g->lay.nout, g->lay.nout == 1 ? "" : "s", n);
        return -1;
    }
    return 0;
}

static int
gu_call_steps(GuCall *c, PyObject *const *args, Py_ssize_t n, PyObject *out_arg)
{
    if (gu_inputs(c, args) < 0 || gu_given_outputs(c, args, n, out_arg) < 0
        || gu_sizes_known(c) < 0 || gu_loop_shape(c) < 0) {
        return -1;
    }
    return gu_run(c);
}

static PyObject *
gufunc_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    GUFuncObject *g = (GUFuncObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    PyObject *out_arg = NULL, *stream_arg = NULL, *result = NULL;
    void *stream = NULL;
    if (gu_keywords(g, args, n, kwnames, &out_arg, &stream_arg) < 0
        || rt_get_stream(stream_arg ? stream_arg : Py_None, &stream) < 0) {
        return NULL;
    }
    GuCall *c = rt_scratch_get(&gu_static, &gu_static_busy, sizeof *c);
    if (!c) {
        return NULL;
    }
    memset(c, 0, offsetof(GuCall, ops));
    memset(c->size, 0xff, sizeof c->size);
    c->g = g;
    c->stream = stream;
    c->stream_obj = stream_arg;
    for (int d = 0; d < g->lay.ndims; d++) {
        c->size[d] = g->lay.fixed[d];
    }
    if (gu_call_steps(c, args, n, out_arg) == 0) {
        result = gu_result(c);
    }
    int bad = release(c->ops, g->lay.nin < c->nops ? g->lay.nin : c->nops, stream, 0) < 0;
    if (c->nops > g->lay.nin
        && release(c->ops + g->lay.nin, c->nops - g->lay.nin, stream, result != NULL) < 0) {
        bad = 1;
    }
    if (bad) {
        Py_CLEAR(result);
    }
    for (int j = 0; j < MAXOUT; j++) {
        Py_XDECREF(c->made[j]);
    }
    for (int j = 0; j < GU_MAXOP; j++) {
        Py_XDECREF(c->cast[j]);
    }
    if (!result) {
        rt_err_in(PyUnicode_AsUTF8(g->name), "%s()", PyUnicode_AsUTF8(g->name));
    }
    rt_scratch_put(c, &gu_static, &gu_static_busy);
    return result;
}

/* ---- eager signatures ---- */

/* "void(float32[:], float32[:], float32[:])": one type per operand, arrays
 * of its core rank; a "()" input may be a number or a [:] array, a "()"
 * output is a [:] array */
static int
sig_types(GUFuncObject *g, Type **types, int nt, Type *ret, GuSig *out)
{
    if (nt != gu_nparams(g) || !ret || ret->kind != TY_VOID) {
        return -1;
    }
    for (int k = 0; k < nt; k++) {
        int nc = g->lay.ncore[k];
        Type *t = types[k];
        if (t->kind == TY_SCALAR && nc == 0 && k < g->lay.nin) {
            out->scalar[k] = 1;
        } else if (t->kind != TY_ARRAY || t->ndim != (nc ? nc : 1)) {
            return -1;
        }
        out->dt[k] = t->dtype;
    }
    return 0;
}

/* one signature string into *out; -1 with TypeError (signature number s) */
static int
parse_sig(GUFuncObject *g, PyObject *item, GuSig *out, Py_ssize_t s)
{
    const char *text = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
    Arena a;
    cj_arena_init(&a);
    Type **types, *ret;
    char msg[512];
    int nt = text ? cj_parse_signature(&a, text, &types, &ret, msg, sizeof msg) : -1;
    int ok = nt >= 0 && sig_types(g, types, nt, ret, out) == 0;
    cj_arena_free(&a);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "guvectorize signature %zd: %s", s + 1,
                     nt < 0 && text ? msg : "expected a string 'void(type, ...)' with one "
                     "type per operand of the layout: an array of its core rank "
                     "(float32[:, :] for (m,n)), float32[:] for a () output, a number or "
                     "float32[:] for a () input");
        return -1;
    }
    return 0;
}

static int
parse_sigs(GUFuncObject *g, PyObject *list)
{
    Py_ssize_t ns = PySequence_Size(list);
    if (ns < 0) {
        return -1;
    }
    g->sigs = calloc((size_t)ns + 1, sizeof(GuSig));
    if (!g->sigs) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t s = 0; s < ns; s++) {
        PyObject *item = PySequence_GetItem(list, s);
        int r = item ? parse_sig(g, item, &g->sigs[s], s) : -1;
        Py_XDECREF(item);
        if (r < 0) {
            return -1;
        }
        g->nsigs++;
    }
    return 0;
}

/* ---- inspection without a GPU ---- */

/* the parameters a call with one loop dimension and array operands has
 * for signature `sig` */
static void
plan_for_sig(GuCall *c, const GuSig *sig)
{
    GUFuncObject *g = c->g;
    for (int k = 0; k < gu_nparams(g); k++) {
        int nc = g->lay.ncore[k];
        c->dt[k] = sig->dt[k];
        if (sig->scalar[k]) {
            c->mode[k] = GU_ELEM;
            c->fn_args[k] = rt_scalar_key(c->dt[k]);
            continue;
        }
        c->mode[k] = GU_VIEW;
        c->ncore[k] = nc ? nc : 1;
        c->fn_args[k] = rt_array_key(c->dt[k], c->ncore[k], 'A', 0);
    }
    c->nd = 1;
    c->idx32 = 1;
}

/* the form for signature `sig` (a string, or an index into the eager ones) */
static Form *
form_for_sig(GUFuncObject *g, PyObject *sig)
{
    GuSig one;
    memset(&one, 0, sizeof one);
    if (PyLong_Check(sig)) {
        Py_ssize_t i = PyLong_AsSsize_t(sig);
        if (i < 0 || i >= g->nsigs) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_IndexError, "%U has %d signatures", g->name, g->nsigs);
            }
            return NULL;
        }
        one = g->sigs[i];
    } else if (parse_sig(g, sig, &one, 0) < 0) {
        return NULL;
    }
    GuCall *c = calloc(1, sizeof *c);
    if (!c) {
        PyErr_NoMemory();
        return NULL;
    }
    c->g = g;
    plan_for_sig(c, &one);
    Form *f = gu_kernel(c);
    free(c);
    return f;
}

/* inspect_cuda(): every kernel compiled so far; inspect_cuda(sig): the one
 * for that signature */
static PyObject *
gufunc_inspect_cuda(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    GUFuncObject *g = (GUFuncObject *)self;
    if (n == 0) {
        return forms_sources(g->forms);
    }
    Form *f = form_for_sig(g, args[0]);
    return f ? PyUnicode_FromString(f->c.src) : NULL;
}

/* inspect_ptx(sig, arch="sm_90"): NVRTC's PTX, no GPU needed */
static PyObject *
gufunc_inspect_ptx(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"signature", "arch", NULL};
    PyObject *sig;
    const char *arch = "sm_90";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s:inspect_ptx", kwlist, &sig, &arch)) {
        return NULL;
    }
    Form *f = form_for_sig((GUFuncObject *)self, sig);
    return f ? pl_binary(&f->c, arch, 0) : NULL;
}

/* ---- the type ---- */

static const char *const stage_names[] = {"off", "auto", "always"};

/* CUJIT_GU_STAGE: 0 / off, always, else auto */
static int
stage_default(void)
{
    const char *v = getenv("CUJIT_GU_STAGE");
    if (v && (strcmp(v, "0") == 0 || strcmp(v, "off") == 0)) {
        return STAGE_OFF;
    }
    return v && strcmp(v, "always") == 0 ? STAGE_ALWAYS : STAGE_AUTO;
}

static PyObject *
gufunc_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "layout", "signatures", "numba", NULL};
    PyObject *func, *layout, *sigs = NULL;
    int numba = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OU|Op:GUFunc", kwlist, &func, &layout,
                                     &sigs, &numba)) {
        return NULL;
    }
    PyObject *pf = scalar_function(func);
    if (!pf) {
        return NULL;
    }
    GUFuncObject *g = (GUFuncObject *)type->tp_alloc(type, 0);
    if (!g) {
        return NULL;
    }
    g->pyfunc = Py_NewRef(pf);
    g->layout_text = Py_NewRef(layout);
    g->name = PyObject_GetAttrString(pf, "__name__");
    g->vectorcall = gufunc_call;
    g->stage = stage_default();
    g->last_block = -1;
    g->numba = numba;
    if (!g->name || parse_layout(PyUnicode_AsUTF8(layout), &g->lay) < 0
        || (sigs && sigs != Py_None && parse_sigs(g, sigs) < 0)) {
        Py_DECREF(g);
        return NULL;
    }
    if (param_count(pf) != gu_nparams(g)) {
        PyErr_Format(PyExc_TypeError, "%U takes %d arguments but its layout %U has %d operands "
                     "(inputs, then the outputs it writes)", g->name, param_count(pf),
                     layout, gu_nparams(g));
        Py_DECREF(g);
        return NULL;
    }
    return (PyObject *)g;
}

static void
gufunc_dealloc(PyObject *self)
{
    GUFuncObject *g = (GUFuncObject *)self;
    Py_XDECREF(g->pyfunc);
    Py_XDECREF(g->name);
    Py_XDECREF(g->layout_text);
    free(g->sigs);
    forms_free(&g->forms);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
get_pyfunc(PyObject *self, void *c)
{
    return Py_NewRef(((GUFuncObject *)self)->pyfunc);
}

static PyObject *
get_name(PyObject *self, void *c)
{
    return Py_NewRef(((GUFuncObject *)self)->name);
}

static PyObject *
get_signature(PyObject *self, void *c)
{
    return Py_NewRef(((GUFuncObject *)self)->layout_text);
}

/* a tuple of core dimension names per operand, as np.vectorize parses them */
static PyObject *
core_tuples(const Layout *l, int first, int n)
{
    PyObject *r = PyList_New(n);
    for (int k = 0; r && k < n; k++) {
        PyObject *t = PyTuple_New(l->ncore[first + k]);
        for (int j = 0; t && j < l->ncore[first + k]; j++) {
            PyObject *s = PyUnicode_FromString(l->names[l->dim[first + k][j]]);
            if (!s) {
                Py_CLEAR(t);
                break;
            }
            PyTuple_SET_ITEM(t, j, s);
        }
        if (!t) {
            Py_CLEAR(r);
            break;
        }
        PyList_SET_ITEM(r, k, t);
    }
    return r;
}

static PyObject *
get_core_dims(PyObject *self, void *c)
{
    const Layout *l = &((GUFuncObject *)self)->lay;
    PyObject *in = core_tuples(l, 0, l->nin);
    PyObject *out = in ? core_tuples(l, l->nin, l->nout) : NULL;
    PyObject *r = out ? PyTuple_Pack(2, in, out) : NULL;
    Py_XDECREF(in);
    Py_XDECREF(out);
    return r;
}

static PyObject *
get_stage(PyObject *self, void *c)
{
    return PyUnicode_FromString(stage_names[((GUFuncObject *)self)->stage]);
}

/* .stage = "auto" | "off" | "always" (or a bool: auto / off) */
static int
set_stage(PyObject *self, PyObject *v, void *c)
{
    GUFuncObject *g = (GUFuncObject *)self;
    if (v && PyBool_Check(v)) {
        g->stage = v == Py_True ? STAGE_AUTO : STAGE_OFF;
        return 0;
    }
    const char *s = v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    for (int m = 0; s && m < 3; m++) {
        if (strcmp(s, stage_names[m]) == 0) {
            g->stage = m;
            return 0;
        }
    }
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%U.stage must be 'auto', 'off' or 'always' (or a bool), "
                     "not %R", g->name, v ? v : Py_None);
    }
    return -1;
}

/* ("staged", T, shared bytes, (operands staged)) or ("plain", 128, 0, ()) */
static PyObject *
get_last_launch(PyObject *self, void *c)
{
    GUFuncObject *g = (GUFuncObject *)self;
    if (g->last_block < 0) {
        Py_RETURN_NONE;
    }
    int n = 0;
    for (int k = 0; k < gu_nparams(g); k++) {
        n += g->last_mask >> k & 1;
    }
    PyObject *staged = PyTuple_New(n);
    for (int k = 0, j = 0; staged && k < gu_nparams(g); k++) {
        PyObject *i = g->last_mask >> k & 1 ? PyLong_FromLong(k) : Py_None;
        if (!i) {
            Py_CLEAR(staged);
        } else if (i != Py_None) {
            PyTuple_SET_ITEM(staged, j++, i);
        }
    }
    if (!staged) {
        return NULL;
    }
    return Py_BuildValue("(siIN)", g->last_block ? "staged" : "plain",
                         g->last_block ? g->last_block : GU_BLOCK, g->last_shmem, staged);
}

static PyObject *
get_nin(PyObject *self, void *c)
{
    return PyLong_FromLong(((GUFuncObject *)self)->lay.nin);
}

static PyObject *
get_nout(PyObject *self, void *c)
{
    return PyLong_FromLong(((GUFuncObject *)self)->lay.nout);
}

static PyGetSetDef gufunc_getset[] = {
    {"py_func", get_pyfunc, NULL, "the Python function", NULL},
    {"__name__", get_name, NULL, NULL, NULL},
    {"signature", get_signature, NULL, "the layout, as NumPy's ufunc.signature", NULL},
    {"core_dims", get_core_dims, NULL, "([input core dims], [output core dims]): tuples of "
     "names", NULL},
    {"nin", get_nin, NULL, "inputs", NULL},
    {"nout", get_nout, NULL, "outputs", NULL},
    {"stage", get_stage, set_stage, "'auto': a launch whose inputs' core blocks are "
     "contiguous stages them in shared memory (blocks of up to 128 instances); 'off': one "
     "thread per instance reading its operands where they are; 'always': auto, with blocks "
     "up to the device's shared memory", NULL},
    {"last_launch", get_last_launch, NULL, "the last launch: (entry 'staged' or 'plain', "
     "threads per block, dynamic shared bytes, indices of the operands staged: inputs, "
     "then outputs); None before any", NULL},
    {NULL},
};

static PyMethodDef gufunc_methods[] = {
    {"inspect_cuda", (PyCFunction)(void (*)(void))gufunc_inspect_cuda, METH_FASTCALL,
     "inspect_cuda(): the CUDA C++ of every kernel compiled so far; inspect_cuda(sig): the "
     "kernel for a signature ('void(float32[:], ...)' or an index) and one loop dimension"},
    {"inspect_ptx", (PyCFunction)(void (*)(void))gufunc_inspect_ptx,
     METH_VARARGS | METH_KEYWORDS, "inspect_ptx(sig, arch='sm_90'): PTX from NVRTC"},
    {NULL},
};

PyTypeObject GUFuncType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.GUFunc",
    .tp_basicsize = sizeof(GUFuncObject),
    .tp_dealloc = gufunc_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(GUFuncObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_methods = gufunc_methods,
    .tp_getset = gufunc_getset,
    .tp_new = gufunc_new,
    .tp_doc = "A generalized ufunc (@guvectorize): a function over core dimensions that "
              "writes its outputs, looped and broadcast over the others.",
};
