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
extern PyMethodDef kernel_module_methods[];
int ufunc_add_types(PyObject *m);

/* shared by kernel.c and ufunc.c */
double mod_now_ms(void);
void mod_raise_compile_error(const CjError *e);
void mod_raise_nvrtc_error(const char *log, const char *src);
/* the dtype of a Python or NumPy number; 0 if o is not one */
int mod_scalar_dtype(PyObject *o, DType *dt);
int mod_fits32(int ndim, const int64_t *shape, const int64_t *strides);

/* Per-call storage too large for the stack of a hot path (where gcc
 * defaults to -fstack-clash-protection, as Ubuntu's does, a frame of tens
 * of KB is probed page by page on every call): `fixed`, a static block,
 * when no other call holds it (*busy; the GIL orders the calls), else heap
 * memory (a call started while another runs: a Python callback that
 * launches, another thread while the GIL is let go).  NULL: MemoryError. */
static inline void *
mod_scratch_get(void *fixed, int *busy, size_t size)
{
    if (!*busy) {
        *busy = 1;
        return fixed;
    }
    void *p = PyMem_Malloc(size);
    if (!p) {
        PyErr_NoMemory();
    }
    return p;
}

static inline void
mod_scratch_put(void *p, void *fixed, int *busy)
{
    if (p == fixed) {
        *busy = 0;
    } else {
        PyMem_Free(p);
    }
}

/* Parameter packing, on every launch: inline, so that the copies of fixed
 * size become plain stores rather than calls to memcpy. */

/* v (size bytes) at the next multiple of align (a power of two) */
static inline void
mod_put(unsigned char *buf, size_t *off, const void *v, size_t size, size_t align)
{
    *off = (*off + align - 1) & ~(align - 1);
    memcpy(buf + *off, v, size);
    *off += size;
}

/* an index-typed value: int32 or int64 */
static inline void
mod_pack_index(unsigned char *buf, size_t *off, int64_t v, int idx32)
{
    if (idx32) {
        int32_t w = (int32_t)v;
        mod_put(buf, off, &w, 4, 4);
    } else {
        mod_put(buf, off, &v, 8, 8);
    }
}

/* the view struct cj_array<T, N, I> (data, shape[N], strides[N]), 8-aligned */
static inline void
mod_pack_view(unsigned char *buf, size_t *off, uint64_t ptr, int nd, const int64_t *shape,
              const int64_t *strides, int idx32)
{
    *off = (*off + 7) & ~(size_t)7;
    mod_put(buf, off, &ptr, 8, 8);
    for (int d = 0; d < nd; d++) {
        mod_pack_index(buf, off, shape[d], idx32);
    }
    for (int d = 0; d < nd; d++) {
        mod_pack_index(buf, off, strides[d], idx32);
    }
    *off = (*off + 7) & ~(size_t)7;
}

/* appends str(s) to list; -1 with an exception */
int mod_list_append_str(PyObject *list, const char *s);
/* a scalar argument packed as its own dtype dt */
int mod_pack_scalar(unsigned char *buf, size_t *off, PyObject *o, DType dt);

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
