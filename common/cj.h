/* cj.h - what every stage of cujit shares: arena, text buffer, diagnostics,
 * types and the IR.  Plain C11: no Python.h here (DESIGN.md section 2). */
#ifndef CJ_H
#define CJ_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CJ_VERSION "0.1.0"
#define CJ_MAXDIMS 32

#if defined(__GNUC__)
#define CJ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define CJ_NORETURN __attribute__((noreturn))
#else
#define CJ_PRINTF(a, b)
#define CJ_NORETURN
#endif

/* ---- arena: one per compilation, freed in one call ---- */
typedef struct ArenaBlock ArenaBlock;
typedef struct {
    ArenaBlock *head;
} Arena;

void cj_arena_init(Arena *a);
void cj_arena_free(Arena *a);
void *cj_alloc(Arena *a, size_t n);             /* zeroed */
char *cj_strdup(Arena *a, const char *s);
char *cj_strndup(Arena *a, const char *s, size_t n);
char *cj_aprintf(Arena *a, const char *fmt, ...) CJ_PRINTF(2, 3);
/* growable array of pointers in an arena */
void **cj_vec_push(Arena *a, void **v, int *n, int *cap, void *x);

/* ---- growable text buffer ---- */
typedef struct {
    char *s;
    size_t len, cap;
    int indent;
} Buf;

void buf_init(Buf *b);
void buf_free(Buf *b);
void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_putmem(Buf *b, const void *p, size_t n);   /* bytes, NULs included */
void buf_printf(Buf *b, const char *fmt, ...) CJ_PRINTF(2, 3);
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_indent(Buf *b);                 /* writes b->indent * 4 spaces */
char *buf_steal(Buf *b);                 /* malloc'd string, buffer reset */

/* ---- source locations and diagnostics ---- */
typedef struct {
    int line;   /* 1-based line in the Python file */
    int col;    /* 0-based byte column in that line */
    int end_col;
} Loc;

/* Which Python exception a user error is besides cujit.CompileError: the one
 * Python (or CuPy) raises for the same mistake, so that `except TypeError`
 * catches it too (pipeline/errors.c makes the classes). */
typedef enum {
    CE_COMPILE,         /* a construct the kernel language lacks: CompileError only */
    CE_TYPE,            /* types that cannot meet, wrong arguments: also a TypeError */
    CE_VALUE,           /* a right type with a wrong value: also a ValueError */
    CE_INDEX,           /* a constant index out of range: also an IndexError */
    CE_UNPACK,          /* a non-tuple unpacked: also a TypeError (Python) and a
                         * ValueError (cupyx.jit) */
    CE_RECURSION,       /* a return type that recursion never settles: a TypeError
                         * (Numba's TypingError) and a ValueError (cupyx.jit's) */
} CjErrKind;

typedef struct {
    char msg[1024];
    const char *file;
    Loc loc;
    CjErrKind kind;
    int internal;          /* a fault in cujit, not the user's */
} CjError;

/* A pass that meets an error calls cj_fail, which longjmps to the caller's
 * cj_try point; everything it allocated lives in the arena. */
typedef struct {
    jmp_buf jb;
    CjError err;
} CjTry;

CJ_NORETURN void cj_fail(CjTry *t, const char *file, Loc loc, const char *fmt, ...)
    CJ_PRINTF(4, 5);
CJ_NORETURN void cj_unreachable_at(CjTry *t, const char *what, const char *cfile, int cline);
#define cj_unreachable(t, what) cj_unreachable_at((t), (what), __FILE__, __LINE__)

/* ---- types ---- */
typedef enum {
    DT_BOOL, DT_I8, DT_I16, DT_I32, DT_I64, DT_U8, DT_U16, DT_U32, DT_U64,
    DT_F16, DT_F32, DT_F64, DT_C64, DT_C128,
    DT_BF16,          /* bfloat16 (ml_dtypes'): float32's upper 16 bits */
    DT_COUNT
} DType;
/* NumPy structured (record) dtypes are the DType values DT_COUNT ..
 * DT_COUNT + CJ_MAXREC - 1, given out by cj_record_intern (common/recdtype.c) */
#define CJ_MAXREC 200
#define DT_ALL (DT_COUNT + CJ_MAXREC)

typedef enum {
    TY_VOID,
    TY_SCALAR,        /* dtype */
    TY_WEAK_INT,      /* a Python int literal (NEP 50 weak) */
    TY_WEAK_FLOAT,
    TY_WEAK_COMPLEX,
    TY_ARRAY,
    TY_TUPLE,
    TY_STRING,        /* only as print / assert argument */
    TY_DTYPE,         /* a dtype used as a value: np.float32 in shared_memory */
    TY_NONE,          /* the None constant */
    TY_GROUP,         /* a cooperative group (jit.cg): Type.group says which */
    TY_ITER,          /* a jit.thrust iterator of Type.dtype values; Type.layout: 'P' a
                       * pointer, 'S' strided, 'K' constant, 'N' counting */
    TY_RECORD,        /* one element of a record dtype (Type.dtype >= DT_COUNT): an
                       * lvalue in C++; variables hold a pointer to it */
    TY_VECTOR,        /* a CUDA vector type (float32x4 = float4): Type.lanes lanes
                       * (1 to 4, .x .y .z .w) of Type.dtype, an integer or float */
    TY_OPTIONAL,      /* Numba's Optional(T): a T or None (a device function that returns
                       * a value on some paths only); Type.base is T */
} TypeKind;

/* the cooperative groups of jit.cg (codegen/prelude.c spells them) */
typedef enum {
    GK_BLOCK,         /* this_thread_block() */
    GK_GRID,          /* this_grid() */
    GK_TILE,          /* tiled_partition(parent, n): Type.tile threads, n a power of 2 <= 32 */
    GK_COALESCED,     /* coalesced_threads(): the threads active where it was made */
} GroupKind;

/* the methods of a group value, by the axis of a BI_CG_METHOD call:
 * X(enum name, Python name) */
#define CJ_GROUP_METHODS(X) \
    X(SYNC, "sync") X(THREAD_RANK, "thread_rank") X(SIZE, "size") \
    X(NUM_THREADS, "num_threads") X(GROUP_INDEX, "group_index") \
    X(THREAD_INDEX, "thread_index") X(DIM_THREADS, "dim_threads") X(GROUP_DIM, "group_dim") \
    X(IS_VALID, "is_valid") X(BLOCK_RANK, "block_rank") X(NUM_BLOCKS, "num_blocks") \
    X(DIM_BLOCKS, "dim_blocks") X(BLOCK_INDEX, "block_index") \
    X(META_GROUP_RANK, "meta_group_rank") X(META_GROUP_SIZE, "meta_group_size") \
    X(SHFL, "shfl") X(SHFL_UP, "shfl_up") X(SHFL_DOWN, "shfl_down") X(SHFL_XOR, "shfl_xor") \
    X(ANY, "any") X(ALL, "all") X(BALLOT, "ballot") X(MATCH_ANY, "match_any") \
    X(MATCH_ALL, "match_all")

typedef enum {
#define CJ_GM_ENUM(n, s) GM_##n,
    CJ_GROUP_METHODS(CJ_GM_ENUM)
#undef CJ_GM_ENUM
    GM_COUNT
} GroupMethod;

extern const char *const cj_group_method_names[GM_COUNT];

typedef enum {
    MEM_GLOBAL,       /* an argument: view struct (data, shape, strides) */
    MEM_SHARED,       /* jit.shared_memory with a static shape */
    MEM_DYNSHARED,    /* jit.shared_memory(dtype, None) */
    MEM_LOCAL,        /* jit.local_memory */
    MEM_CONST,        /* cuda.const.array_like: a __constant__ table (Type.table) */
} MemSpace;

/* A host NumPy array copied into the kernel as a __constant__ table
 * (cuda.const.array_like): its bytes in C order; id: its index in
 * Program.tables, given by typeinfer */
typedef struct {
    DType dt;
    int ndim;
    int64_t *shape;
    int64_t nbytes;
    const unsigned char *data;
    int id;
} CjTable;

typedef struct Type Type;
struct Type {
    TypeKind kind;
    DType dtype;        /* TY_SCALAR, TY_ARRAY element, TY_DTYPE */
    int ndim;           /* TY_ARRAY */
    char layout;        /* 'C', 'F' or 'A' (any strides) */
    char readonly;
    MemSpace mem;
    int64_t *sshape;    /* static shape for shared / local arrays */
    int align;          /* MEM_SHARED: jit.shared_memory(..., alignment=) bytes, or 0 */
    int ntup;           /* TY_TUPLE */
    Type **tup;
    const char **names; /* TY_TUPLE of a namedtuple argument: its fields (t.x), else NULL */
    const char *enm;    /* TY_SCALAR or TY_TUPLE of an Enum member (its value): the class,
                         * 'I' (an IntEnum: an int) or 'E' then module.qualname; else NULL */
    CjTable *table;     /* MEM_CONST arrays */
    GroupKind group;    /* TY_GROUP */
    int tile;           /* GK_TILE: its threads */
    int parent;         /* GK_TILE: its parent tile's threads, 0 for a block */
    int lanes;          /* TY_VECTOR */
    Type *base;         /* TY_OPTIONAL: the type of its value */
};

typedef struct {
    const char *name;   /* numpy name: "float32" */
    const char *ctype;  /* C++ spelling in generated code */
    const char *code;   /* short mangling code: "f4" */
    char kind;          /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex */
    int size;           /* bytes */
} DTypeInfo;

/* every dtype's facts, the record dtypes' filled in as they are interned
 * (name and ctype: the struct's name, code: R + 12 hex digits of its key) */
extern DTypeInfo cj_dtypes[DT_ALL];

/* ---- record dtypes (recdtype.c) ---- */
#define CJ_MAXSUB 8         /* dimensions of a field's sub-array */
typedef struct {
    const char *name;
    DType dt;               /* a number's dtype or a record's */
    int offset;             /* bytes from the record's start */
    int nsub;               /* dimensions of a sub-array field ('e', u1, 5); 0: none */
    int sub[CJ_MAXSUB];
    int count;              /* elements: the product of sub[] (1 without) */
} CjField;

typedef struct {
    const char *key;        /* canonical text of the whole layout: equal keys, one dtype */
    int itemsize;
    int align;              /* from the layout (recdtype.c), not NumPy's flag */
    int packed;             /* the C++ struct is packed (aligned(align)) */
    int np_aligned;         /* NumPy's flag (align=True): a layout made both ways is two
                             * entries, told apart in signatures only (Numba's Record
                             * carries it); they share key, cname and struct */
    char strkind;           /* a fixed-width string dtype, no fields: 'S' (bytes, S12)
                             * or 'U' (UCS-4, U12: itemsize 48); 0: a record */
    int nfields;
    CjField *fields;
    char cname[24];         /* the C++ struct: cj_rec_<12 hex digits of key's hash> */
} CjRecord;

static inline int
cj_is_record(DType dt)
{
    return (int)dt >= DT_COUNT;
}

/* float16 or bfloat16: stored in 16 bits, computed in float32 and rounded back */
static inline int
cj_is_half(DType dt)
{
    return dt == DT_F16 || dt == DT_BF16;
}
/* The record with r's fields, itemsize and alignment (copied; names and
 * nested dtypes must be interned already), as a DType.  Equal layouts get
 * the same DType.  0, or -1 with msg set (a field out of bounds, too many
 * record dtypes in this process). */
int cj_record_intern(const CjRecord *r, DType *out, char *msg, size_t msglen);
const CjRecord *cj_record(DType dt);            /* NULL for a number's dtype */
const CjField *cj_record_field(DType dt, const char *name);     /* NULL: none */
/* the field lies at a multiple of its alignment in every element (else it
 * is a member of a packed struct, read byte by byte) */
int cj_field_aligned(const CjRecord *r, const CjField *f);
/* a and b are one layout (made with and without align=True): one struct */
int cj_record_twins(DType a, DType b);
/* Record(a: float64, d: uint8[5]; 24 bytes) */
void cj_record_str(Buf *b, DType dt);
/* the record's value type (TY_RECORD), interned */
Type *cj_record_type(DType dt);
/* a number's TY_SCALAR or a record's TY_RECORD (readonly: of a read-only or
 * constant array, whose fields cannot be assigned): an element of an array */
Type *cj_elem_type(DType dt, int readonly);

Type *cj_scalar(DType dt);               /* interned, never freed */
Type *cj_weak(TypeKind k);               /* interned weak literal types */
Type *cj_void(void);
Type *cj_string(void);
Type *cj_none(void);
Type *cj_array_type(Arena *a, DType dt, int ndim, char layout);
Type *cj_tuple_type(Arena *a, Type **elems, int n);
/* an Enum member of class enm (Type.enm) whose value is a dt */
Type *cj_enum_type(Arena *a, DType dt, const char *enm);
/* x and y are Enum members of one class */
int cj_enum_same(const Type *x, const Type *y);
Type *cj_dtype_type(DType dt);
Type *cj_group_type(Arena *a, GroupKind k, int tile, int parent);
Type *cj_iter_type(Arena *a, DType dt, char kind);    /* TY_ITER: kind 'P', 'S', 'K', 'N' */
/* Optional(base): base or None; Optional(Optional(T)) is Optional(T) */
Type *cj_optional_type(Arena *a, Type *base);

/* ---- CUDA vector types (vectypes.c) ---- */
/* the vector of `lanes` (1 to 4) dt's, interned; NULL for a dtype CUDA has
 * no vector of (bool, float16, complex) */
Type *cj_vector_type(DType dt, int lanes);
/* Numba's name ("float32x4") of a vector type: its dtype and lanes; 0 if
 * the name is none */
int cj_vector_from_name(const char *name, DType *dt, int *lanes);
/* CUDA's spelling of a vector type: "float4", "longlong2" */
const char *cj_vector_cname(const Type *t);

int cj_type_eq(const Type *x, const Type *y);
int cj_is_weak(const Type *t);
int cj_is_numeric(const Type *t);        /* scalar or weak */
char cj_type_kind(const Type *t);        /* dtype kind of a numeric type, weak too */
DType cj_weak_default(const Type *t);    /* weak int -> int64 ... */
Type *cj_concrete(const Type *t);        /* weak -> its default dtype */
/* NumPy 2 result_type for two operands; weak types per NEP 50. */
Type *cj_promote(const Type *x, const Type *y);
DType cj_promote_dt(DType x, DType y);
int cj_can_cast_safe(DType from, DType to);
/* the smallest float type holding the dtype without loss (int -> float64) */
DType cj_float_for(DType dt);
/* the type a variable holds after assignments of x and y (Numba-style
 * unification); NULL if they cannot meet */
Type *cj_unify(Arena *a, const Type *x, const Type *y);
/* "float32", "float32[:, ::1]", "Tuple(int64, float32)" */
void cj_type_str(Buf *b, const Type *t);
/* short code for mangled names */
void cj_type_mangle(Buf *b, const Type *t);
int cj_dtype_from_name(const char *name, DType *out);   /* float32, f4, <f4, bool... */

/* ---- signature strings (re2c lexer in frontend/sig.re) ---- */
/* Parses "(float32, float32[:], int32)" or "void(float32[:, ::1], i8)".
 * Returns the number of argument types or -1 with msg set. */
int cj_parse_signature(Arena *a, const char *s, Type ***out, Type **ret, char *msg, size_t msglen);

/* ---- IR ---- */
typedef struct Node Node;
typedef struct Func Func;

typedef enum {
    /* statements */
    ND_ASSIGN, ND_AUGASSIGN, ND_IF, ND_WHILE, ND_FOR, ND_BREAK, ND_CONTINUE,
    ND_PASS, ND_RETURN, ND_ASSERT, ND_EXPR,
    /* expressions */
    ND_CONST, ND_VAR, ND_BINOP, ND_UNARY, ND_COMPARE, ND_BOOLOP, ND_IFEXP,
    ND_INDEX, ND_ATTR, ND_CALL, ND_TUPLE,
    ND_SLICE,           /* lo:hi:step inside [] only: a, b, c, each NULL when omitted */
} NodeKind;

typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
    OP_LSHIFT, OP_RSHIFT, OP_BITOR, OP_BITXOR, OP_BITAND, OP_MATMUL,
    /* unary */
    OP_NEG, OP_POS, OP_INVERT, OP_NOT,
    /* comparisons */
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_IS, OP_ISNOT, OP_IN, OP_NOTIN,
    /* boolean */
    OP_AND, OP_OR,
} OpKind;

/* the reductions a fused function (@cujit.fuse) may end in */
typedef enum {
    RED_NONE, RED_SUM, RED_PROD, RED_MIN, RED_MAX, RED_MEAN, RED_ANY, RED_ALL, RED_ARGMIN,
    RED_ARGMAX,
} RedOp;

typedef enum {
    AT_SHAPE, AT_SIZE, AT_NDIM, AT_STRIDES, AT_REAL, AT_IMAG, AT_DTYPE_ITEMSIZE,
    AT_NBYTES,          /* a.nbytes: a.size * a.itemsize */
    AT_T,               /* a.T: the view with the axes reversed */
    AT_X, AT_Y, AT_Z,   /* of a dim3 (a group's group_index() ...): a 3-tuple */
    AT_ADDRESS,         /* arr.ctypes.data: the address of its first byte, a uint64 */
    AT_FIELD,           /* any other name: a record's field (Node.str); on a record,
                         * every attribute is its field of that name */
} AttrKind;

/* builtins a call can name; the frontend resolves them, typeinfer checks them */
#define CJ_BUILTINS(X) \
    X(THREADIDX) X(BLOCKIDX) X(BLOCKDIM) X(GRIDDIM) \
    X(GRID) X(GRIDSIZE) X(LANEID) X(SYNCTHREADS) X(SYNCWARP) X(THREADFENCE) \
    X(SYNCTHREADS_COUNT) X(SYNCTHREADS_AND) X(SYNCTHREADS_OR) \
    X(THREADFENCE_BLOCK) X(THREADFENCE_SYSTEM) \
    X(SHARED_MEMORY) X(LOCAL_MEMORY) X(CONST_ARRAY) \
    X(ATOMIC_ADD) X(ATOMIC_SUB) X(ATOMIC_MAX) X(ATOMIC_MIN) X(ATOMIC_EXCH) \
    X(ATOMIC_AND) X(ATOMIC_OR) X(ATOMIC_XOR) X(ATOMIC_INC) X(ATOMIC_DEC) X(ATOMIC_CAS) \
    X(ATOMIC_NANMAX) X(ATOMIC_NANMIN) \
    X(SHFL_SYNC) X(SHFL_UP_SYNC) X(SHFL_DOWN_SYNC) X(SHFL_XOR_SYNC) \
    X(ALL_SYNC) X(ANY_SYNC) X(EQ_SYNC) X(BALLOT_SYNC) X(ACTIVEMASK) X(LANEMASK_LT) \
    X(MATCH_ANY_SYNC) X(MATCH_ALL_SYNC) \
    X(POPC) X(CLZ) X(FFS) X(BREV) X(SELP) \
    X(CACHE_LD) X(CACHE_ST) X(NANOSLEEP) X(CARRAY) \
    X(CG_THIS_BLOCK) X(CG_THIS_GRID) X(CG_TILED_PARTITION) X(CG_COALESCED) \
    X(CG_SYNC) X(CG_WAIT) X(CG_WAIT_PRIOR) X(CG_MEMCPY_ASYNC) X(CG_METHOD) \
    X(PRINT) X(RANGE) X(LEN) X(INT) X(FLOAT) X(BOOL) X(COMPLEX) X(CAST) \
    X(ABS) X(MIN) X(MAX) X(ROUND) X(CONJUGATE) X(ISINSTANCE) X(SUM) \
    X(SQRT) X(EXP) X(EXPM1) X(LOG) X(LOG1P) X(LOG2) X(LOG10) X(POW) \
    X(SIN) X(COS) X(TAN) X(ASIN) X(ACOS) X(ATAN) X(ATAN2) \
    X(SINH) X(COSH) X(TANH) X(ASINH) X(ACOSH) X(ATANH) \
    X(HYPOT) X(FLOOR) X(CEIL) X(TRUNC) X(FABS) X(FMOD) X(COPYSIGN) \
    X(ERF) X(ERFC) X(GAMMA) X(LGAMMA) X(ISNAN) X(ISINF) X(ISFINITE) X(CBRT) X(FMA) \
    X(INTRIN) \
    X(VECTOR) \
    X(BLOCK_REDUCE) X(WARP_REDUCE) X(BLOCK_SCAN) X(WARP_SCAN) \
    X(THRUST) X(THRUST_POLICY) X(ARRAY_BEGIN) X(ARRAY_END) \
    X(DEVFUNC) X(NPFUNC) \
    X(EXTERN) X(FROM_BUFFER)

typedef enum {
#define CJ_BI_ENUM(n) BI_##n,
    CJ_BUILTINS(CJ_BI_ENUM)
#undef CJ_BI_ENUM
    BI_COUNT
} BuiltinKind;

extern const char *const cj_builtin_names[BI_COUNT];
/* the cache hints of BI_CACHE_LD / BI_CACHE_ST (Node.axis): PTX's ld.global.<hint>
 * and st.global.<hint>, Numba's cuda.ld<hint> and cuda.st<hint> */
extern const char *const cj_ld_hints[5];
extern const char *const cj_st_hints[4];

/* jit.thrust's algorithms (a BI_THRUST call, the algorithm in Node.axis):
 * X(enum name, Python name, forms).  A form is its arguments after the
 * execution policy (I an iterator, v a number), ':' and its result: v none,
 * b bool, l int64, iN an iterator like argument N, pNM a pair of iterators
 * like arguments N and M, tN the type of argument N, eN the value type of
 * iterator N, K / N a constant / counting iterator of argument 0's type;
 * '|' separates the forms of one name.  make_*_iterator take no policy. */
#define CJ_THRUST_ALGOS(X) \
    X(ADJACENT_DIFFERENCE, "adjacent_difference", "III:i2") \
    X(BINARY_SEARCH, "binary_search", "IIv:b|IIIII:i4") \
    X(COPY, "copy", "III:i2") \
    X(COUNT, "count", "IIv:l") \
    X(EQUAL, "equal", "III:b") \
    X(EQUAL_RANGE, "equal_range", "IIv:p00") \
    X(EXCLUSIVE_SCAN, "exclusive_scan", "III:i2|IIIv:i2") \
    X(EXCLUSIVE_SCAN_BY_KEY, "exclusive_scan_by_key", "IIII:i3|IIIIv:i3") \
    X(FILL, "fill", "IIv:v") \
    X(FIND, "find", "IIv:i0") \
    X(GATHER, "gather", "IIII:i3") \
    X(INCLUSIVE_SCAN, "inclusive_scan", "III:i2") \
    X(INCLUSIVE_SCAN_BY_KEY, "inclusive_scan_by_key", "IIII:i3") \
    X(INNER_PRODUCT, "inner_product", "IIIv:t3") \
    X(IS_SORTED, "is_sorted", "II:b") \
    X(IS_SORTED_UNTIL, "is_sorted_until", "II:i0") \
    X(LOWER_BOUND, "lower_bound", "IIv:i0|IIIII:i4") \
    X(MAKE_CONSTANT_ITERATOR, "make_constant_iterator", "v:K") \
    X(MAKE_COUNTING_ITERATOR, "make_counting_iterator", "v:N") \
    X(MISMATCH, "mismatch", "III:p02") \
    X(REDUCE, "reduce", "II:e0|IIv:t2") \
    X(REDUCE_BY_KEY, "reduce_by_key", "IIIII:p34") \
    X(REMOVE, "remove", "IIv:i0") \
    X(REMOVE_COPY, "remove_copy", "IIIv:i2") \
    X(REPLACE, "replace", "IIvv:v") \
    X(REPLACE_COPY, "replace_copy", "IIIvv:i2") \
    X(REVERSE, "reverse", "II:v") \
    X(REVERSE_COPY, "reverse_copy", "III:i2") \
    X(SCATTER, "scatter", "IIII:v") \
    X(SEQUENCE, "sequence", "II:v|IIv:v|IIvv:v") \
    X(SET_DIFFERENCE, "set_difference", "IIIII:i4") \
    X(SET_DIFFERENCE_BY_KEY, "set_difference_by_key", "IIIIIIII:p67") \
    X(SET_INTERSECTION, "set_intersection", "IIIII:i4") \
    X(SET_INTERSECTION_BY_KEY, "set_intersection_by_key", "IIIIIII:p56") \
    X(SET_SYMMETRIC_DIFFERENCE, "set_symmetric_difference", "IIIII:i4") \
    X(SET_SYMMETRIC_DIFFERENCE_BY_KEY, "set_symmetric_difference_by_key", "IIIIIIII:p67") \
    X(SET_UNION, "set_union", "IIIII:i4") \
    X(SET_UNION_BY_KEY, "set_union_by_key", "IIIIIIII:p67") \
    X(SORT, "sort", "II:v") \
    X(SORT_BY_KEY, "sort_by_key", "III:v") \
    X(STABLE_SORT, "stable_sort", "II:v") \
    X(STABLE_SORT_BY_KEY, "stable_sort_by_key", "III:v") \
    X(SWAP_RANGES, "swap_ranges", "III:i2") \
    X(UNIQUE, "unique", "II:i0") \
    X(UNIQUE_BY_KEY, "unique_by_key", "III:p02") \
    X(UPPER_BOUND, "upper_bound", "IIv:i0|IIIII:i4")

typedef enum {
#define CJ_TH_ENUM(n, s, f) TH_##n,
    CJ_THRUST_ALGOS(CJ_TH_ENUM)
#undef CJ_TH_ENUM
    TH_NALGOS
} ThrustAlgo;

extern const char *const cj_thrust_names[TH_NALGOS];
extern const char *const cj_thrust_forms[TH_NALGOS];

/* NumPy's functions and array methods that a kernel computes in the calling
 * thread, and cmath's functions (a BI_NPFUNC call, the function in
 * Node.axis): X(enum name, Python name, kind, arguments).  kind: 'r' a
 * reduction of a whole array, np.X(a) or a.X(); 'f' np.X(a) only; 'm' a
 * method only; 'c' cmath.X(z ...).  arguments: the least and the most. */
#define CJ_NP_FUNCS(X) \
    X(SUM, "sum", 'r', 1, 1) X(PROD, "prod", 'r', 1, 1) X(MIN, "min", 'r', 1, 1) \
    X(MAX, "max", 'r', 1, 1) X(AMIN, "amin", 'f', 1, 1) X(AMAX, "amax", 'f', 1, 1) \
    X(MEAN, "mean", 'r', 1, 1) X(VAR, "var", 'r', 1, 1) X(STD, "std", 'r', 1, 1) \
    X(ALL, "all", 'r', 1, 1) X(ANY, "any", 'r', 1, 1) \
    X(NANSUM, "nansum", 'f', 1, 1) X(NANPROD, "nanprod", 'f', 1, 1) \
    X(NANMIN, "nanmin", 'f', 1, 1) X(NANMAX, "nanmax", 'f', 1, 1) \
    X(NANMEAN, "nanmean", 'f', 1, 1) X(COUNT_NONZERO, "count_nonzero", 'f', 1, 1) \
    X(ARGMIN, "argmin", 'r', 1, 1) X(ARGMAX, "argmax", 'r', 1, 1) \
    X(COPY, "copy", 'm', 1, 1) X(VIEW, "view", 'm', 2, 2) X(RESHAPE, "reshape", 'm', 2, 9) \
    X(C_ACOS, "acos", 'c', 1, 1) X(C_ACOSH, "acosh", 'c', 1, 1) X(C_ASIN, "asin", 'c', 1, 1) \
    X(C_ASINH, "asinh", 'c', 1, 1) X(C_ATAN, "atan", 'c', 1, 1) X(C_ATANH, "atanh", 'c', 1, 1) \
    X(C_COS, "cos", 'c', 1, 1) X(C_COSH, "cosh", 'c', 1, 1) X(C_EXP, "exp", 'c', 1, 1) \
    X(C_ISFINITE, "isfinite", 'c', 1, 1) X(C_ISINF, "isinf", 'c', 1, 1) \
    X(C_ISNAN, "isnan", 'c', 1, 1) X(C_LOG, "log", 'c', 1, 2) X(C_LOG10, "log10", 'c', 1, 1) \
    X(C_PHASE, "phase", 'c', 1, 1) X(C_POLAR, "polar", 'c', 1, 1) X(C_RECT, "rect", 'c', 2, 2) \
    X(C_SIN, "sin", 'c', 1, 1) X(C_SINH, "sinh", 'c', 1, 1) X(C_SQRT, "sqrt", 'c', 1, 1) \
    X(C_TAN, "tan", 'c', 1, 1) X(C_TANH, "tanh", 'c', 1, 1)

/* NumPy's elementwise ufuncs in kernels, kind 'u' (typeinfer/ufuncs.c,
 * codegen/ufuncs.c): np.f(x ...) of numbers is a number; np.f(x ..., out)
 * writes every element of the array out (the inputs broadcast against it).
 * arguments: the ufunc's inputs, and one more with out */
#define CJ_NP_UFUNCS(X) \
    X(U_SIN, "sin", 'u', 1, 2) X(U_COS, "cos", 'u', 1, 2) X(U_TAN, "tan", 'u', 1, 2) \
    X(U_ARCSIN, "arcsin", 'u', 1, 2) X(U_ARCCOS, "arccos", 'u', 1, 2) \
    X(U_ARCTAN, "arctan", 'u', 1, 2) X(U_ARCTAN2, "arctan2", 'u', 2, 3) \
    X(U_HYPOT, "hypot", 'u', 2, 3) X(U_SINH, "sinh", 'u', 1, 2) X(U_COSH, "cosh", 'u', 1, 2) \
    X(U_TANH, "tanh", 'u', 1, 2) X(U_ARCSINH, "arcsinh", 'u', 1, 2) \
    X(U_ARCCOSH, "arccosh", 'u', 1, 2) X(U_ARCTANH, "arctanh", 'u', 1, 2) \
    X(U_DEG2RAD, "deg2rad", 'u', 1, 2) X(U_RADIANS, "radians", 'u', 1, 2) \
    X(U_RAD2DEG, "rad2deg", 'u', 1, 2) X(U_DEGREES, "degrees", 'u', 1, 2) \
    X(U_LOG, "log", 'u', 1, 2) X(U_LOG2, "log2", 'u', 1, 2) X(U_LOG10, "log10", 'u', 1, 2) \
    X(U_LOG1P, "log1p", 'u', 1, 2) X(U_EXP, "exp", 'u', 1, 2) X(U_EXP2, "exp2", 'u', 1, 2) \
    X(U_EXPM1, "expm1", 'u', 1, 2) X(U_SQRT, "sqrt", 'u', 1, 2) \
    X(U_GREATER, "greater", 'u', 2, 3) X(U_GREATER_EQUAL, "greater_equal", 'u', 2, 3) \
    X(U_LESS, "less", 'u', 2, 3) X(U_LESS_EQUAL, "less_equal", 'u', 2, 3) \
    X(U_EQUAL, "equal", 'u', 2, 3) X(U_NOT_EQUAL, "not_equal", 'u', 2, 3) \
    X(U_LOGICAL_AND, "logical_and", 'u', 2, 3) X(U_LOGICAL_OR, "logical_or", 'u', 2, 3) \
    X(U_LOGICAL_XOR, "logical_xor", 'u', 2, 3) X(U_LOGICAL_NOT, "logical_not", 'u', 1, 2) \
    X(U_MAXIMUM, "maximum", 'u', 2, 3) X(U_MINIMUM, "minimum", 'u', 2, 3) \
    X(U_FMAX, "fmax", 'u', 2, 3) X(U_FMIN, "fmin", 'u', 2, 3) \
    X(U_BITWISE_AND, "bitwise_and", 'u', 2, 3) X(U_BITWISE_OR, "bitwise_or", 'u', 2, 3) \
    X(U_BITWISE_XOR, "bitwise_xor", 'u', 2, 3) X(U_INVERT, "invert", 'u', 1, 2) \
    X(U_ISNAN, "isnan", 'u', 1, 2) X(U_ISINF, "isinf", 'u', 1, 2) \
    X(U_ISFINITE, "isfinite", 'u', 1, 2) X(U_ADD, "add", 'u', 2, 3) \
    X(U_SUBTRACT, "subtract", 'u', 2, 3) X(U_MULTIPLY, "multiply", 'u', 2, 3) \
    X(U_DIVIDE, "divide", 'u', 2, 3) X(U_NEGATIVE, "negative", 'u', 1, 2) \
    X(U_ABSOLUTE, "absolute", 'u', 1, 2) X(U_SQUARE, "square", 'u', 1, 2) \
    X(U_FLOOR, "floor", 'u', 1, 2) X(U_CEIL, "ceil", 'u', 1, 2) X(U_TRUNC, "trunc", 'u', 1, 2) \
    X(U_RINT, "rint", 'u', 1, 2) X(U_FABS, "fabs", 'u', 1, 2) X(U_CBRT, "cbrt", 'u', 1, 2) \
    X(U_SIGN, "sign", 'u', 1, 2) X(U_POSITIVE, "positive", 'u', 1, 2) \
    X(U_CONJUGATE, "conjugate", 'u', 1, 2) X(U_RECIPROCAL, "reciprocal", 'u', 1, 2) \
    X(U_SIGNBIT, "signbit", 'u', 1, 2) X(U_COPYSIGN, "copysign", 'u', 2, 3) \
    X(U_POWER, "power", 'u', 2, 3) X(U_REMAINDER, "remainder", 'u', 2, 3) \
    X(U_FLOOR_DIVIDE, "floor_divide", 'u', 2, 3) X(U_FMOD, "fmod", 'u', 2, 3) \
    X(U_LOGADDEXP, "logaddexp", 'u', 2, 3) X(U_LOGADDEXP2, "logaddexp2", 'u', 2, 3) \
    X(U_NEXTAFTER, "nextafter", 'u', 2, 3) X(U_HEAVISIDE, "heaviside", 'u', 2, 3) \
    X(U_LEFT_SHIFT, "left_shift", 'u', 2, 3) X(U_RIGHT_SHIFT, "right_shift", 'u', 2, 3) \
    X(U_GCD, "gcd", 'u', 2, 3) X(U_LCM, "lcm", 'u', 2, 3)

typedef enum {
#define CJ_NP_ENUM(n, s, k, lo, hi) NP_##n,
    CJ_NP_FUNCS(CJ_NP_ENUM)
    CJ_NP_UFUNCS(CJ_NP_ENUM)
#undef CJ_NP_ENUM
    NP_COUNT
} NpFunc;

typedef struct {
    const char *name;
    char kind;
    int min_args, max_args;
} NpFuncInfo;

extern const NpFuncInfo cj_np_funcs[NP_COUNT];

/* common/ufuncs.c: NumPy's type rules of the ufuncs (CJ_NP_UFUNCS) */
typedef enum {
    UC_NONE,    /* not a ufunc */
    UC_FLOAT,   /* float results (trig, log, sqrt, divide): integers as float */
    UC_REAL,    /* the same, of real numbers only (arctan2, hypot, deg2rad ...) */
    UC_CMP,     /* comparisons: bool */
    UC_LOGIC,   /* logical_and ...: bool */
    UC_MINMAX,  /* maximum, minimum, fmax, fmin */
    UC_BITS,    /* bitwise_and ..., invert: integers and bool */
    UC_PRED,    /* isnan, isinf, isfinite: bool */
    UC_ARITH,   /* add, subtract, multiply, negative, square */
    UC_ABS,     /* absolute: complex gives its real dtype */
    UC_SAME,    /* floor, sign, power, remainder ...: the inputs' dtype (bool: int8) */
} UfClass;
int cj_ufunc_real_only(int fn);
UfClass cj_ufunc_class(int fn);
DType cj_ufunc_loop(int fn, const Type *const *in, int nin, int *mixed);
DType cj_ufunc_result(int fn, DType dt);

/* the combiner of a collective (an ND_CALL of BI_BLOCK_REDUCE ... BI_WARP_SCAN),
 * in Node.coll; CO_FUNC combines with the device function Node.fn */
enum { CO_SUM = 1, CO_MAX, CO_MIN, CO_FUNC, CO_MASK = 0xff };
enum {
    CO_INCLUSIVE = 1 << 8,  /* a scan: inclusive (else exclusive) */
    CO_STORAGE = 1 << 9,    /* list[0] may be temp storage (cuda.coop's form): skipped */
};

typedef enum {
    CK_INT, CK_UINT, CK_FLOAT, CK_COMPLEX, CK_BOOL, CK_STR, CK_NONE, CK_DTYPE,
    CK_DEVARRAY,        /* a device array read as a global (Const.arr) */
} ConstKind;

/* A device array of any library read as a global (cuda.to_device(...) at
 * module level, a CuPy array in a closure): its address, shape and byte
 * strides are baked into the kernel as a cj_array value; the compiled
 * kernel keeps the Python object alive (PlCompiled.keep). */
typedef struct {
    DType dt;
    int ndim;
    char layout;        /* 'C' or 'A' */
    int readonly;
    uint64_t ptr;
    int64_t *shape, *strides;
    int64_t span;       /* bytes from the lowest to the highest element */
} CjDevArray;

typedef struct {
    ConstKind kind;
    int weak;           /* a Python literal / Python number (NEP 50) */
    DType dt;           /* when not weak: its NumPy dtype; CK_DTYPE: the dtype */
    int64_t i;
    uint64_t u;
    double f, im;
    const char *s;
    int bytes;              /* CK_STR: a bytes literal, its len bytes in s (NULs too) */
    int64_t len;            /* CK_STR of bytes: their number */
    const CjDevArray *arr;  /* CK_DEVARRAY */
    const char *enm;        /* an Enum member's class (Type.enm), or NULL */
} Const;

typedef struct {
    const char *name;
    const char *cname;  /* spelling in C++ (renamed if it meets a C++ word) */
    int id;
    int is_param;
    int maybe_unset;    /* read where some path did not assign it: declared zero-initialized */
    int has_konst;      /* assigned once, at the top level, an integer literal (N = 100): */
    int64_t konst;      /* its value where a constant is needed (shapes, grid(N)) */
    int byref;          /* a parameter that is the caller's variable (C++ T &): a function
                         * defined in a kernel rebinds it (nonlocal x) */
    Loc loc;            /* first assignment */
} Var;

/* Node.op of an ND_ASSERT that is a raise (frontend/raise.c): its str names
 * the exception ("module\nqualname\nrepr(args)"), its condition is False */
enum { ND_RAISE_OP = 1 };

struct Node {
    NodeKind kind;
    int id;             /* index into an instance's type table */
    Loc loc;
    int op;             /* OpKind, BuiltinKind, AttrKind */
    int axis;           /* .x/.y/.z of thread indices; n of grid(n) */
    Node *a, *b, *c;
    Node **list;        /* arguments, body, targets, operands */
    int n;
    Node **list2;       /* else-branch, keyword values */
    int n2;
    const char **kwnames;   /* names of list2 for ND_CALL; an ND_TUPLE's field names
                             * when it is a namedtuple (NULL otherwise) */
    int *ops;           /* ND_COMPARE: n-1 operators */
    Var *var;           /* ND_VAR, ND_FOR target */
    Func *fn;           /* ND_CALL of a device function */
    Const cval;         /* ND_CONST */
    const char *str;    /* ND_ASSERT message; ND_ATTR: the attribute's name */
    int unroll;         /* ND_FOR: 0 no pragma, -1 `#pragma unroll`, n > 0 `#pragma unroll n` */
    int coll;           /* ND_CALL of a collective: CO_* combiner and flags; its
                         * dtype, if the spelling names one, in cval (CK_DTYPE) */
    CjTable *table;     /* ND_CALL of BI_CONST_ARRAY */
    struct CjExtern *ext;   /* ND_CALL of BI_EXTERN: the declared function */
};

struct Func {
    const char *name;
    const char *file;
    Loc loc;
    int is_device;
    int boundscheck;    /* the checks compiled in: CHK_* bits */
    Var **vars;         /* parameters first */
    int nvars, nparams;
    Node **body;
    int nbody;
    int nnodes;
    uint64_t src_hash;  /* of this function's source (callees hashed apart) */
    int numpy_math;     /* a fused function: math of int8 / uint8 / bool gives float16
                         * (NumPy's ufunc loops), not float32 */
    /* a device function's declared signatures (cuda.jit(sig, device=True)):
     * a call takes the first its arguments convert to; ret NULL: none given */
    Type ***decl_args;
    Type **decl_ret;
    int *decl_nargs;
    int ndecl;
    /* the parameters as written (device functions): a parameter given a
     * compile-time argument (a function, a dtype, a constant) is bound to it
     * and is no Var (bit i of `bound`, for the first 64); `vararg`: the last
     * Var is *args, a tuple of the extra positional arguments */
    const char **pnames;
    int npnames;
    uint64_t bound;
    const char **pbound;    /* by pnames: a bound parameter's value's type, as a signature
                             * names it (int64, float64, function), NULL for the others */
    int vararg;
    /* a stand-in for a function overloaded in Python (@overload): its calls
     * are resolved by typeinfer for their argument types (CjOverload) */
    struct CjOverload *ovl;
};

/* A call of a function overloaded in Python (cujit.extending.overload,
 * frontend/overload.c).  Which function implements it depends on the types
 * of its arguments, so the call's Func is a stand-in holding this, and
 * typeinfer asks `resolve` for the implementation once it has the types:
 * the frontend passes itself down in the IR, and typeinfer calls no Python.
 * resolve gives the implementation and the call's arguments in the order of
 * its parameters, or longjmps with an error at the call; before the final
 * pass (types may still widen) it gives NULL where no overload takes them. */
typedef struct CjOverload CjOverload;
struct CjOverload {
    Node **pos;             /* the arguments as written; NULL: a compile-time */
    int npos;               /* object only (a function, a dtype) */
    Node **kw;
    const char **kwnames;
    int nkw;
    Func *(*resolve)(CjOverload *o, Node *call, Type **pos, Type **kw, int final,
                     Node ***args, int *nargs);
    void *ctx;              /* the frontend's */
    int resolved;           /* typeinfer: the call's arguments are in an implementation's order */
};

/* ---- typed program (typeinfer output, codegen input) ---- */
typedef struct Inst Inst;
struct Inst {
    Func *fn;
    Type **args;        /* nparams */
    Type **ntype;       /* by node id */
    Type **vtype;       /* by var id */
    Inst **callee;      /* by node id: the instance an ND_CALL of a device function calls */
    int64_t *aux;       /* by node id: a constant found while typing (tuple index...) */
    Type *ret;
    const char *cname;  /* mangled C++ name */
    int done;           /* typing finished (recursion guard) */
    int busy;           /* being typed: a call of the same instance is a recursion */
    int recursive;      /* calls itself (codegen: not inlined) */
    /* by param: bit d when a weak Python int argument meets integer dtype d
     * as an operand (NEP 50: the caller checks that its value fits d) */
    uint32_t *weak_to;
};

enum {
    FEAT_F16 = 1 << 0, FEAT_COMPLEX = 1 << 1, FEAT_ATOMIC = 1 << 2, FEAT_PRINT = 1 << 3,
    FEAT_ASSERT = 1 << 4, FEAT_DYNSHARED = 1 << 5, FEAT_MATH = 1 << 6, FEAT_WARP = 1 << 7,
    FEAT_BOUNDS = 1 << 8, FEAT_INTDIV = 1 << 9, FEAT_INFNAN = 1 << 10, FEAT_FLOATDIV = 1 << 11,
    FEAT_IPOW = 1 << 12, FEAT_PACK = 1 << 13, FEAT_SU_CMP = 1 << 14,
    FEAT_ATOMIC16 = 1 << 15,    /* an atomic on int16, uint16 or float16 (inline PTX) */
    FEAT_LANEMASK = 1 << 16,    /* cj_lanemask_lt() (inline PTX) */
    FEAT_COLLECTIVE = 1 << 17,  /* block / warp reduce and scan (prelude.c) */
    FEAT_CG = 1 << 18,          /* jit.cg: the block and what groups share (groups.c) */
    FEAT_GRID_SYNC = 1 << 19,   /* this_grid().sync(): a cooperative launch */
    FEAT_CG_COPY = 1 << 20,     /* jit.cg.memcpy_async */
    FEAT_MATCH = 1 << 21,       /* match_all_sync (a (mask, pred) tuple) */
    FEAT_CG_GRID = 1 << 22,     /* jit.cg: the grid group */
    FEAT_CG_TILE = 1 << 23,     /* jit.cg: tiles */
    FEAT_CG_COALESCED = 1 << 24,    /* jit.cg: coalesced groups */
    FEAT_VIEW = 1 << 25,        /* views: a[i] of a 2-d a, a[lo:hi:step] (prelude.c) */
    FEAT_THRUST = 1 << 26,      /* jit.thrust: iterators and algorithms (codegen/thrust.c) */
    FEAT_F16_OPS = 1 << 27,     /* cuda.fp16's functions and float16 arithmetic in f16 */
    FEAT_MATH_EXTRA = 1 << 28,  /* cj_degrees, cj_radians, cj_round_nd (prelude.c) */
    FEAT_FMINMAX = 1 << 29,     /* min() / max() of floats: cj_fmax, cj_fmin */
    FEAT_NPFUNC = 1 << 30,      /* NumPy reductions and cmath in kernels (codegen/npfuncs.c) */
};
/* Bits from 31 on are past an enum constant's int range: they are macros
 * of the 64-bit Features type; add new ones here. */
typedef uint64_t Features;
#define FEAT_BIT(n) ((Features)1 << (n))
#define FEAT_CACHE_HINT FEAT_BIT(31)   /* cuda.ldca ... / stcg ...: cj_ld<hint>, cj_st<hint> */
#define FEAT_BF16 FEAT_BIT(34)         /* bfloat16 values: the cj_bf16 struct (prelude.c) */
#define FEAT_DEBUG_CHECKS FEAT_BIT(37) /* debug=True: cj_nz, cj_tix (codegen/checks.c) */
#define FEAT_EXTERN FEAT_BIT(39)       /* declared foreign functions: cj_extptr (codegen/extern.c) */
#define FEAT_BF16_OPS FEAT_BIT(44)     /* cuda.bf16's functions: cj_bf_* (prelude.c) */
#define FEAT_OPTIONAL FEAT_BIT(52)     /* Optional values: cj_opt<T>, cj_opt_get (prelude.c) */
#define FEAT_WRAP FEAT_BIT(53)         /* cuda.jit: a negative index from the end, cj_wrap (prelude.c) */

/* the feature a 16-bit float dtype needs: its struct */
static inline Features
cj_half_feature(DType dt)
{
    return dt == DT_F16 ? FEAT_F16 : dt == DT_BF16 ? FEAT_BF16 : 0;
}

/* Func.boundscheck (and PlRequest.boundscheck): the run-time checks compiled in.
 * CHK_BOUNDS: array indices (boundscheck=True); CHK_DEBUG: Numba's debug=True
 * exception checks (a divisor of zero raises ZeroDivisionError, a tuple index
 * out of range IndexError); CHK_FLOATDIV: a float divisor too (not with
 * fastmath=True, as in Numba) */
enum { CHK_BOUNDS = 1, CHK_DEBUG = 2, CHK_FLOATDIV = 4 };

typedef struct {
    Arena *arena;
    CjTry *try_;
    Inst *kernel;       /* the entry */
    Inst **insts;       /* every instance, callees before callers */
    int ninsts, cap;
    int idx32;          /* index arithmetic in 32 bits */
    int numba;          /* Numba's rules (a cuda.jit kernel's program): an integer or
                         * boolean operator computes in at least 64 bits (typeinfer), a
                         * signed index that may be negative counts from the end
                         * (codegen/nonneg.c) */
    int depth;          /* nesting of device-function typing (recursion guard) */
    Features features;
    int print_raw;          /* a print() of more than 32 values prints its format (codegen) */
    const char *undef_warn; /* the first read of a variable some path did not assign
                             * ("file:line: ..."): warned when compiled (pipeline.c) */
    unsigned atomic_ops;    /* bit (op - BI_ATOMIC_ADD) for each atomic used */
    const char **msgs;  /* assert messages, by msg_id in the error record */
    int nmsgs, mcap;
    Type **tuples;      /* tuple types that need a C++ struct */
    int ntuples, tcap;
    DType *records;     /* record dtypes that need a C++ struct, nested ones first */
    int nrecords, reccap;
    CjTable **tables;       /* cuda.const.array_like tables, by id */
    int ntables, tabcap;
    const char *ew_name;    /* the entry of an elementwise or reduction form */
    int coarse_vec;         /* >0: the kernel has an entry <name>_x<vec> (coarsen.c) */
    uint64_t coarse_mask;   /* parameters that entry reads and writes in packs */
    unsigned char *intrin_used; /* by cj_intrins row: called (libdevice's are declared) */
    int fastmath;           /* NVRTC's --use_fast_math, and fmin/fmax for min/max */
    int launch_bounds[3];   /* the kernel's __launch_bounds__(...); 0: not given */
    struct CjExtern **externs;  /* declared foreign functions called (typeinfer/extern.c) */
    int nexterns, extcap;
} Program;

/* ---- declared foreign device functions (cuda.declare_device) ----
 * Read by the frontend (frontend/extern.c) from the object's __cujit_extern__
 * tuple, typed by typeinfer/extern.c, emitted by codegen/extern.c: the CUDA
 * C++ sources it links go into the kernel's program, and cj_ext_<name>
 * wraps the call in the declared ABI. */
typedef struct CjExtern {
    const char *name;       /* the C function */
    Type *ret;              /* the declared result (TY_VOID for void) */
    Type **args;
    int nargs;
    int abi_c;              /* abi='c': ret name(args); else int name(ret *out, args) */
    int cooperative;        /* use_cooperative=True: a cooperative launch */
    const char **srcs;      /* CUDA C++ texts it links, each after a #line, and the
                             * marker lines of the compiled code it links (PTX, cubin,
                             * ...: cj_link_marker; runtime/link.c links that code) */
    int nsrcs;
} CjExtern;

/* Is a CjExtern's source the marker of compiled code to link
 * ("//@cujit-link <kind> <hash> <name>", cujit/_extern.py)? */
static inline int
cj_link_marker(const char *src)
{
    return strncmp(src, "//@cujit-link ", 14) == 0;
}

/* ---- intrinsics: a table of functions called by name (intrin.c) ----
 * An ND_CALL of BI_INTRIN holds its row in Node.axis.  sig is the result then
 * the arguments, a letter each: v void, b bool, i int32, u uint32, l int64,
 * L uint64, w uint16, h float16, f float32, d float64, c int8, C uint8, s int16,
 * y bfloat16; F the float type of
 * the arguments (math's rule: int -> float64, float16 computed in float32),
 * for which cname gets an f suffix in float32 unless it starts with cj_.
 * A '*' before a letter is a pointer the function writes: its value is
 * returned in a tuple after the return value (or alone if it is void). */
typedef struct {
    const char *name;       /* as Python spells it: "fp16.hadd", "math.exp2", "libdevice.sin" */
    const char *cname;      /* C++: "cj_hadd", "exp2", "__nv_sin" */
    const char *sig;
} CjIntrin;

extern const CjIntrin cj_intrins[];
extern const int cj_nintrins;
/* the row of a name ("fp16.hadd"), -1 for none */
int cj_intrin_find(const char *name);
/* a libdevice function (its C++ name is declared before use) */
int cj_intrin_is_libdevice(int row);

/* ---- small utilities ---- */
/* an integer expression of constants (TILE + 1, N // 2, -1) evaluated; 0 if
 * it is not one */
int cj_fold_int(const Node *n, int64_t *v);
/* the truth of a condition of constants (N > 2, not DEBUG); 0 if not one */
int cj_fold_truth(const Node *n, int *v);
uint64_t cj_hash64(const void *data, size_t n, uint64_t seed);
/* a 128-bit hash, word at a time (cache keys) */
void cj_hash128(const void *data, size_t n, uint64_t seed, uint64_t out[2]);
int cj_is_cpp_reserved(const char *name);

#endif
