/* nonneg.c - which integer values of a function are never negative, so
 * that a cuda.jit kernel's array index needs no wraparound (Program.numba:
 * Numba counts a negative signed index from the end, `i < 0 ? i + n : i`,
 * and cujit emits that test, cj_wrap, only where this analysis cannot prove
 * it useless; codegen/expr.c's index_value asks cg_nonneg).
 *
 * It computes a lower bound of integer values (LB_NONE: none known), and a
 * value is non-negative when its bound is >= 0.  By type: unsigned and
 * boolean values are >= 0.  By form: a constant is itself; a thread, block
 * or grid index or extent (threadIdx.x, cuda.grid(n), laneid ...), len(),
 * a.size, a.shape[k], popc, clz, ffs and abs are >= 0; a sum adds bounds, a
 * difference less a constant subtracts it; a product, floor division or
 * power of non-negative operands, a right shift of one, `&` with one
 * non-negative side, `%` by a non-negative divisor (Python's % takes the
 * divisor's sign) are >= 0; min takes the least bound, max the greatest; a
 * conditional the lesser of its two sides; a tuple its items' least.
 * Overflow is not considered (Numba's int64 arithmetic).
 *
 * Variables (flow-insensitive): a fixed point over the function's
 * assignments, starting optimistic (no bound lowered yet), each pass
 * lowering a variable's bound to the least of the values assigned to it,
 * until none moves; a bound still falling after WIDEN passes (a loop
 * counting down) drops to none.  A parameter has a bound only when its type
 * is unsigned or boolean; a `for` target of range(start, stop[, step])
 * has start's bound when the step is a positive constant or a non-negative
 * value (cuda.gridsize(1)), and stop's + 1 when the step is a negative
 * constant; a variable passed to a function defined in the kernel that
 * rebinds it (`nonlocal`, a by-reference capture) has none.
 *
 * Guards (a second pass, path-sensitive, statements in order): inside `if`
 * and `while` bodies, the later operands of `and` / `or` and the sides of a
 * conditional, a condition's comparisons (`0 < i < n - 1`, `i >= 1 and j >=
 * 1`, `i != 0` of an i >= 0) raise an integer variable's bound, or record
 * one for an expression (`x[i - k] if i - k >= 0 else 0`: the same names,
 * numbers, operators and pure builtins read again; not array elements); so
 * does the negation of an `if` that ends its branch (`if i < 1 or i >= n:
 * return`) for the statements after it.  A fact lasts until a statement
 * assigns what it reads, and a loop's body and condition start without the
 * facts about what the body assigns.  The indices (and call arguments)
 * proven there are marked by node (Cg.nn_node), so that `u[i - 1]` under
 * `if i > 0:` needs no wrap.  Both results are computed once per typed
 * function (Cg.nn_in). */
#include <stdint.h>
#include <string.h>

#include "cg.h"

#define LB_NONE INT64_MIN       /* no lower bound known */
#define LB_TOP INT64_MAX        /* no value seen yet (the optimistic start) */
#define LB_MAX ((int64_t)1 << 62)
#define WIDEN 8

/* what a guard says of an expression that is no variable (`i - k >= 0`) */
typedef struct Fact Fact;
struct Fact {
    Node *e;
    int64_t lb;
    Fact *next;
};

typedef struct {
    Cg *g;
    Inst *in;
    int64_t *lb;            /* by var id: the variable's lower bound */
    Fact *facts;            /* the guard pass: bounds of expressions, where they hold */
    int changed, pass;
    const int64_t *base;    /* the guard pass: the flow-insensitive bounds */
    unsigned char *node;    /* the guard pass: nodes proven >= 0, by id */
} Nn;

/* the builtins whose value is never negative */
static const unsigned char always_nonneg[BI_COUNT] = {
    [BI_THREADIDX] = 1, [BI_BLOCKIDX] = 1, [BI_BLOCKDIM] = 1, [BI_GRIDDIM] = 1,
    [BI_GRID] = 1, [BI_GRIDSIZE] = 1, [BI_LANEID] = 1, [BI_POPC] = 1, [BI_CLZ] = 1,
    [BI_FFS] = 1, [BI_LEN] = 1, [BI_ABS] = 1,
};

/* the builtins whose calls read nothing that changes: a call read twice
 * gives the same value */
static const unsigned char pure_call[BI_COUNT] = {
    [BI_THREADIDX] = 1, [BI_BLOCKIDX] = 1, [BI_BLOCKDIM] = 1, [BI_GRIDDIM] = 1,
    [BI_GRID] = 1, [BI_GRIDSIZE] = 1, [BI_LANEID] = 1, [BI_LEN] = 1, [BI_MIN] = 1,
    [BI_MAX] = 1, [BI_ABS] = 1,
};

/* ---- bounds ---- */

static int64_t
clamp(int64_t v)
{
    return v > LB_MAX ? LB_MAX : v < -LB_MAX ? -LB_MAX : v;
}

static int64_t
lb_add(int64_t a, int64_t b)
{
    if (a == LB_NONE || b == LB_NONE) {
        return LB_NONE;
    }
    return a == LB_TOP || b == LB_TOP ? LB_TOP : clamp(a + b);
}

static int64_t
lb_min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t
lb_max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* 0 where both bounds are >= 0, else none: products, quotients, ... */
static int64_t
both_nonneg(int64_t a, int64_t b)
{
    return a >= 0 && b >= 0 ? 0 : LB_NONE;
}

static const Type *
ntype(Nn *s, Node *n)
{
    const Type *t = s->in->ntype[n->id];
    return t ? cj_concrete(t) : NULL;
}

/* integer and boolean scalars: the values this analysis bounds */
static char
int_kind(const Type *t)
{
    if (!t || t->kind != TY_SCALAR) {
        return 0;
    }
    char k = cj_dtypes[t->dtype].kind;
    return k == 'i' || k == 'u' || k == 'b' ? k : 0;
}

static int
var_ok(Nn *s, const Var *v)
{
    return v && v->id >= 0 && v->id < s->in->fn->nvars;
}

static int64_t bound(Nn *s, Node *n);

static int64_t
least(Nn *s, Node **list, int n)
{
    int64_t r = n > 0 ? LB_TOP : LB_NONE;
    for (int i = 0; i < n; i++) {
        r = lb_min(r, list[i] ? bound(s, list[i]) : LB_NONE);
    }
    return r;
}

static int64_t
greatest(Nn *s, Node **list, int n)
{
    int64_t r = LB_NONE;
    for (int i = 0; i < n; i++) {
        r = lb_max(r, list[i] ? bound(s, list[i]) : LB_NONE);
    }
    return r;
}

/* x op y of integers */
static int64_t
binop_bound(Nn *s, Node *n)
{
    int64_t c;
    switch ((OpKind)n->op) {
    case OP_ADD:
        return lb_add(bound(s, n->a), bound(s, n->b));
    case OP_SUB:
        return cj_fold_int(n->b, &c) ? lb_add(bound(s, n->a), clamp(-c)) : LB_NONE;
    case OP_MUL: case OP_FLOORDIV: case OP_BITXOR:
        return both_nonneg(bound(s, n->a), bound(s, n->b));
    case OP_LSHIFT: case OP_BITOR:
        return both_nonneg(bound(s, n->a), bound(s, n->b)) == 0 ? bound(s, n->a) : LB_NONE;
    case OP_POW: case OP_RSHIFT:
        return bound(s, n->a) >= 0 ? 0 : LB_NONE;
    case OP_BITAND:
        return bound(s, n->a) >= 0 || bound(s, n->b) >= 0 ? 0 : LB_NONE;
    case OP_MOD:
        return bound(s, n->b) >= 0 ? 0 : LB_NONE;  /* Python's %: the divisor's sign */
    case OP_DIV: case OP_MATMUL:
        return LB_NONE;
    case OP_NEG: case OP_POS: case OP_INVERT: case OP_NOT: case OP_EQ: case OP_NE: case OP_LT:
    case OP_LE: case OP_GT: case OP_GE: case OP_IS: case OP_ISNOT: case OP_IN: case OP_NOTIN:
    case OP_AND: case OP_OR:
        break;
    }
    return LB_NONE;
}

/* int(x), np.int32(x): x's bound where the cast keeps its sign (an
 * unsigned value into a signed type only if wider) */
static int64_t
cast_bound(Nn *s, Node *n)
{
    if (n->n < 1) {
        return 0;       /* np.int32(): zero */
    }
    const Type *from = ntype(s, n->list[0]), *to = ntype(s, n);
    if (!int_kind(from) || !int_kind(to)) {
        return LB_NONE;
    }
    if (int_kind(from) == 'u' && int_kind(to) == 'i'
        && cj_dtypes[to->dtype].size <= cj_dtypes[from->dtype].size) {
        return LB_NONE;
    }
    return bound(s, n->list[0]);
}

static int64_t
call_bound(Nn *s, Node *n)
{
    if (always_nonneg[n->op]) {
        return 0;
    }
    if (n->op == BI_MIN) {
        return least(s, n->list, n->n);         /* min(a, b), min(t) */
    }
    if (n->op == BI_MAX) {
        return greatest(s, n->list, n->n);
    }
    if (n->op == BI_SUM) {
        return least(s, n->list, n->n) >= 0 ? 0 : LB_NONE;
    }
    return n->op == BI_INT || n->op == BI_CAST ? cast_bound(s, n) : LB_NONE;
}

static int64_t
attr_bound(Node *n)
{
    switch ((AttrKind)n->op) {
    case AT_SHAPE: case AT_SIZE: case AT_NDIM: case AT_DTYPE_ITEMSIZE: case AT_NBYTES:
    case AT_ADDRESS:
        return 0;
    case AT_STRIDES: case AT_REAL: case AT_IMAG: case AT_T: case AT_X: case AT_Y: case AT_Z:
    case AT_FIELD:
        break;
    }
    return LB_NONE;
}

/* the same expression, read twice: names, numbers, operators, attributes,
 * builtins without side effects (no call of a function: it may differ) */
static int
same_expr(const Node *a, const Node *b)
{
    int64_t x, y;
    if (!a || !b) {
        return a == b;
    }
    if (a->kind != b->kind || a->op != b->op || a->n != b->n) {
        return 0;
    }
    if (a->kind == ND_CONST) {
        return cj_fold_int(a, &x) && cj_fold_int(b, &y) && x == y;
    }
    if (a->kind == ND_VAR) {
        return a->var == b->var;
    }
    if (a->kind == ND_CALL && !pure_call[a->op]) {
        return 0;
    }
    if (a->kind == ND_INDEX && a->a->kind != ND_ATTR) {
        return 0;       /* an element may be stored between the two reads */
    }
    if (a->kind != ND_BINOP && a->kind != ND_UNARY && a->kind != ND_ATTR
        && a->kind != ND_INDEX && a->kind != ND_CALL) {
        return 0;
    }
    if (a->axis != b->axis || !same_expr(a->a, b->a) || !same_expr(a->b, b->b)) {
        return 0;
    }
    for (int i = 0; i < a->n; i++) {
        if (!same_expr(a->list[i], b->list[i])) {
            return 0;
        }
    }
    return a->kind != ND_ATTR || a->str == b->str || (a->str && b->str && !strcmp(a->str, b->str));
}

static int64_t form_bound(Nn *s, Node *n);

/* a lower bound of n's value (under the current bounds of the variables,
 * and what guards say of expressions) */
static int64_t
bound(Nn *s, Node *n)
{
    int64_t b = form_bound(s, n);
    for (const Fact *f = s->facts; f; f = f->next) {
        if (same_expr(n, f->e)) {
            b = lb_max(b, f->lb);
        }
    }
    return b;
}

/* n's bound by its form */
static int64_t
form_bound(Nn *s, Node *n)
{
    int64_t v;
    const Type *t = ntype(s, n);
    int tuple = t && t->kind == TY_TUPLE;
    if (cj_fold_int(n, &v)) {
        return clamp(v);
    }
    if (!int_kind(t) && !tuple) {
        return LB_NONE;
    }
    int64_t floor = int_kind(t) == 'u' || int_kind(t) == 'b' ? 0 : LB_NONE;
    switch (n->kind) {
    case ND_CONST:
        return lb_max(floor, n->cval.kind == CK_INT ? clamp(n->cval.i) : LB_NONE);
    case ND_VAR:
        return lb_max(floor, var_ok(s, n->var) ? s->lb[n->var->id] : LB_NONE);
    case ND_BINOP:
        return lb_max(floor, binop_bound(s, n));
    case ND_UNARY:
        return lb_max(floor, n->op == OP_POS ? bound(s, n->a) : LB_NONE);
    case ND_COMPARE:
        return 0;       /* a bool */
    case ND_BOOLOP:
        return lb_max(floor, least(s, n->list, n->n));      /* `a or b` is one of them */
    case ND_IFEXP:
        return lb_max(floor, lb_min(bound(s, n->b), bound(s, n->c)));
    case ND_INDEX:
        /* an item of a tuple (a.shape[k], cuda.grid(2)[0]): the tuple's bound */
        return lb_max(floor, ntype(s, n->a) && ntype(s, n->a)->kind == TY_TUPLE
                             ? bound(s, n->a) : LB_NONE);
    case ND_ATTR:
        return lb_max(floor, attr_bound(n));
    case ND_CALL:
        return lb_max(floor, call_bound(s, n));
    case ND_TUPLE:
        return least(s, n->list, n->n);
    case ND_SLICE:
        return LB_NONE;
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_IF: case ND_WHILE: case ND_FOR: case ND_BREAK:
    case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT: case ND_EXPR:
        break;
    }
    return floor;
}

/* ---- the variables: a fixed point over the assignments ---- */

/* v may hold a value whose bound is b */
static void
lower(Nn *s, Var *v, int64_t b)
{
    if (!var_ok(s, v) || b >= s->lb[v->id]) {
        return;
    }
    s->lb[v->id] = s->pass > WIDEN ? LB_NONE : b;
    s->changed = 1;
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
lower_all(Nn *s, Node *target, int64_t b)
{
    if (target->kind == ND_VAR) {
        lower(s, target->var, b);
    } else if (target->kind == ND_TUPLE) {
        for (int i = 0; i < target->n; i++) {
            lower_all(s, target->list[i], b);
        }
    }
}

/* target = value: a tuple target takes a tuple written out item by item,
 * any other tuple's least bound for each of its names */
static void
assign_to(Nn *s, Node *target, Node *value)
{
    if (target->kind == ND_TUPLE && value->kind == ND_TUPLE && value->n == target->n) {
        for (int i = 0; i < target->n; i++) {
            assign_to(s, target->list[i], value->list[i]);
        }
        return;
    }
    int64_t b = bound(s, value);
    if (target->kind == ND_VAR && var_ok(s, target->var)) {
        const Type *to = s->in->vtype[target->var->id];
        if (!to || !keeps_sign(ntype(s, value), cj_concrete(to))) {
            b = LB_NONE;
        }
    }
    lower_all(s, target, b);
}

/* for v in range(start, stop, step): counting up (a positive constant step,
 * or a non-negative one such as cuda.gridsize(1)) v starts at start; down
 * by a constant step it stays above stop */
static int64_t
range_bound(Nn *s, Node *n)
{
    int64_t step = 1;
    if (n->c && !cj_fold_int(n->c, &step)) {
        return bound(s, n->c) >= 0 ? (n->a ? bound(s, n->a) : 0) : LB_NONE;
    }
    if (step > 0) {
        return n->a ? bound(s, n->a) : 0;
    }
    return step < 0 ? lb_add(bound(s, n->b), 1) : LB_NONE;
}

static void stmt(Nn *s, Node *n);

static void
stmts(Nn *s, Node **list, int n)
{
    for (int i = 0; list && i < n; i++) {
        stmt(s, list[i]);
    }
}

/* one pass over a statement: lowers the bounds of what it assigns */
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
        lower(s, n->var, range_bound(s, n));
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
byref_args(Nn *s, Node *n)
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
            lower_all(s, n->list[i], LB_NONE);
        }
    }
    byref_args(s, n->a);
    byref_args(s, n->b);
    byref_args(s, n->c);
    for (int i = 0; n->list && i < n->n; i++) {
        byref_args(s, n->list[i]);
    }
    for (int i = 0; n->list2 && i < n->n2; i++) {
        byref_args(s, n->list2[i]);
    }
}

/* ---- guards: bounds that hold where a condition does ---- */

static int assigns(Node *n, const Var *v);

/* is v among an assignment's targets (a name, or one in a tuple)? */
static int
target_is(Node *t, const Var *v)
{
    if (t->kind == ND_VAR) {
        return t->var == v;
    }
    for (int i = 0; t->kind == ND_TUPLE && i < t->n; i++) {
        if (target_is(t->list[i], v)) {
            return 1;
        }
    }
    return 0;
}

/* does statement n (or one inside it) assign v: a target, a for, x op=? */
static int
assigns(Node *n, const Var *v)
{
    if (n->kind == ND_FOR && n->var == v) {
        return 1;
    }
    if (n->kind == ND_ASSIGN) {
        for (int i = 0; i < n->n; i++) {
            if (target_is(n->list[i], v)) {
                return 1;
            }
        }
        return 0;
    }
    if (n->kind == ND_AUGASSIGN) {
        return target_is(n->a, v);
    }
    if (n->kind != ND_IF && n->kind != ND_WHILE && n->kind != ND_FOR) {
        return 0;
    }
    for (int i = 0; n->list && i < n->n; i++) {
        if (assigns(n->list[i], v)) {
            return 1;
        }
    }
    for (int i = 0; n->list2 && i < n->n2; i++) {
        if (assigns(n->list2[i], v)) {
            return 1;
        }
    }
    return 0;
}

static int
region_assigns(Node **list, int n, const Var *v)
{
    for (int i = 0; list && i < n; i++) {
        if (assigns(list[i], v)) {
            return 1;
        }
    }
    return 0;
}

/* what holds at a point of the guard pass: the variables' bounds, and
 * facts about expressions */
typedef struct {
    const int64_t *lb;
    Fact *facts;
} Env;

static int64_t *
lb_copy(Nn *s, const int64_t *lb)
{
    int nv = s->in->fn->nvars;
    int64_t *e = cj_alloc(s->g->p->arena, sizeof(int64_t) * (size_t)(nv + 1));
    memcpy(e, lb, sizeof(int64_t) * (size_t)nv);
    return e;
}

/* does expression e read a variable the statements assign? */
static int
reads_assigned(Node *e, Node **list, int n)
{
    if (!e) {
        return 0;
    }
    if (e->kind == ND_VAR) {
        return region_assigns(list, n, e->var);
    }
    if (reads_assigned(e->a, list, n) || reads_assigned(e->b, list, n)
        || reads_assigned(e->c, list, n)) {
        return 1;
    }
    for (int i = 0; e->list && i < e->n; i++) {
        if (reads_assigned(e->list[i], list, n)) {
            return 1;
        }
    }
    return 0;
}

/* env less its facts about what the statements assign: the variables'
 * bounds fall back to the flow-insensitive ones */
static Env
forget(Nn *s, Env env, Node **list, int n)
{
    int64_t *e = NULL;
    for (int i = 0; i < s->in->fn->nvars; i++) {
        if (env.lb[i] != s->base[i] && region_assigns(list, n, s->in->fn->vars[i])) {
            e = e ? e : lb_copy(s, env.lb);
            e[i] = s->base[i];
        }
    }
    Fact *kept = NULL, **tail = &kept;
    int dropped = 0;
    for (Fact *f = env.facts; f; f = f->next) {
        if (reads_assigned(f->e, list, n)) {
            dropped = 1;
            continue;
        }
        Fact *c = cj_alloc(s->g->p->arena, sizeof *c);
        *c = *f;
        c->next = NULL;
        *tail = c;
        tail = &c->next;
    }
    return (Env){e ? e : env.lb, dropped ? kept : env.facts};
}

/* e >= b holds: a variable's bound is raised, any other expression's
 * bound recorded */
static void
at_least(Nn *s, int64_t *lb, Fact **facts, Node *e, int64_t b)
{
    if (b == LB_NONE || !int_kind(ntype(s, e))) {
        return;
    }
    if (e->kind == ND_VAR && var_ok(s, e->var)) {
        lb[e->var->id] = lb_max(lb[e->var->id], b);
        return;
    }
    Fact *f = cj_alloc(s->g->p->arena, sizeof *f);
    *f = (Fact){e, b, *facts};
    *facts = f;
}

/* x OP y is true */
static void
compare_fact(Nn *s, int64_t *lb, Fact **facts, int op, Node *x, Node *y)
{
    const int64_t *saved = s->lb;
    Fact *saved_f = s->facts;
    s->lb = lb;
    s->facts = *facts;
    int64_t bx = bound(s, x), by = bound(s, y), cx, cy;
    s->lb = (int64_t *)saved;
    s->facts = saved_f;
    if (op == OP_GT || op == OP_GE || op == OP_EQ) {
        at_least(s, lb, facts, x, op == OP_GT ? lb_add(by, 1) : by);
    }
    if (op == OP_LT || op == OP_LE || op == OP_EQ) {
        at_least(s, lb, facts, y, op == OP_LT ? lb_add(bx, 1) : bx);
    }
    /* i != 0 where i >= 0: i >= 1 */
    if (op == OP_NE && cj_fold_int(y, &cy) && cy == bx) {
        at_least(s, lb, facts, x, lb_add(cy, 1));
    }
    if (op == OP_NE && cj_fold_int(x, &cx) && cx == by) {
        at_least(s, lb, facts, y, lb_add(cx, 1));
    }
}

static int
negate(int op)
{
    switch (op) {
    case OP_LT: return OP_GE;
    case OP_LE: return OP_GT;
    case OP_GT: return OP_LE;
    case OP_GE: return OP_LT;
    case OP_EQ: return OP_NE;
    case OP_NE: return OP_EQ;
    }
    return -1;
}

/* the bounds that hold where `cond` is `truth` */
static void
facts(Nn *s, int64_t *lb, Fact **fs, Node *cond, int truth)
{
    if (cond->kind == ND_UNARY && cond->op == OP_NOT) {
        facts(s, lb, fs, cond->a, !truth);
    } else if (cond->kind == ND_BOOLOP && (cond->op == OP_AND) == truth) {
        for (int i = 0; i < cond->n; i++) {     /* a and b true; a or b false */
            facts(s, lb, fs, cond->list[i], truth);
        }
    } else if (cond->kind == ND_COMPARE && truth) {
        for (int i = 0; i + 1 < cond->n; i++) {
            compare_fact(s, lb, fs, cond->ops[i], cond->list[i], cond->list[i + 1]);
        }
    } else if (cond->kind == ND_COMPARE && cond->n == 2 && negate(cond->ops[0]) >= 0) {
        compare_fact(s, lb, fs, negate(cond->ops[0]), cond->list[0], cond->list[1]);
    }
}

/* env raised by what holds where cond is truth */
static Env
guarded(Nn *s, Env env, Node *cond, int truth)
{
    int64_t *lb = lb_copy(s, env.lb);
    Fact *fs = env.facts;
    facts(s, lb, &fs, cond, truth);
    return (Env){lb, fs};
}

static void
prove(Nn *s, Env env, Node *ix)
{
    if (!ix || ix->id < 0 || ix->id >= s->in->fn->nnodes) {
        return;
    }
    int64_t *saved = s->lb;
    s->lb = (int64_t *)env.lb;
    s->facts = env.facts;
    if (bound(s, ix) >= 0) {
        s->node[ix->id] = 1;
    }
    s->lb = saved;
    s->facts = NULL;
}

/* the indices and arguments in expression n proven >= 0 under env; the
 * later operands of `and` / `or` and the sides of a conditional under
 * what holds where they are evaluated */
static void
mark(Nn *s, Env env, Node *n)
{
    if (!n) {
        return;
    }
    if (n->kind == ND_BOOLOP) {
        for (int i = 0; i < n->n; i++) {
            mark(s, env, n->list[i]);
            env = guarded(s, env, n->list[i], n->op == OP_AND);
        }
        return;
    }
    if (n->kind == ND_IFEXP) {
        mark(s, env, n->a);
        mark(s, guarded(s, env, n->a, 1), n->b);
        mark(s, guarded(s, env, n->a, 0), n->c);
        return;
    }
    for (int i = 0; (n->kind == ND_INDEX || n->kind == ND_CALL) && n->list && i < n->n; i++) {
        Node *ix = n->list[i];
        prove(s, env, ix);
        for (int k = 0; ix->kind == ND_TUPLE && k < ix->n; k++) {
            prove(s, env, ix->list[k]);
        }
    }
    mark(s, env, n->a);
    mark(s, env, n->b);
    mark(s, env, n->c);
    for (int i = 0; n->list && i < n->n; i++) {
        mark(s, env, n->list[i]);
    }
    for (int i = 0; n->list2 && i < n->n2; i++) {
        mark(s, env, n->list2[i]);
    }
}

static void guard_stmts(Nn *s, Env env, Node **list, int n);

/* a branch that ends in return, break, continue or raise: what follows
 * the `if` runs only where its condition was false */
static int
ends_branch(Node **list, int n)
{
    if (n == 0) {
        return 0;
    }
    Node *last = list[n - 1];
    return last->kind == ND_RETURN || last->kind == ND_BREAK || last->kind == ND_CONTINUE
           || (last->kind == ND_ASSERT && last->op == ND_RAISE_OP);
}

/* a loop's body (and its condition) runs again after the body assigned:
 * the facts about what the body assigns do not hold there */
static Env
loop_env(Nn *s, Env env, Node *n)
{
    env = forget(s, env, n->list, n->n);
    if (n->kind == ND_FOR && var_ok(s, n->var)) {
        Node target = {.kind = ND_VAR, .var = n->var}, *targets[1] = {&target};
        Node own = {.kind = ND_ASSIGN, .list = targets, .n = 1}, *stmt1[1] = {&own};
        env = forget(s, env, stmt1, 1);     /* the target, given new values */
    }
    return env;
}

/* the guard pass over one statement: its indices marked under env */
static void
guard_stmt(Nn *s, Env env, Node *n)
{
    switch (n->kind) {
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_RETURN: case ND_ASSERT: case ND_EXPR:
        mark(s, env, n);
        return;
    case ND_IF:
        mark(s, env, n->a);
        guard_stmts(s, guarded(s, env, n->a, 1), n->list, n->n);
        guard_stmts(s, guarded(s, env, n->a, 0), n->list2, n->n2);
        return;
    case ND_WHILE:
        env = loop_env(s, env, n);
        mark(s, env, n->a);
        guard_stmts(s, guarded(s, env, n->a, 1), n->list, n->n);
        guard_stmts(s, guarded(s, env, n->a, 0), n->list2, n->n2);
        return;
    case ND_FOR:
        mark(s, env, n->a);
        mark(s, env, n->b);
        mark(s, env, n->c);
        env = loop_env(s, env, n);
        guard_stmts(s, env, n->list, n->n);
        guard_stmts(s, env, n->list2, n->n2);
        return;
    case ND_BREAK: case ND_CONTINUE: case ND_PASS:
        return;
    case ND_CONST: case ND_VAR: case ND_BINOP: case ND_UNARY: case ND_COMPARE:
    case ND_BOOLOP: case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL:
    case ND_TUPLE: case ND_SLICE:
        break;
    }
    cj_unreachable(s->g->p->try_, "expression as statement");
}

/* statements in order: a fact lasts until a statement assigns what it is
 * about; after `if cond: ... return`, cond is false */
static void
guard_stmts(Nn *s, Env env, Node **list, int n)
{
    for (int i = 0; list && i < n; i++) {
        Node *st = list[i];
        guard_stmt(s, env, st);
        if (st->kind == ND_IF && st->n2 == 0 && ends_branch(st->list, st->n)) {
            env = guarded(s, env, st->a, 0);
        } else {
            env = forget(s, env, list + i, 1);
        }
    }
}

/* ---- the analysis of g->in ---- */

static void
analyse(Cg *g)
{
    Func *fn = g->in->fn;
    Nn s = {g, g->in, cj_alloc(g->p->arena, sizeof(int64_t) * ((size_t)fn->nvars + 1)), NULL,
            0, 0, NULL, cj_alloc(g->p->arena, (size_t)fn->nnodes + 1)};
    for (int i = 0; i < fn->nvars; i++) {
        const Type *t = g->in->vtype[i] ? cj_concrete(g->in->vtype[i]) : NULL;
        int unsig = int_kind(t) == 'u' || int_kind(t) == 'b';
        s.lb[i] = fn->vars[i]->is_param ? (unsig ? 0 : LB_NONE)
                  : fn->vars[i]->maybe_unset ? 0 : LB_TOP;
    }
    for (int i = 0; i < fn->nbody; i++) {
        byref_args(&s, fn->body[i]);
    }
    do {
        s.changed = 0;
        s.pass++;
        stmts(&s, fn->body, fn->nbody);
    } while (s.changed);
    for (int i = 0; i < fn->nvars; i++) {
        s.lb[i] = s.lb[i] == LB_TOP ? LB_NONE : s.lb[i];     /* never assigned */
    }
    s.base = s.lb;
    guard_stmts(&s, (Env){s.lb, NULL}, fn->body, fn->nbody);
    g->nn_in = g->in;
    g->nn_lb = s.lb;
    g->nn_node = s.node;
}

int
cg_nonneg(Cg *g, Node *n)
{
    if (g->nn_in != g->in) {
        analyse(g);
    }
    if (n->id >= 0 && n->id < g->in->fn->nnodes && g->nn_node[n->id]) {
        return 1;
    }
    Nn s = {g, g->in, g->nn_lb, NULL, 0, 0, g->nn_lb, g->nn_node};
    return bound(&s, n) >= 0;
}
