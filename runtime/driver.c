/* driver.c - the CUDA driver through dlopen: loading, errors, devices and
 * their primary contexts, device memory, and the module-level synchronize /
 * release_memory / memory_info (cujit.Device is in device.c).
 *
 * Contexts: cujit works in whatever context is current on the calling thread
 * (CuPy, PyTorch and Numba all make the device's primary context current), and
 * when none is, makes device 0's primary context current, as the CUDA runtime
 * does.  The device of the current context is cached per thread, so the check
 * on every launch is one cuCtxGetCurrent.
 *
 * Memory: a stream-ordered pool of cujit's own per device (cuMemPoolCreate,
 * release threshold "keep everything"), allocated with cuMemAllocFromPoolAsync
 * and freed with cuMemFreeAsync on the stream the array was created on (the
 * legacy default stream unless the caller gave one).  Owning the pool leaves
 * the device's default pool, which CuPy or PyTorch may tune, alone;
 * release_memory() trims it.  Devices without memory pools fall back to
 * cuMemAlloc / cuMemFree.
 *
 * Fork: the driver cannot be used in a child forked after cuInit (the
 * parent's contexts, pools and streams do not exist there, and cuInit fails
 * with CUDA_ERROR_NOT_INITIALIZED).  A fork handler marks the state
 * "forked": every use raises Numba's "CUDA initialized before forking"
 * error, and what the child frees or destroys of the parent's is left alone
 * (rt_ctx_enter_quiet refuses).  A child forked before cuInit starts afresh. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_impl.h"

RtDriver rt_cu;

/* 0 untried, 1 ready, -1 failed, DRV_FORKED: this process is a fork of one
 * that had initialised the driver */
static int drv_state;
enum { DRV_FORKED = -2 };
static long init_pid;           /* the process that ran cuInit */
static char drv_error[1024];
static int ndevices;
static RtDevice *devices;

/* the context last seen current on this thread, and its device ordinal */
static _Thread_local CUcontext tls_ctx;
static _Thread_local int tls_dev;

static const struct {
    const char *sym;
    size_t off;
    int optional;
} drv_syms[] = {
#define RT_DRV_SYM(field, sym, opt, params) {sym, offsetof(RtDriver, field), opt},
    RT_DRIVER_FUNCS(RT_DRV_SYM)
#undef RT_DRV_SYM
};

const char *
rt_cuda_errname(CUresult r)
{
    const char *s = NULL;
    if (drv_state == 1 && rt_cu.cuGetErrorName(r, &s) == CUDA_SUCCESS && s) {
        return s;
    }
    return "CUDA_ERROR_UNKNOWN";
}

static PyObject *
cuda_error_type(CUresult r)
{
    PyObject *t = r == CUDA_ERROR_OUT_OF_MEMORY ? rt_OutOfMemoryError : rt_CudaError;
    return t ? t : PyExc_RuntimeError;
}

int
rt_cuda_fail(CUresult r, const char *fmt, ...)
{
    char what[768];
    const char *desc = NULL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (drv_state != 1 || rt_cu.cuGetErrorString(r, &desc) != CUDA_SUCCESS) {
        desc = NULL;
    }
    if (desc) {
        PyErr_Format(cuda_error_type(r), "%s: %s (%s)", what, rt_cuda_errname(r), desc);
    } else {
        PyErr_Format(cuda_error_type(r), "%s: CUDA error %d", what, (int)r);
    }
    return -1;
}

static void *
open_libcuda(void)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    char first[512] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            return h;
        }
        if (!first[0]) {
            const char *e = dlerror();
            snprintf(first, sizeof first, "%s", e ? e : names[i]);
        }
    }
    snprintf(drv_error, sizeof drv_error,
             "the CUDA driver is not available: libcuda.so.1 could not be loaded (%s). "
             "Running kernels and allocating device memory need an NVIDIA GPU and its "
             "driver; generating CUDA C++ and compiling to PTX work without them", first);
    return NULL;
}

static int
load_symbols(void *h)
{
    for (size_t i = 0; i < sizeof drv_syms / sizeof drv_syms[0]; i++) {
        void *p = NULL;
        if (strcmp(drv_syms[i].sym, "cuEventElapsedTime") == 0) {
            p = dlsym(h, "cuEventElapsedTime_v2");     /* CUDA 12.8+ spelling */
        }
        if (!p) {
            p = dlsym(h, drv_syms[i].sym);
        }
        if (!p && !drv_syms[i].optional) {
            snprintf(drv_error, sizeof drv_error,
                     "the CUDA driver is too old: libcuda.so.1 has no %s", drv_syms[i].sym);
            return -1;
        }
        memcpy((char *)&rt_cu + drv_syms[i].off, &p, sizeof p);
    }
    return 0;
}

static int
init_devices(void)
{
    CUresult r = rt_cu.cuInit(0);
    const char *desc = NULL;
    if (r == CUDA_SUCCESS) {
        r = rt_cu.cuDeviceGetCount(&ndevices);
    }
    if (r != CUDA_SUCCESS) {
        rt_cu.cuGetErrorString(r, &desc);
        snprintf(drv_error, sizeof drv_error, "cuInit failed: %s (%s)", rt_cuda_errname(r),
                 desc ? desc : "?");
        return -1;
    }
    if (ndevices <= 0) {
        snprintf(drv_error, sizeof drv_error, "the CUDA driver found no GPU");
        return -1;
    }
    devices = calloc((size_t)ndevices, sizeof *devices);
    if (!devices) {
        snprintf(drv_error, sizeof drv_error, "out of memory");
        return -1;
    }
    for (int i = 0; i < ndevices; i++) {
        devices[i].pool_fd = -1;
        r = rt_cu.cuDeviceGet(&devices[i].dev, i);
        if (r != CUDA_SUCCESS) {
            snprintf(drv_error, sizeof drv_error, "cuDeviceGet(%d) failed: %s", i,
                     rt_cuda_errname(r));
            return -1;
        }
    }
    return 0;
}

/* NVRTC opened and set up in the background while the first context is
 * made (for device 0's architecture) */
static void
preload_nvrtc(void)
{
    int major = 0, minor = 0;
    if (ndevices > 0
        && rt_cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                      devices[0].dev) == CUDA_SUCCESS
        && rt_cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                      devices[0].dev) == CUDA_SUCCESS) {
        rt_nvrtc_preload(major, minor);
    }
}

static void *preopened;          /* libcuda opened by rt_nvrtc_warm_up, symbols read */

/* NVRTC's preload from a kernel's definition, before any device is used.
 * The driver library is opened and its symbols read first, here: dlopen
 * and dlsym take the dynamic loader's lock, which the preload thread holds
 * for about 10 ms while it opens NVRTC, and the first call would otherwise
 * wait behind it.  A failure is left for rt_driver_init to report. */
void
rt_nvrtc_warm_up(void)
{
    if (!rt_nvrtc_preload_wanted()) {
        return;
    }
    if (drv_state == 0 && !preopened && !rt_nodriver_arch()) {
        void *h = open_libcuda();
        if (h && load_symbols(h) == 0) {
            preopened = h;
        }
    }
    rt_nvrtc_preload(0, 0);
}

/* the driver's entry points in rt_cu: libcuda's, or in a prebuild
 * (CUJIT_PREBUILD_ARCH) the stand-in's of nodriver.c; 0, or -1 with
 * drv_error set */
static int
load_driver(void)
{
    if (rt_nodriver_arch()) {
        return rt_nodriver_fill(&rt_cu, drv_error, sizeof drv_error);
    }
    void *h = preopened ? preopened : open_libcuda();
    if (!h || (h != preopened && load_symbols(h) < 0)) {
        return -1;
    }
    preopened = h;          /* kept open, its symbols read, for a retry */
    return 0;
}

/* in the child of a fork: the driver the parent initialised is unusable */
static void
after_fork_child(void)
{
    if (drv_state == 1) {
        drv_state = DRV_FORKED;
        snprintf(drv_error, sizeof drv_error,
                 "CUDA initialized before forking: process %ld is a fork of process %ld, "
                 "which had initialized the CUDA driver, and the driver cannot be used in "
                 "such a child. Start worker processes with multiprocessing's 'spawn' or "
                 "'forkserver' context (multiprocessing.get_context(\"spawn\")), or fork "
                 "before the parent's first use of the GPU", (long)getpid(), init_pid);
    }
}

int
rt_driver_init(void)
{
    static int atfork_set;
    if (drv_state == 1) {
        return 0;
    }
    if (drv_state == DRV_FORKED) {
        PyErr_SetString(rt_CudaError ? rt_CudaError : PyExc_RuntimeError, drv_error);
        return -1;
    }
    if (drv_state == 0) {
        drv_state = -1;
        if (load_driver() == 0) {
            drv_state = 1;          /* rt_cuda_errname works from here */
            if (init_devices() < 0) {
                /* cuInit or a device query failed: the next call tries again
                 * (the library stays open, its symbols read) */
                free(devices);
                devices = NULL;
                ndevices = 0;
                drv_state = 0;
                PyErr_SetString(rt_CudaError ? rt_CudaError : PyExc_RuntimeError, drv_error);
                return -1;
            }
            init_pid = (long)getpid();
            if (!atfork_set) {
                atfork_set = pthread_atfork(NULL, NULL, after_fork_child) == 0;
            }
            preload_nvrtc();
        }
    }
    if (drv_state != 1) {
        PyErr_SetString(rt_CudaError ? rt_CudaError : PyExc_RuntimeError, drv_error);
        return -1;
    }
    return 0;
}

int
rt_device_count(void)
{
    return rt_driver_init() < 0 ? -1 : ndevices;
}

RtDevice *
rt_device(int ordinal)
{
    if (rt_driver_init() < 0) {
        return NULL;
    }
    if (ordinal < 0 || ordinal >= ndevices) {
        PyErr_Format(PyExc_ValueError, "invalid device %d: this machine has %d CUDA device%s",
                     ordinal, ndevices, ndevices == 1 ? "" : "s");
        return NULL;
    }
    return &devices[ordinal];
}

CUcontext
rt_primary_context(int ordinal)
{
    RtDevice *d = rt_device(ordinal);
    if (!d) {
        return NULL;
    }
    if (!d->primary) {
        CUresult r = rt_cu.cuDevicePrimaryCtxRetain(&d->primary, d->dev);
        if (r != CUDA_SUCCESS) {
            d->primary = NULL;
            rt_cuda_fail(r, "cannot retain the primary context of device %d", ordinal);
            return NULL;
        }
    }
    return d->primary;
}

int
rt_set_device(int ordinal)
{
    CUcontext c = rt_primary_context(ordinal);
    if (!c) {
        return -1;
    }
    CUresult r = rt_cu.cuCtxSetCurrent(c);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot make device %d current", ordinal);
    }
    tls_ctx = c;
    tls_dev = ordinal;
    return 0;
}

static int
ordinal_of(CUdevice d)
{
    for (int i = 0; i < ndevices; i++) {
        if (devices[i].dev == d) {
            return i;
        }
    }
    return -1;
}

/* the slow half of rt_ensure_context: a context we have not seen yet */
static int
context_changed(CUcontext c)
{
    CUdevice d;
    if (!c) {
        return rt_set_device(0) < 0 ? -1 : 0;
    }
    CUresult r = rt_cu.cuCtxGetDevice(&d);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot read the current context's device");
    }
    int ord = ordinal_of(d);
    if (ord < 0) {
        PyErr_SetString(rt_CudaError, "the current CUDA context's device is unknown");
        return -1;
    }
    tls_ctx = c;
    tls_dev = ord;
    return ord;
}

static double context_ms;      /* rt_take_context_ms */

static double
clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* the driver initialised, the context read; its device */
static int
context_setup(void)
{
    CUcontext c;
    if (drv_state != 1 && rt_driver_init() < 0) {
        return -1;
    }
    CUresult r = rt_cu.cuCtxGetCurrent(&c);
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot read the current CUDA context (cuCtxGetCurrent)");
    }
    if (c && c == tls_ctx) {
        return tls_dev;
    }
    return context_changed(c);
}

/* the fast path: this thread's context is still current */
int
rt_ensure_context(void)
{
    CUcontext c;
    if (drv_state == 1 && rt_cu.cuCtxGetCurrent(&c) == CUDA_SUCCESS && c && c == tls_ctx) {
        return tls_dev;
    }
    double t0 = clock_ms();
    int r = context_setup();
    context_ms += clock_ms() - t0;
    return r;
}

double
rt_take_context_ms(void)
{
    double ms = context_ms;
    context_ms = 0;
    return ms;
}

int
rt_ctx_enter_quiet(int dev, int *pushed)
{
    CUcontext c = NULL;
    *pushed = 0;
    /* tried twice: a caller that cannot raise (a free) has no other chance */
    if (drv_state != 1 || dev < 0 || dev >= ndevices
        || (rt_cu.cuCtxGetCurrent(&c) != CUDA_SUCCESS
            && rt_cu.cuCtxGetCurrent(&c) != CUDA_SUCCESS)) {
        return -1;
    }
    if (c && c == tls_ctx && tls_dev == dev) {
        return 0;
    }
    if (c) {
        CUdevice d;
        if (rt_cu.cuCtxGetDevice(&d) == CUDA_SUCCESS && d == devices[dev].dev) {
            return 0;
        }
    }
    RtDevice *rd = &devices[dev];
    if (!rd->primary && rt_cu.cuDevicePrimaryCtxRetain(&rd->primary, rd->dev) != CUDA_SUCCESS) {
        rd->primary = NULL;
        return -1;
    }
    if (rt_cu.cuCtxPushCurrent(rd->primary) != CUDA_SUCCESS) {
        return -1;
    }
    *pushed = 1;
    return 0;
}

void
rt_ctx_leave(int pushed)
{
    if (pushed) {
        CUcontext c;
        rt_cu.cuCtxPopCurrent(&c);
    }
}

/* Makes c the current context again (Device.__exit__); the cached device of
 * this thread's context is re-read on the next rt_ensure_context */
CUresult
rt_ctx_restore(CUcontext c)
{
    CUresult r = rt_cu.cuCtxSetCurrent(c);
    tls_ctx = NULL;
    return r;
}

int
rt_current_arch(char *buf, size_t n)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    RtDevice *d = &devices[dev];
    if (!d->cc_major) {
        CUresult r = rt_cu.cuDeviceGetAttribute(&d->cc_major,
                                                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
        if (r == CUDA_SUCCESS) {
            r = rt_cu.cuDeviceGetAttribute(&d->cc_minor,
                                           CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
        }
        if (r != CUDA_SUCCESS) {
            d->cc_major = 0;
            return rt_cuda_fail(r, "cannot read the compute capability of device %d", dev);
        }
    }
    snprintf(buf, n, "sm_%d%d", d->cc_major, d->cc_minor);
    return 0;
}

int
rt_device_attr(RtDevice *d, int attr, int *cache)
{
    if (!*cache) {
        CUresult r = rt_cu.cuDeviceGetAttribute(cache, attr, d->dev);
        if (r != CUDA_SUCCESS) {
            *cache = 0;
            return rt_cuda_fail(r, "cuDeviceGetAttribute(%d) failed", attr);
        }
    }
    return *cache;
}

int
rt_max_threads_per_block(void)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    return rt_device_attr(&devices[dev], CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                          &devices[dev].max_threads);
}

int
rt_multiprocessor_count(void)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    return rt_device_attr(&devices[dev], CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          &devices[dev].sm_count);
}

/* The opt-in maximum: rt_launch raises a function's dynamic shared memory
 * limit when a launch asks for more than the default 48 KiB. */
int
rt_max_shared_per_block(void)
{
    int dev = rt_ensure_context();
    if (dev < 0) {
        return -1;
    }
    RtDevice *d = &devices[dev];
    int v = rt_device_attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                           &d->max_shared_optin);
    if (v <= 0) {
        PyErr_Clear();
        v = rt_device_attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &d->max_shared);
    }
    return v;
}

int
rt_default_shared_per_block(int dev)
{
    RtDevice *d = &devices[dev];
    return rt_device_attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &d->max_shared);
}

/* ---- memory ---- */

/* Can the pool be exportable (CUDA IPC through a POSIX fd)?  The entry
 * points exist, the device supports the handle type, CUJIT_IPC is not off. */
static int
pool_can_export(RtDevice *d)
{
    int types = 0;
    if (rt_env_off(getenv("CUJIT_IPC")) || !rt_cu.cuMemPoolExportToShareableHandle
        || !rt_cu.cuMemPoolExportPointer) {
        return 0;
    }
    if (rt_cu.cuDeviceGetAttribute(&types, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES,
                                   d->dev) != CUDA_SUCCESS) {
        return 0;
    }
    return (types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0;
}

/* The device's pool, exportable where it can be (ARCHITECTURE.md, "CUDA IPC
 * exports pool memory"): allocations do not change, and any array can later
 * be shared with another process.  A pool the driver refuses to make
 * exportable is made plain. */
static void
pool_init(RtDevice *d, int ordinal)
{
    int supported = 0;
    if (d->pool_state) {
        return;
    }
    d->pool_state = -1;
    if (!rt_cu.cuMemPoolCreate || !rt_cu.cuMemAllocFromPoolAsync || !rt_cu.cuMemFreeAsync
        || !rt_cu.cuMemPoolSetAttribute || !rt_cu.cuMemPoolTrimTo) {
        return;
    }
    if (rt_cu.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                                   d->dev) != CUDA_SUCCESS || !supported) {
        return;
    }
    RtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = ordinal;
    d->pool_exportable = pool_can_export(d);
    if (d->pool_exportable) {
        props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        if (rt_cu.cuMemPoolCreate(&d->pool, &props) != CUDA_SUCCESS) {
            d->pool_exportable = 0;
            props.handleTypes = 0;
        }
    }
    if (!d->pool_exportable && rt_cu.cuMemPoolCreate(&d->pool, &props) != CUDA_SUCCESS) {
        d->pool = NULL;
        return;
    }
    /* keep freed memory in the pool across synchronisations (the default,
     * 0, hands it back to the OS at every synchronize) */
    unsigned long long keep = ~0ULL;
    rt_cu.cuMemPoolSetAttribute(d->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
    d->pool_state = 1;
}

CUmemoryPool
rt_mem_pool(int dev, int *exportable)
{
    RtDevice *d = &devices[dev];
    pool_init(d, dev);
    *exportable = d->pool_state > 0 && d->pool_exportable;
    return d->pool_state > 0 ? d->pool : NULL;
}

static CUresult
alloc_once(RtDevice *d, size_t n, CUstream s, CUdeviceptr *out)
{
    if (d->pool_state > 0) {
        return rt_cu.cuMemAllocFromPoolAsync(out, n, d->pool, s);
    }
    return rt_cu.cuMemAlloc(out, n);
}

int
rt_mem_alloc(int dev, size_t n, CUstream s, CUdeviceptr *out)
{
    RtDevice *d = &devices[dev];
    CUresult r;
    *out = 0;
    if (n == 0) {
        return 0;
    }
    pool_init(d, dev);
    r = alloc_once(d, n, s, out);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        /* let pending frees finish, give cached memory back, try again */
        Py_BEGIN_ALLOW_THREADS
        rt_cu.cuCtxSynchronize();
        if (d->pool_state > 0) {
            rt_cu.cuMemPoolTrimTo(d->pool, 0);
        }
        Py_END_ALLOW_THREADS
        r = alloc_once(d, n, s, out);
    }
    if (r != CUDA_SUCCESS) {
        *out = 0;
        return rt_cuda_fail(r, "cannot allocate %zu bytes on device %d", n, dev);
    }
    return 0;
}

void
rt_mem_free(int dev, CUdeviceptr p, CUstream s)
{
    int pushed;
    if (!p || rt_ctx_enter_quiet(dev, &pushed) < 0) {
        return;                 /* driver gone (interpreter exit): nothing to do */
    }
    RtDevice *d = &devices[dev];
    /* a free that fails frees nothing: tried once more (on the legacy stream,
     * in case the array's stream is the trouble), then the memory is lost */
    if (d->pool_state > 0) {
        if (rt_cu.cuMemFreeAsync(p, s) != CUDA_SUCCESS) {
            rt_cu.cuMemFreeAsync(p, NULL);
        }
    } else if (rt_cu.cuMemFree(p) != CUDA_SUCCESS) {
        rt_cu.cuMemFree(p);
    }
    rt_ctx_leave(pushed);
}

int
rt_stream_wait(int dev, CUstream waiter, CUstream producer)
{
    CUresult r;
    if (rt_norm_stream(waiter) == rt_norm_stream(producer)) {
        return 0;
    }
    RtDevice *d = &devices[dev];
    if (!d->sync_event) {
        r = rt_cu.cuEventCreate(&d->sync_event, CU_EVENT_DISABLE_TIMING);
        if (r != CUDA_SUCCESS) {
            d->sync_event = NULL;
            return rt_cuda_fail(r, "cannot create an event");
        }
    }
    r = rt_cu.cuEventRecord(d->sync_event, producer);
    if (r == CUDA_SUCCESS) {
        r = rt_cu.cuStreamWaitEvent(waiter, d->sync_event, 0);
    }
    if (r != CUDA_SUCCESS) {
        return rt_cuda_fail(r, "cannot order stream %p after stream %p", (void *)waiter,
                            (void *)producer);
    }
    return 0;
}

/* ---- module-level functions ---- */

PyObject *
rt_py_synchronize(PyObject *self, PyObject *noargs)
{
    CUresult r;
    int dev = rt_ensure_context();
    if (dev < 0) {
        rt_err_context("synchronize");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    r = rt_cu.cuCtxSynchronize();
    Py_END_ALLOW_THREADS
    fflush(stdout);     /* what kernels printed reaches the C stdout at a sync */
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "synchronizing device %d", dev);
        return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
rt_py_release_memory(PyObject *self, PyObject *noargs)
{
    if (drv_state != 1) {
        Py_RETURN_NONE;         /* nothing was ever allocated */
    }
    PyObject *r = rt_py_synchronize(self, noargs);
    if (!r) {
        return NULL;
    }
    Py_DECREF(r);
    for (int i = 0; i < ndevices; i++) {
        if (devices[i].pool_state > 0) {
            rt_cu.cuMemPoolTrimTo(devices[i].pool, 0);
        }
    }
    Py_RETURN_NONE;
}

PyObject *
rt_py_memory_info(PyObject *self, PyObject *noargs)
{
    unsigned long long used = 0, reserved = 0;
    size_t free_ = 0, total = 0;
    int dev = rt_ensure_context();
    if (dev < 0) {
        return NULL;
    }
    RtDevice *d = &devices[dev];
    pool_init(d, dev);
    if (d->pool_state > 0 && rt_cu.cuMemPoolGetAttribute) {
        rt_cu.cuMemPoolGetAttribute(d->pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
        rt_cu.cuMemPoolGetAttribute(d->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved);
    }
    CUresult r = rt_cu.cuMemGetInfo(&free_, &total);
    if (r != CUDA_SUCCESS) {
        rt_cuda_fail(r, "cuMemGetInfo failed");
        return NULL;
    }
    return Py_BuildValue("{sisOsKsKsnsn}", "device", dev, "pool",
                         d->pool_state > 0 ? Py_True : Py_False, "used", used, "reserved",
                         reserved, "free", (Py_ssize_t)free_, "total", (Py_ssize_t)total);
}
