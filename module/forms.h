/* forms.h - what the forms' Python types (Vectorize in vectorize.c,
 * Reduce in reduce.c, GUFunc in gufunc.c) share: compiled forms found by a
 * key of bytes, their operands (arrays or numbers), and the objects. */
#ifndef FORMS_H
#define FORMS_H

#include "module.h"

#include "../runtime/pack.h"

#define MAXIN 32
#define MAXOUT 8

/* ---- compiled forms, keyed by bytes ---- */

typedef struct Form {
    struct Form *next;
    unsigned char key[512];
    size_t keylen;
    PlCompiled c;           /* typing only (the result dtypes): no c.src */
    PyObject *keep;         /* code objects the key points at */
    RtKernel rk[8], rk2[8];
    char loaded[8];
} Form;

typedef struct {
    unsigned char b[512];
    size_t n;
} Key;

static inline void
key_put(Key *k, const void *p, size_t n)
{
    if (k->n + n <= sizeof k->b) {
        memcpy(k->b + k->n, p, n);
    }
    k->n += n;
}

static inline void
key_int(Key *k, int64_t v)
{
    key_put(k, &v, sizeof v);
}

Form *form_find(Form *list, const Key *k);
Form *form_new(const Key *key);
void form_free(Form *f);
/* loads a form for the current device (the second entry for reductions);
 * the device ordinal, or -1 with an exception */
int form_load(Form *f, const char *second);
void forms_free(Form **list);
/* the CUDA of every compiled form (typing-only entries have none) */
PyObject *forms_sources(Form *list);

/* ---- shared argument handling ---- */

typedef struct {
    int is_array;
    int weak;               /* a Python number: NEP 50 weak */
    DType dt;
    PyObject *obj;
    RtArray a;
} Operand;

int operand(PyObject *o, Operand *op, void *stream, const char *what);
/* gives back what operand() took (host arrays copied back when copy_back);
 * -1 with an exception when a copy or a free failed, after releasing all */
int release(Operand *ops, int n, void *stream, int copy_back);
/* an operand described, never copied (inspect_cuda(*args) without a GPU) */
int operand_describe(PyObject *o, Operand *op);
/* inspect_ptx's arch= keyword (kept as given when absent); -1 with TypeError */
int form_arch_keyword(PyObject *const *args, Py_ssize_t n, PyObject *kwnames,
                      const char **arch);
/* NumPy broadcasting of the array operands' shapes */
int form_broadcast(Operand *ops, int n, int *ndim, int64_t *shape);
/* axis= (None, an int or a tuple) as red[d] = 1 for each reduced dimension */
int form_parse_axes(PyObject *axis, int ndim, int *red);
/* a scalar operand's type as the scalar function's parameter */
ArgKey operand_key(const Operand *op);
/* blocks for `work` items of `block` threads, capped at 32 per SM; 0 with an
 * exception when the device cannot be asked */
unsigned grid_for(int64_t work, int block);
int param_count(PyObject *func);

/* ---- the objects ---- */

typedef struct {
    DType in[MAXIN];
    DType out[MAXOUT];
    int nout;
} Sig;

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    int nparams;
    Sig *sigs;
    int nsigs;
    Form *forms;
    vectorcallfunc vectorcall;
    /* @cujit.fuse (cujit/_fuse.py): the function is read in fused mode */
    PyObject *fuse_names;   /* library names -> element meanings; NULL: a plain vectorize */
    char *kname;            /* kernel_name=, or NULL */
    int ninplace;           /* parameters written in place (x += y): the first outputs */
    int inplace[MAXIN];
    int numba;              /* Numba's spelling (target='cuda'): its typing rules in the
                             * body (PlRequest.numba) */
} VectorizeObject;

typedef struct {
    PyObject_HEAD
    PyObject *pyfunc;
    PyObject *name;
    PyObject *identity;     /* None: no identity */
    Form *forms;
} ReduceObject;

extern PyTypeObject VectorizeType;
extern PyTypeObject ReduceType;
extern PyTypeObject GUFuncType;
extern PyTypeObject FuseReduceType;

/* the Python function behind a map= / scalar function argument */
PyObject *scalar_function(PyObject *o);

#endif
