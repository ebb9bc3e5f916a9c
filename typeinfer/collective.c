/* collective.c - typing of the block and warp collectives (BI_BLOCK_REDUCE,
 * BI_WARP_REDUCE, BI_BLOCK_SCAN, BI_WARP_SCAN; frontend/collective.c reads
 * their spellings): the element type, the combiner's instance, and the
 * extra argument (valid for reductions, initial for scans). */
#include "ti.h"

static const char *
cname(Node *n)
{
    return cj_builtin_names[n->op];
}

static int
is_scan(Node *n)
{
    return n->op == BI_BLOCK_SCAN || n->op == BI_WARP_SCAN;
}

/* cuda.coop's ([temp_storage,] value ...): an array first is the storage,
 * which cujit does not need (it allocates its own), so it is dropped */
static int
drop_storage(Ti *t, Node *n)
{
    Type *s = ti_expr_pub(t, n->list[0]);
    if (!s) {
        return 0;
    }
    if (s->kind == TY_ARRAY && n->n >= 2) {
        n->list++;
        n->n--;
    }
    n->coll &= ~CO_STORAGE;
    return 1;
}

/* the element type: the spelling's dtype, else the value's own */
static Type *
element_type(Ti *t, Node *n, Type *x)
{
    if (x->kind == TY_ARRAY) {
        ti_err(t, n->list[0], "%s() combines one value per thread; arrays of items per "
               "thread are not supported yet (reduce them in the thread first)", cname(n));
    }
    if (!cj_is_numeric(x)) {
        ti_err(t, n->list[0], "%s() needs a number, got %s", cname(n), ti_tstr(t, x));
    }
    Type *T = n->cval.kind == CK_DTYPE ? cj_scalar(n->cval.dt) : cj_concrete(x);
    if (cj_type_kind(x) == 'c' && cj_type_kind(T) != 'c') {
        ti_err(t, n->list[0], "%s() of %s cannot take a complex value", cname(n),
               ti_tstr(t, T));
    }
    return T;       /* max / min of complex numbers: NumPy's order (prelude.c) */
}

/* valid := an integer (threads, or lanes, whose values count);
 * initial := a number of the element type (scans) */
static int
extra_arg(Ti *t, Node *n, Type *T)
{
    if (n->n > 2) {
        ti_err(t, n, "%s() takes (value, %s), got %d arguments", cname(n),
               is_scan(n) ? "initial" : "valid", n->n);
    }
    if (n->n < 2) {
        return 1;
    }
    Type *e = ti_expr_pub(t, n->list[1]);
    if (!e) {
        return 0;
    }
    char k = cj_is_numeric(e) ? cj_type_kind(e) : 0;
    if (!is_scan(n) && k != 'i' && k != 'u') {
        ti_err(t, n->list[1], "%s(): valid must be an integer (how many threads' values "
               "count), got %s", cname(n), ti_tstr(t, e));
    }
    if (is_scan(n) && (!k || (k == 'c' && cj_type_kind(T) != 'c'))) {
        ti_err(t, n->list[1], "%s(): initial must be a number of type %s, got %s", cname(n),
               ti_tstr(t, T), ti_tstr(t, e));
    }
    return 1;
}

/* the combiner's instance for (T, T); it must return a number */
static int
combiner_type(Ti *t, Node *n, Type *T)
{
    Type **args = cj_alloc(t->p->arena, sizeof(Type *) * 2);
    args[0] = args[1] = T;
    if (n->fn->nparams != 2) {
        ti_err(t, n, "the combiner %s() of %s() must take two values, it takes %d",
               n->fn->name, cname(n), n->fn->nparams);
    }
    Inst *in = ti_instance(t, n, n->fn, args);
    t->in->callee[n->id] = in;
    if (!in->ret) {
        return 0;
    }
    if (!cj_is_numeric(in->ret) || (cj_type_kind(in->ret) == 'c' && cj_type_kind(T) != 'c')) {
        ti_err(t, n, "the combiner %s() of %s() must return a number of type %s, it "
               "returns %s", n->fn->name, cname(n), ti_tstr(t, T), ti_tstr(t, in->ret));
    }
    return 1;
}

/* collective := value [, extra] with a combiner: the result has the
 * element type */
Type *
ti_collective(Ti *t, Node *n)
{
    if ((n->coll & CO_STORAGE) && !drop_storage(t, n)) {
        return NULL;
    }
    Type *x = ti_expr_pub(t, n->list[0]);
    if (!x) {
        return NULL;
    }
    Type *T = element_type(t, n, x);
    if (!extra_arg(t, n, T)) {
        return NULL;
    }
    if ((n->coll & CO_MASK) == CO_FUNC && !combiner_type(t, n, T)) {
        return NULL;
    }
    t->p->features |= FEAT_COLLECTIVE;
    return T;
}
