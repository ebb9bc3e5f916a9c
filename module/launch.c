/* launch.c - launching a cujit.Kernel from C: k[grid, block, stream,
 * shared] (a Launcher), k(grid, block, args) (CuPy's style), the checks of
 * a launch configuration, and the hot path: a compact key of the
 * arguments' types finds the compiled entry, the runtime packs the
 * arguments, cuLaunchKernel. */
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/pack.h"

/* Numba's launch warnings (cujit/_warnings.py): the callables told of a
 * grid of fewer than MIN_GRID blocks and of a host array copied, NULL while
 * their switch is off; only kernels with numba_warn (cuda.jit's) call them */
#define MIN_GRID 128
static PyObject *grid_hook, *copy_hook;

static int
call_hook(PyObject *hook, const char *kind, PyObject *value)
{
    PyObject *r = PyObject_CallFunction(hook, "sO", kind, value);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* a grid of fewer than MIN_GRID blocks; -1 with the warning raised */
static int
warn_grid(const KernelObject *k, const LaunchConfig *c)
{
    if (!k->numba_warn || !grid_hook) {
        return 0;
    }
    unsigned long long n = (unsigned long long)c->grid[0] * c->grid[1] * c->grid[2];
    if (n >= MIN_GRID) {
        return 0;
    }
    PyObject *v = PyLong_FromUnsignedLongLong(n);
    int r = v ? call_hook(grid_hook, "grid", v) : -1;
    Py_XDECREF(v);
    return r;
}

/* Numba's consumer rule (cujit/cuda/interop.py, _launch_sync): a cuda.jit kernel
 * given a foreign array whose __cuda_array_interface__ names a stream
 * synchronizes that stream before the launch, as Numba's as_cuda_array
 * does, unless CUDA_ARRAY_INTERFACE_SYNC is off (the hook reads it).  Every
 * kernel's launch stream also waits for the producer's (runtime/args.c,
 * from_cai), which is all cujit's own kernels do. */
static PyObject *cai_sync_hook;

/* the producer's stream of array a, given to the hook as CAI's int */
static int
sync_producer(const RtArray *a)
{
    PyObject *h = PyLong_FromVoidPtr(a->stream);
    PyObject *r = h ? PyObject_CallOneArg(cai_sync_hook, h) : NULL;
    Py_XDECREF(h);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* Numba's rules for a cuda.jit kernel's array argument that is not a device
 * array of its own: the copy warning of a host array, the synchronization
 * of a foreign array's producer stream */
static int
numba_arg_rules(const RtArray *a, PyObject *arg)
{
    if (a->host && copy_hook && call_hook(copy_hook, "copy", arg) < 0) {
        return -1;
    }
    return a->stream && cai_sync_hook ? sync_producer(a) : 0;
}

/* _set_cai_sync(hook): a callable of the stream's handle, or None */
static PyObject *
set_cai_sync(PyObject *self, PyObject *hook)
{
    Py_XSETREF(cai_sync_hook, hook == Py_None ? NULL : Py_NewRef(hook));
    Py_RETURN_NONE;
}

/* _set_launch_warnings(grid_hook, copy_hook): each a callable or None */
static PyObject *
set_launch_warnings(PyObject *self, PyObject *args)
{
    PyObject *g, *c;
    if (!PyArg_ParseTuple(args, "OO:_set_launch_warnings", &g, &c)) {
        return NULL;
    }
    Py_XSETREF(grid_hook, g == Py_None ? NULL : Py_NewRef(g));
    Py_XSETREF(copy_hook, c == Py_None ? NULL : Py_NewRef(c));
    Py_RETURN_NONE;
}

int
load_entry(KernelObject *k, Entry *e, int dev)
{
    if (e->loaded[dev]) {
        return 0;
    }
    char sibling[32];
    snprintf(sibling, sizeof sibling, "_x%d", e->c.coarse_vec);
    int from = pl_load(&e->c, e->c.coarse_vec ? sibling : NULL, &e->rk[dev], &e->rkx[dev]);
    if (from < 0) {
        return -1;
    }
    *(from ? &e->ncached : &e->ncompiled) += 1;
    if (k->carveout != CARVEOUT_UNSET) {
        const char *name = PyUnicode_AsUTF8(k->name);
        if (!name || rt_kernel_set_carveout(&e->rk[dev], k->carveout, name) < 0
            || (e->c.coarse_vec && rt_kernel_set_carveout(&e->rkx[dev], k->carveout, name) < 0)) {
            return -1;
        }
    }
    e->loaded[dev] = 1;
    return 0;
}

/* the current device's limits, read once per device */
static int
device_limits(int *maxt, int *maxs)
{
    static int cached_dev = -1, cached_t, cached_s;
    int dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    if (dev != cached_dev) {
        cached_t = rt_max_threads_per_block();
        cached_s = rt_max_shared_per_block();
        if (cached_t < 0 || cached_s < 0) {
            return -1;
        }
        cached_dev = dev;
    }
    *maxt = cached_t;
    *maxs = cached_s;
    return 0;
}

static int
check_config(LaunchConfig *c)
{
    unsigned long long threads = (unsigned long long)c->block[0] * c->block[1] * c->block[2];
    int maxt, maxs;
    if (device_limits(&maxt, &maxs) < 0) {
        return -1;
    }
    if (threads > (unsigned long long)maxt || c->block[2] > 64) {
        PyErr_Format(PyExc_ValueError, "block of %u x %u x %u = %llu threads: this device "
                     "allows at most %d threads per block (and at most 64 in z)",
                     c->block[0], c->block[1], c->block[2], threads, maxt);
        return -1;
    }
    if (c->shmem > (unsigned)maxs) {
        PyErr_Format(PyExc_ValueError, "%u bytes of dynamic shared memory asked for; this "
                     "device allows at most %d per block", c->shmem, maxs);
        return -1;
    }
    return 0;
}

#define MAXARGS 64

/* "parameter 'x'" for messages */
static void
param_name(KernelObject *k, Py_ssize_t i, char *buf, size_t n)
{
    PyObject *names = PyObject_GetAttrString(PyFunction_GET_CODE(k->pyfunc), "co_varnames");
    const char *s = names && PyTuple_Check(names) && i < PyTuple_GET_SIZE(names)
                    ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i)) : NULL;
    if (s) {
        snprintf(buf, n, "%s() parameter '%s'", PyUnicode_AsUTF8(k->name), s);
    } else {
        PyErr_Clear();
        snprintf(buf, n, "%s() argument %zd", PyUnicode_AsUTF8(k->name), i + 1);
    }
    Py_XDECREF(names);
}

/* "argument: <what went wrong>" becomes "k() parameter 'x': ..." (named only
 * on failure: the launch path formats nothing) */
static void
name_arg_error(KernelObject *k, Py_ssize_t i)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *m = s ? PyUnicode_AsUTF8(s) : NULL;
    if (!m) {
        Py_XDECREF(s);
        PyErr_Restore(type, value, tb);
        return;
    }
    if (strncmp(m, "argument: ", 10) == 0) {
        m += 10;
    }
    char what[128];
    param_name(k, i, what, sizeof what);
    PyErr_Format(type ? type : PyExc_TypeError, "%s: %s", what, m);
    Py_DECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

static PyObject *
arg_count_error(KernelObject *k, Py_ssize_t n, int np)
{
    if (n < np) {
        char what[128];
        param_name(k, n, what, sizeof what);
        PyErr_Format(PyExc_TypeError, "%s is missing: %U() takes %d argument%s, got %zd", what,
                     k->name, np, np == 1 ? "" : "s", n);
    } else {
        PyErr_Format(PyExc_TypeError, "%U() takes %d argument%s but %zd were given", k->name,
                     np, np == 1 ? "" : "s", n);
    }
    return NULL;
}

/* the coarsened entry applies: a 1-d launch and aligned packed arrays */
static int
coarse_ok(const Entry *e, const LaunchConfig *c, const RtArray *arrs, const int *isarr,
          Py_ssize_t n)
{
    if (c->grid[1] != 1 || c->grid[2] != 1 || c->block[1] != 1 || c->block[2] != 1
        || c->shmem != 0) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n && i < 64; i++) {
        if ((e->c.coarse_mask >> i) & 1) {
            uintptr_t align = (uintptr_t)cj_dtypes[arrs[i].dtype].size * (uintptr_t)e->c.coarse_vec;
            if (!isarr[i] || (uintptr_t)arrs[i].ptr % align) {
                return 0;
            }
        }
    }
    return 1;
}

/* every thread's index in the grid fits an int32: an idx32 entry computes
 * grid(n) and gridsize(n) in 32 bits, so a larger grid takes the 64-bit one
 * (Numba's issue 9229: 22121216 blocks of 256 threads) */
static int
grid_fits32(const LaunchConfig *c)
{
    for (int d = 0; d < 3; d++) {
        if ((uint64_t)c->grid[d] * c->block[d] > INT32_MAX) {
            return 0;
        }
    }
    return 1;
}

static LaunchConfig last_config;    /* the last launch, for _bench_launch */
static Entry *last_entry;
static int last_dev;

/* What launch() keeps per argument (70 KB: see rt_scratch_get) */
typedef struct {
    RtArray arrs[MAXARGS];
    ArgKey keys[MAXARGS];
    int isarr[MAXARGS];
    void *params[MAXARGS + 1];
    unsigned char buf[MAXARGS * (8 + 16 * RT_MAXDIM)] __attribute__((aligned(16)));
} LaunchScratch;

static LaunchScratch launch_static;
static int launch_static_busy;

/* After a launch of a kernel with asserts or bounds checks: its error
 * record read (synchronising) and a failure raised as AssertionError or
 * IndexError at the Python line; -1 with that or a CUDA error */
static int
check_record(KernelObject *k, Entry *e, int dev, void *stream, const char *kname)
{
    CjErrorRecord rec;
    int r = rt_check_error_record(&e->rk[dev], stream, kname, &rec);
    if (r <= 0) {
        return r;
    }
    PyObject *file = PyFunction_GET_CODE(k->pyfunc)
                     ? ((PyCodeObject *)PyFunction_GET_CODE(k->pyfunc))->co_filename : NULL;
    const char *fs = file ? PyUnicode_AsUTF8(file) : "?";
    if (rec.kind == 3) {
        raise_from_kernel(rec.msg_id >= 0 && rec.msg_id < e->c.nmsgs ? e->c.msgs[rec.msg_id]
                          : NULL, kname, fs, &rec);
    } else if (rec.kind == 1) {
        const char *m = rec.msg_id >= 0 && rec.msg_id < e->c.nmsgs ? e->c.msgs[rec.msg_id] : NULL;
        PyErr_Format(PyExc_AssertionError, "%s%sassert failed in kernel %s at %s:%d, "
                     "block (%u, %u, %u), thread (%u, %u, %u)%s", m ? m : "", m ? " (" : "",
                     kname, fs, rec.line, rec.block[0], rec.block[1], rec.block[2],
                     rec.thread[0], rec.thread[1], rec.thread[2], m ? ")" : "");
    } else {
        PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for axis %d with size %lld "
                     "in kernel %s at %s:%d, block (%u, %u, %u), thread (%u, %u, %u)",
                     rec.index, rec.dim, rec.extent, kname, fs, rec.line, rec.block[0],
                     rec.block[1], rec.block[2], rec.thread[0], rec.thread[1], rec.thread[2]);
    }
    return -1;
}

/* an entry's key takes an argument's of the same kind, dtype and rank, and
 * of its layout or any where it is 'A' */
static int
key_takes(ArgKey e, ArgKey a)
{
    return e.kind == a.kind && e.dtype == a.dtype && e.ndim == a.ndim
           && ((e.flags & 3) == 3 || (e.flags & 3) == (a.flags & 3));
}

/* a raw pointer parameter takes a 64-bit integer (the address; packed as
 * the number it is) */
static int
ptr_takes(ArgKey e, ArgKey a)
{
    return e.kind == RT_KEY_PTR && a.kind == 1 && (a.dtype == DT_I64 || a.dtype == DT_U64);
}

/* An entry that takes these keys though they differ from its own: the same
 * kinds, dtypes and ranks, arrays of any layout where the entry's is 'A'
 * (flags 3: rt_array_key), and 64-bit indexing where the arguments would
 * allow 32; a raw pointer takes a 64-bit integer */
static Entry *
find_compatible(KernelObject *k, const ArgKey *keys, int n, int idx32)
{
    for (Entry *e = k->entries; e; e = e->next) {
        if (e->nargs != n || (e->idx32 && !idx32)) {
            continue;
        }
        int i = 0;
        while (i < n && (key_takes(e->keys[i], keys[i]) || ptr_takes(e->keys[i], keys[i]))) {
            i++;
        }
        if (i == n) {
            return e;
        }
    }
    return NULL;
}

static PyObject *launch_ex(KernelObject *k, const LaunchConfig *c, PyObject *const *args,
                           Py_ssize_t n, const ArgKey *orig, int orig_idx32);

/* the entry an earlier resolution chose for these keys, or NULL */
static Entry *
find_alias(KernelObject *k, const ArgKey *keys, int n, int idx32)
{
    for (Alias *a = k->aliases; a; a = a->next) {
        if (a->nargs == n && a->idx32 == idx32
            && memcmp(a->keys, keys, sizeof(ArgKey) * (size_t)n) == 0) {
            return a->target;
        }
    }
    return NULL;
}

/* remembers that keys launch e (best effort: without memory, the next launch
 * resolves again); numbers are then packed as e's dtypes (rt_pack_scalar
 * casts a number of another dtype as NumPy does) */
static void
add_alias(KernelObject *k, const ArgKey *keys, int n, int idx32, Entry *e)
{
    Alias *a = calloc(1, sizeof *a);
    if (!a || !(a->keys = malloc(sizeof(ArgKey) * (size_t)(n + 1)))) {
        free(a);
        return;
    }
    memcpy(a->keys, keys, sizeof(ArgKey) * (size_t)n);
    a->nargs = n;
    a->idx32 = idx32;
    a->target = e;
    a->next = k->aliases;
    k->aliases = a;
}

/* A dispatcher with explicit signatures (Numba's cuda.jit(sigs), specialize)
 * compiles nothing else: arguments no entry takes as they are go through its
 * _resolve_args(*args), which picks a signature and converts the numbers to
 * its types (or raises Numba's TypeError, no matching definition); the
 * launch then takes the entry that accepts them. */
static PyObject *
launch_resolved(KernelObject *k, const LaunchConfig *c, PyObject *const *args, Py_ssize_t n,
                const ArgKey *keys, int idx32)
{
    PyObject *t = PyTuple_New(n), *conv = NULL, *r = NULL;
    for (Py_ssize_t i = 0; t && i < n; i++) {
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    }
    PyObject *m = t ? PyObject_GetAttrString((PyObject *)k, "_resolve_args") : NULL;
    conv = m ? PyObject_Call(m, t, NULL) : NULL;
    if (conv && (!PyTuple_Check(conv) || PyTuple_GET_SIZE(conv) != n)) {
        PyErr_SetString(PyExc_TypeError, "_resolve_args must return a tuple of the arguments");
    } else if (conv) {
        r = launch_ex(k, c, &PyTuple_GET_ITEM(conv, 0), n, keys, idx32);
    }
    Py_XDECREF(t);
    Py_XDECREF(m);
    Py_XDECREF(conv);
    return r;
}

/* A tuple argument's key, its arrays read into leaves; *tbytes: the most
 * bytes the tuple arguments so far can pack into.  The launch's scratch
 * must hold them beside the n arguments' own (8 + 16 * RT_MAXDIM each at
 * most).  -1 with an exception. */
static int
tuple_arg(PyObject *o, RtLeaves *leaves, void *stream, ArgKey *key, int *idx32, size_t *tbytes,
          Py_ssize_t n)
{
    if (rt_tuple_key(o, leaves, 1, stream, key, idx32) < 0) {
        return -1;
    }
    size_t room = sizeof launch_static.buf - (size_t)n * (8 + 16 * RT_MAXDIM);
    *tbytes += rt_tuple_of(*key)->maxbytes;
    if (*tbytes > room) {
        PyErr_Format(PyExc_TypeError, "argument: the tuple arguments take more than %zu "
                     "bytes of kernel parameters: pass the arrays separately", room);
        return -1;
    }
    return 0;
}

/* After an argument was found no array: 1 when it is an Enum member (its
 * key in *key, the error cleared); else the error stands (or the member's
 * own, a value that is not a number) and 0 */
static int
enum_arg(PyObject *o, ArgKey *key)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    int r = rt_enum_key(o, key);
    if (r == 0) {
        PyErr_Restore(type, value, tb);
        return 0;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return r > 0;
}

/* Launches k on args with config c: the hot path. */
static PyObject *
launch(KernelObject *k, const LaunchConfig *c, PyObject *const *args, Py_ssize_t n)
{
    return launch_ex(k, c, args, n, NULL, 0);
}

/* orig: the arguments came from _resolve_args (by_signature kernels), and
 * these were the keys of the ones given */
static PyObject *
launch_ex(KernelObject *k, const LaunchConfig *c, PyObject *const *args, Py_ssize_t n,
          const ArgKey *orig, int orig_idx32)
{
    if (k->device) {
        PyErr_Format(PyExc_RuntimeError, "Cannot compile a device function as a kernel: %U "
                     "is a device function: call it from a kernel", k->name);
        return NULL;
    }
    int np = fixed_params(k);
    if (np >= 0 && n != np) {
        return arg_count_error(k, n, np);
    }
    if (n > MAXARGS) {
        PyErr_SetString(PyExc_TypeError, "too many kernel arguments");
        return NULL;
    }
    int dev = mod_device();
    if (dev < 0) {
        rt_err_in(PyUnicode_AsUTF8(k->name), "kernel '%s'", PyUnicode_AsUTF8(k->name));
        return NULL;
    }
    LaunchScratch *sc = rt_scratch_get(&launch_static, &launch_static_busy, sizeof *sc);
    if (!sc) {
        return NULL;
    }
    RtArray *arrs = sc->arrs;
    ArgKey *keys = sc->keys;
    int *isarr = sc->isarr;
    Py_ssize_t got = 0;
    int idx32 = 1, printing = 0, redo = 0;
    PyObject *result = NULL;
    RtLeaves leaves = {NULL, 0, 0};     /* the arrays inside tuple arguments */
    size_t tbytes = 0;
    for (; got < n; got++) {
        DType dt;
        isarr[got] = 0;
        if (!Py_IS_TYPE(args[got], &rt_DeviceArray_Type) && rt_scalar_dtype(args[got], &dt)) {
            keys[got] = rt_scalar_key(dt);
            continue;
        }
        if (PyTuple_Check(args[got])) {
            isarr[got] = 2;
            if (tuple_arg(args[got], &leaves, c->stream, &keys[got], &idx32, &tbytes, n) < 0) {
                name_arg_error(k, got);
                goto done;
            }
            continue;
        }
        if (rt_get_array(args[got], &arrs[got], c->stream, "argument") < 0) {
            if (enum_arg(args[got], &keys[got]) > 0) {
                isarr[got] = 3;         /* an Enum member: its value */
                continue;
            }
            name_arg_error(k, got);
            goto done;
        }
        isarr[got] = 1;
        RtArray *a = &arrs[got];
        if (((uintptr_t)a->host | (uintptr_t)a->stream) && k->numba_warn && !orig
            && numba_arg_rules(a, args[got]) < 0) {
            got++;                      /* released at done */
            goto done;
        }
        char lay = a->c_contig ? 'C' : (a->f_contig && a->ndim >= 2) ? 'F' : 'A';
        keys[got] = rt_array_key(a->dtype, a->ndim, lay, a->readonly);
        idx32 &= rt_fits32(a->ndim, a->shape, a->strides);
    }
    idx32 = idx32 && grid_fits32(c);
    Entry *e = find_entry(k, keys, (int)n, idx32);
    if (!e && k->by_signature) {
        e = orig ? find_compatible(k, keys, (int)n, idx32) : find_alias(k, keys, (int)n, idx32);
        if (e && orig) {
            add_alias(k, orig, (int)n, orig_idx32, e);
        } else if (!e && !orig) {
            redo = 1;                   /* after releasing the arguments */
            goto done;
        }
    }
    e = e ? e : add_entry(k, keys, (int)n, idx32);
    idx32 = e ? e->idx32 : idx32;       /* a compatible or aliased entry's indexing */
    if (!e || load_entry(k, e, dev) < 0) {
        goto done;
    }
    printing = e->c.has_print;
    if (e->c.has_dynshared && c->shmem == 0) {
        PyErr_Format(PyExc_ValueError, "%U uses jit.shared_memory(dtype, None): give the "
                     "dynamic shared memory size at launch: k[grid, block, stream, nbytes], "
                     "k[grid, block](..., shared_mem=nbytes) or k(grid, block, args, "
                     "shared_mem=nbytes)",
                     k->name);
        goto done;
    }
    unsigned char *buf = sc->buf;
    void **params = sc->params;
    size_t off;
    /* the entry's keys: an alias packs numbers as its signature's dtypes */
    if (rt_pack_args(args, arrs, isarr, e->keys, n, idx32, leaves.a, buf, params, &off) < 0) {
        /* a Python int out of an explicit signature's range wraps, as in
         * Numba (cuda.jit("void(int32)")'s k[1, 1](0x80000000)) */
        if (k->by_signature && !orig && PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            redo = 1;
        }
        goto done;
    }
    const char *kname = PyUnicode_AsUTF8(k->name);
    if (e->c.coarse_vec && coarse_ok(e, c, arrs, isarr, n)) {
        /* the same work, vec elements per thread in aligned packs */
        unsigned v = (unsigned)e->c.coarse_vec, g[3] = {1, 1, 1};
        uint64_t total = (uint64_t)c->grid[0] * c->block[0];
        uint64_t threads = (total + v - 1) / v;
        g[0] = (unsigned)((threads + c->block[0] - 1) / c->block[0]);
        off = (off + 7) & ~(size_t)7;
        params[n] = buf + off;
        rt_pack_index(buf, &off, (int64_t)total, idx32);
        if (rt_launch(&e->rkx[dev], g, c->block, 0, c->stream, params, kname) < 0) {
            goto done;
        }
    } else if (e->c.cooperative) {
        if (rt_launch_cooperative(&e->rk[dev], c->grid, c->block, c->shmem, c->stream, params,
                                  kname) < 0) {
            goto done;
        }
    } else if (rt_launch(&e->rk[dev], c->grid, c->block, c->shmem, c->stream, params,
                         kname) < 0) {
        goto done;
    }
    if (pl_log_pending) {
        pl_log_launched(1);     /* CUJIT_LOG: a first call's line, with its launch */
    }
    last_entry = e;
    last_dev = dev;
    last_config = *c;
    if (e->c.has_print && !e->c.check_errors && rt_stream_synchronize(c->stream, kname) < 0) {
        goto done;      /* print() is for debugging: its output shows at once */
    }
    if (e->c.check_errors && check_record(k, e, dev, c->stream, kname) < 0) {
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (Py_ssize_t i = 0; i < got; i++) {
        if (isarr[i] == 1 && (arrs[i].host || arrs[i].owned)
            && rt_array_release(&arrs[i], c->stream, result != NULL) < 0 && result) {
            Py_CLEAR(result);
        }
    }
    if (leaves.cap && rt_leaves_release(&leaves, c->stream, result != NULL) < 0 && result) {
        Py_CLEAR(result);
    }
    if (printing) {
        fflush(stdout);
    }
    if (redo) {
        /* the nested launch takes a scratch of its own while this one holds keys */
        result = launch_resolved(k, c, args, n, keys, idx32);
    } else if (!result) {
        rt_err_in(PyUnicode_AsUTF8(k->name), "kernel '%s'", PyUnicode_AsUTF8(k->name));
    }
    rt_scratch_put(sc, &launch_static, &launch_static_busy);
    return result;
}

/* ---- launchers: k[grid, block, stream, shmem] ---- */

typedef struct {
    PyObject_HEAD
    KernelObject *kernel;
    LaunchConfig cfg;
    PyObject *stream_obj;       /* kept alive while the launcher lives */
    PyObject *callbacks;        /* pre_launch_callbacks (a list, made when first read) */
    vectorcallfunc vectorcall;
} LauncherObject;

/* Numba's pre-launch callbacks: callback(kernel, launcher) before each launch */
static int
run_callbacks(LauncherObject *l)
{
    PyObject *cbs = PyList_GetSlice(l->callbacks, 0, PY_SSIZE_T_MAX);
    for (Py_ssize_t i = 0; cbs && i < PyList_GET_SIZE(cbs); i++) {
        PyObject *r = PyObject_CallFunctionObjArgs(PyList_GET_ITEM(cbs, i),
                                                   (PyObject *)l->kernel, (PyObject *)l, NULL);
        if (!r) {
            Py_CLEAR(cbs);
            return -1;
        }
        Py_DECREF(r);
    }
    if (!cbs) {
        return -1;
    }
    Py_DECREF(cbs);
    return 0;
}

static int shmem_from(PyObject *shmem, unsigned *out);

/* launch_kw := 'shared_mem' '=' int | 'stream' '=' stream: cupyx.jit's
 * k[grid, block](*args, shared_mem=n, stream=s), whose launcher passes
 * these two keywords on to k(grid, block, args, ...); c is the launcher's
 * configuration with them applied */
static int
launcher_keywords(LauncherObject *l, PyObject *const *vals, PyObject *kwnames, LaunchConfig *c)
{
    *c = l->cfg;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int is_stream = PyUnicode_CompareWithASCIIString(name, "stream") == 0;
        if (!is_stream && PyUnicode_CompareWithASCIIString(name, "shared_mem") != 0) {
            PyErr_Format(PyExc_TypeError, "k[grid, block](...) got an unexpected keyword "
                         "argument '%U': a launch takes shared_mem= and stream= (as cupyx.jit's) "
                         "besides the kernel's arguments, which are positional", name);
            return -1;
        }
        if (is_stream ? l->stream_obj != NULL : l->cfg.shmem != 0) {
            PyErr_Format(PyExc_TypeError, "k[grid, block, stream, shared_mem](...) got %U= "
                         "again: give it in the brackets or as a keyword, not both", name);
            return -1;
        }
        if (is_stream ? rt_get_stream(vals[i], &c->stream) < 0
                      : shmem_from(vals[i], &c->shmem) < 0) {
            return -1;
        }
    }
    return check_config(c);
}

static PyObject *
launcher_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    LauncherObject *l = (LauncherObject *)self;
    LaunchConfig kw;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    int has_kw = kwnames && PyTuple_GET_SIZE(kwnames);
    if (has_kw && launcher_keywords(l, args + n, kwnames, &kw) < 0) {
        rt_err_in(PyUnicode_AsUTF8(l->kernel->name), "kernel '%s'",
                  PyUnicode_AsUTF8(l->kernel->name));
        return NULL;
    }
    if (l->callbacks && PyList_GET_SIZE(l->callbacks) && run_callbacks(l) < 0) {
        return NULL;
    }
    return launch(l->kernel, has_kw ? &kw : &l->cfg, args, n);
}

/* A launcher and its kernel refer to each other (the kernel keeps its last
 * launcher): both take part in the cycle collector, so that a kernel made in
 * a function and launched is freed with what it keeps (its compiled code,
 * the device arrays it reads as globals). */
static int
launcher_traverse(PyObject *self, visitproc visit, void *arg)
{
    LauncherObject *l = (LauncherObject *)self;
    Py_VISIT(l->kernel);
    Py_VISIT(l->stream_obj);
    Py_VISIT(l->callbacks);
    return 0;
}

static int
launcher_clear(PyObject *self)
{
    LauncherObject *l = (LauncherObject *)self;
    Py_CLEAR(l->kernel);
    Py_CLEAR(l->stream_obj);
    Py_CLEAR(l->callbacks);
    return 0;
}

static PyObject *
dims_tuple(const unsigned d[3])
{
    return Py_BuildValue("(III)", d[0], d[1], d[2]);
}

static PyObject *
launcher_griddim(PyObject *self, void *closure)
{
    return dims_tuple(((LauncherObject *)self)->cfg.grid);
}

static PyObject *
launcher_blockdim(PyObject *self, void *closure)
{
    return dims_tuple(((LauncherObject *)self)->cfg.block);
}

static PyObject *
launcher_sharedmem(PyObject *self, void *closure)
{
    return PyLong_FromUnsignedLong(((LauncherObject *)self)->cfg.shmem);
}

static PyObject *
launcher_stream(PyObject *self, void *closure)
{
    PyObject *s = ((LauncherObject *)self)->stream_obj;
    return s ? Py_NewRef(s) : PyLong_FromLong(0);
}

static PyObject *
launcher_kernel(PyObject *self, void *closure)
{
    return Py_NewRef((PyObject *)((LauncherObject *)self)->kernel);
}

/* the list, made at its first use: a launcher whose callbacks were read is
 * not the one the kernel hands out again for the same configuration */
static PyObject *
launcher_callbacks(PyObject *self, void *closure)
{
    LauncherObject *l = (LauncherObject *)self;
    if (!l->callbacks && !(l->callbacks = PyList_New(0))) {
        return NULL;
    }
    KernelObject *k = l->kernel;
    if (k->last_launcher == self) {
        Py_CLEAR(k->last_key);
        Py_CLEAR(k->last_launcher);
    }
    return Py_NewRef(l->callbacks);
}

/* pickled as kernel[grid, block, stream, sharedmem] (the kernel by its own
 * reducer); Numba's PicklingError where callbacks are set */
static PyObject *
launcher_reduce(PyObject *self, PyObject *unused)
{
    LauncherObject *l = (LauncherObject *)self;
    if (l->callbacks && PyList_GET_SIZE(l->callbacks)) {
        PyObject *pickle = PyImport_ImportModule("pickle");
        PyObject *err = pickle ? PyObject_GetAttrString(pickle, "PicklingError") : NULL;
        if (err) {
            PyErr_SetString(err, "Cannot pickle configured launches with pre-launch "
                            "callbacks: a callback is not part of what a launcher pickles; "
                            "pickle the kernel and add the callback after loading it");
        }
        Py_XDECREF(pickle);
        Py_XDECREF(err);
        return NULL;
    }
    PyObject *op = PyImport_ImportModule("operator");
    PyObject *getitem = op ? PyObject_GetAttrString(op, "getitem") : NULL;
    PyObject *r = NULL;
    if (getitem) {
        r = Py_BuildValue("(O(O((III)(III)OI)))", getitem, (PyObject *)l->kernel,
                          l->cfg.grid[0], l->cfg.grid[1], l->cfg.grid[2], l->cfg.block[0],
                          l->cfg.block[1], l->cfg.block[2],
                          l->stream_obj ? l->stream_obj : Py_None, l->cfg.shmem);
    }
    Py_XDECREF(op);
    Py_XDECREF(getitem);
    return r;
}

static PyGetSetDef launcher_getset[] = {
    {"griddim", launcher_griddim, NULL, "the grid, (x, y, z)", NULL},
    {"blockdim", launcher_blockdim, NULL, "the block, (x, y, z)", NULL},
    {"sharedmem", launcher_sharedmem, NULL, "bytes of dynamic shared memory", NULL},
    {"stream", launcher_stream, NULL, "the stream given, or 0", NULL},
    {"dispatcher", launcher_kernel, NULL, "the kernel launched", NULL},
    {"pre_launch_callbacks", launcher_callbacks, NULL,
     "callables run as callback(kernel, launcher) before each launch (Numba's)", NULL},
    {NULL},
};

static PyMethodDef launcher_methods[] = {
    {"__reduce__", launcher_reduce, METH_NOARGS, "kernel[grid, block, stream, sharedmem]"},
    {NULL},
};

static void
launcher_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    launcher_clear(self);
    PyObject_GC_Del(self);
}

/* _bench_launch(launcher, args, n, mode): microseconds per launch of n
 * launches from a C loop: mode 0 through the whole launch path; mode 1 only
 * cuLaunchKernel with the kernel and parameters of a first launch through
 * the whole path, as a C program would call it; mode 2 the same after the
 * current-context check of every launch (rt_ensure_context); mode 3 that
 * check alone, no launch. */
static PyObject *
bench_launch(PyObject *self, PyObject *args)
{
    PyObject *l, *kargs, *so = Py_None;
    long n;
    int raw;
    void *stream = NULL;
    if (!PyArg_ParseTuple(args, "O!O!li|O:_bench_launch", &LauncherType, &l, &PyTuple_Type,
                          &kargs, &n, &raw, &so) || rt_get_stream(so, &stream) < 0) {
        return NULL;
    }
    LauncherObject *lo = (LauncherObject *)l;
    Py_ssize_t na = PyTuple_GET_SIZE(kargs);
    if (launch_static_busy) {
        PyErr_SetString(PyExc_RuntimeError, "_bench_launch inside a launch");
        return NULL;
    }
    PyObject *r = launch(lo->kernel, &lo->cfg, &PyTuple_GET_ITEM(kargs, 0), na);
    if (!r) {
        return NULL;
    }
    /* raw mode: that launch's parameters, packed in launch_static, copied
     * (later launches reuse the block) */
    static unsigned char buf[sizeof launch_static.buf] __attribute__((aligned(16)));
    static void *params[MAXARGS + 1];
    if (raw) {
        memcpy(buf, launch_static.buf, sizeof buf);
        for (Py_ssize_t i = 0; i < na && i < MAXARGS; i++) {
            params[i] = buf + ((unsigned char *)launch_static.params[i] - launch_static.buf);
        }
    }
    Py_DECREF(r);
    double t0 = pl_now_ms();
    for (long i = 0; i < n; i++) {
        if (raw >= 2 && rt_ensure_context() < 0) {
            return NULL;
        }
        if (raw == 3) {
            continue;
        }
        if (raw) {
            if (rt_launch(&last_entry->rk[last_dev], last_config.grid, last_config.block, 0,
                          so == Py_None ? last_config.stream : stream, params,
                          "bench") < 0) {
                return NULL;
            }
            continue;
        }
        r = launch(lo->kernel, &lo->cfg, &PyTuple_GET_ITEM(kargs, 0), PyTuple_GET_SIZE(kargs));
        if (!r) {
            return NULL;
        }
        Py_DECREF(r);
    }
    return PyFloat_FromDouble((pl_now_ms() - t0) * 1e3 / (double)n);
}

PyMethodDef kernel_module_methods[] = {
    {"_bench_launch", bench_launch, METH_VARARGS, "launch timing from C (for bench/)"},
    {"_set_launch_warnings", set_launch_warnings, METH_VARARGS,
     "_set_launch_warnings(grid_hook, copy_hook): Numba's launch warnings (cujit/_warnings.py)"},
    {"_set_cai_sync", set_cai_sync, METH_O,
     "_set_cai_sync(hook): Numba's CUDA_ARRAY_INTERFACE_SYNC for cuda.jit kernels "
     "(cujit/cuda/interop.py)"},
    {NULL},
};

PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cujit.Launcher",
    .tp_basicsize = sizeof(LauncherObject),
    .tp_dealloc = launcher_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(LauncherObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = launcher_traverse,
    .tp_clear = launcher_clear,
    .tp_getset = launcher_getset,
    .tp_methods = launcher_methods,
    .tp_doc = "A kernel bound to a launch configuration; call it with the arguments.",
};

/* a launch's dynamic shared memory size in bytes */
static int
shmem_from(PyObject *shmem, unsigned *out)
{
    long long v = PyLong_AsLongLong(shmem);
    if (v < 0 || v > 0x7fffffff) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "shared memory size must be >= 0");
        }
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int
config_from(LaunchConfig *c, PyObject *grid, PyObject *block, PyObject *stream,
            PyObject *shmem)
{
    if (rt_launch_dims(grid, c->grid, "grid") < 0 || rt_launch_dims(block, c->block, "block") < 0) {
        return -1;
    }
    c->shmem = 0;
    if (shmem && shmem != Py_None && shmem_from(shmem, &c->shmem) < 0) {
        return -1;
    }
    c->stream = NULL;
    if (rt_get_stream(stream ? stream : Py_None, &c->stream) < 0) {
        return -1;
    }
    return check_config(c);
}

PyObject *
kernel_getitem(PyObject *self, PyObject *key)
{
    KernelObject *k = (KernelObject *)self;
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) < 2 || PyTuple_GET_SIZE(key) > 4) {
        PyErr_SetString(PyExc_TypeError, "launch with k[grid, block], k[grid, block, stream] "
                        "or k[grid, block, stream, shared_mem_bytes]");
        return NULL;
    }
    if (k->device) {
        PyErr_Format(PyExc_RuntimeError, "Cannot compile a device function as a kernel: %U "
                     "is a device function: call it from a kernel", k->name);
        return NULL;
    }
    Py_ssize_t nk = PyTuple_GET_SIZE(key);
    if (k->last_key && (key == k->last_key
                        || PyObject_RichCompareBool(key, k->last_key, Py_EQ) == 1)) {
        if (warn_grid(k, &((LauncherObject *)k->last_launcher)->cfg) < 0) {
            return NULL;
        }
        return Py_NewRef(k->last_launcher);     /* the same configuration again */
    }
    PyErr_Clear();
    LauncherObject *l = PyObject_GC_New(LauncherObject, &LauncherType);
    if (!l) {
        return NULL;
    }
    l->kernel = k;
    Py_INCREF(k);
    l->stream_obj = nk > 2 ? PyTuple_GET_ITEM(key, 2) : NULL;
    Py_XINCREF(l->stream_obj);
    l->callbacks = NULL;
    PyObject_GC_Track((PyObject *)l);
    l->vectorcall = launcher_vectorcall;
    if (config_from(&l->cfg, PyTuple_GET_ITEM(key, 0), PyTuple_GET_ITEM(key, 1),
                    l->stream_obj, nk > 3 ? PyTuple_GET_ITEM(key, 3) : NULL) < 0) {
        Py_DECREF(l);
        rt_err_in(PyUnicode_AsUTF8(k->name), "kernel '%s'", PyUnicode_AsUTF8(k->name));
        return NULL;
    }
    if (warn_grid(k, &l->cfg) < 0) {
        Py_DECREF(l);
        return NULL;
    }
    if (nk == 2) {
        Py_XSETREF(k->last_key, Py_NewRef(key));
        Py_XSETREF(k->last_launcher, Py_NewRef((PyObject *)l));
    }
    return (PyObject *)l;
}

/* k(grid, block, args, shared_mem=0, stream=None): CuPy's style */
PyObject *
kernel_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    KernelObject *k = (KernelObject *)self;
    static char *kwlist[] = {"grid", "block", "args", "shared_mem", "stream", NULL};
    PyObject *grid, *block, *kargs, *shmem = NULL, *stream = NULL;
    if (k->device) {
        PyErr_Format(PyExc_TypeError, "%U is a device function: call it from a kernel",
                     k->name);
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OO:kernel call", kwlist, &grid, &block,
                                     &kargs, &shmem, &stream)) {
        return NULL;
    }
    if (!PyTuple_Check(kargs) && !PyList_Check(kargs)) {
        PyErr_SetString(PyExc_TypeError, "the kernel's arguments must be given as a tuple "
                        "(or a list): k(grid, block, (a, b, c))");
        return NULL;
    }
    LaunchConfig c;
    if (config_from(&c, grid, block, stream, shmem) < 0) {
        rt_err_in(PyUnicode_AsUTF8(k->name), "kernel '%s'", PyUnicode_AsUTF8(k->name));
        return NULL;
    }
    /* a list, as cupyx.jit takes it too, is copied: a launch runs Python
     * code (array interfaces) that could change it */
    PyObject *t = PySequence_Tuple(kargs);
    if (!t) {
        return NULL;
    }
    PyObject *r = launch(k, &c, &PyTuple_GET_ITEM(t, 0), PyTuple_GET_SIZE(t));
    Py_DECREF(t);
    return r;
}

/* an int, or a tuple of ints: nothing in it can change */
static int
frozen_dims(PyObject *o)
{
    if (PyLong_CheckExact(o)) {
        return 1;
    }
    if (!PyTuple_CheckExact(o)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++) {
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(o, i))) {
            return 0;
        }
    }
    return 1;
}

/* k(grid, block, args) by vectorcall: no argument tuple or parser, and the
 * configuration of the last grid and block objects kept when they are the
 * same objects again (ints or tuples of ints, so unchanged); anything else
 * (keywords, shared_mem, stream) goes through kernel_call */
PyObject *
kernel_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    KernelObject *k = (KernelObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if ((kwnames && PyTuple_GET_SIZE(kwnames)) || n != 3 || k->device
        || !PyTuple_Check(args[2])) {
        Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        PyObject *t = PyTuple_New(n), *kw = nkw ? PyDict_New() : NULL, *r = NULL;
        for (Py_ssize_t i = 0; t && i < n; i++) {
            PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
        }
        for (Py_ssize_t i = 0; kw && i < nkw; i++) {
            if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0) {
                Py_CLEAR(kw);
            }
        }
        if (t && (kw || !nkw)) {
            r = kernel_call(self, t, kw);
        }
        Py_XDECREF(t);
        Py_XDECREF(kw);
        return r;
    }
    LaunchConfig c;
    if (args[0] == k->call_grid && args[1] == k->call_block) {
        c = k->call_cfg;
    } else {
        if (config_from(&c, args[0], args[1], NULL, NULL) < 0) {
            return NULL;
        }
        if (frozen_dims(args[0]) && frozen_dims(args[1])) {
            Py_XSETREF(k->call_grid, Py_NewRef(args[0]));
            Py_XSETREF(k->call_block, Py_NewRef(args[1]));
            k->call_cfg = c;
        }
    }
    return launch(k, &c, &PyTuple_GET_ITEM(args[2], 0), PyTuple_GET_SIZE(args[2]));
}
