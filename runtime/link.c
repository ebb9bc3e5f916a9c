/* link.c - foreign device code linked into kernels: PTX, cubin, fatbin,
 * object and archive files that cuda.jit(link=) and cuda.declare_device(
 * link=) name (cujit/_extern.py).  Three parts:
 *
 * - the blobs: Python registers each file's bytes (_link_blob) and gets
 *   back a marker line that names them by kind and content hash,
 *       //@cujit-link <kind> <32 hex digits> <name>
 *   which codegen pastes into the kernel's CUDA C++ like a linked source
 *   (a comment to NVRTC).  The hash in the source keys the binary, so a
 *   changed file is a new key; the bytes stay in this process's table.
 * - rt_link_marked: does a source name blobs (it is then compiled with
 *   -rdc=true, as relocatable device code);
 * - rt_link_image: the driver's JIT linker (cuLinkCreate, cuLinkAddData,
 *   cuLinkComplete, cuLinkDestroy) joins NVRTC's relocatable cubin (or PTX)
 *   with the blobs into one cubin, which is what kernel.c loads and caches.
 *
 * LTO-IR (.ltoir, cuda.LTOIR) is beyond the driver's linker: a kernel that
 * links some goes through the toolkit's nvJitLink instead (dlopen'ed at
 * its first use: beside NVRTC, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda,
 * then by name), with -lto, for the device's architecture; the kernel stays
 * NVRTC's relocatable cubin (its own code is not LTO-IR), so the foreign
 * LTO-IR is optimised and linked but not inlined into it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_impl.h"

#define MARK "//@cujit-link "
#define MARK_LEN (sizeof MARK - 1)

/* CUjitInputType and the CUjit_option values the linker is given (cuda.h) */
enum {
    CU_JIT_INPUT_CUBIN = 0,
    CU_JIT_INPUT_PTX = 1,
    CU_JIT_INPUT_FATBINARY = 2,
    CU_JIT_INPUT_OBJECT = 3,
    CU_JIT_INPUT_LIBRARY = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    RT_INPUT_LTOIR = 100,       /* no CUjitInputType: nvJitLink's */
};

static const struct {
    const char *kind;           /* cujit/_extern.py's LinkableCode.kind */
    int input;                  /* CUjitInputType */
    const char *what;           /* for messages */
} kinds[] = {
    {"ptx", CU_JIT_INPUT_PTX, "PTX"},
    {"cubin", CU_JIT_INPUT_CUBIN, "cubin"},
    {"fatbin", CU_JIT_INPUT_FATBINARY, "fatbin"},
    {"o", CU_JIT_INPUT_OBJECT, "object file"},
    {"a", CU_JIT_INPUT_LIBRARY, "archive"},
    {"ltoir", RT_INPUT_LTOIR, "LTO-IR"},      /* nvJitLink only */
};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

typedef struct {
    int kind;                   /* index into kinds[] */
    uint64_t h[2];              /* of the bytes */
    char *data;                 /* malloc'd; PTX ends with a NUL past len */
    size_t len;
} Blob;

static Blob **blobs;            /* never freed: a marker may name one at any time */
static size_t nblobs, capblobs;

static int
kind_index(const char *s, size_t n)
{
    for (int i = 0; i < NKINDS; i++) {
        if (strlen(kinds[i].kind) == n && memcmp(kinds[i].kind, s, n) == 0) {
            return i;
        }
    }
    return -1;
}

static Blob *
blob_find(int kind, const uint64_t h[2])
{
    for (size_t i = 0; i < nblobs; i++) {
        if (blobs[i]->kind == kind && blobs[i]->h[0] == h[0] && blobs[i]->h[1] == h[1]) {
            return blobs[i];
        }
    }
    return NULL;
}

static int
blob_add(int kind, const uint64_t h[2], const char *data, size_t len)
{
    if (blob_find(kind, h)) {
        return 0;
    }
    if (nblobs == capblobs) {
        size_t cap = capblobs ? capblobs * 2 : 8;
        Blob **grown = realloc(blobs, sizeof *grown * cap);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        blobs = grown;
        capblobs = cap;
    }
    Blob *b = calloc(1, sizeof *b);
    char *copy = malloc(len + 1);
    if (!b || !copy) {
        free(b);
        free(copy);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(copy, data, len);
    copy[len] = '\0';
    b->kind = kind;
    b->h[0] = h[0];
    b->h[1] = h[1];
    b->data = copy;
    b->len = len;
    blobs[nblobs++] = b;
    return 0;
}

/* the name as a marker holds it: one line, no more than 200 bytes */
static void
marker_name(const char *name, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 1 < n && j < 200; i++) {
        char ch = name[i];
        out[j++] = ch == '\n' || ch == '\r' ? ' ' : ch;
    }
    out[j] = '\0';
}

/* _link_blob(kind, data, name) -> the marker line naming data */
PyObject *
rt_py_link_blob(PyObject *self, PyObject *args)
{
    const char *kind, *name;
    Py_buffer data;
    char shown[208];
    uint64_t h[2];
    (void)self;
    if (!PyArg_ParseTuple(args, "sy*s:_link_blob", &kind, &data, &name)) {
        return NULL;
    }
    int k = kind_index(kind, strlen(kind));
    if (k < 0 || data.len == 0) {
        PyErr_Format(PyExc_ValueError, "_link_blob: %s", k < 0 ? "an unknown kind of code"
                     : "the code to link is empty");
        PyBuffer_Release(&data);
        return NULL;
    }
    cj_hash128(data.buf, (size_t)data.len, 0x6c696e6bULL, h);
    int r = blob_add(k, h, data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    if (r < 0) {
        return NULL;
    }
    char line[320];
    marker_name(name, shown, sizeof shown);
    snprintf(line, sizeof line, MARK "%s %016llx%016llx %s\n", kinds[k].kind,
             (unsigned long long)h[0], (unsigned long long)h[1], shown);
    return PyUnicode_FromString(line);
}

int
rt_link_marked(const char *src)
{
    return strstr(src, "\n" MARK) != NULL;
}

/* the next marker at or after *p (at a line's start), its fields read;
 * 0 at the end.  -1 with an exception for a marker this process holds no
 * bytes of. */
static int
next_marker(const char **p, const Blob **b, char *name, size_t n)
{
    const char *m = strstr(*p, "\n" MARK);
    if (!m) {
        return 0;
    }
    m += 1 + MARK_LEN;
    const char *sp = strchr(m, ' ');
    const char *eol = strchr(m, '\n');
    eol = eol ? eol : m + strlen(m);
    *p = eol;
    unsigned long long h0, h1;
    int k = sp && sp < eol ? kind_index(m, (size_t)(sp - m)) : -1;
    if (k < 0 || sscanf(sp + 1, "%16llx%16llx", &h0, &h1) != 2) {
        PyErr_SetString(rt_CudaError, "a kernel's source names code to link in a line cujit "
                        "cannot read (\"" MARK "...\")");
        return -1;
    }
    const char *nm = sp + 1 + 32;
    nm += *nm == ' ';
    snprintf(name, n, "%.*s", (int)(eol - nm), nm);
    const uint64_t h[2] = {h0, h1};
    *b = blob_find(k, h);
    if (!*b) {
        PyErr_Format(rt_CudaError, "the %s '%s' a kernel links was not read in this process "
                     "(its declaration or cuda.jit(link=) reads it)", kinds[k].what, name);
        return -1;
    }
    return 1;
}

/* the linker's error log (or its CUresult) as the CudaError of kname */
static int
link_fail(CUresult r, const char *step, const char *kname, const char *names, const char *log)
{
    if (log && log[0]) {
        PyErr_Format(rt_CudaError, "kernel '%s': the CUDA driver's linker failed (%s, %s) "
                     "joining it with %s:\n%s\nA declared function must be defined with "
                     "extern \"C\" in the linked code, in the declared ABI (abi='numba': "
                     "int name(ret *out, args...))", kname, step, rt_cuda_errname(r), names,
                     log);
        return -1;
    }
    return rt_cuda_fail(r, "kernel '%s': linking it with %s (%s)", kname, names, step);
}

#define LINK_LOG 8192

/* what the linker is given: the kernel, then each blob the source names */
typedef struct {
    const char *data[RT_MAXLINK + 1];
    size_t len[RT_MAXLINK + 1];
    int input[RT_MAXLINK + 1];
    char name[RT_MAXLINK + 1][128];
    int n;
    char names[1024];           /* "'a' (PTX), 'b' (cubin)" for messages */
} LinkInputs;

static int
gather(const char *src, const char *kname, const RtCompiled *c, LinkInputs *in)
{
    in->n = 0;
    in->names[0] = '\0';
    in->data[0] = c->cubin ? c->cubin : c->ptx;
    in->len[0] = c->cubin ? c->cubin_len : c->ptx_len + 1;
    in->input[0] = c->cubin ? CU_JIT_INPUT_CUBIN : CU_JIT_INPUT_PTX;
    snprintf(in->name[0], sizeof in->name[0], "%s", kname);
    in->n = 1;
    const char *p = src;
    const Blob *b;
    char name[128];
    int r;
    while ((r = next_marker(&p, &b, name, sizeof name)) > 0) {
        if (in->n > RT_MAXLINK) {
            PyErr_Format(PyExc_ValueError, "kernel '%s' links more than %d files", kname,
                         RT_MAXLINK);
            return -1;
        }
        int i = in->n++;
        in->data[i] = b->data;
        in->len[i] = b->len + (kinds[b->kind].input == CU_JIT_INPUT_PTX);   /* its NUL */
        in->input[i] = kinds[b->kind].input;
        snprintf(in->name[i], sizeof in->name[i], "%s", name);
        size_t used = strlen(in->names);
        snprintf(in->names + used, sizeof in->names - used, "%s'%s' (%s)", i > 1 ? ", " : "",
                 name, kinds[b->kind].what);
    }
    return r;
}

/* cuLink* over the inputs into *image (malloc'd); the GIL is released.
 * CUDA_SUCCESS, or the failing call's CUresult with *step naming it and
 * the error log in log */
static CUresult
run_linker(const LinkInputs *in, char *log, const char **step, char **image, size_t *size)
{
    void *state = NULL, *out = NULL;
    size_t n = 0;
    int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)LINK_LOG};
    CUresult r;
    *image = NULL;
    Py_BEGIN_ALLOW_THREADS
    *step = "cuLinkCreate";
    r = rt_cu.cuLinkCreate(2, opts, vals, &state);
    for (int i = 0; r == CUDA_SUCCESS && i < in->n; i++) {
        *step = "cuLinkAddData";
        r = rt_cu.cuLinkAddData(state, in->input[i], (void *)in->data[i], in->len[i],
                                in->name[i], 0, NULL, NULL);
    }
    if (r == CUDA_SUCCESS) {
        *step = "cuLinkComplete";
        r = rt_cu.cuLinkComplete(state, &out, &n);
    }
    if (r == CUDA_SUCCESS && (*image = malloc(n ? n : 1))) {
        memcpy(*image, out, n);             /* the state owns out */
        *size = n;
    }
    if (state) {
        rt_cu.cuLinkDestroy(state);
    }
    Py_END_ALLOW_THREADS
    return r;
}

/* ---- nvJitLink, for LTO-IR ---- */

static struct {
    int state;                  /* 0 untried, 1 open, -1 not found */
    char tried[1024];           /* where it was looked for */
    int (*create)(void **h, unsigned n, const char **opts);
    int (*add)(void *h, int type, const void *data, size_t size, const char *name);
    int (*complete)(void *h);
    int (*cubin_size)(void *h, size_t *n);
    int (*cubin)(void *h, void *out);
    int (*log_size)(void *h, size_t *n);
    int (*log)(void *h, char *out);
    int (*destroy)(void **h);
} nvj;

/* dlopen of dir/libnvJitLink.so.{13,12,}; NULL when none is there */
static void *
nvj_try_dir(const char *dir)
{
    static const char *const names[] = {"libnvJitLink.so.13", "libnvJitLink.so.12",
                                        "libnvJitLink.so"};
    char path[4200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (dir) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        }
        void *h = dlopen(dir ? path : names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            return h;
        }
    }
    return NULL;
}

/* the directory NVRTC was loaded from (rt_nvrtc_identity: "path:size:mtime") */
static int
nvrtc_dir(char *out, size_t n)
{
    const char *id = rt_nvrtc_identity();
    const char *slash = id[0] == '/' ? strrchr(id, '/') : NULL;
    if (!slash || (size_t)(slash - id) >= n) {
        return 0;
    }
    snprintf(out, n, "%.*s", (int)(slash - id), id);
    return 1;
}

static void *
nvj_find(void)
{
    char dir[4096];
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    void *h = nvrtc_dir(dir, sizeof dir) ? nvj_try_dir(dir) : NULL;
    for (size_t i = 0; !h && i < sizeof homes / sizeof homes[0]; i++) {
        if (homes[i] && homes[i][0]) {
            snprintf(dir, sizeof dir, "%s/lib64", homes[i]);
            h = nvj_try_dir(dir);
        }
    }
    return h ? h : nvj_try_dir(NULL);
}

/* 0: nvj ready; -1 with CudaError saying what is missing */
static int
nvj_open(const char *kname)
{
    if (nvj.state == 0) {
        void *h = nvj_find();
        nvj.state = -1;
        if (h) {
            *(void **)&nvj.create = dlsym(h, "nvJitLinkCreate");
            *(void **)&nvj.add = dlsym(h, "nvJitLinkAddData");
            *(void **)&nvj.complete = dlsym(h, "nvJitLinkComplete");
            *(void **)&nvj.cubin_size = dlsym(h, "nvJitLinkGetLinkedCubinSize");
            *(void **)&nvj.cubin = dlsym(h, "nvJitLinkGetLinkedCubin");
            *(void **)&nvj.log_size = dlsym(h, "nvJitLinkGetErrorLogSize");
            *(void **)&nvj.log = dlsym(h, "nvJitLinkGetErrorLog");
            *(void **)&nvj.destroy = dlsym(h, "nvJitLinkDestroy");
            nvj.state = nvj.create && nvj.add && nvj.complete && nvj.cubin_size && nvj.cubin
                        && nvj.log_size && nvj.log && nvj.destroy ? 1 : -1;
        }
    }
    if (nvj.state < 0) {
        PyErr_Format(rt_CudaError, "kernel '%s' links LTO-IR, which needs nvJitLink "
                     "(libnvJitLink.so), and none was found beside NVRTC, in $CUDA_HOME/lib64, "
                     "$CUDA_PATH/lib64, /usr/local/cuda/lib64 or on the library path: install "
                     "the CUDA toolkit's nvJitLink (pip install nvidia-nvjitlink), or link PTX "
                     "or a cubin instead (nvcc -ptx / -cubin)", kname);
        return -1;
    }
    return 0;
}

/* nvJitLink's kinds (NVJITLINK_INPUT_*) of a CUjitInputType */
static int
nvj_kind(int input)
{
    switch (input) {
    case CU_JIT_INPUT_CUBIN: return 1;
    case CU_JIT_INPUT_PTX: return 2;
    case RT_INPUT_LTOIR: return 3;
    case CU_JIT_INPUT_FATBINARY: return 4;
    case CU_JIT_INPUT_OBJECT: return 5;
    case CU_JIT_INPUT_LIBRARY: return 6;
    default: return 0;
    }
}

/* the link through nvJitLink (-arch=<arch> -lto), the GIL released; 0, or
 * the failing step's result with *step naming it and its log in log */
static int
run_nvjitlink(const LinkInputs *in, const char *arch, char *log, const char **step,
              char **image, size_t *size)
{
    char archopt[48];
    const char *opts[] = {archopt, "-lto"};
    void *h = NULL;
    size_t n = 0;
    int r;
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    *image = NULL;
    Py_BEGIN_ALLOW_THREADS
    *step = "nvJitLinkCreate";
    r = nvj.create(&h, 2, opts);
    for (int i = 0; r == 0 && i < in->n; i++) {
        *step = "nvJitLinkAddData";
        r = nvj.add(h, nvj_kind(in->input[i]), in->data[i], in->len[i], in->name[i]);
    }
    if (r == 0) {
        *step = "nvJitLinkComplete";
        r = nvj.complete(h);
    }
    if (r == 0 && (r = nvj.cubin_size(h, &n)) == 0 && (*image = malloc(n ? n : 1))) {
        r = nvj.cubin(h, *image);
        *size = n;
    }
    size_t ln = 0;
    if (r != 0 && h && nvj.log_size(h, &ln) == 0 && ln > 0 && ln <= LINK_LOG) {
        nvj.log(h, log);
    }
    if (h) {
        nvj.destroy(&h);
    }
    Py_END_ALLOW_THREADS
    if (r != 0) {
        free(*image);
        *image = NULL;
    }
    return r;
}

/* does the link take LTO-IR (then nvJitLink links it)? */
static int
has_ltoir(const LinkInputs *in)
{
    for (int i = 0; i < in->n; i++) {
        if (in->input[i] == RT_INPUT_LTOIR) {
            return 1;
        }
    }
    return 0;
}

static int
link_nvjitlink(const LinkInputs *in, const char *kname, char *log, char **image,
               size_t *size)
{
    char arch[32];
    const char *step = "";
    if (nvj_open(kname) < 0 || rt_current_arch(arch, sizeof arch) < 0) {
        return -1;
    }
    int r = run_nvjitlink(in, arch, log, &step, image, size);
    if (r != 0) {
        PyErr_Format(rt_CudaError, "kernel '%s': nvJitLink failed (%s, error %d) linking it "
                     "with %s%s%s", kname, step, r, in->names, log[0] ? ":\n" : "", log);
        return -1;
    }
    return 0;
}

int
rt_link_image(const char *src, const char *kname, RtCompiled *c)
{
    LinkInputs *in = calloc(1, sizeof *in);
    char *log = calloc(1, LINK_LOG);
    const char *step = "";
    char *image = NULL;
    size_t size = 0;
    int ret = -1;
    if (!in || !log) {
        PyErr_NoMemory();
        goto done;
    }
    if (gather(src, kname, c, in) < 0) {
        goto done;
    }
    if (has_ltoir(in)) {
        if (link_nvjitlink(in, kname, log, &image, &size) < 0) {
            goto done;
        }
    } else if (!rt_cu.cuLinkCreate || !rt_cu.cuLinkAddData || !rt_cu.cuLinkComplete
               || !rt_cu.cuLinkDestroy) {
        PyErr_Format(rt_CudaError, "kernel '%s' links foreign code, and this CUDA driver has "
                     "no JIT linker (cuLinkCreate_v2): update the driver", kname);
        goto done;
    } else {
        CUresult r = run_linker(in, log, &step, &image, &size);
        if (r != CUDA_SUCCESS) {
            link_fail(r, step, kname, in->names, log);
            goto done;
        }
    }
    if (!image) {
        PyErr_NoMemory();
        goto done;
    }
    /* the linked image replaces NVRTC's output: its relocatable PTX would
     * not load on its own */
    free(c->cubin);
    free(c->ptx);
    c->cubin = image;
    c->cubin_len = size;
    c->ptx = NULL;
    c->ptx_len = 0;
    ret = 0;
done:
    free(in);
    free(log);
    return ret;
}
