/* fakenvrtc.c - a stand-in libnvrtc.so.13 that forwards every call to the
 * real NVRTC (the file FAKENVRTC_REAL names) under the fault plan of
 * faultplan.h, so that a test can make any NVRTC call fail (out of memory,
 * an internal error) without a hook in cujit.  tests/test_faults_nogpu.py
 * builds it as <dir>/lib64/libnvrtc.so.13 beside <dir>/include (a link to
 * the real toolkit's headers) and points CUDA_HOME at <dir>. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "faultplan.h"

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

static void *real;

/* the real library's `name`; aborts when it cannot be had (a broken test set-up) */
static void *
sym(const char *name)
{
    if (!real) {
        const char *p = getenv("FAKENVRTC_REAL");
        real = p ? dlopen(p, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (!real) {
            fprintf(stderr, "fakenvrtc: cannot open FAKENVRTC_REAL=%s\n", p ? p : "(unset)");
            abort();
        }
    }
    void *f = dlsym(real, name);
    if (!f) {
        fprintf(stderr, "fakenvrtc: the real NVRTC has no %s\n", name);
        abort();
    }
    return f;
}

/* fn_: the real library's function of this name, looked up once (the shim's
 * functions have the real ones' types) */
#define REAL(name) \
    static __typeof__(name) *fn_; \
    if (!fn_) { \
        *(void **)&fn_ = sym(#name); \
    }

const char *
nvrtcGetErrorString(nvrtcResult r)
{
    REAL(nvrtcGetErrorString);
    return fn_(r);
}

nvrtcResult
nvrtcVersion(int *major, int *minor)
{
    FAULT();
    REAL(nvrtcVersion);
    return fn_(major, minor);
}

nvrtcResult
nvrtcCreateProgram(nvrtcProgram *p, const char *src, const char *name, int nh,
                   const char *const *headers, const char *const *names)
{
    FAULT();
    REAL(nvrtcCreateProgram);
    return fn_(p, src, name, nh, headers, names);
}

/* never fails: a program is destroyed on every path, as NVRTC allows */
nvrtcResult
nvrtcDestroyProgram(nvrtcProgram *p)
{
    REAL(nvrtcDestroyProgram);
    return fn_(p);
}

nvrtcResult
nvrtcCompileProgram(nvrtcProgram p, int nopt, const char *const *opts)
{
    FAULT();
    REAL(nvrtcCompileProgram);
    return fn_(p, nopt, opts);
}

#define GETTER(name, type) \
    nvrtcResult name(nvrtcProgram p, type out); \
    nvrtcResult \
    name(nvrtcProgram p, type out) \
    { \
        FAULT(); \
        REAL(name); \
        return fn_(p, out); \
    }

GETTER(nvrtcGetPTXSize, size_t *)
GETTER(nvrtcGetPTX, char *)
GETTER(nvrtcGetCUBINSize, size_t *)
GETTER(nvrtcGetCUBIN, char *)
GETTER(nvrtcGetProgramLogSize, size_t *)
GETTER(nvrtcGetProgramLog, char *)

nvrtcResult
nvrtcGetNumSupportedArchs(int *n)
{
    FAULT();
    REAL(nvrtcGetNumSupportedArchs);
    return fn_(n);
}

nvrtcResult
nvrtcGetSupportedArchs(int *archs)
{
    FAULT();
    REAL(nvrtcGetSupportedArchs);
    return fn_(archs);
}
