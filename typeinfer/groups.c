/* groups.c - typing of jit.cg (cooperative groups): this_thread_block(),
 * this_grid(), tiled_partition(), coalesced_threads(), cg.sync / wait /
 * wait_prior / memcpy_async, the methods of a group value; and of
 * match_any_sync / match_all_sync. */
#include <string.h>

#include "ti.h"

/* which group kinds have a method: bits (1 << GK_*) */
#define GB (1u << GK_BLOCK)
#define GG (1u << GK_GRID)
#define GT (1u << GK_TILE)
#define GC (1u << GK_COALESCED)

static unsigned
method_kinds(GroupMethod m)
{
    switch (m) {
    case GM_SYNC: case GM_THREAD_RANK: case GM_SIZE: case GM_NUM_THREADS:
        return GB | GG | GT | GC;
    case GM_GROUP_INDEX: case GM_THREAD_INDEX: case GM_DIM_THREADS:
        return GB;
    case GM_GROUP_DIM:
        return GB | GG;
    case GM_IS_VALID: case GM_BLOCK_RANK: case GM_NUM_BLOCKS: case GM_DIM_BLOCKS:
    case GM_BLOCK_INDEX:
        return GG;
    case GM_META_GROUP_RANK: case GM_META_GROUP_SIZE: case GM_SHFL: case GM_SHFL_UP:
    case GM_SHFL_DOWN: case GM_ANY: case GM_ALL: case GM_BALLOT: case GM_MATCH_ANY:
    case GM_MATCH_ALL:
        return GT | GC;
    case GM_SHFL_XOR:
        return GT;
    case GM_COUNT:
        break;
    }
    return 0;
}

/* the arguments a method takes after the receiver */
static int
method_arity(GroupMethod m)
{
    switch (m) {
    case GM_SHFL: case GM_SHFL_UP: case GM_SHFL_DOWN: case GM_SHFL_XOR:
        return 2;
    case GM_ANY: case GM_ALL: case GM_BALLOT: case GM_MATCH_ANY: case GM_MATCH_ALL:
        return 1;
    case GM_SYNC: case GM_THREAD_RANK: case GM_SIZE: case GM_NUM_THREADS:
    case GM_GROUP_INDEX: case GM_THREAD_INDEX: case GM_DIM_THREADS: case GM_GROUP_DIM:
    case GM_IS_VALID: case GM_BLOCK_RANK: case GM_NUM_BLOCKS: case GM_DIM_BLOCKS:
    case GM_BLOCK_INDEX: case GM_META_GROUP_RANK: case GM_META_GROUP_SIZE: case GM_COUNT:
        break;
    }
    return 0;
}

static const char *
kind_name(GroupKind k)
{
    static const char *const names[] = {"a thread block", "a grid group", "a tile",
                                        "a coalesced group"};
    return names[k];
}

static int
is_int(Type *x)
{
    char k = x ? cj_type_kind(x) : 0;
    return x && cj_is_numeric(x) && (k == 'i' || k == 'u');
}

static Type *
dim3(Ti *t)
{
    Type *u = cj_scalar(DT_U32);
    Type *el[3] = {u, u, u};
    return cj_tuple_type(t->p->arena, el, 3);
}

static Type *
mask_pred(Ti *t)
{
    Type *el[2] = {cj_scalar(DT_U32), cj_scalar(DT_BOOL)};
    return cj_tuple_type(t->p->arena, el, 2);
}

/* a value CUDA's shuffles and matches take: a 32- or 64-bit integer or
 * float (a Python int is an int64) */
static Type *
word_value(Ti *t, Node *a, const char *what)
{
    Type *x = ti_expr_pub(t, a);
    if (!x) {
        return NULL;
    }
    Type *c = cj_is_numeric(x) ? cj_concrete(x) : NULL;
    if (!c || c->kind != TY_SCALAR || cj_dtypes[c->dtype].size < 4 || cj_type_kind(c) == 'c') {
        ti_err(t, a, "%s takes a 32- or 64-bit integer or float, got %s; convert it first "
               "(numpy.int32(v), numpy.float32(v))", what, ti_tstr(t, x));
    }
    return c;
}

static void
no_keywords(Ti *t, Node *n, const char *what)
{
    if (n->n2) {
        ti_err(t, n->list2[0], "%s takes no keyword argument '%s'", what, n->kwnames[0]);
    }
}

static void
count(Ti *t, Node *n, int want, const char *what)
{
    if (n->n != want) {
        ti_err_kind(t, n, CE_TYPE, "%s expects %d argument%s, got %d", what, want,
                    want == 1 ? "" : "s", n->n);
    }
}

/* the group an argument holds; `kinds`: the GK_* bits allowed */
static Type *
group_arg(Ti *t, Node *call, int i, unsigned kinds, const char *what)
{
    if (call->n <= i) {
        ti_err_kind(t, call, CE_TYPE, "%s needs a group (jit.cg.this_thread_block() ...) as "
                    "argument %d", what, i + 1);
    }
    Type *x = ti_expr_pub(t, call->list[i]);
    if (!x) {
        return NULL;
    }
    if (x->kind != TY_GROUP) {
        ti_err_kind(t, call->list[i], CE_TYPE, "%s needs a cooperative group "
                    "(jit.cg.this_thread_block(), this_grid(), tiled_partition(), "
                    "coalesced_threads()), got %s", what, ti_tstr(t, x));
    }
    if (!(kinds & (1u << x->group))) {
        ti_err_kind(t, call->list[i], CE_TYPE, "%s does not take %s (%s)", what,
                    kind_name(x->group), ti_tstr(t, x));
    }
    return x;
}

/* tiled_partition(parent, n): n a constant power of 2 up to 32 (and up to
 * a parent tile's size) */
static Type *
tiled_partition(Ti *t, Node *n)
{
    const char *what = "jit.cg.tiled_partition(parent, size)";
    no_keywords(t, n, what);
    count(t, n, 2, what);
    Type *pt = group_arg(t, n, 0, GB | GT, what);
    int64_t size;
    if (!cj_fold_int(n->list[1], &size)) {
        ti_err_kind(t, n->list[1], CE_TYPE, "%s: size must be a constant (1, 2, 4, 8, 16 or "
                    "32) known at compile time", what);
    }
    ti_expr_pub(t, n->list[1]);
    int limit = pt && pt->group == GK_TILE ? pt->tile : 32;
    if (size < 1 || size > limit || (size & (size - 1))) {
        ti_err_kind(t, n->list[1], CE_VALUE, "%s: size must be a power of 2 from 1 to %d, "
                    "got %lld", what, limit, (long long)size);
    }
    if (!pt) {
        return NULL;
    }
    t->p->features |= FEAT_CG_TILE;
    return cj_group_type(t->p->arena, GK_TILE, (int)size, pt->group == GK_TILE ? pt->tile : 0);
}

/* cg.memcpy_async(group, dst, dst_idx, src, src_idx, size, aligned_size=None):
 * size bytes from &src[src_idx] to &dst[dst_idx] */
static Type *
memcpy_async(Ti *t, Node *n)
{
    const char *what = "jit.cg.memcpy_async(group, dst, dst_idx, src, src_idx, size)";
    for (int k = 0; k < n->n2; k++) {
        int64_t a;
        if (strcmp(n->kwnames[k], "aligned_size") != 0) {
            ti_err(t, n->list2[k], "%s takes no keyword argument '%s'", what, n->kwnames[k]);
        }
        if (!cj_fold_int(n->list2[k], &a)) {
            ti_err_kind(t, n->list2[k], CE_TYPE, "%s: aligned_size must be a constant", what);
        }
        if (a < 1 || (a & (a - 1))) {
            ti_err_kind(t, n->list2[k], CE_VALUE, "%s: aligned_size must be a power of 2, got "
                        "%lld", what, (long long)a);
        }
    }
    count(t, n, 6, what);
    group_arg(t, n, 0, GB | GT | GC, what);
    for (int i = 1; i <= 3; i += 2) {
        Type *a = ti_expr_pub(t, n->list[i]);
        Type *ix = ti_expr_pub(t, n->list[i + 1]);
        if (a && a->kind != TY_ARRAY) {
            ti_err_kind(t, n->list[i], CE_TYPE, "%s: %s must be an array, got %s", what,
                        i == 1 ? "dst" : "src", ti_tstr(t, a));
        }
        int nidx = ix && ix->kind == TY_TUPLE ? ix->ntup : 1;
        if (a && ix && nidx != a->ndim) {
            ti_err_kind(t, n->list[i + 1], CE_TYPE, "%s: the index has %d component%s but "
                        "the array has %d dimension%s", what, nidx, nidx == 1 ? "" : "s",
                        a->ndim, a->ndim == 1 ? "" : "s");
        }
        for (int k = 0; ix && k < nidx; k++) {
            if (!is_int(ix->kind == TY_TUPLE ? ix->tup[k] : ix)) {
                ti_err_kind(t, n->list[i + 1], CE_TYPE, "%s: indices must be integers", what);
            }
        }
    }
    Type *sz = ti_expr_pub(t, n->list[5]);
    if (sz && !is_int(sz)) {
        ti_err_kind(t, n->list[5], CE_TYPE, "%s: size (in bytes) must be an integer, got %s",
                    what, ti_tstr(t, sz));
    }
    t->p->features |= FEAT_CG | FEAT_CG_COPY;
    return cj_void();
}

/* g.method(args) */
static Type *
method(Ti *t, Node *n)
{
    GroupMethod m = (GroupMethod)n->axis;
    const char *name = cj_group_method_names[m];
    Type *gt = ti_expr_pub(t, n->list[0]);
    if (gt && gt->kind != TY_GROUP) {
        ti_err_kind(t, n, CE_TYPE, "%s has no method %s(): only cooperative groups "
                    "(jit.cg) have it", ti_tstr(t, gt), name);
    }
    if (!gt) {
        return NULL;
    }
    if (!(method_kinds(m) & (1u << gt->group))) {
        ti_err_kind(t, n, CE_TYPE, "%s has no method %s()", ti_tstr(t, gt), name);
    }
    if (n->n - 1 != method_arity(m)) {
        ti_err_kind(t, n, CE_TYPE, "%s.%s() expects %d argument%s, got %d", ti_tstr(t, gt), name,
                    method_arity(m), method_arity(m) == 1 ? "" : "s", n->n - 1);
    }
    int grid = gt->group == GK_GRID;
    switch (m) {
    case GM_SYNC:
        t->p->features |= grid ? FEAT_GRID_SYNC : 0;
        return cj_void();
    case GM_THREAD_RANK: case GM_SIZE: case GM_NUM_THREADS:
        return cj_scalar(grid ? DT_U64 : DT_U32);
    case GM_BLOCK_RANK: case GM_NUM_BLOCKS:
        return cj_scalar(DT_U64);
    case GM_META_GROUP_RANK: case GM_META_GROUP_SIZE:
        return cj_scalar(DT_U32);
    case GM_GROUP_INDEX: case GM_THREAD_INDEX: case GM_DIM_THREADS: case GM_GROUP_DIM:
    case GM_DIM_BLOCKS: case GM_BLOCK_INDEX:
        return dim3(t);
    case GM_IS_VALID:
        return cj_scalar(DT_BOOL);
    case GM_SHFL: case GM_SHFL_UP: case GM_SHFL_DOWN: case GM_SHFL_XOR: {
        Type *v = word_value(t, n->list[1], name);
        Type *l = ti_expr_pub(t, n->list[2]);
        if (l && !is_int(l)) {
            ti_err_kind(t, n->list[2], CE_TYPE, "%s() needs an integer %s, got %s", name,
                        m == GM_SHFL ? "source rank" : m == GM_SHFL_XOR ? "lane mask"
                        : "delta", ti_tstr(t, l));
        }
        return v;
    }
    case GM_ANY: case GM_ALL: case GM_BALLOT: {
        Type *p = ti_expr_pub(t, n->list[1]);
        if (p && !cj_is_numeric(p)) {
            ti_err_kind(t, n->list[1], CE_TYPE, "%s() needs a condition, got %s", name,
                        ti_tstr(t, p));
        }
        return cj_scalar(m == GM_BALLOT ? DT_U32 : DT_BOOL);
    }
    case GM_MATCH_ANY:
        word_value(t, n->list[1], name);
        return cj_scalar(DT_U32);
    case GM_MATCH_ALL:
        word_value(t, n->list[1], name);
        return mask_pred(t);
    case GM_COUNT:
        break;
    }
    cj_unreachable(t->p->try_, "group method");
}

/* the BI_CG_* builtins */
Type *
ti_group_call(Ti *t, Node *n)
{
    const char *what = cj_builtin_names[n->op];
    t->p->features |= FEAT_CG;
    switch ((BuiltinKind)n->op) {
    case BI_CG_THIS_BLOCK:
    case BI_CG_THIS_GRID:
    case BI_CG_COALESCED:
        no_keywords(t, n, what);
        count(t, n, 0, what);
        t->p->features |= n->op == BI_CG_THIS_GRID ? FEAT_CG_GRID
                          : n->op == BI_CG_COALESCED ? FEAT_CG_COALESCED : 0;
        return cj_group_type(t->p->arena, n->op == BI_CG_THIS_BLOCK ? GK_BLOCK
                             : n->op == BI_CG_THIS_GRID ? GK_GRID : GK_COALESCED, 0, 0);
    case BI_CG_TILED_PARTITION:
        return tiled_partition(t, n);
    case BI_CG_SYNC:
    case BI_CG_WAIT: {
        no_keywords(t, n, what);
        count(t, n, 1, what);
        Type *g = group_arg(t, n, 0, n->op == BI_CG_SYNC ? GB | GG | GT | GC : GB | GT | GC,
                            what);
        t->p->features |= g && g->group == GK_GRID ? FEAT_GRID_SYNC : 0;
        return cj_void();
    }
    case BI_CG_WAIT_PRIOR: {
        int64_t k;
        no_keywords(t, n, what);
        count(t, n, 2, what);
        group_arg(t, n, 0, GB | GT | GC, what);
        if (!cj_fold_int(n->list[1], &k)) {
            ti_err_kind(t, n->list[1], CE_TYPE, "%s: the number of stages must be a constant",
                        what);
        }
        if (k < 0) {
            ti_err_kind(t, n->list[1], CE_VALUE, "%s: the number of stages must be >= 0, got "
                        "%lld", what, (long long)k);
        }
        ti_expr_pub(t, n->list[1]);
        return cj_void();
    }
    case BI_CG_MEMCPY_ASYNC:
        return memcpy_async(t, n);
    case BI_CG_METHOD:
        return method(t, n);
    default:
        break;
    }
    cj_unreachable(t->p->try_, "cg builtin");
}

/* match_any_sync(mask, value) -> uint32; match_all_sync(mask, value) ->
 * (uint32 mask, bool pred), as Numba returns it */
Type *
ti_match_call(Ti *t, Node *n)
{
    const char *what = cj_builtin_names[n->op];
    no_keywords(t, n, what);
    count(t, n, 2, what);
    Type *m = ti_expr_pub(t, n->list[0]);
    if (m && !is_int(m)) {
        ti_err_kind(t, n->list[0], CE_TYPE, "%s() needs an integer mask, got %s", what,
                    ti_tstr(t, m));
    }
    word_value(t, n->list[1], what);
    if (n->op == BI_MATCH_ALL_SYNC) {
        t->p->features |= FEAT_MATCH;
        return mask_pred(t);
    }
    return cj_scalar(DT_U32);
}
