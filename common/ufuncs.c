/* ufuncs.c - NumPy's type rules for the elementwise ufuncs kernels call
 * (cj.h's CJ_NP_UFUNCS): each ufunc's class, the dtype its loop computes in
 * for given inputs, and its result dtype.  typeinfer/ufuncs.c checks and
 * types the calls with them; codegen/ufuncs.c converts the operands to the
 * same loop dtype. */
#include "cj.h"

/* what a ufunc computes, and so its type rule */
UfClass
cj_ufunc_class(int fn)
{
    switch ((NpFunc)fn) {
    case NP_U_SIN: case NP_U_COS: case NP_U_TAN: case NP_U_ARCSIN: case NP_U_ARCCOS:
    case NP_U_ARCTAN: case NP_U_SINH: case NP_U_COSH: case NP_U_TANH: case NP_U_ARCSINH:
    case NP_U_ARCCOSH: case NP_U_ARCTANH: case NP_U_LOG: case NP_U_LOG2: case NP_U_LOG10:
    case NP_U_LOG1P: case NP_U_EXP: case NP_U_EXP2: case NP_U_EXPM1: case NP_U_SQRT:
    case NP_U_DIVIDE:
        return UC_FLOAT;
    case NP_U_ARCTAN2: case NP_U_HYPOT: case NP_U_DEG2RAD: case NP_U_RADIANS:
    case NP_U_RAD2DEG: case NP_U_DEGREES: case NP_U_RINT: case NP_U_FABS: case NP_U_CBRT:
    case NP_U_COPYSIGN: case NP_U_LOGADDEXP: case NP_U_LOGADDEXP2: case NP_U_NEXTAFTER:
    case NP_U_HEAVISIDE:
        return UC_REAL;
    case NP_U_FLOOR: case NP_U_CEIL: case NP_U_TRUNC: case NP_U_SIGN: case NP_U_POSITIVE:
    case NP_U_CONJUGATE: case NP_U_RECIPROCAL: case NP_U_POWER: case NP_U_REMAINDER:
    case NP_U_FLOOR_DIVIDE: case NP_U_FMOD:
        return UC_SAME;
    case NP_U_GREATER: case NP_U_GREATER_EQUAL: case NP_U_LESS: case NP_U_LESS_EQUAL:
    case NP_U_EQUAL: case NP_U_NOT_EQUAL:
        return UC_CMP;
    case NP_U_LOGICAL_AND: case NP_U_LOGICAL_OR: case NP_U_LOGICAL_XOR:
    case NP_U_LOGICAL_NOT:
        return UC_LOGIC;
    case NP_U_MAXIMUM: case NP_U_MINIMUM: case NP_U_FMAX: case NP_U_FMIN:
        return UC_MINMAX;
    case NP_U_BITWISE_AND: case NP_U_BITWISE_OR: case NP_U_BITWISE_XOR: case NP_U_INVERT:
    case NP_U_LEFT_SHIFT: case NP_U_RIGHT_SHIFT: case NP_U_GCD: case NP_U_LCM:
        return UC_BITS;
    case NP_U_ISNAN: case NP_U_ISINF: case NP_U_ISFINITE: case NP_U_SIGNBIT:
        return UC_PRED;
    case NP_U_ADD: case NP_U_SUBTRACT: case NP_U_MULTIPLY: case NP_U_NEGATIVE:
    case NP_U_SQUARE:
        return UC_ARITH;
    case NP_U_ABSOLUTE:
        return UC_ABS;
#define CJ_NP_CASE(e, s, k, lo, hi) case NP_##e:
    CJ_NP_FUNCS(CJ_NP_CASE)
#undef CJ_NP_CASE
    case NP_COUNT:
        break;
    }
    return UC_NONE;
}

/* a ufunc NumPy has no complex loop for */
int
cj_ufunc_real_only(int fn)
{
    return cj_ufunc_class(fn) == UC_REAL || fn == NP_U_FLOOR || fn == NP_U_CEIL
           || fn == NP_U_TRUNC || fn == NP_U_SIGNBIT || fn == NP_U_REMAINDER
           || fn == NP_U_FLOOR_DIVIDE || fn == NP_U_FMOD;
}

/* an input's element type: an array's dtype, a number as it is (weak too) */
static const Type *
element(const Type *x)
{
    return x->kind == TY_ARRAY ? cj_scalar(x->dtype) : x;
}

/* the float a ufunc of float results computes an integer or bool in:
 * float32 for 1 and 2 byte integers and bool (Numba's choice: NumPy's
 * float16 loops are not used), float64 for the rest */
static DType
float_of(DType dt)
{
    char k = cj_dtypes[dt].kind;
    if (k == 'f' || k == 'c') {
        return dt;
    }
    return cj_dtypes[dt].size <= 2 ? DT_F32 : DT_F64;
}

/* The dtype fn's loop computes in for inputs in[0 .. nin-1] (arrays or
 * numbers), or DT_COUNT when they are not all numbers or bool, or are
 * float16.  *mixed is set for a comparison of a signed integer with a
 * uint64 (NumPy 1.25's exact loops): each operand is then compared as it
 * is, as int64 or uint64. */
DType
cj_ufunc_loop(int fn, const Type *const *in, int nin, int *mixed)
{
    *mixed = 0;
    const Type *p = NULL;
    char kinds[2] = {0, 0};
    for (int i = 0; i < nin; i++) {
        const Type *x = element(in[i]);
        if (x->kind == TY_ARRAY || !cj_is_numeric(x)
            || (!cj_is_weak(x) && (x->dtype >= DT_COUNT || cj_is_half(x->dtype)))) {
            return DT_COUNT;
        }
        kinds[i < 2 ? i : 1] = cj_is_weak(x) ? 0 : cj_dtypes[x->dtype].kind;
        p = p ? cj_promote(p, x) : x;
        if (!p) {
            return DT_COUNT;
        }
    }
    DType dt = cj_concrete(p)->dtype;
    if (cj_ufunc_class(fn) == UC_CMP && nin == 2 && cj_dtypes[dt].kind == 'f'
        && ((kinds[0] == 'i' && kinds[1] == 'u') || (kinds[0] == 'u' && kinds[1] == 'i'))) {
        *mixed = 1;
    }
    UfClass c = cj_ufunc_class(fn);
    if (fn == NP_U_DIVIDE && cj_dtypes[dt].kind != 'f' && cj_dtypes[dt].kind != 'c') {
        return DT_F64;      /* NumPy's true division of integers is float64's */
    }
    if ((c == UC_SAME || fn == NP_U_LEFT_SHIFT || fn == NP_U_RIGHT_SHIFT) && dt == DT_BOOL) {
        return DT_I8;       /* NumPy's loops of these for bool are int8's */
    }
    return c == UC_FLOAT || c == UC_REAL ? float_of(dt) : dt;
}

/* the dtype fn gives when it computes in loop dtype dt */
DType
cj_ufunc_result(int fn, DType dt)
{
    switch (cj_ufunc_class(fn)) {
    case UC_CMP: case UC_LOGIC: case UC_PRED:
        return DT_BOOL;
    case UC_ABS:
        return dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt;
    case UC_FLOAT: case UC_REAL: case UC_MINMAX: case UC_BITS: case UC_ARITH: case UC_SAME:
    case UC_NONE:
        return dt;
    }
    return dt;
}
