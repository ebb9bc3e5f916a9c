/* launch_floor.c - the host-side floor for one kernel launch: N calls of
 * cuLaunchKernel through the CUDA driver API, 1 block of 32 threads, the
 * parameters a pointer and an int, kernel body `if (i < n) x[i] = x[i] + 1`.
 * bench/bench.py builds and runs it; it is only the benchmark's reference
 * (cujit itself never includes cuda.h).
 *
 *   gcc -O2 bench/launch_floor.c -I/usr/local/cuda/include \
 *       -L/usr/local/cuda/lib64 -lcuda -lnvrtc -o /tmp/launch_floor
 *   /tmp/launch_floor [N=20000] [REPS=5|serve] [MODULE.cubin|.ptx]
 *
 * With no module file the kernel is compiled here with NVRTC (a CUBIN for this
 * device, PTX if that fails).  Built with -DFLOOR_NO_NVRTC it needs no libnvrtc
 * and the module file is required.  Each repetition times N launches with
 * CLOCK_MONOTONIC and synchronizes once after the clock stops; it prints each
 * repetition and then `floor_us_median <microseconds per launch>`, and checks
 * that every launch ran (x[i] == start + launches).  With `serve` instead
 * of REPS it runs one repetition for each line read from stdin, printing its
 * `rep` line at once, until "quit" or the end of input (bench/bench.py pairs
 * each repetition with one of a library's, adjacent in time).
 *
 * FLOOR_CUDART=path/libcudart.so.N (for bench/launch_env.py) opens the CUDA
 * runtime and has it initialise (cudaFree(0)) on the same primary context
 * before the launches, as a process that imported CuPy has. */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef FLOOR_NO_NVRTC
#include <nvrtc.h>
#endif

#define NELEM 32
#define WARMUP 1000
#define MAXREPS 100

static const char kernel_src[] =
    "extern \"C\" __global__ void inc(int *x, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        x[i] = x[i] + 1;\n"
    "    }\n"
    "}\n";

#define CHECK(call)                                                         \
    do {                                                                    \
        CUresult r_ = (call);                                               \
        if (r_ != CUDA_SUCCESS) {                                           \
            const char *s_ = NULL;                                          \
            cuGetErrorString(r_, &s_);                                      \
            fprintf(stderr, "launch_floor: %s failed: %d (%s) at line %d\n", \
                    #call, (int)r_, s_ ? s_ : "?", __LINE__);               \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the whole file, NUL-terminated; NULL on failure */
static char *
read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;
    if (!f) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[len] = '\0';
    }
    fclose(f);
    return buf;
}

#ifndef FLOOR_NO_NVRTC
#define NVCHECK(call)                                                       \
    do {                                                                    \
        nvrtcResult r_ = (call);                                            \
        if (r_ != NVRTC_SUCCESS) {                                          \
            fprintf(stderr, "launch_floor: %s failed: %s\n", #call,         \
                    nvrtcGetErrorString(r_));                               \
            return NULL;                                                    \
        }                                                                   \
    } while (0)

/* CUBIN (or PTX when want_cubin is 0) of kernel_src for compute capability
 * major.minor; NULL on failure */
static char *
nvrtc_compile(int major, int minor, int want_cubin)
{
    nvrtcProgram prog;
    char arch[64];
    const char *opts[1];
    size_t size = 0;
    char *out;
    nvrtcResult r;
    snprintf(arch, sizeof arch, "--gpu-architecture=%s_%d%d",
             want_cubin ? "sm" : "compute", major, minor);
    opts[0] = arch;
    NVCHECK(nvrtcCreateProgram(&prog, kernel_src, "inc.cu", 0, NULL, NULL));
    r = nvrtcCompileProgram(prog, 1, opts);
    if (r != NVRTC_SUCCESS) {
        size_t logsize = 0;
        nvrtcGetProgramLogSize(prog, &logsize);
        char *log = malloc(logsize + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
            fprintf(stderr, "launch_floor: NVRTC (%s): %s\n%s\n", arch,
                    nvrtcGetErrorString(r), log);
        }
        free(log);
        nvrtcDestroyProgram(&prog);
        return NULL;
    }
    if (want_cubin) {
        NVCHECK(nvrtcGetCUBINSize(prog, &size));
    } else {
        NVCHECK(nvrtcGetPTXSize(prog, &size));
    }
    out = malloc(size + 1);
    if (!out) {
        nvrtcDestroyProgram(&prog);
        return NULL;
    }
    if ((want_cubin ? nvrtcGetCUBIN(prog, out) : nvrtcGetPTX(prog, out)) != NVRTC_SUCCESS) {
        free(out);
        nvrtcDestroyProgram(&prog);
        return NULL;
    }
    out[size] = '\0';
    nvrtcDestroyProgram(&prog);
    return out;
}
#endif

int
main(int argc, char **argv)
{
    long n_launch = argc > 1 ? atol(argv[1]) : 20000;
    int serve = argc > 2 && strcmp(argv[2], "serve") == 0;
    int reps = serve ? 1 : argc > 2 ? atoi(argv[2]) : 5;
    const char *module_path = argc > 3 ? argv[3] : NULL;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr x;
    int major = 0, minor = 0, n = NELEM, start[NELEM], host[NELEM];
    double per[MAXREPS];
    char name[256];
    char *image = NULL;
    void *params[2];
    long total = 0;

    if (n_launch < 1 || reps < 1 || reps > MAXREPS) {
        fprintf(stderr, "usage: %s [N>=1] [1<=REPS<=%d] [module.cubin|.ptx]\n", argv[0], MAXREPS);
        return 2;
    }
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    printf("device %s (sm_%d%d)\n", name, major, minor);
    if (getenv("FLOOR_CUDART") && *getenv("FLOOR_CUDART")) {
        void *rt = dlopen(getenv("FLOOR_CUDART"), RTLD_NOW | RTLD_GLOBAL);
        int (*cuda_free)(void *) = rt ? (int (*)(void *))dlsym(rt, "cudaFree") : NULL;
        if (!cuda_free || cuda_free(NULL) != 0) {
            fprintf(stderr, "launch_floor: cannot initialise %s\n", getenv("FLOOR_CUDART"));
            return 1;
        }
        printf("cudart %s initialised\n", getenv("FLOOR_CUDART"));
    }

    if (module_path) {
        image = read_file(module_path);
        if (!image) {
            fprintf(stderr, "launch_floor: cannot read %s\n", module_path);
            return 1;
        }
        printf("module %s\n", module_path);
    } else {
#ifndef FLOOR_NO_NVRTC
        image = nvrtc_compile(major, minor, 1);
        printf("module NVRTC %s\n", image ? "cubin" : "ptx");
        if (!image) {
            image = nvrtc_compile(major, minor, 0);
        }
#endif
        if (!image) {
            fprintf(stderr, "launch_floor: no kernel image (give a .cubin or .ptx path)\n");
            return 1;
        }
    }
    CHECK(cuModuleLoadData(&mod, image));
    CHECK(cuModuleGetFunction(&fn, mod, "inc"));

    for (int i = 0; i < NELEM; i++) {
        start[i] = (int)((i * 2654435761u) % 1000u);
    }
    CHECK(cuMemAlloc(&x, sizeof start));
    CHECK(cuMemcpyHtoD(x, start, sizeof start));
    params[0] = &x;
    params[1] = &n;

    for (int i = 0; i < WARMUP; i++) {
        CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    }
    total += WARMUP;
    CHECK(cuCtxSynchronize());

    char line[64];
    for (int r = 0; serve || r < reps; r++) {
        if (serve) {
            fflush(stdout);
            if (!fgets(line, sizeof line, stdin) || strncmp(line, "quit", 4) == 0) {
                reps = r;
                break;
            }
        }
        double t0 = now_s(), t1;
        for (long i = 0; i < n_launch; i++) {
            CUresult e = cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
            if (e != CUDA_SUCCESS) {
                CHECK(e);
            }
        }
        t1 = now_s();
        CHECK(cuCtxSynchronize());
        total += n_launch;
        per[r % MAXREPS] = (t1 - t0) / (double)n_launch * 1e6;
        printf("rep %d: %.3f us/launch\n", r, per[r % MAXREPS]);
    }

    CHECK(cuMemcpyDtoH(host, x, sizeof host));
    for (int i = 0; i < NELEM; i++) {
        if ((long)host[i] != (long)start[i] + total) {
            fprintf(stderr, "launch_floor: check failed: x[%d] = %d, expected %ld\n", i,
                    host[i], (long)start[i] + total);
            return 1;
        }
    }
    printf("check ok (%ld launches)\n", total);

    if (reps > MAXREPS) {
        reps = MAXREPS;         /* serve: the median of the last MAXREPS */
    }
    if (reps > 0) {
        qsort(per, (size_t)reps, sizeof per[0], cmp_double);
        printf("floor_us_median %.4f\n", reps % 2 ? per[reps / 2]
                                                   : 0.5 * (per[reps / 2 - 1] + per[reps / 2]));
    }
    CHECK(cuMemFree(x));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(image);
    return 0;
}
