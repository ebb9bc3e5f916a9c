/* expr.c - CUDA C++ for expressions, printed with C++ precedence and
 * parenthesised only where it needs them (as CPython's ast_unparse.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

const Type *
cg_type(Cg *g, Node *n)
{
    const Type *t = g->in->ntype[n->id];
    return t ? cj_concrete(t) : cj_void();
}

void
cg_open(Cg *g, int prec, int need)
{
    if (prec > need) {
        buf_putc(g->out, '(');
    }
}

void
cg_close(Cg *g, int prec, int need)
{
    if (prec > need) {
        buf_putc(g->out, ')');
    }
}

static const char *
idx_ctype(Cg *g)
{
    return g->p->idx32 ? "int" : "long long";
}

static int
is_simple(Node *n)
{
    return n->kind == ND_VAR || n->kind == ND_CONST;
}

/* ---- literals ---- */

static void
float_lit(Cg *g, double v, int single, int prec)
{
    char s[64];
    if (single && isfinite(v)) {
        /* the float the constant rounds to, as NumPy's cast gives it: past the
         * midpoint above FLT_MAX an infinity, a tiny one 0 (NVRTC rejects a
         * float literal out of range) */
        v = fabs(v) >= 0x1.ffffffp127 ? copysign(INFINITY, v) : (double)(float)v;
    }
    if (isnan(v) || isinf(v)) {
        g->p->features |= FEAT_INFNAN;
    }
    if (isnan(v)) {
        S(single ? "CJ_NAN_F" : "CJ_NAN");
        return;
    }
    if (isinf(v)) {
        cg_open(g, prec, PR_UNARY);
        P("%s%s", v < 0 ? "-" : "", single ? "CJ_INF_F" : "CJ_INF");
        cg_close(g, prec, PR_UNARY);
        return;
    }
    snprintf(s, sizeof s, single ? "%.9g" : "%.17g", v);
    if (!strpbrk(s, ".eEn")) {
        strcat(s, ".0");
    }
    if (v < 0 || (v == 0 && signbit(v))) {
        cg_open(g, prec, PR_UNARY);
        P("%s%s", s, single ? "f" : "");
        cg_close(g, prec, PR_UNARY);
        return;
    }
    P("%s%s", s, single ? "f" : "");
}

static void
int_lit(Cg *g, const Const *c, DType dt, int prec)
{
    const DTypeInfo *d = &cj_dtypes[dt];
    int64_t i = c->kind == CK_FLOAT ? (int64_t)c->f : c->i;
    uint64_t u = c->kind == CK_UINT ? c->u : (uint64_t)i;
    if (d->size < 4) {
        cg_open(g, prec, PR_UNARY);
        P("(%s)%lld", d->ctype, (long long)i);
        cg_close(g, prec, PR_UNARY);
        return;
    }
    if (d->kind == 'u') {
        P("%llu%s", (unsigned long long)u, d->size == 8 ? "ULL" : "u");
        return;
    }
    if (i < 0) {
        cg_open(g, prec, PR_UNARY);
    }
    if (i == INT64_MIN) {
        S("(-9223372036854775807LL - 1)");
    } else if (d->size == 4 && i == INT32_MIN) {
        S("(-2147483647 - 1)");
    } else {
        P("%lld%s", (long long)i, d->size == 8 ? "LL" : "");
    }
    if (i < 0) {
        cg_close(g, prec, PR_UNARY);
    }
}

static double
const_real(const Const *c)
{
    switch (c->kind) {
    case CK_FLOAT:
    case CK_COMPLEX:
        return c->f;
    case CK_UINT:
        return (double)c->u;
    default:
        return (double)c->i;
    }
}

static void
literal_prec(Cg *g, const Const *c, const Type *to, int prec)
{
    DType dt = to->dtype;
    char k = cj_dtypes[dt].kind;
    double re = const_real(c);
    switch (k) {
    case 'b':
        S((c->kind == CK_COMPLEX ? (c->f != 0 || c->im != 0) : re != 0) ? "true" : "false");
        return;
    case 'i':
    case 'u':
        int_lit(g, c, dt, prec);
        return;
    case 'f':
        if (cj_is_half(dt)) {
            /* bfloat16 from the double: one rounding (float32's would be a second) */
            P("%s(", cj_dtypes[dt].ctype);
            float_lit(g, re, dt == DT_F16, PR_COMMA);
            S(")");
            return;
        }
        float_lit(g, re, dt == DT_F32, prec);
        return;
    case 'c':
        P("%s(", cj_dtypes[dt].ctype);
        float_lit(g, re, dt == DT_C64, PR_COMMA);
        S(", ");
        float_lit(g, c->kind == CK_COMPLEX ? c->im : 0.0, dt == DT_C64, PR_COMMA);
        S(")");
        return;
    default:
        break;
    }
    cj_unreachable(g->p->try_, "literal kind");
}

void
cg_literal(Cg *g, const Const *c, const Type *to)
{
    literal_prec(g, c, to, PR_PRIMARY);
}

/* ---- conversions ---- */

static int
numeric_const(Node *n)
{
    return n->kind == ND_CONST && (n->cval.kind == CK_INT || n->cval.kind == CK_UINT
                                   || n->cval.kind == CK_FLOAT || n->cval.kind == CK_COMPLEX
                                   || n->cval.kind == CK_BOOL);
}

/* a negated numeric constant: -2.5 is read as UnaryOp(USub, 2.5) */
static int
neg_const(Node *n, Const *out)
{
    if (n->kind == ND_UNARY && n->op == OP_NEG && numeric_const(n->a)
        && n->a->cval.kind != CK_BOOL) {
        *out = n->a->cval;
        out->i = -out->i;
        out->u = (uint64_t)out->i;
        out->f = -out->f;
        out->im = -out->im;
        if (out->kind == CK_UINT) {
            out->kind = CK_INT;
        }
        return 1;
    }
    return 0;
}

/* extents (a.size, a.shape[k], len(a)) are Python ints to the type rules
 * but already have the index type in the generated code */
static int
is_extent(Node *n)
{
    return (n->kind == ND_ATTR && n->op == AT_SIZE) || (n->kind == ND_CALL && n->op == BI_LEN)
           || (n->kind == ND_INDEX && n->a->kind == ND_ATTR && n->a->op == AT_SHAPE);
}

/* a tuple where a tuple of other item types is wanted (a device
 * function's returns meet in one type: `return max_iter, zr, zi` of a
 * constant max_iter returned as (int64, float64, float64)): the wanted
 * struct of the items, each converted; only a tuple written out or a
 * variable of numbers, whose items can be read once each */
static int
conv_tuple(Cg *g, Node *n, const Type *from, const Type *to)
{
    if (to->kind != TY_TUPLE || from->kind != TY_TUPLE || from->ntup != to->ntup
        || cj_type_eq(from, to) || (n->kind != ND_TUPLE && n->kind != ND_VAR)) {
        return 0;
    }
    for (int k = 0; k < to->ntup && n->kind == ND_VAR; k++) {
        if (to->tup[k]->kind != TY_SCALAR || from->tup[k]->kind != TY_SCALAR) {
            return 0;
        }
    }
    P("%s{", cg_ctype(g, to));
    for (int k = 0; k < to->ntup; k++) {
        S(k ? ", " : "");
        if (n->kind == ND_TUPLE) {
            cg_conv(g, n->list[k], to->tup[k], PR_COMMA);
        } else {
            P("(%s)", cj_dtypes[to->tup[k]->dtype].ctype);
            cg_tuple_elem(g, n, k, PR_UNARY);
        }
    }
    S("}");
    return 1;
}

void
cg_conv(Cg *g, Node *n, const Type *to, int prec)
{
    const Type *from = cg_type(g, n);
    if (is_extent(n)) {
        from = cj_scalar(g->p->idx32 ? DT_I32 : DT_I64);
    }
    Const nc;
    if (to && conv_tuple(g, n, from, to)) {
        return;
    }
    if (!to || to->kind != TY_SCALAR) {
        cg_expr(g, n, prec);
        return;
    }
    if (numeric_const(n)) {
        literal_prec(g, &n->cval, to, prec);
        return;
    }
    if (neg_const(n, &nc)) {
        literal_prec(g, &nc, to, prec);
        return;
    }
    if (from->kind != TY_SCALAR || from->dtype == to->dtype) {
        cg_expr(g, n, prec);
        return;
    }
    char fk = cj_dtypes[from->dtype].kind, tk = cj_dtypes[to->dtype].kind;
    if (tk == 'c') {
        P("%s(", cj_dtypes[to->dtype].ctype);
        cg_expr(g, n, PR_COMMA);
        S(")");
        return;
    }
    if (fk == 'c') {
        if (tk == 'b') {
            S("cj_truth(");
            cg_expr(g, n, PR_COMMA);
            S(")");
            return;
        }
        cj_unreachable(g->p->try_, "complex to real conversion");
    }
    cg_open(g, prec, PR_UNARY);
    const char *via = cg_float_int_via(from->dtype, to->dtype);
    P("(%s)", cj_dtypes[to->dtype].ctype);
    if (via) {
        P("(%s)", via);
    }
    cg_expr(g, n, PR_UNARY);
    cg_close(g, prec, PR_UNARY);
}

/* The integer type a float goes through on its way to dtype `to`, or NULL:
 * NumPy's casts on x86-64 convert to int32 (int64 for uint32) and then
 * truncate, so -1.0 gives uint8 255 and 300.0 gives 44, where the GPU's own
 * conversion would saturate. */
const char *
cg_float_int_via(DType from, DType to)
{
    char fk = cj_dtypes[from].kind, tk = cj_dtypes[to].kind;
    if (fk != 'f' || (tk != 'i' && tk != 'u')) {
        return NULL;
    }
    if (cj_dtypes[to].size < 4) {
        return "int";
    }
    return to == DT_U32 ? "long long" : NULL;
}

/* ---- operators ---- */

static const char *
binop_str(int op)
{
    switch (op) {
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_MOD: return "%";
    case OP_LSHIFT: return "<<";
    case OP_RSHIFT: return ">>";
    case OP_BITOR: return "|";
    case OP_BITXOR: return "^";
    case OP_BITAND: return "&";
    case OP_EQ: case OP_IS: return "==";      /* is: of booleans, of one Enum class's members */
    case OP_NE: case OP_ISNOT: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    default: return "?";
    }
}

static int
binop_prec(int op)
{
    switch (op) {
    case OP_ADD: case OP_SUB: return PR_ADD;
    case OP_MUL: case OP_DIV: case OP_MOD: return PR_MUL;
    case OP_LSHIFT: case OP_RSHIFT: return PR_SHIFT;
    case OP_BITOR: return PR_BOR;
    case OP_BITXOR: return PR_BXOR;
    case OP_BITAND: return PR_BAND;
    case OP_EQ: case OP_NE: case OP_IS: case OP_ISNOT: return PR_EQ;
    default: return PR_REL;
    }
}

static int
small_int(const Type *t)
{
    char k = cj_dtypes[t->dtype].kind;
    return t->kind == TY_SCALAR && (k == 'i' || k == 'u') && cj_dtypes[t->dtype].size < 4;
}

/* an operand of a helper template: a weak value that is no constant (a.ndim,
 * a.size, len(a)) is cast to the operation's type, so both deduce alike */
static void
helper_arg(Cg *g, Node *x, const Type *ct)
{
    Const c;
    const Type *xt = cg_type(g, x);
    if (ct && ct->kind == TY_SCALAR && (xt->kind == TY_WEAK_INT || xt->kind == TY_WEAK_FLOAT)
        && !numeric_const(x) && !neg_const(x, &c)) {
        P("(%s)(", cj_dtypes[ct->dtype].ctype);
        cg_expr(g, x, PR_COMMA);
        S(")");
        return;
    }
    cg_conv(g, x, ct, PR_COMMA);
}

static void
helper2(Cg *g, const char *fn, Node *x, Node *y, const Type *ct)
{
    P("%s(", fn);
    helper_arg(g, x, ct);
    S(", ");
    helper_arg(g, y, ct);
    S(")");
}

/* the cuda.fp16 function of a float16 +, -, * or comparison (the f16
 * instruction, as Numba emits), NULL for another operator */
static const char *
half_op(int op)
{
    switch (op) {
    case OP_ADD: return "cj_hadd";
    case OP_SUB: return "cj_hsub";
    case OP_MUL: return "cj_hmul";
    case OP_EQ: return "cj_heq";
    case OP_NE: return "cj_hne";
    case OP_LT: return "cj_hlt";
    case OP_LE: return "cj_hle";
    case OP_GT: return "cj_hgt";
    case OP_GE: return "cj_hge";
    default: return NULL;
    }
}

/* the cuda.bf16 function of a bfloat16 +, - or * (the bf16 instruction on
 * sm_90, as Numba emits), NULL for another operator */
static const char *
bf16_op(int op)
{
    switch (op) {
    case OP_ADD: return "cj_bf_hadd";
    case OP_SUB: return "cj_bf_hsub";
    case OP_MUL: return "cj_bf_hmul";
    default: return NULL;
    }
}

/* x op y computed in type ct, the result of type rt */
static void
infix(Cg *g, int op, Node *x, Node *y, const Type *ct, const Type *rt, int prec)
{
    if (ct->kind == TY_SCALAR && ct->dtype == DT_F16 && half_op(op)) {
        g->p->features |= FEAT_F16_OPS;
        helper2(g, half_op(op), x, y, ct);
        return;
    }
    if (ct->kind == TY_SCALAR && ct->dtype == DT_BF16 && bf16_op(op)) {
        g->p->features |= FEAT_BF16_OPS;
        helper2(g, bf16_op(op), x, y, ct);
        return;
    }
    int pr = binop_prec(op);
    int wrap = small_int(rt) || cj_is_half(rt->dtype)
               || (rt->dtype == DT_BOOL && pr >= PR_BOR && pr <= PR_BAND);
    int outer = prec;
    if (wrap) {
        cg_open(g, outer, PR_UNARY);
        P("(%s)(", cj_dtypes[rt->dtype].ctype);
        prec = PR_COMMA;
    }
    cg_open(g, prec, pr);
    cg_conv(g, x, ct, pr);
    P(" %s ", binop_str(op));
    cg_conv(g, y, ct, pr + 1);
    cg_close(g, prec, pr);
    if (wrap) {
        S(")");
        cg_close(g, outer, PR_UNARY);
    }
}

static int
const_int_value(Node *n, int64_t *v)
{
    if (n->kind == ND_CONST && (n->cval.kind == CK_INT || n->cval.kind == CK_UINT)) {
        *v = n->cval.i;
        return 1;
    }
    return 0;
}

static void
pow_expr(Cg *g, Node *n, const Type *rt, int prec)
{
    char k = cj_dtypes[rt->dtype].kind;
    int64_t e;
    int two = (const_int_value(n->b, &e) && e == 2)
              || (n->b->kind == ND_CONST && n->b->cval.kind == CK_FLOAT && n->b->cval.f == 2.0);
    if (two && is_simple(n->a) && k != 'b') {
        infix(g, OP_MUL, n->a, n->a, rt, rt, prec);
        return;
    }
    if (two && k != 'b' && !cj_is_half(rt->dtype)) {
        /* x ** 2 is x * x, exactly rounded (NumPy's fast path) */
        S("cj_sq(");
        cg_conv(g, n->a, rt, PR_COMMA);
        S(")");
        return;
    }
    if (k == 'i' || k == 'u' || k == 'b') {
        g->p->features |= FEAT_IPOW;
        if (small_int(rt)) {
            P("(%s)", cj_dtypes[rt->dtype].ctype);
        }
        helper2(g, "cj_ipow", n->a, n->b, rt->dtype == DT_I8 ? cj_scalar(DT_I8) : rt);
        return;
    }
    if (k == 'c') {
        helper2(g, "cj_cpow", n->a, n->b, rt);
        return;
    }
    if (cj_is_half(rt->dtype)) {
        P("%s(powf(", cj_dtypes[rt->dtype].ctype);
        cg_conv(g, n->a, cj_scalar(DT_F32), PR_COMMA);
        S(", ");
        cg_conv(g, n->b, cj_scalar(DT_F32), PR_COMMA);
        S("))");
        return;
    }
    helper2(g, rt->dtype == DT_F32 ? "powf" : "pow", n->a, n->b, rt);
}

/* t1 + t2 of tuples: T{t1.f0, ..., t2.f0, ...} */
static void
tuple_concat(Cg *g, Node *n, const Type *rt)
{
    const Type *x = cg_type(g, n->a);
    P("%s{", cg_ctype(g, rt));
    for (int i = 0; i < rt->ntup; i++) {
        P("%sstatic_cast<%s>(", i ? ", " : "", cg_ctype(g, cj_concrete(rt->tup[i])));
        cg_tuple_elem(g, i < x->ntup ? n->a : n->b, i < x->ntup ? i : i - x->ntup, PR_COMMA);
        S(")");
    }
    S("}");
}

static void
binop(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    if (rt->kind == TY_ITER || cg_type(g, n->a)->kind == TY_ITER) {
        cg_iter_binop(g, n, prec);
        return;
    }
    if (rt->kind == TY_TUPLE) {
        tuple_concat(g, n, rt);
        return;
    }
    char k = cj_dtypes[rt->dtype].kind;
    int64_t folded;
    if ((k == 'i' || k == 'u') && n->op != OP_DIV && cj_fold_int(n, &folded)) {
        Const c;
        memset(&c, 0, sizeof c);
        c.kind = CK_INT;
        c.i = folded;
        literal_prec(g, &c, rt, prec);
        return;
    }
    if (n->op == OP_DIV || n->op == OP_FLOORDIV || n->op == OP_MOD) {
        cg_div_check(g, n);
    }
    switch (n->op) {
    case OP_ADD:
    case OP_MUL:
        if (k == 'b') {
            cg_open(g, prec, n->op == OP_ADD ? PR_LOR : PR_LAND);
            cg_conv(g, n->a, rt, PR_LOR + 1);
            S(n->op == OP_ADD ? " || " : " && ");
            cg_conv(g, n->b, rt, PR_LOR + 1);
            cg_close(g, prec, n->op == OP_ADD ? PR_LOR : PR_LAND);
            return;
        }
        infix(g, n->op, n->a, n->b, rt, rt, prec);
        return;
    case OP_SUB:
    case OP_DIV:
    case OP_LSHIFT:
    case OP_RSHIFT:
    case OP_BITOR:
    case OP_BITXOR:
    case OP_BITAND:
        if (rt->dtype == DT_I8 && n->op != OP_DIV
            && (n->op == OP_LSHIFT || n->op == OP_RSHIFT)) {
            infix(g, n->op, n->a, n->b, rt, rt, prec);
            return;
        }
        infix(g, n->op, n->a, n->b, rt, rt, prec);
        return;
    case OP_FLOORDIV:
    case OP_MOD:
        g->p->features |= k == 'f' ? FEAT_FLOATDIV : FEAT_INTDIV;
        if (k == 'f') {
            if (cj_is_half(rt->dtype)) {
                P("%s(%s(", cj_dtypes[rt->dtype].ctype, n->op == OP_MOD ? "cj_modf" : "cj_floordivf");
                cg_conv(g, n->a, cj_scalar(DT_F32), PR_COMMA);
                S(", ");
                cg_conv(g, n->b, cj_scalar(DT_F32), PR_COMMA);
                S("))");
                return;
            }
            helper2(g, n->op == OP_MOD ? "cj_modf" : "cj_floordivf", n->a, n->b, rt);
            return;
        }
        if (small_int(rt)) {
            P("(%s)", cj_dtypes[rt->dtype].ctype);
        }
        helper2(g, n->op == OP_MOD ? "cj_mod" : "cj_floordiv", n->a, n->b, rt);
        return;
    case OP_POW:
        pow_expr(g, n, rt, prec);
        return;
    default:
        break;
    }
    cj_unreachable(g->p->try_, "binary operator");
}

/* truthiness of a number */
static void
truth(Cg *g, Node *n, int prec)
{
    const Type *t = cg_type(g, n);
    if (t->kind == TY_SCALAR && cj_dtypes[t->dtype].kind == 'c') {
        S("cj_truth(");
        cg_expr(g, n, PR_COMMA);
        S(")");
        return;
    }
    if (t->kind == TY_SCALAR && cj_is_half(t->dtype)) {
        cg_open(g, prec, PR_EQ);
        S("(float)");
        cg_expr(g, n, PR_UNARY);
        S(" != 0.0f");
        cg_close(g, prec, PR_EQ);
        return;
    }
    cg_expr(g, n, prec);
}

/* a blank at byte `at` of the buffer */
static void
insert_space(Buf *b, size_t at)
{
    buf_putc(b, ' ');
    memmove(b->s + at + 1, b->s + at, b->len - at - 1);
    b->s[at] = ' ';
}

/* -x or ~x of an integer narrower than its result (a cuda.jit kernel:
 * Numba's 64 bits): Numba negates or inverts in the operand's own width and
 * then widens ("before upcasting"), so -uint8(217) is 39 and -int8(-128) is
 * -128; an int32's negation wraps through unsigned (no C++ overflow).  0
 * where the operand is as wide as the result (or not an integer) */
static int
narrow_unary(Cg *g, Node *n, const Type *rt, int prec)
{
    const Type *ot = cg_type(g, n->a);
    char k = ot && ot->kind == TY_SCALAR ? cj_dtypes[ot->dtype].kind : 0;
    if ((k != 'i' && k != 'u') || rt->kind != TY_SCALAR
        || cj_dtypes[ot->dtype].size >= cj_dtypes[rt->dtype].size) {
        return 0;
    }
    const char *oc = cj_dtypes[ot->dtype].ctype;
    cg_open(g, prec, PR_UNARY);
    P("(%s)(%s)(", cj_dtypes[rt->dtype].ctype, oc);
    if (n->op == OP_NEG && k == 'i' && cj_dtypes[ot->dtype].size == 4) {
        S("0u - (unsigned)");
    } else {
        S(n->op == OP_NEG ? "-" : "~");
    }
    cg_conv(g, n->a, ot, PR_UNARY);
    S(")");
    cg_close(g, prec, PR_UNARY);
    return 1;
}

/* -x, ~x, !x, +x */
static void
unary(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    switch (n->op) {
    case OP_NOT:
        cg_open(g, prec, PR_UNARY);
        S("!");
        truth(g, n->a, PR_UNARY);
        cg_close(g, prec, PR_UNARY);
        return;
    case OP_POS:
        cg_conv(g, n->a, rt, prec);
        return;
    case OP_NEG:
    case OP_INVERT: {
        Const c;
        if (n->op == OP_NEG && neg_const(n, &c)) {
            literal_prec(g, &c, rt, prec);
            return;
        }
        if (n->op == OP_NEG && rt->kind == TY_SCALAR && rt->dtype == DT_F16) {
            g->p->features |= FEAT_F16_OPS;     /* neg.f16, as Numba */
            S("cj_hneg(");
            cg_conv(g, n->a, rt, PR_COMMA);
            S(")");
            return;
        }
        if (narrow_unary(g, n, rt, prec)) {
            return;
        }
        int wrap = small_int(rt) || cj_is_half(rt->dtype);
        const char *op = n->op == OP_NEG ? "-" : rt->dtype == DT_BOOL ? "!" : "~";
        cg_open(g, prec, PR_UNARY);
        if (wrap) {
            P("(%s)", cj_dtypes[rt->dtype].ctype);
            S("(");
        }
        S(op);
        size_t at = g->out->len;
        cg_conv(g, n->a, rt, PR_UNARY);
        if (op[0] == '-' && g->out->s[at] == '-') {
            insert_space(g->out, at);       /* - -x, not the decrement --x */
        }
        if (wrap) {
            S(")");
        }
        cg_close(g, prec, PR_UNARY);
        return;
    }
    default:
        break;
    }
    cj_unreachable(g->p->try_, "unary operator");
}

static int
int_fits(int64_t v, DType dt)
{
    const DTypeInfo *d = &cj_dtypes[dt];
    if (d->kind == 'u') {
        return v >= 0 && (d->size == 8 || v < ((int64_t)1 << (8 * d->size)));
    }
    return d->size == 8 || (v >= -((int64_t)1 << (8 * d->size - 1))
                            && v < ((int64_t)1 << (8 * d->size - 1)));
}

/* n reads a parameter holding a weak Python int (a value known at run time) */
static int
reads_weak_param(Cg *g, const Node *n)
{
    if (!n) {
        return 0;
    }
    if (n->kind == ND_VAR) {
        return n->var->is_param && g->in->args[n->var->id]->kind == TY_WEAK_INT;
    }
    if (reads_weak_param(g, n->a) || reads_weak_param(g, n->b) || reads_weak_param(g, n->c)) {
        return 1;
    }
    for (int i = 0; i < n->n; i++) {
        if (reads_weak_param(g, n->list[i])) {
            return 1;
        }
    }
    return 0;
}

/* a weak Python int operand x of type t that may lie outside dtype dt: a
 * constant that does not fit, or a value computed from a Python int
 * parameter (int64 at run time) */
static int
weak_outside(Cg *g, const Type *t, Node *x, DType dt)
{
    int64_t v;
    if (!cj_is_weak(t)) {
        return 0;
    }
    if (cj_fold_int(x, &v)) {
        return !int_fits(v, dt);
    }
    return dt != DT_I64 && reads_weak_param(g, x);
}

/* the type two operands are compared in; a Python int that may lie outside
 * the other operand's integer range (uint8 x >= -3, uint8 x < n) widens it:
 * NumPy 2 compares such values exactly */
static const Type *
common_type(Cg *g, Node *x, Node *y)
{
    const Type *a = g->in->ntype[x->id], *b = g->in->ntype[y->id];
    const Type *ct = cj_concrete(cj_promote(a, b));
    char k = cj_dtypes[ct->dtype].kind;
    if (ct->kind == TY_SCALAR && (k == 'i' || k == 'u')
        && (weak_outside(g, a, x, ct->dtype) || weak_outside(g, b, y, ct->dtype))) {
        return cj_scalar(ct->dtype == DT_U64 ? DT_F64 : DT_I64);
    }
    return ct;
}

/* a signed integer against uint64 (NumPy goes through float64), compared
 * exactly by the three-way helper cj_su_cmp: 1 when a is the signed one, 2
 * when b is, 0 for any other pair */
static int
mixed_sign_types(const Type *a, const Type *b)
{
    a = cj_concrete(a);
    b = cj_concrete(b);
    if (a->kind != TY_SCALAR || b->kind != TY_SCALAR) {
        return 0;
    }
    if (cj_dtypes[a->dtype].kind == 'i' && b->dtype == DT_U64) {
        return 1;
    }
    return cj_dtypes[b->dtype].kind == 'i' && a->dtype == DT_U64 ? 2 : 0;
}

/* x op y of such a pair: the signed operand first */
static int
mixed_sign64(Cg *g, Node *x, Node *y, Node **sgn, Node **uns)
{
    int m = mixed_sign_types(g->in->ntype[x->id], g->in->ntype[y->id]);
    *sgn = m == 1 ? x : y;
    *uns = m == 1 ? y : x;
    return m != 0;
}

/* Python's answer to x op y that no value decides: Enum members of two
 * classes are never `is`, nor == unless both are IntEnums (ints); an Enum
 * member (not an int) is never == a number.  -1: the values decide. */
static int
enum_constant(const Type *x, const Type *y, int op)
{
    int eq = op == OP_EQ || op == OP_IS, ne = op == OP_NE || op == OP_ISNOT;
    if ((!x->enm && !y->enm) || cj_enum_same(x, y) || (!eq && !ne)) {
        return -1;
    }
    int ints = (!x->enm || x->enm[0] == 'I') && (!y->enm || y->enm[0] == 'I');
    if (ints && op != OP_IS && op != OP_ISNOT) {
        return -1;
    }
    return ne;
}

/* Enum members of one class whose values are tuples: equal when every
 * element is (members with equal values are one member) */
static void
enum_tuple_eq(Cg *g, int op, Node *x, Node *y, int prec)
{
    const Type *t = cg_type(g, x);
    cg_open(g, prec, PR_UNARY);
    P("%s[&]() -> bool { auto cj_a = ", op == OP_NE || op == OP_ISNOT ? "!" : "");
    cg_expr(g, x, PR_ASSIGN);
    S("; auto cj_b = ");
    cg_expr(g, y, PR_ASSIGN);
    S("; return true");
    for (int i = 0; i < t->ntup; i++) {
        P(" && cj_a.f%d == cj_b.f%d", i, i);
    }
    S("; }()");
    cg_close(g, prec, PR_UNARY);
}

static void
pair(Cg *g, int op, Node *x, Node *y, int prec)
{
    Node *s, *u;
    int k = enum_constant(cg_type(g, x), cg_type(g, y), op);
    if (k >= 0) {
        S(k ? "true" : "false");
        return;
    }
    if (cg_type(g, x)->kind == TY_TUPLE) {
        enum_tuple_eq(g, op, x, y, prec);
        return;
    }
    if (mixed_sign64(g, x, y, &s, &u)) {
        g->p->features |= FEAT_SU_CMP;
        cg_open(g, prec, binop_prec(op));
        if (s != x) {
            S("0 ");
            S(binop_str(op));
            S(" ");
        }
        S("cj_su_cmp(");
        cg_conv(g, s, cj_scalar(DT_I64), PR_COMMA);
        S(", ");
        cg_conv(g, u, cj_scalar(DT_U64), PR_COMMA);
        S(")");
        if (s == x) {
            S(" ");
            S(binop_str(op));
            S(" 0");
        }
        cg_close(g, prec, binop_prec(op));
        return;
    }
    infix(g, op, x, y, common_type(g, x, y), cj_scalar(DT_I32), prec);
}

static int
is_none(const Node *n)
{
    return n->kind == ND_CONST && n->cval.kind == CK_NONE;
}

static void in_expr(Cg *g, Node *n, int prec);

static void
compare(Cg *g, Node *n, int prec)
{
    if (n->ops[0] == OP_IN || n->ops[0] == OP_NOTIN) {
        in_expr(g, n, prec);
        return;
    }
    int simple = 1;
    for (int i = 1; i < n->n - 1; i++) {
        simple &= is_simple(n->list[i]);
    }
    if (n->n > 2 && simple) {
        /* a < b < c with a plain b: (a < b) && (b < c) */
        cg_open(g, prec, PR_LAND);
        for (int i = 0; i < n->n - 1; i++) {
            if (i) {
                S(" && ");
            }
            pair(g, n->ops[i], n->list[i], n->list[i + 1], PR_LAND + 1);
        }
        cg_close(g, prec, PR_LAND);
        return;
    }
    if (n->n == 2 && (n->ops[0] == OP_IS || n->ops[0] == OP_ISNOT)
        && (is_none(n->list[0]) || is_none(n->list[1]))) {
        Node *x = is_none(n->list[0]) ? n->list[1] : n->list[0];
        if (cg_type(g, x)->kind == TY_OPTIONAL) {
            /* an Optional: its flag (!x.ok for is None) */
            cg_open(g, prec, PR_UNARY);
            S(n->ops[0] == OP_IS ? "!" : "");
            cg_expr(g, x, PR_POSTFIX);
            S(".ok");
            cg_close(g, prec, PR_UNARY);
            return;
        }
        /* x is None of a number: known from its type (typeinfer) */
        S((n->ops[0] == OP_IS) == (is_none(n->list[0]) && is_none(n->list[1]))
          ? "true" : "false");
        return;
    }
    if (n->n == 2) {
        pair(g, n->ops[0], n->list[0], n->list[1], prec);
        return;
    }
    /* a < b < c: middle operands evaluated once, as in Python */
    cg_open(g, prec, PR_LAND);
    S("[&]() -> bool { ");
    for (int i = 1; i < n->n - 1; i++) {
        P("auto cj_m%d = ", i);
        cg_expr(g, n->list[i], PR_ASSIGN);
        S("; ");
    }
    S("return ");
    for (int i = 0; i < n->n - 1; i++) {
        const Type *ct = common_type(g, n->list[i], n->list[i + 1]);
        if (i) {
            S(" && ");
        }
        int pr = binop_prec(n->ops[i]);
        if (i == 0) {
            cg_conv(g, n->list[0], ct, pr);
        } else {
            P("(%s)cj_m%d", cg_ctype(g, ct), i);
        }
        P(" %s ", binop_str(n->ops[i]));
        if (i + 1 == n->n - 1) {
            cg_conv(g, n->list[i + 1], ct, pr + 1);
        } else {
            P("(%s)cj_m%d", cg_ctype(g, ct), i + 1);
        }
    }
    S("; }()");
    cg_close(g, prec, PR_LAND);
}

/* ---- x in t, x not in t ---- */

/* the container of an `in` whose items are read as they are compared: a
 * tuple written out, a variable, a.shape; anything else is bound once */
static int
items_in_place(const Node *c)
{
    return c->kind == ND_TUPLE || c->kind == ND_VAR || c->kind == ND_ATTR;
}

/* what the items of an `in` are compared in: =='s common type (a Python
 * int that may lie outside x's range widens it, as pair() does) */
static const Type *
in_common(Cg *g, Node *x, Node *c, int k, const Type *e)
{
    if (c->kind == ND_TUPLE) {
        return common_type(g, x, c->list[k]);
    }
    return cj_concrete(cj_promote(cg_type(g, x), e));
}

/* (ct)v: a value of type `from` as ct, before it is printed; 16-bit
 * floats are compared as float */
static void
value_as(Cg *g, const Type *from, const Type *ct)
{
    if (from->kind != TY_SCALAR || ct->kind != TY_SCALAR) {
        return;
    }
    if (cj_is_half(ct->dtype)) {
        S("(float)");
    } else if (from->dtype != ct->dtype) {
        P("(%s)", cj_dtypes[ct->dtype].ctype);
    }
}

/* item k of the container c (or of the bound cj_t) as type ct */
static void
in_item(Cg *g, Node *c, int k, const Type *e, const Type *ct)
{
    if (c->kind == ND_TUPLE && !cj_is_half(ct->dtype)) {
        cg_conv(g, c->list[k], ct, PR_EQ + 1);
        return;
    }
    value_as(g, e, ct);
    if (items_in_place(c)) {
        cg_tuple_elem(g, c, k, PR_UNARY);
    } else {
        P("cj_t.f%d", k);
    }
}

/* cj_x == item k: in the common type, int64 against uint64 exactly, Enum
 * members by their class (never equal to another class's) and their values */
static void
in_eq(Cg *g, Node *x, Node *c, int k, const Type *e)
{
    const Type *a = cg_type(g, x);
    int known = enum_constant(a, e, OP_EQ);
    if (known >= 0) {
        S(known ? "true" : "false");
        return;
    }
    if (a->kind == TY_TUPLE) {
        S("(true");
        for (int i = 0; i < a->ntup; i++) {
            P(" && cj_x.f%d == ", i);
            in_item(g, c, k, e, e);
            P(".f%d", i);
        }
        S(")");
        return;
    }
    const Type *ct = in_common(g, x, c, k, e);
    int m = mixed_sign_types(a, e);
    if (m) {
        g->p->features |= FEAT_SU_CMP;
        S(m == 1 ? "cj_su_cmp(cj_x, " : "0 == cj_su_cmp(");
        in_item(g, c, k, e, m == 1 ? cj_scalar(DT_U64) : cj_scalar(DT_I64));
        S(m == 1 ? ") == 0" : ", cj_x)");
        return;
    }
    value_as(g, a, ct);
    S("cj_x == ");
    in_item(g, c, k, e, ct);
}

/* x in t of a tuple: x once, then == with each item until one is equal */
static void
in_tuple(Cg *g, Node *x, Node *c, const Type *tt)
{
    if (!items_in_place(c)) {
        S("auto cj_t = ");
        cg_expr(g, c, PR_ASSIGN);
        S("; ");
    }
    S("return ");
    for (int k = 0; k < tt->ntup; k++) {
        S(k ? " || " : "");
        const Type *e = c->kind == ND_TUPLE ? cg_type(g, c->list[k]) : cj_concrete(tt->tup[k]);
        in_eq(g, x, c, k, e);
    }
    S("; ");
}

/* x in a of an array: x == each element, in C order (NumPy's nditer) */
static void
in_array(Cg *g, Node *x, Node *c, const Type *at)
{
    const Type *e = cj_scalar(at->dtype), *ct = cj_concrete(cj_promote(cg_type(g, x), e));
    g->p->features |= FEAT_NPFUNC;
    S("const auto &cj_a = ");
    cg_expr(g, c, PR_ASSIGN);
    S("; for (long long cj_k = 0, cj_n = cj_np_size(cj_a); cj_k < cj_n; cj_k++) { if (");
    const Type *a = cg_type(g, x);
    int m = mixed_sign_types(a, e);
    if (m) {
        g->p->features |= FEAT_SU_CMP;
        S(m == 1 ? "cj_su_cmp(cj_x, cj_np_at(cj_a, cj_k)) == 0"
          : "cj_su_cmp(cj_np_at(cj_a, cj_k), cj_x) == 0");
    } else {
        value_as(g, a, ct);
        S("cj_x == ");
        value_as(g, e, ct);
        S("cj_np_at(cj_a, cj_k)");
    }
    S(") { return true; } } return false; ");
}

/* x in range(start, stop, step): in bounds and on the step, computed in
 * unsigned 64 bits (no overflow); a float or complex x only when it is an
 * integer (Numba's rule), a uint64 x only below 2**63 */
static void
in_range(Cg *g, Node *x, Node *r)
{
    const char *names[3] = {"long long cj_a = ", ", cj_b = ", ", cj_s = "};
    for (int i = 0; i < 3; i++) {
        int k = r->n == 1 ? i - 1 : i;      /* range(stop): start 0 */
        S(names[i]);
        if (k < 0 || k >= r->n) {
            S(k < 0 ? "0" : "1");
        } else {
            cg_conv(g, r->list[k], cj_scalar(DT_I64), PR_ASSIGN);
        }
    }
    S("; ");
    const Type *a = cg_type(g, x);
    char k = cj_type_kind(a);
    if (k == 'c') {
        S("if (cj_x.im != 0) { return false; } double cj_v = cj_x.re; ");
    } else if (k == 'f') {
        S("double cj_v = (double)cj_x; ");
    }
    if (k == 'c' || k == 'f') {
        S("if (!(cj_v == floor(cj_v) && cj_v >= -0x1p63 && cj_v < 0x1p63)) { return false; } "
          "long long cj_i = (long long)cj_v; ");
    } else if (a->dtype == DT_U64) {
        S("if (cj_x > 9223372036854775807ULL) { return false; } long long cj_i = (long long)cj_x; ");
    } else {
        S("long long cj_i = (long long)cj_x; ");
    }
    S("typedef unsigned long long cj_u; "
      "return cj_s > 0 ? cj_i >= cj_a && cj_i < cj_b && ((cj_u)cj_i - (cj_u)cj_a) % (cj_u)cj_s == 0 "
      ": cj_s < 0 && cj_i <= cj_a && cj_i > cj_b && ((cj_u)cj_a - (cj_u)cj_i) % (0 - (cj_u)cj_s) == 0; ");
}

/* x in c, x not in c: a lambda that evaluates x once, then c (Python's
 * order), and stops at the first equal item */
static void
in_expr(Cg *g, Node *n, int prec)
{
    Node *x = n->list[0], *c = n->list[1];
    const Type *ct = c->kind == ND_CALL && c->op == BI_RANGE ? NULL : cg_type(g, c);
    if (ct && ct->kind == TY_TUPLE && ct->ntup == 0) {
        S(n->ops[0] == OP_IN ? "false" : "true");
        return;
    }
    cg_open(g, prec, PR_UNARY);
    P("%s[&]() -> bool { auto cj_x = ", n->ops[0] == OP_NOTIN ? "!" : "");
    cg_expr(g, x, PR_ASSIGN);
    S("; ");
    if (!ct) {
        in_range(g, x, c);
    } else if (ct->kind == TY_TUPLE) {
        in_tuple(g, x, c, ct);
    } else {
        in_array(g, x, c, ct);
    }
    S("}()");
    cg_close(g, prec, PR_UNARY);
}

/* truthiness of a C++ variable v of type t, as a unary operand */
static void
truth_of_value(Cg *g, const Type *t, const char *v)
{
    if (t->kind == TY_SCALAR && cj_dtypes[t->dtype].kind == 'c') {
        P("cj_truth(%s)", v);
    } else if (t->kind == TY_SCALAR && cj_is_half(t->dtype)) {
        P("((float)%s != 0.0f)", v);
    } else {
        S(v);
    }
}

/* a and b, a or b: && / || on bools, else the value Python gives */
static void
boolop(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    int pr = n->op == OP_AND ? PR_LAND : PR_LOR;
    if (rt->dtype == DT_BOOL) {
        cg_open(g, prec, pr);
        for (int i = 0; i < n->n; i++) {
            if (i) {
                S(n->op == OP_AND ? " && " : " || ");
            }
            cg_conv(g, n->list[i], rt, pr + 1);
        }
        cg_close(g, prec, pr);
        return;
    }
    /* values: `a or b` gives a if a is true, else b */
    const char *ct = cg_ctype(g, rt);
    P("[&]() -> %s { %s cj_v = ", ct, ct);
    cg_conv(g, n->list[0], rt, PR_ASSIGN);
    S("; ");
    for (int i = 1; i < n->n; i++) {
        P("if (%s", n->op == OP_AND ? "!" : "");
        truth_of_value(g, rt, "cj_v");
        S(") { return cj_v; } cj_v = ");
        cg_conv(g, n->list[i], rt, PR_ASSIGN);
        S("; ");
    }
    S("return cj_v; }()");
}

static void
ifexp(Cg *g, Node *n, int prec)
{
    const Type *rt = cg_type(g, n);
    cg_open(g, prec, PR_COND);
    truth(g, n->a, PR_LOR);
    S(" ? ");
    cg_conv(g, n->b, rt, PR_ASSIGN);
    S(" : ");
    cg_conv(g, n->c, rt, PR_COND);
    cg_close(g, prec, PR_COND);
}

/* ---- arrays ---- */

/* extent of dimension d of array expression `a` (dynamic shared memory:
 * its bytes over the element size, as Numba sizes it); a static one is a
 * literal of the index type, as an argument's shape is (helper templates
 * deduce one type from 4LL and a long long) */
static void
extent(Cg *g, Node *a, const Type *at, int d)
{
    if (at->sshape) {
        P("%lld%s", (long long)at->sshape[d], g->p->idx32 ? "" : "LL");
        return;
    }
    if (at->mem == MEM_DYNSHARED) {
        P("(%s)(cj_dyn_smem_size() / %d)", idx_ctype(g), cj_dtypes[at->dtype].size);
        return;
    }
    cg_expr(g, a, PR_POSTFIX);
    P(".shape[%d]", d);
}

/* a cuda.jit kernel's signed index that may be negative (Numba counts it
 * from the end): one that codegen/nonneg.c does not prove non-negative */
static int
wraps(Cg *g, Node *ix, const Type *t)
{
    t = cj_concrete(t);
    return g->p->numba && t->kind == TY_SCALAR && cj_dtypes[t->dtype].kind == 'i'
           && !cg_nonneg(g, ix);
}

/* cj_wrap(i, n): i < 0 ? i + n : i with i evaluated once; `elem` >= 0 is
 * item `elem` of the tuple-valued index ix */
static void
wrapped(Cg *g, Node *a, const Type *at, Node *ix, int elem, int d)
{
    g->p->features |= FEAT_WRAP;
    S("cj_wrap(");
    if (elem >= 0) {
        P("(%s)", idx_ctype(g));
        cg_tuple_elem(g, ix, elem, PR_UNARY);
    } else {
        cg_conv(g, ix, cj_scalar(g->p->idx32 ? DT_I32 : DT_I64), PR_COMMA);
    }
    S(", ");
    if (at->sshape) {
        P("(%s)", idx_ctype(g));
    }
    extent(g, a, at, d);
    S(")");
}

/* an index that reads its names and numbers only (+, -, *, //, % of them,
 * unary minus): written twice, it computes the same value */
static int
plain_index(const Node *n)
{
    if (n->kind == ND_VAR || n->kind == ND_CONST) {
        return 1;
    }
    if (n->kind == ND_UNARY) {
        return n->op == OP_NEG && plain_index(n->a);
    }
    return n->kind == ND_BINOP && (n->op == OP_ADD || n->op == OP_SUB || n->op == OP_MUL
                                   || n->op == OP_FLOORDIV || n->op == OP_MOD)
           && plain_index(n->a) && plain_index(n->b);
}

/* a signed index written from the end (a[-k], a[-i - 1]: a negation, or a
 * negation less something): Python (Numba) counts it from the end at run
 * time.  Other indices are taken as they are (a[i - 1] of a stencil costs no
 * test; cupyx.jit does not wrap either) */
static int
may_count_from_end(Cg *g, Node *ix)
{
    const Type *t = cj_concrete(cg_type(g, ix));
    const Node *lead = ix->kind == ND_BINOP && ix->op == OP_SUB ? ix->a : ix;
    return lead->kind == ND_UNARY && lead->op == OP_NEG && t->kind == TY_SCALAR
           && cj_dtypes[t->dtype].kind == 'i' && plain_index(ix);
}

/* the index of dimension d, as the index type, bounds-checked if asked
 * (after the wrap, as Numba); one that may be negative at run time is
 * counted from the end: any signed one in a cuda.jit kernel (wraps), one
 * written from the end in cujit's own kernels (may_count_from_end) */
static void
index_value(Cg *g, Node *a, const Type *at, Node *ix, int d, int prec)
{
    Const c;
    const Type *it = cj_scalar(g->p->idx32 ? DT_I32 : DT_I64);
    int neg = neg_const(ix, &c) || (ix->kind == ND_CONST && ix->cval.kind == CK_INT
                                    && ix->cval.i < 0);
    int wrap = !neg && wraps(g, ix, cg_type(g, ix));
    if ((g->fn->boundscheck & CHK_BOUNDS) && at->mem != MEM_DYNSHARED) {
        P("cj_bc(");
        if (neg) {
            extent(g, a, at, d);
            S(" + ");
        }
        if (wrap) {
            wrapped(g, a, at, ix, -1, d);
        } else {
            cg_conv(g, ix, it, PR_ADD + 1);
        }
        S(", ");
        if (at->sshape) {
            P("(%s)", idx_ctype(g));
        }
        extent(g, a, at, d);
        P(", %d, %d)", ix->loc.line, d);
        return;
    }
    if (neg && (numeric_const(ix) || neg_const(ix, &c))) {
        int64_t k = numeric_const(ix) ? ix->cval.i : c.i;
        cg_open(g, prec, PR_ADD);
        extent(g, a, at, d);
        P(" - %lld", (long long)-k);
        cg_close(g, prec, PR_ADD);
        return;
    }
    if (wrap) {
        wrapped(g, a, at, ix, -1, d);
        return;
    }
    if (!g->p->numba && may_count_from_end(g, ix)) {
        cg_open(g, prec, PR_COND);
        cg_conv(g, ix, it, PR_REL + 1);
        S(" < 0 ? ");
        cg_conv(g, ix, it, PR_ADD);
        S(" + ");
        if (at->sshape) {
            P("(%s)", idx_ctype(g));
        }
        extent(g, a, at, d);
        S(" : ");
        cg_conv(g, ix, it, PR_COND);
        cg_close(g, prec, PR_COND);
        return;
    }
    cg_conv(g, ix, it, prec);
}

/* item d of a tuple-valued index (a[ij], ij = cuda.grid(2)): wrapped as
 * any index in a cuda.jit kernel */
static void
tuple_index_value(Cg *g, Node *a, const Type *at, Node *tix, int d, int prec)
{
    const Type *tt = cg_type(g, tix);
    if (d < tt->ntup && wraps(g, tix, tt->tup[d])) {
        wrapped(g, a, at, tix, d, d);
        return;
    }
    cg_tuple_elem(g, tix, d, prec);
}

static Node *
tuple_part(Node *ix, int k)
{
    return ix->kind == ND_TUPLE ? ix->list[k] : NULL;
}

static void
one_index(Cg *g, Node *a, const Type *at, Node **idx, Node *tix, int d, int prec)
{
    if (idx[d]) {
        index_value(g, a, at, idx[d], d, prec);
    } else {
        tuple_index_value(g, a, at, tix, d, prec);
    }
}

/* C order: (i0 * n1 + i1) * n2 + i2 */
static void
c_offset(Cg *g, Node *a, const Type *at, Node **idx, Node *tix, int d)
{
    if (d == 0) {
        one_index(g, a, at, idx, tix, 0, at->ndim > 1 ? PR_MUL : PR_COMMA);
        return;
    }
    if (d > 1) {
        S("(");
    }
    c_offset(g, a, at, idx, tix, d - 1);
    if (d > 1) {
        S(")");
    }
    S(" * ");
    extent(g, a, at, d);
    S(" + ");
    one_index(g, a, at, idx, tix, d, PR_ADD + 1);
}

/* F order: i0 + n0 * (i1 + n1 * i2) */
static void
f_offset(Cg *g, Node *a, const Type *at, Node **idx, Node *tix, int d)
{
    int last = d == at->ndim - 1;
    one_index(g, a, at, idx, tix, d, last && d == 0 ? PR_COMMA : PR_ADD);
    if (last) {
        return;
    }
    S(" + ");
    extent(g, a, at, d);
    S(" * ");
    if (d + 1 < at->ndim - 1) {
        S("(");
        f_offset(g, a, at, idx, tix, d + 1);
        S(")");
    } else {
        one_index(g, a, at, idx, tix, d + 1, PR_MUL + 1);
    }
}

/* One element: a[i, j] for any memory space and layout.  `ix` holds the
 * indices (n of them), or `tix` is a tuple-valued index. */
static void
element(Cg *g, Node *a, Node **ix, int n, Node *tix)
{
    const Type *at = cg_type(g, a);
    int nd = at->ndim;
    if (at->mem == MEM_GLOBAL && nd == 0) {
        cg_expr(g, a, PR_POSTFIX);
        S(".data[0]");
        return;
    }
    Node *idx[CJ_MAXDIMS];
    for (int d = 0; d < nd; d++) {
        idx[d] = ix ? ix[d] : tuple_part(tix, d);
    }
    if (at->mem == MEM_GLOBAL && at->layout == 'A') {
        S("cj_at(");
        cg_expr(g, a, PR_POSTFIX);
        S(".data, ");
        for (int d = 0; d < nd; d++) {
            if (d) {
                S(" + ");
            }
            if (idx[d]) {
                index_value(g, a, at, idx[d], d, PR_MUL);
            } else {
                tuple_index_value(g, a, at, tix, d, PR_MUL);
            }
            S(" * ");
            cg_expr(g, a, PR_POSTFIX);
            P(".strides[%d]", d);
        }
        S(")");
        return;
    }
    cg_expr(g, a, PR_POSTFIX);
    S(at->mem == MEM_GLOBAL ? ".data[" : "[");
    if (at->layout == 'F' && at->mem == MEM_GLOBAL) {
        f_offset(g, a, at, idx, tix, 0);
    } else {
        c_offset(g, a, at, idx, tix, nd - 1);
    }
    S("]");
}

void
cg_index_ref(Cg *g, Node *n)
{
    if (g->vec_i && n->a->kind == ND_VAR && n->n == 1 && n->list[0]->kind == ND_VAR
        && n->list[0]->var == g->vec_i) {
        for (int k = 0; k < g->vec_narr; k++) {
            if (g->vec_arrays[k] == n->a->var && g->vec_packable[k]) {
                P("%s_v.v[cj_e]", n->a->var->cname);
                return;
            }
        }
    }
    if (n->n == 1 && cg_type(g, n->list[0])->kind == TY_TUPLE) {
        element(g, n->a, NULL, 0, n->list[0]);     /* a[gid], gid a tuple */
        return;
    }
    if (cg_type(g, n->a)->kind == TY_ITER) {
        cg_iter_index(g, n);                        /* p[i] of a raw pointer */
        return;
    }
    element(g, n->a, n->list, n->n, NULL);
}

/* ---- views ---- */

/* the base of a view as a (data, shape, strides) struct: an argument or a
 * view is one already; shared, local and constant arrays are C order */
static void
view_base(Cg *g, Node *a, const Type *at)
{
    const char *ct = cj_dtypes[at->dtype].ctype, *it = idx_ctype(g);
    if (at->mem == MEM_GLOBAL) {
        cg_expr(g, a, PR_COMMA);
        return;
    }
    P("cj_array<%s, %d, %s>{(%s *)", ct, at->ndim, it, ct);
    cg_expr(g, a, PR_UNARY);
    if (at->mem == MEM_DYNSHARED) {
        P(", {(%s)(cj_dyn_smem_size() / %d)}, {%d}}", it, cj_dtypes[at->dtype].size,
          cj_dtypes[at->dtype].size);
        return;
    }
    S(", {");
    for (int d = 0; d < at->ndim; d++) {
        P("%s%lld", d ? ", " : "", (long long)at->sshape[d]);
    }
    S("}, {");
    int64_t st[CJ_MAXDIMS], stride = cj_dtypes[at->dtype].size;
    for (int d = at->ndim - 1; d >= 0; d--) {
        st[d] = stride;
        stride *= at->sshape[d];
    }
    for (int d = 0; d < at->ndim; d++) {
        P("%s%lld", d ? ", " : "", (long long)st[d]);
    }
    S("}}");
}

void
cg_view_base(Cg *g, Node *a, const Type *at)
{
    view_base(g, a, at);
}

/* the arguments of one step of a view, after the array: a single index
 * (bounds-checked if asked) or a slice's bounds, step and given bits */
static void
view_step_args(Cg *g, Node *ix)
{
    const Type *it = cj_scalar(g->p->idx32 ? DT_I32 : DT_I64);
    if (ix->kind != ND_SLICE) {
        S(", ");
        cg_conv(g, ix, it, PR_COMMA);
        if (g->fn->boundscheck & CHK_BOUNDS) {
            P(", %d", ix->loc.line);
        }
        S(")");
        return;
    }
    Node *parts[3] = {ix->a, ix->b, ix->c};
    for (int k = 0; k < 3; k++) {
        S(", ");
        if (parts[k]) {
            cg_conv(g, parts[k], cj_scalar(DT_I64), PR_COMMA);   /* clamped in 64 bits */
        } else {
            P("%d", k == 2);
        }
    }
    P(", %d)", (ix->a ? 1 : 0) | (ix->b ? 2 : 0));
}

/* ':' or '::1', which changes nothing */
static int
whole_slice(const Node *s)
{
    int64_t step;
    return !s->a && !s->b && (!s->c || (cj_fold_int(s->c, &step) && step == 1));
}

/* a[i, lo:hi, ...] as nested steps: the slices first (they keep every
 * dimension where it is), then the single indices from the last, so that
 * each step's dimension is still its place in a */
static void
view_expr(Cg *g, Node *n)
{
    const Type *at = cg_type(g, n->a);
    Node *steps[CJ_MAXDIMS];
    int dims[CJ_MAXDIMS], m = 0;
    for (int i = 0; i < n->n; i++) {
        if (n->list[i]->kind == ND_SLICE && !whole_slice(n->list[i])) {
            steps[m] = n->list[i];
            dims[m++] = i;
        }
    }
    for (int i = n->n - 1; i >= 0; i--) {
        if (n->list[i]->kind != ND_SLICE) {
            steps[m] = n->list[i];
            dims[m++] = i;
        }
    }
    for (int k = m - 1; k >= 0; k--) {
        int single = steps[k]->kind != ND_SLICE;
        int bc = (g->fn->boundscheck & CHK_BOUNDS) != 0;
        P("cj_v%s<%d>(", single ? (bc ? "i_bc" : "i") : "s", dims[k]);
    }
    view_base(g, n->a, at);
    for (int k = 0; k < m; k++) {
        view_step_args(g, steps[k]);
    }
}

/* t[i], i a variable (typeinfer: aux -1): the item chosen by comparisons,
 * each converted to the common type; t is a variable */
static void
tuple_index_var(Cg *g, Node *n, const Type *bt, int prec)
{
    const char *ct = cg_ctype(g, cj_concrete(cg_type(g, n)));
    if (bt->ntup == 0) {
        P("static_cast<%s>(0)", ct);     /* an item of (): never read */
        return;
    }
    /* debug=True checks the index of a 1-tuple too, which compares nothing */
    int check1 = bt->ntup == 1 && (g->fn->boundscheck & CHK_DEBUG);
    cg_open(g, prec, check1 ? PR_COMMA : PR_COND);
    if (check1) {
        cg_tuple_index(g, n, 1, PR_ASSIGN);
        S(", ");
    }
    const Type *rt = cj_concrete(cg_type(g, n));
    for (int k = 0; k < bt->ntup; k++) {
        if (k + 1 < bt->ntup) {
            cg_tuple_index(g, n, bt->ntup, PR_EQ + 1);
            P(" == %d ? ", k);
        }
        if (rt->kind == TY_TUPLE && n->a->kind == ND_TUPLE) {
            cg_conv(g, n->a->list[k], rt, PR_COND);     /* a tuple of tuples written out */
        } else if (rt->kind == TY_TUPLE) {
            P("%s{", ct);                   /* a variable's: each number converted */
            for (int j = 0; j < rt->ntup; j++) {
                P("%s(%s)", j ? ", " : "", cj_dtypes[rt->tup[j]->dtype].ctype);
                cg_tuple_elem(g, n->a, k, PR_POSTFIX);
                P(".f%d", j);
            }
            S("}");
        } else {
            P("static_cast<%s>(", ct);
            cg_tuple_elem(g, n->a, k, PR_COMMA);
            S(")");
        }
        S(k + 1 < bt->ntup ? " : " : "");
    }
    cg_close(g, prec, check1 ? PR_COMMA : PR_COND);
}

/* r.name, r['name']: the field's member (f<its index>) */
static void
field_expr(Cg *g, Node *rec, const char *name)
{
    DType dt = cg_type(g, rec)->dtype;
    const CjField *f = cj_record_field(dt, name);
    int lvalue = g->lvalue, value = cj_dtypes[f->dt].kind == 'c' && !f->nsub && !lvalue;
    g->lvalue = 0;
    if (value) {
        P("((%s)", cj_dtypes[f->dt].ctype);     /* a cj_ucomplex member, read */
    }
    cg_expr(g, rec, PR_POSTFIX);
    P(".f%d", (int)(f - cj_record(dt)->fields));
    if (value) {
        S(")");
    }
    g->lvalue = lvalue;
}

static void
index_expr(Cg *g, Node *n, int prec)
{
    const Type *bt = cg_type(g, n->a);
    if (bt->kind == TY_TUPLE && g->in->aux[n->id] < 0) {
        tuple_index_var(g, n, bt, prec);
        return;
    }
    if (bt->kind == TY_RECORD && g->in->aux[n->id] < 0) {
        cg_expr(g, n->a, prec);         /* r[()]: the record itself */
        return;
    }
    if (bt->kind == TY_RECORD) {
        field_expr(g, n->a, cj_record(bt->dtype)->fields[g->in->aux[n->id]].name);
        return;
    }
    if (bt->kind == TY_TUPLE) {
        cg_tuple_elem(g, n->a, (int)g->in->aux[n->id], prec);
        return;
    }
    if (cg_type(g, n)->kind == TY_ARRAY) {
        view_expr(g, n);
        return;
    }
    if (bt->kind == TY_ITER) {
        cg_iter_index(g, n);
        return;
    }
    cg_index_ref(g, n);
}

/* product of the extents */
static void
size_expr(Cg *g, Node *a, int prec)
{
    const Type *at = cg_type(g, a);
    if (at->ndim == 0) {
        S("1");
        return;
    }
    if (at->mem == MEM_DYNSHARED) {
        cj_fail(g->p->try_, g->fn->file, a->loc, "the size of dynamic shared memory is not "
                "known in the kernel; pass it as an argument");
    }
    if (at->ndim > 1) {
        cg_open(g, prec, PR_MUL);
    }
    for (int d = 0; d < at->ndim; d++) {
        if (d) {
            S(" * ");
        }
        if (d && !at->sshape) {
            P("(%s)", idx_ctype(g));
        }
        extent(g, a, at, d);
    }
    if (at->ndim > 1) {
        cg_close(g, prec, PR_MUL);
    }
}

/* a.ndim, a.itemsize: a literal of the type typeinfer gave it (a weak int
 * met by int64 is 1LL, so helper templates deduce one type) */
static void
attr_int(Cg *g, Node *n, int64_t v, int prec)
{
    const Type *t = cg_type(g, n);
    Const c;
    memset(&c, 0, sizeof c);
    c.kind = CK_INT;
    c.i = v;
    literal_prec(g, &c, t->kind == TY_SCALAR ? t : cj_scalar(DT_I32), prec);
}

static void
attr_expr(Cg *g, Node *n, int prec)
{
    const Type *at = cg_type(g, n->a);
    if (at->kind == TY_RECORD) {
        field_expr(g, n->a, n->str);
        return;
    }
    if (at->kind == TY_VECTOR) {
        cg_vector_lane(g, n);
        return;
    }
    if (at->kind == TY_TUPLE && at->names) {
        cg_tuple_elem(g, n->a, (int)g->in->aux[n->id], prec);     /* a namedtuple's field */
        return;
    }
    if (at->enm) {
        cg_expr(g, n->a, prec);         /* an Enum member's .value: the member */
        return;
    }
    if (at->kind == TY_ARRAY && cj_is_record(at->dtype)
        && (n->op == AT_FIELD || n->op == AT_X || n->op == AT_Y || n->op == AT_Z)) {
        cg_field_view(g, n, at);
        return;
    }
    switch (n->op) {
    case AT_ADDRESS:
        cg_open(g, prec, PR_UNARY);
        S("(unsigned long long)");
        cg_expr(g, n->a, PR_POSTFIX);
        S(at->mem == MEM_GLOBAL ? ".data" : "");
        cg_close(g, prec, PR_UNARY);
        return;
    case AT_SIZE:
        size_expr(g, n->a, prec);
        return;
    case AT_NDIM:
    case AT_DTYPE_ITEMSIZE:
        attr_int(g, n, n->op == AT_NDIM ? at->ndim : cj_dtypes[at->dtype].size, prec);
        return;
    case AT_NBYTES:
        cg_open(g, prec, PR_MUL);
        size_expr(g, n->a, PR_MUL);
        P(" * %lld", (long long)cj_dtypes[at->dtype].size);
        cg_close(g, prec, PR_MUL);
        return;
    case AT_T:
        cg_array_transpose(g, n, at);
        return;
    case AT_SHAPE:
    case AT_STRIDES:
        P("%s{", cg_ctype(g, cg_type(g, n)));
        for (int d = 0; d < at->ndim; d++) {
            if (d) {
                S(", ");
            }
            cg_tuple_elem(g, n, d, PR_COMMA);
        }
        S("}");
        return;
    case AT_X:
    case AT_Y:
    case AT_Z:
        cg_tuple_elem(g, n->a, n->op - AT_X, prec);
        return;
    case AT_FIELD:
        break;
    case AT_REAL:
    case AT_IMAG:
        if (at->kind == TY_ARRAY) {
            cg_array_part(g, n, at, prec);
            return;
        }
        if (at->kind == TY_SCALAR && cj_dtypes[at->dtype].kind == 'c') {
            cg_expr(g, n->a, PR_POSTFIX);
            S(n->op == AT_REAL ? ".re" : ".im");
            return;
        }
        if (n->op == AT_REAL) {
            cg_expr(g, n->a, prec);
            return;
        }
        {
            Const z;
            memset(&z, 0, sizeof z);
            z.kind = CK_INT;
            cg_literal(g, &z, at);
        }
        return;
    default:
        break;
    }
    cj_unreachable(g->p->try_, "attribute");
}

static void
grid_elem(Cg *g, int op, int k, int prec)
{
    static const char xyz[] = "xyz";
    cg_open(g, prec, PR_ADD);
    if (op == BI_GRID) {
        if (g->p->idx32) {
            P("(int)(blockIdx.%c * blockDim.%c + threadIdx.%c)", xyz[k], xyz[k], xyz[k]);
        } else {
            P("(long long)blockIdx.%c * blockDim.%c + threadIdx.%c", xyz[k], xyz[k], xyz[k]);
        }
    } else {
        if (g->p->idx32) {      /* the launch gives a 32-bit entry no larger grid */
            P("(int)(blockDim.%c * gridDim.%c)", xyz[k], xyz[k]);
        } else {                /* in 64 bits: a grid of 2**32 threads and more */
            P("(long long)blockDim.%c * gridDim.%c", xyz[k], xyz[k]);
        }
    }
    cg_close(g, prec, PR_ADD);
}

void
cg_tuple_elem(Cg *g, Node *n, int k, int prec)
{
    switch (n->kind) {
    case ND_TUPLE:
        cg_expr(g, n->list[k], prec);
        return;
    case ND_ATTR:
        if (cg_type(g, n->a)->kind == TY_TUPLE) {
            break;          /* a namedtuple's field named shape or strides */
        }
        if (n->op == AT_SHAPE) {
            const Type *at = cg_type(g, n->a);
            extent(g, n->a, at, k);
            return;
        }
        if (n->op == AT_STRIDES) {
            const Type *at = cg_type(g, n->a);
            if (at->sshape) {
                int64_t s = cj_dtypes[at->dtype].size;
                for (int d = at->ndim - 1; d > k; d--) {
                    s *= at->sshape[d];
                }
                P("%lldLL", (long long)s);
                return;
            }
            S("(long long)");
            cg_expr(g, n->a, PR_POSTFIX);
            P(".strides[%d]", k);
            return;
        }
        break;
    case ND_CALL:
        if (n->op == BI_GRID || n->op == BI_GRIDSIZE) {
            grid_elem(g, n->op, k, prec);
            return;
        }
        break;
    default:
        break;
    }
    cg_expr(g, n, PR_POSTFIX);
    P(".f%d", k);
}

/* a global device array: cj_array<T, N, I>{(T *)address, {shape}, {strides}} */
static void
devarray(Cg *g, const CjDevArray *a, const Type *t)
{
    const char *ct = cj_dtypes[a->dt].ctype;
    P("%s{(%s *)0x%llxULL", cg_ctype(g, t), ct, (unsigned long long)a->ptr);
    if (a->ndim) {
        for (int k = 0; k < 2; k++) {
            const int64_t *v = k ? a->strides : a->shape;
            S(", {");
            for (int d = 0; d < a->ndim; d++) {
                P("%s%lld", d ? ", " : "", (long long)v[d]);
            }
            S("}");
        }
    }
    S("}");
}

/* the type typeinfer gave variable n's variable; NULL for a variable codegen
 * makes itself (id -1: augmented assignment's reference cj_r), which it has
 * none of */
static const Type *
var_type(Cg *g, Node *n)
{
    return n->var->id >= 0 ? g->in->vtype[n->var->id] : NULL;
}

/* the Optional a variable holds or a device function returns, where the
 * node's own type is its value (typeinfer's unwrap_optional); else NULL */
static const Type *
unwrapped_optional(Cg *g, Node *n)
{
    const Type *raw = n->kind == ND_VAR ? var_type(g, n)
                      : n->kind == ND_CALL && n->op == BI_DEVFUNC && g->in->callee[n->id]
                      ? g->in->callee[n->id]->ret : NULL;
    return raw && raw->kind == TY_OPTIONAL && cg_type(g, n)->kind != TY_OPTIONAL ? raw : NULL;
}

/* the message of cj_opt_get's TypeError on None, Numba's words, for an
 * Optional of type raw */
int
cg_opt_get_msg(Cg *g, const Type *raw)
{
    Buf b;
    buf_init(&b);
    cj_type_str(&b, raw->base);
    const char *text = cj_aprintf(g->p->arena, "builtins\nTypeError\n('expected %s, got None',)",
                                  b.s);
    buf_free(&b);
    return cg_exception_msg(g->p, text);
}

/* An Optional's value where a value is used: cj_opt_get(x, line, msg),
 * which raises TypeError (Numba's words) and ends the thread on None */
static int
optional_value(Cg *g, Node *n)
{
    const Type *raw = n != g->opt_raw ? unwrapped_optional(g, n) : NULL;
    if (!raw) {
        return 0;
    }
    int msg = cg_opt_get_msg(g, raw);
    S("cj_opt_get(");
    Node *saved = g->opt_raw;
    g->opt_raw = n;
    cg_expr(g, n, PR_COMMA);
    g->opt_raw = saved;
    P(", %d, %d)", n->loc.line, msg);
    return 1;
}

/* a 0-d array variable read as its element (typeinfer's ti_zero_d) */
static int
zero_d_value(Cg *g, Node *n)
{
    const Type *v = var_type(g, n);
    if (!v || v->kind != TY_ARRAY || v->ndim != 0 || cg_type(g, n)->kind != TY_SCALAR) {
        return 0;
    }
    P(v->mem == MEM_GLOBAL ? "%s.data[0]" : "%s[0]", n->var->cname);
    return 1;
}

void
cg_expr(Cg *g, Node *n, int prec)
{
    if (g->check_node && cg_checked(g, n)) {
        return;
    }
    if ((n->kind == ND_VAR || n->kind == ND_CALL) && optional_value(g, n)) {
        return;
    }
    if (n->kind == ND_VAR && zero_d_value(g, n)) {
        return;
    }
    switch (n->kind) {
    case ND_CONST:
        if (n->cval.kind == CK_DEVARRAY) {
            devarray(g, n->cval.arr, cg_type(g, n));
            return;
        }
        if (n->cval.kind == CK_STR || n->cval.kind == CK_NONE || n->cval.kind == CK_DTYPE) {
            cj_fail(g->p->try_, g->fn->file, n->loc, "this constant cannot be used as a value "
                    "here");
        }
        literal_prec(g, &n->cval, cg_type(g, n), prec);
        return;
    case ND_VAR:
        if (cg_type(g, n) && cg_type(g, n)->kind == TY_RECORD) {
            P("(*%s)", n->var->cname);     /* a record variable points at its record */
            return;
        }
        S(n->var->cname);
        return;
    case ND_BINOP:
        binop(g, n, prec);
        return;
    case ND_UNARY:
        unary(g, n, prec);
        return;
    case ND_COMPARE:
        compare(g, n, prec);
        return;
    case ND_BOOLOP:
        boolop(g, n, prec);
        return;
    case ND_IFEXP:
        ifexp(g, n, prec);
        return;
    case ND_INDEX:
        index_expr(g, n, prec);
        return;
    case ND_ATTR:
        attr_expr(g, n, prec);
        return;
    case ND_CALL:
        cg_call(g, n, prec);
        return;
    case ND_TUPLE:
        P("%s{", cg_ctype(g, cg_type(g, n)));
        for (int i = 0; i < n->n; i++) {
            if (i) {
                S(", ");
            }
            cg_conv(g, n->list[i], cj_concrete(cg_type(g, n)->tup[i]), PR_COMMA);
        }
        S("}");
        return;
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_IF: case ND_WHILE: case ND_FOR:
    case ND_BREAK: case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT:
    case ND_EXPR: case ND_SLICE:
        break;
    }
    cj_unreachable(g->p->try_, "statement or slice as expression");
}

/* ---- pieces calls.c shares ---- */

void
cg_element(Cg *g, Node *a, Node *ix)
{
    const Type *it = cg_type(g, ix);
    if (it->kind == TY_TUPLE) {
        element(g, a, NULL, 0, ix);
    } else {
        element(g, a, &ix, 1, NULL);
    }
}

void
cg_truth(Cg *g, Node *n, int prec)
{
    truth(g, n, prec);
}
