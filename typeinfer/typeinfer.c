/* typeinfer.c - types for every node of a kernel, given its argument types.
 * NumPy 2 promotion with weak Python scalars (NEP 50); variables unify over
 * all their assignments (iterated to a fixed point); device functions are
 * specialised per call-site argument types. */
#include <stdio.h>
#include <string.h>

#include "ti.h"

/* ---- helpers ---- */

/* Typing errors are TypeErrors unless the caller says otherwise (ti_err_kind). */
CJ_NORETURN static void
ti_verr(Ti *t, Node *n, CjErrKind kind, const char *fmt, va_list ap)
{
    CjTry *tr = t->p->try_;
    vsnprintf(tr->err.msg, sizeof tr->err.msg, fmt, ap);
    va_end(ap);
    tr->err.file = t->fn->file;
    tr->err.loc = n ? n->loc : t->fn->loc;
    tr->err.kind = kind;
    tr->err.internal = 0;
    longjmp(tr->jb, 1);
}

void
ti_err(Ti *t, Node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ti_verr(t, n, CE_TYPE, fmt, ap);
}

/* a user error of another kind (CE_VALUE: a constant out of range ...) */
void
ti_err_kind(Ti *t, Node *n, CjErrKind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ti_verr(t, n, kind, fmt, ap);
}

const char *
ti_tstr(Ti *t, const Type *ty)
{
    if (!ty) {
        return "unknown";
    }
    Buf b;
    buf_init(&b);
    cj_type_str(&b, ty);
    const char *s = cj_strdup(t->p->arena, b.s ? b.s : "?");
    buf_free(&b);
    return s;
}

Type *
ti_idx(Ti *t)
{
    return cj_scalar(t->p->idx32 ? DT_I32 : DT_I64);
}

static Type *
set(Ti *t, Node *n, Type *ty)
{
    t->in->ntype[n->id] = ty;
    return ty;
}

static int
is_int_like(const Type *ty)
{
    char k = cj_type_kind(ty);
    return cj_is_numeric(ty) && (k == 'i' || k == 'u' || k == 'b');
}

static void
need_numeric(Ti *t, Node *n, Type *ty, const char *what)
{
    if (ty && !cj_is_numeric(ty)) {
        ti_err(t, n, "%s needs a number, got %s", what, ti_tstr(t, ty));
    }
}

/* A value usable as a condition: numbers (Python truthiness). */
static void
need_truth(Ti *t, Node *n, Type *ty)
{
    if (ty && !cj_is_numeric(ty)) {
        ti_err(t, n, "a %s cannot be used as a condition in a kernel; compare it or use its "
            "elements", ti_tstr(t, ty));
    }
}

static void note_dtype(Ti *t, DType dt);

/* a record dtype's struct (and its fields' dtypes) wanted in the output */
static void
note_record(Ti *t, DType dt)
{
    Program *p = t->p;
    for (int i = 0; i < p->nrecords; i++) {
        if (p->records[i] == dt) {
            return;
        }
    }
    const CjRecord *r = cj_record(dt);
    for (int i = 0; i < r->nfields; i++) {
        note_dtype(t, r->fields[i].dt);
    }
    if (p->nrecords == p->reccap) {
        p->reccap = p->reccap ? 2 * p->reccap : 8;
        DType *v = cj_alloc(p->arena, sizeof(DType) * (size_t)p->reccap);
        if (p->nrecords) {
            memcpy(v, p->records, sizeof(DType) * (size_t)p->nrecords);
        }
        p->records = v;
    }
    p->records[p->nrecords++] = dt;
}

static void
note_dtype(Ti *t, DType dt)
{
    if (cj_is_record(dt)) {
        note_record(t, dt);
    } else if (cj_is_half(dt)) {
        t->p->features |= cj_half_feature(dt);
    } else if (dt == DT_C64 || dt == DT_C128) {
        t->p->features |= FEAT_COMPLEX;
    }
}

static void
note_type(Ti *t, const Type *ty)
{
    if (!ty) {
        return;
    }
    if (ty->kind == TY_RECORD || ty->kind == TY_DTYPE
        || (ty->kind == TY_ARRAY && cj_is_record(ty->dtype))) {
        note_dtype(t, ty->dtype);
    } else if (ty->kind == TY_SCALAR || ty->kind == TY_ARRAY || ty->kind == TY_ITER) {
        if (cj_is_half(ty->dtype)) {
            t->p->features |= cj_half_feature(ty->dtype);
        } else if (ty->dtype == DT_C64 || ty->dtype == DT_C128) {
            t->p->features |= FEAT_COMPLEX;
        }
    } else if (ty->kind == TY_WEAK_COMPLEX) {
        t->p->features |= FEAT_COMPLEX;
    } else if (ty->kind == TY_TUPLE) {
        for (int i = 0; i < ty->ntup; i++) {
            note_type(t, ty->tup[i]);
        }
    } else if (ty->kind == TY_OPTIONAL) {
        t->p->features |= FEAT_OPTIONAL;
        note_type(t, ty->base);
    }
}

/* ---- NEP 50 ranges of Python int parameters ---- */

/* the parameter `operand` reads when that holds a weak Python int; -1
 * otherwise (a parameter assigned in the body drops its notes at the end) */
static int
weak_param(Ti *t, Node *operand)
{
    if (operand->kind != ND_VAR || !operand->var->is_param) {
        return -1;
    }
    int k = operand->var->id;
    return t->in->args[k]->kind == TY_WEAK_INT ? k : -1;
}

/* a weak Python int parameter used as `operand` is converted to the dtypes
 * in the mask; noted on the last pass, where every type is final */
void
ti_weak_mask(Ti *t, Node *operand, uint32_t dtypes)
{
    int k = weak_param(t, operand);
    if (t->final && k >= 0) {
        t->in->weak_to[k] |= dtypes;
    }
}

/* a weak Python int literal, or one under unary minus and plus signs (-5 is
 * USub(5)): its constant, its sign (-1 for an odd number of minus signs) */
static const Const *
signed_literal(Node *operand, int *sign)
{
    *sign = 1;
    while (operand->kind == ND_UNARY && (operand->op == OP_NEG || operand->op == OP_POS)) {
        *sign = operand->op == OP_NEG ? -*sign : *sign;
        operand = operand->a;
    }
    const Const *c = &operand->cval;
    if (operand->kind != ND_CONST || !c->weak || (c->kind != CK_INT && c->kind != CK_UINT)) {
        return NULL;
    }
    return c;
}

/* NumPy 2 (NEP 50): a Python int literal converted to an integer dtype must
 * fit it ("Python integer 4294967295 out of bounds for int32", "Python
 * integer -1 out of bounds for uint8").  Not in a cuda.jit kernel, where a
 * Python int is an int64 and its conversions wrap, as Numba's casts do
 * (np.uint8(300) is 44) */
static void
literal_fits(Ti *t, Node *operand, DType dt)
{
    int sign;
    const Const *c = signed_literal(operand, &sign);
    if (!t->final || t->p->numba || !c) {
        return;
    }
    const DTypeInfo *d = &cj_dtypes[dt];
    int bits = 8 * d->size;
    int fits;
    if (c->kind == CK_UINT) {
        fits = dt == DT_U64 && sign > 0;
    } else if (sign < 0 && c->i == INT64_MIN) {
        fits = 0;               /* -(-2**63) */
    } else {
        int64_t v = sign * c->i;
        if (d->kind == 'u') {
            fits = v >= 0 && (bits == 64 || v < ((int64_t)1 << bits));
        } else {
            fits = bits == 64 || (v >= -((int64_t)1 << (bits - 1))
                                  && v < ((int64_t)1 << (bits - 1)));
        }
    }
    if (fits) {
        return;
    }
    if (c->kind == CK_UINT) {
        ti_err(t, operand, "Python integer %s%llu out of bounds for %s", sign < 0 ? "-" : "",
               (unsigned long long)c->u, d->name);
    }
    if (c->i == INT64_MIN) {
        ti_err(t, operand, "Python integer %s9223372036854775808 out of bounds for %s",
               sign < 0 ? "" : "-", d->name);
    }
    ti_err(t, operand, "Python integer %lld out of bounds for %s", (long long)(sign * c->i),
           d->name);
}

/* `operand` is converted to type `to`: noted when that is an integer dtype */
void
ti_weak_to(Ti *t, Node *operand, const Type *to)
{
    if (to && to->kind == TY_SCALAR) {
        char k = cj_dtypes[to->dtype].kind;
        if (k == 'i' || k == 'u') {
            ti_weak_mask(t, operand, 1u << to->dtype);
            literal_fits(t, operand, to->dtype);
        }
    }
}

/* float16, float32 or float64 (a cuda.jit kernel has no weak numbers:
 * numba_strong, so is_int_like is never weak there either) */
static int
numba_real(const Type *x)
{
    return x->kind == TY_SCALAR && (x->dtype == DT_F16 || x->dtype == DT_F32
                                    || x->dtype == DT_F64);
}

/* Numba's integer typing (a cuda.jit kernel, Program.numba): an arithmetic or
 * bitwise operator of integers or booleans computes in at least 64 bits,
 * signed when either operand is (a bool counts as signed); a shift keeps
 * its left operand's signedness; & | ^ of two booleans is a boolean (NULL:
 * NumPy's rule gives it).  Operands are never weak there (Python numbers are
 * int64 and float64, as Numba types them). */
static Type *
numba_int_op(int op, const Type *x, const Type *y)
{
    if (op == OP_DIV || (cj_type_kind(x) == 'b' && cj_type_kind(y) == 'b'
                         && (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR))) {
        return NULL;
    }
    int xu = cj_type_kind(x) == 'u', yu = cj_type_kind(y) == 'u';
    int uns = op == OP_LSHIFT || op == OP_RSHIFT ? xu : xu && yu;
    return cj_scalar(uns ? DT_U64 : DT_I64);
}

/* the float an integer meets a float as in Numba (its casting rules: int8
 * and bool fit float16, uint8 and int16 float32, wider ones float64) */
static DType
numba_float_of(DType dt)
{
    switch (dt) {
    case DT_BOOL: case DT_I8:
        return DT_F16;
    case DT_U8: case DT_I16:
        return DT_F32;
    default:
        return DT_F64;
    }
}

/* Numba's result of x op y (a cuda.jit kernel) where it differs from
 * NumPy's: integers and booleans (numba_int_op); an integer with a float
 * gives the wider of the float and numba_float_of(int) (uint16 with float32
 * is float64); a float ** an integer keeps the float; //, % and ** of
 * float16 compute in float32.  NULL: NumPy's rule (complex, bfloat16, NumPy
 * mode, a shift or bitwise operator of a float, which it refuses). */
static Type *
numba_binop(Ti *t, int op, const Type *x, const Type *y)
{
    if (!t->p->numba || op == OP_MATMUL || (!is_int_like(x) && !numba_real(x))
        || (!is_int_like(y) && !numba_real(y))) {
        return NULL;
    }
    if (is_int_like(x) && is_int_like(y)) {
        return numba_int_op(op, x, y);
    }
    if (op == OP_LSHIFT || op == OP_RSHIFT || op == OP_BITOR || op == OP_BITXOR
        || op == OP_BITAND) {
        return NULL;
    }
    DType f;
    if (numba_real(x) && is_int_like(y) && op == OP_POW) {
        f = x->dtype;
    } else if (numba_real(x) && numba_real(y)) {
        f = cj_promote_dt(x->dtype, y->dtype);
    } else {
        const Type *fl = numba_real(x) ? x : y, *in = numba_real(x) ? y : x;
        f = cj_promote_dt(fl->dtype, numba_float_of(in->dtype));
    }
    if (f == DT_F16 && (op == OP_FLOORDIV || op == OP_MOD || op == OP_POW)) {
        f = DT_F32;
    }
    return cj_scalar(f);
}

/* -x, +x, ~x of an integer or boolean in a cuda.jit kernel: Numba's 64 bits
 * of its signedness (a boolean's: int64; ~ of a boolean stays one); NULL
 * otherwise */
static Type *
numba_int_unary(Ti *t, int op, const Type *x)
{
    if (!t->p->numba || !is_int_like(x) || (op == OP_INVERT && cj_type_kind(x) == 'b')) {
        return NULL;
    }
    return cj_scalar(cj_type_kind(x) == 'u' ? DT_U64 : DT_I64);
}

/* x op y converts a weak Python int operand to the other's integer dtype;
 * true division converts both to float64 (no range to keep) */
static void
weak_operands(Ti *t, int op, Node *a, Node *b, Type *x, Type *y)
{
    if (op == OP_DIV || !x || !y || !cj_is_numeric(x) || !cj_is_numeric(y)) {
        return;
    }
    Type *r = numba_binop(t, op, x, y);
    r = r ? r : cj_promote(x, y);
    ti_weak_to(t, a, r);
    ti_weak_to(t, b, r);
}

/* ---- expressions ---- */

static Type *ti_expr(Ti *t, Node *n);
static Type *ti_expr_opt(Ti *t, Node *n);

/* a device array read as a global: an array argument's type (its address,
 * shape and strides are constants of the kernel) */
static Type *
devarray_type(Ti *t, Node *n)
{
    const CjDevArray *a = n->cval.arr;
    Program *p = t->p;
    if (p->idx32 && a->span >= ((int64_t)1 << 31)) {
        ti_err_kind(t, n, CE_VALUE, "this global device array spans %lld bytes, more than "
                    "32-bit indexing reaches, and the kernel's arguments chose 32-bit "
                    "indexing: pass the array as an argument instead", (long long)a->span);
    }
    Type *ty = cj_array_type(p->arena, a->dt, a->ndim, a->layout);
    ty->readonly = (char)a->readonly;
    if (cj_is_half(a->dt)) {
        p->features |= cj_half_feature(a->dt);
    } else if (cj_dtypes[a->dt].kind == 'c') {
        p->features |= FEAT_COMPLEX;
    }
    return ty;
}

static Type *
const_type(Ti *t, Node *n)
{
    Const *c = &n->cval;
    if (c->enm) {
        return cj_enum_type(t->p->arena, c->dt, c->enm);    /* an Enum member */
    }
    switch (c->kind) {
    case CK_BOOL:
        return cj_scalar(DT_BOOL);
    case CK_INT:
    case CK_UINT:
        return c->weak ? cj_weak(TY_WEAK_INT) : cj_scalar(c->dt);
    case CK_FLOAT:
        return c->weak ? cj_weak(TY_WEAK_FLOAT) : cj_scalar(c->dt);
    case CK_COMPLEX:
        t->p->features |= FEAT_COMPLEX;
        return c->weak ? cj_weak(TY_WEAK_COMPLEX) : cj_scalar(c->dt);
    case CK_STR:
        return cj_string();
    case CK_NONE:
        return cj_none();
    case CK_DTYPE:
        return cj_dtype_type(c->dt);
    case CK_DEVARRAY:
        return devarray_type(t, n);
    }
    cj_unreachable(t->p->try_, "constant kind");
}

static const char *
op_str(int op)
{
    static const char *const s[] = {
        "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "|", "^", "&", "@",
        "-", "+", "~", "not", "==", "!=", "<", "<=", ">", ">=", "is", "is not", "in",
        "not in", "and", "or",
    };
    return s[op];
}

/* t1 + t2 of two tuples: their items in one tuple; each operand is read
 * once per item, so it is a name, a tuple written out or a.shape */
static Type *
tuple_concat_type(Ti *t, Node *n, Type *x, Type *y)
{
    Node *side[2] = {n->a, n->b};
    for (int i = 0; i < 2; i++) {
        Node *a = side[i];
        if (!(a->kind == ND_VAR || a->kind == ND_TUPLE
              || (a->kind == ND_ATTR && (a->op == AT_SHAPE || a->op == AT_STRIDES)))) {
            ti_err(t, a, "a tuple joined with + must be a name, a tuple written out or "
                   "a.shape: assign this one to a name first");
        }
    }
    Type **el = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(x->ntup + y->ntup + 1));
    for (int i = 0; i < x->ntup; i++) {
        el[i] = x->tup[i];
    }
    for (int i = 0; i < y->ntup; i++) {
        el[x->ntup + i] = y->tup[i];
    }
    return cj_tuple_type(t->p->arena, el, x->ntup + y->ntup);
}

/* Result type of `x op y` on numbers (NumPy 2 ufunc loops, NEP 50); of two
 * tuples joined with +, the tuple of their items. */
Type *
ti_binop_type(Ti *t, Node *n, int op, Type *x, Type *y)
{
    if (!x || !y) {
        return NULL;
    }
    if (x->kind == TY_TUPLE && y->kind == TY_TUPLE && op == OP_ADD && n
        && n->kind == ND_BINOP && !x->enm && !y->enm) {
        return tuple_concat_type(t, n, x, y);
    }
    ti_vector_refuse(t, n, x, y, "operator ", op_str(op));
    if (x->kind == TY_ITER || y->kind == TY_ITER || (x->kind == TY_ARRAY && x->mem != MEM_GLOBAL
                                                     && x->mem != MEM_CONST && op == OP_ADD
                                                     && cj_is_numeric(y))) {
        return ti_iter_binop(t, n, op, x, y);
    }
    if (!cj_is_numeric(x) || !cj_is_numeric(y)) {
        ti_err(t, n, "unsupported operand types for %s: %s and %s", op_str(op), ti_tstr(t, x),
            ti_tstr(t, y));
    }
    Type *wide = numba_binop(t, op, x, y);
    if (wide) {
        return wide;
    }
    Type *r = cj_promote(x, y);
    char k = cj_type_kind(r);
    int weak = cj_is_weak(r);
    switch (op) {
    case OP_ADD:
    case OP_MUL:
        return r;
    case OP_SUB:
        if (k == 'b') {
            ti_err(t, n, "subtracting booleans is not supported (as in NumPy); use ^ or "
                "convert with int()");
        }
        return r;
    case OP_DIV:
        if (k == 'b' || k == 'i' || k == 'u') {
            return weak ? cj_weak(TY_WEAK_FLOAT) : cj_scalar(DT_F64);
        }
        return r;
    case OP_FLOORDIV:
    case OP_MOD:
    case OP_POW:
        if (k == 'c' && op != OP_POW) {
            ti_err(t, n, "operator %s is not defined for complex numbers", op_str(op));
        }
        if (k == 'c') {
            return r;
        }
        int64_t e;
        if (op == OP_POW && weak && k == 'i' && n && n->b && cj_fold_int(n->b, &e) && e < 0) {
            return cj_weak(TY_WEAK_FLOAT);      /* Python: 2 ** -1 == 0.5 */
        }
        return k == 'b' ? cj_scalar(DT_I8) : r;
    case OP_LSHIFT:
    case OP_RSHIFT:
    case OP_BITOR:
    case OP_BITXOR:
    case OP_BITAND:
        if (k != 'b' && k != 'i' && k != 'u') {
            ti_err(t, n, "operator %s needs integers or booleans, got %s and %s%s", op_str(op),
                ti_tstr(t, x), ti_tstr(t, y), t->p->numba && k == 'f'
                ? " (in Numba's typing a variable assigned both a uint64 and a signed integer "
                  "is a float64: convert one of them, e.g. with np.uint64(...) or int(...))"
                : "");
        }
        if (k == 'b' && (op == OP_LSHIFT || op == OP_RSHIFT)) {
            return cj_scalar(DT_I8);
        }
        return r;
    default:
        break;
    }
    ti_err(t, n, "operator %s is not supported in kernels", op_str(op));
}

static Type *
unary_type(Ti *t, Node *n)
{
    Type *x = ti_expr(t, n->a);
    if (!x) {
        return NULL;
    }
    ti_vector_refuse(t, n, x, NULL, "operator ", op_str(n->op));
    if (n->op == OP_NOT) {
        need_truth(t, n->a, x);
        return cj_scalar(DT_BOOL);
    }
    need_numeric(t, n, x, n->op == OP_INVERT ? "operator ~" : "unary minus or plus");
    Type *wide = numba_int_unary(t, n->op, x);
    if (wide) {
        return wide;
    }
    char k = cj_type_kind(x);
    if (n->op == OP_INVERT && k != 'b' && k != 'i' && k != 'u') {
        ti_err(t, n, "operator ~ needs an integer or a boolean, got %s", ti_tstr(t, x));
    }
    if (n->op == OP_NEG && k == 'b') {
        ti_err(t, n, "negating a boolean is not supported (as in NumPy); use 'not'");
    }
    return x;
}

/* an Enum member (not an IntEnum's) is compared with ==, != and is only */
static void
enum_compare(Ti *t, Node *n, int op, const Type *x, const Type *y)
{
    int plain = (x->enm && x->enm[0] == 'E') || (y->enm && y->enm[0] == 'E')
                || x->kind == TY_TUPLE || y->kind == TY_TUPLE;
    if (plain && op != OP_EQ && op != OP_NE && op != OP_IS && op != OP_ISNOT) {
        ti_err(t, n, "Enum members (%s, %s) are compared with ==, != and is only; compare "
               "their .value, or make the class an IntEnum", ti_tstr(t, x), ti_tstr(t, y));
    }
}

/* x.value of an Enum member: its value; another attribute of one: an error */
static Type *
enum_attr(Ti *t, Node *n, const Type *x)
{
    if (n->op == AT_FIELD && strcmp(n->str, "value") == 0) {
        return cj_scalar(x->dtype);
    }
    ti_err(t, n, "attribute '%s' of an Enum member is not supported in kernels (only "
           ".value)", n->str);
}

/* arithmetic on an Enum member that is not an int (an IntEnum's is) */
static void
enum_arith(Ti *t, Node *n, const Type *x, const Type *y)
{
    if ((x && x->enm && x->enm[0] == 'E') || (y && y->enm && y->enm[0] == 'E')) {
        ti_err(t, n, "arithmetic on an Enum member (%s) is not supported: use its .value, "
               "or make the class an IntEnum", ti_tstr(t, x && x->enm ? x : y));
    }
}

/* x is None / x is not None (either side): x may be Optional, known only
 * when the kernel runs */
static int
is_none_test(const Node *n)
{
    if (n->kind != ND_COMPARE || n->n != 2 || (n->ops[0] != OP_IS && n->ops[0] != OP_ISNOT)) {
        return 0;
    }
    return (n->list[0]->kind == ND_CONST && n->list[0]->cval.kind == CK_NONE)
           || (n->list[1]->kind == ND_CONST && n->list[1]->cval.kind == CK_NONE);
}

/* x op y, one link of a comparison: numbers (complex ones with == and !=
 * only), booleans with 'is', Enum members */
static void
compare_pair(Ti *t, Node *n, int op, const Type *prev, const Type *cur)
{
    ti_vector_refuse(t, n, prev, cur, "comparison ", op_str(op));
    enum_compare(t, n, op == OP_IN ? OP_EQ : op, prev, cur);
    if ((op == OP_IS || op == OP_ISNOT) && !(prev->enm && cur->enm)
        && !(cj_type_kind(prev) == 'b' && cj_type_kind(cur) == 'b')) {
        ti_err(t, n, "'is' of %s and %s is not supported in kernels ('is' compares "
               "booleans, flag is True, and Enum members); use == or !=",
               ti_tstr(t, prev), ti_tstr(t, cur));
    }
    if (prev->enm && cur->enm && (prev->kind == TY_TUPLE || cur->kind == TY_TUPLE)) {
        return;         /* Enum members with tuple values: == and is only */
    }
    if (!cj_is_numeric(prev) || !cj_is_numeric(cur)) {
        ti_err(t, n, "cannot compare %s with %s in a kernel%s", ti_tstr(t, prev),
               ti_tstr(t, cur), op == OP_IN ? " ('x in t' compares x with each item of t "
               "by ==)" : "");
    }
    if ((cj_type_kind(prev) == 'c' || cj_type_kind(cur) == 'c') && op != OP_EQ
        && op != OP_NE && op != OP_IN) {
        ti_err(t, n, "complex numbers can only be compared with == and !=");
    }
}

/* x in range([start,] stop [, step]): integer bounds; x any number (a
 * float or complex one is in it when it equals an int that is) */
static void
in_range_type(Ti *t, Node *n, const Type *x, Node *r)
{
    if (r->n < 1 || r->n > 3 || r->kwnames) {
        ti_err(t, r, "range() takes one to three integers ([start,] stop [, step]), "
               "given by position");
    }
    for (int i = 0; i < r->n; i++) {
        Type *a = ti_expr(t, r->list[i]);
        if (a && !is_int_like(a)) {
            ti_err(t, r->list[i], "range() takes integers, got %s", ti_tstr(t, a));
        }
    }
    set(t, r, cj_scalar(DT_I64));
    if (x && (x->kind != TY_SCALAR || x->enm) && !cj_is_weak(x)) {
        ti_err(t, n, "'x in range(...)' needs a number x, got %s", ti_tstr(t, x));
    }
}

/* x in t, x not in t (a bool): t a tuple (x == each item, by =='s rules),
 * a list written out (read as a tuple), range(...) or an array (x == each
 * element) */
static Type *
in_type(Ti *t, Node *n)
{
    Type *x = ti_expr(t, n->list[0]);
    Node *c = n->list[1];
    if (c->kind == ND_CALL && c->op == BI_RANGE) {
        in_range_type(t, n, x, c);
        return cj_scalar(DT_BOOL);
    }
    Type *ct = ti_expr(t, c);
    if (!x || !ct) {
        return cj_scalar(DT_BOOL);
    }
    if (ct->kind == TY_TUPLE) {
        for (int i = 0; i < ct->ntup; i++) {
            Type *e = c->kind == ND_TUPLE ? t->in->ntype[c->list[i]->id] : ct->tup[i];
            compare_pair(t, n, OP_IN, x, e ? e : ct->tup[i]);
        }
        return cj_scalar(DT_BOOL);
    }
    if (ct->kind == TY_ARRAY) {
        compare_pair(t, n, OP_IN, x, cj_scalar(ct->dtype));
        return cj_scalar(DT_BOOL);
    }
    ti_err(t, n, "'x %s t' needs a tuple, a list written out ([a, b]), range(...) or an "
           "array t in kernels, got %s", n->ops[0] == OP_IN ? "in" : "not in",
           ti_tstr(t, ct));
}

static Type *
compare_type(Ti *t, Node *n)
{
    if (is_none_test(n)) {
        ti_expr_opt(t, n->list[0]);
        ti_expr_opt(t, n->list[1]);
        return cj_scalar(DT_BOOL);  /* known from x's type unless Optional (typed_truth) */
    }
    if (n->n == 2 && (n->ops[0] == OP_IN || n->ops[0] == OP_NOTIN)) {
        return in_type(t, n);
    }
    Type *prev = ti_expr(t, n->list[0]);
    for (int i = 1; i < n->n; i++) {
        Type *cur = ti_expr(t, n->list[i]);
        if (prev && cur) {
            compare_pair(t, n, n->ops[i - 1], prev, cur);
        }
        prev = cur;
    }
    return cj_scalar(DT_BOOL);
}

static Type *
boolop_type(Ti *t, Node *n)
{
    Type *r = NULL;
    for (int i = 0; i < n->n; i++) {
        Type *x = ti_expr(t, n->list[i]);
        if (!x) {
            return NULL;
        }
        need_truth(t, n->list[i], x);
        r = i == 0 ? x : cj_unify(t->p->arena, r, x);
        if (!r) {
            ti_err(t, n, "the operands of '%s' have types that cannot meet", op_str(n->op));
        }
    }
    return r;
}

static Type *
ifexp_type(Ti *t, Node *n)
{
    Type *c = ti_expr(t, n->a);
    need_truth(t, n->a, c);
    Type *x = ti_expr(t, n->b), *y = ti_expr(t, n->c);
    if (!x || !y) {
        return x ? x : y;       /* one branch may not be typed yet */
    }
    Type *r = cj_unify(t->p->arena, x, y);
    if (!r || r->kind == TY_ARRAY || r->kind == TY_OPTIONAL) {
        ti_err(t, n, "the two branches of the conditional expression have types %s and %s, "
            "which cannot meet", ti_tstr(t, x), ti_tstr(t, y));
    }
    return r;
}

/* ---- views: a[i] of a 2-d a, a[lo:hi:step], a[:, j] ---- */

static int index_is_tuple(Node *n, Type **ix);

/* an index with a slice, or fewer single indices than dimensions (a tuple
 * value indexing every dimension, a[gid] with gid = grid(2), is an element) */
static int
is_view(Node *n, Type **ix, const Type *base)
{
    for (int i = 0; i < n->n; i++) {
        if (n->list[i]->kind == ND_SLICE) {
            return 1;
        }
    }
    return n->n < base->ndim && !index_is_tuple(n, ix);
}

/* a[t] with t a tuple value */
static int
index_is_tuple(Node *n, Type **ix)
{
    return n->n == 1 && ix[0] && ix[0]->kind == TY_TUPLE;
}

/* one bound or step of a slice: an integer, or omitted */
static void
slice_part(Ti *t, Node *part, const char *what)
{
    if (!part) {
        return;
    }
    Type *ty = t->in->ntype[part->id];
    if (ty && (!is_int_like(ty) || cj_type_kind(ty) == 'b')) {
        ti_err(t, part, "a slice %s must be an integer, got %s", what, ti_tstr(t, ty));
    }
}

static void
slice_type(Ti *t, Node *s)
{
    Node *parts[3] = {s->a, s->b, s->c};
    for (int k = 0; k < 3; k++) {
        if (parts[k]) {
            ti_expr(t, parts[k]);
        }
    }
    slice_part(t, s->a, "start");
    slice_part(t, s->b, "stop");
    slice_part(t, s->c, "step");
    int64_t step;
    if (s->c && cj_fold_int(s->c, &step) && step == 0) {
        ti_err_kind(t, s->c, CE_VALUE, "slice step cannot be zero");
    }
    set(t, s, cj_void());
}

/* a slice that keeps a whole dimension: ':' or '::1' */
static int
full_slice(const Node *s)
{
    int64_t step;
    return s->kind == ND_SLICE && !s->a && !s->b
           && (!s->c || (cj_fold_int(s->c, &step) && step == 1));
}

/* a slice of step 1 (omitted or the constant 1) */
static int
unit_slice(const Node *s)
{
    int64_t step;
    return s->kind == ND_SLICE && (!s->c || (cj_fold_int(s->c, &step) && step == 1));
}

/* 'C' when a C-contiguous base stays contiguous: single indices first, then
 * at most one slice of step 1, then whole dimensions; 'A' otherwise */
static char
view_layout(Node *n, const Type *base)
{
    int c_base = base->mem != MEM_GLOBAL ? base->mem != MEM_DYNSHARED || base->ndim == 1
                                         : base->layout == 'C';
    if (!c_base) {
        return 'A';
    }
    int i = 0;
    while (i < n->n && n->list[i]->kind != ND_SLICE) {
        i++;
    }
    if (i < n->n && !unit_slice(n->list[i])) {
        return 'A';
    }
    for (i++; i < n->n; i++) {
        if (!full_slice(n->list[i])) {
            return 'A';
        }
    }
    return 'C';
}

/* a[i, lo:hi] ...: an array of the single indices' dimensions fewer, a
 * (data, shape, strides) value like an argument, whatever the base's memory */
static Type *
view_type(Ti *t, Node *n, Type *base)
{
    int ints = 0;
    if (n->n > base->ndim) {
        ti_err_kind(t, n, CE_INDEX, "too many indices for %s: %d-dimensional, but %d were "
                    "indexed", ti_tstr(t, base), base->ndim, n->n);
    }
    for (int i = 0; i < n->n; i++) {
        Node *ix = n->list[i];
        if (ix->kind == ND_SLICE) {
            slice_type(t, ix);
            continue;
        }
        ints++;
        Type *it = t->in->ntype[ix->id];
        if (it && (!is_int_like(it) || cj_type_kind(it) == 'b')) {
            ti_err(t, ix, "array indices must be integers or slices, got %s", ti_tstr(t, it));
        }
    }
    Type *v = cj_array_type(t->p->arena, base->dtype, base->ndim - ints, view_layout(n, base));
    v->readonly = base->readonly || base->mem == MEM_CONST;
    t->p->features |= FEAT_VIEW | (base->mem == MEM_DYNSHARED ? FEAT_DYNSHARED : 0);
    if (t->fn->boundscheck & CHK_BOUNDS) {
        t->p->features |= FEAT_BOUNDS;
    }
    return v;
}

/* a[t]: t a tuple of as many integers as a has dimensions */
static Type *
tuple_element(Ti *t, Node *n, Type *base, Type *tt)
{
    if (tt->ntup != base->ndim) {
        ti_err_kind(t, n, CE_INDEX, "%s needs %d indices, got a tuple of %d", ti_tstr(t, base),
                    base->ndim, tt->ntup);
    }
    for (int i = 0; i < tt->ntup; i++) {
        if (!is_int_like(tt->tup[i]) || cj_type_kind(tt->tup[i]) == 'b') {
            ti_err(t, n->list[0], "array indices must be integers, got %s",
                   ti_tstr(t, tt->tup[i]));
        }
    }
    if (t->fn->boundscheck & CHK_BOUNDS) {
        t->p->features |= FEAT_BOUNDS;
    }
    return cj_scalar(base->dtype);
}

/* a tuple written out of constants and variables, or of such tuples (a
 * global tuple reads so: WEIGHTS[c] of a module's WEIGHTS): each read of it
 * reads the same items */
static int
plain_tuple(const Node *n)
{
    if (n->kind != ND_TUPLE) {
        return 0;
    }
    for (int i = 0; i < n->n; i++) {
        const Node *x = n->list[i];
        if (x->kind != ND_CONST && x->kind != ND_VAR && !plain_tuple(x)) {
            return 0;
        }
    }
    return 1;
}

/* the items of a tuple indexed by a variable, when they are tuples of
 * numbers (NEIGHBOURS[k] of ((0, 1), (1, 0), ...), `for di, dj in
 * NEIGHBOURS`): the tuple they meet in, its numbers concrete; NULL when
 * they do not meet, or when the items of a variable differ (codegen
 * converts the items of a tuple written out only) */
static Type *
tuple_items_type(Ti *t, const Node *base_node, Type *base, Type *u)
{
    if (!u || u->kind != TY_TUPLE) {
        return NULL;
    }
    for (int i = 0; i < base->ntup && base_node->kind != ND_TUPLE; i++) {
        if (!cj_type_eq(base->tup[i], u)) {
            return NULL;
        }
    }
    Type **el = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(u->ntup + 1));
    for (int i = 0; i < u->ntup; i++) {
        if (!cj_is_numeric(u->tup[i])) {
            return NULL;
        }
        el[i] = cj_concrete(u->tup[i]);
    }
    return cj_tuple_type(t->p->arena, el, u->ntup);
}

/* t[i] with i not a constant: every item converted to one type (a loop
 * over a tuple reads it so); t is a variable or a tuple of constants and
 * variables, read once per item */
static Type *
tuple_index_var(Ti *t, Node *n, Type *base, Type *ix)
{
    if (ix && (!is_int_like(ix) || cj_type_kind(ix) == 'b')) {
        ti_err(t, n->list[0], "tuple indices must be integers, got %s", ti_tstr(t, ix));
    }
    int pure = n->a->kind == ND_VAR || plain_tuple(n->a)
               || (n->a->kind == ND_ATTR && (n->a->op == AT_SHAPE || n->a->op == AT_STRIDES));
    if (!pure) {
        ti_err(t, n, "a tuple can only be indexed by an integer constant");
    }
    t->in->aux[n->id] = -1;
    if (base->ntup == 0) {
        return cj_weak(TY_WEAK_INT);    /* a loop over () never reads it: no type to impose */
    }
    Type *u = base->tup[0];
    for (int i = 1; i < base->ntup && u; i++) {
        u = cj_unify(t->p->arena, u, base->tup[i]);
    }
    Type *items = tuple_items_type(t, n->a, base, u);
    if (items) {
        return items;
    }
    if (!u || !(cj_is_numeric(u) || u->kind == TY_VECTOR
                || (u->kind == TY_ARRAY && u->mem == MEM_GLOBAL))) {
        ti_err(t, n, "a tuple indexed by a variable (or iterated over) must hold numbers "
               "that meet in one type, CUDA vectors of one type, tuples of numbers or arrays "
               "of one dtype and rank; this one is %s", ti_tstr(t, base));
    }
    return cj_concrete(u);
}

/* tuple '[' int ']': a constant index (negative ones from the end) or,
 * for a tuple whose items meet in one type, a variable */
static Type *
tuple_index(Ti *t, Node *n, Type *base, Type *ix)
{
    int64_t k;
    if (n->n != 1) {
        ti_err(t, n, "a tuple takes one index");
    }
    if (!cj_fold_int(n->list[0], &k) || (n->list[0]->kind == ND_CONST
                                          && n->list[0]->cval.kind != CK_INT)) {
        return tuple_index_var(t, n, base, ix);
    }
    if (k < -base->ntup || k >= base->ntup) {
        ti_err_kind(t, n, CE_INDEX, "tuple index %lld out of range for a tuple of %d items",
                    (long long)k, base->ntup);
    }
    if (k < 0) {
        k += base->ntup;
    }
    t->in->aux[n->id] = k;
    return base->tup[k];
}

/* r.name / r['name'] on a record: a number, a nested record, or a
 * sub-array field as an array of static shape inside the record (C order) */
static Type *
field_type(Ti *t, Node *n, const Type *rec, const char *name)
{
    const CjField *f = cj_record_field(rec->dtype, name);
    if (!f) {
        Buf b;
        buf_init(&b);
        const CjRecord *r = cj_record(rec->dtype);
        for (int i = 0; i < r->nfields; i++) {
            buf_printf(&b, "%s'%s'", i ? ", " : "", r->fields[i].name);
        }
        const char *names = cj_strdup(t->p->arena, b.s ? b.s : "");
        buf_free(&b);
        ti_err_kind(t, n, CE_TYPE, "the record has no field '%s' (its fields: %s)", name, names);
    }
    if (f->nsub == 0) {
        return cj_elem_type(f->dt, rec->readonly);
    }
    if (cj_dtypes[f->dt].kind == 'c') {
        ti_err(t, n, "sub-array field '%s' of complex numbers is not supported in kernels; "
               "use two fields of floats (real and imaginary parts)", name);
    }
    if (!cj_field_aligned(cj_record(rec->dtype), f)) {
        ti_err_kind(t, n, CE_TYPE, "sub-array field '%s' of %s lies at offset %d of a "
                    "%d-byte record, off the alignment of its elements in some elements of "
                    "an array: kernels cannot index it (a number field can be read there); "
                    "make the dtype with align=True", name, cj_dtypes[f->dt].name, f->offset,
                    cj_record(rec->dtype)->itemsize);
    }
    Type *a = cj_array_type(t->p->arena, f->dt, f->nsub, 'C');
    a->mem = MEM_LOCAL;
    a->readonly = rec->readonly;
    a->sshape = cj_alloc(t->p->arena, sizeof(int64_t) * (size_t)f->nsub);
    for (int d = 0; d < f->nsub; d++) {
        a->sshape[d] = f->sub[d];
    }
    return a;
}

/* r['name'] by a constant string, r[k] by a constant position (NumPy's
 * too); the field's position goes in aux for codegen (-1: r[()] of a 0-d
 * record array, the record itself) */
static Type *
record_item(Ti *t, Node *n, const Type *rec)
{
    Node *ix = n->n ? n->list[0] : NULL;
    const CjRecord *r = cj_record(rec->dtype);
    int64_t k;
    if (n->n == 0) {            /* r[()]: a 0-d record array's element, the record */
        t->in->aux[n->id] = -1;
        return (Type *)rec;
    }
    if (n->n == 1 && ix->kind == ND_CONST && ix->cval.kind == CK_STR) {
        Type *ft = field_type(t, n, rec, ix->cval.s);
        t->in->aux[n->id] = cj_record_field(rec->dtype, ix->cval.s) - r->fields;
        return ft;
    }
    if (n->n != 1 || !cj_fold_int(ix, &k)) {
        ti_err_kind(t, n, CE_TYPE, "a record is indexed by the name of a field as a constant "
                    "string (r['x']) or its position as a constant, got %s",
                    n->n == 1 ? ti_tstr(t, t->in->ntype[ix->id]) : "several indices");
    }
    if (k < -r->nfields || k >= r->nfields) {
        ti_err_kind(t, n, CE_INDEX, "record field index %lld out of range for a record of %d "
                    "fields", (long long)k, r->nfields);
    }
    k = k < 0 ? k + r->nfields : k;
    t->in->aux[n->id] = k;
    return field_type(t, n, rec, r->fields[k].name);
}

/* a[i, j] on arrays; t[k] with a constant k on tuples; a view when slices
 * or fewer indices than dimensions are given */
static Type *
index_type(Ti *t, Node *n)
{
    Type *base = ti_expr(t, n->a);
    Type *ix[CJ_MAXIDX];
    if (n->n > CJ_MAXIDX) {
        ti_err(t, n, "too many indices");
    }
    for (int i = 0; i < n->n; i++) {
        ix[i] = n->list[i]->kind == ND_SLICE ? NULL : ti_expr(t, n->list[i]);
        if (base && base->kind == TY_ARRAY) {
            ix[i] = ti_zero_d(t, n->list[i], ix[i], 1);    /* a[z], z a 0-d integer array */
        }
    }
    if (!base) {
        return NULL;
    }
    if (base->kind == TY_TUPLE) {
        return tuple_index(t, n, base, ix[0]);
    }
    if (base->kind == TY_ITER) {
        return ti_iter_index(t, n, base, ix[0]);
    }
    if (base->kind == TY_RECORD) {
        return record_item(t, n, base);
    }
    ti_vector_refuse(t, n, base, NULL, "indexing ([])", "");
    if (base->kind != TY_ARRAY) {
        ti_err(t, n, "cannot index a value of type %s", ti_tstr(t, base));
    }
    if (is_view(n, ix, base)) {
        return view_type(t, n, base);
    }
    if (index_is_tuple(n, ix)) {
        return tuple_element(t, n, base, ix[0]);
    }
    if (n->n != base->ndim) {
        ti_err_kind(t, n, CE_INDEX, "too many indices for %s: %d-dimensional, but %d were "
                    "indexed", ti_tstr(t, base), base->ndim, n->n);
    }
    for (int i = 0; i < n->n; i++) {
        if (ix[i] && !is_int_like(ix[i]) && cj_is_record(base->dtype)
            && n->list[i]->kind == ND_CONST && n->list[i]->cval.kind == CK_STR) {
            ti_err(t, n->list[i], "a['%s'] of an array of records is not supported in kernels; "
                   "write a.%s (a view of the field) or a[i]['%s']", n->list[i]->cval.s,
                   n->list[i]->cval.s, n->list[i]->cval.s);
        }
        if (ix[i] && !is_int_like(ix[i])) {
            ti_err(t, n->list[i], "array indices must be integers, got %s", ti_tstr(t, ix[i]));
        }
        if (ix[i] && cj_type_kind(ix[i]) == 'b') {
            ti_err(t, n->list[i], "boolean indices are not supported in kernels; convert with "
                "int()");
        }
    }
    if (t->fn->boundscheck & CHK_BOUNDS) {
        t->p->features |= FEAT_BOUNDS;
    }
    return cj_elem_type(base->dtype, base->readonly || base->mem == MEM_CONST);
}

/* t.name of a namedtuple argument: its element, whose position goes in aux */
static Type *
named_field(Ti *t, Node *n, const Type *x)
{
    for (int i = 0; i < x->ntup; i++) {
        if (strcmp(x->names[i], n->str) == 0) {
            t->in->aux[n->id] = i;
            return x->tup[i];
        }
    }
    Buf b;
    buf_init(&b);
    for (int i = 0; i < x->ntup; i++) {
        buf_printf(&b, "%s'%s'", i ? ", " : "", x->names[i]);
    }
    const char *names = cj_strdup(t->p->arena, b.s ? b.s : "");
    buf_free(&b);
    ti_err(t, n, "the namedtuple has no field '%s' (its fields: %s)", n->str, names);
}

static Type *
attr_type(Ti *t, Node *n)
{
    Type *x = ti_expr(t, n->a);
    if (!x) {
        return NULL;
    }
    if (x->kind == TY_RECORD) {
        return field_type(t, n, x, n->str);
    }
    if (x->kind == TY_VECTOR) {
        return ti_vector_attr(t, n, x);
    }
    if (x->kind == TY_TUPLE && x->names) {
        return named_field(t, n, x);
    }
    if (x->enm) {
        return enum_attr(t, n, x);
    }
    if (x->kind == TY_ARRAY && cj_is_record(x->dtype)
        && (n->op == AT_FIELD || n->op == AT_X || n->op == AT_Y || n->op == AT_Z)) {
        return ti_field_view(t, n, x);
    }
    if (n->op == AT_FIELD) {
        ti_err(t, n, "attribute '%s' is not supported on %s (arrays have .shape, .size, "
               ".ndim, .strides; numbers have .real, .imag; a group's dim3 has .x, .y, .z; "
               "records have their fields)", n->str, ti_tstr(t, x));
    }
    if ((n->op == AT_REAL || n->op == AT_IMAG) && x->kind == TY_ARRAY) {
        return ti_array_part(t, n, x);
    }
    if (n->op == AT_REAL || n->op == AT_IMAG) {
        if (!cj_is_numeric(x)) {
            ti_err(t, n, "%s has no .%s", ti_tstr(t, x), n->op == AT_REAL ? "real" : "imag");
        }
        if (x->kind == TY_WEAK_COMPLEX) {
            return cj_weak(TY_WEAK_FLOAT);
        }
        if (cj_type_kind(x) == 'c') {
            return cj_scalar(x->dtype == DT_C64 ? DT_F32 : DT_F64);
        }
        return x;
    }
    if (n->op == AT_X || n->op == AT_Y || n->op == AT_Z) {
        if (x->kind != TY_TUPLE || x->ntup != 3) {
            ti_err(t, n, "only the dim3 of a group (g.group_index(), ...) has .x, .y and .z; "
                   "got %s", ti_tstr(t, x));
        }
        return x->tup[n->op - AT_X];
    }
    if (x->kind != TY_ARRAY) {
        ti_err(t, n, "only arrays have .shape, .size, .ndim, .strides, .itemsize, .nbytes, "
               ".T and .ctypes.data; got %s",
            ti_tstr(t, x));
    }
    switch (n->op) {
    case AT_ADDRESS:
        return cj_scalar(DT_U64);
    case AT_SIZE:
        return cj_weak(TY_WEAK_INT);    /* a Python int, as in NumPy */
    case AT_NDIM:
    case AT_DTYPE_ITEMSIZE:
    case AT_NBYTES:
        return cj_weak(TY_WEAK_INT);
    case AT_T:
        return ti_array_transpose(t, x);
    case AT_SHAPE:
    case AT_STRIDES: {
        Type **el = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(x->ndim + 1));
        for (int i = 0; i < x->ndim; i++) {
            el[i] = cj_weak(TY_WEAK_INT);
        }
        return cj_tuple_type(t->p->arena, el, x->ndim);
    }
    default:
        break;
    }
    cj_unreachable(t->p->try_, "attribute");
}

static Type *
tuple_type(Ti *t, Node *n)
{
    Type **el = cj_alloc(t->p->arena, sizeof(Type *) * (size_t)(n->n + 1));
    for (int i = 0; i < n->n; i++) {
        el[i] = ti_expr(t, n->list[i]);
        if (!el[i]) {
            return NULL;
        }
        if (el[i]->kind == TY_ARRAY || el[i]->kind == TY_STRING) {
            ti_err(t, n->list[i], "tuples in kernels hold numbers only, not %s",
                ti_tstr(t, el[i]));
        }
        if (n->list[i]->kind == ND_CALL && t->in->callee[n->list[i]->id] == t->in) {
            ti_err(t, n->list[i], "Return type of recursive function does not converge: "
                   "'%s' returns a tuple that holds its own result, a type that grows at "
                   "each call", t->fn->name);
        }
        if (el[i]->kind == TY_VOID) {
            ti_err(t, n->list[i], "tuples in kernels hold numbers only, not the result of "
                   "a call that returns nothing");
        }
    }
    Type *ty = cj_tuple_type(t->p->arena, el, n->n);
    ty->names = n->kwnames;     /* a namedtuple's fields, or NULL */
    return ty;
}

static Type *
var_type(Ti *t, Node *n)
{
    Type *ty = t->in->vtype[n->var->id];
    if (!ty && t->final) {
        ti_err_kind(t, n, CE_COMPILE, "variable '%s' is used before it is assigned", n->var->name);
    }
    return ty;
}

/* An Optional(T) used where a value is needed is its T (Numba's cast of
 * Optional(T) to T): the node's type is T, and codegen unwraps it (a None
 * there raises TypeError), seeing the variable's or the call's Optional.
 * Only a variable or a device function's call gives one. */
static Type *
unwrap_optional(Ti *t, Node *n, Type *ty, int ok)
{
    if (!ty || ty->kind != TY_OPTIONAL || ok) {
        return ty;
    }
    if (n->kind != ND_VAR && n->kind != ND_CALL) {
        cj_unreachable(t->p->try_, "an Optional value of another expression");
    }
    return ty->base;
}

/* A 0-d array variable where Numba reads it as its element (an integer one
 * as an index, one stored into an element, np.int64(z) of its own dtype):
 * the node's type is the element's, and codegen reads z.data[0].  int_only:
 * an index (bool is no index).  Any other ty is given back unchanged. */
Type *
ti_zero_d(Ti *t, Node *n, Type *ty, int int_only)
{
    if (!ty || ty->kind != TY_ARRAY || ty->ndim != 0 || n->kind != ND_VAR
        || cj_is_record(ty->dtype)) {
        return ty;
    }
    char k = cj_dtypes[ty->dtype].kind;
    if (int_only && k != 'i' && k != 'u') {
        return ty;
    }
    return set(t, n, cj_scalar(ty->dtype));
}

/* an expression that may be Optional: assigned to a name, returned, or
 * compared with None */
static Type *
ti_expr_opt(Ti *t, Node *n)
{
    t->opt_ok = 1;
    return ti_expr(t, n);
}

/* a cuda.jit kernel has no weak numbers: a Python int is int64 (uint64 past
 * its range), a float float64, a complex complex128, as Numba types them */
static Type *
numba_strong(Ti *t, Node *n, Type *ty)
{
    if (!t->p->numba || !ty || !cj_is_weak(ty)) {
        return ty;
    }
    if (n->kind == ND_CONST && n->cval.kind == CK_UINT) {
        return cj_scalar(DT_U64);
    }
    return cj_concrete(ty);
}

static Type *
ti_expr(Ti *t, Node *n)
{
    Type *ty = NULL;
    int opt_ok = t->opt_ok;
    t->opt_ok = 0;
    switch (n->kind) {
    case ND_CONST:
        ty = const_type(t, n);
        break;
    case ND_VAR:
        ty = var_type(t, n);
        if (ty && ty->kind == TY_NONE && !opt_ok && t->final) {
            ti_err(t, n, "variable '%s' holds None here (no path to this line gives it a "
                   "value): it can be tested (x is None), not used as a value", n->var->name);
        }
        break;
    case ND_BINOP: {
        Type *x = ti_expr(t, n->a), *y = ti_expr(t, n->b);
        enum_arith(t, n, x, y);
        ty = ti_binop_type(t, n, n->op, x, y);
        weak_operands(t, n->op, n->a, n->b, x, y);
        break;
    }
    case ND_UNARY:
        ty = unary_type(t, n);
        break;
    case ND_COMPARE:
        ty = compare_type(t, n);
        break;
    case ND_BOOLOP:
        ty = boolop_type(t, n);
        break;
    case ND_IFEXP:
        ty = ifexp_type(t, n);
        break;
    case ND_INDEX:
        ty = index_type(t, n);
        break;
    case ND_ATTR:
        ty = attr_type(t, n);
        break;
    case ND_CALL:
        ty = ti_call(t, n);
        break;
    case ND_TUPLE:
        ty = tuple_type(t, n);
        break;
    case ND_SLICE:
        cj_unreachable(t->p->try_, "a slice outside []");
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_IF: case ND_WHILE: case ND_FOR:
    case ND_BREAK: case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT:
    case ND_EXPR:
        cj_unreachable(t->p->try_, "statement in expression position");
    }
    ty = unwrap_optional(t, n, ty, opt_ok);
    ty = numba_strong(t, n, ty);
    note_type(t, ty);
    return set(t, n, ty);
}

Type *
ti_expr_pub(Ti *t, Node *n)
{
    return ti_expr(t, n);
}

/* ---- assignment ---- */

static void
bind_var(Ti *t, Node *at, Var *v, Type *ty)
{
    t->assigned[v->id] = 1;
    if (!ty) {
        return;
    }
    if (ty->kind == TY_STRING || ty->kind == TY_DTYPE || ty->kind == TY_VOID) {
        ti_err(t, at, "cannot assign %s to a variable in a kernel",
            ty->kind == TY_VOID ? "the result of a call that returns nothing" : ti_tstr(t, ty));
    }
    Type *old = t->in->vtype[v->id];
    if (ty->kind == TY_ARRAY && ty->mem != MEM_GLOBAL && !t->alloc_ok) {
        ti_err(t, at, "shared and local arrays cannot be copied to another variable; use the "
            "name they were created with");
    }
    if (!old) {
        t->in->vtype[v->id] = ty;
        t->vline[v->id] = at->loc.line;
        t->changed = 1;
        return;
    }
    if (ty->kind == TY_ARRAY && ty->mem != MEM_GLOBAL && t->alloc_ok && t->final == 0
        && old != ty && cj_type_eq(old, ty) == 0) {
        ti_err(t, at, "variable '%s' already holds another array", v->name);
    }
    Type *u = cj_unify(t->p->arena, old, ty);
    if (v->byref && !cj_type_eq(cj_concrete(u), cj_concrete(old))) {
        const Type *c = cj_concrete(old);
        ti_err(t, at, "nonlocal '%s' is the variable of the function that defines this one, "
               "of type %s: it cannot take %s here; convert the value%s%s%s", v->name,
               ti_tstr(t, c), ti_tstr(t, cj_concrete(ty)), c->kind == TY_SCALAR ? " (" : "",
               c->kind == TY_SCALAR ? cj_dtypes[c->dtype].name : "",
               c->kind == TY_SCALAR ? "(...))" : "");
    }
    if (!u) {
        ti_err(t, at, "variable '%s' holds %s here but %s %s %d, and a read after both "
            "may see either: a variable keeps one type where its values meet; use another "
            "name", v->name, ti_tstr(t, ty), ti_tstr(t, old),
            v->is_param && t->vline[v->id] == t->fn->loc.line ? "as the parameter of the def at line"
                                                               : "at line",
            t->vline[v->id]);
    }
    if (!cj_type_eq(u, old) || u->kind != old->kind) {
        t->in->vtype[v->id] = u;
        t->changed = 1;
    }
}

/* r.f = src for a sub-array field f: src an array of numbers of f's rank
 * (its shape is f's, checked here when it is static), copied element by
 * element */
static void
subarray_check(Ti *t, Node *target, const Type *into, const Type *ty)
{
    if (ty->kind != TY_ARRAY || ty->ndim != into->ndim || cj_is_record(ty->dtype)
        || ty->mem == MEM_DYNSHARED) {
        ti_err(t, target, "a sub-array field of shape %s is assigned an array of numbers of "
               "that shape, not %s; or assign its elements (r.f[k] = ...)",
               ti_tstr(t, into), ti_tstr(t, ty));
    }
    for (int d = 0; ty->sshape && d < ty->ndim; d++) {
        if (ty->sshape[d] != into->sshape[d]) {
            ti_err_kind(t, target, CE_VALUE, "cannot assign an array of extent %lld to a "
                        "sub-array field of extent %lld in dimension %d",
                        (long long)ty->sshape[d], (long long)into->sshape[d], d);
        }
    }
    if (cj_dtypes[ty->dtype].kind == 'c' && cj_dtypes[into->dtype].kind != 'c') {
        ti_err(t, target, "cannot store complex elements into a sub-array field of %s",
               cj_dtypes[into->dtype].name);
    }
    note_type(t, ty);
}

/* a value of type ty stored into a record's field or an array of records'
 * element, of type `into` */
static void
store_check(Ti *t, Node *target, const Type *into, const Type *ty)
{
    if (!into || !ty) {
        return;
    }
    if (into->kind == TY_RECORD && cj_record(into->dtype)->strkind) {
        if (ty->kind != TY_STRING) {
            ti_err(t, target, "cannot store %s into a string element (%s): assign a string "
                   "constant", ti_tstr(t, ty), ti_tstr(t, into));
        }
        return;
    }
    if (into->kind == TY_RECORD) {
        if (!cj_type_eq(into, ty) && !(ty->kind == TY_RECORD
                                       && cj_record_twins(into->dtype, ty->dtype))) {
            ti_err(t, target, "cannot store %s into a record of another dtype, %s: a record is "
                   "copied whole only from a record of the same dtype", ti_tstr(t, ty),
                   ti_tstr(t, into));
        }
        return;
    }
    if (into->kind == TY_ARRAY) {
        subarray_check(t, target, into, ty);
        return;
    }
    if (!cj_is_numeric(ty)) {
        ti_err(t, target, "cannot store %s into a field of type %s", ti_tstr(t, ty),
               ti_tstr(t, into));
    }
    if (cj_type_kind(ty) == 'c' && cj_type_kind(into) != 'c') {
        ti_err(t, target, "cannot store a complex value into a field of type %s; take .real "
               "or abs() first", ti_tstr(t, into));
    }
}

static void
store_elem(Ti *t, Node *target, Type *ty)
{
    Type *arr = t->in->ntype[target->a->id];
    if (!arr || !ty) {
        return;
    }
    if (arr->kind == TY_TUPLE) {
        ti_err(t, target, "tuples cannot be changed; assign a new tuple to the variable");
    }
    if (arr->readonly) {
        ti_err(t, target, "array is read-only");
    }
    if (arr->kind == TY_ITER && arr->layout != 'P') {
        ti_err(t, target, "cannot store into an element of %s: only a pointer's elements "
               "can be assigned", ti_tstr(t, arr));
    }
    if (arr->kind == TY_RECORD || cj_is_record(arr->dtype)) {
        store_check(t, target, t->in->ntype[target->id], ty);
        return;
    }
    Type *el = t->in->ntype[target->id];
    if (el && el->kind == TY_ARRAY && ty->kind == TY_ARRAY && ty->ndim <= el->ndim
        && cj_is_numeric(cj_scalar(ty->dtype)) && cj_is_numeric(cj_scalar(el->dtype))
        && !(cj_dtypes[ty->dtype].kind == 'c' && cj_dtypes[el->dtype].kind != 'c')
        && !cj_is_half(ty->dtype) && !cj_is_half(el->dtype)) {
        t->p->features |= FEAT_VIEW;    /* x[a:b] = y: y's elements, broadcast */
        return;
    }
    if (el && el->kind == TY_ARRAY && !cj_is_numeric(ty)) {
        ti_err(t, target, "assigning %s to a slice is not supported in kernels: a slice "
               "(a view, %s) takes a number (x[:] = 0) or an array of numbers of as many "
               "dimensions or fewer (no complex into real, no float16)", ti_tstr(t, ty),
               ti_tstr(t, el));
    }
    if (el && el->kind == TY_ARRAY) {
        t->p->features |= FEAT_VIEW;    /* x[a:b] = v: every element of the view */
    }
    if (!cj_is_numeric(ty)) {
        ti_err(t, target, "cannot store %s into an element of %s", ti_tstr(t, ty),
            ti_tstr(t, arr));
    }
    if (cj_type_kind(ty) == 'c' && cj_dtypes[arr->dtype].kind != 'c') {
        ti_err(t, target, "cannot store a complex value into an element of %s; take .real or "
            "abs() first", ti_tstr(t, arr));
    }
}

static void assign_to(Ti *t, Node *target, Node *value, Type *ty);

/* a record expression with an address: a[i], r, r.inner, r['inner'] */
static int
is_record_ref(const Node *v)
{
    return v->kind == ND_INDEX || v->kind == ND_VAR || v->kind == ND_ATTR;
}

/* a target of a tuple assignment must name one element, not fill a view */
static void
one_element(Ti *t, Node *target)
{
    Type *el = target->kind == ND_INDEX ? t->in->ntype[target->id] : NULL;
    if (el && el->kind == TY_ARRAY) {
        ti_err(t, target, "a slice (a view, %s) as a target of a tuple assignment is not "
               "supported in kernels; fill it with an assignment of its own (x[i, :] = v)",
               ti_tstr(t, el));
    }
}

static void
assign_tuple(Ti *t, Node *target, Node *value, Type *ty)
{
    if (value && value->kind == ND_TUPLE) {
        if (value->n != target->n) {
            ti_err_kind(t, target, CE_VALUE, "cannot unpack %d values into %d targets", value->n, target->n);
        }
        t->via_temp++;
        for (int i = 0; i < target->n; i++) {
            assign_to(t, target->list[i], value->list[i], t->in->ntype[value->list[i]->id]);
            one_element(t, target->list[i]);
        }
        t->via_temp--;
        return;
    }
    if (!ty) {
        return;
    }
    if (ty->kind != TY_TUPLE) {
        ti_err_kind(t, target, CE_UNPACK, "cannot unpack a value of type %s: it is not a tuple",
                    ti_tstr(t, ty));
    }
    if (ty->ntup != target->n) {
        ti_err_kind(t, target, CE_VALUE, "cannot unpack %d values into %d targets", ty->ntup, target->n);
    }
    for (int i = 0; i < target->n; i++) {
        assign_to(t, target->list[i], NULL, ty->tup[i]);
        one_element(t, target->list[i]);
    }
}

static int
is_ascii(const char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s >= 0x80) {
            return 0;
        }
    }
    return 1;
}

/* s[i] = "XYZ", r.name = b"XYZ": a fixed-width string element (S12, U12)
 * takes a string constant (truncated to its width, zeros after, as NumPy
 * stores it): a str into unicode, bytes or an ASCII str into bytes */
static void
string_store(Ti *t, Node *target, Node *value)
{
    const Type *into = t->in->ntype[target->id];
    const CjRecord *r = into && into->kind == TY_RECORD ? cj_record(into->dtype) : NULL;
    if (!r || !r->strkind) {
        return;
    }
    const Const *c = value && value->kind == ND_CONST ? &value->cval : NULL;
    if (t->via_temp) {
        ti_err(t, target, "assign a string constant to one string element (%s) at a time, "
               "not in a chained or tuple assignment", ti_tstr(t, into));
    }
    if (!c || c->kind != CK_STR) {
        ti_err(t, target, "a string element (%s) is assigned a string constant in kernels "
               "(s[i] = \"XYZ\", b\"XYZ\" for bytes), not a computed value", ti_tstr(t, into));
    }
    if (r->strkind == 'U' && c->bytes) {
        ti_err(t, value, "cannot store bytes into a unicode element (%s): write a str "
               "constant (\"XYZ\")", ti_tstr(t, into));
    }
    if (r->strkind == 'S' && !c->bytes && !is_ascii(c->s)) {
        ti_err(t, value, "a str with characters outside ASCII cannot be stored into a bytes "
               "element (%s), as NumPy cannot encode it: write a bytes constant", ti_tstr(t, into));
    }
}

static void
assign_to(Ti *t, Node *target, Node *value, Type *ty)
{
    switch (target->kind) {
    case ND_VAR:
        if (ty && ty->kind == TY_RECORD && !(value && is_record_ref(value))
            && !(value && value->kind == ND_CALL && !target->var->is_param)) {
            ti_err(t, target, "a record variable refers to an element of an array or another "
                   "record variable (r = a[i]), or holds a call's record (r = make(...)); "
                   "store this record into an array element instead");
        }
        set(t, target, ty);
        bind_var(t, target, target->var, ty);
        return;
    case ND_INDEX: {
        Type *into = ti_expr(t, target);
        string_store(t, target, value);
        if (into && into->kind == TY_SCALAR && value && !t->via_temp) {
            ty = ti_zero_d(t, value, ty, 0);     /* a[i] = z, z a 0-d array */
        }
        store_elem(t, target, ty);
        return;
    }
    case ND_ATTR: {
        Type *rec = ti_expr(t, target->a);
        ti_vector_refuse(t, target, rec, NULL, "assigning a lane (v.x = ...)", "");
        if (rec && rec->kind != TY_RECORD) {
            ti_err(t, target, "only a record's fields can be assigned (r.x = ...), not an "
                   "attribute of %s", ti_tstr(t, rec));
        }
        if (rec && rec->readonly) {
            ti_err(t, target, "the record is read-only (an element of a read-only or "
                   "constant array)");
        }
        Type *into = ti_expr(t, target);
        string_store(t, target, value);
        store_check(t, target, into, ty);
        return;
    }
    case ND_TUPLE:
        assign_tuple(t, target, value, ty);
        return;
    default:
        break;
    }
    ti_err(t, target, "cannot assign to this expression in a kernel");
}

/* ---- statements ---- */

static void ti_stmts(Ti *t, Node **list, int n);

/* for v in range(a[, b[, c]]): v has the type the integer bounds promote to;
 * in cupyx.jit's dialect int64 where that is unsigned or no integer */
static void
for_stmt(Ti *t, Node *n)
{
    Type *ty = NULL;
    Node *parts[3] = {n->a, n->b, n->c};
    for (int i = 0; i < 3; i++) {
        if (!parts[i]) {
            continue;
        }
        Type *x = ti_expr(t, parts[i]);
        if (!x) {
            return;
        }
        if (!is_int_like(x) || cj_type_kind(x) == 'b') {
            ti_err(t, parts[i], "range() needs integers, got %s", ti_tstr(t, x));
        }
        ty = ty ? cj_promote(ty, x) : x;
    }
    if (n->c && n->c->kind == ND_CONST && n->c->cval.i == 0) {
        ti_err_kind(t, n->c, CE_VALUE, "range() step must not be zero");
    }
    ty = cj_concrete(ty);
    if (!t->p->numba && (!is_int_like(ty) || cj_type_kind(ty) == 'u')) {
        /* cupyx.jit counts in int64 (Python's int) whatever the bounds' types:
         * unsigned bounds (k - 1 is -1 at k = 0), uint64 beside a signed
         * integer (float64 in NumPy's promotion) */
        ty = cj_scalar(DT_I64);
    }
    bind_var(t, n, n->var, ty);
    t->in->ntype[n->id] = t->in->vtype[n->var->id];
    ti_stmts(t, n->list, n->n);
}

/* Returns of a value and of nothing (return, return None, the end) meet as
 * Optional(value), Numba's rule; a record or a group has no None. */
static Type *
return_unify(Ti *t, Node *n, Type *ret, Type *ty)
{
    if (ret->kind == TY_VOID && ty->kind == TY_VOID) {
        return ret;
    }
    Type *value = ret->kind == TY_VOID ? ty : ty->kind == TY_VOID ? ret : NULL;
    if (!value) {
        return cj_unify(t->p->arena, ret, ty);
    }
    if (value->kind != TY_SCALAR && value->kind != TY_TUPLE && value->kind != TY_VECTOR
        && value->kind != TY_OPTIONAL) {
        ti_err(t, n, "this function returns %s on one path and None on another: an Optional "
               "value holds a number, a tuple or a vector; return a value on every path",
               ti_tstr(t, value));
    }
    return cj_optional_type(t->p->arena, value);
}

/* a device function returns an array as a view of memory that outlives it:
 * not a local array (nor a view that may point into one: refused in any
 * function that makes one), and shared or constant arrays as views (s[:]) */
static void
array_return(Ti *t, Node *n, Type *ty)
{
    if (ty->mem == MEM_LOCAL) {
        ti_err(t, n, "a device function cannot return a local array: it ends when the "
            "function returns; take the array as an argument and fill it");
    }
    if (ty->mem != MEM_GLOBAL) {
        ti_err(t, n, "a device function returns a shared or constant array as a view: "
            "return x[:] instead of the array itself");
    }
    Func *fn = t->fn;
    for (int i = 0; i < fn->nvars; i++) {
        Type *v = t->in->vtype[i];
        if (v && v->kind == TY_ARRAY && v->mem == MEM_LOCAL) {
            ti_err(t, n, "a device function that makes a local array ('%s') cannot return "
                "an array, which could be a view of it (a local array ends when the "
                "function returns); take the array as an argument instead",
                fn->vars[i]->name);
        }
    }
}

static void
return_stmt(Ti *t, Node *n)
{
    if (!t->fn->is_device) {
        if (n->a) {
            ti_err(t, n, "a kernel cannot return a value (it must have void return type); "
                "write the result into an array argument (or make this a device function "
                "with @jit.rawkernel(device=True))");
        }
        return;
    }
    Type *ty = n->a ? ti_expr_opt(t, n->a) : cj_void();
    if (!ty) {
        return;
    }
    if (ty->kind == TY_STRING) {
        ti_err(t, n, "device functions return numbers, arrays or tuples of numbers, not %s",
            ti_tstr(t, ty));
    }
    if (ty->kind == TY_ARRAY) {
        array_return(t, n, ty);
    }
    ty = cj_concrete(ty->kind == TY_NONE ? cj_void() : ty);     /* return None: return */
    Inst *in = t->in;
    if (!in->ret) {
        in->ret = ty;
        t->changed = 1;
        return;
    }
    Type *u = return_unify(t, n, in->ret, ty);
    if (!u) {
        ti_err(t, n, "this return gives %s but another gives %s", ti_tstr(t, ty),
            ti_tstr(t, in->ret));
    }
    if (!cj_type_eq(u, in->ret)) {
        in->ret = u;
        t->changed = 1;
    }
}

/* an integer an expression has for its types: a constant, or len() of a
 * tuple (its length) */
static int
typed_int(Ti *t, Node *n, int64_t *v)
{
    if (cj_fold_int(n, v)) {
        return 1;
    }
    if (n->kind == ND_CALL && n->op == BI_LEN && n->n == 1) {
        const Type *a = t->in->ntype[n->list[0]->id];
        if (a && a->kind == TY_TUPLE) {
            *v = a->ntup;
            return 1;
        }
    }
    return 0;
}

/* x is None / x is not None where x's type says (None, or a number ...) */
static int
typed_is_none(Ti *t, const Node *c, int *v)
{
    const Node *x = c->list[0], *y = c->list[1];
    if (x->kind == ND_CONST && x->cval.kind == CK_NONE) {
        const Node *s = x;
        x = y;
        y = s;
    }
    const Type *xt = t->in->ntype[x->id];
    if (!(y->kind == ND_CONST && y->cval.kind == CK_NONE) || !xt || x->kind == ND_CONST
        || xt->kind == TY_OPTIONAL) {
        return 0;
    }
    *v = (xt->kind == TY_NONE) == (c->ops[0] == OP_IS);
    return 1;
}

/* The truth of a condition known once its operands are typed, for an if
 * whose branches are not all valid for these types (a tuple's item 1 read
 * under len(t) == 2); 0 when it is not known. */
static int
typed_truth(Ti *t, Node *c, int *v)
{
    int64_t a, b;
    if (c->kind == ND_UNARY && c->op == OP_NOT && typed_truth(t, c->a, v)) {
        *v = !*v;
        return 1;
    }
    if (c->kind != ND_COMPARE || c->n != 2) {
        return 0;
    }
    if (c->ops[0] == OP_IS || c->ops[0] == OP_ISNOT) {
        return typed_is_none(t, c, v);
    }
    if (!typed_int(t, c->list[0], &a) || !typed_int(t, c->list[1], &b)) {
        return 0;
    }
    switch (c->ops[0]) {
    case OP_EQ: *v = a == b; return 1;
    case OP_NE: *v = a != b; return 1;
    case OP_LT: *v = a < b; return 1;
    case OP_LE: *v = a <= b; return 1;
    case OP_GT: *v = a > b; return 1;
    case OP_GE: *v = a >= b; return 1;
    default: return 0;
    }
}

static void
ti_stmt(Ti *t, Node *n)
{
    switch (n->kind) {
    case ND_ASSIGN: {
        int alloc = n->a->kind == ND_CALL && (n->a->op == BI_SHARED_MEMORY
                                             || n->a->op == BI_LOCAL_MEMORY
                                             || n->a->op == BI_CONST_ARRAY
                                             || (n->a->op == BI_NPFUNC
                                                 && n->a->axis == NP_COPY));
        Type *ty = n->n == 1 && n->list[0]->kind == ND_VAR ? ti_expr_opt(t, n->a)
                                                           : ti_expr(t, n->a);
        if (alloc && (n->n != 1 || n->list[0]->kind != ND_VAR)) {
            ti_err(t, n, "assign a shared, local or constant array to one variable name");
        }
        t->alloc_ok = alloc;
        t->via_temp += n->n > 1;
        for (int i = 0; i < n->n; i++) {
            assign_to(t, n->list[i], n->a, ty);
        }
        t->via_temp -= n->n > 1;
        t->alloc_ok = 0;
        return;
    }
    case ND_AUGASSIGN: {
        Type *x = ti_expr(t, n->a);
        Type *y = ti_expr(t, n->b);
        Type *r = ti_binop_type(t, n, n->op, x, y);
        weak_operands(t, n->op, n->a, n->b, x, y);
        if (n->a->kind == ND_VAR) {
            bind_var(t, n, n->a->var, r);
        } else if (n->a->kind == ND_ATTR) {
            Type *rec = t->in->ntype[n->a->a->id];
            if (rec && (rec->kind != TY_RECORD || rec->readonly)) {
                ti_err(t, n->a, "augmented assignment to an attribute needs a field of a "
                       "writable record (r.x += ...), not an attribute of %s",
                       ti_tstr(t, rec));
            }
            store_check(t, n->a, x, r);
        } else {
            store_elem(t, n->a, r);
        }
        set(t, n, r);
        return;
    }
    case ND_IF: {
        need_truth(t, n->a, ti_expr(t, n->a));
        int truth;
        if (typed_truth(t, n->a, &truth)) {
            /* known from the types (len(args) == 2, x is None): the other
             * branch is neither typed nor compiled (Numba prunes it) */
            t->in->aux[n->id] = truth ? 2 : 1;
            ti_stmts(t, truth ? n->list : n->list2, truth ? n->n : n->n2);
            return;
        }
        ti_stmts(t, n->list, n->n);
        ti_stmts(t, n->list2, n->n2);
        return;
    }
    case ND_WHILE:
        need_truth(t, n->a, ti_expr(t, n->a));
        ti_stmts(t, n->list, n->n);
        ti_stmts(t, n->list2, n->n2);
        return;
    case ND_FOR:
        for_stmt(t, n);
        ti_stmts(t, n->list2, n->n2);
        return;
    case ND_RETURN:
        return_stmt(t, n);
        return;
    case ND_ASSERT:
        need_truth(t, n->a, ti_expr(t, n->a));
        t->p->features |= FEAT_ASSERT;
        return;
    case ND_EXPR:
        ti_expr(t, n->a);
        return;
    case ND_BREAK:
    case ND_CONTINUE:
    case ND_PASS:
        return;
    case ND_CONST: case ND_VAR: case ND_BINOP: case ND_UNARY: case ND_COMPARE:
    case ND_BOOLOP: case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL:
    case ND_TUPLE: case ND_SLICE:
        break;
    }
    cj_unreachable(t->p->try_, "expression in statement position");
}

static void
ti_stmts(Ti *t, Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        ti_stmt(t, list[i]);
    }
}

/* ---- definite assignment: every read has an assignment on every path ---- */

typedef struct {
    unsigned char *set;     /* 1 = assigned on every path so far */
    unsigned char *may;     /* 1 = assigned on some path so far (loops: by a later turn) */
    int dead;               /* after return / break / continue */
    unsigned char *brk;     /* the innermost loop's: assigned at every break */
    int *nbrk;              /* breaks seen in that loop */
} DA;

static void da_stmts(Ti *t, Node **list, int n, DA *s);

/* A read that some path reaches without assigning the variable: Python
 * would raise UnboundLocalError there; Numba and cupyx.jit compile such
 * kernels, and so does cujit, with the variable zero-initialized (it reads
 * 0 on those paths) and a warning naming the first such read. */
static void
da_maybe_unset(Ti *t, Node *n)
{
    n->var->maybe_unset = 1;
    if (t->p->undef_warn) {
        return;
    }
    char msg[512];
    snprintf(msg, sizeof msg, "%s:%d: variable '%s' may be used before it is assigned "
             "(not every path to this line assigns it); where none does, it reads as zero "
             "(Numba: Detected uninitialized variable %s)",
             t->fn->file ? t->fn->file : "<kernel>", n->loc.line, n->var->name, n->var->name);
    t->p->undef_warn = cj_strdup(t->p->arena, msg);
}

static void
da_expr(Ti *t, Node *n, DA *s)
{
    if (!n) {
        return;
    }
    if (n->kind == ND_VAR) {
        if (!s->set[n->var->id] && !s->dead && !s->may[n->var->id]) {
            ti_err_kind(t, n, CE_COMPILE, "variable '%s' is used before it is assigned: it is "
                        "not assigned on any path to this line", n->var->name);
        }
        if (!s->set[n->var->id] && !s->dead) {
            da_maybe_unset(t, n);
        }
        return;
    }
    da_expr(t, n->a, s);
    da_expr(t, n->b, s);
    da_expr(t, n->c, s);
    for (int i = 0; i < n->n; i++) {
        da_expr(t, n->list[i], s);
    }
    for (int i = 0; i < n->n2; i++) {
        da_expr(t, n->list2[i], s);
    }
}

static void
da_target(Ti *t, Node *n, DA *s)
{
    if (n->kind == ND_VAR) {
        s->set[n->var->id] = 1;
        s->may[n->var->id] = 1;
    } else if (n->kind == ND_TUPLE) {
        for (int i = 0; i < n->n; i++) {
            da_target(t, n->list[i], s);
        }
    } else {
        da_expr(t, n, s);
    }
}

static void
da_mark_target(const Node *n, unsigned char *may)
{
    if (n->kind == ND_VAR) {
        may[n->var->id] = 1;
    } else if (n->kind == ND_TUPLE) {
        for (int i = 0; i < n->n; i++) {
            da_mark_target(n->list[i], may);
        }
    }
}

static DA
da_copy(Ti *t, DA *s)
{
    DA c;
    int nv = t->fn->nvars;
    c.set = cj_alloc(t->p->arena, (size_t)nv + 1);
    memcpy(c.set, s->set, (size_t)nv);
    c.may = cj_alloc(t->p->arena, (size_t)nv + 1);
    memcpy(c.may, s->may, (size_t)nv);
    c.dead = s->dead;
    c.brk = s->brk;
    c.nbrk = s->nbrk;
    return c;
}

/* After a loop with an else: the else runs when the loop ends without a
 * break, so a variable is assigned after it when the else assigns it and
 * every break had it (brk, nbrk: the breaks of the loop). */
static void
da_loop_else(Ti *t, Node *n, DA *s, const unsigned char *brk, int nbrk)
{
    if (!n->n2) {
        return;
    }
    int nv = t->fn->nvars;
    DA y = da_copy(t, s);
    y.brk = s->brk;
    y.nbrk = s->nbrk;
    da_stmts(t, n->list2, n->n2, &y);
    for (int i = 0; i < nv; i++) {
        s->set[i] = y.dead ? (nbrk ? brk[i] : s->set[i])
                    : (nbrk ? (brk[i] && y.set[i]) : y.set[i]);
        s->may[i] |= y.may[i];
    }
    s->dead = s->dead || (y.dead && !nbrk);
}

/* a loop's body: what it assigns anywhere may be set when a later turn reads
 * it (for i in range(n): if i: use(x); x = ...) */
static void
da_loop_may(Node **list, int n, unsigned char *may)
{
    for (int i = 0; i < n; i++) {
        Node *s = list[i];
        if (s->kind == ND_ASSIGN) {
            for (int k = 0; k < s->n; k++) {
                da_mark_target(s->list[k], may);
            }
        } else if (s->kind == ND_FOR || s->kind == ND_IF || s->kind == ND_WHILE) {
            if (s->kind == ND_FOR) {
                may[s->var->id] = 1;
            }
            da_loop_may(s->list, s->n, may);
            da_loop_may(s->list2, s->n2, may);
        }
    }
}

/* does a break or continue appear in these statements (nested loops too) */
static int
has_jump(Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        Node *s = list[i];
        if (s->kind == ND_BREAK || s->kind == ND_CONTINUE
            || ((s->kind == ND_IF || s->kind == ND_WHILE || s->kind == ND_FOR)
                && (has_jump(s->list, s->n) || has_jump(s->list2, s->n2)))) {
            return 1;
        }
    }
    return 0;
}

/* for i in range(n) with constant bounds giving at least one turn, and no
 * break or continue that could leave a turn early */
static int
for_runs(const Node *n)
{
    int64_t a = 0, b, c = 1;
    return !has_jump(n->list, n->n) && (!n->a || cj_fold_int(n->a, &a)) && n->b && cj_fold_int(n->b, &b)
           && (!n->c || cj_fold_int(n->c, &c)) && ((c > 0 && a < b) || (c < 0 && a > b));
}

static void
da_stmt(Ti *t, Node *n, DA *s)
{
    int nv = t->fn->nvars;
    switch (n->kind) {
    case ND_ASSIGN:
        da_expr(t, n->a, s);
        for (int i = 0; i < n->n; i++) {
            da_target(t, n->list[i], s);
        }
        return;
    case ND_AUGASSIGN:
        da_expr(t, n->a, s);
        da_expr(t, n->b, s);
        return;
    case ND_IF: {
        da_expr(t, n->a, s);
        DA x = da_copy(t, s), y = da_copy(t, s);
        int truth;
        if (cj_fold_truth(n->a, &truth)) {
            /* a constant condition: the other branch is never taken */
            x.dead |= !truth;
            y.dead |= truth;
        }
        da_stmts(t, n->list, n->n, &x);
        da_stmts(t, n->list2, n->n2, &y);
        for (int i = 0; i < nv; i++) {
            s->set[i] = x.dead ? y.set[i] : y.dead ? x.set[i] : (x.set[i] && y.set[i]);
            s->may[i] = (x.may[i] && !x.dead) || (y.may[i] && !y.dead) || s->may[i];
        }
        s->dead = s->dead || (x.dead && y.dead);
        return;
    }
    case ND_WHILE: {
        da_expr(t, n->a, s);
        DA x = da_copy(t, s);
        int nbrk = 0;
        x.dead = 0;
        x.brk = cj_alloc(t->p->arena, (size_t)nv + 1);
        x.nbrk = &nbrk;
        da_loop_may(n->list, n->n, x.may);
        da_stmts(t, n->list, n->n, &x);
        for (int i = 0; i < nv; i++) {
            s->may[i] |= x.may[i];
        }
        int64_t c;
        int forever = n->a->kind == ND_CONST && cj_fold_int(n->a, &c) && c != 0;
        if (forever) {
            /* while True: the loop ends only at a break (its else never runs) */
            if (nbrk) {
                memcpy(s->set, x.brk, (size_t)nv);
            } else {
                s->dead = 1;
            }
            return;
        }
        da_loop_else(t, n, s, x.brk, nbrk);
        return;
    }
    case ND_FOR: {
        da_expr(t, n->a, s);
        da_expr(t, n->b, s);
        da_expr(t, n->c, s);
        DA x = da_copy(t, s);
        int nbrk = 0;
        x.dead = 0;
        x.brk = cj_alloc(t->p->arena, (size_t)nv + 1);
        x.nbrk = &nbrk;
        x.set[n->var->id] = 1;
        x.may[n->var->id] = 1;
        da_loop_may(n->list, n->n, x.may);
        da_stmts(t, n->list, n->n, &x);
        for (int i = 0; i < nv; i++) {
            s->may[i] |= x.may[i];
        }
        if (for_runs(n)) {
            /* range(2): the body runs, so what it always assigns is assigned after */
            for (int i = 0; i < nv; i++) {
                s->set[i] |= x.dead ? 0 : x.set[i];
            }
        }
        da_loop_else(t, n, s, x.brk, nbrk);
        return;
    }
    case ND_RETURN:
        da_expr(t, n->a, s);
        s->dead = 1;
        return;
    case ND_BREAK:
        if (s->brk && !s->dead) {
            for (int i = 0; i < nv; i++) {
                s->brk[i] = *s->nbrk ? (s->brk[i] && s->set[i]) : s->set[i];
            }
            (*s->nbrk)++;
        }
        s->dead = 1;
        return;
    case ND_CONTINUE:
        s->dead = 1;
        return;
    case ND_ASSERT:
    case ND_EXPR:
        da_expr(t, n->a, s);
        s->dead |= n->kind == ND_ASSERT && n->op == ND_RAISE_OP;    /* a raise ends the path */
        return;
    case ND_PASS:
        return;
    case ND_CONST: case ND_VAR: case ND_BINOP: case ND_UNARY: case ND_COMPARE:
    case ND_BOOLOP: case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL:
    case ND_TUPLE: case ND_SLICE:
        break;
    }
    cj_unreachable(t->p->try_, "expression in statement position");
}

static void
da_stmts(Ti *t, Node **list, int n, DA *s)
{
    for (int i = 0; i < n; i++) {
        da_stmt(t, list[i], s);
    }
}

/* ---- instances ---- */

static void
add_tuple_types(Program *p, Type *ty)
{
    if (!ty || ty->kind != TY_TUPLE) {
        return;
    }
    for (int i = 0; i < ty->ntup; i++) {
        add_tuple_types(p, ty->tup[i]);
    }
    for (int i = 0; i < p->ntuples; i++) {
        if (cj_type_eq(p->tuples[i], ty)) {
            return;
        }
    }
    p->tuples = (Type **)cj_vec_push(p->arena, (void **)p->tuples, &p->ntuples, &p->tcap, ty);
}

static const char *
mangle(Program *p, Func *fn, Type **args, int nargs)
{
    Buf b;
    buf_init(&b);
    buf_printf(&b, "%s%s", fn->is_device ? "cj_dev_" : "cj_", fn->name);
    for (int i = 0; i < nargs; i++) {
        buf_putc(&b, '_');
        cj_type_mangle(&b, args[i]);
    }
    if (!fn->is_device) {
        buf_puts(&b, p->idx32 ? "_i32" : "_i64");
    }
    const char *s = cj_strdup(p->arena, b.s);
    buf_free(&b);
    return s;
}

static void
infer_inst(Program *p, Inst *in)
{
    Ti ts, *t = &ts;
    memset(t, 0, sizeof ts);
    t->p = p;
    t->in = in;
    t->fn = in->fn;
    Func *fn = in->fn;
    if (fn->boundscheck & CHK_BOUNDS) {
        p->features |= FEAT_BOUNDS;     /* every index it emits may check (atomics' too) */
    }
    t->assigned = cj_alloc(p->arena, (size_t)fn->nvars + 1);
    t->vline = cj_alloc(p->arena, sizeof(int) * ((size_t)fn->nvars + 1));
    for (int i = 0; i < fn->nparams; i++) {
        t->vline[i] = fn->loc.line;
        in->vtype[i] = in->args[i];
        note_type(t, in->args[i]);
    }
    DA da;
    da.set = cj_alloc(p->arena, (size_t)fn->nvars + 1);
    da.may = cj_alloc(p->arena, (size_t)fn->nvars + 1);
    da.dead = 0;
    da.brk = NULL;
    da.nbrk = NULL;
    for (int i = 0; i < fn->nparams; i++) {
        da.set[i] = da.may[i] = 1;
    }
    /* a read that no path reaches assigned compiles as in Numba (zero, a
     * warning) when the name is assigned somewhere; never assigned, an error */
    da_loop_may(fn->body, fn->nbody, da.may);
    da_stmts(t, fn->body, fn->nbody, &da);
    for (int iter = 0; iter < 64; iter++) {
        t->changed = 0;
        ti_stmts(t, fn->body, fn->nbody);
        if (!t->changed) {
            break;
        }
    }
    if (fn->is_device && !da.dead && in->ret && fn->nbody) {
        /* a path falls off the end: it returns None */
        in->ret = return_unify(t, fn->body[fn->nbody - 1], in->ret, cj_void());
    }
    t->final = 1;
    ti_stmts(t, fn->body, fn->nbody);
    if (in->recursive && !in->ret) {
        ti_err_kind(t, fn->body[0], CE_RECURSION, "cannot type infer runaway recursion: '%s' "
                    "calls itself, and no return gives a value without calling it again",
                    fn->name);
    }
    for (int i = 0; i < fn->nparams; i++) {
        if (t->assigned[i]) {
            in->weak_to[i] = 0;     /* its value is no longer the argument's */
        }
    }
    if (!in->ret) {
        in->ret = cj_void();
    }
    for (int i = 0; i < fn->nvars; i++) {
        add_tuple_types(p, in->vtype[i]);
        note_type(t, in->vtype[i]);
    }
    add_tuple_types(p, in->ret);
    in->done = 1;
}

static Inst *
new_inst(Program *p, Func *fn, Type **args)
{
    Inst *in = cj_alloc(p->arena, sizeof(Inst));
    in->fn = fn;
    in->args = args;
    in->ntype = cj_alloc(p->arena, sizeof(Type *) * (size_t)(fn->nnodes + 1));
    in->aux = cj_alloc(p->arena, sizeof(int64_t) * (size_t)(fn->nnodes + 1));
    in->vtype = cj_alloc(p->arena, sizeof(Type *) * (size_t)(fn->nvars + 1));
    in->callee = cj_alloc(p->arena, sizeof(Inst *) * (size_t)(fn->nnodes + 1));
    in->weak_to = cj_alloc(p->arena, sizeof(uint32_t) * (size_t)(fn->nparams + 1));
    in->cname = mangle(p, fn, args, fn->nparams);
    return in;
}

/* an instance of fn for these argument types among those made or being
 * typed, or NULL */
static Inst *
find_inst(Program *p, Func *fn, Type **args)
{
    for (int i = 0; i < p->ninsts; i++) {
        Inst *in = p->insts[i];
        int same = in->fn == fn;
        for (int k = 0; k < fn->nparams && same; k++) {
            same = cj_type_eq(in->args[k], args[k]);
        }
        if (same) {
            return in;
        }
    }
    return NULL;
}

/* The instance of device function `fn` for these argument types, typed.
 * A function calling itself with the same types gets the instance being
 * typed, whose return type so far is its call's type: infer_inst's passes
 * run until nothing changes. */
Inst *
ti_instance(Ti *caller, Node *call, Func *fn, Type **args)
{
    Program *p = caller->p;
    Inst *in = find_inst(p, fn, args);
    if (in && in->busy && in != caller->in) {
        ti_err_kind(caller, call, CE_VALUE, "device function '%s' calls itself through "
                    "'%s': only a function that calls itself directly is supported",
                    fn->name, caller->fn->name);
    }
    if (in) {
        in->recursive |= in->busy;
        return in;
    }
    if (p->depth > 32) {
        ti_err_kind(caller, call, CE_VALUE, "device function '%s' calls itself (directly or "
                    "through others) with argument types that change at each call: "
                    "convert the arguments (int64(n - 1)) so that they keep one type",
                    fn->name);
    }
    in = new_inst(p, fn, args);
    p->insts = (Inst **)cj_vec_push(p->arena, (void **)p->insts, &p->ninsts, &p->cap, in);
    in->busy = 1;
    p->depth++;
    infer_inst(p, in);
    p->depth--;
    in->busy = 0;
    return in;
}

Program *
ti_infer(Arena *a, CjTry *tr, Func *kernel, Type **args, int nargs, int idx32, int numba)
{
    Program *p = cj_alloc(a, sizeof(Program));
    p->arena = a;
    p->try_ = tr;
    p->idx32 = idx32;
    p->numba = numba;
    if (numba && nargs > 0) {               /* no weak numbers (numba_strong) */
        Type **strong = cj_alloc(a, sizeof(Type *) * (size_t)nargs);
        for (int i = 0; i < nargs; i++) {
            strong[i] = cj_is_weak(args[i]) ? cj_concrete(args[i]) : args[i];
        }
        args = strong;
    }
    if (nargs != kernel->nparams) {
        snprintf(tr->err.msg, sizeof tr->err.msg, "%s() takes %d arguments, got %d",
                 kernel->name, kernel->nparams, nargs);
        tr->err.file = kernel->file;
        tr->err.loc = kernel->loc;
        tr->err.kind = CE_TYPE;
        longjmp(tr->jb, 1);
    }
    Inst *in = new_inst(p, kernel, args);
    p->kernel = in;
    p->depth = 1;
    infer_inst(p, in);
    p->insts = (Inst **)cj_vec_push(a, (void **)p->insts, &p->ninsts, &p->cap, in);
    return p;
}

Inst *
ti_add(Program *p, Func *fn, Type **args)
{
    Inst *in = new_inst(p, fn, args);
    p->depth = 1;
    infer_inst(p, in);
    p->insts = (Inst **)cj_vec_push(p->arena, (void **)p->insts, &p->ninsts, &p->cap, in);
    return in;
}
