/* fold.c - integer arithmetic on constants, done at compile time. */
#include "cj.h"

/* An integer known at compile time: a constant, or arithmetic on constants
 * (TILE + 1, 2 * N, -1, N // 2). */
int
cj_fold_int(const Node *c, int64_t *v)
{
    int64_t x, y;
    if (c->kind == ND_CONST && (c->cval.kind == CK_INT || c->cval.kind == CK_UINT
                                || c->cval.kind == CK_BOOL)) {
        *v = c->cval.i;
        return 1;
    }
    if (c->kind == ND_UNARY && (c->op == OP_NEG || c->op == OP_POS) && cj_fold_int(c->a, &x)) {
        *v = c->op == OP_NEG ? -x : x;
        return 1;
    }
    if (c->kind != ND_BINOP || !cj_fold_int(c->a, &x) || !cj_fold_int(c->b, &y)) {
        return 0;
    }
    switch (c->op) {
    case OP_ADD: *v = x + y; return 1;
    case OP_SUB: *v = x - y; return 1;
    case OP_MUL: *v = x * y; return 1;
    case OP_FLOORDIV:
    case OP_MOD:
        if (y == 0) {
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
    case OP_LSHIFT: *v = y >= 0 && y < 63 ? x << y : 0; return y >= 0 && y < 63;
    case OP_RSHIFT: *v = y >= 0 && y < 63 ? x >> y : 0; return y >= 0 && y < 63;
    case OP_POW:
        if (y < 0 || y > 62) {
            return 0;
        }
        *v = 1;
        while (y--) {
            *v *= x;
        }
        return 1;
    default:
        return 0;
    }
}

