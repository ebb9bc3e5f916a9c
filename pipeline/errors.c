/* errors.c - the compiler's errors as Python exceptions: cujit.CompileError
 * carrying the user's file, line and column (a caret under the construct),
 * and NVRTC's log mapped back through #line to the Python line it names. */
#include "pl_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


PyObject *pl_CompileError;

/* by CjErrKind: CompileError, then the classes that are also TypeError ... */
static PyObject *error_class[CE_RECURSION + 1];

/* the class cujit.<name> of these bases (a new reference kept by the
 * module too; the bases are released), NULL with an exception */
static PyObject *
add_class(PyObject *module, const char *name, PyObject *bases, const char *doc)
{
    char qual[64];
    snprintf(qual, sizeof qual, "cujit.%s", name);
    PyObject *cls = bases ? PyErr_NewExceptionWithDoc(qual, doc, bases, NULL) : NULL;
    Py_XDECREF(bases);
    if (cls && PyModule_AddObjectRef(module, name, cls) < 0) {
        Py_CLEAR(cls);
    }
    return cls;         /* the class keeps the reference given to it here */
}

/* name: "CompileTypeError"; base: TypeError (base2: a second builtin, or
 * NULL).  A class of both CompileError and the builtin one, so `except
 * TypeError` catches it as Python's own would (NameError cannot join: its
 * instance layout and SyntaxError's conflict). */
static PyObject *
add_error(PyObject *module, const char *name, PyObject *base, PyObject *base2, const char *doc)
{
    PyObject *bases = base2 ? PyTuple_Pack(3, pl_CompileError, base, base2)
                      : base ? PyTuple_Pack(2, pl_CompileError, base)
                      : PyTuple_Pack(1, PyExc_SyntaxError);
    return add_class(module, name, bases, doc);
}

int
pl_add_errors(PyObject *module)
{
    pl_CompileError = add_error(module, "CompileError", NULL, NULL,
        "A kernel cujit cannot compile: filename, lineno, offset and text point at the "
        "Python construct.");
    if (!pl_CompileError) {
        return -1;
    }
    error_class[CE_COMPILE] = pl_CompileError;
    error_class[CE_TYPE] = add_error(module, "CompileTypeError", PyExc_TypeError, NULL,
        "A CompileError that is also a TypeError: types that cannot meet, wrong arguments.");
    error_class[CE_VALUE] = add_error(module, "CompileValueError", PyExc_ValueError, NULL,
        "A CompileError that is also a ValueError: a value the kernel language refuses.");
    error_class[CE_INDEX] = add_error(module, "CompileIndexError", PyExc_IndexError, NULL,
        "A CompileError that is also an IndexError: a constant index out of range.");
    error_class[CE_UNPACK] = add_error(module, "CompileUnpackError", PyExc_TypeError,
        PyExc_ValueError, "A CompileError that is a TypeError (Python's) and a ValueError "
        "(cupyx.jit's): a value that is not a tuple unpacked into names.");
    error_class[CE_RECURSION] = error_class[CE_TYPE]
        ? add_class(module, "CompileRecursionError",
                    PyTuple_Pack(2, error_class[CE_TYPE], PyExc_ValueError),
                    "A CompileTypeError that is also a ValueError: a device function whose "
                    "return type its recursion never settles (Numba raises a TypingError, "
                    "cupyx.jit a ValueError).")
        : NULL;
    return error_class[CE_TYPE] && error_class[CE_VALUE] && error_class[CE_INDEX]
           && error_class[CE_UNPACK] && error_class[CE_RECURSION] ? 0 : -1;
}

/* CompileError(msg, (file, line, offset, text, end_line, end_offset)), or the
 * subclass of e->kind; `line` is the text of the line */
static void
raise_at_line(const CjError *e, const char *file, int lineno, const char *line)
{
    int offset = e->loc.col + 1;
    int end = e->loc.end_col > e->loc.col ? e->loc.end_col + 1 : offset + 1;
    PyObject *details = Py_BuildValue("(siisii)", file, lineno, offset, line, lineno, end);
    PyObject *args = details ? Py_BuildValue("(sN)", e->msg, details) : NULL;
    if (args) {
        PyErr_SetObject(error_class[e->kind] ? error_class[e->kind] : pl_CompileError, args);
        Py_DECREF(args);
    }
}

void
pl_raise_compile_error(const CjError *e)
{
    char line[1024];
    const char *file = e->file ? e->file : "<unknown>";
    int lineno = e->loc.line > 0 ? e->loc.line : 1;
    if (fe_source_line(file, lineno, line, sizeof line) < 0) {
        line[0] = '\0';
    }
    raise_at_line(e, file, lineno, line);
}

void
pl_raise_frame_error(const CjError *e, const FeCtx *cx)
{
    char line[1024];
    const char *file = e->file ? e->file : "<unknown>";
    int lineno = e->loc.line > 0 ? e->loc.line : 1;
    if (fe_error_line(cx, file, lineno, line, sizeof line) < 0) {
        line[0] = '\0';
    }
    raise_at_line(e, file, lineno, line);
}

/* NVRTC's log names Python lines through #line: "file.py(12): error: ...";
 * the CUDA C++ a declared foreign function links is named "<name> (linked
 * CUDA C++)" (PL_LINKED_MARK), its errors the user's */
#define PL_LINKED_MARK " (linked CUDA C++)"
void
pl_raise_nvrtc_error(const char *log)
{
    CjError e;
    memset(&e, 0, sizeof e);
    const char *p = log ? strstr(log, "): error") : NULL;
    if (p) {
        const char *open = p;
        while (open > log && *open != '(') {
            open--;
        }
        const char *start = open;
        while (start > log && start[-1] != '\n') {
            start--;
        }
        static char fbuf[1024];
        snprintf(fbuf, sizeof fbuf, "%.*s", (int)(open - start), start);
        e.file = fbuf;
        e.loc.line = atoi(open + 1);
        const char *msg = p + 9;
        while (*msg == ':' || *msg == ' ') {
            msg++;
        }
        const char *eol = strchr(msg, '\n');
        int len = (int)(eol ? eol - msg : (long)strlen(msg));
        char *linked = strstr(fbuf, PL_LINKED_MARK);
        if (linked) {       /* a declared function's source (cujit/_extern.py) */
            *linked = '\0';
            snprintf(e.msg, sizeof e.msg, "NVRTC rejected the CUDA C++ linked from %.200s: %.*s",
                     fbuf, len, msg);
        } else {
            snprintf(e.msg, sizeof e.msg, "NVRTC rejected the CUDA generated for this line: "
                     "%.*s (this is a cujit bug; the generated code is in k.inspect_cuda())",
                     len, msg);
        }
    } else {
        snprintf(e.msg, sizeof e.msg, "NVRTC failed: %s", log ? log : "(no log)");
    }
    pl_raise_compile_error(&e);
}
