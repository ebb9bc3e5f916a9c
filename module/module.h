/* module.h - the extension module's Python face: the Kernel, Launcher,
 * Vectorize and Reduce types, their argument parsing and launches.  They
 * compile through pipeline/ and launch through runtime/. */
#ifndef MODULE_H
#define MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../common/cj.h"
#include "../runtime/rt.h"
#include "../runtime/argdesc.h"
#include "../pipeline/pipeline.h"

extern PyTypeObject KernelType;
extern PyTypeObject LauncherType;

int kernel_add_types(PyObject *m);
extern PyMethodDef kernel_module_methods[];
int forms_add_types(PyObject *m);

/* shared by kernel.c and ufunc.c */
/* a cujit.Kernel's Python function (borrowed) and *is_device; NULL if obj is
 * no Kernel (the frontend's recognizer, passed down through pl_init) */
PyObject *mod_kernel_function(PyObject *obj, int *is_device);
/* cj_parse_signature of a str; -1 with a TypeError */
int mod_parse_signature(Arena *a, PyObject *str, Type ***types, Type **ret);
/* The current device's ordinal, its context made current; -1 with an
 * exception (CudaError, or RuntimeError past the 8 devices whose loaded
 * kernels the types keep) */
static inline int
mod_device(void)
{
    int dev = rt_ensure_context();
    if (dev >= 8) {
        PyErr_SetString(PyExc_RuntimeError, "cujit supports devices 0 to 7");
        return -1;
    }
    return dev;
}

/* appends str(s) to list; -1 with an exception */
int mod_list_append_str(PyObject *list, const char *s);

/* what one compiled signature keeps */
typedef struct Entry {
    struct Entry *next;
    int nargs;
    int idx32;
    ArgKey *keys;
    PlCompiled c;           /* the CUDA C++ and what launching it needs */
    RtKernel rk[8];         /* per device */
    RtKernel rkx[8];        /* the coarsened entry, when c.coarse_vec */
    char loaded[8];
    int ncompiled, ncached; /* loads whose binary NVRTC made, or a cache held */
} Entry;

/* by_signature kernels: argument keys no entry has, and the entry
 * _resolve_args chose for them (launched with its own keys' dtypes) */
typedef struct Alias {
    struct Alias *next;
    int nargs, idx32;
    ArgKey *keys;
    Entry *target;
} Alias;

typedef struct {
    unsigned grid[3], block[3];
    unsigned shmem;
    void *stream;
} LaunchConfig;

#define CARVEOUT_UNSET (-1000)

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;  /* k(grid, block, args) */
    PyObject *pyfunc;
    PyObject *name;
    int device;
    int boundscheck;
    int fast_compile;           /* NVRTC --Ofast-compile=min for its entries */
    int fastmath;               /* NVRTC --use_fast_math for its entries (Numba's option) */
    int lineinfo;               /* NVRTC -lineinfo (lineinfo=True) */
    int noopt;                  /* NVRTC -Xnvvm=-opt=0 --fmad=false (opt=False) */
    int maxrreg;                /* NVRTC --maxrregcount (max_registers=N); 0: none */
    int launch_bounds[3];       /* __launch_bounds__(max threads, min blocks, max
                                 * cluster size); 0: not given */
    int carveout;               /* shared memory carveout (percent, -1 the driver's
                                 * default) set at load; CARVEOUT_UNSET: none */
    int by_signature;           /* compiles only its explicit signatures: arguments
                                 * they do not take go through _resolve_args */
    int numba_warn;             /* a cuda.jit Dispatcher: Numba's launch warnings */
    int numba;                  /* cuda.jit's spelling: Numba's rules (PlRequest.numba) */
    Alias *aliases;
    Entry *entries;
    PyObject *weakrefs;
    PyObject *last_key;         /* k[grid, block]: the last key and its launcher */
    PyObject *last_launcher;
    PyObject *call_grid;        /* k(grid, block, args): the last grid and block */
    PyObject *call_block;       /* objects (ints or tuples of ints) and their */
    LaunchConfig call_cfg;      /* configuration */
} KernelObject;

#endif
