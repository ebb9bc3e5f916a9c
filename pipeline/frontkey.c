/* frontkey.c - the front key of a request: what its CUDA C++ follows from,
 * read from Python objects without the frontend, so that a request
 * compiled in an earlier process is found in the disk cache's index before
 * any AST is parsed.
 *
 *     key   = versions request function [map]
 *     function = code file globals closure defaults     (device functions:
 *                                                        recursively)
 *     code  = name qualname filename lines flags co_code co_linetable
 *             varnames freevars consts (nested code: recursively) names
 *     names = for each co_name LOAD_GLOBAL reads, the value it has as a
 *             global or builtin; a user's module: the values of its
 *             attributes that are among the code's names
 *
 * The source file enters by its identity (size, mtime in ns, inode): the
 * frontend reads the function's text from it, and that text holds what the
 * code object lacks (local annotations).  Conservative by design: a value
 * that is not a number, string, tuple of those, NumPy scalar or dtype, a
 * module, a builtin, a cujit kernel or device function, or a jit
 * name (a plain function may be a factory run at compile time, an object
 * may have attributes that change) makes the request unkeyable, and the
 * pipeline takes the full path. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "pl_impl.h"

#include <dlfcn.h>
#include <opcode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FRONT_FORMAT 2      /* raise when what the key holds changes */
#define KEY_DEPTH 12        /* nesting of tuples, code objects and functions */
#define KEY_FUNCS 64        /* functions in one key */

typedef struct {
    Buf b;
    PyObject *seen[KEY_FUNCS];  /* functions and modules keyed so far (borrowed) */
    int nseen;
    const char *why;            /* what could not be keyed */
    PyObject *names;            /* the co_names of the code whose global is keyed */
} Keyer;

static int key_value(Keyer *k, PyObject *v, int depth);
static int key_code(Keyer *k, PyObject *code, PyObject *globals, int depth);
static int key_module(Keyer *k, PyObject *mod, int depth);

static int
no_key(Keyer *k, const char *why)
{
    if (!k->why) {
        k->why = why;
    }
    PyErr_Clear();
    return -1;
}

/* a tag byte and a length-prefixed byte string */
static void
put_bytes(Keyer *k, char tag, const void *p, size_t n)
{
    uint64_t len = n;
    buf_putc(&k->b, tag);
    buf_putmem(&k->b, &len, sizeof len);
    buf_putmem(&k->b, p, n);
}

/* a tag byte and a number (raw bytes: no printf on this path) */
static void
put_num(Keyer *k, char tag, int64_t v)
{
    buf_putc(&k->b, tag);
    buf_putmem(&k->b, &v, sizeof v);
}

static void
put_cstr(Keyer *k, char tag, const char *s)
{
    put_bytes(k, tag, s, strlen(s));
}

static int
put_str(Keyer *k, char tag, PyObject *s)
{
    Py_ssize_t n;
    const char *u = PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &n) : NULL;
    if (!u) {
        return no_key(k, "a name that is no string");
    }
    put_bytes(k, tag, u, (size_t)n);
    return 0;
}

/* ---- values: globals, closure cells, constants, defaults ---- */

/* modules whose attributes a kernel may read: the library ones, by name */
static int
known_module(const char *name)
{
    static const char *const known[] = {"math", "cmath", "numpy", "cujit", "cupy", "cupyx",
                                        "operator", "builtins", NULL};
    for (int i = 0; known[i]; i++) {
        size_t n = strlen(known[i]);
        if (strncmp(name, known[i], n) == 0 && (name[n] == '\0' || name[n] == '.')) {
            return 1;
        }
    }
    return 0;
}

/* a NumPy function kernels compile by its name (np.sum, np.nanmean: the
 * NP_* rows of kind 'r' and 'f') */
static int
numpy_reduction(const char *name)
{
    for (int i = 0; i < NP_COUNT; i++) {
        if ((cj_np_funcs[i].kind == 'r' || cj_np_funcs[i].kind == 'f')
            && strcmp(cj_np_funcs[i].name, name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* a string attribute of o as UTF-8 into buf; 0 if it has none */
static int
str_attr(PyObject *o, const char *attr, char *buf, size_t n)
{
    PyObject *a = PyObject_GetAttrString(o, attr);
    const char *s = a && PyUnicode_Check(a) ? PyUnicode_AsUTF8(a) : NULL;
    int ok = s != NULL;
    if (ok) {
        snprintf(buf, n, "%s", s);
    }
    Py_XDECREF(a);
    PyErr_Clear();
    return ok;
}

/* int, float, complex, bool, None, str, bytes, Ellipsis: 1 when keyed */
static int
key_plain(Keyer *k, PyObject *v)
{
    if (v == Py_None || v == Py_Ellipsis || PyBool_Check(v)) {
        put_num(k, 'k', v == Py_None ? 0 : v == Py_Ellipsis ? 1 : v == Py_True ? 2 : 3);
    } else if (PyLong_CheckExact(v)) {
        PyObject *r = PyObject_Repr(v);
        if (!r) {
            return -1;
        }
        put_str(k, 'i', r);
        Py_DECREF(r);
    } else if (PyFloat_CheckExact(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        put_bytes(k, 'f', &d, sizeof d);
    } else if (PyComplex_CheckExact(v)) {
        Py_complex c = PyComplex_AsCComplex(v);
        put_bytes(k, 'c', &c, sizeof c);
    } else if (PyUnicode_CheckExact(v)) {
        put_str(k, 's', v);
    } else if (PyBytes_CheckExact(v)) {
        put_bytes(k, 'y', PyBytes_AS_STRING(v), (size_t)PyBytes_GET_SIZE(v));
    } else {
        return 0;
    }
    return 1;
}

/* a NumPy scalar or dtype, by its type and repr (exact for every scalar:
 * NumPy prints floats in their shortest round-tripping form) */
static int
key_numpy(Keyer *k, PyObject *v)
{
    const char *tn = Py_TYPE(v)->tp_name;
    if (strncmp(tn, "numpy.", 6) != 0 || strcmp(tn, "numpy.ndarray") == 0) {
        return 0;
    }
    static PyObject *numpy_str;
    if (!numpy_str && !(numpy_str = PyUnicode_InternFromString("numpy"))) {
        PyErr_Clear();
        return 0;
    }
    PyObject *np = PyImport_GetModule(numpy_str);
    PyObject *generic = np ? PyObject_GetAttrString(np, "generic") : NULL;
    PyObject *dtype = np ? PyObject_GetAttrString(np, "dtype") : NULL;
    int ok = generic && dtype && (PyObject_IsInstance(v, generic) == 1
                                  || PyObject_IsInstance(v, dtype) == 1);
    Py_XDECREF(np);
    Py_XDECREF(generic);
    Py_XDECREF(dtype);
    PyErr_Clear();
    PyObject *r = ok ? PyObject_Repr(v) : NULL;
    if (!r) {
        PyErr_Clear();
        return 0;
    }
    put_cstr(k, 'n', tn);
    put_str(k, '=', r);
    Py_DECREF(r);
    return 1;
}

/* a small NumPy array (cuda.const.array_like copies it into the kernel):
 * its dtype, shape and bytes; 0 for anything else */
static int
key_ndarray(Keyer *k, PyObject *v)
{
    if (strcmp(Py_TYPE(v)->tp_name, "numpy.ndarray") != 0) {
        return 0;
    }
    PyObject *nb = PyObject_GetAttrString(v, "nbytes");
    long long n = nb ? PyLong_AsLongLong(nb) : -1;
    Py_XDECREF(nb);
    PyObject *d = n >= 0 && n <= 65536 ? PyObject_GetAttrString(v, "dtype") : NULL;
    PyObject *ds = d ? PyObject_Str(d) : NULL;
    PyObject *shape = d ? PyObject_GetAttrString(v, "shape") : NULL;
    PyObject *sr = shape ? PyObject_Repr(shape) : NULL;
    PyObject *bytes = sr ? PyObject_CallMethod(v, "tobytes", NULL) : NULL;
    int ok = ds && sr && bytes && PyBytes_Check(bytes);
    if (ok) {
        put_str(k, 'A', ds);
        put_str(k, 's', sr);
        put_bytes(k, 'b', PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes));
    }
    Py_XDECREF(d);
    Py_XDECREF(ds);
    Py_XDECREF(shape);
    Py_XDECREF(sr);
    Py_XDECREF(bytes);
    PyErr_Clear();
    return ok;
}

/* a builtin or NumPy type, a C function of a known module, a NumPy ufunc,
 * a jit name (its __cujit_builtin__ tag), a Numba type of cujit.cuda (its
 * __cujit_dtype__) */
static int
key_library(Keyer *k, PyObject *v)
{
    char mod[128], name[256];
    if (PyType_Check(v) || PyCFunction_Check(v)
        || strcmp(Py_TYPE(v)->tp_name, "numpy.ufunc") == 0) {
        int has_mod = PyType_Check(v) || PyCFunction_Check(v)
                      ? str_attr(v, "__module__", mod, sizeof mod)
                      : snprintf(mod, sizeof mod, "numpy") > 0;
        if (!has_mod || !known_module(mod) || !str_attr(v, "__name__", name, sizeof name)) {
            return 0;
        }
        put_cstr(k, 'L', mod);
        put_cstr(k, '.', name);
        return 1;
    }
    if (str_attr(v, "__cujit_builtin__", name, sizeof name)) {
        put_cstr(k, 'J', name);
        return 1;
    }
    if (PyFunction_Check(v) && str_attr(v, "__module__", mod, sizeof mod)
        && strcmp(mod, "numpy") == 0 && str_attr(v, "__name__", name, sizeof name)
        && numpy_reduction(name)) {
        put_cstr(k, 'L', mod);          /* np.sum: compiled by its name (npfuncs.c) */
        put_cstr(k, '.', name);
        return 1;
    }
    if (str_attr(v, "__cujit_dtype__", name, sizeof name)) {
        put_cstr(k, 'D', name);         /* cujit.cuda's float32: a dtype */
        return 1;
    }
    return 0;
}

static int
key_tuple(Keyer *k, PyObject *v, int depth)
{
    put_num(k, '(', PyTuple_GET_SIZE(v));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++) {
        if (key_value(k, PyTuple_GET_ITEM(v, i), depth + 1) < 0) {
            return -1;
        }
    }
    buf_putc(&k->b, ')');
    return 0;
}

/* a device function's declared signatures (cuda.jit(sig, device=True)'s
 * __cujit_signatures__, a tuple of str), which type its calls */
static int
key_declared(Keyer *k, PyObject *kernel, int depth)
{
    PyObject *sigs = PyObject_GetAttrString(kernel, "__cujit_signatures__");
    if (!sigs) {
        PyErr_Clear();
        return 0;
    }
    int r = PyTuple_Check(sigs) ? key_tuple(k, sigs, depth) : no_key(k, "declared signatures "
                                                                       "that are not a tuple");
    Py_DECREF(sigs);
    return r;
}

/* a Python function: its code, source file, globals, cells and defaults;
 * one already keyed is named by its place */
/* 1: o was keyed before (named by its place); 0: new, now seen; -1: too
 * many */
static int
seen_before(Keyer *k, PyObject *o, int depth)
{
    for (int i = 0; i < k->nseen; i++) {
        if (k->seen[i] == o) {
            put_num(k, '@', i);
            return 1;
        }
    }
    if (k->nseen == KEY_FUNCS || depth > KEY_DEPTH) {
        return no_key(k, "too many device functions or modules");
    }
    k->seen[k->nseen++] = o;
    return 0;
}

static int
key_function(Keyer *k, PyObject *func, int depth)
{
    int seen = seen_before(k, func, depth);
    if (seen) {
        return seen < 0 ? -1 : 0;
    }
    PyObject *code = PyFunction_GET_CODE(func);
    PyObject *closure = PyFunction_GET_CLOSURE(func);
    PyObject *defaults = PyFunction_GET_DEFAULTS(func);
    PyObject *kwdefaults = PyFunction_GET_KW_DEFAULTS(func);
    buf_putc(&k->b, '{');
    if (key_code(k, code, PyFunction_GET_GLOBALS(func), depth + 1) < 0) {
        return -1;
    }
    for (Py_ssize_t i = 0; closure && i < PyTuple_GET_SIZE(closure); i++) {
        PyObject *v = PyCell_GET(PyTuple_GET_ITEM(closure, i));
        if (!v) {
            return no_key(k, "an empty closure cell");
        }
        buf_putc(&k->b, 'C');
        if (key_value(k, v, depth + 1) < 0) {
            return -1;
        }
    }
    if (kwdefaults && PyDict_GET_SIZE(kwdefaults)) {
        return no_key(k, "keyword-only defaults");
    }
    buf_putc(&k->b, 'D');
    if (defaults && key_value(k, defaults, depth + 1) < 0) {
        return -1;
    }
    buf_putc(&k->b, '}');
    return 0;
}

/* func.__cujit_overload__ (cujit.extending), borrowed; NULL if none */
static PyObject *
overload_entry(PyObject *func)
{
    PyObject *d = PyFunction_Check(func) ? PyObject_GetAttrString(func, "__dict__") : NULL;
    PyObject *entry = d && PyDict_Check(d) ? PyDict_GetItemString(d, "__cujit_overload__")
                                           : NULL;
    Py_XDECREF(d);      /* the function keeps its dict, and the dict the entry */
    PyErr_Clear();
    return entry;
}

/* The overloads of a registry entry (cujit.extending._Overloads), in the
 * order tried: each one's target rank, prefer_literal, receiver class (a
 * method's), strict and factory, whose code holds the implementations it defines
 * and whose globals and cells what it reads. */
static int
key_entries(Keyer *k, PyObject *entry, int depth)
{
    PyObject *entries = PyObject_GetAttrString(entry, "entries");
    if (!entries || !PyList_Check(entries)) {
        Py_XDECREF(entries);
        return no_key(k, "an overload registry without its entries");
    }
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(entries) && r == 0; i++) {
        PyObject *e = PyList_GET_ITEM(entries, i);     /* (rank, order, factory, options) */
        PyObject *opts = PyTuple_Check(e) && PyTuple_GET_SIZE(e) == 4
                         && PyDict_Check(PyTuple_GET_ITEM(e, 3)) ? PyTuple_GET_ITEM(e, 3) : NULL;
        PyObject *lit = opts ? PyDict_GetItemString(opts, "prefer_literal") : NULL;
        PyObject *recv = opts ? PyDict_GetItemString(opts, "receiver") : NULL;
        PyObject *strict = opts ? PyDict_GetItemString(opts, "strict") : NULL;
        if (!lit || !PyFunction_Check(PyTuple_GET_ITEM(e, 2))) {
            r = no_key(k, "an overload that is not a Python function");
            break;
        }
        buf_putc(&k->b, 'v');
        r = key_value(k, PyTuple_GET_ITEM(e, 0), depth + 1);
        if (r == 0) {
            r = key_value(k, lit, depth + 1);
        }
        if (r == 0) {
            r = key_value(k, recv ? recv : Py_None, depth + 1);
        }
        if (r == 0) {           /* strict: the signatures are checked (cujit.extending) */
            r = key_value(k, strict ? strict : Py_True, depth + 1);
        }
        if (r == 0) {
            r = key_function(k, PyTuple_GET_ITEM(e, 2), depth + 1);
        }
    }
    Py_DECREF(entries);
    return r;
}

/* A function with @overload implementations: its own code (a factory may
 * return it as the implementation) and its overloads. */
static int
key_overloaded(Keyer *k, PyObject *func, PyObject *entry, int depth)
{
    int seen = seen_before(k, func, depth);
    if (seen) {
        return seen < 0 ? -1 : 0;
    }
    k->nseen--;                         /* key_function below keys it whole */
    buf_putc(&k->b, 'V');
    int r = key_function(k, func, depth + 1);
    return r < 0 ? r : key_entries(k, entry, depth);
}

/* A method or an attribute with @overload_method / @overload_attribute
 * implementations (cujit.extending's _METHODS and _ATTRS, where that module
 * is loaded): `name` is an attribute the code reads, so x.name(...) or x.name
 * may call one of them; 0 when there is none. */
static int
key_method(Keyer *k, PyObject *name, int depth)
{
    static PyObject *modname;
    if (!modname && !(modname = PyUnicode_InternFromString("cujit.extending"))) {
        return no_key(k, "no memory");
    }
    PyObject *mod = PyImport_GetModule(modname);
    int r = 0;
    for (int t = 0; t < 2 && mod && r == 0; t++) {
        PyObject *table = PyObject_GetAttrString(mod, t ? "_ATTRS" : "_METHODS");
        PyObject *entry = table && PyDict_Check(table) ? PyDict_GetItemWithError(table, name)
                                                       : NULL;
        Py_XINCREF(entry);
        Py_XDECREF(table);
        PyErr_Clear();
        if (entry) {
            buf_putc(&k->b, t ? 'p' : 'm');
            r = key_entries(k, entry, depth + 1);
            Py_DECREF(entry);
        }
    }
    Py_XDECREF(mod);
    return r;
}

/* numba's dispatcher (numba.njit, numba.cuda.jit) read as a device function
 * by its Python function (frontend/overload.c): that function, a new
 * reference; NULL if v is none */
static PyObject *
numba_function(PyObject *v)
{
    char mod[128];
    if (PyFunction_Check(v) || PyType_Check(v) || PyModule_Check(v)
        || !str_attr((PyObject *)Py_TYPE(v), "__module__", mod, sizeof mod)
        || strncmp(mod, "numba", 5) != 0 || (mod[5] != '\0' && mod[5] != '.')) {
        return NULL;
    }
    PyObject *py = PyObject_GetAttrString(v, "py_func");
    PyErr_Clear();
    if (py && !PyFunction_Check(py)) {
        Py_CLEAR(py);
    }
    return py;
}

/* a function declared with cuda.declare_device: its __cujit_extern__ tuple
 * (name, signature, abi, cooperative and the texts of the sources it links,
 * read now: a changed .cu is a new key); a cffi FFI object (whose
 * from_buffer kernels call): its class.  1 keyed, 0 neither, -1 error */
static int
key_foreign(Keyer *k, PyObject *v, int depth)
{
    char mod[64];
    if (!PyType_Check(v) && str_attr((PyObject *)Py_TYPE(v), "__module__", mod, sizeof mod)
        && strcmp(mod, "cffi.api") == 0 && strcmp(Py_TYPE(v)->tp_name, "FFI") == 0) {
        put_cstr(k, 'F', "cffi.api.FFI");
        return 1;
    }
    if (PyType_Check(v) || !PyObject_HasAttrString((PyObject *)Py_TYPE(v), "__cujit_extern__")) {
        PyErr_Clear();
        return 0;
    }
    PyObject *t = PyObject_GetAttrString(v, "__cujit_extern__");
    if (!t || !PyTuple_Check(t)) {
        Py_XDECREF(t);
        PyErr_Clear();
        return no_key(k, "a declared device function whose link files cannot be read");
    }
    buf_putc(&k->b, 'X');
    int r = key_tuple(k, t, depth);
    Py_DECREF(t);
    return r < 0 ? -1 : 1;
}

static int
key_value(Keyer *k, PyObject *v, int depth)
{
    if (depth > KEY_DEPTH) {
        return no_key(k, "a value nested too deeply");
    }
    int r = key_plain(k, v);
    if (r) {
        return r < 0 ? no_key(k, "a number that cannot be printed") : 0;
    }
    if (PyTuple_CheckExact(v)) {
        return key_tuple(k, v, depth);
    }
    int is_device = 0;
    PyObject *pyfunc = pl_kernel_function ? pl_kernel_function(v, &is_device) : NULL;
    if (pyfunc) {
        put_num(k, 'K', is_device);
        if (key_declared(k, v, depth) < 0) {
            return -1;
        }
        return key_function(k, pyfunc, depth + 1);
    }
    if (PyModule_Check(v)) {
        const char *name = PyModule_GetName(v);
        if (!name) {
            return no_key(k, "a module without a name");
        }
        put_cstr(k, 'M', name);
        return known_module(name) ? 0 : key_module(k, v, depth);
    }
    if (key_library(k, v) || key_numpy(k, v) || key_ndarray(k, v)) {
        return 0;
    }
    int foreign = key_foreign(k, v, depth);
    if (foreign) {
        return foreign < 0 ? -1 : 0;
    }
    PyObject *entry = overload_entry(v);
    if (entry) {
        return key_overloaded(k, v, entry, depth);
    }
    PyObject *py = numba_function(v);
    if (py) {
        buf_putc(&k->b, 'N');
        int keyed = key_function(k, py, depth + 1);
        Py_DECREF(py);
        return keyed;
    }
    if (PyFunction_Check(v)) {
        return no_key(k, "a global that is a plain Python function (it may run at compile time)");
    }
    if (!PyType_Check(v) && PyObject_HasAttrString(v, "__cuda_array_interface__")) {
        return no_key(k, "a device array read as a global: its address is compiled in");
    }
    return no_key(k, "a global that is an arbitrary object");
}

/* ---- code objects ---- */

/* the source file's identity: the frontend reads the function's text there */
static int
key_file(Keyer *k, PyObject *filename)
{
    struct stat st;
    const char *path = PyUnicode_Check(filename) ? PyUnicode_AsUTF8(filename) : NULL;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        return no_key(k, "the source is not in a file");
    }
    put_num(k, 'F', (int64_t)st.st_size);
    put_num(k, 't', (int64_t)st.st_mtim.tv_sec);
    put_num(k, 't', (int64_t)st.st_mtim.tv_nsec);
    put_num(k, 'i', (int64_t)st.st_ino);
    put_num(k, 'd', (int64_t)st.st_dev);
    return 0;
}

/* code's attribute `attr`, its name interned once in *slot; NULL without
 * an exception if there is none */
static PyObject *
code_attr(PyObject *code, const char *attr, PyObject **slot)
{
    if (!*slot && !(*slot = PyUnicode_InternFromString(attr))) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *a = PyObject_GetAttr(code, *slot);
    if (!a) {
        PyErr_Clear();
    }
    return a;
}

/* a code attribute: bytes, an int, or a tuple of strings */
static int
key_code_attr(Keyer *k, PyObject *code, const char *attr, PyObject **slot)
{
    PyObject *a = code_attr(code, attr, slot);
    int r = 0;
    if (!a) {                   /* co_qualname before Python 3.11 */
        buf_puts(&k->b, "?;");
        return 0;
    }
    if (PyBytes_Check(a)) {
        put_bytes(k, 'y', PyBytes_AS_STRING(a), (size_t)PyBytes_GET_SIZE(a));
    } else if (PyLong_Check(a)) {
        put_num(k, 'i', PyLong_AsLongLong(a));
    } else if (PyUnicode_Check(a)) {
        r = put_str(k, 's', a);
    } else if (PyTuple_Check(a)) {
        put_num(k, '(', PyTuple_GET_SIZE(a));
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a) && r == 0; i++) {
            r = put_str(k, 's', PyTuple_GET_ITEM(a, i));
        }
    } else {
        r = no_key(k, "a code attribute of an unexpected type");
    }
    Py_DECREF(a);
    return r;
}

/* marks in is_global[] the names LOAD_GLOBAL reads; the other co_names
 * are attributes (x.shape, jit.threadIdx.x); -1: not bytes */
static int
global_loads(PyObject *code, char *is_global, Py_ssize_t nnames)
{
    static PyObject *co_code;
    PyObject *bc = code_attr(code, "co_code", &co_code);    /* deoptimized */
    if (!bc || !PyBytes_Check(bc)) {
        Py_XDECREF(bc);
        return -1;
    }
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(bc);
    Py_ssize_t n = PyBytes_GET_SIZE(bc);
    unsigned long arg = 0;
    for (Py_ssize_t i = 0; i + 1 < n; i += 2) {
        arg = (arg << 8) | p[i + 1];
        if (p[i] == EXTENDED_ARG) {
            continue;
        }
        if (p[i] == LOAD_GLOBAL) {
#if PY_VERSION_HEX >= 0x030B0000
            unsigned long name = arg >> 1;      /* the low bit: push NULL */
#else
            unsigned long name = arg;
#endif
            if ((Py_ssize_t)name < nnames) {
                is_global[name] = 1;
            }
        }
        arg = 0;
    }
    Py_DECREF(bc);
    return 0;
}

/* a user's module: the value of each of the code's names it has (a kernel
 * reads mod.CONST or mod.device_function through an attribute) */
static int
key_module(Keyer *k, PyObject *mod, int depth)
{
    int seen = seen_before(k, mod, depth);
    if (seen) {
        return seen < 0 ? -1 : 0;
    }
    PyObject *d = PyModule_GetDict(mod);
    if (!d || !k->names) {
        return no_key(k, "a module read outside a function's names");
    }
    PyObject *names = k->names;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *v = PyDict_GetItemWithError(d, PyTuple_GET_ITEM(names, i));
        if (PyErr_Occurred()) {
            return no_key(k, "a module attribute that cannot be read");
        }
        if (v) {
            put_num(k, 'a', i);
            if (key_value(k, v, depth + 1) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

static PyObject *
builtins_dict(void)
{
    static PyObject *builtins;
    if (!builtins) {
        PyObject *m = PyImport_ImportModule("builtins");
        builtins = m ? PyModule_GetDict(m) : NULL;     /* kept: the module lives on */
        Py_XDECREF(m);
    }
    return builtins;
}

/* each name the code reads as a global, as the global or builtin it is now
 * (absent: '-'); attribute names as themselves */
static int
key_names(Keyer *k, PyObject *code, PyObject *globals, int depth)
{
    PyObject *names = ((PyCodeObject *)code)->co_names;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    char small[256], *is_global = n <= 256 ? small : calloc((size_t)n, 1);
    PyObject *builtins = builtins_dict();
    if (!is_global || !builtins || global_loads(code, memset(is_global, 0, (size_t)n), n) < 0) {
        if (is_global != small) {
            free(is_global);
        }
        return no_key(k, "unreadable bytecode");
    }
    int r = 0;
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        r = put_str(k, is_global[i] ? 'g' : 'a', name);
        if (r == 0 && !is_global[i]) {
            r = key_method(k, name, depth);     /* x.name(...) of an @overload_method */
        }
        if (r < 0 || !is_global[i]) {
            continue;
        }
        PyObject *v = PyDict_GetItemWithError(globals, name);
        if (!v && !PyErr_Occurred()) {
            v = PyDict_GetItemWithError(builtins, name);
        }
        if (PyErr_Occurred()) {
            r = no_key(k, "a global that cannot be read");
        } else if (!v) {
            buf_putc(&k->b, '-');
        } else {
            PyObject *outer = k->names;
            k->names = names;       /* what a user's module is asked for */
            r = key_value(k, v, depth + 1);
            k->names = outer;
        }
    }
    if (is_global != small) {
        free(is_global);
    }
    return r;
}

static int
key_consts(Keyer *k, PyObject *code, PyObject *globals, int depth)
{
    static PyObject *co_consts;
    PyObject *consts = code_attr(code, "co_consts", &co_consts);
    if (!consts || !PyTuple_Check(consts)) {
        Py_XDECREF(consts);
        return no_key(k, "a code object without constants");
    }
    int r = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts) && r == 0; i++) {
        PyObject *c = PyTuple_GET_ITEM(consts, i);
        r = PyCode_Check(c) ? key_code(k, c, globals, depth + 1) : key_value(k, c, depth + 1);
    }
    Py_DECREF(consts);
    return r;
}

static int
key_code(Keyer *k, PyObject *code, PyObject *globals, int depth)
{
    static const char *const attrs[] = {
        "co_name", "co_qualname", "co_filename", "co_firstlineno", "co_argcount",
        "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_code", "co_linetable",
        "co_varnames", "co_freevars", "co_cellvars", NULL,
    };
    static PyObject *interned[sizeof attrs / sizeof attrs[0]];
    PyCodeObject *co = (PyCodeObject *)code;
    if (depth > KEY_DEPTH) {
        return no_key(k, "code nested too deeply");
    }
    if (key_file(k, co->co_filename) < 0) {
        return -1;
    }
    for (int i = 0; attrs[i]; i++) {
        if (key_code_attr(k, code, attrs[i], &interned[i]) < 0) {
            return -1;
        }
    }
    if (key_consts(k, code, globals, depth) < 0) {
        return -1;
    }
    return key_names(k, code, globals, depth);
}

/* ---- versions and the request ---- */

/* the extension's file (size, mtime): a rebuilt cujit whose version string
 * did not change still misses.  Read at pl_init: dladdr takes the dynamic
 * loader's lock, which the NVRTC preload thread holds for milliseconds
 * while it opens the library. */
static const char *
build_identity(void)
{
    static char id[128];
    if (!id[0]) {
        Dl_info info;
        struct stat st;
        if (dladdr((void *)build_identity, &info) && info.dli_fname
            && stat(info.dli_fname, &st) == 0) {
            snprintf(id, sizeof id, "%lld %lld.%09ld", (long long)st.st_size,
                     (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
        } else {
            snprintf(id, sizeof id, "unknown");
        }
    }
    return id;
}

static char versions[256];     /* what key_versions puts, made at pl_init */

void
pl_front_init(void)
{
    const char *v = getenv("CUJIT_TEST_VERSION");     /* tests: another version */
    snprintf(versions, sizeof versions, "cujit front %d|%s|python %lx|build %s\n", FRONT_FORMAT,
             v && *v ? v : CJ_VERSION, (unsigned long)PY_VERSION_HEX, build_identity());
}

static void
key_versions(Keyer *k)
{
    buf_puts(&k->b, versions);
}

/* one argument's key; a record's DType, a tuple's and an Enum class's
 * numbers are this process's: their layout (a class: its name) is the key */
static void
key_arg(Keyer *k, ArgKey a)
{
    if (a.kind == RT_KEY_TUPLE) {
        const RtTuple *t = rt_tuple_of(a);
        put_num(k, 'T', t->n);
        for (int i = 0; i < t->n; i++) {
            key_arg(k, t->elems[i]);
        }
        put_cstr(k, 'N', t->cname ? t->cname : "");
        for (int i = 0; t->names && i < t->n; i++) {
            put_cstr(k, 'n', t->names[i]);
        }
        return;
    }
    if (a.kind == RT_KEY_ENUM) {
        put_cstr(k, 'E', rt_enum_of(a)->tag);
        key_arg(k, rt_enum_of(a)->vkey);
        return;
    }
    put_num(k, ',', a.kind | a.dtype << 8 | a.ndim << 16 | a.flags << 24);
    if (cj_is_record((DType)a.dtype)) {
        put_cstr(k, 'V', cj_record((DType)a.dtype)->key);
        put_num(k, 'A', cj_record((DType)a.dtype)->np_aligned);   /* its signature's name */
    }
}

static void
key_args(Keyer *k, const PlRequest *rq)
{
    put_num(k, 'A', rq->nargs);
    for (int i = 0; i < rq->nargs; i++) {
        key_arg(k, rq->args[i]);
        if (rq->is_array) {
            put_num(k, ';', rq->is_array[i] | rq->in_dtype[i] << 8);
        }
    }
}

/* every field of the request that reaches the stages */
static int
key_request(Keyer *k, const PlRequest *rq)
{
    const int64_t head[] = {rq->kind, rq->boundscheck, rq->idx32, rq->typing_only, rq->ndim,
                            rq->vec, rq->launch_bounds[0], rq->launch_bounds[1],
                            rq->launch_bounds[2], rq->numba};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
        put_num(k, 'r', head[i]);
    }
    key_args(k, rq);
    put_num(k, 'O', rq->nout_given);
    for (int i = 0; i < rq->nout_given && i < PL_MAXOUT; i++) {
        put_num(k, ',', rq->out_given[i]);
    }
    if (rq->kind == PL_REDUCTION || rq->kind == PL_FUSE_REDUCTION) {
        const int64_t red[] = {rq->in, rq->elem, rq->out, rq->has_out, rq->outer,
                               rq->contiguous, rq->red_vec, rq->nkeep, rq->nred};
        for (size_t i = 0; i < sizeof red / sizeof red[0]; i++) {
            put_num(k, 'R', red[i]);
        }
        buf_putc(&k->b, 'I');
        if (key_value(k, rq->identity ? rq->identity : Py_None, 0) < 0) {
            return -1;
        }
    }
    if (rq->kind == PL_DEVICE) {
        put_num(k, 'D', rq->has_ret | (int64_t)rq->forceinline << 8);
        put_num(k, ',', rq->ret.kind | rq->ret.dtype << 8 | (int64_t)rq->ret.ndim << 16
                | (int64_t)rq->ret.flags << 24);
        buf_puts(&k->b, rq->kname ? rq->kname : "-");
        buf_putc(&k->b, 0);
    }
    if (rq->kind == PL_GUFUNC) {
        put_num(k, 'G', rq->gu_nin | (int64_t)rq->gu_nloop << 16 | (int64_t)rq->gu_stage << 32);
        for (int i = 0; i < rq->nargs; i++) {
            put_num(k, 'g', rq->gu_mode[i] | rq->gu_dtype[i] << 8 | (int64_t)rq->gu_ncore[i] << 16);
        }
    }
    if (rq->fuse_names) {
        /* the table's contents come with cujit's version (keyed) */
        put_num(k, 'F', rq->ninplace | (int64_t)rq->fuse_red << 16);
        for (int i = 0; i < rq->ninplace; i++) {
            put_num(k, ',', rq->inplace[i]);
        }
        buf_puts(&k->b, rq->kname ? rq->kname : "-");
        buf_putc(&k->b, 0);
    }
    if (rq->links) {                    /* cuda.jit(link=): texts and markers (hashes) */
        buf_putc(&k->b, 'L');
        if (key_value(k, rq->links, 0) < 0) {
            return -1;
        }
    }
    if (!PyFunction_Check(rq->func)) {
        return no_key(k, "not a Python function");
    }
    if (key_function(k, rq->func, 0) < 0) {
        return -1;
    }
    if (rq->map) {
        buf_putc(&k->b, 'm');
        if (!PyFunction_Check(rq->map) || key_function(k, rq->map, 0) < 0) {
            return no_key(k, "a map= that is not a Python function");
        }
    }
    return 0;
}

int
pl_front_key(const PlRequest *rq, uint64_t key[2], const char **why)
{
    Keyer k;
    memset(&k, 0, sizeof k);
    buf_init(&k.b);
    key_versions(&k);
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);                     /* none expected; kept intact */
    int r = key_request(&k, rq);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    if (r == 0) {
        cj_hash128(k.b.s, k.b.len, 0x66726f6e74ULL, key);
    }
    *why = k.why ? k.why : "cannot be keyed";
    buf_free(&k.b);
    return r == 0;
}
