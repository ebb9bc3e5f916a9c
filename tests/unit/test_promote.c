/* test_promote.c - np.result_type, np.can_cast(safe) and the float loop of
 * np.sqrt for the 15 dtypes.  The tables are written out by hand from
 * NumPy 2's rules (and were checked against NumPy 2.4). */
#include <string.h>

#include "unit.h"

static DType
dt(const char *code)
{
    for (int i = 0; i < DT_COUNT; i++) {
        if (strcmp(cj_dtypes[i].code, code) == 0) {
            return (DType)i;
        }
    }
    CU_FAIL_FATAL("unknown code in the test table");
    return DT_BOOL;
}

/* rows and columns in DType order: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 bf16
 * (bfloat16 ranks beside float16; neither casts safely to the other) */
static const char *const result_type[DT_COUNT][DT_COUNT] = {
    /* b1 */ {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "bf16"},
    /* i1 */ {"i1", "i1", "i2", "i4", "i8", "i2", "i4", "i8", "f8", "f2", "f4", "f8", "c8", "c16", "bf16"},
    /* i2 */ {"i2", "i2", "i2", "i4", "i8", "i2", "i4", "i8", "f8", "f4", "f4", "f8", "c8", "c16", "f4"},
    /* i4 */ {"i4", "i4", "i4", "i4", "i8", "i4", "i4", "i8", "f8", "f8", "f8", "f8", "c16", "c16", "f8"},
    /* i8 */ {"i8", "i8", "i8", "i8", "i8", "i8", "i8", "i8", "f8", "f8", "f8", "f8", "c16", "c16", "f8"},
    /* u1 */ {"u1", "i2", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "bf16"},
    /* u2 */ {"u2", "i4", "i4", "i4", "i8", "u2", "u2", "u4", "u8", "f4", "f4", "f8", "c8", "c16", "f4"},
    /* u4 */ {"u4", "i8", "i8", "i8", "i8", "u4", "u4", "u4", "u8", "f8", "f8", "f8", "c16", "c16", "f8"},
    /* u8 */ {"u8", "f8", "f8", "f8", "f8", "u8", "u8", "u8", "u8", "f8", "f8", "f8", "c16", "c16", "f8"},
    /* f2 */ {"f2", "f2", "f4", "f8", "f8", "f2", "f4", "f8", "f8", "f2", "f4", "f8", "c8", "c16", "f4"},
    /* f4 */ {"f4", "f4", "f4", "f8", "f8", "f4", "f4", "f8", "f8", "f4", "f4", "f8", "c8", "c16", "f4"},
    /* f8 */ {"f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "c16", "c16", "f8"},
    /* c8 */ {"c8", "c8", "c8", "c16", "c16", "c8", "c8", "c16", "c16", "c8", "c8", "c16", "c8", "c16", "c8"},
    /* c16 */ {"c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16"},
    /* bf16 */ {"bf16", "bf16", "f4", "f8", "f8", "bf16", "f4", "f8", "f8", "f4", "f4", "f8", "c8", "c16", "bf16"},
};

/* np.can_cast(row, column, "safe"): 1 where safe */
static const char *const can_cast[DT_COUNT] = {
    /*         b i i i i u u u u f f f c c  b
     *         1 1 2 4 8 1 2 4 8 2 4 8 8 16 f */
    /* b1 */ "111111111111111",
    /* i1 */ "011110000111111",
    /* i2 */ "001110000011110",
    /* i4 */ "000110000001010",
    /* i8 */ "000010000001010",
    /* u1 */ "001111111111111",
    /* u2 */ "000110111011110",
    /* u4 */ "000010011001010",
    /* u8 */ "000000001001010",
    /* f2 */ "000000000111110",
    /* f4 */ "000000000011110",
    /* f8 */ "000000000001010",
    /* c8 */ "000000000000110",
    /* c16 */ "000000000000010",
    /* bf16 */ "000000000011111",
};

static void
test_result_type_table(void)
{
    for (int i = 0; i < DT_COUNT; i++) {
        for (int j = 0; j < DT_COUNT; j++) {
            DType got = cj_promote_dt((DType)i, (DType)j);
            UNIT_ASSERT_STR(cj_dtypes[got].code, result_type[i][j]);
        }
    }
}

static void
test_result_type_examples(void)
{
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I32, DT_U32), DT_I64);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I64, DT_U64), DT_F64);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I8, DT_F16), DT_F16);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I16, DT_F16), DT_F32);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I32, DT_F32), DT_F64);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I64, DT_F32), DT_F64);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_U8, DT_I8), DT_I16);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_F16, DT_C64), DT_C64);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_F64, DT_C64), DT_C128);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_I8, DT_BF16), DT_BF16);
    CU_ASSERT_EQUAL(cj_promote_dt(DT_F16, DT_BF16), DT_F32);
    for (int i = 0; i < DT_COUNT; i++) {
        CU_ASSERT_EQUAL(cj_promote_dt(DT_BOOL, (DType)i), (DType)i);
    }
}

static void
test_result_type_symmetric(void)
{
    for (int i = 0; i < DT_COUNT; i++) {
        for (int j = 0; j < DT_COUNT; j++) {
            CU_ASSERT_EQUAL(cj_promote_dt((DType)i, (DType)j), cj_promote_dt((DType)j, (DType)i));
        }
    }
}

static void
test_can_cast_safe(void)
{
    for (int i = 0; i < DT_COUNT; i++) {
        for (int j = 0; j < DT_COUNT; j++) {
            CU_ASSERT_EQUAL(cj_can_cast_safe((DType)i, (DType)j), can_cast[i][j] == '1');
        }
    }
}

/* np.sqrt(np.ones(1, dtype)).dtype */
static void
test_float_for(void)
{
    static const char *const want[DT_COUNT] = {
        "f2", "f2", "f4", "f8", "f8", "f2", "f4", "f8", "f8", "f2", "f4", "f8", "c8", "c16",
        "bf16",
    };
    for (int i = 0; i < DT_COUNT; i++) {
        UNIT_ASSERT_STR(cj_dtypes[cj_float_for((DType)i)].code, want[i]);
    }
    CU_ASSERT_EQUAL(cj_float_for(dt("u2")), DT_F32);
}

/* the dtype table itself */
static void
test_dtype_info(void)
{
    UNIT_ASSERT_STR(cj_dtypes[DT_F16].ctype, "cj_half");
    UNIT_ASSERT_STR(cj_dtypes[DT_I64].ctype, "long long");
    UNIT_ASSERT_STR(cj_dtypes[DT_C64].ctype, "cj_complex64");
    UNIT_ASSERT_STR(cj_dtypes[DT_U16].name, "uint16");
    CU_ASSERT_EQUAL(cj_dtypes[DT_C128].size, 16);
    CU_ASSERT_EQUAL(cj_dtypes[DT_U32].kind, 'u');
    CU_ASSERT_EQUAL(cj_dtypes[DT_BOOL].kind, 'b');
    for (int i = 0; i < DT_COUNT; i++) {
        CU_ASSERT_PTR_EQUAL(cj_scalar((DType)i), cj_scalar((DType)i));
        CU_ASSERT_EQUAL(cj_scalar((DType)i)->kind, TY_SCALAR);
        CU_ASSERT_EQUAL(cj_scalar((DType)i)->dtype, (DType)i);
    }
}

void
add_promote_suite(void)
{
    static const UnitTest tests[] = {
        {"result_type table", test_result_type_table},
        {"result_type examples", test_result_type_examples},
        {"result_type symmetric", test_result_type_symmetric},
        {"can_cast safe table", test_can_cast_safe},
        {"float loop (np.sqrt)", test_float_for},
        {"dtype info", test_dtype_info},
        {NULL, NULL},
    };
    unit_add_suite("promote", tests);
}
