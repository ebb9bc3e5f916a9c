/* module.h - the extension module's glue: kernel objects, compile errors and
 * the pipeline from a Python function to CUDA C++. */
#ifndef MODULE_H
#define MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../common/cj.h"
#include "../runtime/rt.h"
#include "../runtime/argdesc.h"

extern PyObject *cj_CompileError;
extern PyTypeObject KernelType;
extern PyTypeObject LauncherType;

int kernel_add_types(PyObject *m);
extern PyMethodDef kernel_module_methods[];
int ufunc_add_types(PyObject *m);

/* shared by kernel.c and ufunc.c */
double mod_now_ms(void);
void mod_raise_compile_error(const CjError *e);
void mod_raise_nvrtc_error(const char *log, const char *src);
/* appends str(s) to list; -1 with an exception */
int mod_list_append_str(PyObject *list, const char *s);

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
    RtKernel rkx[8];        /* the coarsened entry, when coarse_vec */
    char loaded[8];
    int coarse_vec;         /* elements per thread of <kname>_x<vec>, 0: none */
    uint64_t coarse_mask;   /* parameters it moves in packs (alignment checked) */
} Entry;

typedef struct {
    unsigned grid[3], block[3];
    unsigned shmem;
    void *stream;
} LaunchConfig;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;  /* k(grid, block, args) */
    PyObject *pyfunc;
    PyObject *name;
    int device;
    int boundscheck;
    Entry *entries;
    PyObject *weakrefs;
    PyObject *last_key;         /* k[grid, block]: the last key and its launcher */
    PyObject *last_launcher;
    PyObject *call_grid;        /* k(grid, block, args): the last grid and block */
    PyObject *call_block;       /* objects (ints or tuples of ints) and their */
    LaunchConfig call_cfg;      /* configuration */
} KernelObject;

#endif
