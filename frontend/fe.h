/* fe.h - the frontend: a Python function's AST read once into cujit's IR.
 * The only stage besides the module glue that touches the CPython C API. */
#ifndef FE_H
#define FE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../common/cj.h"

/* What a call offers its device function at compile time: per argument,
 * the Python object it is when it is known while the kernel compiles (a
 * function, a dtype, a constant), or NULL (a value of the kernel). */
typedef struct {
    PyObject **pos;         /* npos positional arguments */
    int npos;
    PyObject **kw;          /* nkw keyword arguments, named kwnames */
    const char **kwnames;
    int nkw;
} FeOffers;

typedef struct {
    PyObject *pyfunc;
    const FeOffers *offers;     /* NULL: none */
    Func *fn;
} FeSeen;

/* device functions read one inside another, at most (factories that recurse) */
#define FE_MAX_DEPTH 64

typedef struct {
    Arena *arena;
    CjTry *try_;
    PyObject *keep;     /* a list holding every new reference until the end */
    PyObject *captured; /* device arrays read as globals (CK_DEVARRAY), NULL if none: a
                         * list the compiled kernel keeps (PlCompiled.keep) */
    FeSeen *seen;       /* device functions already read (recursion, sharing) */
    int nseen, capseen;
    int depth;          /* device functions being read, one inside another */
    int numba;          /* a cuda.jit kernel's request: names are split at loops as Numba's
                         * SSA splits them (webs.c, with_copies) */
    double ms_source;   /* reading and cutting source lines, over every function read */
    double ms_parse;    /* parsing them to Python ASTs (CUJIT_LOG) */
    /* a fused function (@cujit.fuse): NumPy / CuPy / cujit array functions,
     * by name, to what they mean on one element (a math function, a device
     * function, or an int: a reduction, RedOp); NULL otherwise */
    PyObject *fuse_names;
    const int *inplace;     /* parameters written in place (x += y, out=x): */
    int ninplace;           /* their final values are the first results */
    int fuse_red;           /* set by the read: the final `return np.sum(...)`'s RedOp */
    PyObject *inner;        /* functions defined inside kernels (inner.c) -> the
                             * compile-time names of the function around each */
    PyObject *inner_caps;   /* those that read variables of the function around them
                             * -> (their names, the address of that Func) (inner.c) */
    PyObject *texts;        /* functions no file holds (source.c), NULL if none: their
                             * code -> lines, and their Func.file's address -> lines */
    PyObject *links;        /* a kernel's cuda.jit(link=): a tuple of str (CUDA C++ texts,
                             * marker lines of compiled code), linked with every declared
                             * function it calls (extern.c); NULL: none */
} FeCtx;

/* Reads `pyfunc` (a plain Python function) into IR; longjmps through
 * cx->try_ on a user error.  Device functions it calls are read too. */
Func *fe_read(FeCtx *cx, PyObject *pyfunc, int is_device, int boundscheck);

/* How a cujit kernel object is recognised among a function's globals (a
 * device function it calls): returns the object's Python function (borrowed)
 * and sets *is_device; NULL when obj is none.  The kernel type lives above
 * the frontend, so its owner passes this down (pl_init) before any read. */
typedef PyObject *(*FeKernelFunction)(PyObject *obj, int *is_device);
void fe_set_kernel_function(FeKernelFunction f);

/* How a NumPy structured dtype becomes a record DType (the runtime's table,
 * passed down by pl_init): 0, or -1 with a Python exception. */
typedef int (*FeRecordReader)(PyObject *dtype, DType *out);
void fe_set_record_reader(FeRecordReader r);

/* The source lines of a function and where it starts, for diagnostics. */
int fe_source_line(const char *file, int line, char *out, size_t n);
/* ... for an error of the compilation cx: a function no file holds too */
int fe_error_line(const FeCtx *cx, const char *file, int line, char *out, size_t n);

/* Installs the audit hook that keeps the texts Python compiles from strings
 * (exec, compile), where functions no file holds are found (srcstore.c);
 * once per process, at import.  Never raises. */
void fe_store_install(void);

#endif
