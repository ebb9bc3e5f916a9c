/* nvrtc.c - NVRTC through dlopen: finding the library, compiling CUDA C++ to
 * PTX and CUBIN, and the identity of the library for cache keys.
 *
 * NVRTC is searched in $CUDA_HOME and $CUDA_PATH, /usr/local/cuda, the
 * toolkit the extension was built against, the pip wheels (nvidia/cu13,
 * nvidia/cuda_nvrtc) on sys.path, then by its bare name; CUJIT_SYSTEM_CUDA=0
 * leaves only the wheels.  Loading it costs tens of milliseconds, so a warm
 * disk cache never does: the cache key uses the library file's path, size
 * and mtime instead of nvrtcVersion(). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "rt_impl.h"

#ifndef CUJIT_CUDA_HOME
#define CUJIT_CUDA_HOME "/usr/local/cuda"
#endif

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_INVALID_OPTION = 5, NVRTC_ERROR_COMPILATION = 6 };

static struct {
    const char *(*GetErrorString)(nvrtcResult r);
    nvrtcResult (*Version)(int *major, int *minor);
    nvrtcResult (*CreateProgram)(nvrtcProgram *p, const char *src, const char *name, int nh,
                                 const char *const *headers, const char *const *names);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *p);
    nvrtcResult (*CompileProgram)(nvrtcProgram p, int nopt, const char *const *opts);
    nvrtcResult (*GetPTXSize)(nvrtcProgram p, size_t *n);
    nvrtcResult (*GetPTX)(nvrtcProgram p, char *ptx);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram p, size_t *n);
    nvrtcResult (*GetCUBIN)(nvrtcProgram p, char *cubin);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram p, size_t *n);
    nvrtcResult (*GetProgramLog)(nvrtcProgram p, char *log);
    nvrtcResult (*GetNumSupportedArchs)(int *n);        /* optional (11.2+) */
    nvrtcResult (*GetSupportedArchs)(int *archs);       /* optional */
    nvrtcResult (*GetLTOIRSize)(nvrtcProgram p, size_t *n);     /* optional (12.0+) */
    nvrtcResult (*GetLTOIR)(nvrtcProgram p, char *ltoir);       /* optional */
} nv;

static int searched;                    /* the file search ran */
static char lib_path[4096];             /* the file found, "" if none */
static char inc_opts[3][4300];          /* -I options for the toolkit headers */
static int ninc;
static int load_state;                  /* 0 untried, 1 loaded, -1 failed */
static char load_error[1024];
static char identity[4400];
static int *archs;
static int narchs = -1;
static char env_opt_text[512];          /* CUJIT_NVRTC_OPTIONS, split in place */
static const char *env_opts[8];
static int nenv = -1;

/* --Ofast-compile is NVRTC 12.8's; NVRTC must be loaded */
int
rt_nvrtc_has_fast_compile(void)
{
    int major = 0, minor = 0;
    if (load_state != 1 || nv.Version(&major, &minor) != NVRTC_SUCCESS) {
        return 0;
    }
    return major > 12 || (major == 12 && minor >= 8);
}

/* CUJIT_FAST_COMPILE=0 (false, no, off) turns fast compilation off */
int
rt_fast_compile_wanted(void)
{
    return !rt_env_off(getenv("CUJIT_FAST_COMPILE"));
}

/* Extra NVRTC options from CUJIT_NVRTC_OPTIONS (space separated, at most 8),
 * for experiments; they are part of every cache key. */
int
rt_nvrtc_env_options(const char *const **out)
{
    if (nenv < 0) {
        const char *v = getenv("CUJIT_NVRTC_OPTIONS");
        nenv = 0;
        snprintf(env_opt_text, sizeof env_opt_text, "%s", v ? v : "");
        for (char *t = strtok(env_opt_text, " \t"); t && nenv < 8; t = strtok(NULL, " \t")) {
            env_opts[nenv++] = t;
        }
    }
    *out = env_opts;
    return nenv;
}

static int
is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void
add_include(const char *dir)
{
    char probe[4200];
    if (ninc >= 2 || snprintf(probe, sizeof probe, "%s/cuda_fp16.h", dir) >= (int)sizeof probe
        || !is_file(probe)) {
        return;
    }
    snprintf(inc_opts[ninc++], sizeof inc_opts[0], "-I%s", dir);
    snprintf(probe, sizeof probe, "%s/cccl", dir);      /* CUDA 13 moved CCCL here */
    struct stat st;
    if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(inc_opts[ninc++], sizeof inc_opts[0], "-I%s", probe);
    }
}

/* lib_path = dir/libnvrtc.so.{13,12} if one exists; 1 when found */
static int
try_dir(const char *dir, const char *incdir)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    char p[4096];
    if (!dir || !dir[0]) {
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) < (int)sizeof p && is_file(p)) {
            snprintf(lib_path, sizeof lib_path, "%s", p);
            add_include(incdir);
            return 1;
        }
    }
    return 0;
}

static int
try_toolkit(const char *root)
{
    char lib[4096], inc[4096];
    if (!root || !root[0]) {
        return 0;
    }
    snprintf(inc, sizeof inc, "%s/include", root);
    snprintf(lib, sizeof lib, "%s/lib64", root);
    if (try_dir(lib, inc)) {
        return 1;
    }
    snprintf(lib, sizeof lib, "%s/lib", root);
    return try_dir(lib, inc);
}

/* the pip wheels: site-packages/nvidia/{cu13,cuda_nvrtc}/lib */
static int
try_sys_path(void)
{
    static const char *const subs[][2] = {
        {"nvidia/cu13/lib", "nvidia/cu13/include"},
        {"nvidia/cuda_nvrtc/lib", "nvidia/cuda_runtime/include"},
    };
    PyObject *path = PySys_GetObject("path");       /* borrowed */
    if (!path || !PyList_Check(path)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(path); i++) {
        PyObject *item = PyList_GET_ITEM(path, i);
        const char *d = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        if (!d) {
            PyErr_Clear();
            continue;
        }
        for (size_t j = 0; j < sizeof subs / sizeof subs[0]; j++) {
            char lib[4096], inc[4096];
            snprintf(lib, sizeof lib, "%s/%s", d, subs[j][0]);
            snprintf(inc, sizeof inc, "%s/%s", d, subs[j][1]);
            if (try_dir(lib, inc)) {
                return 1;
            }
        }
    }
    return 0;
}

/* CUJIT_SYSTEM_CUDA=0 (false, no, off): NVRTC from the pip wheels only, never
 * from a CUDA toolkit ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda, the one built
 * against) nor by its bare name through the loader's search path */
static int
system_cuda_wanted(void)
{
    return !rt_env_off(getenv("CUJIT_SYSTEM_CUDA"));
}

static pthread_mutex_t search_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;

static void
search_locked(void)
{
    if (searched) {
        return;
    }
    searched = 1;
    if (!system_cuda_wanted()) {
        try_sys_path();
        return;
    }
    if (try_toolkit(getenv("CUDA_HOME")) || try_toolkit(getenv("CUDA_PATH"))
        || try_toolkit("/usr/local/cuda") || try_toolkit(CUJIT_CUDA_HOME) || try_sys_path()) {
        return;
    }
    lib_path[0] = '\0';
    add_include("/usr/local/cuda/include");
}

/* the file search runs once, from whichever thread asks first */
static void
search(void)
{
    pthread_mutex_lock(&search_mu);
    search_locked();
    pthread_mutex_unlock(&search_mu);
}

static int
load_locked(void)
{
    if (load_state) {
        return load_state;
    }
    search();
    void *h = NULL;
    if (lib_path[0]) {
        h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    } else if (system_cuda_wanted()) {
        static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
        for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++) {
            h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!h && !system_cuda_wanted()) {
        snprintf(load_error, sizeof load_error,
                 "NVRTC is not available: CUJIT_SYSTEM_CUDA=0 and no nvidia-cuda-nvrtc wheel "
                 "on sys.path (pip install nvidia-cuda-nvrtc, or cujit[cuda13])");
        load_state = -1;
        return -1;
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error,
                 "NVRTC is not available: %s (looked in $CUDA_HOME, $CUDA_PATH, "
                 "/usr/local/cuda and the nvidia-cuda-nvrtc wheel; set CUDA_HOME, or "
                 "pip install cujit[cuda13])",
                 e ? e : "libnvrtc.so.13 not found");
        load_state = -1;
        return -1;
    }
    static const struct {
        const char *sym;
        void **slot;
        int optional;
    } syms[] = {
        {"nvrtcGetErrorString", (void **)&nv.GetErrorString, 0},
        {"nvrtcVersion", (void **)&nv.Version, 0},
        {"nvrtcCreateProgram", (void **)&nv.CreateProgram, 0},
        {"nvrtcDestroyProgram", (void **)&nv.DestroyProgram, 0},
        {"nvrtcCompileProgram", (void **)&nv.CompileProgram, 0},
        {"nvrtcGetPTXSize", (void **)&nv.GetPTXSize, 0},
        {"nvrtcGetPTX", (void **)&nv.GetPTX, 0},
        {"nvrtcGetCUBINSize", (void **)&nv.GetCUBINSize, 0},
        {"nvrtcGetCUBIN", (void **)&nv.GetCUBIN, 0},
        {"nvrtcGetProgramLogSize", (void **)&nv.GetProgramLogSize, 0},
        {"nvrtcGetProgramLog", (void **)&nv.GetProgramLog, 0},
        {"nvrtcGetNumSupportedArchs", (void **)&nv.GetNumSupportedArchs, 1},
        {"nvrtcGetSupportedArchs", (void **)&nv.GetSupportedArchs, 1},
        {"nvrtcGetLTOIRSize", (void **)&nv.GetLTOIRSize, 1},
        {"nvrtcGetLTOIR", (void **)&nv.GetLTOIR, 1},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(h, syms[i].sym);
        if (!p && !syms[i].optional) {
            snprintf(load_error, sizeof load_error, "NVRTC (%.900s) has no %s; it is too old",
                     lib_path[0] ? lib_path : "libnvrtc", syms[i].sym);
            load_state = -1;
            return -1;
        }
        memcpy(syms[i].slot, &p, sizeof p);
    }
    load_state = 1;
    return 1;
}

/* NVRTC opened once, from whichever thread asks first (the preload thread
 * or a compilation); pure C, no Python */
static int
load(void)
{
    pthread_mutex_lock(&load_mu);
    int r = load_locked();
    pthread_mutex_unlock(&load_mu);
    return r;
}

/* ---- preloading: when a kernel is first defined (rt_nvrtc_warm_up: no
 * device known, NVRTC's default arch) or a device first used (its arch),
 * whichever comes first, a background thread opens
 * NVRTC and compiles a tiny kernel, so that the library's loading and its
 * one-time set-up (together 15-40 ms) are done before the first kernel
 * needs compiling.  Compilations wait for it; so does the exit (a thread
 * still inside NVRTC when the library's destructors run would crash). */

static pthread_mutex_t warm_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t warm_cv = PTHREAD_COND_INITIALIZER;
static int warm_state;                  /* 0 not started, 1 running, 2 finished */
static char warm_arch[64];

static void *
warm_main(void *unused)
{
    (void)unused;
    if (load() > 0) {
        const char *opts[4];
        int n = 0;
        if (warm_arch[0]) {
            opts[n++] = warm_arch;      /* else NVRTC's default: no device known yet */
        }
        opts[n++] = "--std=c++17";
        opts[n++] = "-minimal";
        if (rt_nvrtc_has_fast_compile()) {
            opts[n++] = "--Ofast-compile=min";
        }
        nvrtcProgram p = NULL;
        if (nv.CreateProgram(&p, "extern \"C\" __global__ void cj_warm(int *x) { x[0] = 1; }",
                             "cj_warm.cu", 0, NULL, NULL) == NVRTC_SUCCESS) {
            nv.CompileProgram(p, n, opts);
            nv.DestroyProgram(&p);
        }
    }
    pthread_mutex_lock(&warm_mu);
    warm_state = 2;
    pthread_cond_broadcast(&warm_cv);
    pthread_mutex_unlock(&warm_mu);
    return NULL;
}

/* blocks until the preload thread, if any, has finished */
static void
wait_warm(void)
{
    pthread_mutex_lock(&warm_mu);
    while (warm_state == 1) {
        pthread_cond_wait(&warm_cv, &warm_mu);
    }
    pthread_mutex_unlock(&warm_mu);
}

/* a fork waits for the preload thread: a child must not inherit NVRTC's
 * own locks held by a thread it does not have */
static void
before_fork(void)
{
    wait_warm();
}

/* a forked child has no preload thread: nothing to wait for */
static void
after_fork_child(void)
{
    pthread_mutex_init(&search_mu, NULL);
    pthread_mutex_init(&load_mu, NULL);
    pthread_mutex_init(&warm_mu, NULL);
    pthread_cond_init(&warm_cv, NULL);
    if (warm_state == 1) {
        warm_state = 2;
    }
}

void
rt_nvrtc_preload(int cc_major, int cc_minor)
{
    if (warm_state || rt_env_off(getenv("CUJIT_PRELOAD_NVRTC")) || load_state) {
        return;
    }
    if (cc_major > 0) {
        snprintf(warm_arch, sizeof warm_arch, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
    }
    pthread_attr_t attr;
    pthread_t t;
    if (pthread_attr_init(&attr) != 0) {
        return;
    }
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    static int hooks;
    if (!hooks) {
        hooks = 1;
        pthread_atfork(before_fork, NULL, after_fork_child);
        Py_AtExit(wait_warm);
    }
    /* the file search may read sys.path (the pip wheels): here, under the
     * GIL, not in the thread */
    search();
    warm_state = 1;
    if (pthread_create(&t, &attr, warm_main, NULL) != 0) {
        warm_state = 0;
    }
    pthread_attr_destroy(&attr);
}

int
rt_nvrtc_preload_wanted(void)
{
    const char *v = getenv("CUJIT_PRELOAD_NVRTC");   /* "device": at the first device use */
    return !warm_state && !load_state && !rt_env_off(v) && !(v && strcmp(v, "device") == 0);
}

static int
ensure_loaded(void)
{
    if (load() < 0) {
        PyErr_SetString(rt_CudaError ? rt_CudaError : PyExc_RuntimeError, load_error);
        return -1;
    }
    return 0;
}

int
rt_nvrtc_version(void)
{
    int major = 0, minor = 0;
    if (ensure_loaded() < 0) {
        return -1;
    }
    nv.Version(&major, &minor);
    return major * 1000 + minor * 10;
}

const char *
rt_nvrtc_identity(void)
{
    struct stat st;
    if (identity[0]) {
        return identity;
    }
    search();
    if (lib_path[0] && stat(lib_path, &st) == 0) {
        snprintf(identity, sizeof identity, "%s:%lld:%lld", lib_path, (long long)st.st_size,
                 (long long)st.st_mtime);
    } else if (load() > 0) {
        int major = 0, minor = 0;
        nv.Version(&major, &minor);
        snprintf(identity, sizeof identity, "nvrtc-%d.%d", major, minor);
    } else {
        snprintf(identity, sizeof identity, "nvrtc-missing");
    }
    return identity;
}

int
rt_nvrtc_supported_archs(const int **out)
{
    if (narchs < 0) {
        if (ensure_loaded() < 0) {
            return -1;
        }
        int n = 0;
        if (!nv.GetNumSupportedArchs || nv.GetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0
            || !(archs = calloc((size_t)n, sizeof *archs))
            || nv.GetSupportedArchs(archs) != NVRTC_SUCCESS) {
            free(archs);
            archs = NULL;
            n = 0;
        }
        narchs = n;
    }
    *out = archs;
    return narchs;
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *
program_log(nvrtcProgram p)
{
    size_t n = 0;
    char *log;
    if (nv.GetProgramLogSize(p, &n) != NVRTC_SUCCESS || n == 0) {
        n = 1;
    }
    log = calloc(n + 1, 1);
    if (log && n > 1 && nv.GetProgramLog(p, log) != NVRTC_SUCCESS) {
        log[0] = '\0';
    }
    return log;
}

static int
nvrtc_fail(nvrtcResult r, const char *what, const char *name)
{
    PyErr_Format(rt_CudaError ? rt_CudaError : PyExc_RuntimeError, "NVRTC %s failed for '%s': %s",
                 what, name, nv.GetErrorString(r));
    return -1;
}

/* copy the LTO-IR of a program compiled with -dlto into out */
static int
take_ltoir(nvrtcProgram p, const char *name, RtCompiled *out)
{
    size_t n = 0;
    nvrtcResult r = nv.GetLTOIRSize(p, &n);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcGetLTOIRSize", name);
    }
    out->ltoir = malloc(n ? n : 1);
    if (!out->ltoir) {
        PyErr_NoMemory();
        return -1;
    }
    r = nv.GetLTOIR(p, out->ltoir);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcGetLTOIR", name);
    }
    out->ltoir_len = n;
    return 0;
}

/* copy the PTX (and CUBIN, or only the LTO-IR) of a compiled program into out */
static int
take_output(nvrtcProgram p, const char *name, int output, RtCompiled *out)
{
    if (output == RT_OUT_LTOIR) {
        return take_ltoir(p, name, out);
    }
    size_t n = 0;
    nvrtcResult r = nv.GetPTXSize(p, &n);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcGetPTXSize", name);
    }
    out->ptx = malloc(n + 1);
    if (!out->ptx) {
        PyErr_NoMemory();
        return -1;
    }
    r = nv.GetPTX(p, out->ptx);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcGetPTX", name);
    }
    out->ptx[n] = '\0';
    out->ptx_len = strlen(out->ptx);
    if (output != RT_OUT_CUBIN) {
        return 0;
    }
    n = 0;
    r = nv.GetCUBINSize(p, &n);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcGetCUBINSize", name);
    }
    if (n == 0) {
        return 0;               /* a virtual architecture: PTX only */
    }
    out->cubin = malloc(n);
    if (!out->cubin) {
        PyErr_NoMemory();
        return -1;
    }
    r = nv.GetCUBIN(p, out->cubin);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcGetCUBIN", name);
    }
    out->cubin_len = n;
    return 0;
}

/* the options every compilation gets, before the caller's (in the cache keys
 * as rt_nvrtc_fixed_options): C++17, and no implicit CUDA headers, which
 * generated code needs none of.  -lineinfo is the caller's (lineinfo=True). */
#define FIXED_OPTS(X) X("--std=c++17") X("-minimal")
#define AS_ITEM(o) o,
#define AS_TEXT(o) " " o
static const char *const fixed_opts[] = {FIXED_OPTS(AS_ITEM)};

const char *
rt_nvrtc_fixed_options(void)
{
    return FIXED_OPTS(AS_TEXT);
}

int
rt_nvrtc_compile_ex(const char *src, const char *name, const char *arch, int output,
                    const char *const *opts, int nopts, RtCompiled *out, char **log)
{
    char archopt[64], progname[300];
    const char *all[72];
    int n = 0, ret = -1;
    nvrtcProgram p = NULL;
    nvrtcResult r;

    memset(out, 0, sizeof *out);
    if (log) {
        *log = NULL;
    }
    if (ensure_loaded() < 0) {
        return -1;
    }
    if (nopts < 0 || nopts > RT_MAXOPTS + 1) {
        PyErr_SetString(PyExc_ValueError, "too many NVRTC options");
        return -1;
    }
    if (output == RT_OUT_LTOIR && !nv.GetLTOIR) {
        PyErr_Format(rt_CudaError ? rt_CudaError : PyExc_RuntimeError,
                     "NVRTC (%s) cannot give LTO-IR (nvrtcGetLTOIR is NVRTC 12.0's): "
                     "ask for PTX or CUBIN, or use a newer CUDA toolkit", rt_nvrtc_identity());
        return -1;
    }
    /* "sm_90" compiles to CUBIN (and PTX) and to LTO-IR; "compute_90" to PTX only */
    const char *digits = strncmp(arch, "sm_", 3) == 0 ? arch + 3
                         : strncmp(arch, "compute_", 8) == 0 ? arch + 8 : arch;
    int virt = output == RT_OUT_PTX || (output == RT_OUT_CUBIN
                                        && strncmp(arch, "compute_", 8) == 0);
    output = output == RT_OUT_CUBIN && virt ? RT_OUT_PTX : output;
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s_%s", virt ? "compute" : "sm",
             digits);
    snprintf(progname, sizeof progname, "%s.cu", name);
    all[n++] = archopt;
    for (size_t i = 0; i < sizeof fixed_opts / sizeof fixed_opts[0]; i++) {
        all[n++] = fixed_opts[i];
    }
    if (output == RT_OUT_LTOIR) {
        all[n++] = "-dlto";
    }
    for (int i = 0; i < ninc; i++) {
        all[n++] = inc_opts[i];
    }
    for (int i = 0; i < nopts; i++) {
        all[n++] = opts[i];
    }
    const char *const *eo;
    int ne = rt_nvrtc_env_options(&eo);
    for (int i = 0; i < ne; i++) {
        all[n++] = eo[i];
    }

    double t0 = now_ms();
    r = nv.CreateProgram(&p, src, progname, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        return nvrtc_fail(r, "nvrtcCreateProgram", name);
    }
    Py_BEGIN_ALLOW_THREADS
    wait_warm();
    r = nv.CompileProgram(p, n, all);
    Py_END_ALLOW_THREADS
    if (r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION) {
        char *text = program_log(p);
        if (!text) {
            PyErr_NoMemory();
        } else if (log && r == NVRTC_ERROR_COMPILATION) {
            *log = text;
            text = NULL;
        } else {
            PyErr_Format(rt_CudaError ? rt_CudaError : PyExc_RuntimeError,
                         "NVRTC failed to compile '%s' for %s (%s):\n%s", name, archopt + 19,
                         nv.GetErrorString(r), text);
        }
        free(text);
        goto done;
    }
    if (r != NVRTC_SUCCESS) {
        nvrtc_fail(r, "nvrtcCompileProgram", name);
        goto done;
    }
    if (take_output(p, name, output, out) < 0) {
        rt_compiled_free(out);
        goto done;
    }
    out->ms = now_ms() - t0;
    ret = 0;
done:
    nv.DestroyProgram(&p);
    return ret;
}

int
rt_nvrtc_compile(const char *src, const char *name, const char *arch, int want_cubin,
                 RtCompiled *out, char **log)
{
    return rt_nvrtc_compile_ex(src, name, arch, want_cubin ? RT_OUT_CUBIN : RT_OUT_PTX, NULL, 0,
                               out, log);
}

void
rt_compiled_free(RtCompiled *c)
{
    free(c->ptx);
    free(c->cubin);
    free(c->ltoir);
    c->ptx = c->cubin = c->ltoir = NULL;
    c->ptx_len = c->cubin_len = c->ltoir_len = 0;
}

/* ---- Python hooks (private: tests and the CLI) ---- */

/* _nvrtc_compile(src, name, arch="compute_75", cubin=False, options=(),
 *                return_log=False) -> (ptx: str, cubin: bytes | None, ms) or,
 * with return_log and a compile error, the NVRTC log (str).  cubin=2 gives
 * LTO-IR: (None, ltoir: bytes, ms). */
PyObject *
rt_py_nvrtc_compile(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"src", "name", "arch", "cubin", "options", "return_log", NULL};
    const char *src, *name, *arch = "compute_75";
    int cubin = 0, return_log = 0;
    PyObject *options = NULL, *seq = NULL, *res = NULL;
    const char *opts[48];
    char *log = NULL;
    RtCompiled c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|siOp:_nvrtc_compile", kwlist, &src, &name,
                                     &arch, &cubin, &options, &return_log)) {
        return NULL;
    }
    Py_ssize_t nopts = 0;
    if (options) {
        seq = PySequence_Fast(options, "options must be a sequence of str");
        if (!seq) {
            return NULL;
        }
        nopts = PySequence_Fast_GET_SIZE(seq);
        if (nopts > 48) {
            PyErr_SetString(PyExc_ValueError, "too many options");
            goto error;
        }
        for (Py_ssize_t i = 0; i < nopts; i++) {
            opts[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
            if (!opts[i]) {
                goto error;
            }
        }
    }
    if (rt_nvrtc_compile_ex(src, name, arch, cubin, opts, (int)nopts, &c,
                            return_log ? &log : NULL) < 0) {
        if (log) {
            res = PyUnicode_DecodeUTF8(log, (Py_ssize_t)strlen(log), "replace");
            free(log);
        }
        goto error_or_log;
    }
    if (c.ltoir) {
        res = Py_BuildValue("(Oy#d)", Py_None, c.ltoir, (Py_ssize_t)c.ltoir_len, c.ms);
    } else if (c.cubin) {
        res = Py_BuildValue("(s#y#d)", c.ptx, (Py_ssize_t)c.ptx_len, c.cubin,
                            (Py_ssize_t)c.cubin_len, c.ms);
    } else {
        res = Py_BuildValue("(s#Od)", c.ptx, (Py_ssize_t)c.ptx_len, Py_None, c.ms);
    }
    rt_compiled_free(&c);
error_or_log:
    Py_XDECREF(seq);
    return res;
error:
    Py_XDECREF(seq);
    return NULL;
}

/* _nvrtc_supported_archs() -> (75, 80, ...): the compute capabilities
 * NVRTC compiles for, as major*10 + minor ((): it cannot say) */
PyObject *
rt_py_nvrtc_supported_archs(PyObject *self, PyObject *noargs)
{
    const int *a;
    int n = rt_nvrtc_supported_archs(&a);
    if (n < 0) {
        return NULL;
    }
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *v = PyLong_FromLong(a[i]);
        if (!v) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* _nvrtc_version() -> (major, minor) */
PyObject *
rt_py_nvrtc_version(PyObject *self, PyObject *noargs)
{
    int v = rt_nvrtc_version();
    if (v < 0) {
        return NULL;
    }
    return Py_BuildValue("(ii)", v / 1000, v % 1000 / 10);
}

/* _nvrtc_preload_state() -> "idle", "running" or "done": tests see when the
 * background preload started */
PyObject *
rt_py_nvrtc_preload_state(PyObject *self, PyObject *noargs)
{
    pthread_mutex_lock(&warm_mu);
    int st = warm_state;
    pthread_mutex_unlock(&warm_mu);
    return PyUnicode_FromString(st == 0 ? "idle" : st == 1 ? "running" : "done");
}
