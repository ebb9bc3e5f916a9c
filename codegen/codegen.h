/* codegen.h - the codegen stage as the rest of cujit calls it: CUDA C++
 * for a typed program, as a raw kernel, an elementwise form or a reduction
 * form.  Internals are in cg.h. */
#ifndef CODEGEN_H
#define CODEGEN_H

#include "../common/cj.h"

/* an elementwise kernel around a scalar function (p->kernel) */
typedef struct {
    int nin, nout;
    Type **in;          /* per input: an array (TY_ARRAY) or a scalar passed by value */
    DType *out;
    int ndim;           /* 0: contiguous operands of one shape, a flat index */
    int vec;            /* flat: elements per aligned access (1: none) */
    const char *kname;  /* the entry's name (fuse(kernel_name=)), NULL: made up */
} EwSpec;

/* a reduction kernel (two passes) around a combiner and an optional map */
typedef struct {
    Inst *combine, *map;
    Type *acc;          /* accumulator type */
    DType in, out;
    DType elem;         /* the elements' dtype after dtype= (in when not given) */
    int has_identity;
    Const identity;
    int outer;          /* reduced dimensions are not the innermost */
    int contiguous;     /* each output's elements are one contiguous run */
    int vec;            /* contiguous: elements per aligned access */
    int nkeep, nred;    /* dimensions kept (first) and reduced (last) in x */
} RedSpec;

/* a fused function's reduction (@cujit.fuse ending in np.sum and friends):
 * the function is the map of several inputs, read at one index of their
 * broadcast shape; two passes as cg_emit_reduction's */
typedef struct {
    Inst *map;          /* the fused function (p->kernel): inputs -> one value */
    int nin;
    Type **in;          /* per input: an array (its dtype) or a scalar passed by value */
    RedOp op;
    DType val, acc, out;    /* the map's value, the accumulator, the result */
    int outer;          /* reduced dimensions are not the innermost */
    int contiguous;     /* each output's elements are one contiguous run in every array */
    int vec;            /* contiguous: elements per aligned access */
    int nkeep, nred;    /* dimensions kept (first) and reduced (last), every array */
    const char *kname;  /* fuse(kernel_name=), or NULL */
} FuseRedSpec;

/* how a generalized ufunc's kernel passes one parameter of the function */
enum {
    GU_VALUE,           /* a number, a kernel parameter passed on */
    GU_ELEM,            /* one element of an array over the loop dimensions */
    GU_VIEW,            /* a view of an array's core dimensions */
};

/* a generalized ufunc's kernel around a function (p->kernel) that writes
 * its outputs: one thread per loop instance; with `stage`, a second entry
 * <name>_st where a block first copies its instances' input core blocks into
 * shared memory (gufunc.c) */
typedef struct {
    int nparam, nin;
    int nloop;          /* loop dimensions, first in every array parameter */
    const unsigned char *mode;  /* per parameter: GU_VALUE, GU_ELEM, GU_VIEW */
    const DType *dtype; /* GU_ELEM, GU_VIEW: the array's dtype */
    const int *ncore;   /* GU_VIEW: the view's rank */
    int stage;          /* emit the staged entry too */
} GuSpec;

/* CUDA C++ for a typed program */
void cg_emit(Program *p, Buf *out);
/* the entry's name in the generated code */
const char *cg_kernel_name(Program *p);
/* p's device function (p->kernel, typed as a device function) and its
 * callees, then `extern "C" __device__ ret name(params)` calling it, which
 * NVRTC keeps with -rdc=true (cuda.compile_ptx(device=True)); __noinline__,
 * or __forceinline__ with forceinline (LTO-IR's always-inline, for the linker) */
void cg_emit_device_entry(Program *p, const char *name, const Type *ret, int forceinline,
                          Buf *out);
void cg_emit_elementwise(Program *p, const EwSpec *s, Buf *out);
void cg_emit_reduction(Program *p, const RedSpec *s, Buf *out);
void cg_emit_gufunc(Program *p, const GuSpec *s, Buf *out);
void cg_emit_fused_reduction(Program *p, const FuseRedSpec *s, Buf *out);

#endif
