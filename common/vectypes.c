/* vectypes.c - CUDA's vector types (Numba's cuda.float32x4 ... = CUDA's
 * float4): the interned types, Numba's names and CUDA's spellings. */
#include <stdio.h>
#include <string.h>

#include "cj.h"

/* CUDA's names of each dtype's vectors by lanes (char4, longlong2 ...),
 * NULL where CUDA has none; int64 is long long, as cujit's int64 is */
#define LANES(b) {NULL, b "1", b "2", b "3", b "4"}
static const char *const cnames[DT_COUNT][5] = {
    [DT_I8] = LANES("char"), [DT_I16] = LANES("short"), [DT_I32] = LANES("int"),
    [DT_I64] = LANES("longlong"), [DT_U8] = LANES("uchar"), [DT_U16] = LANES("ushort"),
    [DT_U32] = LANES("uint"), [DT_U64] = LANES("ulonglong"), [DT_F32] = LANES("float"),
    [DT_F64] = LANES("double"),
};
#undef LANES

/* every vector type, filled in at its first use (the values are constant,
 * so a second thread writing the same fields changes nothing) */
static Type vectors[DT_COUNT][5];

Type *
cj_vector_type(DType dt, int lanes)
{
    if ((int)dt < 0 || dt >= DT_COUNT || !cnames[dt][1] || lanes < 1 || lanes > 4) {
        return NULL;
    }
    Type *t = &vectors[dt][lanes];
    t->kind = TY_VECTOR;
    t->dtype = dt;
    t->lanes = lanes;
    return t;
}

/* name := dtype 'x' lanes, dtype one of int8 ... uint64, float32, float64 */
int
cj_vector_from_name(const char *name, DType *dt, int *lanes)
{
    const char *x = name ? strrchr(name, 'x') : NULL;
    if (!x || x[1] < '1' || x[1] > '4' || x[2] != '\0') {
        return 0;
    }
    for (int i = 0; i < DT_COUNT; i++) {
        size_t n = strlen(cj_dtypes[i].name);
        if (cnames[i][1] && (size_t)(x - name) == n && strncmp(name, cj_dtypes[i].name, n) == 0) {
            *dt = (DType)i;
            *lanes = x[1] - '0';
            return 1;
        }
    }
    return 0;
}

const char *
cj_vector_cname(const Type *t)
{
    return cnames[t->dtype][t->lanes];
}
