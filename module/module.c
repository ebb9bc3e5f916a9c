/* module.c - the extension module cujit._cujit. */
#include "module.h"

static PyObject *
py_transpile(PyObject *self, PyObject *args)
{
    /* _transpile(func, sig): CUDA C++ from a fresh kernel object, nothing cached */
    PyObject *func, *sig;
    if (!PyArg_ParseTuple(args, "OU:_transpile", &func, &sig)) {
        return NULL;
    }
    PyObject *k = PyObject_CallFunctionObjArgs((PyObject *)&KernelType, func, NULL);
    if (!k) {
        return NULL;
    }
    PyObject *r = PyObject_CallMethod(k, "inspect_cuda", "O", sig);
    Py_DECREF(k);
    return r;
}

static PyObject *
py_promote(PyObject *self, PyObject *args)
{
    int a, b;
    if (!PyArg_ParseTuple(args, "ii:_promote", &a, &b)) {
        return NULL;
    }
    if (a < 0 || a >= DT_COUNT || b < 0 || b >= DT_COUNT) {
        PyErr_SetString(PyExc_ValueError, "dtype index out of range");
        return NULL;
    }
    return PyUnicode_FromString(cj_dtypes[cj_promote_dt((DType)a, (DType)b)].name);
}

/* _set_import_ms(ms): how long `import cujit` took, for CUJIT_LOG's first line */
static PyObject *
py_set_import_ms(PyObject *self, PyObject *ms)
{
    double v = PyFloat_AsDouble(ms);
    if (v == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    pl_set_import_ms(v);
    Py_RETURN_NONE;
}

/* _intrinsics(): {name: signature letters} of the intrinsics ("fp16.hadd",
 * "libdevice.sin", ...: common/intrin.c), for cujit.cuda's namespaces */
static PyObject *
py_intrinsics(PyObject *self, PyObject *unused)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < cj_nintrins; i++) {
        PyObject *v = PyUnicode_FromString(cj_intrins[i].sig);
        if (!v || PyDict_SetItemString(d, cj_intrins[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(v);
    }
    return d;
}

/* _record_code(dtype): (code, text): the name a signature string gives a
 * record dtype ("rec_<12 hex>", a hash of its layout: the same in every
 * process), the dtype interned so that the signature parser finds it, and
 * how signatures print it ("Record(a: int32, b: float64; 16 bytes)") */
static PyObject *
py_record_code(PyObject *self, PyObject *dtype)
{
    DType dt;
    if (rt_dtype_of(dtype, &dt) < 0) {
        return NULL;
    }
    if (!cj_is_record(dt)) {
        PyErr_Format(PyExc_TypeError, "%R is not a record (structured) dtype", dtype);
        return NULL;
    }
    Buf b;
    buf_init(&b);
    cj_record_str(&b, dt);
    PyObject *r = b.s ? Py_BuildValue("(ss)", cj_dtypes[dt].code, b.s) : PyErr_NoMemory();
    buf_free(&b);
    return r;
}

static PyMethodDef module_methods[] = {
    {"_record_code", py_record_code, METH_O, "a record dtype's name in signature strings"},
    {"_intrinsics", py_intrinsics, METH_NOARGS, "{name: signature} of the intrinsics"},
    {"_transpile", py_transpile, METH_VARARGS, "CUDA C++ for func and a signature string"},
    {"_promote", py_promote, METH_VARARGS, "NumPy result_type of two dtype indices"},
    {"_set_import_ms", py_set_import_ms, METH_O, "the time import cujit took (CUJIT_LOG)"},
    {NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "cujit._cujit",
    "cujit's C core: the compiler (frontend, typeinfer, codegen) and the CUDA runtime.",
    -1, module_methods, NULL, NULL, NULL, NULL,
};

#ifndef CUJIT_CUDA_HOME
#define CUJIT_CUDA_HOME "/usr/local/cuda"
#endif
#if defined(__clang__)
#define CJ_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define CJ_COMPILER "gcc " __VERSION__
#else
#define CJ_COMPILER "unknown compiler"
#endif

/* _build: how this extension was built (cujit.show_config() prints it) */
static const char build_info[] = CJ_COMPILER ", NVRTC fallback toolkit " CUJIT_CUDA_HOME;

PyMODINIT_FUNC PyInit__cujit(void);

PyMODINIT_FUNC
PyInit__cujit(void)
{
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) {
        return NULL;
    }
    if (kernel_add_types(m) < 0 || forms_add_types(m) < 0 || rt_add_types(m) < 0
        || PyModule_AddFunctions(m, kernel_module_methods) < 0
        || PyModule_AddStringConstant(m, "__version__", CJ_VERSION) < 0
        || PyModule_AddStringConstant(m, "_build", build_info) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
