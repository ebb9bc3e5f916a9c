/* test_unify.c - the type a variable holds after two assignments. */
#include "unit.h"

static void
test_unify_scalars(void)
{
    Arena *a = unit_arena();
    Type *f4 = cj_scalar(DT_F32);
    CU_ASSERT_PTR_EQUAL(cj_unify(a, f4, f4), f4);
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_scalar(DT_I32), f4), cj_scalar(DT_F64));
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_scalar(DT_I64), cj_scalar(DT_U64)), cj_scalar(DT_F64));
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_scalar(DT_BOOL), cj_scalar(DT_U8)), cj_scalar(DT_U8));
}

static void
test_unify_weak(void)
{
    Arena *a = unit_arena();
    Type *wi = cj_weak(TY_WEAK_INT), *wf = cj_weak(TY_WEAK_FLOAT);
    CU_ASSERT_PTR_EQUAL(cj_unify(a, wi, cj_scalar(DT_F32)), cj_scalar(DT_F32));
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_scalar(DT_I32), wf), cj_scalar(DT_F64));
    CU_ASSERT_PTR_EQUAL(cj_unify(a, wi, wf), wf);
    CU_ASSERT_PTR_EQUAL(cj_unify(a, wi, wi), wi);
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_weak(TY_WEAK_COMPLEX), cj_scalar(DT_F16)),
                        cj_scalar(DT_C64));
}

static void
test_unify_arrays(void)
{
    Arena *a = unit_arena();
    Type *x = cj_array_type(a, DT_F32, 2, 'C');
    Type *y = cj_array_type(a, DT_F32, 2, 'C');
    Type *z = cj_array_type(a, DT_F32, 2, 'A');
    Type *w = cj_array_type(a, DT_F64, 2, 'C');
    CU_ASSERT_PTR_EQUAL(cj_unify(a, x, y), x);
    /* views of one dtype and rank in one variable: strided (layout A) */
    Type *u = cj_unify(a, x, z);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL(u->layout, 'A');
    CU_ASSERT_EQUAL(u->ndim, 2);
    Type *s = cj_array_type(a, DT_F32, 2, 'C');
    s->mem = MEM_SHARED;
    CU_ASSERT_PTR_NULL(cj_unify(a, x, s));          /* another memory space: never */
    CU_ASSERT_PTR_NULL(cj_unify(a, x, cj_array_type(a, DT_F32, 1, 'C')));
    CU_ASSERT_PTR_NULL(cj_unify(a, x, w));
    CU_ASSERT_PTR_NULL(cj_unify(a, x, cj_scalar(DT_F32)));
    CU_ASSERT_PTR_NULL(cj_unify(a, cj_weak(TY_WEAK_INT), x));
}

static void
test_unify_tuples(void)
{
    Arena *a = unit_arena();
    Type *e1[] = {cj_scalar(DT_I32), cj_scalar(DT_F32)};
    Type *e2[] = {cj_weak(TY_WEAK_INT), cj_scalar(DT_F64)};
    Type *e3[] = {cj_scalar(DT_I32)};
    Type *e4[] = {cj_scalar(DT_I32), cj_array_type(a, DT_F32, 1, 'C')};
    Type *t1 = cj_tuple_type(a, e1, 2), *t2 = cj_tuple_type(a, e2, 2);
    Type *u = cj_unify(a, t1, t2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    UNIT_ASSERT_STR(unit_type_str(u), "Tuple(int32, float64)");
    CU_ASSERT_PTR_EQUAL(cj_unify(a, t1, cj_tuple_type(a, e1, 2)), t1);
    CU_ASSERT_PTR_NULL(cj_unify(a, t1, cj_tuple_type(a, e3, 1)));
    CU_ASSERT_PTR_NULL(cj_unify(a, t1, cj_tuple_type(a, e4, 2)));
    CU_ASSERT_PTR_NULL(cj_unify(a, t1, cj_scalar(DT_I32)));
}

static void
test_unify_other(void)
{
    Arena *a = unit_arena();
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_none(), cj_none()), cj_none());
    CU_ASSERT_PTR_NULL(cj_unify(a, cj_string(), cj_void()));
    CU_ASSERT_PTR_NULL(cj_unify(a, NULL, cj_void()));
    CU_ASSERT_PTR_NULL(cj_unify(a, cj_dtype_type(DT_F32), cj_dtype_type(DT_F64)));
    CU_ASSERT_PTR_EQUAL(cj_unify(a, cj_dtype_type(DT_F32), cj_dtype_type(DT_F32)),
                        cj_dtype_type(DT_F32));
}

/* None with a number, tuple or vector makes Optional (Numba's unify of none
 * and T); an Optional keeps meeting its value's type and None; None with an
 * array or a string does not meet */
static void
test_unify_optional(void)
{
    Arena *a = unit_arena();
    Type *o = cj_unify(a, cj_none(), cj_scalar(DT_I32));
    CU_ASSERT_FATAL(o != NULL);
    CU_ASSERT_EQUAL(o->kind, TY_OPTIONAL);
    CU_ASSERT_TRUE(cj_type_eq(o->base, cj_scalar(DT_I32)));
    CU_ASSERT_TRUE(cj_type_eq(cj_unify(a, cj_scalar(DT_I32), cj_none()), o));
    CU_ASSERT_PTR_EQUAL(cj_unify(a, o, cj_none()), o);
    Type *w = cj_unify(a, o, cj_scalar(DT_F64));
    CU_ASSERT_FATAL(w != NULL);
    CU_ASSERT_EQUAL(w->kind, TY_OPTIONAL);
    CU_ASSERT_TRUE(cj_type_eq(w->base, cj_scalar(DT_F64)));
    Type *lit = cj_unify(a, cj_none(), cj_weak(TY_WEAK_INT));
    CU_ASSERT_TRUE(lit && cj_type_eq(lit->base, cj_scalar(DT_I64)));   /* concrete */
    CU_ASSERT_PTR_EQUAL(cj_optional_type(a, o), o);
    CU_ASSERT_PTR_NULL(cj_unify(a, cj_none(), cj_array_type(a, DT_F32, 1, 'C')));
    CU_ASSERT_PTR_NULL(cj_unify(a, cj_none(), cj_string()));
    CU_ASSERT_PTR_NULL(cj_unify(a, o, cj_array_type(a, DT_I32, 1, 'C')));
    Buf b;
    buf_init(&b);
    cj_type_str(&b, o);
    CU_ASSERT_STRING_EQUAL(b.s, "OptionalType(int32)");
    buf_free(&b);
}

/* cj_type_eq looks at layout, read-only, memory space and static shape */
static void
test_type_eq(void)
{
    Arena *a = unit_arena();
    Type *x = cj_array_type(a, DT_I8, 1, 'C');
    Type *y = cj_array_type(a, DT_I8, 1, 'F');
    CU_ASSERT_TRUE(cj_type_eq(x, y));     /* 1-d F is C */
    y->readonly = 1;
    CU_ASSERT_FALSE(cj_type_eq(x, y));
    y->readonly = 0;
    y->mem = MEM_SHARED;
    CU_ASSERT_FALSE(cj_type_eq(x, y));
    x->mem = MEM_SHARED;
    int64_t s1[] = {256}, s2[] = {128};
    x->sshape = s1;
    y->sshape = s2;
    CU_ASSERT_FALSE(cj_type_eq(x, y));
    y->sshape = s1;
    CU_ASSERT_TRUE(cj_type_eq(x, y));
    CU_ASSERT_FALSE(cj_type_eq(cj_scalar(DT_I8), cj_dtype_type(DT_I8)));
}

void
add_unify_suite(void)
{
    static const UnitTest tests[] = {
        {"scalars promote", test_unify_scalars},
        {"weak literals", test_unify_weak},
        {"arrays: equal, or strided when only the layout differs", test_unify_arrays},
        {"tuples elementwise", test_unify_tuples},
        {"none, str, dtype values", test_unify_other},
        {"Optional: none with a value", test_unify_optional},
        {"type equality", test_type_eq},
        {NULL, NULL},
    };
    unit_add_suite("unify", tests);
}
