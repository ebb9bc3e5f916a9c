/* kernel.c - cujit.Kernel: what @jit.rawkernel() returns.  Compiles per
 * argument-type signature through the pipeline (lazily at launch, or from
 * inspect_* / compile) and keeps the compiled entries; launching is in
 * launch.c. */
#include "kernel.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument types ---- */

/* a signature's type as the launch's key (a tuple's interned: kind 0 with an
 * exception set when that fails) */
static ArgKey
key_of_type(const Type *t)
{
    if (t->kind == TY_TUPLE) {
        ArgKey k = {0, 0, 0, 0}, el[256];
        for (int i = 0; i < t->ntup && i < 256; i++) {
            el[i] = key_of_type(t->tup[i]);
        }
        if (t->ntup > 255) {
            PyErr_SetString(PyExc_TypeError, "a tuple type of more than 255 elements");
        } else if (rt_tuple_key_of(el, t->ntup, &k) < 0) {
            k.kind = 0;
        }
        return k;
    }
    if (t->kind == TY_ARRAY) {
        return rt_array_key(t->dtype, t->ndim, t->layout, t->readonly);
    }
    if (t->kind == TY_RECORD) {
        return rt_array_key(t->dtype, 0, 'C', 0);  /* passed as its 0-d array */
    }
    if (t->kind == TY_ITER) {
        return rt_ptr_key(t->dtype);    /* a signature's "dtype*" */
    }
    if (t->kind == TY_VECTOR) {
        ArgKey k = {0, 0, 0, 0};
        PyErr_Format(PyExc_TypeError, "a kernel (or a device function compiled on its own, "
                     "compile_ptx) cannot take a CUDA vector type (%sx%d) as a parameter: "
                     "pass its lanes as numbers (or an array) and make the vector in the "
                     "kernel; device functions called from kernels take vector types",
                     cj_dtypes[t->dtype].name, t->lanes);
        return k;
    }
    return rt_scalar_key(t->dtype);
}

/* ---- compiling one signature ---- */

static void
entry_free(Entry *e)
{
    pl_compiled_free(&e->c);
    free(e->keys);
    free(e);
}

/* cuda.jit(link=): __cujit_link__ of a Python subclass (cujit/cuda/dispatcher.py's
 * Dispatcher), read now (a changed file is a new key): a tuple of str, or
 * NULL for none, in *out (new reference); -1 with an exception */
static int
kernel_links(KernelObject *k, PyObject **out)
{
    *out = NULL;
    if (Py_TYPE(k) == &KernelType) {
        return 0;
    }
    PyObject *v = PyObject_GetAttrString((PyObject *)k, "__cujit_link__");
    if (!v) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    if (v != Py_None && !PyTuple_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s.__cujit_link__ must be a tuple of str, not %s",
                     Py_TYPE(k)->tp_name, Py_TYPE(v)->tp_name);
        Py_DECREF(v);
        return -1;
    }
    if (v == Py_None || PyTuple_GET_SIZE(v) == 0) {
        Py_DECREF(v);
        return 0;
    }
    *out = v;
    return 0;
}

/* Compiles one signature through the pipeline (no NVRTC yet). */
static Entry *
transpile(KernelObject *k, const ArgKey *keys, int n, int idx32)
{
    Entry *e = calloc(1, sizeof(Entry));
    if (!e || !(e->keys = malloc(sizeof(ArgKey) * (size_t)(n + 1)))) {
        free(e);
        PyErr_NoMemory();
        return NULL;
    }
    PlRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = PL_KERNEL;
    rq.func = k->pyfunc;
    rq.label = PyUnicode_AsUTF8(k->name);
    rq.boundscheck = k->boundscheck;
    memcpy(rq.launch_bounds, k->launch_bounds, sizeof rq.launch_bounds);
    rq.idx32 = idx32;
    rq.numba = k->numba;
    rq.args = keys;
    rq.nargs = n;
    if (kernel_links(k, &rq.links) < 0) {
        entry_free(e);
        return NULL;
    }
    int failed = !rq.label || pl_transpile(&rq, &e->c) < 0;
    Py_XDECREF(rq.links);
    if (failed) {
        entry_free(e);
        return NULL;
    }
    /* how NVRTC optimises is the binary's business, not the CUDA's: set
     * after the front key's record, and keyed in the binary's cache key */
    e->c.fast_compile |= k->fast_compile;
    e->c.fastmath = k->fastmath;
    e->c.lineinfo = k->lineinfo;
    e->c.noopt = k->noopt;
    e->c.maxrreg = k->maxrreg;
    e->nargs = n;
    e->idx32 = idx32;
    memcpy(e->keys, keys, sizeof(ArgKey) * (size_t)n);
    return e;
}

Entry *
get_entry(KernelObject *k, const ArgKey *keys, int n, int idx32)
{
    Entry *e = find_entry(k, keys, n, idx32);
    return e ? e : add_entry(k, keys, n, idx32);
}

/* the signatures each device function was typed for in the kernels that
 * call it (PlCompiled.callees), a list by its pl_callee_key: its
 * dispatcher's .signatures, where Numba lists them */
static PyObject *callee_sigs;

static int
add_callee_sig(PyObject *key, PyObject *sig)
{
    PyObject *l = PyDict_GetItemWithError(callee_sigs, key);     /* borrowed */
    if (!l) {
        if (PyErr_Occurred() || !(l = PyList_New(0))) {
            return -1;
        }
        int r = PyDict_SetItem(callee_sigs, key, l);
        Py_DECREF(l);           /* the dict holds it */
        if (r < 0) {
            return -1;
        }
    }
    int has = PySequence_Contains(l, sig);
    return has < 0 ? -1 : has ? 0 : PyList_Append(l, sig);
}

/* text: lines "key\tsignature" */
static int
note_callees(const char *text)
{
    if (!text || (!callee_sigs && !(callee_sigs = PyDict_New()))) {
        return text ? -1 : 0;
    }
    for (const char *line = text; *line;) {
        const char *tab = strchr(line, '\t'), *eol = strchr(line, '\n');
        if (!tab || !eol || tab > eol) {
            break;
        }
        PyObject *key = PyUnicode_FromStringAndSize(line, tab - line);
        PyObject *sig = PyUnicode_FromStringAndSize(tab + 1, eol - tab - 1);
        int r = key && sig ? add_callee_sig(key, sig) : -1;
        Py_XDECREF(key);
        Py_XDECREF(sig);
        if (r < 0) {
            return -1;
        }
        line = eol + 1;
    }
    return 0;
}

/* the signatures kernels called k's function with (a device function, or a
 * kernel called from another), appended to l where it lacks them */
static int
callee_signatures(KernelObject *k, PyObject *l)
{
    Buf b;
    buf_init(&b);
    if (!callee_sigs || pl_callee_key(k->pyfunc, &b) < 0) {
        buf_free(&b);
        return 0;
    }
    PyObject *key = PyUnicode_FromString(b.s);
    buf_free(&b);
    PyObject *sigs = key ? PyDict_GetItemWithError(callee_sigs, key) : NULL;   /* borrowed */
    Py_XDECREF(key);
    for (Py_ssize_t i = 0; sigs && i < PyList_GET_SIZE(sigs); i++) {
        PyObject *s = PyList_GET_ITEM(sigs, i);
        int has = PySequence_Contains(l, s);
        if (has < 0 || (!has && PyList_Append(l, s) < 0)) {
            return -1;
        }
    }
    return PyErr_Occurred() ? -1 : 0;
}

Entry *
add_entry(KernelObject *k, const ArgKey *keys, int n, int idx32)
{
    Entry *e = transpile(k, keys, n, idx32);
    if (e && note_callees(e->c.callees) < 0) {
        entry_free(e);
        return NULL;
    }
    if (e) {
        e->next = k->entries;
        k->entries = e;
    }
    return e;
}

/* A signature given to inspect_* / compile: one string, or example args. */
static Entry *
entry_for_sig(KernelObject *k, PyObject *const *args, Py_ssize_t n)
{
    if (k->device) {
        PyErr_Format(PyExc_TypeError, "%U is a device function: it is compiled into the "
                     "kernels that call it; inspect those", k->name);
        return NULL;
    }
    if (n == 1 && PyUnicode_Check(args[0])) {
        /* a signature it lists (k.signatures): its entry, also where the
         * text names what a signature cannot spell (an Enum class) */
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(args[0], &len);
        text = text && strlen(text) == (size_t)len ? text : NULL;  /* an embedded NUL: parsed */
        for (Entry *e = k->entries; text && e; e = e->next) {
            if (e->c.sig && strcmp(e->c.sig, text) == 0) {
                return e;
            }
        }
        PyErr_Clear();
        Arena a;
        cj_arena_init(&a);
        Type **types, *ret;
        int nt = mod_parse_signature(&a, args[0], &types, &ret);
        if (nt < 0) {
            cj_arena_free(&a);
            return NULL;
        }
        ArgKey *keys = malloc(sizeof(ArgKey) * (size_t)(nt + 1));
        if (!keys) {
            cj_arena_free(&a);
            return (Entry *)PyErr_NoMemory();
        }
        for (int i = 0; i < nt; i++) {
            keys[i] = key_of_type(types[i]);
        }
        cj_arena_free(&a);
        int np = fixed_params(k);
        if (PyErr_Occurred()) {         /* a tuple type not interned */
            free(keys);
            return NULL;
        }
        if (np >= 0 && nt != np) {
            free(keys);
            PyErr_Format(PyExc_TypeError, "%U() takes %d argument%s; the signature gives %d",
                         k->name, np, np == 1 ? "" : "s", nt);
            return NULL;
        }
        Entry *e = get_entry(k, keys, nt, 0);
        free(keys);
        return e;
    }
    ArgKey keys[256];
    int idx32;
    if (n > 256) {
        PyErr_SetString(PyExc_TypeError, "too many arguments");
        return NULL;
    }
    int np = fixed_params(k);
    if (np >= 0 && n != np) {
        PyErr_Format(PyExc_TypeError, "%U() takes %d argument%s; %zd example%s given", k->name,
                     np, np == 1 ? "" : "s", n, n == 1 ? " was" : "s were");
        return NULL;
    }
    if (rt_keys_from_args(k->name, args, n, keys, &idx32) < 0) {
        return NULL;
    }
    return get_entry(k, keys, (int)n, idx32);
}

/* ---- Python methods: inspecting ---- */

static PyObject *
kernel_inspect_cuda(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    KernelObject *k = (KernelObject *)self;
    if (n == 0) {
        PyObject *d = PyDict_New();
        for (Entry *e = k->entries; d && e; e = e->next) {
            PyObject *s = PyUnicode_FromString(e->c.src);
            if (!s || PyDict_SetItemString(d, e->c.sig, s) < 0) {
                Py_XDECREF(s);
                Py_CLEAR(d);
                break;
            }
            Py_DECREF(s);
        }
        return d;
    }
    Entry *e = entry_for_sig(k, args, n);
    return e ? PyUnicode_FromString(e->c.src) : NULL;
}

/* arch= keyword, else the current GPU's, else sm_90 */
static int
pick_arch(PyObject *kwnames, PyObject *const *args, Py_ssize_t *n, char *arch, size_t len)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        PyObject *v = args[*n + i];
        if (!name || strcmp(name, "arch") != 0 || !PyUnicode_Check(v)) {
            PyErr_Format(PyExc_TypeError, "unexpected keyword argument '%s' (only arch='sm_90')",
                         name ? name : "?");
            return -1;
        }
        snprintf(arch, len, "%s", PyUnicode_AsUTF8(v));
        return 0;
    }
    if (rt_current_arch(arch, len) < 0) {
        PyErr_Clear();
        snprintf(arch, len, "sm_90");
    }
    return 0;
}

static PyObject *
compile_binary(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames,
               int cubin)
{
    KernelObject *k = (KernelObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    char arch[32];
    if (pick_arch(kwnames, args, &n, arch, sizeof arch) < 0) {
        return NULL;
    }
    Entry *e = entry_for_sig(k, args, n);
    if (!e) {
        return NULL;
    }
    return pl_binary(&e->c, arch, cubin);
}

static PyObject *
kernel_inspect_ptx(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kw)
{
    return compile_binary(self, args, nargsf, kw, 0);
}

static PyObject *
kernel_inspect_cubin(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kw)
{
    return compile_binary(self, args, nargsf, kw, 1);
}

static PyObject *
kernel_compile(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    KernelObject *k = (KernelObject *)self;
    Entry *e = entry_for_sig(k, args, n);
    if (!e) {
        return NULL;
    }
    int dev = mod_device();
    if (dev < 0 || load_entry(k, e, dev) < 0) {
        return NULL;
    }
    pl_log_launched(0);
    Py_RETURN_NONE;
}

/* _cooperative(*sig): the signature's entry is launched cooperatively (it
 * uses this_grid(), or a declared function with use_cooperative=True) */
static PyObject *
kernel_cooperative(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Entry *e = entry_for_sig((KernelObject *)self, args, n);
    if (!e) {
        return NULL;
    }
    return PyBool_FromLong(e->c.cooperative);
}

/* _coresident_blocks(threads, shmem, *sig): the most blocks of the
 * signature's entry resident at once on the current device (loaded now) */
static PyObject *
kernel_coresident_blocks(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    KernelObject *k = (KernelObject *)self;
    unsigned long threads = n >= 2 ? PyLong_AsUnsignedLong(args[0]) : 0;
    unsigned long shmem = n >= 2 && !PyErr_Occurred() ? PyLong_AsUnsignedLong(args[1]) : 0;
    if (n < 2 || PyErr_Occurred() || threads == 0 || threads > 1024 || shmem > UINT_MAX) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "_coresident_blocks(threads, shmem, *sig): threads "
                        "from 1 to 1024, shmem a byte count");
        return NULL;
    }
    Entry *e = entry_for_sig(k, args + 2, n - 2);
    int dev = e ? mod_device() : -1;
    if (dev < 0 || load_entry(k, e, dev) < 0) {
        return NULL;
    }
    const char *kname = PyUnicode_AsUTF8(k->name);
    long long most = kname ? rt_kernel_coresident_blocks(&e->rk[dev], (unsigned)threads,
                                                         (unsigned)shmem, kname) : -1;
    return most < 0 ? NULL : PyLong_FromLongLong(most);
}

/* ---- cuda.compile_ptx: a binary of its own ---- */

/* the options list of _compile_binary as C strings (borrowed from opts) */
static int
binary_options(PyObject *opts, const char **out, int max)
{
    Py_ssize_t n = PyList_Check(opts) ? PyList_GET_SIZE(opts) : -1;
    if (n < 0 || n > max) {
        PyErr_SetString(PyExc_TypeError, "_compile_binary: options must be a list of at "
                        "most 8 strings");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(opts, i);
        if (!PyUnicode_Check(o) || !(out[i] = PyUnicode_AsUTF8(o))) {
            PyErr_SetString(PyExc_TypeError, "_compile_binary: options must be strings");
            return -1;
        }
    }
    return (int)n;
}

/* the device function k on its own, for the signature's argument types,
 * under an extern "C" entry `name` returning the signature's return type
 * (__forceinline__ with forceinline, else __noinline__) */
static int
device_compiled(KernelObject *k, PyObject *sig, const char *name, int forceinline,
                PlCompiled *c)
{
    Arena a;
    cj_arena_init(&a);
    Type **types, *ret = NULL;
    int nt = mod_parse_signature(&a, sig, &types, &ret);
    ArgKey *keys = nt < 0 ? NULL : malloc(sizeof(ArgKey) * (size_t)(nt + 1));
    if (nt < 0 || !keys) {
        cj_arena_free(&a);
        return nt < 0 ? -1 : (PyErr_NoMemory(), -1);
    }
    for (int i = 0; i < nt; i++) {
        keys[i] = key_of_type(types[i]);
    }
    if (PyErr_Occurred()) {             /* a tuple type not interned */
        cj_arena_free(&a);
        free(keys);
        return -1;
    }
    PlRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = PL_DEVICE;
    rq.func = k->pyfunc;
    rq.label = name;
    rq.args = keys;
    rq.nargs = nt;
    rq.kname = name;
    rq.numba = k->numba;
    rq.forceinline = forceinline;
    if (ret && ret->kind == TY_VOID) {
        rq.has_ret = 2;
    } else if (ret && ret->kind == TY_SCALAR) {
        rq.has_ret = 1;
        rq.ret = key_of_type(ret);
    }
    cj_arena_free(&a);
    int r = pl_transpile(&rq, c);
    free(keys);
    return r;
}

/* _compile_binary(sig, arch, options, output, name) -> (PTX str, or CUBIN or
 * LTO-IR bytes (output RT_OUT_*: 0, 1, 2), return type str): a kernel's
 * entry for sig ("void"), or a device function compiled on its own as the
 * extern "C" function `name` (NVRTC -rdc=true keeps it: a .visible .func;
 * forceinline makes it __forceinline__, for LTO-IR).  cuda.compile_ptx's
 * engine. */
static PyObject *
kernel_compile_binary(PyObject *self, PyObject *args)
{
    KernelObject *k = (KernelObject *)self;
    PyObject *sig, *opts;
    const char *arch, *name, *copts[10];
    int output, forceinline = 0;
    if (!PyArg_ParseTuple(args, "UsO!is|p:_compile_binary", &sig, &arch, &PyList_Type, &opts,
                          &output, &name, &forceinline)) {
        return NULL;
    }
    if (output < RT_OUT_PTX || output > RT_OUT_LTOIR) {
        PyErr_Format(PyExc_ValueError, "_compile_binary: output %d is none of 0 (PTX), "
                     "1 (CUBIN), 2 (LTO-IR)", output);
        return NULL;
    }
    int nopts = binary_options(opts, copts, 8);
    if (nopts < 0) {
        return NULL;
    }
    if (!k->device) {
        Entry *e = entry_for_sig(k, &sig, 1);
        PyObject *bin = e ? pl_binary_ex(&e->c, arch, output, copts, nopts) : NULL;
        return bin ? Py_BuildValue("(Ns)", bin, "void") : NULL;
    }
    PlCompiled c;
    if (device_compiled(k, sig, name, forceinline, &c) < 0) {
        return NULL;
    }
    copts[nopts++] = "-rdc=true";
    PyObject *bin = pl_binary_ex(&c, arch, output, copts, nopts);
    PyObject *r = bin ? Py_BuildValue("(Ns)", bin, c.sig) : NULL;
    pl_compiled_free(&c);
    return r;
}

/* _device_source(sig, name) -> (CUDA C++, return type str): a device
 * function compiled on its own as the extern "C" function `name`, the text
 * _compile_binary gives NVRTC (inspect_llvm, compile_device) */
static PyObject *
kernel_device_source(PyObject *self, PyObject *args)
{
    KernelObject *k = (KernelObject *)self;
    PyObject *sig;
    const char *name;
    if (!PyArg_ParseTuple(args, "Us:_device_source", &sig, &name)) {
        return NULL;
    }
    if (!k->device) {
        PyErr_Format(PyExc_TypeError, "%U is a kernel: inspect_cuda(sig) gives its source",
                     k->name);
        return NULL;
    }
    PlCompiled c;
    if (device_compiled(k, sig, name, 0, &c) < 0) {
        return NULL;
    }
    PyObject *r = Py_BuildValue("(ss)", c.src ? c.src : "", c.sig);
    pl_compiled_free(&c);
    return r;
}

/* func_attribute(attr, *sig): cuFuncGetAttribute(attr) of the signature's
 * entry, loaded for the current device (compiled now if new) */
static PyObject *
kernel_func_attribute(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    KernelObject *k = (KernelObject *)self;
    if (n < 1 || !PyLong_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "func_attribute(attr, *sig): attr is a "
                        "CU_FUNC_ATTRIBUTE_* number");
        return NULL;
    }
    long attr = PyLong_AsLong(args[0]);
    if (attr == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Entry *e = entry_for_sig(k, args + 1, n - 1);
    int dev = e ? mod_device() : -1;
    if (dev < 0 || load_entry(k, e, dev) < 0) {
        return NULL;
    }
    pl_log_launched(0);
    int v;
    if (rt_kernel_attribute(&e->rk[dev], (int)attr, &v) < 0) {
        return NULL;
    }
    return PyLong_FromLong(v);
}

/* ---- the type ---- */

static void
kernel_dealloc(PyObject *self)
{
    KernelObject *k = (KernelObject *)self;
    PyObject_GC_UnTrack(self);
    if (k->weakrefs) {
        PyObject_ClearWeakRefs(self);
    }
    Py_CLEAR(k->pyfunc);
    Py_CLEAR(k->name);
    Py_CLEAR(k->last_key);
    Py_CLEAR(k->last_launcher);
    Py_CLEAR(k->call_grid);
    Py_CLEAR(k->call_block);
    while (k->entries) {
        Entry *e = k->entries;
        k->entries = e->next;
        entry_free(e);
    }
    while (k->aliases) {
        Alias *a = k->aliases;
        k->aliases = a->next;
        free(a->keys);
        free(a);
    }
    Py_TYPE(self)->tp_free(self);
}

static int
kernel_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((KernelObject *)self)->pyfunc);
    Py_VISIT(((KernelObject *)self)->last_launcher);
    return 0;
}

static int
kernel_clear(PyObject *self)
{
    Py_CLEAR(((KernelObject *)self)->pyfunc);
    Py_CLEAR(((KernelObject *)self)->last_key);
    Py_CLEAR(((KernelObject *)self)->last_launcher);
    Py_CLEAR(((KernelObject *)self)->call_grid);
    Py_CLEAR(((KernelObject *)self)->call_block);
    return 0;
}

/* launch_bounds=: (max threads[, min blocks[, max cluster size]]), each
 * positive; the Python layers give Numba's messages first */
static int
parse_launch_bounds(PyObject *lb, int out[3])
{
    if (!lb || lb == Py_None) {
        return 0;
    }
    if (!PyTuple_Check(lb) || PyTuple_GET_SIZE(lb) > 3) {
        PyErr_SetString(PyExc_ValueError, "launch_bounds must be a tuple of 1 to 3 ints");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lb); i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(lb, i));
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (v < 1 || v > (1 << 24)) {
            PyErr_Format(PyExc_ValueError, "launch_bounds[%zd] = %ld: each bound must be "
                         "a positive int", i, v);
            return -1;
        }
        out[i] = (int)v;
    }
    return 0;
}

static PyObject *
kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "device", "boundscheck", "fast_compile", "fastmath",
                             "launch_bounds", "carveout", "debug", "lineinfo", "opt",
                             "max_registers", "numba", NULL};
    PyObject *func, *lb = NULL;
    int device = 0, boundscheck = 0, fast = 0, fastmath = 0, carveout = CARVEOUT_UNSET;
    int debug = 0, lineinfo = 0, opt = 1, maxrreg = 0, numba = 0;
    int bounds[3] = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ppppOipppip:Kernel", kwlist, &func,
                                     &device, &boundscheck, &fast, &fastmath, &lb, &carveout,
                                     &debug, &lineinfo, &opt, &maxrreg, &numba)) {
        return NULL;
    }
    if (maxrreg < 0 || maxrreg > 255) {
        PyErr_Format(PyExc_ValueError, "max_registers=%d: give the most registers a thread "
                     "may use, 1 to 255 (or None: no limit)", maxrreg);
        return NULL;
    }
    if (parse_launch_bounds(lb, bounds) < 0) {
        return NULL;
    }
    if (carveout != CARVEOUT_UNSET && (carveout < -1 || carveout > 100)) {
        PyErr_Format(PyExc_ValueError, "carveout=%d: it must be between -1 and 100", carveout);
        return NULL;
    }
    if (device && fast) {
        PyErr_SetString(PyExc_TypeError, "fast_compile=True applies to kernels: a device "
                        "function is compiled into each kernel that calls it, with that "
                        "kernel's options");
        return NULL;
    }
    if (!PyFunction_Check(func)) {
        PyErr_Format(PyExc_TypeError, "@jit.rawkernel() decorates a Python function (def), "
                     "not %s", Py_TYPE(func)->tp_name);
        return NULL;
    }
    KernelObject *k = (KernelObject *)type->tp_alloc(type, 0);
    if (!k) {
        return NULL;
    }
    k->vectorcall = kernel_vectorcall;
    k->pyfunc = func;
    Py_INCREF(func);
    k->name = PyObject_GetAttrString(func, "__name__");
    k->device = device;
    /* Numba's debug=True: exception checks (CHK_DEBUG); a float divisor too
     * unless fastmath=True */
    k->boundscheck = (boundscheck ? CHK_BOUNDS : 0)
                     | (debug ? CHK_DEBUG | (fastmath ? 0 : CHK_FLOATDIV) : 0);
    k->fast_compile = fast;
    k->fastmath = fastmath;
    k->lineinfo = lineinfo;
    k->noopt = !opt;
    k->maxrreg = maxrreg;
    k->numba = numba;
    memcpy(k->launch_bounds, bounds, sizeof bounds);
    k->carveout = carveout;
    if (!k->name) {
        Py_DECREF(k);
        return NULL;
    }
    rt_nvrtc_warm_up();         /* NVRTC ready before the first call needs it */
    return (PyObject *)k;
}

static PyObject *
kernel_repr(PyObject *self)
{
    KernelObject *k = (KernelObject *)self;
    return PyUnicode_FromFormat("<cujit %s %U>", k->device ? "device function" : "kernel",
                                k->name);
}

/* cj_parse_signature for a Python str: a TypeError for text that cannot be
 * a signature (embedded NUL, lone surrogates) and for a parse error, whose
 * message quotes the text (decoded leniently: it may end inside a character) */
int
mod_parse_signature(Arena *a, PyObject *str, Type ***types, Type **ret)
{
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(str, &len);
    if (!s || (Py_ssize_t)strlen(s) != len) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "signature %R: not a signature string", str);
        return -1;
    }
    char msg[512];
    int nt = cj_parse_signature(a, s, types, ret, msg, sizeof msg);
    if (nt < 0) {
        PyObject *m = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace");
        if (m) {
            PyErr_SetObject(PyExc_TypeError, m);
            Py_DECREF(m);
        }
    }
    return nt;
}

int
mod_list_append_str(PyObject *list, const char *s)
{
    PyObject *o = PyUnicode_FromString(s);
    int r = o ? PyList_Append(list, o) : -1;
    Py_XDECREF(o);
    return r;
}

static PyObject *
kernel_signatures(PyObject *self, void *closure)
{
    KernelObject *k = (KernelObject *)self;
    PyObject *l = PyList_New(0);
    for (Entry *e = k->entries; l && e; e = e->next) {
        if (mod_list_append_str(l, e->c.sig) < 0) {
            Py_CLEAR(l);
        }
    }
    if (l && callee_signatures(k, l) < 0) {
        Py_CLEAR(l);
    }
    return l;
}

/* the signatures other kernels called this one's function with (a device
 * function's, or a kernel's called from another) that are none of its own:
 * the tail of .signatures */
static PyObject *
kernel_callee_signatures(PyObject *self, void *closure)
{
    Py_ssize_t own = 0;
    for (Entry *e = ((KernelObject *)self)->entries; e; e = e->next) {
        own++;
    }
    PyObject *all = kernel_signatures(self, closure);
    PyObject *tail = all ? PyList_GetSlice(all, own, PyList_GET_SIZE(all)) : NULL;
    Py_XDECREF(all);
    return tail;
}

static PyObject *
kernel_get_pyfunc(PyObject *self, void *closure)
{
    PyObject *f = ((KernelObject *)self)->pyfunc;
    Py_INCREF(f);
    return f;
}

static PyObject *
kernel_get_name(PyObject *self, void *closure)
{
    PyObject *f = ((KernelObject *)self)->name;
    Py_INCREF(f);
    return f;
}

static PyObject *
kernel_get_device(PyObject *self, void *closure)
{
    return PyBool_FromLong(((KernelObject *)self)->device);
}

/* cupyx.jit's names: cached_codes, {signature: CUDA C++} of what is compiled;
 * cached_code, the CUDA C++ when exactly one signature is */
static PyObject *
kernel_cached_codes(PyObject *self, void *closure)
{
    (void)closure;
    return kernel_inspect_cuda(self, NULL, 0);
}

static PyObject *
kernel_cached_code(PyObject *self, void *closure)
{
    (void)closure;
    KernelObject *k = (KernelObject *)self;
    if (!k->entries || k->entries->next) {
        PyErr_Format(PyExc_RuntimeError, "%U.cached_code: the kernel is compiled for %s; "
                     "use cached_codes (a dict by signature) or inspect_cuda(*sig)", k->name,
                     k->entries ? "several signatures" : "no signature yet");
        return NULL;
    }
    return PyUnicode_FromString(k->entries->c.src);
}

static PyObject *
kernel_get_by_signature(PyObject *self, void *closure)
{
    return PyBool_FromLong(((KernelObject *)self)->by_signature);
}

static int
kernel_set_by_signature(PyObject *self, PyObject *v, void *closure)
{
    int on = v ? PyObject_IsTrue(v) : 0;
    if (on < 0) {
        return -1;
    }
    ((KernelObject *)self)->by_signature = on;
    return 0;
}

/* {signature: [loads NVRTC compiled, loads a cache held]} (Dispatcher.stats) */
static PyObject *
kernel_load_counts(PyObject *self, void *closure)
{
    PyObject *d = PyDict_New();
    for (Entry *e = ((KernelObject *)self)->entries; d && e; e = e->next) {
        PyObject *sig = PyUnicode_FromString(e->c.sig);
        PyObject *old = sig ? PyDict_GetItemWithError(d, sig) : NULL;
        long had[2] = {0, 0};
        if (old && !PyArg_ParseTuple(old, "ll", &had[0], &had[1])) {
            old = NULL;
        }
        PyObject *v = sig && !PyErr_Occurred()
                      ? Py_BuildValue("(ll)", had[0] + e->ncompiled, had[1] + e->ncached) : NULL;
        if (!v || PyDict_SetItem(d, sig, v) < 0) {
            Py_CLEAR(d);
        }
        Py_XDECREF(sig);
        Py_XDECREF(v);
    }
    return d;
}

static PyObject *
kernel_get_numba_warn(PyObject *self, void *closure)
{
    return PyBool_FromLong(((KernelObject *)self)->numba_warn);
}

static int
kernel_set_numba_warn(PyObject *self, PyObject *v, void *closure)
{
    int on = v ? PyObject_IsTrue(v) : 0;
    if (on < 0) {
        return -1;
    }
    ((KernelObject *)self)->numba_warn = on;
    return 0;
}

static PyGetSetDef kernel_getset[] = {
    {"cached_codes", kernel_cached_codes, NULL, "{signature: CUDA C++} compiled so far", NULL},
    {"cached_code", kernel_cached_code, NULL, "the CUDA C++ of the one compiled signature", NULL},
    {"py_func", kernel_get_pyfunc, NULL, "the decorated Python function", NULL},
    {"__name__", kernel_get_name, NULL, NULL, NULL},
    {"__wrapped__", kernel_get_pyfunc, NULL, NULL, NULL},
    {"device", kernel_get_device, NULL, "True for device functions", NULL},
    {"signatures", kernel_signatures, NULL, "the compiled signatures, then those kernels "
     "called its function with (a device function)", NULL},
    {"_callee_signatures", kernel_callee_signatures, NULL, "the signatures kernels called "
     "its function with, as a device function", NULL},
    {"_by_signature", kernel_get_by_signature, kernel_set_by_signature,
     "True: launches use the compiled signatures only; arguments none takes as they are "
     "go through self._resolve_args(*args) (Numba's explicit signatures)", NULL},
    {"_numba_warnings", kernel_get_numba_warn, kernel_set_numba_warn,
     "True: launches give Numba's performance warnings (cuda.jit's Dispatcher)", NULL},
    {"_load_counts", kernel_load_counts, NULL, "{signature: (loads NVRTC compiled, loads a "
     "cache held)}: Dispatcher.stats", NULL},
    {NULL},
};

static PyMethodDef kernel_methods[] = {
    {"inspect_cuda", (PyCFunction)(void (*)(void))kernel_inspect_cuda, METH_FASTCALL,
     "inspect_cuda(*sig): the CUDA C++ for one signature (a string or example arguments); "
     "with no arguments, a dict of every compiled signature's"},
    {"inspect_ptx", (PyCFunction)(void (*)(void))kernel_inspect_ptx,
     METH_FASTCALL | METH_KEYWORDS, "inspect_ptx(*sig, arch=None): PTX from NVRTC"},
    {"inspect_cubin", (PyCFunction)(void (*)(void))kernel_inspect_cubin,
     METH_FASTCALL | METH_KEYWORDS, "inspect_cubin(*sig, arch=None): CUBIN bytes from NVRTC"},
    {"compile", (PyCFunction)(void (*)(void))kernel_compile, METH_FASTCALL,
     "compile(*sig): compile and load for the current device"},
    {"_compile_binary", kernel_compile_binary, METH_VARARGS,
     "_compile_binary(sig, arch, options, output, name, forceinline=False): (PTX, CUBIN or "
     "LTO-IR, return type) of a kernel's entry, or of a device function compiled on its own "
     "as extern \"C\" name (cuda.compile_ptx)"},
    {"_device_source", kernel_device_source, METH_VARARGS,
     "_device_source(sig, name): a device function's own CUDA C++ and return type"},
    {"_cooperative", (PyCFunction)(void (*)(void))kernel_cooperative, METH_FASTCALL,
     "_cooperative(*sig): launched cooperatively (this_grid())"},
    {"_coresident_blocks", (PyCFunction)(void (*)(void))kernel_coresident_blocks, METH_FASTCALL,
     "_coresident_blocks(threads, shmem, *sig): the most blocks resident at once"},
    {"func_attribute", (PyCFunction)(void (*)(void))kernel_func_attribute, METH_FASTCALL,
     "func_attribute(attr, *sig): cuFuncGetAttribute(attr) of the signature's kernel, "
     "loaded on the current device (0 max threads per block, 1 static shared bytes, "
     "2 constant bytes, 3 local bytes per thread, 4 registers per thread)"},
    {NULL},
};

static PyMappingMethods kernel_mapping = {
    .mp_subscript = kernel_getitem,
};

PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Kernel",
    .tp_basicsize = sizeof(KernelObject),
    .tp_dealloc = kernel_dealloc,
    .tp_repr = kernel_repr,
    .tp_as_mapping = &kernel_mapping,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(KernelObject, vectorcall),
    /* a base type: cujit.cuda's Dispatcher adds Numba's methods in Python */
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_BASETYPE,
    .tp_traverse = kernel_traverse,
    .tp_clear = kernel_clear,
    .tp_weaklistoffset = offsetof(KernelObject, weakrefs),
    .tp_methods = kernel_methods,
    .tp_getset = kernel_getset,
    .tp_new = kernel_new,
    .tp_doc = "A Python function compiled to a CUDA kernel (see @jit.rawkernel).",
};

PyObject *
mod_kernel_function(PyObject *obj, int *is_device)
{
    if (!PyObject_TypeCheck(obj, &KernelType)) {
        return NULL;
    }
    *is_device = ((KernelObject *)obj)->device;
    return ((KernelObject *)obj)->pyfunc;
}

int
kernel_add_types(PyObject *m)
{
    if (PyType_Ready(&KernelType) < 0 || PyType_Ready(&LauncherType) < 0) {
        return -1;
    }
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        return -1;
    }
    return pl_init(m, mod_kernel_function);
}
