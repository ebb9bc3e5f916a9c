/* fakecuda.c - a stand-in libcuda.so.1 for testing cujit's runtime on
 * machines without a GPU (tests/test_runtime_nogpu.py builds it and runs
 * Python with it first on LD_LIBRARY_PATH).
 *
 * Two devices (sm_90 and sm_86); device memory is host memory; contexts,
 * streams and events are bookkeeping; a launch runs a host version of a few
 * kernels chosen by name:
 *   scale2(float *x, long long n)   x[i] *= 2 for i < n
 *   fail()                          records an assert failure in cj_error
 *   cj_fake_raise_*                 records a raise (cujit's kernel fake_raise)
 *   crash()                         the next synchronize reports an illegal address
 * Environment: FAKECUDA_NODEV=1 (cuInit fails), FAKECUDA_NOPOOL=1 (no memory
 * pools), FAKECUDA_NOCOOP=1 (no cooperative launches), FAKECUDA_NOIPC=1 (no
 * exportable pools).
 *
 * IPC of pools: an exported pool's fd is a memfd; exporting a pointer
 * appends the allocation's bytes to it (a snapshot, where the real driver
 * shares the memory), and importing reads them into a new block.  Managed
 * and mapped memory are malloc'ed, their device address the host's.  Occupancy is an
 * H100's thread limit: min(2048 / block threads, 32) blocks per SM, 132 SMs.
 * Counters (fake_allocs, fake_frees, fake_launches, fake_coop_launches,
 * fake_waits, and the copies fake_htod, fake_dtoh, fake_dtod) are exported
 * for ctypes.  cuGetProcAddress_v2 answers with this library's own symbols, so
 * cuda-python (numba-cuda's bindings) loads it too: scripts/peer_suite.py
 * --fakecuda runs the peers' suites here, compiling for real, launching nothing.
 *
 * A destroyed stream is never freed but remembered: a call that names it
 * afterwards (a free, an allocation, a copy, a launch, a synchronize) prints
 * what and aborts, as the real driver's use of a freed handle crashes.
 *
 * Every entry point but the error-string ones opens with FAULT(): the fault
 * plan of faultplan.h (count the calls, fail the k-th one with a given
 * CUresult), driven through ctypes or FAKECUDA_FAULT. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define NDEV 2

typedef struct {
    int dev;
} Ctx;

typedef struct {
    void *errrec;               /* 64 bytes when the image mentions cj_error */
} Module;

typedef struct {
    Module *m;
    char name[256];         /* whole: a coarsened entry (_x2) differs at its end */
} Func;

typedef struct {
    long long used, reserved;
    int exportable;             /* created with a handle type */
    int fd;                     /* its memfd once exported, or imported; 0: none */
    int shared;                 /* exported to a shareable handle: pointers may be exported
                                 * (the real driver says CUDA_ERROR_INVALID_VALUE before) */
} Pool;

/* a pool block: its header of four words (size, pool, next, prev) and the
 * list of live blocks, for cuMemGetAddressRange */
static size_t *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    double t;
} Event;

/* the streams destroyed so far (their memory is kept, so no new stream takes
 * an address of this list) */
static void **dead_streams;
static size_t ndead, capdead;

static void
live_stream(void *s, const char *what)
{
    for (size_t i = 0; i < ndead; i++) {
        if (dead_streams[i] == s) {
            fprintf(stderr, "fakecuda: %s on a destroyed stream %p\n", what, s);
            abort();
        }
    }
}

long long fake_allocs, fake_frees, fake_launches, fake_coop_launches, fake_waits;
long long fake_htod, fake_dtoh, fake_dtod;
long long fake_inits;           /* cuInit calls */

static Ctx primaries[NDEV] = {{0}, {1}};
static _Thread_local Ctx *stack[64];
static _Thread_local int depth;         /* stack[depth - 1] is current */
static CUresult sticky;

#include "faultplan.h"

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

CUresult
cuInit(unsigned flags)
{
    FAULT();
    fake_inits++;
    return getenv("FAKECUDA_NODEV") ? 100 : 0;
}

CUresult
cuDriverGetVersion(int *v)
{
    FAULT();
    *v = 13000;
    return 0;
}

/* NVRTC asks libcuda for this when it finds one */
CUresult
cuGetExportTable(const void **table, const void *id)
{
    return 801;
}

CUresult
cuGetErrorName(CUresult r, const char **s)
{
    switch (r) {
    case 0: *s = "CUDA_SUCCESS"; break;
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case 100: *s = "CUDA_ERROR_NO_DEVICE"; break;
    case 200: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; break;
    case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; break;
    case 700: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case 701: *s = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; break;
    case 709: *s = "CUDA_ERROR_CONTEXT_IS_DESTROYED"; break;
    case 719: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
    case 999: *s = "CUDA_ERROR_UNKNOWN"; break;
    default: *s = NULL; return 1;
    }
    return 0;
}

CUresult
cuGetErrorString(CUresult r, const char **s)
{
    switch (r) {
    case 2: *s = "out of memory"; break;
    case 100: *s = "no CUDA-capable device is detected"; break;
    case 700: *s = "an illegal memory access was encountered"; break;
    case 709: *s = "context is destroyed"; break;
    case 719: *s = "unspecified launch failure"; break;
    default: *s = "fake error"; break;
    }
    return 0;
}

CUresult
cuDeviceGet(int *d, int ordinal)
{
    FAULT();
    if (ordinal < 0 || ordinal >= NDEV) {
        return 101;
    }
    *d = ordinal;
    return 0;
}

CUresult
cuDeviceGetCount(int *n)
{
    FAULT();
    *n = NDEV;
    return 0;
}

CUresult
cuDeviceGetName(char *name, int len, int d)
{
    FAULT();
    snprintf(name, (size_t)len, "Fake GPU %d", d);
    return 0;
}

CUresult
cuDeviceGetAttribute(int *v, int attr, int d)
{
    FAULT();
    switch (attr) {
    case 1: *v = 1024; break;                       /* max threads per block */
    case 8: *v = 49152; break;                      /* shared memory per block */
    case 10: *v = 32; break;                        /* warp size */
    case 16: *v = 132; break;                       /* SMs */
    case 75: *v = d == 0 ? 9 : 8; break;            /* compute capability */
    case 76: *v = d == 0 ? 0 : 6; break;
    case 95: *v = getenv("FAKECUDA_NOCOOP") ? 0 : 1; break;   /* cooperative launch */
    case 97: *v = 232448; break;                    /* opt-in shared memory */
    case 115: *v = getenv("FAKECUDA_NOPOOL") ? 0 : 1; break;
    case 119: *v = getenv("FAKECUDA_NOIPC") ? 0 : 1; break;    /* POSIX fd pools */
    default: *v = 0; break;
    }
    return 0;
}

CUresult
cuDeviceTotalMem_v2(size_t *bytes, int d)
{
    FAULT();
    *bytes = (size_t)80 << 30;
    return 0;
}

CUresult
cuDevicePrimaryCtxRetain(Ctx **c, int d)
{
    FAULT();
    *c = &primaries[d];
    return 0;
}

CUresult
cuCtxGetCurrent(Ctx **c)
{
    FAULT();
    *c = depth ? stack[depth - 1] : NULL;
    return 0;
}

CUresult
cuCtxSetCurrent(Ctx *c)
{
    FAULT();
    if (!c) {
        depth = depth ? depth - 1 : 0;
        return 0;
    }
    depth = depth ? depth : 1;
    stack[depth - 1] = c;
    return 0;
}

CUresult
cuCtxPushCurrent_v2(Ctx *c)
{
    FAULT();
    stack[depth++] = c;
    return 0;
}

CUresult
cuCtxPopCurrent_v2(Ctx **c)
{
    FAULT();
    if (!depth) {
        return 201;
    }
    *c = stack[--depth];
    return 0;
}

CUresult
cuCtxGetDevice(int *d)
{
    FAULT();
    if (!depth) {
        return 201;
    }
    *d = stack[depth - 1]->dev;
    return 0;
}

CUresult
cuCtxSynchronize(void)
{
    FAULT();
    return depth ? sticky : 201;
}

/* cuda.profile_start / profile_stop: counted, with a context current */
int fake_profiler_starts, fake_profiler_stops;

CUresult
cuProfilerStart(void)
{
    FAULT();
    if (!depth) {
        return 201;
    }
    fake_profiler_starts++;
    return 0;
}

CUresult
cuProfilerStop(void)
{
    FAULT();
    if (!depth) {
        return 201;
    }
    fake_profiler_stops++;
    return 0;
}

CUresult
cuMemGetInfo_v2(size_t *free_, size_t *total)
{
    FAULT();
    *free_ = (size_t)70 << 30;
    *total = (size_t)80 << 30;
    return 0;
}

/* the size of an ELF image (section headers come last), or a string's */
static size_t
image_size(const unsigned char *u)
{
    if (memcmp(u, "\x7f" "ELF", 4) == 0) {
        uint64_t shoff;
        uint16_t shentsize, shnum;
        memcpy(&shoff, u + 0x28, 8);
        memcpy(&shentsize, u + 0x3a, 2);
        memcpy(&shnum, u + 0x3c, 2);
        return shoff + (size_t)shentsize * shnum;
    }
    return strlen((const char *)u);
}

CUresult
cuModuleLoadData(Module **m, const void *image)
{
    FAULT();
    if (!depth) {
        return 201;
    }
    if (memcmp(image, "BAD", 3) == 0) {
        return 200;
    }
    Module *x = calloc(1, sizeof *x);
    x->errrec = memmem(image, image_size(image), "cj_error", 8) ? calloc(1, 64) : NULL;
    *m = x;
    return 0;
}

/* ---- the JIT linker: each input checked (non-empty, of the stated kind),
 * then linked for real by the toolkit's nvJitLink where it is found
 * ($CUDA_HOME/lib64, /usr/local/cuda/lib64 or the library path), so an
 * undefined function fails here as on a GPU; without it the first cubin
 * given stands for the image.  fake_links counts cuLinkComplete's links,
 * fake_link_inputs the inputs added. ---- */

long long fake_links, fake_link_inputs;

typedef struct {
    void *nvj;                  /* nvJitLinkHandle, or NULL */
    char *first;                /* the first cubin added (no nvJitLink) */
    size_t first_len;
    char *image;
    char *errlog;               /* CU_JIT_ERROR_LOG_BUFFER, or NULL */
    size_t errlog_n;
    int inputs;
} LinkState;

static struct {
    int tried;
    int (*create)(void **h, unsigned n, const char **opts);
    int (*add)(void *h, int type, const void *data, size_t size, const char *name);
    int (*complete)(void *h);
    int (*cubin_size)(void *h, size_t *n);
    int (*cubin)(void *h, void *out);
    int (*log_size)(void *h, size_t *n);
    int (*log)(void *h, char *out);
    int (*destroy)(void **h);
} nvj;

static void
nvj_open(void)
{
    if (nvj.tried) {
        return;
    }
    nvj.tried = 1;
    char path[1024];
    const char *home = getenv("CUDA_HOME");
    void *h = NULL;
    if (home) {
        snprintf(path, sizeof path, "%s/lib64/libnvJitLink.so", home);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    h = h ? h : dlopen("/usr/local/cuda/lib64/libnvJitLink.so", RTLD_NOW | RTLD_LOCAL);
    h = h ? h : dlopen("libnvJitLink.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        return;
    }
    *(void **)&nvj.create = dlsym(h, "nvJitLinkCreate");
    *(void **)&nvj.add = dlsym(h, "nvJitLinkAddData");
    *(void **)&nvj.complete = dlsym(h, "nvJitLinkComplete");
    *(void **)&nvj.cubin_size = dlsym(h, "nvJitLinkGetLinkedCubinSize");
    *(void **)&nvj.cubin = dlsym(h, "nvJitLinkGetLinkedCubin");
    *(void **)&nvj.log_size = dlsym(h, "nvJitLinkGetErrorLogSize");
    *(void **)&nvj.log = dlsym(h, "nvJitLinkGetErrorLog");
    *(void **)&nvj.destroy = dlsym(h, "nvJitLinkDestroy");
    if (!nvj.create || !nvj.add || !nvj.complete || !nvj.cubin_size || !nvj.cubin
        || !nvj.log_size || !nvj.log || !nvj.destroy) {
        nvj.create = NULL;
    }
}

/* the linker's log: nvJitLink's, or msg */
static void
link_log(LinkState *st, const char *msg)
{
    if (!st->errlog || !st->errlog_n) {
        return;
    }
    size_t n = 0;
    if (!msg && st->nvj && nvj.log_size(st->nvj, &n) == 0 && n && n <= st->errlog_n) {
        nvj.log(st->nvj, st->errlog);
        return;
    }
    snprintf(st->errlog, st->errlog_n, "%s", msg ? msg : "fake link error");
}

CUresult
cuLinkCreate_v2(unsigned nopts, const int *opts, void **vals, LinkState **out)
{
    FAULT();
    if (!depth) {
        return 201;
    }
    if (nopts && (!opts || !vals)) {
        return 1;
    }
    LinkState *st = calloc(1, sizeof *st);
    for (unsigned i = 0; i < nopts; i++) {
        if (opts[i] == 5) {                         /* CU_JIT_ERROR_LOG_BUFFER */
            st->errlog = vals[i];
        } else if (opts[i] == 6) {                  /* ..._SIZE_BYTES */
            st->errlog_n = (size_t)(uintptr_t)vals[i];
        }
    }
    nvj_open();
    if (nvj.create) {
        const char *o[] = {"-arch=sm_90"};
        if (nvj.create(&st->nvj, 1, o) != 0) {
            st->nvj = NULL;
        }
    }
    *out = st;
    return 0;
}

/* does data look like the CUjitInputType it is given as? */
static int
link_kind_ok(int type, const unsigned char *d, size_t n)
{
    switch (type) {
    case 0:                                         /* CUBIN */
    case 3:                                         /* OBJECT */
        return n >= 4 && memcmp(d, "\x7f" "ELF", 4) == 0;
    case 1:                                         /* PTX: text, NUL last */
        return d[n - 1] == '\0' && memmem(d, n, ".version", 8) != NULL;
    case 2:                                         /* FATBINARY */
        return n >= 4 && memcmp(d, "\x50\xed\x55\xba", 4) == 0;
    case 4:                                         /* LIBRARY */
        return n >= 8 && memcmp(d, "!<arch>\n", 8) == 0;
    default:
        return 0;
    }
}

CUresult
cuLinkAddData_v2(LinkState *st, int type, void *data, size_t size, const char *name,
                 unsigned nopts, int *opts, void **vals)
{
    FAULT();
    if (!st || !data || !size || !name) {
        return 1;
    }
    if (!link_kind_ok(type, data, size)) {
        char msg[300];
        snprintf(msg, sizeof msg, "fakecuda: input '%s' is not of its stated kind %d", name, type);
        link_log(st, msg);
        return type == 1 ? 218 : 200;               /* INVALID_PTX, INVALID_IMAGE */
    }
    fake_link_inputs++;
    st->inputs++;
    if (type == 0 && !st->first) {
        st->first = malloc(size);
        memcpy(st->first, data, size);
        st->first_len = size;
    }
    /* nvJitLink's kinds: CUBIN 1, PTX 2, FATBIN 4, OBJECT 5, LIBRARY 6 */
    static const int nvj_kind[] = {1, 2, 4, 5, 6};
    if (st->nvj && nvj.add(st->nvj, nvj_kind[type], data, size, name) != 0) {
        link_log(st, NULL);
        return 200;
    }
    return 0;
}

CUresult
cuLinkComplete(LinkState *st, void **image, size_t *size)
{
    FAULT();
    if (!st || !image || !size || !st->inputs) {
        return 1;
    }
    size_t n = 0;
    if (st->nvj) {
        if (nvj.complete(st->nvj) != 0 || nvj.cubin_size(st->nvj, &n) != 0) {
            link_log(st, NULL);
            return 200;
        }
        free(st->image);
        st->image = malloc(n);
        nvj.cubin(st->nvj, st->image);
    } else if (st->first) {
        n = st->first_len;
        free(st->image);
        st->image = malloc(n);
        memcpy(st->image, st->first, n);
    } else {
        link_log(st, "fakecuda: no cubin to stand for the image (and no nvJitLink)");
        return 200;
    }
    fake_links++;
    *image = st->image;
    *size = n;
    return 0;
}

CUresult
cuLinkDestroy(LinkState *st)
{
    FAULT();
    if (!st) {
        return 1;
    }
    if (st->nvj) {
        nvj.destroy(&st->nvj);
    }
    free(st->first);
    free(st->image);
    free(st);
    return 0;
}

CUresult
cuModuleUnload(Module *m)
{
    FAULT();
    free(m->errrec);
    free(m);
    return 0;
}

CUresult
cuModuleGetFunction(Func **f, Module *m, const char *name)
{
    FAULT();
    Func *x = calloc(1, sizeof *x);
    x->m = m;
    snprintf(x->name, sizeof x->name, "%s", name);
    *f = x;
    return 0;
}

CUresult
cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *size, Module *m, const char *name)
{
    FAULT();
    if (strcmp(name, "cj_error") != 0 || !m->errrec) {
        return 500;
    }
    *p = (CUdeviceptr)(uintptr_t)m->errrec;
    *size = 64;
    return 0;
}

CUresult
cuFuncSetAttribute(Func *f, int attr, int value)
{
    FAULT();
    if (attr == 9 && (value < -1 || value > 100)) {
        return 1;                   /* the carveout is a percentage, -1 the default */
    }
    return 0;
}

/* a loaded function's attributes: fixed plausible values (the fake does not
 * read the CUBIN): 1024 threads per block, 0 bytes of static shared, constant
 * and local memory, 16 registers; other attributes are invalid */
CUresult
cuFuncGetAttribute(int *v, int attr, Func *f)
{
    FAULT();
    static const int values[] = {1024, 0, 0, 0, 16};
    if (attr < 0 || attr >= (int)(sizeof values / sizeof values[0])) {
        return 1;
    }
    *v = values[attr];
    return 0;
}

/* set by a scenario (ctypes): runs launches of kernels it knows, e.g.
 * their CUDA compiled for the host (tests/test_kernels_host.py's shim);
 * device memory is host memory here, so the parameters work as they are */
typedef void (*LaunchHook)(const char *name, void **params, const unsigned *grid,
                           const unsigned *block);
LaunchHook fake_launch_hook;
unsigned fake_last_shmem;       /* the dynamic shared memory of the last launch */

/* what cuLaunchKernel and cuLaunchCooperativeKernel do */
static CUresult
launch(Func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
       void **params)
{
    if (!depth) {
        return 201;
    }
    fake_launches++;
    if (fake_launch_hook) {
        unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
        fake_launch_hook(f->name, params, grid, block);
    }
    if (strcmp(f->name, "scale2") == 0) {
        float *x = *(float **)params[0];
        long long n = *(long long *)params[1];
        for (long long i = 0; i < n; i++) {
            x[i] *= 2;
        }
    } else if (strncmp(f->name, "cj_scale2_f4a1C_i8", 18) == 0) {
        /* cujit's scale2(x: float32[::1], n: int64) kernel: the array is a
         * cj_array whose first member is the data pointer */
        float *x = *(float **)params[0];
        long long n = *(long long *)params[1];
        for (long long i = 0; i < n; i++) {
            x[i] *= 2;
        }
    } else if (strcmp(f->name, "fail") == 0 && f->m->errrec) {
        /* flag, kind (assert), line, msg_id, block xyz, thread xyz */
        int rec[10] = {1, 1, 42, -1, 3, 0, 0, 5, 0, 0};
        memcpy(f->m->errrec, rec, sizeof rec);
    } else if (strncmp(f->name, "cj_fake_raise_", 14) == 0 && f->m->errrec) {
        /* cujit's kernel fake_raise: a raise (kind 3) of the program's first
         * message at line 7, block (3, 0, 0), thread (5, 0, 0) */
        int rec[10] = {1, 3, 7, 0, 3, 0, 0, 5, 0, 0};
        memcpy(f->m->errrec, rec, sizeof rec);
    } else if (strcmp(f->name, "crash") == 0) {
        sticky = 700;
    }
    return 0;
}

CUresult
cuLaunchKernel(Func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
               unsigned bz, unsigned shmem, void *stream, void **params, void **extra)
{
    FAULT();
    live_stream(stream, "a launch");
    fake_last_shmem = shmem;
    return launch(f, gx, gy, gz, bx, by, bz, params);
}

/* a cooperative launch is a launch here (every block runs in turn) */
CUresult
cuLaunchCooperativeKernel(Func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shmem, void *stream, void **params)
{
    FAULT();
    live_stream(stream, "a launch");
    CUresult r = launch(f, gx, gy, gz, bx, by, bz, params);
    fake_coop_launches += r == 0;
    return r;
}

CUresult
cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, Func *f, int block, size_t shmem)
{
    FAULT();
    if (block <= 0 || block > 1024) {
        return 1;
    }
    *n = 2048 / block < 32 ? 2048 / block : 32;
    return 0;
}

CUresult
cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    FAULT();
    *p = (CUdeviceptr)(uintptr_t)malloc(n);
    fake_allocs++;
    return 0;
}

CUresult
cuMemFree_v2(CUdeviceptr p)
{
    FAULT();
    free((void *)(uintptr_t)p);
    fake_frees++;
    return 0;
}

CUresult
cuMemPoolCreate(Pool **p, const void *props)
{
    FAULT();
    *p = calloc(1, sizeof **p);
    (*p)->exportable = ((const int *)props)[1] != 0;      /* handleTypes */
    return 0;
}

CUresult
cuMemPoolSetAttribute(Pool *p, int attr, void *v)
{
    FAULT();
    return 0;
}

CUresult
cuMemPoolGetAttribute(Pool *p, int attr, void *v)
{
    FAULT();
    *(unsigned long long *)v = (unsigned long long)(attr == 7 ? p->used : p->reserved);
    return 0;
}

CUresult
cuMemPoolTrimTo(Pool *p, size_t keep)
{
    FAULT();
    p->reserved = p->used;
    return 0;
}

CUresult
cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, Pool *pool, void *stream)
{
    FAULT();
    live_stream(stream, "cuMemAllocFromPoolAsync");
    if (!depth) {
        return 201;
    }
    if (n > ((size_t)1 << 40)) {
        return 2;
    }
    size_t *b = malloc(n + 32);
    b[0] = n;
    b[1] = (size_t)(uintptr_t)pool;
    pthread_mutex_lock(&blocks_lock);
    b[2] = (size_t)(uintptr_t)blocks;
    b[3] = 0;
    if (blocks) {
        blocks[3] = (size_t)(uintptr_t)b;
    }
    blocks = b;
    pthread_mutex_unlock(&blocks_lock);
    *p = (CUdeviceptr)(uintptr_t)(b + 4);
    pool->used += (long long)n;
    pool->reserved = pool->used > pool->reserved ? pool->used : pool->reserved;
    fake_allocs++;
    return 0;
}

CUresult
cuMemFreeAsync(CUdeviceptr p, void *stream)
{
    FAULT();
    live_stream(stream, "cuMemFreeAsync");
    size_t *b = (size_t *)(uintptr_t)p - 4;
    size_t *next = (size_t *)(uintptr_t)b[2], *prev = (size_t *)(uintptr_t)b[3];
    pthread_mutex_lock(&blocks_lock);
    if (prev) {
        prev[2] = b[2];
    } else {
        blocks = next;
    }
    if (next) {
        next[3] = b[3];
    }
    pthread_mutex_unlock(&blocks_lock);
    ((Pool *)(uintptr_t)b[1])->used -= (long long)b[0];
    free(b);
    fake_frees++;
    return 0;
}

/* the pool block holding p, or NULL */
static size_t *
block_of(CUdeviceptr p)
{
    size_t *found = NULL;
    pthread_mutex_lock(&blocks_lock);
    for (size_t *b = blocks; b && !found; b = (size_t *)(uintptr_t)b[2]) {
        CUdeviceptr start = (CUdeviceptr)(uintptr_t)(b + 4);
        if (p >= start && p < start + (b[0] ? b[0] : 1)) {
            found = b;
        }
    }
    pthread_mutex_unlock(&blocks_lock);
    return found;
}

CUresult
cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    FAULT();
    size_t *b = block_of(p);
    if (!b) {
        return 1;                       /* CUDA_ERROR_INVALID_VALUE */
    }
    *base = (CUdeviceptr)(uintptr_t)(b + 4);
    *size = b[0];
    return 0;
}

static int
pool_memfd(Pool *pool)
{
    if (!pool->fd) {
        pool->fd = memfd_create("fakecuda-pool", 0);
    }
    return pool->fd;
}

CUresult
cuMemPoolExportToShareableHandle(void *handle, Pool *pool, int type, unsigned long long flags)
{
    FAULT();
    if (!pool->exportable || type != 1) {
        return 1;
    }
    *(int *)handle = pool_memfd(pool);
    pool->shared = *(int *)handle >= 0;
    return *(int *)handle < 0 ? 999 : 0;
}

/* the export data: a tag, the snapshot's offset in the pool's memfd, its size */
typedef struct {
    char tag[8];
    long long offset, size;
    unsigned char pad[40];
} Export;

CUresult
cuMemPoolExportPointer(Export *out, CUdeviceptr p)
{
    FAULT();
    size_t *b = block_of(p);
    if (!b || (CUdeviceptr)(uintptr_t)(b + 4) != p) {
        return 1;
    }
    Pool *pool = (Pool *)(uintptr_t)b[1];
    int fd = pool->exportable && pool->shared ? pool_memfd(pool) : -1;
    if (fd < 0) {
        return 1;
    }
    off_t end = lseek(fd, 0, SEEK_END);
    if (pwrite(fd, b + 4, b[0], end) != (ssize_t)b[0]) {
        return 999;
    }
    memset(out, 0, sizeof *out);
    memcpy(out->tag, "fakeipc", 8);
    out->offset = (long long)end;
    out->size = (long long)b[0];
    return 0;
}

CUresult
cuMemPoolImportFromShareableHandle(Pool **pool, void *handle, int type, unsigned long long flags)
{
    FAULT();
    if (type != 1) {
        return 1;
    }
    *pool = calloc(1, sizeof **pool);
    (*pool)->fd = dup((int)(intptr_t)handle);
    return (*pool)->fd < 0 ? 1 : 0;
}

CUresult
cuMemPoolImportPointer(CUdeviceptr *p, Pool *pool, Export *data)
{
    FAULT();
    if (memcmp(data->tag, "fakeipc", 8) != 0 || !pool->fd) {
        return 1;
    }
    void *m = malloc(data->size ? (size_t)data->size : 1);
    if (pread(pool->fd, m, (size_t)data->size, data->offset) != (ssize_t)data->size) {
        free(m);
        return 1;
    }
    *p = (CUdeviceptr)(uintptr_t)m;
    fake_allocs++;
    return 0;
}

long long fake_pool_access_sets;    /* cuMemPoolSetAccess calls */

CUresult
cuMemPoolSetAccess(Pool *pool, const void *desc, size_t n)
{
    FAULT();
    fake_pool_access_sets++;
    return 0;
}

/* an imported pool answers "no access" until set (as the real one may) */
CUresult
cuMemPoolGetAccess(int *flags, Pool *pool, const void *location)
{
    FAULT();
    *flags = fake_pool_access_sets ? 3 : 0;
    return 0;
}

CUresult
cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned flags)
{
    FAULT();
    if (flags != 1 && flags != 2) {
        return 1;
    }
    *p = (CUdeviceptr)(uintptr_t)calloc(1, n);
    fake_allocs++;
    return 0;
}

CUresult
cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
    FAULT();
    *p = calloc(1, n);
    fake_allocs++;
    return 0;
}

CUresult
cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned flags)
{
    FAULT();
    *d = (CUdeviceptr)(uintptr_t)p;
    return 0;
}

CUresult
cuMemFreeHost(void *p)
{
    FAULT();
    free(p);
    fake_frees++;
    return 0;
}

CUresult
cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *stream)
{
    FAULT();
    live_stream(stream, "cuMemcpyHtoDAsync_v2");
    fake_htod++;
    memcpy((void *)(uintptr_t)d, s, n);
    return 0;
}

CUresult
cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *stream)
{
    FAULT();
    live_stream(stream, "cuMemcpyDtoHAsync_v2");
    fake_dtoh++;
    memcpy(d, (void *)(uintptr_t)s, n);
    return 0;
}

CUresult
cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *stream)
{
    FAULT();
    live_stream(stream, "cuMemcpyDtoDAsync_v2");
    fake_dtod++;
    memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
    return 0;
}

CUresult
cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    FAULT();
    fake_dtoh++;
    memcpy(d, (void *)(uintptr_t)s, n);
    return 0;
}

CUresult
cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n)
{
    FAULT();
    memset((void *)(uintptr_t)p, v, n);
    return 0;
}

CUresult
cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void *stream)
{
    FAULT();
    memset((void *)(uintptr_t)p, v, n);
    return 0;
}

CUresult
cuMemsetD16Async(CUdeviceptr p, unsigned short v, size_t n, void *stream)
{
    FAULT();
    unsigned short *q = (void *)(uintptr_t)p;
    for (size_t i = 0; i < n; i++) {
        q[i] = v;
    }
    return 0;
}

CUresult
cuMemsetD32Async(CUdeviceptr p, unsigned v, size_t n, void *stream)
{
    FAULT();
    unsigned *q = (void *)(uintptr_t)p;
    for (size_t i = 0; i < n; i++) {
        q[i] = v;
    }
    return 0;
}

CUresult
cuStreamCreate(void **s, unsigned flags)
{
    FAULT();
    *s = malloc(8);
    return 0;
}

CUresult
cuStreamDestroy_v2(void *s)
{
    FAULT();
    live_stream(s, "cuStreamDestroy");
    if (ndead == capdead) {
        capdead = capdead ? 2 * capdead : 64;
        dead_streams = realloc(dead_streams, capdead * sizeof *dead_streams);
    }
    dead_streams[ndead++] = s;
    return 0;
}

CUresult
cuStreamSynchronize(void *s)
{
    FAULT();
    live_stream(s, "cuStreamSynchronize");
    return sticky;
}

CUresult
cuStreamQuery(void *s)
{
    FAULT();
    return 0;
}

CUresult
cuStreamWaitEvent(void *s, Event *e, unsigned flags)
{
    FAULT();
    live_stream(s, "cuStreamWaitEvent");
    fake_waits++;
    return 0;
}

CUresult
cuEventCreate(Event **e, unsigned flags)
{
    FAULT();
    *e = calloc(1, sizeof **e);
    return 0;
}

CUresult
cuEventDestroy_v2(Event *e)
{
    FAULT();
    free(e);
    return 0;
}

CUresult
cuEventRecord(Event *e, void *stream)
{
    FAULT();
    e->t = now_ms();
    return 0;
}

CUresult
cuEventSynchronize(Event *e)
{
    FAULT();
    return 0;
}

CUresult
cuEventQuery(Event *e)
{
    FAULT();
    return 0;
}

CUresult
cuEventElapsedTime(float *ms, Event *a, Event *b)
{
    FAULT();
    *ms = (float)(b->t - a->t);
    return 0;
}

/* cuda-python (numba-cuda's driver bindings) finds every entry point through
 * cuGetProcAddress: answer with this library's own symbol, trying the
 * versioned names first; a name it lacks is CUDA_ERROR_NOT_FOUND. */
static void *
own_symbol(const char *sym)
{
    static const char *suffix[] = {"_v3", "_v2", ""};
    char name[256];

    for (int i = 0; i < 3; i++) {
        void *p;

        snprintf(name, sizeof name, "%s%s", sym, suffix[i]);
        if ((p = dlsym(RTLD_DEFAULT, name)))
            return p;
    }
    return NULL;
}

CUresult
cuGetProcAddress_v2(const char *sym, void **pfn, int version,
                    unsigned long long flags, int *status)
{
    FAULT();
    (void)version;
    (void)flags;
    *pfn = own_symbol(sym);
    if (status)
        *status = *pfn ? 0 : 1;         /* CU_GET_PROC_ADDRESS_SUCCESS / _SYMBOL_NOT_FOUND */
    return *pfn ? 0 : 500;              /* CUDA_ERROR_NOT_FOUND */
}

CUresult
cuDeviceGetUuid_v2(unsigned char *uuid, int dev)
{
    FAULT();
    for (int i = 0; i < 16; i++)
        uuid[i] = (unsigned char)(i + 16 * dev);
    return 0;
}
