/* calls.c - typing rules of calls: jit builtins, Python builtins, math,
 * dtype casts and device functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ti.h"

static const char *
bname(Node *n)
{
    return cj_builtin_names[n->op];
}

/* arity check, and no keywords unless the builtin takes them */
static void
arity(Ti *t, Node *n, int lo, int hi)
{
    if (n->n < lo || n->n > hi) {
        if (lo == hi) {
            ti_err(t, n, "%s() expects %d argument%s, got %d", bname(n), lo, lo == 1 ? "" : "s",
                   n->n);
        }
        ti_err(t, n, "%s() expects %d to %d arguments, got %d", bname(n), lo, hi, n->n);
    }
}

static void
no_keywords(Ti *t, Node *n)
{
    if (n->n2) {
        ti_err(t, n->list2[0], "%s() takes no keyword argument '%s'", bname(n), n->kwnames[0]);
    }
}

/* Moves keyword arguments into positional slots: names[i] is the i-th
 * parameter's name.  Returns the number of arguments. */
static int
bind_keywords(Ti *t, Node *n, const char *const *pnames, int np)
{
    if (!n->n2) {
        return n->n;
    }
    Node **all = cj_alloc(t->p->arena, sizeof(Node *) * (size_t)(np + 1));
    for (int i = 0; i < n->n && i < np; i++) {
        all[i] = n->list[i];
    }
    int count = n->n;
    for (int k = 0; k < n->n2; k++) {
        int slot = -1;
        for (int i = 0; i < np; i++) {
            if (strcmp(pnames[i], n->kwnames[k]) == 0) {
                slot = i;
            }
        }
        if (slot < 0) {
            ti_err(t, n->list2[k], "%s() has no keyword argument '%s'", bname(n),
                   n->kwnames[k]);
        }
        if (all[slot]) {
            ti_err(t, n->list2[k], "%s() got argument '%s' twice", bname(n), n->kwnames[k]);
        }
        all[slot] = n->list2[k];
        if (slot + 1 > count) {
            count = slot + 1;
        }
    }
    for (int i = 0; i < count; i++) {
        if (!all[i]) {
            ti_err(t, n, "%s() is missing argument '%s'", bname(n), pnames[i]);
        }
    }
    n->list = all;
    n->n = count;
    n->list2 = NULL;
    n->n2 = 0;
    return count;
}

static Type *
arg(Ti *t, Node *n, int i)
{
    return ti_expr_pub(t, n->list[i]);
}

/* a constant integer, or a local assigned one once (N = 100, fe_add_var) */
static int
const_int(Node *c, int64_t *v)
{
    if (c->kind == ND_VAR && c->var->has_konst) {
        *v = c->var->konst;
        return 1;
    }
    return cj_fold_int(c, v);
}

static int
is_num(Type *x)
{
    return x && cj_is_numeric(x);
}

static void
need(Ti *t, Node *a, Type *x, int ok, const char *what, Node *call)
{
    if (x && !ok) {
        ti_err(t, a, "%s() needs %s, got %s", cj_builtin_names[call->op], what, ti_tstr(t, x));
    }
}

static char
kind(Type *x)
{
    return cj_type_kind(x);
}

static int
is_intish(Type *x)
{
    return is_num(x) && (kind(x) == 'i' || kind(x) == 'u');
}

int
ti_bind_keywords(Ti *t, Node *n, const char *const *pnames, int np)
{
    return bind_keywords(t, n, pnames, np);
}

/* jit.grid(n) / jit.gridsize(n): n a constant 1..3 */
static Type *
grid_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    arity(t, n, 1, 1);
    int64_t d;
    if (!const_int(n->list[0], &d)) {
        ti_err(t, n, "%s() takes the number of dimensions, a constant 1, 2 or 3, not a "
               "variable (Numba: RequireLiteralValue)", bname(n));
    }
    if (d < 1 || d > 3) {
        ti_err_kind(t, n, CE_VALUE, "%s() takes the number of dimensions, a constant 1, 2 or 3", bname(n));
    }
    n->axis = (int)d;
    arg(t, n, 0);
    if (d == 1) {
        return ti_idx(t);
    }
    Type *el[3] = {ti_idx(t), ti_idx(t), ti_idx(t)};
    return cj_tuple_type(t->p->arena, el, (int)d);
}

/* a dtype: a constant (numpy.float32, 'f4', a record dtype) or arr.dtype of
 * an array (Numba's cuda.local.array(n, dtype=arr.dtype)) */
static DType
dtype_arg(Ti *t, Node *n, Node *a)
{
    DType dt;
    if (a->kind == ND_CONST && a->cval.kind == CK_DTYPE) {
        return a->cval.dt;
    }
    if (a->kind == ND_ATTR && a->op == AT_FIELD && strcmp(a->str, "dtype") == 0) {
        Type *x = ti_expr_pub(t, a->a);
        if (x && x->kind == TY_ARRAY) {
            return x->dtype;
        }
    }
    if (a->kind == ND_CONST && a->cval.kind == CK_STR && cj_dtype_from_name(a->cval.s, &dt)) {
        return dt;
    }
    if (a->kind == ND_CONST && a->cval.kind == CK_STR) {
        ti_err(t, a, "Invalid NumPy dtype specified: '%s': %s() needs a dtype such as "
               "numpy.float32, 'float32' (or arr.dtype of an array)", a->cval.s, bname(n));
    }
    ti_err(t, a, "%s() needs a dtype such as numpy.float32 (or arr.dtype of an array) as "
           "its dtype argument", bname(n));
}

/* A type in Numba's words, for the messages Numba's tests match: a literal
 * integer is Literal[int](v), an array array(float32, 1d, A) */
static const char *
numba_tstr(Ti *t, Node *a, Type *ty)
{
    Arena *ar = t->p->arena;
    if (a && a->kind == ND_CONST && a->cval.kind == CK_INT) {
        return cj_aprintf(ar, "Literal[int](%lld)", (long long)a->cval.i);
    }
    if (a && a->kind == ND_TUPLE) {         /* element by element: a tuple of an */
        const char *out = "Tuple(";         /* array is no type of cujit's */
        for (int i = 0; i < a->n; i++) {
            out = cj_aprintf(ar, "%s%s%s", out, i ? ", " : "",
                             numba_tstr(t, a->list[i], ti_expr_pub(t, a->list[i])));
        }
        return cj_aprintf(ar, "%s)", out);
    }
    if (!ty) {
        return "undefined";
    }
    if (ty->kind == TY_SCALAR) {
        return cj_dtypes[ty->dtype].name;
    }
    if (ty->kind == TY_ARRAY) {
        return cj_aprintf(ar, "array(%s, %dd, %c)", cj_dtypes[ty->dtype].name, ty->ndim,
                          ty->layout ? ty->layout : 'A');
    }
    if (ty->kind == TY_TUPLE) {
        const char *out = "Tuple(";
        for (int i = 0; i < ty->ntup; i++) {
            out = cj_aprintf(ar, "%s%s%s", out, i ? ", " : "", numba_tstr(t, NULL, ty->tup[i]));
        }
        return cj_aprintf(ar, "%s)", out);
    }
    return ti_tstr(t, ty);
}

/* a shape that is not constants: cujit's words, then Numba's (its tests
 * match "No implementation of function Function(<function shared.array"
 * and the signature line) */
static void
bad_shape(Ti *t, Node *n, Node *at, DType dt, int shared)
{
    Node *s = n->list[1];
    ti_err(t, at, "%s() shape must be positive integer constants known at compile time%s. "
           "No implementation of function Function(<function %s.array>) found for "
           "signature:\n \n >>> array(shape=%s, dtype=class(%s))", bname(n),
           shared ? " (or None for dynamic shared memory sized at launch)" : "",
           shared ? "shared" : "local",
           numba_tstr(t, s, s->kind == ND_TUPLE ? NULL : ti_expr_pub(t, s)),
           cj_dtypes[dt].name);
}

/* jit.shared_memory / local_memory(dtype, shape, alignment) (cupyx.jit's
 * shared memory, Numba's cuda.shared.array and cuda.local.array): None or a
 * power of two from 1 to 256 bytes known at compile time; 0 when not given.
 * The messages hold Numba's words, which its tests match. */
static int
alloc_alignment(Ti *t, Node *n)
{
    int64_t v;
    Node *a = n->n < 3 ? NULL : n->list[2];
    if (!a || (a->kind == ND_CONST && a->cval.kind == CK_NONE)) {
        return 0;
    }
    if (!const_int(a, &v)) {
        Type *at = arg(t, n, 2);
        ti_err(t, a, "%s(): RequireLiteralValue: alignment must be a constant integer (a "
               "power of two from 1 to 256 known at compile time), got %s%s", bname(n),
               at ? ti_tstr(t, at) : "a value", a->kind == ND_CONST ? "" : " known only when "
               "the kernel runs");
    }
    if (v < 1 || v > 256 || (v & (v - 1))) {
        ti_err_kind(t, a, CE_VALUE, "%s(): Alignment must be a power of two from 1 to 256, "
                    "got %lld", bname(n), (long long)v);
    }
    return (int)v;
}

/* jit.shared_memory(dtype, shape, alignment=None) / jit.local_memory(dtype, shape) */
static Type *
alloc_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"dtype", "shape", "alignment"};
    for (int k = 0; k < n->n2; k++) {
        if (strcmp(n->kwnames[k], "size") == 0) {
            n->kwnames[k] = "shape";        /* cupyx.jit's jit.shared_memory(dtype, size) */
        }
    }
    int shared = n->op == BI_SHARED_MEMORY;
    bind_keywords(t, n, pn, 3);
    arity(t, n, 2, 3);
    int align = alloc_alignment(t, n);
    DType dt = dtype_arg(t, n, n->list[0]);
    Node *s = n->list[1];
    Type *ty = cj_array_type(t->p->arena, dt, 1, 'C');
    if (s->kind == ND_CONST && s->cval.kind == CK_NONE) {
        if (!shared) {
            ti_err(t, s, "jit.local_memory() needs a constant shape");
        }
        ty->mem = MEM_DYNSHARED;
        t->p->features |= FEAT_DYNSHARED;
        return ty;
    }
    Node **dims = s->kind == ND_TUPLE ? s->list : &n->list[1];
    int nd = s->kind == ND_TUPLE ? s->n : 1;
    if (nd < 1 || nd > 8) {
        ti_err(t, s, "%s() shape must have 1 to 8 dimensions", bname(n));
    }
    ty->ndim = nd;
    ty->sshape = cj_alloc(t->p->arena, sizeof(int64_t) * (size_t)nd);
    /* bytes, checked against the limit before each product (no overflow) */
    int64_t limit = shared ? 228 * 1024 : 512 * 1024, bytes = cj_dtypes[dt].size;
    for (int i = 0; i < nd; i++) {
        if (!const_int(dims[i], &ty->sshape[i]) || ty->sshape[i] <= 0) {
            bad_shape(t, n, dims[i], dt, shared);
        }
        if (ty->sshape[i] > limit / bytes) {
            ti_err_kind(t, n, CE_VALUE, "%s() of more than %lld bytes is more than a "
                        "block can have", bname(n), (long long)limit);
        }
        bytes *= ty->sshape[i];
    }
    ty->mem = shared ? MEM_SHARED : MEM_LOCAL;
    ty->align = align;
    return ty;
}

/* two tables of the same dtype, shape and bytes */
static int
same_table(const CjTable *a, const CjTable *b)
{
    return a->dt == b->dt && a->ndim == b->ndim && a->nbytes == b->nbytes
           && memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0
           && memcmp(a->data, b->data, (size_t)a->nbytes) == 0;
}

/* cuda.const.array_like(global_array): a read-only C-order array in
 * __constant__ memory (64 KiB for every table of the kernel) */
static Type *
const_array_type(Ti *t, Node *n)
{
    CjTable *tb = n->table;
    Program *p = t->p;
    int64_t total = 0;
    int known = 0;
    for (int i = 0; i < p->ntables; i++) {
        if (p->tables[i] != tb && same_table(p->tables[i], tb)) {
            tb = n->table = p->tables[i];       /* a global array read again */
        }
        known |= p->tables[i] == tb;
        total += p->tables[i]->nbytes;
    }
    if (!known) {
        if (total + tb->nbytes > 65536) {
            ti_err_kind(t, n, CE_VALUE, "the kernel's constant arrays (cuda.const."
                        "array_like and NumPy arrays read as globals) would take %lld bytes, more than the 64 KiB of constant "
                        "memory; pass the array as an argument instead",
                        (long long)(total + tb->nbytes));
        }
        tb->id = p->ntables;
        p->tables = (CjTable **)cj_vec_push(p->arena, (void **)p->tables, &p->ntables,
                                            &p->tabcap, tb);
    }
    Type *ty = cj_array_type(p->arena, tb->dt, tb->ndim, 'C');
    ty->readonly = 1;
    ty->mem = MEM_CONST;
    ty->sshape = tb->shape;
    ty->table = tb;
    if (cj_is_half(tb->dt)) {
        p->features |= cj_half_feature(tb->dt);
    } else if (cj_dtypes[tb->dt].kind == 'c') {
        p->features |= FEAT_COMPLEX;
    }
    return ty;
}

#define DM(d) (1u << (d))
#define DM_INT (DM(DT_I16) | DM(DT_U16) | DM(DT_I32) | DM(DT_U32) | DM(DT_I64) | DM(DT_U64))

/* The dtypes an atomic takes: those CUDA has the operation for, natively or
 * through a compare-and-swap of the element's width (16 bits from sm_70 on;
 * there is none of 8 bits, so no int8, uint8 or bool). */
static unsigned
atomic_dtypes(int op)
{
    switch (op) {
    case BI_ATOMIC_ADD:
    case BI_ATOMIC_SUB:
    case BI_ATOMIC_MAX:
    case BI_ATOMIC_MIN:
    case BI_ATOMIC_EXCH:
    case BI_ATOMIC_CAS:
        return DM_INT | DM(DT_F16) | DM(DT_BF16) | DM(DT_F32) | DM(DT_F64);
    case BI_ATOMIC_AND:
    case BI_ATOMIC_OR:
    case BI_ATOMIC_XOR:
        return DM_INT;
    case BI_ATOMIC_INC:
    case BI_ATOMIC_DEC:
        return DM(DT_U32) | DM(DT_U64);
    case BI_ATOMIC_NANMAX:
    case BI_ATOMIC_NANMIN:
        return DM_INT | DM(DT_F32) | DM(DT_F64);
    default:
        return 0;
    }
}

/* "int16, uint16, ..." for a mask of dtypes */
static const char *
dtype_list(Ti *t, unsigned mask)
{
    Buf b;
    buf_init(&b);
    for (int d = 0; d < DT_COUNT; d++) {
        if (mask & DM(d)) {
            buf_printf(&b, "%s%s", b.len ? ", " : "", cj_dtypes[d].name);
        }
    }
    const char *s = cj_strdup(t->p->arena, b.s ? b.s : "");
    buf_free(&b);
    return s;
}

/* jit.atomic_op(array, index, value); atomic_cas(array, index, compare, value) */
/* an index of an atomic: an integer, or in a cuda.jit kernel also a real
 * number written as the index (Numba casts it to an integer, as
 * cuda.atomic.add(h, (math.floor(x), j), 1) needs: floor gives a float) */
static int
atomic_index_ok(Ti *t, int written, Type *x)
{
    return is_intish(x) || (t->p->numba && written && is_num(x) && kind(x) == 'f');
}

static Type *
atomic_type(Ti *t, Node *n)
{
    int cas = n->op == BI_ATOMIC_CAS;
    static const char *const pn[] = {"array", "index", "val"};
    static const char *const pc[] = {"array", "index", "compare", "val"};
    bind_keywords(t, n, cas ? pc : pn, cas ? 4 : 3);
    arity(t, n, cas ? 4 : 3, cas ? 4 : 3);
    Type *a = arg(t, n, 0);
    Type *ix = arg(t, n, 1);
    Type *v = arg(t, n, 2);
    Type *c = cas ? arg(t, n, 3) : NULL;
    if (!a) {
        return NULL;
    }
    if (a->kind != TY_ARRAY) {
        ti_err(t, n->list[0], "%s() needs an array as its first argument, got %s", bname(n),
               ti_tstr(t, a));
    }
    if (!(atomic_dtypes(n->op) & DM(a->dtype))) {
        ti_err(t, n, "%s() is not supported on %s arrays: CUDA has it for %s", bname(n),
               cj_dtypes[a->dtype].name, dtype_list(t, atomic_dtypes(n->op)));
    }
    int nidx = ix && ix->kind == TY_TUPLE ? ix->ntup : 1;
    if (ix && nidx != a->ndim) {
        ti_err(t, n->list[1], "%s() index has %d component%s but the array has %d "
               "dimension%s", bname(n), nidx, nidx == 1 ? "" : "s", a->ndim,
               a->ndim == 1 ? "" : "s");
    }
    if (ix && ix->kind == TY_TUPLE) {
        for (int i = 0; i < ix->ntup; i++) {
            if (!atomic_index_ok(t, n->list[1]->kind == ND_TUPLE, ix->tup[i])) {
                ti_err(t, n->list[1], "%s() index must be integers", bname(n));
            }
        }
    } else {
        need(t, n->list[1], ix, atomic_index_ok(t, 1, ix), "an integer index", n);
    }
    need(t, n->list[2], v, is_num(v) && kind(v) != 'c', "a real number value", n);
    need(t, cas ? n->list[3] : n->list[2], c, is_num(c) && kind(c) != 'c', "a number", n);
    t->p->features |= FEAT_ATOMIC | (cj_dtypes[a->dtype].size == 2 ? FEAT_ATOMIC16 : 0);
    int op = n->op;
    if ((op == BI_ATOMIC_NANMAX || op == BI_ATOMIC_NANMIN) && cj_dtypes[a->dtype].kind != 'f') {
        op = op == BI_ATOMIC_NANMAX ? BI_ATOMIC_MAX : BI_ATOMIC_MIN;   /* codegen does too */
    }
    t->p->atomic_ops |= 1u << (op - BI_ATOMIC_ADD);
    return cj_scalar(a->dtype);
}

/* shfl_*_sync(mask, value, lane_or_delta, width=32) */
static Type *
shfl_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"mask", "value", "src_lane", "width"};
    static const char *const pd[] = {"mask", "value", "delta", "width"};
    bind_keywords(t, n, n->op == BI_SHFL_SYNC ? pn : n->op == BI_SHFL_XOR_SYNC
                  ? (const char *const[]){"mask", "value", "lane_mask", "width"} : pd, 4);
    arity(t, n, 3, 4);
    Type *m = arg(t, n, 0), *v = arg(t, n, 1), *l = arg(t, n, 2);
    need(t, n->list[0], m, is_intish(m), "an integer mask", n);
    need(t, n->list[1], v, is_num(v), "a number to shuffle", n);
    need(t, n->list[2], l, is_intish(l), "an integer lane or delta", n);
    if (n->n == 4) {
        Type *w = arg(t, n, 3);
        need(t, n->list[3], w, is_intish(w), "an integer width", n);
    }
    t->p->features |= FEAT_WARP;
    return v ? cj_concrete(v) : NULL;
}

static Type *
vote_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"mask", "predicate"};
    bind_keywords(t, n, pn, 2);
    arity(t, n, 2, 2);
    Type *m = arg(t, n, 0), *p = arg(t, n, 1);
    if (m && !is_intish(m)) {       /* Numba's words, which its tests match */
        ti_err(t, n->list[0], "%s(): Mask type must be an integer (a uint32 such as "
               "0xFFFFFFFF), got %s", bname(n), ti_tstr(t, m));
    }
    if (p && !(is_intish(p) || kind(p) == 'b')) {
        ti_err(t, n->list[1], "%s(): Predicate must be an integer or boolean, got %s "
               "(compare it: x != 0)", bname(n), ti_tstr(t, p));
    }
    t->p->features |= FEAT_WARP;
    return cj_scalar(n->op == BI_BALLOT_SYNC ? DT_U32 : DT_BOOL);
}

/* syncthreads_count / _and / _or(predicate): an int32 over the block */
static Type *
sync_vote_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"predicate"};
    bind_keywords(t, n, pn, 1);
    arity(t, n, 1, 1);
    Type *p = arg(t, n, 0);
    need(t, n->list[0], p, is_num(p), "a condition", n);
    return cj_scalar(DT_I32);
}

/* Numba's cuda.ld<hint>(array, index) and cuda.st<hint>(array, index,
 * value): an element of an argument array (global memory) of integers or
 * floats, loaded or stored with a cache hint; the index an integer for a
 * 1-d array, else a tuple of ndim integers.  A raw pointer (a "dtype*"
 * parameter) is taken as a 1-d array.  Numba's words in the errors. */
static void
hint_access(Ti *t, Node *n, const char *name)
{
    Type *a = arg(t, n, 0), *ix = arg(t, n, 1);
    if (!a) {
        return;
    }
    int ptr = a->kind == TY_ITER && a->layout == 'P';
    char k = a->kind == TY_ARRAY || ptr ? cj_dtypes[a->dtype].kind : 0;
    if ((a->kind != TY_ARRAY && !ptr) || a->dtype >= DT_COUNT
        || (k != 'i' && k != 'u' && k != 'f')) {
        ti_err(t, n->list[0], "%s requires array of integer or float type, got %s", name,
               ti_tstr(t, a));
    }
    int ndim = ptr ? 1 : a->ndim;
    if (!ptr && a->mem != MEM_GLOBAL) {
        ti_err(t, n->list[0], "%s() needs an array in global memory (a kernel's argument), "
               "not a local, shared or constant array", name);
    }
    if (ix && ix->kind == TY_TUPLE) {
        if (ix->ntup != ndim) {
            ti_err(t, n->list[1], "%s(): Expected %d indices, got %d", name, ndim, ix->ntup);
        }
        for (int i = 0; i < ix->ntup; i++) {
            if (!is_intish(ix->tup[i])) {
                ti_err(t, n->list[1], "%s(): %s is not a valid index", name,
                       ti_tstr(t, cj_concrete(ix->tup[i])));
            }
        }
    } else if (ix && !is_intish(ix)) {
        ti_err(t, n->list[1], "%s(): %s is not a valid index", name, ti_tstr(t, cj_concrete(ix)));
    } else if (ix && ndim != 1) {
        ti_err(t, n->list[1], "%s(): Expected %d indices, got a scalar", name, ndim);
    }
    t->p->features |= FEAT_CACHE_HINT | cj_half_feature(a->dtype);
}

static Type *
cache_ld_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"array", "i"};
    char name[16];
    snprintf(name, sizeof name, "cuda.ld%s", cj_ld_hints[n->axis]);
    bind_keywords(t, n, pn, 2);
    arity(t, n, 2, 2);
    hint_access(t, n, name);
    Type *a = arg(t, n, 0);
    return cj_scalar(a->dtype);
}

static Type *
cache_st_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"array", "i", "value"};
    char name[16];
    snprintf(name, sizeof name, "cuda.st%s", cj_st_hints[n->axis]);
    bind_keywords(t, n, pn, 3);
    arity(t, n, 3, 3);
    hint_access(t, n, name);
    Type *a = arg(t, n, 0), *v = arg(t, n, 2);
    if (a->readonly) {
        ti_err(t, n->list[0], "%s(): the array is read-only", name);
    }
    if (v && (!is_num(v) || kind(v) == 'c')) {
        ti_err(t, n->list[2], "%s() needs a real number to store, got %s", name, ti_tstr(t, v));
    }
    ti_weak_to(t, n->list[2], cj_scalar(a->dtype));
    return cj_void();
}

/* cuda.nanosleep(ns): the thread sleeps about ns nanoseconds (an unsigned
 * 32-bit count; sm_70 and later) */
static Type *
nanosleep_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"ns"};
    bind_keywords(t, n, pn, 1);
    arity(t, n, 1, 1);
    Type *x = arg(t, n, 0);
    need(t, n->list[0], x, is_intish(x), "an integer number of nanoseconds", n);
    ti_weak_to(t, n->list[0], cj_scalar(DT_U32));
    return cj_void();
}

/* selp(predicate, a, b): a where predicate holds, else b, in their common type */
static Type *
selp_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    arity(t, n, 3, 3);
    Type *p = arg(t, n, 0), *a = arg(t, n, 1), *b = arg(t, n, 2);
    need(t, n->list[0], p, is_num(p), "a condition", n);
    need(t, n->list[1], a, is_num(a), "numbers to select from", n);
    need(t, n->list[2], b, is_num(b), "numbers to select from", n);
    if (!a || !b) {
        return NULL;
    }
    Type *r = cj_promote(a, b);
    ti_weak_to(t, n->list[1], r);
    ti_weak_to(t, n->list[2], r);
    t->p->features |= FEAT_MATH_EXTRA;     /* cj_selp */
    return r;
}

static Type *
bits_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    arity(t, n, 1, 1);
    Type *x = arg(t, n, 0);
    need(t, n->list[0], x, is_intish(x), "an integer", n);
    if (!x) {
        return NULL;
    }
    if (n->op == BI_BREV) {
        x = cj_concrete(x);
        int sz = cj_dtypes[x->dtype].size;
        return cj_scalar(sz == 8 ? DT_U64 : DT_U32);
    }
    return cj_scalar(DT_I32);
}

/* a number or a tuple of printable values; *nvals counts printf's values */
static int
printable(const Type *x, int *nvals)
{
    if (x->kind == TY_TUPLE) {
        for (int k = 0; k < x->ntup; k++) {
            if (!printable(x->tup[k], nvals)) {
                return 0;
            }
        }
        return 1;
    }
    *nvals += cj_type_kind(x) == 'c' ? 2 : 1;
    return cj_is_numeric(x);
}

static Type *
print_type(Ti *t, Node *n)
{
    for (int k = 0; k < n->n2; k++) {
        if (strcmp(n->kwnames[k], "sep") && strcmp(n->kwnames[k], "end")) {
            ti_err(t, n->list2[k], "print() in a kernel takes only sep= and end= keywords");
        }
        if (n->list2[k]->kind != ND_CONST || n->list2[k]->cval.kind != CK_STR) {
            ti_err(t, n->list2[k], "print() %s= must be a string literal", n->kwnames[k]);
        }
        ti_expr_pub(t, n->list2[k]);
    }
    int nvals = 0;
    for (int i = 0; i < n->n; i++) {
        Type *x = arg(t, n, i);
        if (x && x->kind != TY_STRING && !printable(x, &nvals)) {
            ti_err(t, n->list[i], "print() in a kernel prints strings, numbers and tuples of "
                   "numbers, not %s", ti_tstr(t, x));
        }
    }
    t->p->features |= FEAT_PRINT;
    return cj_void();
}

/* complex(x [, y]) in a cuda.jit kernel is complex64 where its arguments are
 * float32 (or complex(z) of a complex64 z), as Numba types it */
static int
numba_complex64(Ti *t, Node *n, Type *x)
{
    return t->p->numba && x && !cj_is_weak(x) && x->kind == TY_SCALAR
           && (x->dtype == DT_F32 || (n->n == 1 && x->dtype == DT_C64));
}

/* int(), float(), bool(), complex(), numpy dtype casts */
static Type *
cast_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    if (n->op == BI_COMPLEX) {
        arity(t, n, 1, 2);
        int c64 = 1;
        for (int i = 0; i < n->n; i++) {
            Type *x = arg(t, n, i);
            need(t, n->list[i], x, is_num(x), "numbers", n);
            if (n->n == 2 && kind(x) == 'c') {
                ti_err(t, n->list[i], "complex(real, imag) takes real numbers, got %s as its "
                       "%s part; for complex parts write real + imag * 1j", ti_tstr(t, x),
                       i ? "imaginary" : "real");
            }
            c64 = c64 && numba_complex64(t, n, x);
        }
        t->p->features |= FEAT_COMPLEX;
        return c64 ? cj_scalar(DT_C64) : cj_weak(TY_WEAK_COMPLEX);
    }
    arity(t, n, n->op == BI_CAST ? 0 : 1, 1);
    if (n->n == 0) {
        ti_err(t, n, "a dtype cast needs one argument");
    }
    Node *a0 = n->list[0];
    if (a0->kind == ND_CONST && a0->cval.kind == CK_STR
        && (n->op == BI_FLOAT || (n->op == BI_CAST && cj_dtypes[n->cval.dt].kind == 'f'))) {
        /* float("inf"), float("nan"), np.float32("1.5"): a constant */
        char *end;
        double v = strtod(a0->cval.s, &end);
        while (*end == ' ') {
            end++;
        }
        if (end == a0->cval.s || *end) {
            ti_err_kind(t, a0, CE_VALUE, "could not convert string to float: '%s'", a0->cval.s);
        }
        DType dt = n->op == BI_FLOAT ? DT_F64 : n->cval.dt;
        int weak = n->op == BI_FLOAT;
        memset(&n->cval, 0, sizeof n->cval);
        n->kind = ND_CONST;
        n->cval.kind = CK_FLOAT;
        n->cval.f = v;
        n->cval.weak = weak;
        n->cval.dt = dt;
        n->n = 0;
        return weak ? cj_weak(TY_WEAK_FLOAT) : cj_scalar(dt);
    }
    Type *x = arg(t, n, 0);
    if (n->op == BI_CAST && x && x->kind == TY_ARRAY && x->dtype == n->cval.dt) {
        x = ti_zero_d(t, n->list[0], x, 0);     /* np.int64(z) of a 0-d int64 array */
    }
    need(t, n->list[0], x, is_num(x), "a number", n);
    if (x && kind(x) == 'c' && n->op != BI_BOOL
        && !(n->op == BI_CAST && cj_dtypes[n->cval.dt].kind == 'c')) {
        ti_err(t, n, "cannot convert a complex number with %s(); take .real or abs() first",
               n->op == BI_CAST ? cj_dtypes[n->cval.dt].name : bname(n));
    }
    switch (n->op) {
    case BI_INT:
        if (t->p->numba && x && x->kind == TY_SCALAR && (kind(x) == 'i' || kind(x) == 'u')) {
            return x;       /* Numba: int() of an integer keeps its type */
        }
        return cj_weak(TY_WEAK_INT);
    case BI_FLOAT:
        if (t->p->numba && x && (x->dtype == DT_F16 || x->dtype == DT_F32) && !cj_is_weak(x)) {
            return x;       /* Numba's float() keeps float16 and float32 */
        }
        return cj_weak(TY_WEAK_FLOAT);
    case BI_BOOL:
        return cj_scalar(DT_BOOL);
    default:
        ti_weak_to(t, n->list[0], cj_scalar(n->cval.dt));     /* np.uint8(300) raises */
        return cj_scalar(n->cval.dt);
    }
}

/* isinstance(x, T) and isinstance(x, (T1, T2)) with number types T (float32,
 * bfloat16, np.int64): a bool constant of x's type, as Numba's (codegen) */
static Type *
isinstance_type(Ti *t, Node *n)
{
    arity(t, n, 2, 2);
    Type *x = arg(t, n, 0), *c = arg(t, n, 1);
    if (!x || !c) {
        return NULL;
    }
    int ok = c->kind == TY_DTYPE;
    for (int i = 0; c->kind == TY_TUPLE && i < c->ntup; i++) {
        ok = c->tup[i]->kind == TY_DTYPE;
        if (!ok) {
            break;
        }
    }
    if (!ok) {
        ti_err(t, n->list[1], "isinstance() in a kernel takes a number type or a tuple of "
               "them as its second argument (float32, bfloat16, np.int64), got %s",
               ti_tstr(t, c));
    }
    return cj_scalar(DT_BOOL);
}

/* the float type math gives for x: NumPy's loop for np.sqrt, except that
 * int8 / uint8 / bool compute in float32 outside fused functions */
static Type *
float_of(Ti *t, Type *x)
{
    if (cj_is_weak(x)) {
        return cj_weak(TY_WEAK_FLOAT);
    }
    DType f = cj_float_for(x->dtype);
    return cj_scalar(f == DT_F16 && x->dtype != DT_F16 && !t->fn->numpy_math ? DT_F32 : f);
}

/* math.f(x) in a cuda.jit kernel, as numba-cuda types it (its cudamath
 * templates): an integer or bool computes in float64, float32 and float64
 * stay, float16 stays only in the functions numba-cuda computes in half
 * precision (sin, cos, tanh, sqrt, exp, log, log2, log10, fabs, floor, ceil,
 * trunc) and is float32 in the others; floor, ceil and trunc give a float */
static Type *
numba_math_float(Ti *t, Node *n, Type *x)
{
    if (cj_is_weak(x)) {
        return cj_weak(TY_WEAK_FLOAT);
    }
    if (kind(x) != 'f') {
        return cj_scalar(DT_F64);
    }
    if (x->dtype != DT_F16) {
        return float_of(t, x);
    }
    switch (n->op) {
    case BI_SIN: case BI_COS: case BI_TANH: case BI_SQRT: case BI_EXP: case BI_LOG:
    case BI_LOG2: case BI_LOG10: case BI_FABS: case BI_FLOOR: case BI_CEIL: case BI_TRUNC:
        return x;
    default:
        return cj_scalar(DT_F32);
    }
}

static Type *
math_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    int binary = n->op == BI_POW || n->op == BI_ATAN2 || n->op == BI_HYPOT
                 || n->op == BI_FMOD || n->op == BI_COPYSIGN;
    int lo = binary ? 2 : 1, hi = binary ? 2 : (n->op == BI_LOG ? 2 : 1);
    if (n->op == BI_FMA) {
        lo = hi = 3;
    }
    arity(t, n, lo, hi);
    Type *r = NULL;
    for (int i = 0; i < n->n; i++) {
        Type *x = arg(t, n, i);
        if (!x) {
            return NULL;
        }
        if (!is_num(x) || kind(x) == 'c') {
            ti_err(t, n->list[i], "%s() needs a real number, got %s", bname(n), ti_tstr(t, x));
        }
        r = r ? cj_promote(r, x) : x;
    }
    t->p->features |= FEAT_MATH;
    switch (n->op) {
    case BI_ISNAN:
    case BI_ISINF:
    case BI_ISFINITE:
        return cj_scalar(DT_BOOL);
    case BI_FLOOR:
    case BI_CEIL:
    case BI_TRUNC:
        if (!t->p->numba) {
            return cj_weak(TY_WEAK_INT);    /* Python returns an int */
        }
        return numba_math_float(t, n, r);
    default:
        return t->p->numba ? numba_math_float(t, n, r) : float_of(t, r);
    }
}

/* min(t), max(t), sum(t [, start]) of a tuple t of real numbers: the type
 * its items meet in (with start's); t is read once per item, so it is a
 * name, a tuple written out or a.shape */
static Type *
tuple_items_type(Ti *t, Node *n, Type *x, int complex_ok)
{
    Node *a = n->list[0];
    int pure = a->kind == ND_VAR || a->kind == ND_TUPLE
               || (a->kind == ND_ATTR && (a->op == AT_SHAPE || a->op == AT_STRIDES));
    if (!pure) {
        ti_err(t, a, "%s() of a tuple takes a name, a tuple written out or a.shape: assign "
               "this tuple to a name first", bname(n));
    }
    if (x->ntup == 0 && n->op != BI_SUM) {
        ti_err_kind(t, n, CE_VALUE, "%s() arg is an empty sequence", bname(n));
    }
    Type *r = n->op == BI_SUM ? cj_weak(TY_WEAK_INT) : NULL;
    for (int i = 0; i < x->ntup; i++) {
        Type *e = x->tup[i];
        if (!is_num(e) || (kind(e) == 'c' && !complex_ok)) {
            ti_err(t, a, "%s() needs a tuple of %snumbers, got %s", bname(n),
                   complex_ok ? "" : "real ", ti_tstr(t, x));
        }
        r = r ? cj_promote(r, e) : e;
    }
    return r;
}

/* sum(t [, start]): Python's sum of a tuple's numbers, start (0) first */
static Type *
sum_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    arity(t, n, 1, 2);
    Type *x = arg(t, n, 0), *s = n->n > 1 ? arg(t, n, 1) : NULL;
    if (!x || (n->n > 1 && !s)) {
        return NULL;
    }
    if (x->kind != TY_TUPLE) {
        ti_err(t, n->list[0], "sum() in a kernel takes a tuple of numbers, got %s (for an "
               "array use np.sum(a) or a.sum())", ti_tstr(t, x));
    }
    if (s && !is_num(s)) {
        ti_err(t, n->list[1], "sum()'s start must be a number, got %s", ti_tstr(t, s));
    }
    Type *r = tuple_items_type(t, n, x, 1);
    return s ? cj_promote(r, s) : r;
}

static Type *
minmax_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    if (n->n == 1) {
        Type *x = arg(t, n, 0);
        if (x && x->kind == TY_TUPLE) {
            return tuple_items_type(t, n, x, 0);
        }
    }
    if (n->n < 2) {
        ti_err(t, n, "%s() in a kernel needs at least two arguments or a tuple (it does not "
               "take another iterable)", bname(n));
    }
    Type *r = NULL;
    for (int i = 0; i < n->n; i++) {
        Type *x = arg(t, n, i);
        if (!x) {
            return NULL;
        }
        if (!is_num(x) || kind(x) == 'c') {
            ti_err(t, n->list[i], "%s() needs real numbers, got %s", bname(n), ti_tstr(t, x));
        }
        r = r ? cj_promote(r, x) : x;
    }
    for (int i = 0; i < n->n; i++) {
        ti_weak_to(t, n->list[i], r);     /* np.minimum's OverflowError */
    }
    return r;
}

static Type *
len_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    arity(t, n, 1, 1);
    Type *x = arg(t, n, 0);
    if (!x) {
        return NULL;
    }
    if (x->kind == TY_TUPLE) {
        return cj_weak(TY_WEAK_INT);
    }
    ti_vector_refuse(t, n->list[0], x, NULL, "len() or a for loop over the lanes", "");
    if (x->kind != TY_ARRAY || x->ndim == 0) {
        ti_err(t, n->list[0], "len() needs an array of at least one dimension or a tuple, "
               "got %s", ti_tstr(t, x));
    }
    return cj_weak(TY_WEAK_INT);
}

/* can an argument of type x be passed where a declared signature has p? a
 * number (or a Python number) as any number but a complex one as a real one
 * (Numba converts no complex to a real); an array as an array of its
 * dtype and rank, of the declared layout or any ('A'); a raw pointer as a
 * pointer of its dtype */
static int
declared_takes(Type *p, Type *x)
{
    if (p->kind == TY_ITER || p->kind == TY_VECTOR) {
        return cj_type_eq(p, x);
    }
    if (p->kind == TY_ARRAY) {
        return x->kind == TY_ARRAY && x->dtype == p->dtype && x->ndim == p->ndim
               && (p->layout == 'A' || p->layout == x->layout) && (!x->readonly || p->readonly)
               && x->mem == MEM_GLOBAL;
    }
    if (p->kind == TY_TUPLE) {
        if (x->kind != TY_TUPLE || x->ntup != p->ntup) {
            return 0;
        }
        for (int i = 0; i < p->ntup; i++) {
            if (!declared_takes(p->tup[i], cj_concrete(x->tup[i]))) {
                return 0;
            }
        }
        return 1;
    }
    return p->kind == TY_SCALAR && is_num(x) && x->kind != TY_TUPLE
           && (cj_dtypes[x->dtype].kind != 'c' || cj_dtypes[p->dtype].kind == 'c');
}

/* how well declared signature d takes these arguments: 0 their types, 1
 * safe conversions (a number promotes to the parameter's type), 2 any
 * conversion of numbers, 3 not at all */
static int
declared_fit(Func *fn, int d, Type **args)
{
    if (fn->decl_nargs[d] != fn->nparams) {
        return 3;
    }
    int fit = 0;
    for (int i = 0; i < fn->nparams; i++) {
        Type *p = fn->decl_args[d][i], *x = cj_concrete(args[i]);
        if (!declared_takes(p, x)) {
            return 3;
        }
        if (!cj_type_eq(p, x) && !cj_is_weak(args[i])) {
            Type *u = p->kind == TY_SCALAR ? cj_promote(p, x) : p;
            fit = u && cj_type_eq(u, p) ? (fit > 1 ? fit : 1) : 2;
        }
    }
    return fit;
}

/* the declared signature of fn (cuda.jit(sig, device=True)) that takes
 * these arguments best (the first of the best): the callee is typed for it,
 * as Numba converts a call's arguments to the signature compiled */
static int
declared_signature(Ti *t, Node *n, Func *fn, Type **args)
{
    int best = -1, best_fit = 3;
    for (int d = 0; d < fn->ndecl; d++) {
        int fit = declared_fit(fn, d, args);
        if (fit < best_fit) {
            best = d;
            best_fit = fit;
        }
    }
    if (best >= 0) {
        return best;
    }
    Buf b;
    buf_init(&b);
    for (int i = 0; i < fn->nparams; i++) {
        buf_puts(&b, i ? ", " : "");
        cj_type_str(&b, cj_concrete(args[i]));
    }
    const char *given = cj_strdup(t->p->arena, b.s ? b.s : "");
    buf_free(&b);
    ti_err(t, n, "Invalid use of type: device function '%s' with parameters (%s): it is "
           "compiled for %d declared signature%s (cuda.jit(sig, device=True)), and none takes "
           "them (a complex number converts to no real type): add a signature, or call it "
           "with arguments of a declared one", fn->name, given, fn->ndecl,
           fn->ndecl == 1 ? "" : "s");
    return -1;
}

/* a function's returns of type got convert to the declared type ret: a
 * number from a number (not a real one from a complex one) or from an
 * Optional number (its value; TypeError on None when it runs, as Numba
 * casts), or void (the value dropped) */
int
ti_return_converts(const Type *got, const Type *ret)
{
    got = got && got->kind == TY_OPTIONAL ? got->base : got;
    got = got ? cj_concrete(got) : NULL;
    if (!got || cj_type_eq(got, ret) || ret->kind == TY_VOID) {
        return 1;
    }
    return ret->kind == TY_SCALAR && got->kind == TY_SCALAR && cj_is_numeric(got)
           && (cj_dtypes[got->dtype].kind != 'c' || cj_dtypes[ret->dtype].kind == 'c');
}

void
ti_declare_return(Program *p, Inst *in, Type *ret)
{
    if (ti_return_converts(in->ret, ret)) {
        in->ret = ret;
        return;
    }
    CjTry *tr = p->try_;
    Buf got, want;
    buf_init(&got);
    buf_init(&want);
    cj_type_str(&got, in->ret);
    cj_type_str(&want, ret);
    snprintf(tr->err.msg, sizeof tr->err.msg, "'%s' is declared to return %s but returns %s, "
             "which does not convert to it", in->fn->name, want.s, got.s);
    buf_free(&got);
    buf_free(&want);
    tr->err.file = in->fn->file;
    tr->err.loc = in->fn->loc;
    tr->err.kind = CE_TYPE;
    tr->err.internal = 0;
    longjmp(tr->jb, 1);
}

/* the declared return type, which the callee's returns convert to
 * (ti_return_converts) */
static void
declared_return(Ti *t, Node *n, Func *fn, Inst *in, Type *ret)
{
    if (!ret || !in->done || cj_type_eq(in->ret, ret)) {
        return;
    }
    Type *got = cj_concrete(in->ret);
    if (ti_return_converts(got, ret)) {
        in->ret = ret;
        return;
    }
    ti_err(t, n, "device function '%s' is declared to return %s but returns %s", fn->name,
           ti_tstr(t, ret), ti_tstr(t, got));
}

/* overloaded(args) := the implementation the overloads give for the types
 * of args (CjOverload: the frontend reads it); the call's arguments become
 * the implementation's, in its order.  NULL: an argument's type is not
 * known yet in this pass, or no overload takes the types it has so far (a
 * variable may still widen: only the final pass's types are an error). */
static Func *
overload_impl(Ti *t, Node *n)
{
    CjOverload *o = n->fn->ovl;
    Type **pos = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(o->npos + 1));
    Type **kw = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(o->nkw + 1));
    for (int i = 0; i < o->npos + o->nkw; i++) {
        Node *a = i < o->npos ? o->pos[i] : o->kw[i - o->npos];
        Type *x = a ? ti_expr_pub(t, a) : NULL;
        if (a && !x) {
            return NULL;
        }
        *(i < o->npos ? &pos[i] : &kw[i - o->npos]) = x;
    }
    Node **args;
    int nargs;
    Func *fn = o->resolve(o, n, pos, kw, t->final, &args, &nargs);
    if (!fn) {
        return NULL;
    }
    int same = nargs == n->n && n->n2 == 0;
    for (int i = 0; i < nargs && same; i++) {
        same = args[i] == n->list[i];
    }
    if (!same && o->resolved) {
        ti_err(t, n, "this call of '%s' is typed for several argument types (in several "
               "calls of the function around it) whose implementations take its arguments "
               "in different orders: give the implementations the same parameters",
               n->fn->name);
    }
    n->list = args;
    n->n = nargs;
    n->list2 = NULL;
    n->n2 = 0;
    o->resolved = 1;
    return fn;
}

static Type *
devfunc_type(Ti *t, Node *n)
{
    Func *fn = n->fn->ovl ? overload_impl(t, n) : n->fn;
    if (!fn) {
        return NULL;
    }
    if (n->n2) {
        /* keywords bound to the parameters by name */
        Node **all = cj_alloc(t->p->arena, sizeof(Node *) * (size_t)(fn->nparams + 1));
        if (n->n > fn->nparams) {
            ti_err(t, n, "%s() takes %d argument%s, got %d", fn->name, fn->nparams,
                   fn->nparams == 1 ? "" : "s", n->n + n->n2);
        }
        for (int i = 0; i < n->n; i++) {
            all[i] = n->list[i];
        }
        for (int k = 0; k < n->n2; k++) {
            int slot = -1;
            for (int i = 0; i < fn->nparams; i++) {
                if (strcmp(fn->vars[i]->name, n->kwnames[k]) == 0) {
                    slot = i;
                }
            }
            if (slot < 0) {
                ti_err(t, n->list2[k], "%s() has no parameter '%s'", fn->name, n->kwnames[k]);
            }
            if (all[slot]) {
                ti_err(t, n->list2[k], "%s() got argument '%s' twice", fn->name,
                       n->kwnames[k]);
            }
            all[slot] = n->list2[k];
        }
        for (int i = 0; i < fn->nparams; i++) {
            if (!all[i]) {
                ti_err(t, n, "%s() is missing argument '%s'", fn->name, fn->vars[i]->name);
            }
        }
        n->list = all;
        n->n = fn->nparams;
        n->list2 = NULL;
        n->n2 = 0;
    }
    if (n->n != fn->nparams) {
        ti_err(t, n, "%s() takes %d argument%s, got %d", fn->name, fn->nparams,
               fn->nparams == 1 ? "" : "s", n->n);
    }
    Type **args = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(n->n + 1));
    for (int i = 0; i < n->n; i++) {
        Type *x = arg(t, n, i);
        if (!x) {
            return NULL;
        }
        if (x->kind == TY_STRING || x->kind == TY_NONE || x->kind == TY_DTYPE
            || x->kind == TY_VOID) {
            ti_err(t, n->list[i], "cannot pass %s to a device function", ti_tstr(t, x));
        }
        args[i] = x;    /* Python numbers stay weak (NEP 50) inside the callee */
    }
    int d = fn->ndecl ? declared_signature(t, n, fn, args) : -1;
    /* earlier passes may make instances for types that later widen; codegen
     * emits only those the final pass calls */
    Inst *in = ti_instance(t, n, fn, d >= 0 ? fn->decl_args[d] : args);
    if (d >= 0) {
        declared_return(t, n, fn, in, fn->decl_ret[d]);
    }
    t->in->callee[n->id] = in;
    for (int i = 0; i < n->n; i++) {
        ti_weak_mask(t, n->list[i], in->weak_to[i]);   /* the callee's conversions */
    }
    return in->ret;
}

/* round(x, ndigits) in a cuda.jit kernel, as Numba types it: a float of an
 * integer (float64), a bool or a float16 (float32) */
static Type *
numba_round_nd(Ti *t, Type *x)
{
    if (!t->p->numba || cj_is_weak(x) || x->kind != TY_SCALAR) {
        return x;
    }
    if (kind(x) == 'i' || kind(x) == 'u') {
        return cj_scalar(DT_F64);
    }
    return x->dtype == DT_BOOL || x->dtype == DT_F16 ? cj_scalar(DT_F32) : x;
}

static Type *
round_type(Ti *t, Node *n)
{
    static const char *const pn[] = {"number", "ndigits"};
    bind_keywords(t, n, pn, 2);
    arity(t, n, 1, 2);
    Type *x = arg(t, n, 0);
    if (!x) {
        return NULL;
    }
    if (!is_num(x) || kind(x) == 'c') {
        ti_err(t, n->list[0], "round() needs a real number, got %s", ti_tstr(t, x));
    }
    if (n->n == 2) {
        int64_t d;
        Type *nd = arg(t, n, 1);
        if (!const_int(n->list[1], &d)) {
            /* known when the kernel runs: CPython's algorithm (cj_round_nd) */
            need(t, n->list[1], nd, is_intish(nd), "an integer ndigits", n);
            t->p->features |= FEAT_MATH | FEAT_MATH_EXTRA;
        }
        return numba_round_nd(t, x);
    }
    t->p->features |= FEAT_MATH;
    return cj_weak(TY_WEAK_INT);
}

static Type *
abs_type(Ti *t, Node *n)
{
    no_keywords(t, n);
    arity(t, n, 1, 1);
    Type *x = arg(t, n, 0);
    need(t, n->list[0], x, is_num(x), "a number", n);
    if (!x) {
        return NULL;
    }
    if (x->kind == TY_WEAK_COMPLEX) {
        return cj_weak(TY_WEAK_FLOAT);
    }
    if (kind(x) == 'c') {
        return cj_scalar(x->dtype == DT_C64 ? DT_F32 : DT_F64);
    }
    return x;
}

/* an intrinsic's signature letter (cj.h) as a dtype; 'F' is resolved apart */
static DType
intrin_dtype(char c)
{
    switch (c) {
    case 'b': return DT_BOOL;
    case 'i': return DT_I32;
    case 'u': return DT_U32;
    case 'l': return DT_I64;
    case 'L': return DT_U64;
    case 'w': return DT_U16;
    case 'h': return DT_F16;
    case 'y': return DT_BF16;
    case 'c': return DT_I8;
    case 'C': return DT_U8;
    case 's': return DT_I16;
    case 'f': return DT_F32;
    default: return DT_F64;
    }
}

/* the float type of an intrinsic's 'F' arguments (math's rule), NULL if none */
static Type *
intrin_float(Ti *t, Type **xs, const char *args)
{
    Type *r = NULL;
    int k = 0;
    for (const char *c = args; *c; c++) {
        if (*c == '*') {
            c++;
            continue;
        }
        if (*c == 'F') {
            r = r ? cj_promote(r, xs[k]) : xs[k];
        }
        k++;
    }
    return r ? float_of(t, r) : NULL;
}

static Type *
intrin_letter(char c, Type *fl)
{
    return c == 'F' ? fl : cj_scalar(intrin_dtype(c));
}

/* cuda.fp16.hadd(a, b), math.exp2(x), libdevice.sincos(x)...: the arguments
 * are numbers, converted to the signature's types; the result is the
 * signature's, or a tuple of it and the values written through pointers */
static Type *
intrin_type(Ti *t, Node *n)
{
    const CjIntrin *in = &cj_intrins[n->axis];
    const char *args = in->sig + 1;
    int want = 0, nout = 0;
    for (const char *c = args; *c; c++) {
        nout += *c == '*';
        want += *c != '*';
    }
    want -= nout;
    if (n->n2) {
        ti_err(t, n->list2[0], "%s() takes no keyword argument '%s'", in->name, n->kwnames[0]);
    }
    if (n->n != want) {
        ti_err(t, n, "%s() expects %d argument%s, got %d", in->name, want, want == 1 ? "" : "s",
               n->n);
    }
    Type *xs[8];
    for (int i = 0; i < n->n; i++) {
        Type *x = xs[i] = arg(t, n, i);
        if (!x) {
            return NULL;
        }
        if (!is_num(x) || kind(x) == 'c') {
            ti_err(t, n->list[i], "%s() needs a real number, got %s", in->name, ti_tstr(t, x));
        }
    }
    Type *fl = intrin_float(t, xs, args);
    if (fl && fl->kind == TY_SCALAR && cj_is_half(fl->dtype)
        && strcmp(in->name, "math.nextafter") == 0) {
        /* float16 computes in float32: its next value would be float32's */
        ti_err(t, n, "math.nextafter() of %s is not supported: convert to float32 first "
               "(np.float32(x))", cj_dtypes[fl->dtype].name);
    }
    int half = strncmp(in->cname, "cj_h", 4) == 0;     /* cuda.fp16's cj_hadd ... */
    int bf = strncmp(in->cname, "cj_bf_", 6) == 0;     /* cuda.bf16's cj_bf_hadd ... */
    t->p->features |= FEAT_MATH | (half ? FEAT_F16_OPS | FEAT_F16 : 0)
                      | (bf ? FEAT_BF16_OPS | FEAT_BF16 : 0)
                      | (fl && fl->kind == TY_SCALAR ? cj_half_feature(fl->dtype) : 0)
                      | (strncmp(in->cname, "cj_", 3) == 0 && !half && !bf ? FEAT_MATH_EXTRA : 0);
    Type *ret = in->sig[0] == 'v' ? NULL : intrin_letter(in->sig[0], fl);
    if (!nout) {
        return ret ? ret : cj_void();
    }
    Type *el[8];
    int ne = 0;
    if (ret) {
        el[ne++] = cj_concrete(ret);
    }
    for (const char *c = args; *c; c++) {
        if (*c == '*') {
            el[ne++] = cj_concrete(intrin_letter(*++c, fl));
        }
    }
    return cj_tuple_type(t->p->arena, el, ne);
}

static Type *
noarg_type(Ti *t, Node *n, Type *r)
{
    no_keywords(t, n);
    arity(t, n, 0, 0);
    return r;
}

Type *
ti_call(Ti *t, Node *n)
{
    switch ((BuiltinKind)n->op) {
    case BI_THREADIDX:
    case BI_BLOCKIDX:
    case BI_BLOCKDIM:
    case BI_GRIDDIM:
        return cj_scalar(DT_I32);
    case BI_GRID:
    case BI_GRIDSIZE:
        return grid_type(t, n);
    case BI_LANEID:
        return noarg_type(t, n, cj_scalar(DT_I32));
    case BI_ACTIVEMASK:
        t->p->features |= FEAT_WARP;
        return noarg_type(t, n, cj_scalar(DT_U32));
    case BI_LANEMASK_LT:
        t->p->features |= FEAT_LANEMASK;
        return noarg_type(t, n, cj_scalar(DT_U32));
    case BI_SYNCTHREADS_COUNT: case BI_SYNCTHREADS_AND: case BI_SYNCTHREADS_OR:
        return sync_vote_type(t, n);
    case BI_SYNCTHREADS:
    case BI_THREADFENCE:
    case BI_THREADFENCE_BLOCK:
    case BI_THREADFENCE_SYSTEM:
        return noarg_type(t, n, cj_void());
    case BI_SYNCWARP: {
        static const char *const pn[] = {"mask"};
        bind_keywords(t, n, pn, 1);
        arity(t, n, 0, 1);
        if (n->n) {
            Type *m = arg(t, n, 0);
            need(t, n->list[0], m, is_intish(m), "an integer mask", n);
        }
        return cj_void();
    }
    case BI_SHARED_MEMORY:
    case BI_LOCAL_MEMORY:
        return alloc_type(t, n);
    case BI_CONST_ARRAY:
        return const_array_type(t, n);
    case BI_ATOMIC_ADD: case BI_ATOMIC_SUB: case BI_ATOMIC_MAX: case BI_ATOMIC_MIN:
    case BI_ATOMIC_EXCH: case BI_ATOMIC_AND: case BI_ATOMIC_OR: case BI_ATOMIC_XOR:
    case BI_ATOMIC_INC: case BI_ATOMIC_DEC: case BI_ATOMIC_CAS:
    case BI_ATOMIC_NANMAX: case BI_ATOMIC_NANMIN:
        return atomic_type(t, n);
    case BI_MATCH_ANY_SYNC:
    case BI_MATCH_ALL_SYNC:
        return ti_match_call(t, n);
    case BI_CG_THIS_BLOCK: case BI_CG_THIS_GRID: case BI_CG_TILED_PARTITION:
    case BI_CG_COALESCED: case BI_CG_SYNC: case BI_CG_WAIT: case BI_CG_WAIT_PRIOR:
    case BI_CG_MEMCPY_ASYNC: case BI_CG_METHOD:
        return ti_group_call(t, n);
    case BI_SHFL_SYNC: case BI_SHFL_UP_SYNC: case BI_SHFL_DOWN_SYNC: case BI_SHFL_XOR_SYNC:
        return shfl_type(t, n);
    case BI_ALL_SYNC: case BI_ANY_SYNC: case BI_EQ_SYNC: case BI_BALLOT_SYNC:
        return vote_type(t, n);
    case BI_POPC: case BI_CLZ: case BI_FFS: case BI_BREV:
        return bits_type(t, n);
    case BI_SELP:
        return selp_type(t, n);
    case BI_CACHE_LD:
        return cache_ld_type(t, n);
    case BI_CACHE_ST:
        return cache_st_type(t, n);
    case BI_NANOSLEEP:
        return nanosleep_type(t, n);
    case BI_CARRAY:
        return ti_carray_type(t, n);
    case BI_PRINT:
        return print_type(t, n);
    case BI_RANGE:
        ti_err(t, n, "range() can only be used as the iterable of a for loop");
    case BI_LEN:
        return len_type(t, n);
    case BI_INT: case BI_FLOAT: case BI_BOOL: case BI_COMPLEX: case BI_CAST:
        return cast_type(t, n);
    case BI_ABS:
        return abs_type(t, n);
    case BI_MIN:
    case BI_MAX:
        return minmax_type(t, n);
    case BI_SUM:
        return sum_type(t, n);
    case BI_ROUND:
        return round_type(t, n);
    case BI_ISINSTANCE:
        return isinstance_type(t, n);
    case BI_CONJUGATE: {
        Type *x = arg(t, n, 0);
        need(t, n->list[0], x, is_num(x), "a number", n);
        return x;
    }
    case BI_SQRT: case BI_EXP: case BI_EXPM1: case BI_LOG: case BI_LOG1P: case BI_LOG2:
    case BI_LOG10: case BI_POW: case BI_SIN: case BI_COS: case BI_TAN: case BI_ASIN:
    case BI_ACOS: case BI_ATAN: case BI_ATAN2: case BI_SINH: case BI_COSH: case BI_TANH:
    case BI_ASINH: case BI_ACOSH: case BI_ATANH: case BI_HYPOT: case BI_FLOOR:
    case BI_CEIL: case BI_TRUNC: case BI_FABS: case BI_FMOD: case BI_COPYSIGN:
    case BI_ERF: case BI_ERFC: case BI_GAMMA: case BI_LGAMMA: case BI_ISNAN:
    case BI_ISINF: case BI_ISFINITE: case BI_CBRT: case BI_FMA:
        return math_type(t, n);
    case BI_INTRIN:
        return intrin_type(t, n);
    case BI_VECTOR:
        return ti_vector_ctor(t, n);
    case BI_BLOCK_REDUCE: case BI_WARP_REDUCE: case BI_BLOCK_SCAN: case BI_WARP_SCAN:
        return ti_collective(t, n);
    case BI_THRUST:
        return ti_thrust(t, n);
    case BI_ARRAY_BEGIN: case BI_ARRAY_END:
        return ti_array_iter(t, n);
    case BI_THRUST_POLICY:
        cj_unreachable(t->p->try_, "a thrust policy called");
    case BI_DEVFUNC:
        return devfunc_type(t, n);
    case BI_NPFUNC:
        return ti_npfunc(t, n);
    case BI_EXTERN:
        return ti_extern_call(t, n);
    case BI_FROM_BUFFER:
        return ti_from_buffer(t, n);
    case BI_COUNT:
        break;
    }
    cj_unreachable(t->p->try_, "builtin");
}
