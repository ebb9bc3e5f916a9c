/* stream.c - cujit.Stream, cujit.Event, and stream arguments from any
 * library (rt_get_stream). */
#include <string.h>

#include "rt_impl.h"
#include "structmember.h"

static PyObject *
interned(PyObject **slot, const char *s)
{
    if (!*slot) {
        *slot = PyUnicode_InternFromString(s);
    }
    return *slot;
}

static int
stream_from_int(PyObject *o, void **out)
{
    void *h = PyLong_AsVoidPtr(o);
    if (!h && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "invalid stream handle %R", o);
        return -1;
    }
    *out = h;
    return 0;
}

/* the CUDA stream protocol: __cuda_stream__() -> (version, handle) */
static int
stream_from_protocol(PyObject *o, PyObject *attr, void **out)
{
    PyObject *t = PyCallable_Check(attr) ? PyObject_CallNoArgs(attr) : Py_NewRef(attr);
    int r = -1;
    if (!t) {
        return -1;
    }
    if (PyTuple_Check(t) && PyTuple_GET_SIZE(t) == 2 && PyLong_Check(PyTuple_GET_ITEM(t, 1))) {
        r = stream_from_int(PyTuple_GET_ITEM(t, 1), out);
    } else {
        PyErr_Format(PyExc_TypeError, "%.100s.__cuda_stream__ must give (version, handle)",
                     Py_TYPE(o)->tp_name);
    }
    Py_DECREF(t);
    return r;
}

int
rt_get_stream(PyObject *o, void **out)
{
    static PyObject *s_proto, *s_cuda_stream, *s_ptr, *s_handle;
    PyObject *names[4], *a;
    *out = NULL;
    if (o == NULL || o == Py_None) {
        return 0;
    }
    if (PyObject_TypeCheck(o, &rt_Stream_Type)) {    /* cujit.cuda.Stream too */
        *out = ((RtStream *)o)->handle;
        return 0;
    }
    if (PyLong_Check(o)) {
        return stream_from_int(o, out);
    }
    names[0] = interned(&s_proto, "__cuda_stream__");
    names[1] = interned(&s_cuda_stream, "cuda_stream");      /* torch.cuda.Stream */
    names[2] = interned(&s_ptr, "ptr");                      /* cupy.cuda.Stream */
    names[3] = interned(&s_handle, "handle");                /* numba (ctypes c_void_p) */
    for (int i = 0; i < 4; i++) {
        if (!names[i]) {
            return -1;
        }
        a = PyObject_GetAttr(o, names[i]);
        if (!a) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
                return -1;
            }
            PyErr_Clear();
            continue;
        }
        int r;
        if (i == 0) {
            r = stream_from_protocol(o, a, out);
        } else if (PyLong_Check(a)) {
            r = stream_from_int(a, out);
        } else if (i == 3 && PyObject_HasAttrString(a, "value")) {
            PyObject *v = PyObject_GetAttrString(a, "value");
            r = !v ? -1 : v == Py_None ? 0 : stream_from_int(v, out);
            Py_XDECREF(v);
        } else {
            Py_DECREF(a);
            continue;
        }
        Py_DECREF(a);
        return r;
    }
    PyErr_Format(PyExc_TypeError,
                 "expected a stream (None, an int handle, cujit.Stream, or an object with "
                 "__cuda_stream__, .cuda_stream or .ptr), got %.100s", Py_TYPE(o)->tp_name);
    return -1;
}

/* ---- cujit.Stream ---- */

static PyObject *
Stream_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"non_blocking", NULL};
    int non_blocking = 0;
    CUstream h;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:Stream", kwlist, &non_blocking)) {
        return NULL;
    }
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("cannot create a stream");
        return NULL;
    }
    CUresult r = rt_cu.cuStreamCreate(&h, non_blocking ? CU_STREAM_NON_BLOCKING : 0);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cannot create a stream");
        return NULL;
    }
    RtStream *s = (RtStream *)type->tp_alloc(type, 0);
    if (!s) {
        rt_cu.cuStreamDestroy(h);
        return NULL;
    }
    s->handle = h;
    s->device = dev;
    s->owned = 1;
    return (PyObject *)s;
}

static void
Stream_dealloc(RtStream *self)
{
    int pushed;
    if (self->owned && self->handle && rt_ctx_enter_quiet(self->device, &pushed) == 0) {
        /* pending work still completes; a failure is tried once more (a
         * dealloc cannot raise) */
        if (rt_cu.cuStreamDestroy(self->handle) != CUDA_SUCCESS) {
            rt_cu.cuStreamDestroy(self->handle);
        }
        rt_ctx_leave(pushed);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Stream_handle(RtStream *self, void *c)
{
    return PyLong_FromVoidPtr(self->handle);
}

static PyObject *
Stream_synchronize(RtStream *self, PyObject *noargs)
{
    CUresult r;
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuStreamSynchronize(self->handle);
    Py_END_ALLOW_THREADS
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "synchronizing stream %p", (void *)self->handle);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Stream_query(RtStream *self, PyObject *noargs)
{
    CUresult r = rt_cu.cuStreamQuery(self->handle);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) {
        return PyBool_FromLong(r == CUDA_SUCCESS);
    }
    rt_cuda_fail(r, "querying stream %p", (void *)self->handle);
    return NULL;
}

typedef struct {
    PyObject_HEAD
    CUevent handle;
    int device;
} EventObject;

static PyObject *
Stream_wait_event(RtStream *self, PyObject *ev)
{
    if (!PyObject_TypeCheck(ev, &rt_Event_Type)) {
        PyErr_SetString(PyExc_TypeError, "wait_event() takes a cujit.Event");
        return NULL;
    }
    CUresult r = rt_cu.cuStreamWaitEvent(self->handle, ((EventObject *)ev)->handle, 0);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cuStreamWaitEvent failed");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Stream_cuda_stream(RtStream *self, PyObject *noargs)
{
    return Py_BuildValue("(iN)", 0, PyLong_FromVoidPtr(self->handle));
}

static PyObject *
Stream_repr(RtStream *self)
{
    return PyUnicode_FromFormat("<cujit.Stream %p on device %d>", (void *)self->handle,
                                self->device);
}

static PyGetSetDef Stream_getset[] = {
    {"handle", (getter)Stream_handle, NULL, "the CUstream as an int", NULL},
    {"ptr", (getter)Stream_handle, NULL, "the CUstream as an int (CuPy's name)", NULL},
    {NULL},
};

static PyMethodDef Stream_methods[] = {
    {"synchronize", (PyCFunction)Stream_synchronize, METH_NOARGS, "wait for the stream's work"},
    {"query", (PyCFunction)Stream_query, METH_NOARGS, "True when all its work is done"},
    {"wait_event", (PyCFunction)Stream_wait_event, METH_O,
     "make later work on this stream wait for the event"},
    {"__cuda_stream__", (PyCFunction)Stream_cuda_stream, METH_NOARGS,
     "CUDA stream protocol: (0, handle)"},
    {NULL},
};

PyTypeObject rt_Stream_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Stream",
    .tp_basicsize = sizeof(RtStream),
    .tp_dealloc = (destructor)Stream_dealloc,
    .tp_repr = (reprfunc)Stream_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,   /* cujit.cuda.Stream */
    .tp_doc = "Stream(non_blocking=False): a CUDA stream on the current device.",
    .tp_new = Stream_new,
    .tp_getset = Stream_getset,
    .tp_methods = Stream_methods,
};

/* ---- cujit.Event ---- */

static PyObject *
Event_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"timing", "blocking", NULL};
    int timing = 1, blocking = 0;
    CUevent h;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp:Event", kwlist, &timing, &blocking)) {
        return NULL;
    }
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("cannot create an event");
        return NULL;
    }
    unsigned flags = (timing ? 0 : CU_EVENT_DISABLE_TIMING) | (blocking ? CU_EVENT_BLOCKING_SYNC : 0);
    CUresult r = rt_cu.cuEventCreate(&h, flags);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cannot create an event");
        return NULL;
    }
    EventObject *e = (EventObject *)type->tp_alloc(type, 0);
    if (!e) {
        rt_cu.cuEventDestroy(h);
        return NULL;
    }
    e->handle = h;
    e->device = dev;
    return (PyObject *)e;
}

static void
Event_dealloc(EventObject *self)
{
    int pushed;
    if (self->handle && rt_ctx_enter_quiet(self->device, &pushed) == 0) {
        if (rt_cu.cuEventDestroy(self->handle) != CUDA_SUCCESS) {
            rt_cu.cuEventDestroy(self->handle);     /* once more: a dealloc cannot raise */
        }
        rt_ctx_leave(pushed);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Event_record(EventObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *so = Py_None;
    void *s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:record", kwlist, &so)
        || rt_get_stream(so, &s) < 0) {
        return NULL;
    }
    CUresult r = rt_cu.cuEventRecord(self->handle, s);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "recording an event");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Event_wait(EventObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *so = Py_None;
    void *s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kwlist, &so)
        || rt_get_stream(so, &s) < 0) {
        return NULL;
    }
    CUresult r = rt_cu.cuStreamWaitEvent(s, self->handle, 0);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cuStreamWaitEvent failed");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Event_synchronize(EventObject *self, PyObject *noargs)
{
    CUresult r;
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuEventSynchronize(self->handle);
    Py_END_ALLOW_THREADS
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "synchronizing an event");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Event_query(EventObject *self, PyObject *noargs)
{
    CUresult r = rt_cu.cuEventQuery(self->handle);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) {
        return PyBool_FromLong(r == CUDA_SUCCESS);
    }
    rt_cuda_fail(r, "querying an event");
    return NULL;
}

/* start.elapsed_time(end) -> milliseconds (both recorded and completed) */
static PyObject *
Event_elapsed_time(EventObject *self, PyObject *end)
{
    float ms = 0;
    if (!PyObject_TypeCheck(end, &rt_Event_Type)) {
        PyErr_SetString(PyExc_TypeError, "elapsed_time() takes a cujit.Event");
        return NULL;
    }
    CUresult r = rt_cu.cuEventElapsedTime(&ms, self->handle, ((EventObject *)end)->handle);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "elapsed_time");
        return NULL;
    }
    return PyFloat_FromDouble(ms);
}

static PyObject *
Event_handle(EventObject *self, void *c)
{
    return PyLong_FromVoidPtr(self->handle);
}

static PyGetSetDef Event_getset[] = {
    {"handle", (getter)Event_handle, NULL, "the CUevent as an int", NULL},
    {"ptr", (getter)Event_handle, NULL, "the CUevent as an int (CuPy's name)", NULL},
    {NULL},
};

static PyMethodDef Event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))Event_record, METH_VARARGS | METH_KEYWORDS,
     "record(stream=None): record the event on a stream"},
    {"wait", (PyCFunction)(void (*)(void))Event_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(stream=None): make the stream's later work wait for the event"},
    {"synchronize", (PyCFunction)Event_synchronize, METH_NOARGS, "wait for the event"},
    {"query", (PyCFunction)Event_query, METH_NOARGS, "True when the event has completed"},
    {"elapsed_time", (PyCFunction)Event_elapsed_time, METH_O,
     "start.elapsed_time(end): milliseconds between the two recorded events"},
    {NULL},
};

PyTypeObject rt_Event_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Event",
    .tp_basicsize = sizeof(EventObject),
    .tp_dealloc = (destructor)Event_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Event(timing=True, blocking=False): a CUDA event on the current device.",
    .tp_new = Event_new,
    .tp_getset = Event_getset,
    .tp_methods = Event_methods,
};
