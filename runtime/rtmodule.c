/* rtmodule.c - what the runtime adds to the cujit extension module. */
#include "rt_impl.h"

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

/* _array_info(a): (device pointer, shape, byte strides, dtype name) as a
 * launch reads them (for tests) */
static PyObject *
rt_py_array_info(PyObject *self, PyObject *o)
{
    RtArray a;
    (void)self;
    if (rt_get_array(o, &a, NULL, "_array_info") < 0) {
        return NULL;
    }
    PyObject *shape = PyTuple_New(a.ndim), *strides = PyTuple_New(a.ndim), *r = NULL;
    for (int i = 0; shape && strides && i < a.ndim; i++) {
        PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(a.shape[i]));
        PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(a.strides[i]));
    }
    if (shape && strides && !PyErr_Occurred()) {
        r = Py_BuildValue("(KOOs)", (unsigned long long)(uintptr_t)a.ptr, shape, strides,
                          cj_dtypes[a.dtype].name);
    }
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    if (rt_array_release(&a, NULL, 0) < 0) {
        Py_CLEAR(r);
    }
    return r;
}

/* _cupy_fields(a): how CuPy arrays of a's type are read (for tests) */
static PyObject *
rt_py_cupy_fields(PyObject *self, PyObject *o)
{
    (void)self;
    return PyUnicode_FromString(rt_cupy_fields_state(o));
}

static PyMethodDef rt_functions[] = {
    {"to_device", FN(rt_py_to_device), KW,
     "to_device(obj, stream=None): a new DeviceArray holding a copy of obj"},
    {"_as_device_array", rt_py_as_device_array, METH_VARARGS,
     "_as_device_array(obj, stream=None): a DeviceArray over another library's device array "
     "(its methods' default stream: stream), no copy "
     "(cujit.cuda.as_cuda_array)"},
    {"empty", FN(rt_py_empty), KW,
     "empty(shape, dtype=float64, order='C', stream=None): an uninitialised DeviceArray"},
    {"zeros", FN(rt_py_zeros), KW, "zeros(shape, dtype=float64, order='C', stream=None)"},
    {"ones", FN(rt_py_ones), KW, "ones(shape, dtype=float64, order='C', stream=None)"},
    {"full", FN(rt_py_full), KW,
     "full(shape, fill_value, dtype=None, order='C', stream=None): dtype from the value "
     "when None (bool, int64, float64, complex128 or a NumPy scalar's)"},
    {"empty_like", FN(rt_py_empty_like), KW, "empty_like(a, dtype=None, order='K', stream=None)"},
    {"zeros_like", FN(rt_py_zeros_like), KW, "zeros_like(a, dtype=None, order='K', stream=None)"},
    {"ones_like", FN(rt_py_ones_like), KW, "ones_like(a, dtype=None, order='K', stream=None)"},
    {"full_like", FN(rt_py_full_like), KW,
     "full_like(a, fill_value, dtype=None, order='K', stream=None)"},
    {"asnumpy", FN(rt_py_asnumpy), KW,
     "asnumpy(a, stream=None): a NumPy array with the data of any array"},
    {"synchronize", rt_py_synchronize, METH_NOARGS, "wait for all work on the current device"},
    {"get_device", rt_py_get_device, METH_NOARGS, "the current cujit.Device"},
    {"device_count", rt_py_device_count, METH_NOARGS, "the number of CUDA devices"},
    {"_current_context", rt_py_current_context, METH_NOARGS,
     "_current_context() -> int: this thread's current CUDA context, for _set_context"},
    {"_set_context", rt_py_set_context, METH_O,
     "_set_context(handle): make a context from _current_context() current in this thread"},
    {"release_memory", rt_py_release_memory, METH_NOARGS,
     "synchronize, then give the memory cujit's pools hold but do not use back to the driver"},
    {"memory_info", rt_py_memory_info, METH_NOARGS,
     "dict(device, pool, used, reserved, free, total): bytes of the current device"},
    {"cache_info", rt_py_cache_info, METH_NOARGS,
     "dict(dir, enabled, entries, bytes, hits, misses, rejected, prebuilt_hits) of the "
     "kernel disk cache"},
    {"clear_cache", rt_py_clear_cache, METH_NOARGS,
     "remove cujit's files from the disk cache; returns how many"},
    {"_cache_key", rt_py_cache_key, METH_VARARGS,
     "_cache_key(src, name, key_extra='', arch='sm_90', options=()) -> 32 hex digits"},
    {"_set_prebuilt", rt_py_set_prebuilt, METH_VARARGS,
     "_set_prebuilt(store_dir | None, package_dir): the prebuilt store read before NVRTC"},
    {"_cache_store", rt_py_cache_store, METH_VARARGS,
     "_cache_store(dir, key, cubin, ptx) -> path of the entry written"},
    {"_cache_load", rt_py_cache_load, METH_VARARGS,
     "_cache_load(dir, key) -> (cubin, ptx) or None when no sound entry exists"},
    {"_nvrtc_compile", FN(rt_py_nvrtc_compile), KW,
     "_nvrtc_compile(src, name, arch='compute_75', cubin=False, options=(), return_log=False)"
     " -> (ptx, cubin or None, ms), or the log on a compile error with return_log"},
    {"_nvrtc_version", rt_py_nvrtc_version, METH_NOARGS, "(major, minor) of NVRTC"},
    {"_link_blob", rt_py_link_blob, METH_VARARGS,
     "_link_blob(kind, data, name) -> the marker line naming code to link (runtime/link.c)"},
    {"_nvrtc_supported_archs", rt_py_nvrtc_supported_archs, METH_NOARGS,
     "the compute capabilities NVRTC compiles for, as major*10 + minor"},
    {"_loaded_kernels", rt_py_loaded_kernels, METH_NOARGS,
     "the number of kernels loaded in this process (the runtime's memory cache)"},
    {"_nvrtc_preload_state", rt_py_nvrtc_preload_state, METH_NOARGS,
     "the background NVRTC preload: 'idle', 'running' or 'done'"},
    {"_launch_raw", FN(rt_py_launch_raw), KW,
     "_launch_raw(src, name, grid, block, args, shmem=0, stream=None, key_extra='', "
     "check=True) -> (hit, error record or None)"},
    {"_array_info", rt_py_array_info, METH_O,
     "_array_info(a) -> (device pointer, shape, byte strides, dtype name) as a launch reads a"},
    {"_cupy_fields", rt_py_cupy_fields, METH_O,
     "_cupy_fields(a): how CuPy arrays of a's type are read: 'learning', 'verifying', "
     "'on' (the fields in place), 'off' (the attributes) or 'not a CuPy array'"},
    {"_ipc_export", rt_py_ipc_export, METH_VARARGS,
     "_ipc_export(address): (export data, allocation base, size, device) for CUDA IPC"},
    {"_ipc_pool_fd", rt_py_ipc_pool_fd, METH_NOARGS, "the current device's pool as a POSIX fd"},
    {"_ipc_import", rt_py_ipc_import, METH_VARARGS,
     "_ipc_import(pool, fd, export data): (pointer, pool) of another process's memory"},
    {"_ipc_close", rt_py_ipc_close, METH_VARARGS, "_ipc_close(pointer, device): free an import"},
    {"_host_alloc", rt_py_host_alloc, METH_VARARGS,
     "_host_alloc(kind, nbytes, flag): managed (0) or mapped (1) memory"},
    {"_host_free", rt_py_host_free, METH_VARARGS, "_host_free(kind, host address, device)"},
    {"_set_array_ops", rt_py_set_array_ops, METH_O,
     "_set_array_ops(dict): the Python callables behind DeviceArray's operators and "
     "stdlib methods (registered by cujit._stdlib); _set_array_ops(callable): what "
     "registers them, called at their first use (registered by import cujit)"},
    {NULL},
};

static int
add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0) {
        return -1;
    }
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

static int
add_exceptions(PyObject *m)
{
    PyObject *bases = NULL;
    if (!rt_CudaError) {
        rt_CudaError = PyErr_NewExceptionWithDoc(
            "cujit.CudaError",
            "A CUDA driver, NVRTC or device failure (no driver, out of memory, a faulting kernel).",
            PyExc_RuntimeError, NULL);
        if (!rt_CudaError) {
            return -1;
        }
    }
    if (!rt_OutOfMemoryError) {
        bases = PyTuple_Pack(2, rt_CudaError, PyExc_MemoryError);
        if (!bases) {
            return -1;
        }
        rt_OutOfMemoryError = PyErr_NewExceptionWithDoc(
            "cujit.OutOfMemoryError", "Device memory ran out (a CudaError and a MemoryError).",
            bases, NULL);
        Py_DECREF(bases);
        if (!rt_OutOfMemoryError) {
            return -1;
        }
    }
    if (PyModule_AddObject(m, "CudaError", Py_NewRef(rt_CudaError)) < 0) {
        Py_DECREF(rt_CudaError);
        return -1;
    }
    if (PyModule_AddObject(m, "OutOfMemoryError", Py_NewRef(rt_OutOfMemoryError)) < 0) {
        Py_DECREF(rt_OutOfMemoryError);
        return -1;
    }
    return 0;
}

int
rt_add_types(PyObject *module)
{
    if (add_exceptions(module) < 0 || add_type(module, &rt_DeviceArray_Type, "DeviceArray") < 0
        || add_type(module, &rt_Stream_Type, "Stream") < 0
        || add_type(module, &rt_Event_Type, "Event") < 0
        || add_type(module, &rt_Device_Type, "Device") < 0
        || PyModule_AddFunctions(module, rt_functions) < 0) {
        return -1;
    }
    /* DeviceArray's __array_ufunc__ (a method forwarded to cujit._stdlib)
     * takes NumPy's ufuncs and ndarray's operators (ndarray + DeviceArray)
     * onto the device */
    return 0;
}
