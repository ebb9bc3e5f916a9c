/* extern.c - foreign device functions in kernels: a function declared with
 * cuda.declare_device (cujit/_extern.py) becomes an ND_CALL of BI_EXTERN
 * holding a CjExtern (common/cj.h), read from the object's __cujit_extern__
 * tuple (name, signature text, abi is 'c', use_cooperative, CUDA C++
 * texts and marker lines of compiled code to link), with the calling
 * kernel's link= texts (FeCtx.links) after its own; and cffi's ffi.from_buffer(array), the raw pointer such a function
 * takes, is BI_FROM_BUFFER. */
#include <string.h>

#include "fe_impl.h"

/* Is obj a declared foreign function (cuda.declare_device)? */
int
fe_extern_classify(PyObject *obj, Resolved *r)
{
    if (PyType_Check(obj) || PyModule_Check(obj)
        || !PyObject_HasAttrString((PyObject *)Py_TYPE(obj), "__cujit_extern__")) {
        PyErr_Clear();
        return 0;
    }
    r->kind = R_BUILTIN;
    r->bi = BI_EXTERN;
    r->axis = 0;
    return 1;
}

/* one str item of the tuple, in the arena */
static const char *
text_item(Fe *f, PyObject *t, Py_ssize_t i, Loc loc)
{
    PyObject *s = PyTuple_GET_ITEM(t, i);
    if (!PyUnicode_Check(s)) {
        fe_fail(f, loc, "a declared device function's __cujit_extern__ item %zd is not a str",
                i);
    }
    return fe_utf8(f, s);
}

/* The declaration obj holds, read now (its files too: a changed .cu
 * compiles again) */
CjExtern *
fe_extern_read(Fe *f, PyObject *obj, Loc loc)
{
    PyObject *t = PyObject_GetAttrString(obj, "__cujit_extern__");
    if (!t) {
        fe_fail_py_kind(f, loc, CE_VALUE, "cujit could not read a declared device function "
                        "(its link files)");
    }
    if (!fe_keep(f, t)) {
        fe_fail_py(f, loc, "cujit could not keep a declared device function");
    }
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 5 || !PyTuple_Check(PyTuple_GET_ITEM(t, 4))) {
        fe_fail(f, loc, "a declared device function's __cujit_extern__ must be (name, "
                "signature, abi_c, cooperative, (sources...))");
    }
    CjExtern *x = cj_alloc(f->cx->arena, sizeof *x);
    x->name = text_item(f, t, 0, loc);
    const char *sig = text_item(f, t, 1, loc);
    x->abi_c = PyObject_IsTrue(PyTuple_GET_ITEM(t, 2)) == 1;
    x->cooperative = PyObject_IsTrue(PyTuple_GET_ITEM(t, 3)) == 1;
    char msg[512];
    x->nargs = cj_parse_signature(f->cx->arena, sig, &x->args, &x->ret, msg, sizeof msg);
    if (x->nargs < 0 || !x->ret) {
        fe_fail_kind(f, loc, CE_TYPE, "declared device function '%s': %s", x->name,
                     x->nargs < 0 ? msg : "the signature gives no return type");
    }
    /* its own sources, then the kernel's link= (where Numba's linker finds
     * a function declared with no link= of its own) */
    PyObject *srcs = PyTuple_GET_ITEM(t, 4), *links = f->cx->links;
    int own = (int)PyTuple_GET_SIZE(srcs);
    int nlinks = links && PyTuple_Check(links) ? (int)PyTuple_GET_SIZE(links) : 0;
    x->nsrcs = own + nlinks;
    x->srcs = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(x->nsrcs + 1));
    for (int i = 0; i < own; i++) {
        x->srcs[i] = text_item(f, srcs, i, loc);
    }
    for (int i = 0; i < nlinks; i++) {
        x->srcs[own + i] = text_item(f, links, i, loc);
    }
    return x;
}

/* Is obj cffi's ffi.from_buffer (a method of a cffi.FFI object)? */
int
fe_from_buffer_classify(PyObject *obj, Resolved *r)
{
    if (!PyMethod_Check(obj)) {
        return 0;
    }
    PyObject *fn = PyMethod_GET_FUNCTION(obj);
    PyObject *mod = PyObject_GetAttrString(fn, "__module__");
    PyObject *name = PyObject_GetAttrString(fn, "__name__");
    int cffi = mod && name && PyUnicode_Check(mod) && PyUnicode_Check(name)
               && strcmp(PyUnicode_AsUTF8(mod), "cffi.api") == 0
               && strcmp(PyUnicode_AsUTF8(name), "from_buffer") == 0;
    Py_XDECREF(mod);
    Py_XDECREF(name);
    PyErr_Clear();
    if (!cffi) {
        return 0;
    }
    r->kind = R_BUILTIN;
    r->bi = BI_FROM_BUFFER;
    r->axis = 0;
    return 1;
}
