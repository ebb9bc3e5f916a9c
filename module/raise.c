/* raise.c - the exception a kernel's `raise E(args)` gives on the host: the
 * error record's message names it ("module\nqualname\nrepr(args)",
 * frontend/raise.c); the class is found again by its module and qualified
 * name, its arguments read back with ast.literal_eval, and it is raised
 * with where it happened first: "In function 'f', file F, line L,
 * tid=[x, y, z] ctaid=[x, y, z]: <its message>". */
#include "kernel.h"

#include <string.h>

/* module.qualname (a dotted path inside the module) -> the class; new ref */
static PyObject *
find_class(const char *mod, const char *qual)
{
    PyObject *o = PyImport_ImportModule(mod);
    char part[256];
    for (const char *p = qual; o && *p;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof part) {
            Py_CLEAR(o);
            break;
        }
        memcpy(part, p, len);
        part[len] = 0;
        Py_SETREF(o, PyObject_GetAttrString(o, part));
        p += len + (dot != NULL);
    }
    if (o && !(PyType_Check(o) && PyType_IsSubtype((PyTypeObject *)o,
                                                   (PyTypeObject *)PyExc_BaseException))) {
        Py_CLEAR(o);
    }
    return o;
}

/* the exception's arguments: ast.literal_eval(text), a tuple; new ref */
static PyObject *
read_args(const char *text)
{
    PyObject *ast = PyImport_ImportModule("ast");
    PyObject *args = ast ? PyObject_CallMethod(ast, "literal_eval", "s", text) : NULL;
    Py_XDECREF(ast);
    if (args && !PyTuple_Check(args)) {
        Py_CLEAR(args);
    }
    return args;
}

/* cls(where + ": " + str(cls(*args))); where the class takes no single
 * message, cls(*args) itself */
static void
set_exception(PyObject *cls, PyObject *args, PyObject *where)
{
    PyObject *plain = PyObject_Call(cls, args, NULL);
    PyObject *text = plain ? PyObject_Str(plain) : NULL;
    PyObject *msg = NULL, *exc = NULL;
    if (text) {
        msg = PyUnicode_GET_LENGTH(text) ? PyUnicode_FromFormat("%U: %U", where, text)
                                         : Py_NewRef(where);
    }
    exc = msg ? PyObject_CallOneArg(cls, msg) : NULL;
    if (!exc && plain) {
        PyErr_Clear();
        exc = Py_NewRef(plain);
    }
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    }
    Py_XDECREF(plain);
    Py_XDECREF(text);
    Py_XDECREF(msg);
    Py_XDECREF(exc);
}

void
raise_from_kernel(const char *desc, const char *kname, const char *file,
                  const CjErrorRecord *rec)
{
    PyObject *where = PyUnicode_FromFormat(
        "In function '%s', file %s, line %d, tid=[%u, %u, %u] ctaid=[%u, %u, %u]", kname, file,
        rec->line, rec->thread[0], rec->thread[1], rec->thread[2], rec->block[0],
        rec->block[1], rec->block[2]);
    const char *nl1 = desc ? strchr(desc, '\n') : NULL;
    const char *nl2 = nl1 ? strchr(nl1 + 1, '\n') : NULL;
    if (!where || !nl2) {
        if (where) {
            PyErr_Format(PyExc_RuntimeError, "%U: an exception was raised", where);
        }
        Py_XDECREF(where);
        return;
    }
    char mod[256], qual[256];
    snprintf(mod, sizeof mod, "%.*s", (int)(nl1 - desc), desc);
    snprintf(qual, sizeof qual, "%.*s", (int)(nl2 - nl1 - 1), nl1 + 1);
    PyObject *cls = find_class(mod, qual);
    PyObject *args = cls ? read_args(nl2 + 1) : NULL;
    if (cls && args) {
        set_exception(cls, args, where);
    } else {
        PyErr_Clear();
        PyErr_Format(PyExc_RuntimeError, "%U: the kernel raised %s.%s%s, which cujit cannot "
                     "find again (define exception classes at module level)", where, mod, qual,
                     nl2 + 1);
    }
    Py_XDECREF(cls);
    Py_XDECREF(args);
    Py_DECREF(where);
}
