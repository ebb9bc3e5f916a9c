/* device.c - cujit.Device: a CUDA device as Python sees it (name, compute
 * capability, memory, Numba's attributes dev.WARP_SIZE ..., a context
 * manager that makes it current), the module-level get_device and
 * device_count, and a thread's current context handed to another thread
 * (_current_context, _set_context). */
#include <string.h>

#include "rt_impl.h"
#include "structmember.h"

#define DEVICE_STACK 16

typedef struct {
    PyObject_HEAD
    int id;
    int nsaved;
    CUcontext saved[DEVICE_STACK];      /* contexts __enter__ replaced */
} DeviceObject;

PyObject *
rt_device_object(int id)
{
    DeviceObject *d = PyObject_New(DeviceObject, &rt_Device_Type);
    if (d) {
        d->id = id;
        d->nsaved = 0;
    }
    return (PyObject *)d;
}

static PyObject *
Device_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"device", NULL};
    PyObject *o = Py_None;
    int id;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Device", kwlist, &o)) {
        return NULL;
    }
    if (o == Py_None) {
        id = rt_ensure_context();
        if (id < 0) {
            return NULL;
        }
    } else {
        id = rt_as_int(o);
        if (id == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (!rt_device(id)) {
            return NULL;
        }
    }
    DeviceObject *d = (DeviceObject *)type->tp_alloc(type, 0);
    if (d) {
        d->id = id;
    }
    return (PyObject *)d;
}

static PyObject *
Device_name(DeviceObject *self, void *closure)
{
    RtDevice *d = rt_device(self->id);
    if (!d) {
        return NULL;
    }
    if (!d->name[0]) {
        CUresult r = rt_cu.cuDeviceGetName(d->name, (int)sizeof d->name - 1, d->dev);
        if (r != CUDA_SUCCESS) {
            d->name[0] = '\0';
            rt_cuda_fail(r, "cannot read the name of device %d", self->id);
            return NULL;
        }
    }
    return PyUnicode_FromString(d->name);
}

static int
read_cc(int id, RtDevice **out)
{
    RtDevice *d = rt_device(id);
    if (!d) {
        return -1;
    }
    if (rt_device_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d->cc_major) < 0) {
        return -1;
    }
    /* minor may legitimately be 0: read it whenever major was just read */
    CUresult r = rt_cu.cuDeviceGetAttribute(&d->cc_minor,
                                            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot read the compute capability of device %d", id);
    }
    *out = d;
    return 0;
}

static PyObject *
Device_compute_capability(DeviceObject *self, void *closure)
{
    RtDevice *d;
    if (read_cc(self->id, &d) < 0) {
        return NULL;
    }
    return Py_BuildValue("(ii)", d->cc_major, d->cc_minor);
}

static PyObject *
Device_arch(DeviceObject *self, void *closure)
{
    RtDevice *d;
    if (read_cc(self->id, &d) < 0) {
        return NULL;
    }
    return PyUnicode_FromFormat("sm_%d%d", d->cc_major, d->cc_minor);
}

static PyObject *
Device_total_memory(DeviceObject *self, void *closure)
{
    size_t n = 0;
    RtDevice *d = rt_device(self->id);
    if (!d) {
        return NULL;
    }
    CUresult r = rt_cu.cuDeviceTotalMem(&n, d->dev);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cannot read the memory size of device %d", self->id);
        return NULL;
    }
    return PyLong_FromSize_t(n);
}

/* one CU_DEVICE_ATTRIBUTE_* of the device, as a Python int */
static PyObject *
device_attribute(DeviceObject *self, int attr, const char *what)
{
    int v = 0;
    RtDevice *d = rt_device(self->id);
    if (!d) {
        return NULL;
    }
    CUresult r = rt_cu.cuDeviceGetAttribute(&v, attr, d->dev);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cannot read device %d's %s", self->id, what);
        return NULL;
    }
    return PyLong_FromLong(v);
}

static PyObject *
Device_multiprocessor_count(DeviceObject *self, void *closure)
{
    return device_attribute(self, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                            "multiprocessor count");
}

/* Numba's device attributes, dev.WARP_SIZE ...: the names of cuda.h's
 * CU_DEVICE_ATTRIBUTE_<NAME> that users size launches with, and their codes */
static const struct {
    const char *name;
    int attr;
} numba_attrs[] = {
    {"MAX_THREADS_PER_BLOCK", 1}, {"MAX_BLOCK_DIM_X", 2}, {"MAX_BLOCK_DIM_Y", 3},
    {"MAX_BLOCK_DIM_Z", 4}, {"MAX_GRID_DIM_X", 5}, {"MAX_GRID_DIM_Y", 6},
    {"MAX_GRID_DIM_Z", 7}, {"MAX_SHARED_MEMORY_PER_BLOCK", 8}, {"TOTAL_CONSTANT_MEMORY", 9},
    {"WARP_SIZE", 10}, {"MAX_REGISTERS_PER_BLOCK", 12}, {"CLOCK_RATE", 13},
    {"MULTIPROCESSOR_COUNT", 16}, {"KERNEL_EXEC_TIMEOUT", 17}, {"INTEGRATED", 18},
    {"CAN_MAP_HOST_MEMORY", 19}, {"COMPUTE_MODE", 20}, {"CONCURRENT_KERNELS", 31},
    {"ECC_ENABLED", 32}, {"PCI_BUS_ID", 33}, {"PCI_DEVICE_ID", 34},
    {"MEMORY_CLOCK_RATE", 36}, {"GLOBAL_MEMORY_BUS_WIDTH", 37}, {"L2_CACHE_SIZE", 38},
    {"MAX_THREADS_PER_MULTIPROCESSOR", 39}, {"ASYNC_ENGINE_COUNT", 40},
    {"UNIFIED_ADDRESSING", 41}, {"PCI_DOMAIN_ID", 50}, {"COMPUTE_CAPABILITY_MAJOR", 75},
    {"COMPUTE_CAPABILITY_MINOR", 76}, {"MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 81},
    {"MAX_REGISTERS_PER_MULTIPROCESSOR", 82}, {"MANAGED_MEMORY", 83},
    {"COOPERATIVE_LAUNCH", 95}, {"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", 97},
};

/* dev.NAME: the device's own attributes, else one of numba_attrs (Numba's
 * Device reads any CU_DEVICE_ATTRIBUTE_ name so) */
static PyObject *
Device_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError) || !PyUnicode_Check(name)) {
        return r;
    }
    const char *s = PyUnicode_AsUTF8(name);
    for (size_t i = 0; s && i < sizeof numba_attrs / sizeof numba_attrs[0]; i++) {
        if (strcmp(s, numba_attrs[i].name) == 0) {
            PyErr_Clear();
            return device_attribute((DeviceObject *)self, numba_attrs[i].attr, s);
        }
    }
    return NULL;
}

static PyObject *
Device_enter(DeviceObject *self, PyObject *noargs)
{
    CUcontext prev = NULL;
    if (self->nsaved == DEVICE_STACK) {
        PyErr_SetString(PyExc_RuntimeError, "cujit.Device entered too many times");
        return NULL;
    }
    if (rt_driver_init() < 0) {
        return NULL;
    }
    CUresult r = rt_cu.cuCtxGetCurrent(&prev);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cuCtxGetCurrent failed");
        return NULL;
    }
    if (rt_set_device(self->id) < 0) {
        return NULL;
    }
    self->saved[self->nsaved++] = prev;
    return Py_NewRef(self);
}

static PyObject *
Device_exit(DeviceObject *self, PyObject *args)
{
    if (self->nsaved > 0) {
        CUcontext prev = self->saved[--self->nsaved];
        CUresult r = rt_ctx_restore(prev);
        if (r != CUDA_SUCCESS) {
            rt_cuda_fail(r, "cannot restore the previous CUDA context");
            return NULL;
        }
    }
    Py_RETURN_FALSE;
}

static PyObject *
Device_use(DeviceObject *self, PyObject *noargs)
{
    if (rt_set_device(self->id) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Device_synchronize(DeviceObject *self, PyObject *noargs)
{
    int pushed;
    CUresult r;
    if (!rt_device(self->id)) {
        return NULL;
    }
    if (rt_ensure_context() < 0) {
        return NULL;
    }
    if (rt_ctx_enter_quiet(self->id, &pushed) < 0) {
        PyErr_Format(rt_CudaError, "cannot make device %d current", self->id);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuCtxSynchronize();
    Py_END_ALLOW_THREADS
    rt_ctx_leave(pushed);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "synchronizing device %d", self->id);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Device_repr(DeviceObject *self)
{
    return PyUnicode_FromFormat("<cujit.Device %d>", self->id);
}

static PyObject *
Device_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &rt_Device_Type) || (op != Py_EQ && op != Py_NE)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    int eq = ((DeviceObject *)a)->id == ((DeviceObject *)b)->id;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t
Device_hash(DeviceObject *self)
{
    return self->id + 1;        /* -1 is reserved */
}

static PyObject *
Device_index(DeviceObject *self)
{
    return PyLong_FromLong(self->id);
}

static PyNumberMethods Device_as_number = {
    .nb_index = (unaryfunc)Device_index,
    .nb_int = (unaryfunc)Device_index,
};

static PyMemberDef Device_members[] = {
    {"id", T_INT, offsetof(DeviceObject, id), READONLY, "device ordinal"},
    {NULL},
};

static PyGetSetDef Device_getset[] = {
    {"name", (getter)Device_name, NULL, "the GPU's name", NULL},
    {"compute_capability", (getter)Device_compute_capability, NULL, "(major, minor)", NULL},
    {"arch", (getter)Device_arch, NULL, "\"sm_90\" for compute capability 9.0", NULL},
    {"total_memory", (getter)Device_total_memory, NULL, "bytes of device memory", NULL},
    {"multiprocessor_count", (getter)Device_multiprocessor_count, NULL, "SM count", NULL},
    {NULL},
};

/* d.reset(): Numba's Device.reset() destroys the device's primary context,
 * and with it every allocation; cujit keeps its context, so that live arrays
 * and loaded kernels stay valid, and does what reset is called for: waits for
 * the device and gives the memory its pools hold unused back to the driver
 * (cujit.release_memory()) */
static PyObject *
Device_reset(DeviceObject *self, PyObject *noargs)
{
    PyObject *r = Device_synchronize(self, noargs);
    if (!r) {
        return NULL;
    }
    Py_DECREF(r);
    return rt_py_release_memory(NULL, NULL);
}

static PyMethodDef Device_methods[] = {
    {"__enter__", (PyCFunction)Device_enter, METH_NOARGS, "make this device current"},
    {"__exit__", (PyCFunction)Device_exit, METH_VARARGS, "restore the previous device"},
    {"use", (PyCFunction)Device_use, METH_NOARGS, "make this device current"},
    {"synchronize", (PyCFunction)Device_synchronize, METH_NOARGS,
     "wait for all work on this device"},
    {"reset", (PyCFunction)Device_reset, METH_NOARGS,
     "Numba's reset(): wait for the device, give unused pool memory back (the context, "
     "live arrays and kernels stay)"},
    {NULL},
};

PyTypeObject rt_Device_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Device",
    .tp_basicsize = sizeof(DeviceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Device(device=None): a CUDA device; as a context manager, makes it "
              "current (its primary context) and restores the previous one on exit.",
    .tp_new = Device_new,
    .tp_repr = (reprfunc)Device_repr,
    .tp_richcompare = Device_richcompare,
    .tp_hash = (hashfunc)Device_hash,
    .tp_as_number = &Device_as_number,
    .tp_members = Device_members,
    .tp_getset = Device_getset,
    .tp_getattro = Device_getattro,
    .tp_methods = Device_methods,
};

PyObject *
rt_py_get_device(PyObject *self, PyObject *noargs)
{
    int id = rt_ensure_context();
    return id < 0 ? NULL : rt_device_object(id);
}

/* _current_context() -> int: the calling thread's current CUDA context (made
 * current first, as a launch would), for _set_context in another thread: the
 * stdlib's helper threads compile and load into the caller's context, not
 * into the primary context of device 0 that a new thread would get */
PyObject *
rt_py_current_context(PyObject *self, PyObject *noargs)
{
    CUcontext c = NULL;
    if (rt_ensure_context() < 0) {
        return NULL;
    }
    CUresult r = rt_cu.cuCtxGetCurrent(&c);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cuCtxGetCurrent failed");
        return NULL;
    }
    return PyLong_FromVoidPtr(c);
}

/* _set_context(handle): makes a context from _current_context() current in
 * the calling thread */
PyObject *
rt_py_set_context(PyObject *self, PyObject *handle)
{
    void *c = PyLong_AsVoidPtr(handle);
    if (!c) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "_set_context() needs a handle from "
                            "_current_context()");
        }
        return NULL;
    }
    if (rt_driver_init() < 0) {         /* not rt_ensure_context: it would make a
                                         * context of device 0 current first */
        return NULL;
    }
    CUresult r = rt_ctx_restore((CUcontext)c);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cuCtxSetCurrent failed");
        return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
rt_py_device_count(PyObject *self, PyObject *noargs)
{
    int n = rt_device_count();
    return n < 0 ? NULL : PyLong_FromLong(n);
}
