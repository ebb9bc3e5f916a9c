/* argdesc.h - describing arguments for signature selection: the compact key
 * of one argument's type that the launch paths compare (ArgKey), and how it
 * is read from Python numbers and from arrays of any kind.  The keys carry
 * no IR: the pipeline turns them into types. */
#ifndef ARGDESC_H
#define ARGDESC_H

#include "rt.h"

/* one argument's type as the launch path sees it: a compact key */
typedef struct {
    unsigned char kind;     /* 1 scalar, 2 array */
    unsigned char dtype;
    unsigned char ndim;
    unsigned char flags;    /* layout ('C' 1, 'F' 2, 'A' 3) | readonly << 2 */
} ArgKey;

static inline ArgKey
rt_array_key(DType dt, int ndim, char layout, int readonly)
{
    ArgKey k;
    k.kind = 2;
    k.dtype = (unsigned char)dt;
    k.ndim = (unsigned char)ndim;
    k.flags = (unsigned char)((layout == 'C' ? 1 : layout == 'F' ? 2 : 3) | (readonly << 2));
    return k;
}

static inline ArgKey
rt_scalar_key(DType dt)
{
    ArgKey k = {1, (unsigned char)dt, 0, 0};
    return k;
}

/* 'C', 'F' or 'A' (any) for an array of this shape and byte strides */
char rt_layout_of(int ndim, const int64_t *shape, const int64_t *strides, int itemsize);
/* the dtype of a NumPy scalar (its type's dtype remembered); 0 if o is not one */
int rt_numpy_scalar_dtype(PyObject *o, DType *dt);

/* 32-bit indexing is safe when every element's byte offset fits */
static inline int
rt_fits32(int ndim, const int64_t *shape, const int64_t *strides)
{
    int64_t size = 1, span = 0;
    for (int i = 0; i < ndim; i++) {
        size *= shape[i];
        if (shape[i] > INT32_MAX || strides[i] > INT32_MAX || strides[i] < -INT32_MAX) {
            return 0;
        }
        span += (strides[i] < 0 ? -strides[i] : strides[i]) * (shape[i] > 0 ? shape[i] - 1 : 0);
    }
    return size < INT32_MAX && span < INT32_MAX;
}

/* the scalar dtype of a Python or NumPy number; 0 if o is not one (no
 * exception); inline: the launch path asks for every argument */
static inline int
rt_scalar_dtype(PyObject *o, DType *dt)
{
    if (PyBool_Check(o)) {
        *dt = DT_BOOL;
    } else if (PyLong_CheckExact(o)) {
        *dt = DT_I64;
    } else if (PyFloat_CheckExact(o)) {
        *dt = DT_F64;
    } else if (PyComplex_CheckExact(o)) {
        *dt = DT_C128;
    } else {
        return rt_numpy_scalar_dtype(o, dt);
    }
    return 1;
}

/* An array's type (NumPy arrays, buffers, __cuda_array_interface__) in d:
 * dtype, ndim, shape, strides, contiguity, readonly and the pointer (NULL
 * for buffers, whose device copy would be aligned).
 * 1: an array, described; 0: not an array; -1 with an exception. */
int rt_describe_array(PyObject *o, RtArray *d);
/* keys (and whether 32-bit indexing fits) from example arguments of the
 * function called `name`; -1 with TypeError naming the argument */
int rt_keys_from_args(PyObject *name, PyObject *const *args, Py_ssize_t n, ArgKey *keys,
                      int *idx32);

#endif
