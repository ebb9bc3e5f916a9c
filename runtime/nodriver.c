/* nodriver.c - the driver a prebuild process runs on instead of libcuda: one
 * device of the architecture named by CUJIT_PREBUILD_ARCH ("sm_90"), device
 * memory in host memory, contexts, streams and events as bookkeeping, and
 * launches that do nothing.  The stdlib's operations run on it through the
 * same code as on a GPU (forms, plans, pl_transpile, NVRTC, the same cache
 * keys), so `python -m cujit prebuild` gets the binaries a GPU of that
 * architecture would compile, on a machine with no GPU (or another one)
 * and without launching anything (ARCHITECTURE.md, "The prebuilt store").
 * rt_nodriver_fill puts these entry points in place of libcuda's; nothing
 * else in cujit knows of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_impl.h"

#define ND_SMS 132              /* an H100's: only grid sizes depend on it */
#define ND_MAXDEPTH 64

struct CUctx_st {
    int dev;
};

static struct CUctx_st primary;
static char dummy_module, dummy_function, dummy_object;
static int cc_major, cc_minor;
static _Thread_local CUcontext ctx_stack[ND_MAXDEPTH];
static _Thread_local int depth;         /* ctx_stack[depth - 1] is current */

/* "sm_90" / "sm_100a" -> 9, 0 / 10, 0; 0 when s is no such name */
static int
parse_arch(const char *s, int *major, int *minor)
{
    char *end;
    if (!s || strncmp(s, "sm_", 3) != 0) {
        return 0;
    }
    long v = strtol(s + 3, &end, 10);
    if (end == s + 3 || v < 30 || v > 1299 || (*end && strcmp(end, "a") != 0
                                                && strcmp(end, "f") != 0)) {
        return 0;
    }
    *major = (int)(v / 10);
    *minor = (int)(v % 10);
    return 1;
}

const char *
rt_nodriver_arch(void)
{
    const char *a = getenv("CUJIT_PREBUILD_ARCH");
    return a && a[0] ? a : NULL;
}

static CUresult
nd_init(unsigned flags)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_driver_version(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

static CUresult
nd_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : r == CUDA_ERROR_OUT_OF_MEMORY
         ? "CUDA_ERROR_OUT_OF_MEMORY" : r == CUDA_ERROR_NOT_FOUND ? "CUDA_ERROR_NOT_FOUND"
         : "CUDA_ERROR_INVALID_VALUE";
    return CUDA_SUCCESS;
}

static CUresult
nd_error_string(CUresult r, const char **s)
{
    *s = "prebuild: no driver (CUJIT_PREBUILD_ARCH)";
    return CUDA_SUCCESS;
}

static CUresult
nd_device_get(CUdevice *d, int ordinal)
{
    *d = 0;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult
nd_device_count(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

static CUresult
nd_device_name(char *name, int len, CUdevice d)
{
    snprintf(name, (size_t)len, "prebuild for sm_%d%d (no device)", cc_major, cc_minor);
    return CUDA_SUCCESS;
}

static CUresult
nd_device_attribute(int *v, int attr, CUdevice d)
{
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = ND_SMS; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = cc_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = cc_minor; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 49152; break;
    default: *v = 0; break;         /* no pools, no cooperative launches */
    }
    return CUDA_SUCCESS;
}

static CUresult
nd_total_mem(size_t *bytes, CUdevice d)
{
    *bytes = (size_t)1 << 34;
    return CUDA_SUCCESS;
}

static CUresult
nd_retain(CUcontext *c, CUdevice d)
{
    *c = &primary;
    return CUDA_SUCCESS;
}

static CUresult
nd_get_current(CUcontext *c)
{
    *c = depth ? ctx_stack[depth - 1] : NULL;
    return CUDA_SUCCESS;
}

static CUresult
nd_set_current(CUcontext c)
{
    if (!c) {
        depth = depth ? depth - 1 : 0;
        return CUDA_SUCCESS;
    }
    depth = depth ? depth : 1;
    ctx_stack[depth - 1] = c;
    return CUDA_SUCCESS;
}

static CUresult
nd_push(CUcontext c)
{
    if (depth == ND_MAXDEPTH) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    ctx_stack[depth++] = c;
    return CUDA_SUCCESS;
}

static CUresult
nd_pop(CUcontext *c)
{
    if (!depth) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUcontext top = ctx_stack[--depth];
    if (c) {
        *c = top;
    }
    return CUDA_SUCCESS;
}

static CUresult
nd_ctx_device(CUdevice *d)
{
    *d = 0;
    return CUDA_SUCCESS;
}

static CUresult
nd_nothing(void)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_mem_info(size_t *free_, size_t *total)
{
    *free_ = *total = (size_t)1 << 34;
    return CUDA_SUCCESS;
}

static CUresult
nd_module_load(CUmodule *m, const void *image)
{
    *m = (CUmodule)(void *)&dummy_module;
    return CUDA_SUCCESS;
}

static CUresult
nd_module_unload(CUmodule m)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_module_function(CUfunction *f, CUmodule m, const char *name)
{
    *f = (CUfunction)(void *)&dummy_function;
    return CUDA_SUCCESS;
}

/* no kernel of a prebuild reports errors: cj_error is "not there" */
static CUresult
nd_module_global(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name)
{
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult
nd_func_attribute(CUfunction f, int attr, int value)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
          unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_alloc(CUdeviceptr *p, size_t n)
{
    void *m = aligned_alloc(256, (n + 255) / 256 * 256 + 256);
    if (!m) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

static CUresult
nd_free(CUdeviceptr p)
{
    free((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}

static CUresult
nd_htod_async(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}

static CUresult
nd_dtoh_async(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult
nd_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult
nd_dtoh(void *dst, CUdeviceptr src, size_t n)
{
    return nd_dtoh_async(dst, src, n, NULL);
}

static CUresult
nd_memset8(CUdeviceptr p, unsigned char v, size_t n)
{
    memset((void *)(uintptr_t)p, v, n);
    return CUDA_SUCCESS;
}

static CUresult
nd_memset8_async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    return nd_memset8(p, v, n);
}

static CUresult
nd_memset16_async(CUdeviceptr p, unsigned short v, size_t n, CUstream s)
{
    unsigned short *d = (unsigned short *)(uintptr_t)p;
    for (size_t i = 0; i < n; i++) {
        d[i] = v;
    }
    return CUDA_SUCCESS;
}

static CUresult
nd_memset32_async(CUdeviceptr p, unsigned v, size_t n, CUstream s)
{
    unsigned *d = (unsigned *)(uintptr_t)p;
    for (size_t i = 0; i < n; i++) {
        d[i] = v;
    }
    return CUDA_SUCCESS;
}

static CUresult
nd_stream_create(CUstream *s, unsigned flags)
{
    *s = (CUstream)(void *)&dummy_object;
    return CUDA_SUCCESS;
}

static CUresult
nd_stream(CUstream s)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_stream_wait(CUstream s, CUevent e, unsigned flags)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_event_create(CUevent *e, unsigned flags)
{
    *e = (CUevent)(void *)&dummy_object;
    return CUDA_SUCCESS;
}

static CUresult
nd_event(CUevent e)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_event_record(CUevent e, CUstream s)
{
    return CUDA_SUCCESS;
}

static CUresult
nd_elapsed(float *ms, CUevent a, CUevent b)
{
    *ms = 0;
    return CUDA_SUCCESS;
}

int
rt_nodriver_fill(RtDriver *d, char *err, size_t n)
{
    const char *arch = rt_nodriver_arch();
    if (!parse_arch(arch, &cc_major, &cc_minor)) {
        snprintf(err, n, "CUJIT_PREBUILD_ARCH=%s is not an architecture: give one such as "
                 "sm_90 or sm_80", arch ? arch : "");
        return -1;
    }
    memset(d, 0, sizeof *d);        /* pools, cooperative launches, occupancy: absent */
    d->cuInit = nd_init;
    d->cuDriverGetVersion = nd_driver_version;
    d->cuGetErrorName = nd_error_name;
    d->cuGetErrorString = nd_error_string;
    d->cuDeviceGet = nd_device_get;
    d->cuDeviceGetCount = nd_device_count;
    d->cuDeviceGetName = nd_device_name;
    d->cuDeviceGetAttribute = nd_device_attribute;
    d->cuDeviceTotalMem = nd_total_mem;
    d->cuDevicePrimaryCtxRetain = nd_retain;
    d->cuCtxGetCurrent = nd_get_current;
    d->cuCtxSetCurrent = nd_set_current;
    d->cuCtxPushCurrent = nd_push;
    d->cuCtxPopCurrent = nd_pop;
    d->cuCtxGetDevice = nd_ctx_device;
    d->cuCtxSynchronize = nd_nothing;
    d->cuMemGetInfo = nd_mem_info;
    d->cuModuleLoadData = nd_module_load;
    d->cuModuleUnload = nd_module_unload;
    d->cuModuleGetFunction = nd_module_function;
    d->cuModuleGetGlobal = nd_module_global;
    d->cuFuncSetAttribute = nd_func_attribute;
    d->cuLaunchKernel = nd_launch;
    d->cuMemAlloc = nd_alloc;
    d->cuMemFree = nd_free;
    d->cuMemcpyHtoDAsync = nd_htod_async;
    d->cuMemcpyDtoHAsync = nd_dtoh_async;
    d->cuMemcpyDtoDAsync = nd_dtod_async;
    d->cuMemcpyDtoH = nd_dtoh;
    d->cuMemsetD8 = nd_memset8;
    d->cuMemsetD8Async = nd_memset8_async;
    d->cuMemsetD16Async = nd_memset16_async;
    d->cuMemsetD32Async = nd_memset32_async;
    d->cuStreamCreate = nd_stream_create;
    d->cuStreamDestroy = nd_stream;
    d->cuStreamSynchronize = nd_stream;
    d->cuStreamQuery = nd_stream;
    d->cuStreamWaitEvent = nd_stream_wait;
    d->cuEventCreate = nd_event_create;
    d->cuEventDestroy = nd_event;
    d->cuEventRecord = nd_event_record;
    d->cuEventSynchronize = nd_event;
    d->cuEventQuery = nd_event;
    d->cuEventElapsedTime = nd_elapsed;
    return 0;
}
