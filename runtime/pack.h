/* pack.h - kernel parameters packed into one buffer on every launch, in the
 * layout codegen's prelude gives them (scalars at their alignment, an array
 * view cj_array<T, N, I> as data, shape[N], strides[N], 8-aligned), and the
 * per-call scratch storage the launch paths pack into.  Inline, so that the
 * copies of fixed size become plain stores rather than calls to memcpy. */
#ifndef PACK_H
#define PACK_H

#include <string.h>

#include "argdesc.h"


/* Per-call storage too large for the stack of a hot path (where gcc
 * defaults to -fstack-clash-protection, as Ubuntu's does, a frame of tens
 * of KB is probed page by page on every call): `fixed`, a static block,
 * when no other call holds it (*busy; the GIL orders the calls), else heap
 * memory (a call started while another runs: a Python callback that
 * launches, another thread while the GIL is let go).  NULL: MemoryError. */
static inline void *
rt_scratch_get(void *fixed, int *busy, size_t size)
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
rt_scratch_put(void *p, void *fixed, int *busy)
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
rt_put(unsigned char *buf, size_t *off, const void *v, size_t size, size_t align)
{
    *off = (*off + align - 1) & ~(align - 1);
    memcpy(buf + *off, v, size);
    *off += size;
}

/* an index-typed value: int32 or int64 */
static inline void
rt_pack_index(unsigned char *buf, size_t *off, int64_t v, int idx32)
{
    if (idx32) {
        int32_t w = (int32_t)v;
        rt_put(buf, off, &w, 4, 4);
    } else {
        rt_put(buf, off, &v, 8, 8);
    }
}

/* the view struct cj_array<T, N, I> (data, shape[N], strides[N]), 8-aligned */
static inline void
rt_pack_view(unsigned char *buf, size_t *off, uint64_t ptr, int nd, const int64_t *shape,
             const int64_t *strides, int idx32)
{
    *off = (*off + 7) & ~(size_t)7;
    rt_put(buf, off, &ptr, 8, 8);
    for (int d = 0; d < nd; d++) {
        rt_pack_index(buf, off, shape[d], idx32);
    }
    for (int d = 0; d < nd; d++) {
        rt_pack_index(buf, off, strides[d], idx32);
    }
    *off = (*off + 7) & ~(size_t)7;
}

/* a scalar argument converted to dtype dt (Python int, float, complex, bool
 * or a NumPy scalar's bytes); -1 with an exception */
int rt_pack_scalar(unsigned char *buf, size_t *off, PyObject *o, DType dt);

/* A kernel's n arguments packed into buf, params[i] pointing at each: the
 * arrays (isarr[i] 1) as views of arrs[i], the tuples (isarr[i] 2) as their
 * structs, whose arrays are the next of leaves, Enum members (isarr[i] 3)
 * as their values, the scalars as
 * keys[i].dtype, with 32-bit indices when idx32.  *end: the bytes used.  -1
 * with an exception (a scalar that does not convert). */
int rt_pack_args(PyObject *const *args, const RtArray *arrs, const int *isarr, const ArgKey *keys,
                 Py_ssize_t n, int idx32, const RtArray *leaves, unsigned char *buf,
                 void **params, size_t *end);

#endif
