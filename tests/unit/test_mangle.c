/* test_mangle.c - short type codes for C++ identifiers. */
#include <string.h>

#include "unit.h"

/* only [A-Za-z0-9_] */
static int
is_ident(const char *s)
{
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
           == strlen(s);
}

static void
test_mangle_scalars(void)
{
    UNIT_ASSERT_STR(unit_type_mangle(cj_scalar(DT_F32)), "f4");
    UNIT_ASSERT_STR(unit_type_mangle(cj_scalar(DT_BOOL)), "b1");
    UNIT_ASSERT_STR(unit_type_mangle(cj_scalar(DT_C128)), "c16");
    UNIT_ASSERT_STR(unit_type_mangle(cj_weak(TY_WEAK_INT)), "wi");
    UNIT_ASSERT_STR(unit_type_mangle(cj_weak(TY_WEAK_FLOAT)), "wf");
    UNIT_ASSERT_STR(unit_type_mangle(cj_weak(TY_WEAK_COMPLEX)), "wc");
    UNIT_ASSERT_STR(unit_type_mangle(cj_void()), "v");
    UNIT_ASSERT_STR(unit_type_mangle(cj_dtype_type(DT_I16)), "Di2");
}

static void
test_mangle_arrays(void)
{
    Arena *a = unit_arena();
    Type *sh = cj_array_type(a, DT_F32, 1, 'C');
    Type *ro = cj_array_type(a, DT_F32, 2, 'A');
    sh->mem = MEM_SHARED;
    ro->readonly = 1;
    UNIT_ASSERT_STR(unit_type_mangle(cj_array_type(a, DT_F32, 2, 'C')), "f4a2C");
    UNIT_ASSERT_STR(unit_type_mangle(cj_array_type(a, DT_U8, 1, 'A')), "u1a1A");
    UNIT_ASSERT_STR(unit_type_mangle(cj_array_type(a, DT_C64, 3, 'F')), "c8a3F");
    UNIT_ASSERT_STR(unit_type_mangle(sh), "f4a1Cs");
    UNIT_ASSERT_STR(unit_type_mangle(ro), "f4a2Ar");
}

static void
test_mangle_tuples(void)
{
    Arena *a = unit_arena();
    Type *inner[] = {cj_scalar(DT_F32), cj_scalar(DT_I64)};
    Type *outer[] = {cj_tuple_type(a, inner, 2), cj_scalar(DT_I32)};
    UNIT_ASSERT_STR(unit_type_mangle(cj_tuple_type(a, inner, 2)), "T2_f4_i8_");
    UNIT_ASSERT_STR(unit_type_mangle(cj_tuple_type(a, outer, 2)), "T2_T2_f4_i8__i4_");
    UNIT_ASSERT_STR(unit_type_mangle(cj_tuple_type(a, NULL, 0)), "T0_");
}

/* every kind of type mangles to an identifier, distinct types differently */
static void
test_mangle_distinct(void)
{
    Arena *a = unit_arena();
    const char *seen[DT_COUNT * 4];
    int n = 0;
    for (int i = 0; i < DT_COUNT; i++) {
        seen[n++] = unit_type_mangle(cj_scalar((DType)i));
        seen[n++] = unit_type_mangle(cj_array_type(a, (DType)i, 1, 'C'));
        seen[n++] = unit_type_mangle(cj_array_type(a, (DType)i, 2, 'F'));
        seen[n++] = unit_type_mangle(cj_dtype_type((DType)i));
    }
    for (int i = 0; i < n; i++) {
        CU_ASSERT_TRUE(is_ident(seen[i]));
        for (int j = 0; j < i; j++) {
            CU_ASSERT_STRING_NOT_EQUAL(seen[i], seen[j]);
        }
    }
}

void
add_mangle_suite(void)
{
    static const UnitTest tests[] = {
        {"scalars and weak", test_mangle_scalars},
        {"arrays", test_mangle_arrays},
        {"tuples", test_mangle_tuples},
        {"identifiers, all distinct", test_mangle_distinct},
        {NULL, NULL},
    };
    unit_add_suite("mangle", tests);
}
