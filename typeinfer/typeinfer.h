/* typeinfer.h - the typeinfer stage as the rest of cujit calls it: types
 * for every node of a kernel (and the device functions it calls) given its
 * argument types.  Internals are in ti.h. */
#ifndef TYPEINFER_H
#define TYPEINFER_H

#include "../common/cj.h"

/* types for a kernel given its argument types, by Numba's rules when
 * `numba` (Program.numba); longjmps on error */
Program *ti_infer(Arena *a, CjTry *t, Func *kernel, Type **args, int nargs, int idx32,
                  int numba);
/* another function typed into the same program (a reduction's map) */
Inst *ti_add(Program *p, Func *fn, Type **args);
/* whether a function's returns of type got convert to a declared return
 * type ret (cuda.jit(sig, device=True), cuda.compile(f, sig)) */
int ti_return_converts(const Type *got, const Type *ret);
/* in's returns converted to the declared type ret; a TypeError at its def
 * line where they do not convert (ti_return_converts) */
void ti_declare_return(Program *p, Inst *in, Type *ret);

#endif
