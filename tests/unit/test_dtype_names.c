/* test_dtype_names.c - the names np.dtype() accepts for our 14 dtypes. */
#include "unit.h"

typedef struct {
    const char *name;
    DType want;
} NameCase;

static void
test_names(void)
{
    static const NameCase cases[] = {
        {"float32", DT_F32}, {"f4", DT_F32}, {"<f4", DT_F32}, {"=f4", DT_F32},
        {"f", DT_F32}, {"single", DT_F32}, {"<f", DT_F32},
        {"bool", DT_BOOL}, {"bool_", DT_BOOL}, {"b1", DT_BOOL}, {"?", DT_BOOL},
        {"|b1", DT_BOOL}, {"<?", DT_BOOL},
        {"int", DT_I64}, {"float", DT_F64}, {"complex", DT_C128},
        {"i8", DT_I64}, {"u1", DT_U8}, {"uint8", DT_U8}, {"|u1", DT_U8},
        {"half", DT_F16}, {"e", DT_F16}, {"float16", DT_F16}, {"f2", DT_F16},
        {"double", DT_F64}, {"d", DT_F64}, {"<f8", DT_F64},
        {"F", DT_C64}, {"D", DT_C128}, {"c8", DT_C64}, {"<c16", DT_C128},
        {"complex64", DT_C64}, {"complex128", DT_C128},
        {"h", DT_I16}, {"H", DT_U16}, {"i", DT_I32}, {"I", DT_U32},
        {"l", DT_I64}, {"L", DT_U64}, {"q", DT_I64}, {"Q", DT_U64},
        {"b", DT_I8}, {"B", DT_U8}, {"int8", DT_I8}, {"int16", DT_I16},
        {"int32", DT_I32}, {"<i4", DT_I32}, {"uint16", DT_U16}, {"uint32", DT_U32},
        {"uint64", DT_U64}, {"<u8", DT_U64}, {"intp", DT_I64}, {"uint", DT_U64},
        /* one-byte types have no byte order: '>' is harmless there */
        {">u1", DT_U8}, {">b1", DT_BOOL},
        {NULL, DT_BOOL},
    };
    for (const NameCase *c = cases; c->name; c++) {
        DType got = DT_COUNT;
        int ok = cj_dtype_from_name(c->name, &got);
        CU_ASSERT_EQUAL(ok, 1);
        CU_ASSERT_EQUAL(got, c->want);
    }
}

static void
test_bad_names(void)
{
    static const char *const bad[] = {
        ">f4", ">i8", ">c16", "float33", "", "<", "f3", "<float32", "int128", "float128",
        "Float32", "f4 ", "object", "U8", "<>f4", "void", NULL,
    };
    for (int i = 0; bad[i]; i++) {
        DType got = DT_F64;
        CU_ASSERT_EQUAL(cj_dtype_from_name(bad[i], &got), 0);
    }
    DType got;
    CU_ASSERT_EQUAL(cj_dtype_from_name(NULL, &got), 0);
}

void
add_dtype_names_suite(void)
{
    static const UnitTest tests[] = {
        {"accepted names, codes and typestrs", test_names},
        {"rejected names (big-endian, unknown)", test_bad_names},
        {NULL, NULL},
    };
    unit_add_suite("dtype_names", tests);
}
