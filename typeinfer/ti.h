/* ti.h - type inference internals shared by the typeinfer files */
#ifndef TI_H
#define TI_H

#include "../common/cj.h"
#include "typeinfer.h"

#define CJ_MAXIDX 32

typedef struct {
    Program *p;
    Inst *in;
    Func *fn;
    int changed;        /* a variable's type widened in this pass */
    int final;          /* last pass: every type must be known */
    int alloc_ok;       /* assigning the result of shared_memory / local_memory */
    int via_temp;       /* a, b = x, y / a = b = x: the value reaches targets through a temporary */
    int opt_ok;         /* the next ti_expr may give an Optional (r = f(), return r, r is
                         * None); elsewhere an Optional's value is used (unwrapped) */
    int end_reached;    /* a path falls off the end of the function (returns None) */
    unsigned char *assigned;    /* by var id: assigned in the body (parameters) */
    int *vline;         /* by var id: the line of the assignment that gave its type */
} Ti;

const char *ti_tstr(Ti *t, const Type *ty);
Type *ti_idx(Ti *t);
Type *ti_expr_pub(Ti *t, Node *n);
/* a 0-d array variable read as its element where Numba does (typeinfer.c) */
Type *ti_zero_d(Ti *t, Node *n, Type *ty, int int_only);
Type *ti_binop_type(Ti *t, Node *n, int op, Type *x, Type *y);
Type *ti_call(Ti *t, Node *n);
/* groups.c: jit.cg's builtins and group methods; match_*_sync */
Type *ti_group_call(Ti *t, Node *n);
Type *ti_match_call(Ti *t, Node *n);
Inst *ti_instance(Ti *caller, Node *call, Func *fn, Type **args);
Type *ti_collective(Ti *t, Node *n);      /* collective.c */
/* thrust.c: jit.thrust's iterators and algorithms */
Type *ti_thrust(Ti *t, Node *n);
Type *ti_array_iter(Ti *t, Node *n);
Type *ti_iter_binop(Ti *t, Node *n, int op, Type *x, Type *y);
Type *ti_iter_index(Ti *t, Node *n, Type *it, Type *k);
/* cptr.c: cuda.carray / farray over a raw pointer */
Type *ti_carray_type(Ti *t, Node *n);
/* vectypes.c: CUDA's vector types (cuda.float32x4 ...) */
Type *ti_vector_ctor(Ti *t, Node *n);
Type *ti_vector_attr(Ti *t, Node *n, const Type *x);
void ti_vector_refuse(Ti *t, Node *n, const Type *x, const Type *y, const char *what,
                      const char *op);
/* extern.c: declared foreign functions' calls, ffi.from_buffer */
Type *ti_extern_call(Ti *t, Node *n);
Type *ti_from_buffer(Ti *t, Node *n);
/* calls.c: keyword arguments moved to their positional slots */
int ti_bind_keywords(Ti *t, Node *n, const char *const *pnames, int np);
/* npfuncs.c: NumPy's reductions and array methods, cmath */
Type *ti_npfunc(Ti *t, Node *n);
Type *ti_array_part(Ti *t, Node *n, Type *a);
Type *ti_array_transpose(Ti *t, Type *a);
Type *ti_field_view(Ti *t, Node *n, Type *a);
Type *ti_ufunc(Ti *t, Node *n);           /* ufuncs.c: np.sin(x), np.add(a, b, out) */
void ti_weak_to(Ti *t, Node *operand, const Type *to);
void ti_weak_mask(Ti *t, Node *operand, uint32_t dtypes);
CJ_NORETURN void ti_err(Ti *t, Node *n, const char *fmt, ...) CJ_PRINTF(3, 4);
CJ_NORETURN void ti_err_kind(Ti *t, Node *n, CjErrKind kind, const char *fmt, ...)
    CJ_PRINTF(4, 5);

#endif
