/* pack.c - a kernel's arguments packed as its parameters: every argument
 * in turn (rt_pack_args), and a scalar converted to its parameter's dtype
 * (rt_pack_scalar).  The inline part is pack.h. */
#include <string.h>

#include "pack.h"

int
rt_pack_scalar(unsigned char *buf, size_t *off, PyObject *o, DType dt)
{
    const DTypeInfo *d = &cj_dtypes[dt];
    union {
        int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint64_t u64;
        float f32; double f64; uint16_t h; double c[2]; float cf[2]; unsigned char b;
    } v;
    if (dt == DT_I64 && PyLong_CheckExact(o)) {         /* the common cases first */
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow && !(x == -1 && PyErr_Occurred())) {
            rt_put(buf, off, &x, 8, 8);
            return 0;
        }
        PyErr_Clear();
    } else if (dt == DT_F64 && PyFloat_CheckExact(o)) {
        double x = PyFloat_AS_DOUBLE(o);
        rt_put(buf, off, &x, 8, 8);
        return 0;
    }
    memset(&v, 0, sizeof v);
    if (!PyBool_Check(o) && !PyLong_CheckExact(o) && !PyFloat_CheckExact(o)
        && !PyComplex_CheckExact(o)) {
        Py_buffer view;     /* NumPy scalars expose their bytes */
        if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) < 0) {
            return -1;
        }
        if ((size_t)view.len != (size_t)d->size) {
            /* a NumPy scalar of another dtype (a by_signature kernel's alias):
             * NumPy's casting */
            unsigned char b[16];
            PyBuffer_Release(&view);
            if (rt_scalar_to_bytes(o, dt, b) < 0) {
                return -1;
            }
            rt_put(buf, off, b, (size_t)d->size, (size_t)(d->size > 8 ? 8 : d->size));
            return 0;
        }
        rt_put(buf, off, view.buf, (size_t)view.len, (size_t)(d->size > 8 ? 8 : d->size));
        PyBuffer_Release(&view);
        return 0;
    }
    if (PyLong_Check(o) && !PyBool_Check(o) && (d->kind == 'i' || d->kind == 'u')
        && (d->size < 8 || d->kind == 'u')) {
        /* a Python int for a narrower or unsigned integer parameter (a
         * by_signature kernel's alias): its low bytes, wrapping as Numba's
         * typed launch does (little-endian) */
        unsigned long long x = PyLong_AsUnsignedLongLongMask(o);
        if (x == (unsigned long long)-1 && PyErr_Occurred()) {
            return -1;
        }
        rt_put(buf, off, &x, (size_t)d->size, (size_t)d->size);
        return 0;
    }
    switch (dt) {
    case DT_BOOL:
        v.b = (unsigned char)PyObject_IsTrue(o);
        break;
    case DT_I64:
        v.i64 = PyLong_AsLongLong(o);
        if (v.i64 == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            v.u64 = PyLong_AsUnsignedLongLong(o);
            if (PyErr_Occurred()) {
                PyErr_SetString(PyExc_OverflowError, "integer argument does not fit in 64 bits");
                return -1;
            }
        }
        break;
    case DT_F64:
        v.f64 = PyFloat_AsDouble(o);
        break;
    case DT_C128: {
        Py_complex z = PyComplex_AsCComplex(o);
        v.c[0] = z.real;
        v.c[1] = z.imag;
        break;
    }
    default: {
        /* a Python number for another dtype (a by_signature kernel's int32
         * parameter): NumPy's casting */
        unsigned char b[16];
        if (rt_scalar_to_bytes(o, dt, b) < 0) {
            return -1;
        }
        rt_put(buf, off, b, (size_t)d->size, (size_t)(d->size > 8 ? 8 : d->size));
        return 0;
    }
    }
    rt_put(buf, off, &v, (size_t)d->size, (size_t)(d->size > 8 ? 8 : d->size));
    return 0;
}

int
rt_pack_args(PyObject *const *args, const RtArray *arrs, const int *isarr, const ArgKey *keys,
             Py_ssize_t n, int idx32, const RtArray *leaves, unsigned char *buf, void **params,
             size_t *end)
{
    size_t off = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t before;
        if (isarr[i] == 2) {
            const RtTuple *t = rt_tuple_of(keys[i]);
            off = (off + (size_t)t->align - 1) & ~((size_t)t->align - 1);
            before = off;
            if (rt_pack_tuple(buf, &off, args[i], t, &leaves, idx32) < 0) {
                return -1;
            }
        } else if (isarr[i] == 3) {
            size_t al = (size_t)rt_key_align(keys[i]);
            off = (off + al - 1) & ~(al - 1);
            before = off;
            if (rt_pack_enum(buf, &off, args[i], keys[i]) < 0) {
                return -1;
            }
        } else if (isarr[i]) {
            off = (off + 7) & ~(size_t)7;
            before = off;
            rt_pack_view(buf, &off, (uint64_t)(uintptr_t)arrs[i].ptr, arrs[i].ndim,
                         arrs[i].shape, arrs[i].strides, idx32);
        } else {
            /* a raw pointer's key holds its pointee's dtype: the address is 64 bits */
            DType dt = keys[i].kind == RT_KEY_PTR ? DT_U64 : (DType)keys[i].dtype;
            int sz = cj_dtypes[dt].size;
            size_t al = (size_t)(sz > 8 ? 8 : sz);
            off = (off + al - 1) & ~(al - 1);
            before = off;
            if (rt_pack_scalar(buf, &off, args[i], dt) < 0) {
                return -1;
            }
        }
        params[i] = buf + before;
    }
    *end = off;
    return 0;
}
