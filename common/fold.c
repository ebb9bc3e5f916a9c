/* fold.c - integer arithmetic on constants, done at compile time. */
#include "cj.h"

/* x << y where the result fits (Python's value); 0 where it does not */
static int
lshift(int64_t x, int y, int64_t *v)
{
    int64_t r = (int64_t)((uint64_t)x << y);
    if ((r >> y) != x) {
        return 0;
    }
    *v = r;
    return 1;
}

/* An integer known at compile time: a constant, or arithmetic on constants
 * (TILE + 1, 2 * N, -1, N // 2); 0 (not known) where the arithmetic would
 * leave int64. */
int
cj_fold_int(const Node *c, int64_t *v)
{
    int64_t x, y;
    if (c->kind == ND_CONST && c->cval.kind == CK_UINT) {
        *v = (int64_t)c->cval.u;        /* 2**63 and up: no int64 */
        return c->cval.u <= INT64_MAX;
    }
    if (c->kind == ND_CONST && (c->cval.kind == CK_INT || c->cval.kind == CK_BOOL)) {
        *v = c->cval.i;
        return 1;
    }
    if (c->kind == ND_UNARY && (c->op == OP_NEG || c->op == OP_POS) && cj_fold_int(c->a, &x)) {
        if (c->op == OP_NEG && x == INT64_MIN) {
            return 0;
        }
        *v = c->op == OP_NEG ? -x : x;
        return 1;
    }
    if (c->kind != ND_BINOP || !cj_fold_int(c->a, &x) || !cj_fold_int(c->b, &y)) {
        return 0;
    }
    switch (c->op) {
    case OP_ADD: return !__builtin_add_overflow(x, y, v);
    case OP_SUB: return !__builtin_sub_overflow(x, y, v);
    case OP_MUL: return !__builtin_mul_overflow(x, y, v);
    case OP_FLOORDIV:
    case OP_MOD:
        if (y == 0 || (x == INT64_MIN && y == -1)) {
            return 0;
        }
        {
            int64_t q = x / y, r = x % y;
            if (r != 0 && ((r < 0) != (y < 0))) {
                q--;
                r += y;
            }
            *v = c->op == OP_MOD ? r : q;
        }
        return 1;
    case OP_LSHIFT:
        return y >= 0 && y < 63 && lshift(x, (int)y, v);
    case OP_RSHIFT: *v = y >= 0 && y < 63 ? x >> y : 0; return y >= 0 && y < 63;
    case OP_POW:
        if (y < 0 || y > 62) {
            return 0;
        }
        *v = 1;
        while (y--) {
            if (__builtin_mul_overflow(*v, x, v)) {
                return 0;
            }
        }
        return 1;
    default:
        return 0;
    }
}


/* a number known at compile time, as a double (ints exactly up to 2**53) */
static int
fold_num(const Node *c, double *d)
{
    int64_t i;
    if (cj_fold_int(c, &i)) {
        *d = c->kind == ND_CONST && c->cval.kind == CK_UINT ? (double)c->cval.u : (double)i;
        return 1;
    }
    if (c->kind == ND_CONST && c->cval.kind == CK_FLOAT) {
        *d = c->cval.f;
        return 1;
    }
    if (c->kind == ND_UNARY && c->op == OP_NEG && fold_num(c->a, d)) {
        *d = -*d;
        return 1;
    }
    return 0;
}

static int
is_none(const Node *n)
{
    return n->kind == ND_CONST && n->cval.kind == CK_NONE;
}

/* x == None, None is not x, ... where both sides are constants and one is
 * None (cupyx.jit's tests spell `if unroll == None:` on a closure value):
 * equal, and identical, exactly when both are None */
static int
compare_none(int op, const Node *a, const Node *b, int *v)
{
    if (a->kind != ND_CONST || b->kind != ND_CONST || !(is_none(a) || is_none(b))) {
        return 0;
    }
    int same = is_none(a) && is_none(b);
    if (op == OP_EQ || op == OP_IS) {
        *v = same;
        return 1;
    }
    if (op == OP_NE || op == OP_ISNOT) {
        *v = !same;
        return 1;
    }
    return 0;
}

static int
is_bool(const Node *n)
{
    return n->kind == ND_CONST && n->cval.kind == CK_BOOL;
}

/* flag is True, flag is not False of constant booleans (a closure's flag):
 * identity of True and False is their equality; a bool is never an int */
static int
compare_bools(int op, const Node *a, const Node *b, int *v)
{
    if ((op != OP_IS && op != OP_ISNOT) || a->kind != ND_CONST || b->kind != ND_CONST
        || !(is_bool(a) || is_bool(b))) {
        return 0;
    }
    int same = is_bool(a) && is_bool(b) && (a->cval.i != 0) == (b->cval.i != 0);
    *v = op == OP_IS ? same : !same;
    return 1;
}

/* x op y for one link of a comparison chain of folded numbers (or of a
 * constant and None) */
static int
compare_nums(int op, const Node *a, const Node *b, int *v)
{
    if (compare_none(op, a, b, v)) {
        return 1;
    }
    if (compare_bools(op, a, b, v)) {
        return 1;
    }
    int64_t i, j;
    double x, y;
    int ints = cj_fold_int(a, &i) && cj_fold_int(b, &j);
    if (!ints && (!fold_num(a, &x) || !fold_num(b, &y))) {
        return 0;
    }
    int c = ints ? (i > j) - (i < j) : (x > y) - (x < y);
    int unordered = !ints && !(x == y) && !(x < y) && !(x > y);     /* a NaN */
    switch (op) {
    case OP_EQ: *v = !unordered && c == 0; return 1;
    case OP_NE: *v = unordered || c != 0; return 1;
    case OP_LT: *v = !unordered && c < 0; return 1;
    case OP_LE: *v = !unordered && c <= 0; return 1;
    case OP_GT: *v = !unordered && c > 0; return 1;
    case OP_GE: *v = !unordered && c >= 0; return 1;
    default: return 0;      /* is, in: never folded */
    }
}

/* The truth of a condition known at compile time: True, 0, None, N > 2,
 * not DEBUG, A and B < 3 (constants and closure or global values folded in);
 * 0 if it is not one.  `if` on such a condition compiles one branch only. */
int
cj_fold_truth(const Node *c, int *v)
{
    double d;
    if (c->kind == ND_CONST && c->cval.kind == CK_NONE) {
        *v = 0;
        return 1;
    }
    if (fold_num(c, &d)) {
        *v = d != 0;
        return 1;
    }
    if (c->kind == ND_UNARY && c->op == OP_NOT && cj_fold_truth(c->a, v)) {
        *v = !*v;
        return 1;
    }
    if (c->kind == ND_BOOLOP) {
        int and = c->op == OP_AND;
        for (int i = 0; i < c->n; i++) {
            if (!cj_fold_truth(c->list[i], v)) {
                return 0;
            }
        }
        for (int i = 0; i < c->n; i++) {
            cj_fold_truth(c->list[i], v);
            if (*v != and) {
                return 1;       /* the first false of an and, the first true of an or */
            }
        }
        return 1;
    }
    if (c->kind == ND_COMPARE) {
        for (int i = 0; i + 1 < c->n; i++) {
            if (!compare_nums(c->ops[i], c->list[i], c->list[i + 1], v)) {
                return 0;
            }
            if (!*v) {
                return 1;
            }
        }
        return 1;
    }
    return 0;
}
