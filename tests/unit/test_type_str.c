/* test_type_str.c - how types read in messages (Numba's spelling). */
#include "unit.h"

static void
test_str_scalars(void)
{
    UNIT_ASSERT_STR(unit_type_str(cj_scalar(DT_F32)), "float32");
    UNIT_ASSERT_STR(unit_type_str(cj_scalar(DT_BOOL)), "bool");
    UNIT_ASSERT_STR(unit_type_str(cj_scalar(DT_C128)), "complex128");
    UNIT_ASSERT_STR(unit_type_str(cj_weak(TY_WEAK_INT)), "Literal[int]");
    UNIT_ASSERT_STR(unit_type_str(cj_weak(TY_WEAK_FLOAT)), "Literal[float]");
    UNIT_ASSERT_STR(unit_type_str(cj_weak(TY_WEAK_COMPLEX)), "Literal[complex]");
    UNIT_ASSERT_STR(unit_type_str(cj_void()), "void");
    UNIT_ASSERT_STR(unit_type_str(cj_string()), "str");
    UNIT_ASSERT_STR(unit_type_str(cj_none()), "none");
    UNIT_ASSERT_STR(unit_type_str(cj_dtype_type(DT_F16)), "dtype(float16)");
    UNIT_ASSERT_STR(unit_type_str(NULL), "<unknown>");
}

static void
test_str_arrays(void)
{
    Arena *a = unit_arena();
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_F32, 1, 'A')), "float32[:]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_F32, 1, 'C')), "float32[::1]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_F32, 1, 'F')), "float32[::1]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_F64, 2, 'C')), "float64[:, ::1]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_F64, 2, 'F')), "float64[::1, :]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_I8, 3, 'A')), "int8[:, :, :]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_U16, 3, 'C')),
                           "uint16[:, :, ::1]");
    UNIT_ASSERT_STR(unit_type_str(cj_array_type(a, DT_I32, 0, 'C')), "int32[()]");
}

static void
test_str_tuples(void)
{
    Arena *a = unit_arena();
    Type *inner[] = {cj_scalar(DT_I64), cj_scalar(DT_F32)};
    Type *outer[] = {cj_tuple_type(a, inner, 2), cj_array_type(a, DT_C64, 1, 'A'),
                     cj_weak(TY_WEAK_INT)};
    UNIT_ASSERT_STR(unit_type_str(cj_tuple_type(a, inner, 2)), "Tuple(int64, float32)");
    UNIT_ASSERT_STR(unit_type_str(cj_tuple_type(a, outer, 3)),
                           "Tuple(Tuple(int64, float32), complex64[:], Literal[int])");
    UNIT_ASSERT_STR(unit_type_str(cj_tuple_type(a, NULL, 0)), "Tuple()");
}

void
add_type_str_suite(void)
{
    static const UnitTest tests[] = {
        {"scalars, weak and special types", test_str_scalars},
        {"arrays in C, F and A layout", test_str_arrays},
        {"tuples", test_str_tuples},
        {NULL, NULL},
    };
    unit_add_suite("type_str", tests);
}
