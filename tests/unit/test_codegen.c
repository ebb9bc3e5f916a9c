/* test_codegen.c - IR built in C, typed and printed: operator precedence,
 * NEP 50 literals, Python division semantics, and typing errors. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "../../codegen/codegen.h"
#include "../../typeinfer/typeinfer.h"

/* ---- a tiny IR builder ---- */

typedef struct {
    Func *fn;
    int nnodes;
} B;

static B bld;

static Node *
node(NodeKind k)
{
    Node *n = cj_alloc(unit_arena(), sizeof(Node));
    n->kind = k;
    n->id = bld.nnodes++;
    n->loc.line = 10 + n->id;
    n->loc.col = 4;
    return n;
}

static Var *
var(const char *name, int is_param)
{
    Func *fn = bld.fn;
    Var *v = cj_alloc(unit_arena(), sizeof(Var));
    v->name = v->cname = name;
    v->id = fn->nvars;
    v->is_param = is_param;
    fn->vars[fn->nvars++] = v;
    if (is_param) {
        fn->nparams++;
    }
    return v;
}

static Node *
ref(Var *v)
{
    Node *n = node(ND_VAR);
    n->var = v;
    return n;
}

static Node *
num_i(int64_t i)
{
    Node *n = node(ND_CONST);
    n->cval.kind = CK_INT;
    n->cval.weak = 1;
    n->cval.dt = DT_I64;
    n->cval.i = i;
    return n;
}

static Node *
num_f(double f)
{
    Node *n = node(ND_CONST);
    n->cval.kind = CK_FLOAT;
    n->cval.weak = 1;
    n->cval.dt = DT_F64;
    n->cval.f = f;
    return n;
}

static Node *
bin(int op, Node *a, Node *b)
{
    Node *n = node(ND_BINOP);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

static Node *
idx(Node *arr, Node *i)
{
    Node *n = node(ND_INDEX);
    n->a = arr;
    n->list = cj_alloc(unit_arena(), sizeof(Node *));
    n->list[0] = i;
    n->n = 1;
    return n;
}

static Node *
assign(Node *target, Node *value)
{
    Node *n = node(ND_ASSIGN);
    n->list = cj_alloc(unit_arena(), sizeof(Node *));
    n->list[0] = target;
    n->n = 1;
    n->a = value;
    return n;
}

static void
begin_func(const char *name)
{
    bld.nnodes = 0;
    bld.fn = cj_alloc(unit_arena(), sizeof(Func));
    bld.fn->name = name;
    bld.fn->file = "test.py";
    bld.fn->loc.line = 1;
    bld.fn->vars = cj_alloc(unit_arena(), sizeof(Var *) * 16);
}

static void
body(Node **stmts, int n)
{
    bld.fn->body = stmts;
    bld.fn->nbody = n;
    bld.fn->nnodes = bld.nnodes;
}

static CjTry tr;
static Program *prog;   /* the last program emit() typed */

/* types and prints the function; NULL (tr.err set) on a compile error */
static const char *
emit(Type **args, int nargs, int idx32)
{
    static char *last;
    free(last);
    last = NULL;
    memset(&tr, 0, sizeof tr);
    if (setjmp(tr.jb)) {
        return NULL;
    }
    Program *p = ti_infer(unit_arena(), &tr, bld.fn, args, nargs, idx32, 0);
    prog = p;
    Buf b;
    buf_init(&b);
    cg_emit(p, &b);
    last = buf_steal(&b);
    return last;
}

static void
assert_contains(const char *text, const char *want, unsigned line)
{
    int ok = text && strstr(text, want);
    char cond[512];
    snprintf(cond, sizeof cond, "generated code contains \"%s\"%s", want,
             text ? "" : " (compile failed)");
    CU_assertImplementation(ok, line, cond, __FILE__, "", CU_FALSE);
    if (!ok && text) {
        fprintf(stderr, "\n---- generated ----\n%s\n", text);
    }
}

#define CONTAINS(text, want) assert_contains((text), (want), __LINE__)

/* out[0] = <value> over params (float32 a, float32[:] x, out[:] of dt) */
static const char *
emit_store(Node *(*make)(Var *a, Var *x), DType adt, DType xdt, DType odt)
{
    begin_func("k");
    Var *a = var("a", 1), *x = var("x", 1), *out = var("out", 1);
    Node **st = cj_alloc(unit_arena(), sizeof(Node *));
    st[0] = assign(idx(ref(out), num_i(0)), make(a, x));
    body(st, 1);
    Type *args[3] = {cj_scalar(adt), cj_array_type(unit_arena(), xdt, 1, 'C'),
                     cj_array_type(unit_arena(), odt, 1, 'C')};
    return emit(args, 3, 1);
}

static Node *
saxpy_value(Var *a, Var *x)
{
    return bin(OP_ADD, bin(OP_MUL, ref(a), idx(ref(x), num_i(0))), num_f(2.5));
}

static void
test_nep50_float32_literal(void)
{
    const char *s = emit_store(saxpy_value, DT_F32, DT_F32, DT_F32);
    CONTAINS(s, "out.data[0] = a * x.data[0] + 2.5f;");
    CU_ASSERT_PTR_NULL(s ? strstr(s, "double") : "double");
}

static Node *
paren_value(Var *a, Var *x)
{
    /* (a + x[0]) * (a - (x[0] - a)) */
    return bin(OP_MUL, bin(OP_ADD, ref(a), idx(ref(x), num_i(0))),
               bin(OP_SUB, ref(a), bin(OP_SUB, idx(ref(x), num_i(0)), ref(a))));
}

static void
test_precedence(void)
{
    const char *s = emit_store(paren_value, DT_F64, DT_F64, DT_F64);
    CONTAINS(s, "out.data[0] = (a + x.data[0]) * (a - (x.data[0] - a));");
}

static Node *
left_assoc_value(Var *a, Var *x)
{
    /* a - x[0] - a: no parentheses */
    return bin(OP_SUB, bin(OP_SUB, ref(a), idx(ref(x), num_i(0))), ref(a));
}

static void
test_left_assoc(void)
{
    const char *s = emit_store(left_assoc_value, DT_I32, DT_I32, DT_I32);
    CONTAINS(s, "out.data[0] = a - x.data[0] - a;");
}

static Node *
floordiv_value(Var *a, Var *x)
{
    return bin(OP_FLOORDIV, ref(a), idx(ref(x), num_i(0)));
}

static void
test_floordiv_ints(void)
{
    const char *s = emit_store(floordiv_value, DT_I32, DT_I32, DT_I32);
    CONTAINS(s, "out.data[0] = cj_floordiv(a, x.data[0]);");
    CONTAINS(s, "template <typename T> CJ_DEVICE T cj_floordiv(T a, T b)");
}

static Node *
truediv_value(Var *a, Var *x)
{
    return bin(OP_DIV, ref(a), idx(ref(x), num_i(0)));
}

static void
test_truediv_ints_is_float64(void)
{
    const char *s = emit_store(truediv_value, DT_I32, DT_I32, DT_F64);
    CONTAINS(s, "out.data[0] = (double)a / (double)x.data[0];");
}

static Node *
int8_wrap_value(Var *a, Var *x)
{
    return bin(OP_ADD, idx(ref(x), num_i(0)), num_i(1));
}

static void
test_int8_weak_int_wraps(void)
{
    /* int8 + 1 stays int8 (NEP 50) and wraps: the C++ int result is cast */
    const char *s = emit_store(int8_wrap_value, DT_I32, DT_I8, DT_I8);
    CONTAINS(s, "out.data[0] = (signed char)(x.data[0] + (signed char)1);");
}

static Node *
mixed_value(Var *a, Var *x)
{
    /* int32 * float32 -> float64 (NumPy's result_type) */
    return bin(OP_MUL, ref(a), idx(ref(x), num_i(0)));
}

static void
test_int32_float32_promotes(void)
{
    const char *s = emit_store(mixed_value, DT_I32, DT_F32, DT_F64);
    CONTAINS(s, "out.data[0] = (double)a * (double)x.data[0];");
}

static void
test_unassigned_variable_error(void)
{
    /* y is read but never assigned (on any path) */
    begin_func("k");
    Var *out = var("out", 1);
    Var *y = var("y", 0);
    Node **st = cj_alloc(unit_arena(), sizeof(Node *));
    st[0] = assign(idx(ref(out), num_i(0)), ref(y));
    body(st, 1);
    Type *args[1] = {cj_array_type(unit_arena(), DT_F32, 1, 'C')};
    const char *s = emit(args, 1, 1);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(tr.err.msg, "'y' is used before it is assigned"));
    CU_ASSERT_EQUAL(tr.err.loc.line, 10 + st[0]->a->id);
}

static void
test_maybe_unset_variable(void)
{
    /* if c: y = 1.5 / out[0] = y: compiles, as in Numba and cupyx.jit, with y
     * zero-initialized, and the read is warned about */
    begin_func("k");
    Var *out = var("out", 1);
    Var *c = var("c", 1);
    Var *y = var("y", 0);
    Node *iff = node(ND_IF);
    iff->a = ref(c);
    iff->list = cj_alloc(unit_arena(), sizeof(Node *));
    iff->list[0] = assign(ref(y), num_f(1.5));
    iff->n = 1;
    Node **st = cj_alloc(unit_arena(), 2 * sizeof(Node *));
    st[0] = iff;
    st[1] = assign(idx(ref(out), num_i(0)), ref(y));
    body(st, 2);
    Type *args[2] = {cj_array_type(unit_arena(), DT_F64, 1, 'C'), cj_scalar(DT_I64)};
    const char *s = emit(args, 2, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CONTAINS(s, "double y{};");
    CU_ASSERT_PTR_NOT_NULL_FATAL(prog->undef_warn);
    char want[64];
    snprintf(want, sizeof want, "test.py:%d: variable 'y'", 10 + st[1]->a->id);
    CU_ASSERT_PTR_NOT_NULL(strstr(prog->undef_warn, want));
}

static void
test_index_64bit(void)
{
    const char *s;
    begin_func("k");
    Var *x = var("x", 1), *out = var("out", 1);
    Node **st = cj_alloc(unit_arena(), sizeof(Node *));
    Node *i2 = node(ND_INDEX);
    i2->a = ref(x);
    i2->list = cj_alloc(unit_arena(), sizeof(Node *) * 2);
    i2->list[0] = num_i(1);
    i2->list[1] = num_i(2);
    i2->n = 2;
    st[0] = assign(idx(ref(out), num_i(0)), i2);
    body(st, 1);
    Type *args[2] = {cj_array_type(unit_arena(), DT_F32, 2, 'F'),
                     cj_array_type(unit_arena(), DT_F32, 1, 'C')};
    s = emit(args, 2, 0);
    CONTAINS(s, "cj_array<float, 2, long long> x");
    CONTAINS(s, "out.data[0LL] = x.data[1LL + x.shape[0] * 2LL];");
}

/* out[0] = <value> over (uint8 a, weak int b, out[:] of odt), after b = b - 1000
 * when reassign; the integer dtypes b is converted to (NEP 50 range checks) */
static uint32_t
weak_to_of(Node *(*make)(Var *a, Var *b), DType odt, int reassign, const char **src)
{
    begin_func("k");
    Var *a = var("a", 1), *b = var("b", 1), *out = var("out", 1);
    Node **st = cj_alloc(unit_arena(), sizeof(Node *) * 2);
    int n = 0;
    if (reassign) {
        st[n++] = assign(ref(b), bin(OP_SUB, ref(b), num_i(1000)));
    }
    st[n++] = assign(idx(ref(out), num_i(0)), make(a, b));
    body(st, n);
    Type *args[3] = {cj_scalar(DT_U8), cj_weak(TY_WEAK_INT),
                     cj_array_type(unit_arena(), odt, 1, 'C')};
    *src = emit(args, 3, 1);
    return *src ? prog->kernel->weak_to[1] : 0xdead;
}

static Node *
add_ab(Var *a, Var *b)
{
    return bin(OP_ADD, ref(a), ref(b));
}

static Node *
shift_ba(Var *a, Var *b)
{
    return bin(OP_LSHIFT, ref(b), ref(a));
}

static Node *
div_ab(Var *a, Var *b)
{
    return bin(OP_DIV, ref(a), ref(b));
}

static Node *
float_only(Var *a, Var *b)
{
    return bin(OP_ADD, ref(a), bin(OP_MUL, ref(b), num_f(1.5)));
}

static Node *
less_ab(Var *a, Var *b)
{
    Node *n = node(ND_COMPARE);
    n->list = cj_alloc(unit_arena(), sizeof(Node *) * 2);
    n->list[0] = ref(a);
    n->list[1] = ref(b);
    n->n = 2;
    n->ops = cj_alloc(unit_arena(), sizeof(int));
    n->ops[0] = OP_LT;
    return n;
}

static void
test_weak_int_param_ranges(void)
{
    const char *s;
    /* a weak int parameter that meets uint8 as an operand is converted to it */
    CU_ASSERT_EQUAL(weak_to_of(add_ab, DT_U8, 0, &s), 1u << DT_U8);
    CU_ASSERT_EQUAL(weak_to_of(shift_ba, DT_U8, 0, &s), 1u << DT_U8);
    /* true division and float contexts convert it to a float: nothing to check */
    CU_ASSERT_EQUAL(weak_to_of(div_ab, DT_F64, 0, &s), 0);
    CU_ASSERT_EQUAL(weak_to_of(float_only, DT_F64, 0, &s), 0);
    /* assigned in the body: its value is no longer the argument's */
    CU_ASSERT_EQUAL(weak_to_of(add_ab, DT_U8, 1, &s), 0);
    /* comparisons: none, and exact in 64 bits (NumPy 2: uint8 < 300 is True) */
    CU_ASSERT_EQUAL(weak_to_of(less_ab, DT_BOOL, 0, &s), 0);
    CONTAINS(s, "out.data[0] = (long long)a < b;");
}

void
add_codegen_suite(void)
{
    static const UnitTest tests[] = {
        {"NEP 50: float32 * 2.5 stays float32", test_nep50_float32_literal},
        {"precedence: parentheses only where needed", test_precedence},
        {"left-associative subtraction", test_left_assoc},
        {"floor division of ints floors", test_floordiv_ints},
        {"int / int is float64", test_truediv_ints_is_float64},
        {"int8 + weak int wraps in int8", test_int8_weak_int_wraps},
        {"int32 * float32 is float64", test_int32_float32_promotes},
        {"a variable never assigned is an error at its read", test_unassigned_variable_error},
        {"a variable some paths assign is zero-initialized, warned", test_maybe_unset_variable},
        {"64-bit F-order indexing", test_index_64bit},
        {"NEP 50: ranges a weak int parameter must fit", test_weak_int_param_ranges},
        {NULL, NULL},
    };
    unit_add_suite("codegen", tests);
}
