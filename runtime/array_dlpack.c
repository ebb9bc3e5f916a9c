/* array_dlpack.c - DeviceArray exported through DLPack: __dlpack__ (legacy
 * and versioned capsules) and __dlpack_device__. */
#include "rt_impl.h"

/* ---- DLPack export ---- */

typedef struct {
    union {
        RtDLManagedTensor legacy;
        RtDLManagedTensorVersioned versioned;
    } t;
    int64_t shape[RT_MAXDIM];
    int64_t strides[RT_MAXDIM];
} Export;

static void
release_owner(void *ctx)
{
    /* consumers may call the deleter from any thread, with or without the
     * GIL; after interpreter exit the reference is left */
    if (ctx && Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF((PyObject *)ctx);
        PyGILState_Release(g);
    }
}

static void
legacy_deleter(RtDLManagedTensor *m)
{
    release_owner(m->manager_ctx);
    free(m);
}

static void
versioned_deleter(RtDLManagedTensorVersioned *m)
{
    release_owner(m->manager_ctx);
    free(m);
}

static void
legacy_capsule_destructor(PyObject *cap)
{
    /* still named "dltensor": no consumer took it */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        RtDLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter) {
            m->deleter(m);
        }
    } else {
        PyErr_Clear();
    }
}

static void
versioned_capsule_destructor(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        RtDLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter) {
            m->deleter(m);
        }
    } else {
        PyErr_Clear();
    }
}

static void
fill_dltensor(RtDeviceArray *self, RtDLTensor *t, Export *e)
{
    int64_t itemsize = cj_dtypes[self->dtype].size;
    t->data = (void *)(uintptr_t)self->ptr;
    t->device.device_type = RT_kDLCUDA;
    t->device.device_id = self->device;
    t->ndim = self->ndim;
    rt_dtype_to_dlpack(self->dtype, &t->dtype.code, &t->dtype.bits);
    t->dtype.lanes = 1;
    for (int i = 0; i < self->ndim; i++) {
        e->shape[i] = self->shape[i];
        e->strides[i] = self->strides[i] / itemsize;
    }
    t->shape = e->shape;
    t->strides = e->strides;
    t->byte_offset = 0;
}

/* the consumer's stream (DLPack's convention) as a CUstream; *none: no sync */
static int
dlpack_stream(PyObject *o, CUstream *s, int *none)
{
    *none = 0;
    *s = RT_STREAM_LEGACY;
    if (o == NULL || o == Py_None) {
        return 0;
    }
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v == -1) {
        *none = 1;
    } else if (v == 2) {
        *s = RT_STREAM_PER_THREAD;
    } else if (v != 0 && v != 1) {
        *s = (CUstream)(uintptr_t)v;
    }
    return 0;
}

PyObject *
rt_DeviceArray_dlpack(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *so = NULL, *maxv = NULL, *dldev = NULL, *copy = NULL;
    CUstream s;
    int none, versioned = 0, pushed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__", kwlist, &so, &maxv, &dldev,
                                     &copy)) {
        return NULL;
    }
    if (dlpack_stream(so, &s, &none) < 0) {
        return NULL;
    }
    if (maxv && maxv != Py_None) {
        PyObject *major = PySequence_GetItem(maxv, 0);
        long m = major ? PyLong_AsLong(major) : -1;
        Py_XDECREF(major);
        if (m == -1 && PyErr_Occurred()) {
            return NULL;
        }
        versioned = m >= 1;
    }
    if (dldev && dldev != Py_None) {
        int dt, id;
        if (!PyArg_ParseTuple(dldev, "ii", &dt, &id)) {
            return NULL;
        }
        if (dt != RT_kDLCUDA || id != self->device) {
            PyErr_SetString(PyExc_BufferError, "cujit.DeviceArray can only be exported to "
                            "its own CUDA device");
            return NULL;
        }
    }
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "cujit.DeviceArray.__dlpack__ does not copy");
        return NULL;
    }
    if (!none) {
        if (rt_enter_device(self, &pushed, "__dlpack__") < 0) {
            return NULL;
        }
        int r = rt_stream_wait(self->device, s, self->stream);
        rt_ctx_leave(pushed);
        if (r < 0) {
            return NULL;
        }
    }
    Export *e = calloc(1, sizeof *e);
    if (!e) {
        return PyErr_NoMemory();
    }
    PyObject *cap;
    if (versioned) {
        RtDLManagedTensorVersioned *m = &e->t.versioned;
        m->version.major = 1;
        m->version.minor = 0;
        m->manager_ctx = self;
        m->deleter = versioned_deleter;
        m->flags = 0;
        fill_dltensor(self, &m->dl_tensor, e);
        cap = PyCapsule_New(m, "dltensor_versioned", versioned_capsule_destructor);
    } else {
        RtDLManagedTensor *m = &e->t.legacy;
        m->manager_ctx = self;
        m->deleter = legacy_deleter;
        fill_dltensor(self, &m->dl_tensor, e);
        cap = PyCapsule_New(m, "dltensor", legacy_capsule_destructor);
    }
    if (!cap) {
        free(e);
        return NULL;
    }
    Py_INCREF(self);            /* released by the deleter */
    return cap;
}

PyObject *
rt_DeviceArray_dlpack_device(RtDeviceArray *self, PyObject *noargs)
{
    return Py_BuildValue("(ii)", RT_kDLCUDA, self->device);
}
