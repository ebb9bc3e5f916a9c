/* argdesc.h - describing arguments for signature selection: the compact key
 * of one argument's type that the launch paths compare (ArgKey), and how it
 * is read from Python numbers and from arrays of any kind.  The keys carry
 * no IR: the pipeline turns them into types. */
#ifndef ARGDESC_H
#define ARGDESC_H

#include "rt.h"

/* one argument's type as the launch path sees it: a compact key */
typedef struct {
    unsigned char kind;     /* 1 scalar, 2 array, 4 tuple (RT_KEY_TUPLE: dtype | ndim << 8
                             * is its RtTuple's number), 5 Enum member (RT_KEY_ENUM),
                             * 6 raw pointer (RT_KEY_PTR) */
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

/* a raw pointer parameter (Numba's types.CPointer(dtype), cujit's "dtype*"):
 * only a signature gives one; a launch passes a Python int address, packed
 * as the 64-bit number it is */
#define RT_KEY_PTR 6

static inline ArgKey
rt_ptr_key(DType dt)
{
    ArgKey k = {RT_KEY_PTR, (unsigned char)dt, 0, 0};
    return k;
}

/* ---- Enum members (argenum.c) ---- */
#define RT_KEY_ENUM 5

/* an Enum class of arguments with one type of values; key kind
 * RT_KEY_ENUM, dtype the value's (a number's), ndim | flags << 8 its number */
typedef struct {
    PyObject *cls;          /* a reference */
    char *tag;              /* Type.enm: 'I' (an int subclass) or 'E', module.qualname */
    ArgKey vkey;            /* its values' key: a number's or a tuple of numbers' */
} RtEnum;

const RtEnum *rt_enum_of(ArgKey k);
/* 1: o is an Enum member, *key its class's (its value a number or a tuple
 * of numbers); 0: not a member; -1 with TypeError (another value) */
int rt_enum_key(PyObject *o, ArgKey *key);
/* member o packed as its value (key: its RT_KEY_ENUM key) */
int rt_pack_enum(unsigned char *buf, size_t *off, PyObject *o, ArgKey key);
/* the C++ alignment of a value of this key (a number, array, tuple, member) */
int rt_key_align(ArgKey k);

/* ---- tuple arguments (argtuple.c) ---- */
#define RT_KEY_TUPLE 4

/* A tuple argument's type: its elements' keys (scalars, arrays, tuples),
 * interned, so that equal tuple types have one key.  A namedtuple keeps its
 * class's name and fields (t.x reads a field by name). */
typedef struct {
    int n;
    ArgKey *elems;
    PyObject *cls;          /* a namedtuple's class (a reference), or NULL */
    const char *cname;      /* its __qualname__, or NULL */
    const char **names;     /* its _fields, or NULL */
    int align;              /* bytes: of its C++ struct (codegen's tuple struct) */
    size_t maxbytes;        /* an upper bound of its packed size */
} RtTuple;

/* the arrays inside a launch's tuple arguments, in the order of packing */
typedef struct {
    RtArray *a;
    int n, cap;
} RtLeaves;

/* the RtTuple of a key of kind RT_KEY_TUPLE */
const RtTuple *rt_tuple_of(ArgKey k);
/* The key of tuple o (its arrays appended to lv: read with rt_get_array on
 * stream when launch, else only described); idx32 cleared when an array
 * needs 64-bit indexing.  -1 with TypeError naming the element. */
int rt_tuple_key(PyObject *o, RtLeaves *lv, int launch, void *stream, ArgKey *key, int *idx32);
/* the key of a plain tuple of these elements' keys; -1 with an exception */
int rt_tuple_key_of(const ArgKey *elems, int n, ArgKey *key);
/* tuple o packed as its C++ struct at *off (leaf: the next array of lv) */
int rt_pack_tuple(unsigned char *buf, size_t *off, PyObject *o, const RtTuple *t,
                  const RtArray **leaf, int idx32);
/* the leaves released (host arrays copied back when copy_back), lv emptied */
int rt_leaves_release(RtLeaves *lv, void *stream, int copy_back);

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
