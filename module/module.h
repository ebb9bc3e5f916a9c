/* module.h - the extension module's glue: kernel objects, compile errors and
 * the pipeline from a Python function to CUDA C++. */
#ifndef MODULE_H
#define MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../common/cj.h"
#include "../runtime/rt.h"

extern PyObject *cj_CompileError;
extern PyTypeObject KernelType;
extern PyTypeObject LauncherType;

int kernel_add_types(PyObject *m);

/* one argument's type as the launch path sees it: a compact key */
typedef struct {
    unsigned char kind;     /* 1 scalar, 2 array */
    unsigned char dtype;
    unsigned char ndim;
    unsigned char flags;    /* layout ('C' 1, 'F' 2, 'A' 3) | readonly << 2 */
} ArgKey;

/* what one compiled signature keeps */
typedef struct Entry {
    struct Entry *next;
    int nargs;
    int idx32;
    ArgKey *keys;
    char *sig;              /* "(float32, float32[:])" */
    char *src;              /* CUDA C++ */
    char *kname;
    char **msgs;            /* assert messages */
    int nmsgs;
    int check_errors;       /* asserts or boundscheck: read the error record */
    int has_dynshared;
    int has_print;          /* flush stdout after a synchronising launch */
    double transpile_ms;
    RtKernel rk[8];         /* per device */
    char loaded[8];
} Entry;

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    int device;
    int boundscheck;
    Entry *entries;
    PyObject *weakrefs;
} KernelObject;

#endif
