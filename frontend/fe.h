/* fe.h - the frontend: a Python function's AST read once into cujit's IR.
 * The only stage besides the module glue that touches the CPython C API. */
#ifndef FE_H
#define FE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../common/cj.h"

typedef struct {
    PyObject *pyfunc;
    Func *fn;
} FeSeen;

typedef struct {
    Arena *arena;
    CjTry *try_;
    PyObject *keep;     /* a list holding every new reference until the end */
    FeSeen *seen;       /* device functions already read (recursion, sharing) */
    int nseen, capseen;
} FeCtx;

/* Reads `pyfunc` (a plain Python function) into IR; longjmps through
 * cx->try_ on a user error.  Device functions it calls are read too. */
Func *fe_read(FeCtx *cx, PyObject *pyfunc, int is_device, int boundscheck);

/* Provided by the module glue: if `obj` is a cujit kernel object, returns its
 * Python function (borrowed) and sets *is_device; NULL otherwise. */
PyObject *fe_kernel_function(PyObject *obj, int *is_device);

/* The source lines of a function and where it starts, for diagnostics. */
int fe_source_line(const char *file, int line, char *out, size_t n);

#endif
