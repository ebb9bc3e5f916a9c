/* base.c - the bottom of the runtime, which every runtime file may use and
 * which uses none: the exception objects (created by rt_add_types), the
 * context added to their messages, and the reading of environment switches. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rt_impl.h"

PyObject *rt_CudaError;
PyObject *rt_OutOfMemoryError;

/* the CudaError being raised again with "<what>: " before its message,
 * unless that message holds `name` (NULL: always) */
static void
prefix_error(const char *name, const char *what)
{
    PyObject *type, *value, *tb;
    if (!rt_CudaError || !PyErr_ExceptionMatches(rt_CudaError)) {
        return;
    }
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *msg = value ? PyObject_Str(value) : NULL;
    const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
    if (!text || (name && strstr(text, name))) {
        PyErr_Clear();
        Py_XDECREF(msg);
        PyErr_Restore(type, value, tb);
        return;
    }
    PyErr_Format(type, "%s: %s", what, text);
    Py_DECREF(msg);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

void
rt_err_context(const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    prefix_error(NULL, what);
}

void
rt_err_in(const char *name, const char *fmt, ...)
{
    char what[512];
    if (!name) {
        return;             /* the name could not be had: the error as it is */
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    prefix_error(name, what);
}

/* "0", "false", "no", "off" (any case): a switch turned off */
int
rt_env_off(const char *v)
{
    return v && (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0
                 || strcasecmp(v, "off") == 0);
}
