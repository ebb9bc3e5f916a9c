/* kernel.c - loading kernels (memory cache per device -> disk cache ->
 * NVRTC), launching them, and reading their error record. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_impl.h"

/* ---- the in-process cache: (device, key) -> loaded kernel ---- */

typedef struct {
    int used;
    int dev;
    RtCacheKey key;
    RtKernel kernel;
} MemEntry;

static MemEntry *table;
static size_t table_cap, table_len;

static size_t
slot_of(int dev, const RtCacheKey *k, size_t cap)
{
    return (size_t)(k->h[0] ^ (k->h[1] >> 7) ^ ((uint64_t)dev * 0x9e3779b97f4a7c15ULL)) & (cap - 1);
}

static MemEntry *
mem_find(int dev, const RtCacheKey *k)
{
    if (!table) {
        return NULL;
    }
    for (size_t i = slot_of(dev, k, table_cap);; i = (i + 1) & (table_cap - 1)) {
        MemEntry *e = &table[i];
        if (!e->used) {
            return NULL;
        }
        if (e->dev == dev && e->key.h[0] == k->h[0] && e->key.h[1] == k->h[1]) {
            return e;
        }
    }
}

static int
mem_insert(int dev, const RtCacheKey *k, const RtKernel *kern)
{
    if ((table_len + 1) * 2 > table_cap) {
        size_t ncap = table_cap ? table_cap * 2 : 64;
        MemEntry *nt = calloc(ncap, sizeof *nt);
        if (!nt) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < table_cap; i++) {
            if (table[i].used) {
                size_t j = slot_of(table[i].dev, &table[i].key, ncap);
                while (nt[j].used) {
                    j = (j + 1) & (ncap - 1);
                }
                nt[j] = table[i];
            }
        }
        free(table);
        table = nt;
        table_cap = ncap;
    }
    size_t i = slot_of(dev, k, table_cap);
    while (table[i].used) {
        i = (i + 1) & (table_cap - 1);
    }
    table[i].used = 1;
    table[i].dev = dev;
    table[i].key = *k;
    table[i].kernel = *kern;
    table_len++;
    return 0;
}

/* _loaded_kernels() -> the entries of the memory cache (bench/longrun.py) */
PyObject *
rt_py_loaded_kernels(PyObject *self, PyObject *noargs)
{
    return PyLong_FromSize_t(table_len);
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
log_enabled(void)
{
    const char *v = getenv("CUJIT_LOG");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* What NVRTC compiles for a device of arch "sm_XY": CUBIN for it when NVRTC
 * knows it, else PTX for the newest virtual arch NVRTC knows below it (the
 * driver JIT-compiles that). */
static int
compile_arch(const char *dev_arch, char *buf, size_t n)
{
    const int *archs;
    int cc = atoi(dev_arch + 3), best = 0;
    int na = rt_nvrtc_supported_archs(&archs);
    if (na < 0) {
        return -1;
    }
    for (int i = 0; i < na; i++) {
        if (archs[i] == cc) {
            snprintf(buf, n, "sm_%d", cc);
            return 0;
        }
        if (archs[i] < cc && archs[i] > best) {
            best = archs[i];
        }
    }
    if (na == 0 || !best) {
        snprintf(buf, n, "sm_%d", cc);      /* unknown list: let NVRTC judge */
    } else {
        snprintf(buf, n, "compute_%d", best);
    }
    return 0;
}

/* cuModuleLoadData of the CUBIN, or of the PTX when there is no CUBIN or the
 * driver refuses it */
static CUresult
load_module(const RtCompiled *c, CUmodule *m)
{
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    if (c->cubin) {
        r = rt_cu.cuModuleLoadData(m, c->cubin);
    }
    if (r != CUDA_SUCCESS && c->ptx) {
        r = rt_cu.cuModuleLoadData(m, c->ptx);
    }
    return r;
}

static int
module_kernel(CUmodule m, const char *name, int dev, RtKernel *out)
{
    CUfunction f;
    CUdeviceptr p = 0;
    size_t sz = 0;
    CUresult r = rt_cu.cuModuleGetFunction(&f, m, name);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "kernel '%s' is not in the compiled module", name);
    }
    r = rt_cu.cuModuleGetGlobal(&p, &sz, m, "cj_error");
    if (r == CUDA_ERROR_NOT_FOUND) {
        p = 0;
    } else if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "looking up cj_error in kernel '%s'", name);
    } else if (sz < sizeof(CjErrorRecord)) {
        PyErr_Format(rt_CudaError, "kernel '%s': cj_error is %zu bytes, expected %zu", name, sz,
                     sizeof(CjErrorRecord));
        return -1;
    }
    out->function = f;
    out->module = m;
    out->err_addr = p;
    out->device = dev;
    return 0;
}

int
rt_kernel_sibling(const RtKernel *k, const char *name, RtKernel *out)
{
    return module_kernel((CUmodule)k->module, name, k->device, out);
}

int
rt_kernel_attribute(const RtKernel *k, int attr, int *value)
{
    CUresult r = rt_cu.cuFuncGetAttribute(value, attr, (CUfunction)k->function);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cuFuncGetAttribute(%d)", attr);
    }
    return 0;
}

int
rt_kernel_set_carveout(const RtKernel *k, int percent, const char *kname)
{
    CUresult r = rt_cu.cuFuncSetAttribute((CUfunction)k->function,
                                          CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                          percent);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "kernel '%s': setting its shared memory carveout to %d",
                            kname, percent);
    }
    return 0;
}

int
rt_load_kernel_ex(const char *src, const char *name, const RtLoadOptions *opt, RtKernel *out,
                  int *hit)
{
    static const RtLoadOptions none = {.key_extra = NULL};
    char arch[32], carch[32], dir[4096];
    const char *why = NULL;
    RtCacheKey k;
    RtCompiled c;
    CUmodule m = NULL;
    int disk_hit = 0, stored = 0;
    double nvrtc_ms = 0, link_ms = 0;

    opt = opt ? opt : &none;
    *hit = 0;
    if (opt->log) {
        *opt->log = NULL;
    }
    int dev = rt_ensure_context();
    if (dev < 0 || rt_current_arch(arch, sizeof arch) < 0) {
        return -1;
    }
    /* fast compilation is asked for in the key; whether this NVRTC can do
     * it follows from its identity, also in the key (NVRTC stays unloaded
     * on a disk cache hit) */
    int fast = opt->fast_compile && rt_fast_compile_wanted();
    const char *opts[RT_MAXOPTS + 2];
    int nopts = opt->nopts < RT_MAXOPTS ? opt->nopts : RT_MAXOPTS;
    for (int i = 0; i < nopts; i++) {
        opts[i] = opt->opts[i];
    }
    char extra[512];
    snprintf(extra, sizeof extra, "%s%s", opt->key_extra ? opt->key_extra : "",
             fast ? "|fast-compile" : "");
    double tk = now_ms();
    rt_cache_key(&k, src, name, extra, opts, nopts, arch);
    int key_nopts = nopts;                  /* the options the keys have */
    double key_ms = now_ms() - tk;
    MemEntry *e = mem_find(dev, &k);
    if (e) {
        *out = e->kernel;
        *hit = 2;
        return 0;
    }
    double t0 = now_ms(), disk_ms = 0, module_ms = 0;
    int use_disk = rt_cache_dir(dir, sizeof dir);
    memset(&c, 0, sizeof c);
    int on_disk = use_disk && rt_cache_load(dir, &k, &c);
    int prebuilt = !on_disk && rt_prebuilt_load(src, name, extra, opts, nopts, arch, &c);
    on_disk |= prebuilt;
    disk_ms = now_ms() - t0;
    if (on_disk) {
        double tm = now_ms();
        CUresult lr = load_module(&c, &m);
        module_ms = now_ms() - tm;
        if (lr == CUDA_SUCCESS) {
            disk_hit = 1;
            rt_cache_hits += !prebuilt;
        } else {
            rt_cache_rejected++;            /* the driver refuses it: rebuild */
            rt_compiled_free(&c);
        }
    }
    if (!disk_hit) {
        double t1 = now_ms();
        if (use_disk) {
            rt_cache_misses++;
        }
        if (compile_arch(arch, carch, sizeof carch) < 0) {
            return -1;
        }
        if (fast && rt_nvrtc_has_fast_compile()) {
            opts[nopts++] = "--Ofast-compile=min";
            fast = 2;
        }
        int linked = rt_link_marked(src);   /* foreign code: relocatable, then linked */
        if (linked) {
            opts[nopts++] = "-rdc=true";
        }
        if (rt_nvrtc_compile_ex(src, name, carch, 1, opts, nopts, &c, opt->log) < 0) {
            return opt->log && *opt->log ? -2 : -1;
        }
        nvrtc_ms = now_ms() - t1;           /* with loading NVRTC the first time */
        if (linked) {
            double tl = now_ms();
            if (rt_link_image(src, name, &c) < 0) {
                rt_compiled_free(&c);
                return -1;
            }
            link_ms = now_ms() - tl;
        }
        prebuilt = 0;
        rt_prebuilt_store(src, name, extra, opts, key_nopts, arch, &c);
        if (use_disk) {
            stored = rt_cache_store(dir, &k, &c, &why) == 0;
        }
        double tm = now_ms();
        CUresult r = load_module(&c, &m);
        module_ms += now_ms() - tm;
        if (r != CUDA_SUCCESS) {
            rt_compiled_free(&c);
            return rt_cuda_fail(r, "loading kernel '%s' (%s)", name, carch);
        }
    }
    rt_compiled_free(&c);
    if (module_kernel(m, name, dev, out) < 0) {
        rt_cu.cuModuleUnload(m);
        return -1;
    }
    e = mem_find(dev, &k);
    if (e) {
        /* another thread loaded it while NVRTC ran without the GIL */
        rt_cu.cuModuleUnload(m);
        *out = e->kernel;
        *hit = 2;
        return 0;
    }
    if (mem_insert(dev, &k, out) < 0) {
        rt_cu.cuModuleUnload(m);
        return -1;
    }
    double load_ms = now_ms() - t0 - nvrtc_ms;
    const char *disk = prebuilt ? (use_disk ? "miss, prebuilt hit" : "off, prebuilt hit")
                       : disk_hit ? "hit" : !use_disk ? "off" : stored ? "miss (stored)"
                       : why ? why : "miss";
    if (opt->stats) {
        RtLoadStats *st = opt->stats;
        st->loaded = 1;
        snprintf(st->arch, sizeof st->arch, "%s", arch);
        st->nvrtc_ms = nvrtc_ms;
        st->load_ms = load_ms;
        st->key_ms = key_ms;
        st->disk_ms = disk_ms;
        st->module_ms = module_ms;
        st->link_ms = link_ms;
        st->fast = fast == 2;
        st->disk = disk;
    } else if (log_enabled()) {
        fprintf(stderr, "cujit: kernel %s (%s): nvrtc %.2f ms%s, load %.2f ms, disk cache %s\n",
                name, arch, nvrtc_ms, fast == 2 ? " (--Ofast-compile=min)" : "", load_ms, disk);
    }
    *hit = disk_hit;
    return 0;
}

int
rt_load_kernel(const char *src, const char *name, const char *key_extra, RtKernel *out, int *hit)
{
    RtLoadOptions o = {.key_extra = key_extra};
    return rt_load_kernel_ex(src, name, &o, out, hit);
}

/* ---- launching ---- */

#define DEFAULT_DYNSHARED (48 * 1024)

/* more dynamic shared memory than the default needs the function's opt-in */
static int
opt_in_shared(RtKernel *k, unsigned shmem, const char *kname)
{
    if (shmem <= DEFAULT_DYNSHARED) {
        return 0;
    }
    CUresult r = rt_cu.cuFuncSetAttribute(k->function,
                                          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          (int)shmem);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "kernel '%s' cannot have %u bytes of dynamic shared memory",
                            kname, shmem);
    }
    return 0;
}

static int
launch_failed(CUresult r, const unsigned grid[3], const unsigned block[3], unsigned shmem,
              const char *kname)
{
    return rt_cuda_fail(r, "launching kernel '%s' (grid %u,%u,%u, block %u,%u,%u, "
                        "%u bytes shared)", kname, grid[0], grid[1], grid[2], block[0],
                        block[1], block[2], shmem);
}

int
rt_launch(RtKernel *k, const unsigned grid[3], const unsigned block[3], unsigned shmem,
          void *stream, void **params, const char *kname)
{
    if (opt_in_shared(k, shmem, kname) < 0) {
        return -1;
    }
    CUresult r = rt_cu.cuLaunchKernel(k->function, grid[0], grid[1], grid[2], block[0], block[1],
                                      block[2], shmem, stream, params, NULL);
    if (r != CUDA_SUCCESS) {
        return launch_failed(r, grid, block, shmem, kname);
    }
    return 0;
}

/* the most blocks of `threads` threads and `shmem` bytes that can be
 * resident on k's device at once; -1 with an exception */
long long
rt_kernel_coresident_blocks(RtKernel *k, unsigned threads, unsigned shmem, const char *kname)
{
    RtDevice *d = rt_device(k->device);
    if (!d) {
        return -1;
    }
    if (!d->coop) {
        int v = 0;
        CUresult r = rt_cu.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                                                d->dev);
        if (r != CUDA_SUCCESS) {
            return rt_cuda_fail(r, "cuDeviceGetAttribute(COOPERATIVE_LAUNCH) failed");
        }
        d->coop = v && rt_cu.cuLaunchCooperativeKernel
                  && rt_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor ? 1 : -1;
    }
    if (d->coop < 0) {
        PyErr_Format(PyExc_RuntimeError, "kernel '%s' is cooperative (it uses this_grid()), "
                     "which needs a cooperative launch, and device %d (%s) or its driver has "
                     "none", kname, k->device, d->name);
        return -1;
    }
    int per_sm = 0;
    CUresult r = rt_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->function,
                                                                   (int)threads, shmem);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "kernel '%s': cuOccupancyMaxActiveBlocksPerMultiprocessor "
                            "(block of %u threads, %u bytes shared) failed", kname, threads,
                            shmem);
    }
    int sms = rt_device_attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d->sm_count);
    return sms < 0 ? -1 : (long long)per_sm * sms;
}

int
rt_launch_cooperative(RtKernel *k, const unsigned grid[3], const unsigned block[3],
                      unsigned shmem, void *stream, void **params, const char *kname)
{
    if (opt_in_shared(k, shmem, kname) < 0) {
        return -1;
    }
    long long blocks = (long long)grid[0] * grid[1] * grid[2];
    long long most = rt_kernel_coresident_blocks(k, block[0] * block[1] * block[2], shmem,
                                                 kname);
    if (most < 0) {
        return -1;
    }
    if (blocks > most) {
        PyErr_Format(PyExc_ValueError, "kernel '%s' is launched cooperatively (it uses "
                     "this_grid()), so all its blocks must be resident at once: the "
                     "grid (%u, %u, %u) has %lld blocks of (%u, %u, %u) threads, but at most "
                     "%lld fit on device %d; launch at most %lld blocks (a grid-stride loop "
                     "covers the rest)", kname, grid[0], grid[1], grid[2], blocks, block[0],
                     block[1], block[2], most, k->device, most);
        return -1;
    }
    CUresult r = rt_cu.cuLaunchCooperativeKernel(k->function, grid[0], grid[1], grid[2],
                                                 block[0], block[1], block[2], shmem, stream,
                                                 params);
    if (r != CUDA_SUCCESS) {
        return launch_failed(r, grid, block, shmem, kname);
    }
    return 0;
}

int
rt_stream_synchronize(void *stream, const char *kname)
{
    CUresult r;
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuStreamSynchronize((CUstream)stream);
    Py_END_ALLOW_THREADS
    fflush(stdout);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "kernel '%s' failed", kname);
    }
    return 0;
}

int
rt_check_error_record(RtKernel *k, void *stream, const char *kname, CjErrorRecord *rec)
{
    CUresult r;
    int pushed, ret = 0;
    memset(rec, 0, sizeof *rec);
    if (rt_ensure_context() < 0) {
        return -1;
    }
    if (rt_ctx_enter_quiet(k->device, &pushed) < 0) {
        PyErr_Format(rt_CudaError, "kernel '%s': cannot make device %d current to read its "
                     "error record (its context is lost)", kname, k->device);
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuStreamSynchronize(stream);
    Py_END_ALLOW_THREADS
    if (r != CUDA_SUCCESS) {
        ret = rt_cuda_fail(r, "kernel '%s' failed", kname);
    } else if (k->err_addr) {
        r = rt_cu.cuMemcpyDtoH(rec, k->err_addr, sizeof *rec);
        if (r != CUDA_SUCCESS) {
            ret = rt_cuda_fail(r, "reading the error record of kernel '%s'", kname);
        } else if (rec->flag) {
            r = rt_cu.cuMemsetD8(k->err_addr, 0, sizeof *rec);
            ret = r == CUDA_SUCCESS ? 1
                                    : rt_cuda_fail(r, "clearing the error record of '%s'", kname);
        }
    }
    rt_ctx_leave(pushed);
    return ret;
}

/* ---- _launch_raw: a launch from Python for tests and experiments ---- */

#define RAW_MAXARGS 64

/* o as a Python list for messages: [1, 2, 3, 4] (NULL on failure) */
static PyObject *
dims_list(PyObject *o)
{
    return PyTuple_Check(o) || PyList_Check(o) ? PySequence_List(o) : Py_BuildValue("[O]", o);
}

/* Numba's messages, which its users and tests look for: "griddim must be a
 * sequence of ..., got [...]" (a ValueError for the count, a TypeError for a
 * non-integer) */
static int
dims_error(PyObject *exc, PyObject *o, const char *what, const char *rule)
{
    PyObject *l = dims_list(o);
    if (l) {
        PyErr_Format(exc, "%sdim must be a sequence of %s, got %R (%s must be an int or a "
                     "tuple of 1 to 3 ints)", what, rule, l, what);
        Py_DECREF(l);
    }
    return -1;
}

/* one launch dimension: a Python int or any integer with __index__ (NumPy's
 * np.int64(4), as Numba's numbers.Integral and CuPy take); 0: another
 * kind of object, -1: an error set */
static int
dim_value(PyObject *x, long long *v)
{
    if (PyLong_Check(x)) {
        *v = PyLong_AsLongLong(x);
        return *v == -1 && PyErr_Occurred() ? -1 : 1;
    }
    if (PyFloat_Check(x) || !PyIndex_Check(x)) {
        return 0;
    }
    PyObject *i = PyNumber_Index(x);
    if (!i) {
        return -1;
    }
    *v = PyLong_AsLongLong(i);
    Py_DECREF(i);
    return *v == -1 && PyErr_Occurred() ? -1 : 1;
}

/* dims := int | '(' int {',' int} ')' | '[' int {',' int} ']' (1 to 3 of them) */
int
rt_launch_dims(PyObject *o, unsigned out[3], const char *what)
{
    out[0] = out[1] = out[2] = 1;
    long long v;
    int r = PyTuple_Check(o) || PyList_Check(o) ? 0 : dim_value(o, &v);
    if (r < 0) {
        return -1;
    }
    if (r) {
        if (v <= 0 || v > 0x7fffffff) {
            PyErr_Format(PyExc_ValueError, "%s size must be positive, got %lld", what, v);
            return -1;
        }
        out[0] = (unsigned)v;
        return 0;
    }
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        return dims_error(PyExc_TypeError, o, what, "integers");
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n < 1 || n > 3) {
        return dims_error(PyExc_ValueError, o, what, "1, 2 or 3 integers");
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        r = dim_value(PySequence_Fast_GET_ITEM(o, i), &v);
        if (r <= 0) {
            return r < 0 ? -1 : dims_error(PyExc_TypeError, o, what, "integers");
        }
        if (v <= 0 || v > (i ? 65535 : 0x7fffffff)) {
            PyErr_Format(PyExc_ValueError, "%s dimension %zd must be in 1..%d, got %lld",
                         what, i, i ? 65535 : 0x7fffffff, v);
            return -1;
        }
        out[i] = (unsigned)v;
    }
    return 0;
}

typedef union {
    long long i;
    double d;
    void *p;
    unsigned char raw[16];
} RawValue;

/* _launch_raw(src, name, grid, block, args, shmem=0, stream=None,
 *             key_extra="", check=True) -> (hit, error record tuple or None)
 * args: arrays (any kind; passed as their device pointer, host arrays copied
 * back afterwards), Python int (long long), float (double), NumPy scalars
 * (their bytes). */
PyObject *
rt_py_launch_raw(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "name", "grid", "block", "args", "shmem", "stream",
                             "key_extra", "check", NULL};
    const char *src, *name, *extra = "";
    PyObject *grid_o, *block_o, *argt, *so = Py_None, *res = NULL;
    unsigned shmem = 0, grid[3], block[3];
    int check = 1, hit = 0, narr = 0;
    void *stream = NULL, *params[RAW_MAXARGS];
    RawValue vals[RAW_MAXARGS];
    RtArray *arrs = NULL;
    RtKernel k;
    CjErrorRecord rec;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "ssOOO!|IOsp:_launch_raw", kwlist, &src, &name,
                                     &grid_o, &block_o, &PyTuple_Type, &argt, &shmem, &so, &extra,
                                     &check)) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(argt);
    if (n > RAW_MAXARGS) {
        PyErr_SetString(PyExc_ValueError, "too many arguments");
        return NULL;
    }
    if (rt_launch_dims(grid_o, grid, "grid") < 0 || rt_launch_dims(block_o, block, "block") < 0
        || rt_get_stream(so, &stream) < 0 || rt_load_kernel(src, name, extra, &k, &hit) < 0) {
        return NULL;
    }
    arrs = PyMem_Calloc((size_t)(n ? n : 1), sizeof *arrs);
    if (!arrs) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(argt, i);
        char what[32];
        memset(&vals[i], 0, sizeof vals[i]);
        params[i] = &vals[i];
        if (PyLong_Check(a)) {
            vals[i].i = PyLong_AsLongLong(a);
        } else if (PyFloat_Check(a)) {
            vals[i].d = PyFloat_AsDouble(a);
        } else if (rt_is_array(a)) {
            snprintf(what, sizeof what, "argument %zd", i);
            if (rt_get_array(a, &arrs[narr], stream, what) < 0) {
                goto done;
            }
            vals[i].p = arrs[narr].ptr;
            narr++;
        } else {
            Py_buffer b;
            if (PyObject_GetBuffer(a, &b, PyBUF_SIMPLE) < 0) {
                goto done;
            }
            if (b.len > 16) {
                PyBuffer_Release(&b);
                PyErr_Format(PyExc_TypeError, "argument %zd is too big for a scalar", i);
                goto done;
            }
            memcpy(vals[i].raw, b.buf, (size_t)b.len);
            PyBuffer_Release(&b);
        }
        if (PyErr_Occurred()) {
            goto done;
        }
    }
    if (rt_launch(&k, grid, block, shmem, stream, params, name) < 0) {
        goto done;
    }
    int rc = 0;
    if (check) {
        rc = rt_check_error_record(&k, stream, name, &rec);
        if (rc < 0) {
            goto done;
        }
    }
    if (rc == 1) {
        res = Py_BuildValue("(i(iiii(III)(III)LLi))", hit, rec.kind, rec.line, rec.msg_id, rec.dim,
                            rec.block[0], rec.block[1], rec.block[2], rec.thread[0],
                            rec.thread[1], rec.thread[2], rec.index, rec.extent, rec.flag);
    } else {
        res = Py_BuildValue("(iO)", hit, Py_None);
    }
done:
    for (int i = 0; i < narr; i++) {
        if (rt_array_release(&arrs[i], stream, res != NULL) < 0 && res) {
            Py_CLEAR(res);
        }
    }
    PyMem_Free(arrs);
    return res;
}
