/* test_sig.c - signature strings: Numba's and cujit's spellings, and the
 * messages for bad ones. */
#include <string.h>

#include "unit.h"

typedef struct {
    const char *sig;
    const char *args;   /* the argument types joined by "; " */
    const char *ret;    /* NULL when absent */
} SigCase;

/* the parsed argument types joined by "; ", or the error message */
static const char *
parse(const char *sig, Type **ret)
{
    Type **args;
    char msg[512];
    int n = cj_parse_signature(unit_arena(), sig, &args, ret, msg, sizeof msg);
    if (n < 0) {
        return cj_strdup(unit_arena(), msg);
    }
    Buf b;
    buf_init(&b);
    for (int i = 0; i < n; i++) {
        buf_puts(&b, i ? "; " : "");
        cj_type_str(&b, args[i]);
    }
    char *s = cj_strdup(unit_arena(), b.s ? b.s : "");
    buf_free(&b);
    return s;
}

static void
test_good(void)
{
    static const SigCase cases[] = {
        {"(float32, float32[:], float64[:, ::1], int32)",
         "float32; float32[:]; float64[:, ::1]; int32", NULL},
        {"void(float32[:], int64)", "float32[:]; int64", "void"},
        {"float32(float32, float32)", "float32; float32", "float32"},
        {"float32, int32", "float32; int32", NULL},
        {"float32", "float32", NULL},
        {"(<f4, |b1, <i8)", "float32; bool; int64", NULL},
        {"(f4[:], i8[::1])", "float32[:]; int64[::1]", NULL},
        {"float32[:,:]", "float32[:, :]", NULL},
        {"float32[ : , : ]", "float32[:, :]", NULL},
        {"float32[:,::1]", "float32[:, ::1]", NULL},
        {"float32[::1, :]", "float32[::1, :]", NULL},
        {"float32[::1,:,:]", "float32[::1, :, :]", NULL},
        {"uint8[:, :, ::1]", "uint8[:, :, ::1]", NULL},
        {"float32[::1]", "float32[::1]", NULL},
        {"()", "", NULL},
        {"", "", NULL},
        {"  ( float64 ,complex64 , )  ", "float64; complex64", NULL},
        {"void()", "", "void"},
        {"(?, bool, int, float, complex)", "bool; bool; int64; float64; complex128", NULL},
        {"(Tuple(int64, float32), f8)", "Tuple(int64, float32); float64", NULL},
        {"(double, half, single, e, d, F, D)",
         "float64; float16; float32; float16; float64; complex64; complex128", NULL},
        {"int64[:](int64[:])", "int64[:]", "int64[:]"},
        {NULL, NULL, NULL},
    };
    for (const SigCase *c = cases; c->sig; c++) {
        Type *ret = cj_none();
        const char *got = parse(c->sig, &ret);
        UNIT_ASSERT_STR(got, c->args);
        if (c->ret) {
            CU_ASSERT_PTR_NOT_NULL_FATAL(ret);
            UNIT_ASSERT_STR(unit_type_str(ret), c->ret);
        } else {
            CU_ASSERT_PTR_NULL(ret);
        }
    }
}

/* layouts and interned scalars */
static void
test_types_built(void)
{
    Type **args;
    int n = cj_parse_signature(unit_arena(), "(float32, f8[:, ::1], f8[::1, :], f8[:, :])",
                               &args, NULL, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_PTR_EQUAL(args[0], cj_scalar(DT_F32));
    CU_ASSERT_EQUAL(args[1]->kind, TY_ARRAY);
    CU_ASSERT_EQUAL(args[1]->ndim, 2);
    CU_ASSERT_EQUAL(args[1]->layout, 'C');
    CU_ASSERT_EQUAL(args[2]->layout, 'F');
    CU_ASSERT_EQUAL(args[3]->layout, 'A');
    CU_ASSERT_EQUAL(args[3]->dtype, DT_F64);
    CU_ASSERT_EQUAL(args[3]->mem, MEM_GLOBAL);
    Type *ret = NULL;
    CU_ASSERT_EQUAL(cj_parse_signature(unit_arena(), "void(i4)", &args, &ret, NULL, 0), 1);
    CU_ASSERT_PTR_EQUAL(ret, cj_void());
}

static void
test_bad(void)
{
    static const SigCase cases[] = {
        {"float33[:]",
         "signature 'float33[:]': unknown type 'float33' at column 1; "
         "expected a dtype name like float32, int64 or <f4", NULL},
        {"(float32, flaot64)",
         "signature '(float32, flaot64)': unknown type 'flaot64' at column 11; "
         "expected a dtype name like float32, int64 or <f4", NULL},
        {"(>f4)", "signature '(>f4)': big-endian types are not supported at column 2", NULL},
        {"(float32", "signature '(float32': expected ',' or ')', found end of signature "
                     "at column 9", NULL},
        {"(float32))", "signature '(float32))': expected end of signature, found ')' "
                       "at column 10", NULL},
        {"float32[:", "signature 'float32[:': expected ',' or ']', found end of signature "
                      "at column 10", NULL},
        {"float32[]", "signature 'float32[]': expected ':' or '::1' in an array spec, "
                      "found ']' at column 9", NULL},
        {"float32[:, ::1, :]", "signature 'float32[:, ::1, :]': '::1' may only mark the last "
                               "(C order) or first (F order) dimension at column 9", NULL},
        {"float32[::1, ::1]", "signature 'float32[::1, ::1]': '::1' may only mark the last "
                              "(C order) or first (F order) dimension at column 9", NULL},
        {"(float32 int32)", "signature '(float32 int32)': expected ',' or ')', found 'int32' "
                            "at column 10", NULL},
        {"float32 int32", "signature 'float32 int32': expected ',' or '(', found 'int32' "
                          "at column 9", NULL},
        {"(float32, $)", "signature '(float32, $)': expected a type, found '$' at column 11",
         NULL},
        {"(,)", "signature '(,)': expected a type, found ',' at column 2", NULL},
        {"void", "signature 'void': expected '(' after void, found end of signature "
                 "at column 5", NULL},
        {"(void)", "signature '(void)': unknown type 'void' at column 2; "
                   "expected a dtype name like float32, int64 or <f4", NULL},
        {"float32[::2]", "signature 'float32[::2]': a dimension is ':' or '::1' "
                         "(no bounds or steps) at column 9", NULL},
        {"float32[:, 0:]", "signature 'float32[:, 0:]': expected ':' or '::1' in an array "
                           "spec, found '0' at column 12", NULL},
        {"Tuple int32", "signature 'Tuple int32': expected '(' after Tuple, found 'int32' "
                        "at column 7", NULL},
        {NULL, NULL, NULL},
    };
    for (const SigCase *c = cases; c->sig; c++) {
        Type **args;
        char msg[512] = "";
        int n = cj_parse_signature(unit_arena(), c->sig, &args, NULL, msg, sizeof msg);
        CU_ASSERT_EQUAL(n, -1);
        UNIT_ASSERT_STR(msg, c->args);
    }
}

/* a long bad name and a small message buffer stay bounded */
static void
test_bad_truncated(void)
{
    Type **args;
    char msg[24];
    memset(msg, 'x', sizeof msg);
    int n = cj_parse_signature(unit_arena(), "(float32, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)",
                               &args, NULL, msg, sizeof msg);
    CU_ASSERT_EQUAL(n, -1);
    CU_ASSERT_EQUAL(strlen(msg), sizeof msg - 1);
    CU_ASSERT_EQUAL(cj_parse_signature(unit_arena(), "(f5)", &args, NULL, NULL, 0), -1);
}

void
add_signature_suite(void)
{
    static const UnitTest tests[] = {
        {"good signatures", test_good},
        {"types built", test_types_built},
        {"bad signatures name column and text", test_bad},
        {"messages stay bounded", test_bad_truncated},
        {NULL, NULL},
    };
    unit_add_suite("signature", tests);
}
