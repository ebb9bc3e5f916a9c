/* types.c - dtypes and types: NumPy 2 promotion (NEP 50 weak scalars),
 * unification, printing, mangling and dtype names. */
#include <string.h>

#include "cj.h"

DTypeInfo cj_dtypes[DT_ALL] = {
    [DT_BOOL] = {"bool", "bool", "b1", 'b', 1},
    [DT_I8] = {"int8", "signed char", "i1", 'i', 1},
    [DT_I16] = {"int16", "short", "i2", 'i', 2},
    [DT_I32] = {"int32", "int", "i4", 'i', 4},
    [DT_I64] = {"int64", "long long", "i8", 'i', 8},
    [DT_U8] = {"uint8", "unsigned char", "u1", 'u', 1},
    [DT_U16] = {"uint16", "unsigned short", "u2", 'u', 2},
    [DT_U32] = {"uint32", "unsigned int", "u4", 'u', 4},
    [DT_U64] = {"uint64", "unsigned long long", "u8", 'u', 8},
    [DT_F16] = {"float16", "cj_half", "f2", 'f', 2},
    [DT_F32] = {"float32", "float", "f4", 'f', 4},
    [DT_F64] = {"float64", "double", "f8", 'f', 8},
    [DT_C64] = {"complex64", "cj_complex64", "c8", 'c', 8},
    [DT_C128] = {"complex128", "cj_complex128", "c16", 'c', 16},
    [DT_BF16] = {"bfloat16", "cj_bf16", "bf16", 'f', 2},
};

/* ---- interned types ---- */

#define SCALAR(dt) {.kind = TY_SCALAR, .dtype = (dt)}
static Type scalars[DT_COUNT] = {
    SCALAR(DT_BOOL), SCALAR(DT_I8), SCALAR(DT_I16), SCALAR(DT_I32), SCALAR(DT_I64),
    SCALAR(DT_U8), SCALAR(DT_U16), SCALAR(DT_U32), SCALAR(DT_U64),
    SCALAR(DT_F16), SCALAR(DT_F32), SCALAR(DT_F64), SCALAR(DT_C64), SCALAR(DT_C128),
    SCALAR(DT_BF16),
};
#undef SCALAR

#define DTYPEVAL(dt) {.kind = TY_DTYPE, .dtype = (dt)}
static Type dtype_values[DT_ALL] = {
    DTYPEVAL(DT_BOOL), DTYPEVAL(DT_I8), DTYPEVAL(DT_I16), DTYPEVAL(DT_I32),
    DTYPEVAL(DT_I64), DTYPEVAL(DT_U8), DTYPEVAL(DT_U16), DTYPEVAL(DT_U32),
    DTYPEVAL(DT_U64), DTYPEVAL(DT_F16), DTYPEVAL(DT_F32), DTYPEVAL(DT_F64),
    DTYPEVAL(DT_C64), DTYPEVAL(DT_C128), DTYPEVAL(DT_BF16),
};
#undef DTYPEVAL

static Type weak_int = {.kind = TY_WEAK_INT, .dtype = DT_I64};
static Type weak_float = {.kind = TY_WEAK_FLOAT, .dtype = DT_F64};
static Type weak_complex = {.kind = TY_WEAK_COMPLEX, .dtype = DT_C128};
static Type void_type = {.kind = TY_VOID};
static Type string_type = {.kind = TY_STRING};
static Type none_type = {.kind = TY_NONE};

Type *
cj_scalar(DType dt)
{
    if (cj_is_record(dt)) {
        return cj_record_type(dt);  /* an element of a record array, wherever asked */
    }
    return &scalars[dt];
}

Type *
cj_dtype_type(DType dt)
{
    dtype_values[dt].kind = TY_DTYPE;       /* a record's is set at its first use */
    dtype_values[dt].dtype = dt;
    return &dtype_values[dt];
}

/* k is TY_WEAK_INT, TY_WEAK_FLOAT or TY_WEAK_COMPLEX */
Type *
cj_weak(TypeKind k)
{
    switch (k) {
    case TY_WEAK_INT:
        return &weak_int;
    case TY_WEAK_FLOAT:
        return &weak_float;
    case TY_WEAK_COMPLEX:
        return &weak_complex;
    default:
        return NULL;
    }
}

Type *
cj_void(void)
{
    return &void_type;
}

Type *
cj_string(void)
{
    return &string_type;
}

Type *
cj_none(void)
{
    return &none_type;
}

/* A 1-d (or 0-d) contiguous array is C; F is kept for ndim >= 2 only. */
Type *
cj_array_type(Arena *a, DType dt, int ndim, char layout)
{
    Type *t = cj_alloc(a, sizeof *t);
    t->kind = TY_ARRAY;
    t->dtype = dt;
    t->ndim = ndim;
    t->layout = (layout == 'F' && ndim < 2) ? 'C' : layout;
    t->mem = MEM_GLOBAL;
    return t;
}

Type *
cj_tuple_type(Arena *a, Type **elems, int n)
{
    Type *t = cj_alloc(a, sizeof *t);
    t->kind = TY_TUPLE;
    t->ntup = n;
    t->tup = cj_alloc(a, sizeof(Type *) * (size_t)(n > 0 ? n : 1));
    if (n > 0) {
        memcpy(t->tup, elems, sizeof(Type *) * (size_t)n);
    }
    return t;
}

Type *
cj_optional_type(Arena *a, Type *base)
{
    if (base->kind == TY_OPTIONAL) {
        return base;
    }
    Type *t = cj_alloc(a, sizeof *t);
    t->kind = TY_OPTIONAL;
    t->base = base;
    return t;
}

Type *
cj_enum_type(Arena *a, DType dt, const char *enm)
{
    Type *t = cj_alloc(a, sizeof *t);
    *t = *cj_scalar(dt);
    t->enm = enm;
    return t;
}

int
cj_enum_same(const Type *x, const Type *y)
{
    return x->enm && y->enm && strcmp(x->enm, y->enm) == 0;
}

/* a cooperative group's type (jit.cg) */
Type *
cj_group_type(Arena *a, GroupKind k, int tile, int parent)
{
    Type *t = cj_alloc(a, sizeof *t);
    t->kind = TY_GROUP;
    t->group = k;
    t->tile = tile;
    t->parent = parent;
    return t;
}

/* a jit.thrust iterator's type: 'P' pointer, 'S' strided, 'K' constant,
 * 'N' counting, over values of dt */
Type *
cj_iter_type(Arena *a, DType dt, char kind)
{
    Type *t = cj_alloc(a, sizeof *t);
    t->kind = TY_ITER;
    t->dtype = dt;
    t->layout = kind;
    return t;
}

/* ---- predicates ---- */

/* Arrays are equal when dtype, ndim, layout, readonly, memory space and
 * static shape agree; tuples elementwise. */
static int
array_eq(const Type *x, const Type *y)
{
    if (x->dtype != y->dtype || x->ndim != y->ndim || x->layout != y->layout
        || x->readonly != y->readonly || x->mem != y->mem || x->table != y->table) {
        return 0;
    }
    if (!x->sshape || !y->sshape) {
        return x->sshape == y->sshape;
    }
    for (int i = 0; i < x->ndim; i++) {
        if (x->sshape[i] != y->sshape[i]) {
            return 0;
        }
    }
    return 1;
}

static int
tuple_eq(const Type *x, const Type *y)
{
    if (x->ntup != y->ntup || !x->names != !y->names || !x->enm != !y->enm
        || (x->enm && !cj_enum_same(x, y))) {
        return 0;
    }
    for (int i = 0; x->names && i < x->ntup; i++) {
        if (strcmp(x->names[i], y->names[i]) != 0) {
            return 0;
        }
    }
    for (int i = 0; i < x->ntup; i++) {
        if (!cj_type_eq(x->tup[i], y->tup[i])) {
            return 0;
        }
    }
    return 1;
}

int
cj_type_eq(const Type *x, const Type *y)
{
    if (x == y) {
        return 1;
    }
    if (!x || !y || x->kind != y->kind) {
        return 0;
    }
    switch (x->kind) {
    case TY_SCALAR:
        return x->dtype == y->dtype && (x->enm ? cj_enum_same(x, y) : !y->enm);
    case TY_DTYPE:
    case TY_RECORD:
        return x->dtype == y->dtype;
    case TY_ARRAY:
        return array_eq(x, y);
    case TY_TUPLE:
        return tuple_eq(x, y);
    case TY_GROUP:
        return x->group == y->group && x->tile == y->tile && x->parent == y->parent;
    case TY_ITER:
        return x->dtype == y->dtype && x->layout == y->layout;
    case TY_VECTOR:
        return x->dtype == y->dtype && x->lanes == y->lanes;
    case TY_OPTIONAL:
        return cj_type_eq(x->base, y->base);
    case TY_VOID:
    case TY_WEAK_INT:
    case TY_WEAK_FLOAT:
    case TY_WEAK_COMPLEX:
    case TY_STRING:
    case TY_NONE:
        return 1;
    }
    return 0;
}

int
cj_is_weak(const Type *t)
{
    return t && (t->kind == TY_WEAK_INT || t->kind == TY_WEAK_FLOAT
                 || t->kind == TY_WEAK_COMPLEX);
}

int
cj_is_numeric(const Type *t)
{
    return t && (t->kind == TY_SCALAR || cj_is_weak(t));
}

/* weak int is kind 'i', weak float 'f', weak complex 'c'; 0 if not numeric */
char
cj_type_kind(const Type *t)
{
    if (!t) {
        return 0;
    }
    switch (t->kind) {
    case TY_SCALAR:
        return cj_dtypes[t->dtype].kind;
    case TY_WEAK_INT:
        return 'i';
    case TY_WEAK_FLOAT:
        return 'f';
    case TY_WEAK_COMPLEX:
        return 'c';
    default:
        return 0;
    }
}

/* Python int -> int64, float -> float64, complex -> complex128 */
DType
cj_weak_default(const Type *t)
{
    switch (t->kind) {
    case TY_WEAK_INT:
        return DT_I64;
    case TY_WEAK_FLOAT:
        return DT_F64;
    case TY_WEAK_COMPLEX:
        return DT_C128;
    default:
        return t->dtype;
    }
}

Type *
cj_concrete(const Type *t)
{
    if (cj_is_weak(t)) {
        return cj_scalar(cj_weak_default(t));
    }
    return (Type *)t;
}

/* ---- casting and promotion (NumPy 2) ---- */

/* bytes of the smallest float that holds every value of an integer of
 * `size` bytes: 1 -> float16, 2 -> float32, 4 and 8 -> float64 */
static int
float_size_for_int(int size)
{
    return size == 1 ? 2 : size == 2 ? 4 : 8;
}

/* np.can_cast(from, to, "safe") for an integer source */
static int
int_can_cast(const DTypeInfo *f, const DTypeInfo *t)
{
    switch (t->kind) {
    case 'u':
        return f->kind == 'u' && t->size >= f->size;
    case 'i':
        return t->size > f->size || (f->kind == 'i' && t->size == f->size);
    case 'f':
        return t->size >= float_size_for_int(f->size);
    case 'c':
        return t->size / 2 >= float_size_for_int(f->size);
    default:
        return 0;
    }
}

/* np.can_cast(from, to, "safe"): bool goes anywhere; no kind goes down the
 * order b < u,i < f < c; sizes only grow; unsigned -> signed needs a wider
 * type; an integer fits a float whose mantissa holds it (int64 -> float64
 * counts as safe, as in NumPy). */
int
cj_can_cast_safe(DType from, DType to)
{
    const DTypeInfo *f = &cj_dtypes[from], *t = &cj_dtypes[to];
    if (from == to || f->kind == 'b') {
        return 1;
    }
    if (cj_is_half(from) && cj_is_half(to)) {
        return 0;       /* float16 and bfloat16: neither holds the other's values */
    }
    switch (f->kind) {
    case 'i':
    case 'u':
        return int_can_cast(f, t);
    case 'f':
        return (t->kind == 'f' && t->size >= f->size)
               || (t->kind == 'c' && t->size / 2 >= f->size);
    case 'c':
        return t->kind == 'c' && t->size >= f->size;
    default:
        return 0;
    }
}

/* The order in which np.result_type looks for the smallest common type. */
static const DType promotion_order[DT_COUNT] = {
    DT_BOOL, DT_U8, DT_I8, DT_U16, DT_I16, DT_U32, DT_I32, DT_U64, DT_I64,
    DT_F16, DT_BF16, DT_F32, DT_F64, DT_C64, DT_C128,
};

/* np.result_type(x, y): the first type in promotion_order both cast to
 * safely (int64 + uint64 -> float64, int8 + float16 -> float16; bfloat16
 * ranks as float16 does, and the two meet in float32). */
DType
cj_promote_dt(DType x, DType y)
{
    for (int i = 0; i < DT_COUNT; i++) {
        DType t = promotion_order[i];
        if (cj_can_cast_safe(x, t) && cj_can_cast_safe(y, t)) {
            return t;
        }
    }
    return DT_C128;
}

/* np.sqrt's loop: bool/int8/uint8 -> float16, int16/uint16 -> float32,
 * wider ints -> float64; floats and complex stay. */
DType
cj_float_for(DType dt)
{
    const DTypeInfo *d = &cj_dtypes[dt];
    switch (d->kind) {
    case 'b':
        return DT_F16;
    case 'i':
    case 'u':
        switch (float_size_for_int(d->size)) {
        case 2:
            return DT_F16;
        case 4:
            return DT_F32;
        default:
            return DT_F64;
        }
    default:
        return dt;
    }
}

/* rank of a kind in the order bool < int < float < complex */
static int
kind_rank(char k)
{
    switch (k) {
    case 'b':
        return 0;
    case 'i':
    case 'u':
        return 1;
    case 'f':
        return 2;
    default:
        return 3;
    }
}

/* NEP 50, a weak Python scalar w meets dtype dt: the dtype wins when its
 * kind is at least the literal's; else the literal's kind at its default
 * size, except complex meets float16/float32 as complex64. */
static DType
promote_weak(const Type *w, DType dt)
{
    char k = cj_dtypes[dt].kind;
    switch (w->kind) {
    case TY_WEAK_INT:
        return k == 'b' ? DT_I64 : dt;
    case TY_WEAK_FLOAT:
        return kind_rank(k) >= 2 ? dt : DT_F64;
    default:
        if (k == 'c') {
            return dt;
        }
        return (cj_is_half(dt) || dt == DT_F32) ? DT_C64 : DT_C128;
    }
}

/* NumPy 2 result_type of two numeric types; two weak literals give the weak
 * type of the higher kind (int < float < complex); NULL if not numeric. */
Type *
cj_promote(const Type *x, const Type *y)
{
    if (!cj_is_numeric(x) || !cj_is_numeric(y)) {
        return NULL;
    }
    if (cj_is_weak(x) && cj_is_weak(y)) {
        return cj_weak(x->kind > y->kind ? x->kind : y->kind);
    }
    if (cj_is_weak(x)) {
        return cj_scalar(promote_weak(x, y->dtype));
    }
    if (cj_is_weak(y)) {
        return cj_scalar(promote_weak(y, x->dtype));
    }
    return cj_scalar(cj_promote_dt(x->dtype, y->dtype));
}

/* ---- unification ---- */

/* tuples of equal length unify elementwise */
static Type *
unify_tuple(Arena *a, const Type *x, const Type *y)
{
    if (x->ntup != y->ntup) {
        return NULL;
    }
    Type **el = cj_alloc(a, sizeof(Type *) * (size_t)(x->ntup > 0 ? x->ntup : 1));
    int same = 1;
    for (int i = 0; i < x->ntup; i++) {
        el[i] = cj_unify(a, x->tup[i], y->tup[i]);
        if (!el[i]) {
            return NULL;
        }
        same &= el[i] == x->tup[i];
    }
    return same ? (Type *)x : cj_tuple_type(a, el, x->ntup);
}

/* Optional(T) with T, U or Optional(U): Optional of T and U unified; with
 * None: itself */
static Type *
unify_optional(Arena *a, const Type *x, const Type *y)
{
    if (y->kind == TY_OPTIONAL) {
        const Type *s = x;
        x = y;
        y = s;
    }
    if (y->kind == TY_NONE) {
        return (Type *)x;
    }
    Type *u = cj_unify(a, x->base, y->kind == TY_OPTIONAL ? y->base : y);
    return u ? cj_optional_type(a, cj_concrete(u)) : NULL;
}

/* equal types stay; numeric types promote (weak with weak: the higher
 * weak); arrays (arguments' and views) of one dtype and rank meet as strided
 * (layout A); tuples unify elementwise; an Optional with its value's type
 * or None stays Optional, a value with None makes one; else NULL */
Type *
cj_unify(Arena *a, const Type *x, const Type *y)
{
    if (!x || !y) {
        return NULL;
    }
    if (cj_type_eq(x, y)) {
        return (Type *)x;
    }
    if (x->kind == TY_OPTIONAL || y->kind == TY_OPTIONAL) {
        return unify_optional(a, x, y);
    }
    if (x->kind == TY_NONE || y->kind == TY_NONE) {
        /* None on one path, a value on another: Optional(value) (Numba's) */
        const Type *v = cj_concrete(x->kind == TY_NONE ? y : x);
        int ok = v->kind == TY_SCALAR || v->kind == TY_TUPLE || v->kind == TY_VECTOR;
        return ok ? cj_optional_type(a, (Type *)v) : NULL;
    }
    if (cj_is_numeric(x) && cj_is_numeric(y)) {
        return cj_promote(x, y);
    }
    if (x->kind == TY_TUPLE && y->kind == TY_TUPLE) {
        return unify_tuple(a, x, y);
    }
    if (x->kind == TY_ARRAY && y->kind == TY_ARRAY && x->mem == MEM_GLOBAL
        && y->mem == MEM_GLOBAL && x->dtype == y->dtype && x->ndim == y->ndim) {
        Type *u = cj_array_type(a, x->dtype, x->ndim, x->layout == y->layout ? x->layout : 'A');
        u->readonly = x->readonly || y->readonly;   /* views of different layouts: strided */
        return u;
    }
    return NULL;
}

/* ---- printing ---- */

/* Numba's array spelling: C puts ::1 last, F first, A none:
 * float64[:, ::1] */
static void
array_str(Buf *b, const Type *t)
{
    if (cj_is_record(t->dtype)) {
        cj_record_str(b, t->dtype);
    } else {
        buf_puts(b, cj_dtypes[t->dtype].name);
    }
    if (t->ndim == 0) {
        buf_puts(b, "[()]");
        return;
    }
    buf_putc(b, '[');
    for (int i = 0; i < t->ndim; i++) {
        int contig = (t->layout == 'C' && i == t->ndim - 1)
                     || (t->layout == 'F' && i == 0);
        buf_puts(b, i ? ", " : "");
        buf_puts(b, contig ? "::1" : ":");
    }
    buf_putc(b, ']');
}

static void
tuple_str(Buf *b, const Type *t)
{
    if (t->enm) {
        buf_printf(b, "%s", t->enm + 1);     /* an Enum member whose value is a tuple */
    }
    buf_puts(b, t->names ? "NamedTuple(" : "Tuple(");
    for (int i = 0; i < t->ntup; i++) {
        buf_puts(b, i ? ", " : "");
        if (t->names) {
            buf_printf(b, "%s: ", t->names[i]);
        }
        cj_type_str(b, t->tup[i]);
    }
    buf_putc(b, ')');
}

/* thread_block, grid_group, thread_block_tile<8>, coalesced_group */
static void
group_str(Buf *b, const Type *t)
{
    switch (t->group) {
    case GK_BLOCK:
        buf_puts(b, "thread_block");
        break;
    case GK_GRID:
        buf_puts(b, "grid_group");
        break;
    case GK_TILE:
        buf_printf(b, "thread_block_tile<%d>", t->tile);
        break;
    case GK_COALESCED:
        buf_puts(b, "coalesced_group");
        break;
    }
}

/* "float32", "float32[:, ::1]", "Tuple(int64, float32)", "Literal[int]" */
void
cj_type_str(Buf *b, const Type *t)
{
    if (!t) {
        buf_puts(b, "<unknown>");
        return;
    }
    switch (t->kind) {
    case TY_VOID:
        buf_puts(b, "void");
        break;
    case TY_SCALAR:
        if (t->enm) {
            buf_printf(b, "%s(%s)", t->enm + 1, cj_dtypes[t->dtype].name);
            break;
        }
        buf_puts(b, cj_dtypes[t->dtype].name);
        break;
    case TY_WEAK_INT:
        buf_puts(b, "Literal[int]");
        break;
    case TY_WEAK_FLOAT:
        buf_puts(b, "Literal[float]");
        break;
    case TY_WEAK_COMPLEX:
        buf_puts(b, "Literal[complex]");
        break;
    case TY_ARRAY:
        array_str(b, t);
        break;
    case TY_TUPLE:
        tuple_str(b, t);
        break;
    case TY_STRING:
        buf_puts(b, "str");
        break;
    case TY_DTYPE:
        if (cj_is_record(t->dtype)) {
            buf_puts(b, "dtype(");
            cj_record_str(b, t->dtype);
            buf_putc(b, ')');
        } else {
            buf_printf(b, "dtype(%s)", cj_dtypes[t->dtype].name);
        }
        break;
    case TY_RECORD:
        cj_record_str(b, t->dtype);
        break;
    case TY_NONE:
        buf_puts(b, "none");
        break;
    case TY_GROUP:
        group_str(b, t);
        break;
    case TY_ITER:
        if (t->layout == 'P') {         /* a raw pointer: Numba's CPointer's str */
            buf_printf(b, "%s*", cj_dtypes[t->dtype].name);
            break;
        }
        buf_printf(b, "%s iterator(%s)", t->layout == 'P' ? "pointer" : t->layout == 'S'
                   ? "strided" : t->layout == 'K' ? "constant" : "counting",
                   cj_dtypes[t->dtype].name);
        break;
    case TY_VECTOR:
        buf_printf(b, "%sx%d", cj_dtypes[t->dtype].name, t->lanes);   /* Numba's name */
        break;
    case TY_OPTIONAL:
        buf_puts(b, "OptionalType(");       /* Numba's spelling */
        cj_type_str(b, t->base);
        buf_putc(b, ')');
        break;
    }
}

/* f4a2C; then r when read-only and s/d/l for shared, dynamic shared and
 * local memory */
static void
array_mangle(Buf *b, const Type *t)
{
    buf_printf(b, "%sa%d%c", cj_dtypes[t->dtype].code, t->ndim, t->layout);
    if (t->readonly) {
        buf_putc(b, 'r');
    }
    switch (t->mem) {
    case MEM_GLOBAL:
        break;
    case MEM_SHARED:
        buf_putc(b, 's');
        break;
    case MEM_DYNSHARED:
        buf_putc(b, 'd');
        break;
    case MEM_LOCAL:
        buf_putc(b, 'l');
        break;
    case MEM_CONST:
        buf_printf(b, "k%d", t->table ? t->table->id : 0);
        break;
    }
}

/* a namedtuple's field: N, its length, its bytes (others than [A-Za-z0-9_]
 * as x + 2 hex digits) */
static void
names_mangle(Buf *b, const char *name)
{
    buf_printf(b, "N%zu", strlen(name));
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')
            || *c == '_') {
            buf_putc(b, (char)*c);
        } else {
            buf_printf(b, "x%02x", *c);
        }
    }
}

/* scalars by code (f4), arrays f4a2C, tuples T2_f4_i8_, weak wi/wf/wc,
 * void v, str s, None n, dtype values D + code, vectors V4f4; only
 * [A-Za-z0-9_] */
void
cj_type_mangle(Buf *b, const Type *t)
{
    switch (t->kind) {
    case TY_VOID:
        buf_putc(b, 'v');
        break;
    case TY_SCALAR:
        buf_puts(b, cj_dtypes[t->dtype].code);
        if (t->enm) {
            buf_putc(b, 'E');
            names_mangle(b, t->enm);        /* an Enum member: its class */
        }
        break;
    case TY_WEAK_INT:
        buf_puts(b, "wi");
        break;
    case TY_WEAK_FLOAT:
        buf_puts(b, "wf");
        break;
    case TY_WEAK_COMPLEX:
        buf_puts(b, "wc");
        break;
    case TY_ARRAY:
        array_mangle(b, t);
        break;
    case TY_TUPLE:
        buf_printf(b, "T%d_", t->ntup);
        for (int i = 0; i < t->ntup; i++) {
            cj_type_mangle(b, t->tup[i]);
            buf_putc(b, '_');
        }
        for (int i = 0; t->names && i < t->ntup; i++) {
            names_mangle(b, t->names[i]);
        }
        if (t->enm) {
            buf_putc(b, 'E');
            names_mangle(b, t->enm);        /* an Enum member: its class */
        }
        break;
    case TY_STRING:
        buf_putc(b, 's');
        break;
    case TY_DTYPE:
        buf_printf(b, "D%s", cj_dtypes[t->dtype].code);
        break;
    case TY_NONE:
        buf_putc(b, 'n');
        break;
    case TY_GROUP:
        buf_printf(b, "G%d_%d_%d", (int)t->group, t->tile, t->parent);
        break;
    case TY_ITER:
        buf_printf(b, "I%c%s", t->layout, cj_dtypes[t->dtype].code);
        break;
    case TY_RECORD:
        buf_puts(b, cj_dtypes[t->dtype].code);
        break;
    case TY_VECTOR:
        buf_printf(b, "V%d%s", t->lanes, cj_dtypes[t->dtype].code);
        break;
    case TY_OPTIONAL:
        buf_putc(b, 'O');
        cj_type_mangle(b, t->base);
        break;
    }
}

/* ---- dtype names ---- */

typedef struct {
    const char *name;
    DType dt;
} DTypeAlias;

/* NumPy names, Python type names and NumPy char codes (64-bit Linux) */
static const DTypeAlias aliases[] = {
    {"bool", DT_BOOL}, {"bool_", DT_BOOL}, {"boolean", DT_BOOL}, {"?", DT_BOOL},
    {"int", DT_I64}, {"float", DT_F64}, {"complex", DT_C128},
    {"int_", DT_I64}, {"intp", DT_I64}, {"uint", DT_U64}, {"uintp", DT_U64},
    {"float_", DT_F64}, {"complex_", DT_C128},
    {"byte", DT_I8}, {"ubyte", DT_U8}, {"short", DT_I16}, {"ushort", DT_U16},
    {"intc", DT_I32}, {"uintc", DT_U32}, {"long", DT_I64}, {"ulong", DT_U64},
    {"longlong", DT_I64}, {"ulonglong", DT_U64},
    {"half", DT_F16}, {"single", DT_F32}, {"double", DT_F64},
    {"csingle", DT_C64}, {"cdouble", DT_C128},
    {"b", DT_I8}, {"B", DT_U8}, {"h", DT_I16}, {"H", DT_U16},
    {"i", DT_I32}, {"I", DT_U32}, {"l", DT_I64}, {"L", DT_U64},
    {"q", DT_I64}, {"Q", DT_U64}, {"p", DT_I64}, {"P", DT_U64},
    {"e", DT_F16}, {"f", DT_F32}, {"d", DT_F64}, {"F", DT_C64}, {"D", DT_C128},
};

/* a code ("f4") or a one-character NumPy code ("f", "?") */
static int
lookup_code(const char *name, DType *out)
{
    for (int i = 0; i < DT_COUNT; i++) {
        if (strcmp(name, cj_dtypes[i].code) == 0) {
            *out = (DType)i;
            return 1;
        }
    }
    for (size_t i = 0; name[0] && !name[1] && i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(name, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return 1;
        }
    }
    return 0;
}

/* a record dtype interned in this process, by its code ("rec_<hex>": what
 * cujit.cuda writes for a Record type in a signature) */
static int
lookup_record(const char *name, DType *out)
{
    for (int i = DT_COUNT; strncmp(name, "rec_", 4) == 0 && cj_record((DType)i); i++) {
        if (strcmp(name, cj_dtypes[i].code) == 0) {
            *out = (DType)i;
            return 1;
        }
    }
    return 0;
}

/* a NumPy name ("float32"), a code, an alias ("double", "int") or a record's code */
static int
lookup_name(const char *name, DType *out)
{
    for (int i = 0; i < DT_COUNT; i++) {
        if (strcmp(name, cj_dtypes[i].name) == 0) {
            *out = (DType)i;
            return 1;
        }
    }
    if (lookup_code(name, out)) {
        return 1;
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(name, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return 1;
        }
    }
    return lookup_record(name, out);
}

/* A typestr ("<f4", "|b1", "=i8") is a byte-order mark and a code.  '>' is
 * big-endian and refused, except on one-byte types where order is moot. */
int
cj_dtype_from_name(const char *name, DType *out)
{
    DType dt;
    if (!name || !name[0]) {
        return 0;
    }
    if (strchr("<>|=", name[0]) && name[1]) {
        if (!lookup_code(name + 1, &dt)) {
            return 0;
        }
        if (name[0] == '>' && cj_dtypes[dt].size > 1) {
            return 0;
        }
        *out = dt;
        return 1;
    }
    if (!lookup_name(name, &dt)) {
        return 0;
    }
    *out = dt;
    return 1;
}
