/* nonneg.c - which integer values of a function are never negative, so
 * that a cuda.jit kernel's array index needs no wraparound (Program.numba:
 * Numba counts a negative signed index from the end, `i < 0 ? i + n : i`,
 * and cujit emits that test only where this analysis cannot prove it
 * useless; codegen/expr.c's index_value asks cg_nonneg).
 *
 * An expression is non-negative when its type is unsigned or boolean, or by
 * its form: a constant >= 0; a thread, block or grid index or extent
 * (threadIdx.x, cuda.grid(n), laneid ...), len(), a.size, a.shape[k]; popc,
 * clz, ffs; a sum, product, floor division or power of non-negative
 * operands, a right shift of one, `&` with one non-negative side, `%` by a
 * non-negative divisor (Python's % takes the divisor's sign); min of
 * non-negative operands, max with one, abs; a conditional of two
 * non-negative sides; a tuple whose items all are; a variable all of whose
 * assignments are.  Overflow is not considered (Numba's int64 arithmetic).
 *
 * The variables come from a fixed point over the function's assignments:
 * every local starts non-negative (optimistic), a pass over the statements
 * drops each variable assigned a value not proven non-negative under the
 * current set, and passes repeat until none is dropped.  A parameter is
 * non-negative only if its type is unsigned or boolean; a `for` target of
 * range(start, stop[, step]) is when start is (or is absent) and step is a
 * positive constant or a non-negative value, or when step is a negative
 * constant and stop is a constant >= -1; a variable passed to a function defined in the kernel
 * that rebinds it (`nonlocal`, a by-reference capture) is not.  The result
 * is computed once per typed function and kept in Cg (nn_in, nn_var). */
#include "cg.h"

typedef struct {
    Cg *g;
    Inst *in;
    unsigned char *nn;      /* by var id: still believed non-negative */
    int changed;
} Nn;

/* the builtins whose value is never negative */
static const unsigned char always_nonneg[BI_COUNT] = {
    [BI_THREADIDX] = 1, [BI_BLOCKIDX] = 1, [BI_BLOCKDIM] = 1, [BI_GRIDDIM] = 1,
    [BI_GRID] = 1, [BI_GRIDSIZE] = 1, [BI_LANEID] = 1, [BI_POPC] = 1, [BI_CLZ] = 1,
    [BI_FFS] = 1, [BI_LEN] = 1, [BI_ABS] = 1,
};

static const Type *
ntype(Nn *s, Node *n)
{
    const Type *t = s->in->ntype[n->id];
    return t ? cj_concrete(t) : NULL;
}

/* integer and boolean scalars: the values this analysis tracks */
static int
int_kind(const Type *t)
{
    if (!t || t->kind != TY_SCALAR) {
        return 0;
    }
    char k = cj_dtypes[t->dtype].kind;
    return k == 'i' || k == 'u' || k == 'b' ? k : 0;
}

static int nonneg(Nn *s, Node *n);

static int
all_nonneg(Nn *s, Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        if (!list[i] || !nonneg(s, list[i])) {
            return 0;
        }
    }
    return n > 0;
}

static int
any_nonneg(Nn *s, Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        if (list[i] && nonneg(s, list[i])) {
            return 1;
        }
    }
    return 0;
}

/* x op y: the operators that keep non-negative operands non-negative */
static int
binop_nonneg(Nn *s, Node *n)
{
    switch ((OpKind)n->op) {
    case OP_ADD: case OP_MUL: case OP_FLOORDIV: case OP_LSHIFT: case OP_BITOR: case OP_BITXOR:
        return nonneg(s, n->a) && nonneg(s, n->b);
    case OP_POW: case OP_RSHIFT:
        return nonneg(s, n->a);
    case OP_BITAND:
        return nonneg(s, n->a) || nonneg(s, n->b);
    case OP_MOD:
        return nonneg(s, n->b);         /* Python's %: the divisor's sign */
    case OP_SUB: case OP_DIV: case OP_MATMUL:
        return 0;
    case OP_NEG: case OP_POS: case OP_INVERT: case OP_NOT: case OP_EQ: case OP_NE: case OP_LT:
    case OP_LE: case OP_GT: case OP_GE: case OP_IS: case OP_ISNOT: case OP_IN: case OP_NOTIN:
    case OP_AND: case OP_OR:
        break;
    }
    return 0;
}

/* int(x), np.int32(x): x non-negative and the cast keeps its sign (an
 * unsigned value into a signed type only if wider) */
static int
cast_nonneg(Nn *s, Node *n)
{
    if (n->n < 1 || !nonneg(s, n->list[0])) {
        return n->n == 0;       /* np.int32(): zero */
    }
    const Type *from = ntype(s, n->list[0]), *to = ntype(s, n);
    if (!int_kind(from) || !int_kind(to)) {
        return 0;
    }
    return int_kind(from) != 'u' || int_kind(to) != 'i'
           || cj_dtypes[to->dtype].size > cj_dtypes[from->dtype].size;
}

static int
call_nonneg(Nn *s, Node *n)
{
    if (always_nonneg[n->op]) {
        return 1;
    }
    if (n->op == BI_MIN || n->op == BI_SUM) {
        return all_nonneg(s, n->list, n->n);     /* min(a, b), min(t), sum(t) */
    }
    if (n->op == BI_MAX) {
        return any_nonneg(s, n->list, n->n);
    }
    return (n->op == BI_INT || n->op == BI_CAST) && cast_nonneg(s, n);
}

static int
attr_nonneg(Node *n)
{
    switch ((AttrKind)n->op) {
    case AT_SHAPE: case AT_SIZE: case AT_NDIM: case AT_DTYPE_ITEMSIZE: case AT_NBYTES:
    case AT_ADDRESS:
        return 1;
    case AT_STRIDES: case AT_REAL: case AT_IMAG: case AT_T: case AT_X: case AT_Y: case AT_Z:
    case AT_FIELD:
        return 0;
    }
    return 0;
}

/* Is n's value never negative (under the current set of variables)? */
static int
nonneg(Nn *s, Node *n)
{
    int64_t v;
    const Type *t = ntype(s, n);
    if (int_kind(t) == 'u' || int_kind(t) == 'b') {
        return 1;
    }
    if (cj_fold_int(n, &v)) {
        return v >= 0;
    }
    switch (n->kind) {
    case ND_CONST:
        return (n->cval.kind == CK_INT && n->cval.i >= 0) || n->cval.kind == CK_UINT
               || n->cval.kind == CK_BOOL;
    case ND_VAR:
        return n->var->id >= 0 && n->var->id < s->in->fn->nvars && s->nn[n->var->id];
    case ND_BINOP:
        return int_kind(t) && binop_nonneg(s, n);
    case ND_UNARY:
        return n->op == OP_POS && nonneg(s, n->a);
    case ND_COMPARE:
        return 1;       /* a bool */
    case ND_BOOLOP:
        return all_nonneg(s, n->list, n->n);     /* `a or b` is one of them */
    case ND_IFEXP:
        return nonneg(s, n->b) && nonneg(s, n->c);
    case ND_INDEX:
        /* an item of a non-negative tuple (a.shape[k], cuda.grid(2)[0]) */
        return ntype(s, n->a) && ntype(s, n->a)->kind == TY_TUPLE && nonneg(s, n->a);
    case ND_ATTR:
        return attr_nonneg(n);
    case ND_CALL:
        return int_kind(t) || (t && t->kind == TY_TUPLE) ? call_nonneg(s, n) : 0;
    case ND_TUPLE:
        return all_nonneg(s, n->list, n->n);
    case ND_SLICE:
        return 0;
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_IF: case ND_WHILE: case ND_FOR: case ND_BREAK:
    case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT: case ND_EXPR:
        break;
    }
    return 0;
}

static void
drop(Nn *s, Var *v)
{
    if (v && v->id >= 0 && v->id < s->in->fn->nvars && s->nn[v->id]) {
        s->nn[v->id] = 0;
        s->changed = 1;
    }
}

/* a value of type `from` stored into a variable of type `to` keeps its
 * sign unless an unsigned value goes into a signed type no wider */
static int
keeps_sign(const Type *from, const Type *to)
{
    if (int_kind(from) != 'u' || int_kind(to) != 'i') {
        return 1;
    }
    return cj_dtypes[to->dtype].size > cj_dtypes[from->dtype].size;
}

static void
drop_all(Nn *s, Node *target)
{
    if (target->kind == ND_VAR) {
        drop(s, target->var);
    } else if (target->kind == ND_TUPLE) {
        for (int i = 0; i < target->n; i++) {
            drop_all(s, target->list[i]);
        }
    }
}

/* target = value: a variable target stays only if the value is
 * non-negative; a tuple target takes a tuple written out item by item */
static void
assign_to(Nn *s, Node *target, Node *value)
{
    if (target->kind == ND_TUPLE && value->kind == ND_TUPLE && value->n == target->n) {
        for (int i = 0; i < target->n; i++) {
            assign_to(s, target->list[i], value->list[i]);
        }
        return;
    }
    if (!nonneg(s, value)) {
        drop_all(s, target);
        return;
    }
    if (target->kind == ND_VAR) {
        const Type *to = s->in->vtype[target->var->id];
        if (!to || !keeps_sign(ntype(s, value), cj_concrete(to))) {
            drop(s, target->var);
        }
    }
}

/* for v in range(start, stop, step): v is non-negative when it counts up
 * (a step that is a positive constant or a non-negative value, such as
 * cuda.gridsize(1)) from a non-negative start, or down by a constant step
 * to a constant stop >= -1 */
static int
range_nonneg(Nn *s, Node *n)
{
    int64_t step = 1, stop;
    if (n->c && !cj_fold_int(n->c, &step)) {
        return nonneg(s, n->c) && (!n->a || nonneg(s, n->a));
    }
    if (step > 0) {
        return !n->a || nonneg(s, n->a);
    }
    return step < 0 && cj_fold_int(n->b, &stop) && stop >= -1;
}

static void stmt(Nn *s, Node *n);

static void
stmts(Nn *s, Node **list, int n)
{
    for (int i = 0; list && i < n; i++) {
        stmt(s, list[i]);
    }
}

/* one pass over a statement: drops the variables it assigns a value that
 * may be negative */
static void
stmt(Nn *s, Node *n)
{
    switch (n->kind) {
    case ND_ASSIGN:
        for (int i = 0; i < n->n; i++) {
            assign_to(s, n->list[i], n->a);
        }
        return;
    case ND_AUGASSIGN: {
        if (n->a->kind != ND_VAR) {
            return;
        }
        Node bin = *n;          /* x op= y is x = x op y, typed as the statement */
        bin.kind = ND_BINOP;
        assign_to(s, n->a, &bin);
        return;
    }
    case ND_FOR:
        if (!range_nonneg(s, n)) {
            drop(s, n->var);
        }
        stmts(s, n->list, n->n);
        stmts(s, n->list2, n->n2);
        return;
    case ND_IF: case ND_WHILE:
        stmts(s, n->list, n->n);
        stmts(s, n->list2, n->n2);
        return;
    case ND_BREAK: case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT:
    case ND_EXPR:
        return;
    case ND_CONST: case ND_VAR: case ND_BINOP: case ND_UNARY: case ND_COMPARE:
    case ND_BOOLOP: case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL:
    case ND_TUPLE: case ND_SLICE:
        break;
    }
    cj_unreachable(s->g->p->try_, "expression as statement");
}

/* a variable passed to a function that takes it by reference (a def in
 * the kernel that rebinds it with `nonlocal`) may be given any value */
static void
drop_byref_args(Nn *s, Node *n)
{
    if (!n) {
        return;
    }
    if (n->kind == ND_CALL && n->op == BI_DEVFUNC && n->fn && n->fn->vars) {
        int byref = 0;
        for (int i = 0; i < n->fn->nparams; i++) {
            byref |= n->fn->vars[i]->byref;
        }
        for (int i = 0; byref && i < n->n; i++) {
            drop_all(s, n->list[i]);
        }
    }
    drop_byref_args(s, n->a);
    drop_byref_args(s, n->b);
    drop_byref_args(s, n->c);
    for (int i = 0; n->list && i < n->n; i++) {
        drop_byref_args(s, n->list[i]);
    }
    for (int i = 0; n->list2 && i < n->n2; i++) {
        drop_byref_args(s, n->list2[i]);
    }
}

/* the fixed point for g->in: its variables that are never negative */
static void
analyse(Cg *g)
{
    Func *fn = g->in->fn;
    Nn s = {g, g->in, cj_alloc(g->p->arena, (size_t)fn->nvars + 1), 0};
    for (int i = 0; i < fn->nvars; i++) {
        const Type *t = g->in->vtype[i] ? cj_concrete(g->in->vtype[i]) : NULL;
        s.nn[i] = !fn->vars[i]->is_param || int_kind(t) == 'u' || int_kind(t) == 'b';
    }
    for (int i = 0; i < fn->nbody; i++) {
        drop_byref_args(&s, fn->body[i]);
    }
    do {
        s.changed = 0;
        stmts(&s, fn->body, fn->nbody);
    } while (s.changed);
    g->nn_in = g->in;
    g->nn_var = s.nn;
}

int
cg_nonneg(Cg *g, Node *n)
{
    if (g->nn_in != g->in) {
        analyse(g);
    }
    Nn s = {g, g->in, g->nn_var, 0};
    return nonneg(&s, n);
}
