/* hostmem.c - memory both the host and the device address: managed memory
 * (cuMemAllocManaged) and mapped, page-locked host memory (cuMemHostAlloc
 * with DEVICEMAP).  cujit._hostmem wraps it as NumPy arrays that also carry
 * a __cuda_array_interface__ (Numba's managed_array / mapped_array). */
#include "rt_impl.h"

enum { HM_MANAGED = 0, HM_MAPPED = 1 };

static int
managed_alloc(size_t n, int attach_global, unsigned long long *host, unsigned long long *dev)
{
    CUdeviceptr p = 0;
    if (!rt_cu.cuMemAllocManaged) {
        PyErr_SetString(PyExc_NotImplementedError, "managed memory: this CUDA driver has no "
                        "cuMemAllocManaged");
        return -1;
    }
    CUresult r = rt_cu.cuMemAllocManaged(&p, n, attach_global ? CU_MEM_ATTACH_GLOBAL
                                                              : CU_MEM_ATTACH_HOST);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot allocate %zu bytes of managed memory", n);
    }
    *host = *dev = (unsigned long long)p;
    return 0;
}

static int
mapped_alloc(size_t n, int wc, unsigned long long *host, unsigned long long *dev)
{
    void *h = NULL;
    CUdeviceptr d = 0;
    if (!rt_cu.cuMemHostAlloc || !rt_cu.cuMemHostGetDevicePointer || !rt_cu.cuMemFreeHost) {
        PyErr_SetString(PyExc_NotImplementedError, "mapped memory: this CUDA driver has no "
                        "cuMemHostAlloc");
        return -1;
    }
    unsigned flags = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP
                     | (wc ? CU_MEMHOSTALLOC_WRITECOMBINED : 0);
    CUresult r = rt_cu.cuMemHostAlloc(&h, n, flags);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot allocate %zu bytes of mapped host memory", n);
    }
    r = rt_cu.cuMemHostGetDevicePointer(&d, h, 0);
    if (r != CUDA_SUCCESS) {
        rt_cu.cuMemFreeHost(h);
        return rt_cuda_fail(r, "cannot map %zu bytes of host memory into the device", n);
    }
    *host = (unsigned long long)(uintptr_t)h;
    *dev = (unsigned long long)d;
    return 0;
}

/* _host_alloc(kind, nbytes, flag) -> (host address, device address, device):
 * kind 0 managed (flag: attach globally), 1 mapped (flag: write-combined);
 * at least one byte is allocated */
PyObject *
rt_py_host_alloc(PyObject *self, PyObject *args)
{
    int kind, flag;
    Py_ssize_t n;
    unsigned long long host = 0, dev = 0;
    if (!PyArg_ParseTuple(args, "inp:_host_alloc", &kind, &n, &flag)) {
        return NULL;
    }
    int d = rt_ensure_context();
    if (d < 0) {
        return NULL;
    }
    size_t bytes = n > 0 ? (size_t)n : 1;
    int r = kind == HM_MANAGED ? managed_alloc(bytes, flag, &host, &dev)
                               : mapped_alloc(bytes, flag, &host, &dev);
    return r < 0 ? NULL : Py_BuildValue("KKi", host, dev, d);
}

static CUresult
host_free_once(int kind, unsigned long long host)
{
    if (kind == HM_MANAGED) {
        return rt_cu.cuMemFree((CUdeviceptr)host);
    }
    return rt_cu.cuMemFreeHost((void *)(uintptr_t)host);
}

/* _host_free(kind, host address, device): never raises (a finalizer's) */
PyObject *
rt_py_host_free(PyObject *self, PyObject *args)
{
    int kind, d, pushed;
    unsigned long long host;
    if (!PyArg_ParseTuple(args, "iKi:_host_free", &kind, &host, &d)) {
        return NULL;
    }
    if (rt_ctx_enter_quiet(d, &pushed) == 0) {
        /* tried twice: a finalizer has no other chance */
        for (int i = 0; i < 2 && host_free_once(kind, host) != CUDA_SUCCESS; i++) {
        }
        rt_ctx_leave(pushed);
    }
    Py_RETURN_NONE;
}
