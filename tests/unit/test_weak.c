/* test_weak.c - NEP 50: Python int/float/complex literals are weak.  The
 * expectations are np.result_type(np.ones(1, dtype), literal) in NumPy 2. */
#include "unit.h"

/* the result's dtype code, or "weak-X" / "NULL" */
static const char *
promo(const Type *x, const Type *y)
{
    Type *r = cj_promote(x, y);
    if (!r) {
        return "NULL";
    }
    if (cj_is_weak(r)) {
        return unit_type_str(r);
    }
    return cj_dtypes[r->dtype].code;
}

/* in DType order: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 bf16 */
static void
check_row(TypeKind weak, const char *const want[DT_COUNT])
{
    for (int i = 0; i < DT_COUNT; i++) {
        UNIT_ASSERT_STR(promo(cj_weak(weak), cj_scalar((DType)i)), want[i]);
        UNIT_ASSERT_STR(promo(cj_scalar((DType)i), cj_weak(weak)), want[i]);
    }
}

static void
test_weak_int(void)
{
    static const char *const want[DT_COUNT] = {
        "i8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16",
        "bf16",
    };
    check_row(TY_WEAK_INT, want);
}

static void
test_weak_float(void)
{
    static const char *const want[DT_COUNT] = {
        "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "f2", "f4", "f8", "c8", "c16",
        "bf16",
    };
    check_row(TY_WEAK_FLOAT, want);
}

static void
test_weak_complex(void)
{
    static const char *const want[DT_COUNT] = {
        "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16", "c16",
        "c8", "c8", "c16", "c8", "c16", "c8",
    };
    check_row(TY_WEAK_COMPLEX, want);
}

static void
test_weak_weak(void)
{
    Type *i = cj_weak(TY_WEAK_INT), *f = cj_weak(TY_WEAK_FLOAT), *c = cj_weak(TY_WEAK_COMPLEX);
    CU_ASSERT_PTR_EQUAL(cj_promote(i, i), i);
    CU_ASSERT_PTR_EQUAL(cj_promote(i, f), f);
    CU_ASSERT_PTR_EQUAL(cj_promote(f, i), f);
    CU_ASSERT_PTR_EQUAL(cj_promote(f, c), c);
    CU_ASSERT_PTR_EQUAL(cj_promote(c, i), c);
    CU_ASSERT_PTR_EQUAL(cj_promote(f, f), f);
}

static void
test_not_numeric(void)
{
    Type *arr = cj_array_type(unit_arena(), DT_F32, 1, 'C');
    CU_ASSERT_PTR_NULL(cj_promote(arr, cj_scalar(DT_F32)));
    CU_ASSERT_PTR_NULL(cj_promote(cj_weak(TY_WEAK_INT), cj_none()));
    CU_ASSERT_PTR_NULL(cj_promote(cj_void(), cj_void()));
    CU_ASSERT_PTR_NULL(cj_weak(TY_ARRAY));
}

static void
test_weak_helpers(void)
{
    Type *i = cj_weak(TY_WEAK_INT), *f = cj_weak(TY_WEAK_FLOAT), *c = cj_weak(TY_WEAK_COMPLEX);
    CU_ASSERT_EQUAL(cj_weak_default(i), DT_I64);
    CU_ASSERT_EQUAL(cj_weak_default(f), DT_F64);
    CU_ASSERT_EQUAL(cj_weak_default(c), DT_C128);
    CU_ASSERT_EQUAL(cj_weak_default(cj_scalar(DT_U16)), DT_U16);
    CU_ASSERT_PTR_EQUAL(cj_concrete(f), cj_scalar(DT_F64));
    CU_ASSERT_PTR_EQUAL(cj_concrete(cj_scalar(DT_I8)), cj_scalar(DT_I8));
    CU_ASSERT_EQUAL(cj_type_kind(i), 'i');
    CU_ASSERT_EQUAL(cj_type_kind(c), 'c');
    CU_ASSERT_EQUAL(cj_type_kind(cj_scalar(DT_U8)), 'u');
    CU_ASSERT_EQUAL(cj_type_kind(cj_none()), 0);
    CU_ASSERT_TRUE(cj_is_weak(f));
    CU_ASSERT_FALSE(cj_is_weak(cj_scalar(DT_F64)));
    CU_ASSERT_TRUE(cj_is_numeric(c));
    CU_ASSERT_TRUE(cj_is_numeric(cj_scalar(DT_BOOL)));
    CU_ASSERT_FALSE(cj_is_numeric(cj_string()));
}

void
add_weak_suite(void)
{
    static const UnitTest tests[] = {
        {"weak int meets each dtype", test_weak_int},
        {"weak float meets each dtype", test_weak_float},
        {"weak complex meets each dtype", test_weak_complex},
        {"weak meets weak", test_weak_weak},
        {"non-numeric types do not promote", test_not_numeric},
        {"weak defaults and predicates", test_weak_helpers},
        {NULL, NULL},
    };
    unit_add_suite("weak", tests);
}
