/* ipc.c - CUDA IPC of pool memory (cujit._ipc holds the handles and passes
 * the pool's fd between processes): the export data of an allocation, the
 * pool's POSIX fd, the import of both in another process, and the free of
 * an imported pointer.  cujit's pools are created exportable where the
 * device supports it (driver.c, pool_init), so any array can be shared
 * without a copy; ARCHITECTURE.md, "CUDA IPC exports pool memory". */
#include <stdlib.h>
#include <string.h>

#include "rt_impl.h"

/* the device whose context is current, its pool exportable; -1 with
 * NotImplementedError saying why not */
static int
exporting_device(CUmemoryPool *pool)
{
    int exportable = 0, dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    *pool = rt_mem_pool(dev, &exportable);
    if (!exportable) {
        PyErr_Format(PyExc_NotImplementedError,
                     "CUDA IPC: device %d's memory pool is not exportable (%s); arrays can "
                     "be shared between processes only through host memory (copy_to_host)",
                     dev, rt_env_off(getenv("CUJIT_IPC")) ? "CUJIT_IPC is off"
                     : "the device or driver has no POSIX file descriptor handles for pools");
        return -1;
    }
    return dev;
}

/* the allocation holding addr: the driver's answer for memory cujit does
 * not own (a foreign array's view of cujit's); -1 with ValueError */
static int
allocation_of(unsigned long long addr, CUdeviceptr *base, size_t *size)
{
    CUresult r = rt_cu.cuMemGetAddressRange
                     ? rt_cu.cuMemGetAddressRange(base, size, (CUdeviceptr)addr)
                     : CUDA_ERROR_NOT_FOUND;
    if (r != CUDA_SUCCESS) {
        PyErr_Format(PyExc_ValueError, "CUDA IPC: 0x%llx is not an address of device memory "
                     "(cuMemGetAddressRange: %s)", addr, rt_cuda_errname(r));
        return -1;
    }
    return 0;
}

/* the pool of device dev as a POSIX fd, exported once and kept open (the
 * exporting process serves it to every importer); -1 with an exception.
 * The driver also refuses cuMemPoolExportPointer (CUDA_ERROR_INVALID_VALUE,
 * seen on the H100 with driver 580) until the pool itself was exported. */
static int
pool_fd(int dev, CUmemoryPool pool)
{
    RtDevice *d = rt_device(dev);
    if (!d) {
        return -1;
    }
    if (d->pool_fd < 0) {
        int fd = -1;
        CUresult r = rt_cu.cuMemPoolExportToShareableHandle(
            &fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
        if (r != CUDA_SUCCESS) {
            rt_cuda_fail(r, "CUDA IPC: cannot export the memory pool of device %d", dev);
            return -1;
        }
        d->pool_fd = fd;
    }
    return d->pool_fd;
}

/* _ipc_export(address, alloc, alloc_size) -> (export data, allocation base,
 * allocation size, device): the allocation of cujit's pool that holds
 * address; alloc / alloc_size give it when the caller knows it (an array
 * cujit owns), 0 asks the driver */
PyObject *
rt_py_ipc_export(PyObject *self, PyObject *args)
{
    unsigned long long addr, alloc = 0, alloc_size = 0;
    CUmemoryPool pool;
    CUdeviceptr base = (CUdeviceptr)alloc;
    size_t size = 0;
    RtPoolPtrExport data;
    if (!PyArg_ParseTuple(args, "K|KK:_ipc_export", &addr, &alloc, &alloc_size)) {
        return NULL;
    }
    int dev = exporting_device(&pool);
    if (dev < 0) {
        return NULL;
    }
    if (alloc) {
        base = (CUdeviceptr)alloc;
        size = (size_t)alloc_size;
    } else if (allocation_of(addr, &base, &size) < 0) {
        return NULL;
    }
    if (pool_fd(dev, pool) < 0) {
        return NULL;            /* the pool first: the driver wants it exported */
    }
    memset(&data, 0, sizeof data);
    CUresult r = rt_cu.cuMemPoolExportPointer(&data, base);
    if (r != CUDA_SUCCESS) {
        return PyErr_Format(PyExc_ValueError, "CUDA IPC: the memory at 0x%llx is not from "
                            "cujit's memory pool of device %d (%s), so it cannot be exported; "
                            "copy it into a cujit array first (cujit.cuda.to_device(a) or "
                            "a.copy())", addr, dev, rt_cuda_errname(r));
    }
    return Py_BuildValue("y#KKi", (const char *)data.reserved, (Py_ssize_t)sizeof data.reserved,
                         (unsigned long long)base, (unsigned long long)size, dev);
}

/* _ipc_pool_fd() -> the fd of the current device's pool (pool_fd) */
PyObject *
rt_py_ipc_pool_fd(PyObject *self, PyObject *args)
{
    CUmemoryPool pool;
    int dev = exporting_device(&pool);
    int fd = dev < 0 ? -1 : pool_fd(dev, pool);
    return fd < 0 ? NULL : PyLong_FromLong(fd);
}

/* the imported pool readable and writable from device dev: an imported
 * pool does not carry the access the exporter set, so it is asked and set
 * where missing (NVIDIA's streamOrderedAllocationIPC sample does the same) */
static int
pool_access(CUmemoryPool pool, int dev)
{
    RtMemAccessDesc desc;
    int flags = 0;
    memset(&desc, 0, sizeof desc);
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = dev;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (!rt_cu.cuMemPoolSetAccess || (rt_cu.cuMemPoolGetAccess
                                      && rt_cu.cuMemPoolGetAccess(&flags, pool, &desc.location)
                                             == CUDA_SUCCESS
                                      && flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)) {
        return 0;
    }
    CUresult r = rt_cu.cuMemPoolSetAccess(pool, &desc, 1);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "CUDA IPC: device %d cannot access the imported memory", dev);
    }
    return 0;
}

/* _ipc_import(pool, fd, export data) -> (pointer, pool):
 * the exporter's allocation in this process, accessible from the current
 * device; pool 0 imports the pool from fd first (the caller keeps it for
 * the next import) */
PyObject *
rt_py_ipc_import(PyObject *self, PyObject *args)
{
    unsigned long long pool_v;
    int fd;
    const char *bytes;
    Py_ssize_t n;
    RtPoolPtrExport data;
    CUdeviceptr p = 0;
    if (!PyArg_ParseTuple(args, "Kiy#:_ipc_import", &pool_v, &fd, &bytes, &n)) {
        return NULL;
    }
    if (n != (Py_ssize_t)sizeof data.reserved) {
        return PyErr_Format(PyExc_ValueError, "CUDA IPC: the handle's export data has %zd "
                            "bytes, not %zu", n, sizeof data.reserved);
    }
    int dev = rt_ensure_context();
    if (dev < 0) {
        return NULL;
    }
    if (!rt_cu.cuMemPoolImportFromShareableHandle || !rt_cu.cuMemPoolImportPointer) {
        PyErr_SetString(PyExc_NotImplementedError, "CUDA IPC: this CUDA driver cannot import "
                        "memory pools (cuMemPoolImportPointer is missing)");
        return NULL;
    }
    CUmemoryPool pool = (CUmemoryPool)(uintptr_t)pool_v;
    CUresult r;
    if (!pool) {
        r = rt_cu.cuMemPoolImportFromShareableHandle(
            &pool, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
        if (r != CUDA_SUCCESS) {
            rt_cuda_fail(r, "CUDA IPC: cannot import the exporting process's memory pool");
            return NULL;
        }
    }
    if (pool_access(pool, dev) < 0) {
        return NULL;
    }
    memcpy(data.reserved, bytes, sizeof data.reserved);
    r = rt_cu.cuMemPoolImportPointer(&p, pool, &data);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "CUDA IPC: cannot open the handle (is the array still alive in the "
                     "exporting process?)");
        return NULL;
    }
    return Py_BuildValue("KK", (unsigned long long)p, (unsigned long long)(uintptr_t)pool);
}

/* _ipc_close(pointer, device): frees an imported pointer (never raises) */
PyObject *
rt_py_ipc_close(PyObject *self, PyObject *args)
{
    unsigned long long p;
    int dev, pushed;
    if (!PyArg_ParseTuple(args, "Ki:_ipc_close", &p, &dev)) {
        return NULL;
    }
    if (rt_ctx_enter_quiet(dev, &pushed) == 0) {
        if (rt_cu.cuMemFree((CUdeviceptr)p) != CUDA_SUCCESS) {
            rt_cu.cuMemFree((CUdeviceptr)p);
        }
        rt_ctx_leave(pushed);
    }
    Py_RETURN_NONE;
}
