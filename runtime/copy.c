/* copy.c - device memory as the runtime copies it, without Python objects:
 * the layout of n-d data (sizes, C / Fortran strides, contiguity, the bytes
 * a strided view spans), copies between host memory and strided device
 * regions, and fills of contiguous device memory with one element. */
#include <string.h>

#include "rt_impl.h"

#define HOST_FILL_CHUNK (4 << 20)

int64_t
rt_shape_size(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        n *= shape[i];
    }
    return n;
}

void
rt_c_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *out)
{
    int64_t s = itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        out[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

void
rt_f_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *out)
{
    int64_t s = itemsize;
    for (int i = 0; i < ndim; i++) {
        out[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

/* NumPy's rule: extents of 1 do not matter; empty arrays are both */
void
rt_contiguity(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize, int *c,
              int *f)
{
    int64_t expect = itemsize;
    *c = *f = 1;
    if (rt_shape_size(ndim, shape) == 0) {
        return;
    }
    for (int i = ndim - 1; i >= 0; i--) {
        if (shape[i] != 1) {
            *c &= strides[i] == expect;
            expect *= shape[i];
        }
    }
    expect = itemsize;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] != 1) {
            *f &= strides[i] == expect;
            expect *= shape[i];
        }
    }
}

/* the byte range [lo, hi) that a strided view touches, relative to its first element */
void
rt_span(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize, int64_t *lo,
        int64_t *hi)
{
    *lo = 0;
    *hi = itemsize;
    for (int i = 0; i < ndim; i++) {
        int64_t d = (shape[i] - 1) * strides[i];
        if (d < 0) {
            *lo += d;
        } else {
            *hi += d;
        }
    }
}

/* host-to-host copy between two strided layouts of the same shape (size > 0) */
static void
strided_copy(char *dst, const int64_t *ds, const char *src, const int64_t *ss, int ndim,
             const int64_t *shape, int64_t itemsize)
{
    int64_t idx[RT_MAXDIM] = {0};
    if (ndim == 0) {
        memcpy(dst, src, (size_t)itemsize);
        return;
    }
    int last = ndim - 1;
    for (;;) {
        int64_t so = 0, dof = 0;
        for (int k = 0; k < last; k++) {
            so += idx[k] * ss[k];
            dof += idx[k] * ds[k];
        }
        for (int64_t j = 0; j < shape[last]; j++) {
            memcpy(dst + dof + j * ds[last], src + so + j * ss[last], (size_t)itemsize);
        }
        int k = last - 1;
        while (k >= 0 && ++idx[k] == shape[k]) {
            idx[k] = 0;
            k--;
        }
        if (k < 0) {
            break;
        }
    }
}

int
rt_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult r;
    if (n == 0) {
        return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuMemcpyDtoHAsync(dst, src, n, s);
    if (r == CUDA_SUCCESS) {
        r = rt_cu.cuStreamSynchronize(s);   /* pinned destinations copy asynchronously */
    }
    Py_END_ALLOW_THREADS
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "copying %zu bytes from the device", n);
}

/* pageable sources are staged before this returns, so they may be reused */
int
rt_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    CUresult r;
    if (n == 0) {
        return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuMemcpyHtoDAsync(dst, src, n, s);
    Py_END_ALLOW_THREADS
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "copying %zu bytes to the device", n);
}

int
rt_same_layout(int ndim, const int64_t *shape, const int64_t *a, const int64_t *b, int64_t itemsize)
{
    int ac, af, bc, bf;
    rt_contiguity(ndim, shape, a, itemsize, &ac, &af);
    rt_contiguity(ndim, shape, b, itemsize, &bc, &bf);
    return (ac && bc) || (af && bf);
}

int
rt_copy_to_host(void *dst, const int64_t *dst_strides, CUdeviceptr src, const int64_t *src_strides,
                int ndim, const int64_t *shape, int64_t itemsize, CUstream s)
{
    int64_t cs[RT_MAXDIM], lo, hi;
    int64_t size = rt_shape_size(ndim, shape);
    if (size == 0) {
        return 0;
    }
    rt_c_strides(ndim, shape, itemsize, cs);
    dst_strides = dst_strides ? dst_strides : cs;
    src_strides = src_strides ? src_strides : cs;
    if (rt_same_layout(ndim, shape, dst_strides, src_strides, itemsize)) {
        return rt_dtoh(dst, src, (size_t)(size * itemsize), s);
    }
    rt_span(ndim, shape, src_strides, itemsize, &lo, &hi);
    char *tmp = malloc((size_t)(hi - lo));
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    if (rt_dtoh(tmp, src + lo, (size_t)(hi - lo), s) < 0) {
        free(tmp);
        return -1;
    }
    strided_copy(dst, dst_strides, tmp - lo, src_strides, ndim, shape, itemsize);
    free(tmp);
    return 0;
}

int
rt_copy_from_host(CUdeviceptr dst, const int64_t *dst_strides, const void *src,
                  const int64_t *src_strides, int ndim, const int64_t *shape, int64_t itemsize,
                  CUstream s)
{
    int64_t cs[RT_MAXDIM], lo, hi;
    int dc, df, r;
    int64_t size = rt_shape_size(ndim, shape);
    if (size == 0) {
        return 0;
    }
    rt_c_strides(ndim, shape, itemsize, cs);
    dst_strides = dst_strides ? dst_strides : cs;
    src_strides = src_strides ? src_strides : cs;
    size_t nbytes = (size_t)(size * itemsize);
    if (rt_same_layout(ndim, shape, dst_strides, src_strides, itemsize)) {
        return rt_htod(dst, src, nbytes, s);
    }
    rt_contiguity(ndim, shape, dst_strides, itemsize, &dc, &df);
    if (dc || df) {
        /* gather into the destination's layout, then one copy */
        char *tmp = malloc(nbytes);
        if (!tmp) {
            PyErr_NoMemory();
            return -1;
        }
        strided_copy(tmp, dst_strides, src, src_strides, ndim, shape, itemsize);
        r = rt_htod(dst, tmp, nbytes, s);
        free(tmp);
        return r;
    }
    /* read the destination's span, scatter into it, write it back */
    rt_span(ndim, shape, dst_strides, itemsize, &lo, &hi);
    char *tmp = malloc((size_t)(hi - lo));
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    r = rt_dtoh(tmp, dst + lo, (size_t)(hi - lo), s);
    if (r == 0) {
        strided_copy(tmp - lo, dst_strides, src, src_strides, ndim, shape, itemsize);
        r = rt_htod(dst + lo, tmp, (size_t)(hi - lo), s);
    }
    free(tmp);
    return r;
}

/* fills n elements at p with one element's bytes: a memset when the bytes
 * repeat with period 1, 2 or 4, else copies of a host buffer */
int
rt_fill_contig(CUdeviceptr p, int64_t n, int itemsize, const unsigned char *elem, CUstream s)
{
    size_t nbytes = (size_t)(n * itemsize);
    int period = itemsize;
    CUresult r;
    if (n == 0) {
        return 0;
    }
    for (int per = 1; per < itemsize; per *= 2) {
        int ok = 1;
        for (int i = per; i < itemsize && ok; i++) {
            ok = elem[i] == elem[i - per];
        }
        if (ok) {
            period = per;
            break;
        }
    }
    if (period == 1) {
        r = rt_cu.cuMemsetD8Async(p, elem[0], nbytes, s);
    } else if (period == 2) {
        unsigned short v;
        memcpy(&v, elem, 2);
        r = rt_cu.cuMemsetD16Async(p, v, nbytes / 2, s);
    } else if (period == 4) {
        unsigned v;
        memcpy(&v, elem, 4);
        r = rt_cu.cuMemsetD32Async(p, v, nbytes / 4, s);
    } else {
        size_t chunk = nbytes < HOST_FILL_CHUNK ? nbytes : HOST_FILL_CHUNK / (size_t)itemsize
                                                                * (size_t)itemsize;
        unsigned char *buf = malloc(chunk);
        if (!buf) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < chunk; i += (size_t)itemsize) {
            memcpy(buf + i, elem, (size_t)itemsize);
        }
        int ret = 0;
        for (size_t off = 0; off < nbytes && ret == 0; off += chunk) {
            ret = rt_htod(p + off, buf, nbytes - off < chunk ? nbytes - off : chunk, s);
        }
        free(buf);
        return ret;
    }
    return r == CUDA_SUCCESS ? 0 : rt_cuda_fail(r, "filling device memory");
}
