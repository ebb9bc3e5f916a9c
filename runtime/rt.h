/* rt.h - the runtime: CUDA driver and NVRTC through dlopen, the disk cache,
 * device arrays, streams, events and kernel launch.  The runtime never looks
 * at the IR; it takes CUDA C++ text and launches what NVRTC made of it.
 * Functions that can fail return -1 / NULL with a Python exception set
 * (cujit.CudaError for CUDA failures). */
#ifndef RT_H
#define RT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "../common/cj.h"

#define RT_MAXDIM 32

/* cujit.CudaError (a RuntimeError subclass); created by rt_add_types */
extern PyObject *rt_CudaError;
/* cujit.OutOfMemoryError (CudaError and MemoryError): device memory ran out */
extern PyObject *rt_OutOfMemoryError;
/* When the exception being raised is a CudaError: its message again, after
 * "<what>: " (what the caller was doing), with the same type */
void rt_err_context(const char *fmt, ...) CJ_PRINTF(1, 2);
/* The same, unless the message names `name` already: what a form or a
 * kernel launch adds to a CudaError raised below it */
void rt_err_in(const char *name, const char *fmt, ...) CJ_PRINTF(2, 3);

/* Adds DeviceArray, Stream, Event, Device, CudaError, OutOfMemoryError and
 * the module-level functions (to_device, empty, zeros, ones, full, empty_like,
 * zeros_like, ones_like, full_like, asnumpy, synchronize, get_device,
 * device_count, release_memory, memory_info, cache_info, clear_cache, and
 * the private _cache_key, _cache_store, _cache_load, _nvrtc_compile,
 * _nvrtc_version, _launch_raw used by tests) to the module.  Needs no driver. */
int rt_add_types(PyObject *module);

/* ---- NVRTC (works without a GPU or driver) ---- */
typedef struct {
    char *ptx;          /* malloc'd, NUL-terminated */
    size_t ptx_len;
    char *cubin;        /* malloc'd, NULL unless asked for */
    size_t cubin_len;
    char *ltoir;        /* malloc'd, RT_OUT_LTOIR only (then ptx and cubin are NULL) */
    size_t ltoir_len;
    double ms;          /* time spent in NVRTC */
} RtCompiled;

/* what rt_nvrtc_compile_ex gives */
enum {
    RT_OUT_PTX,         /* PTX (for "compute_XY", or any arch) */
    RT_OUT_CUBIN,       /* PTX and CUBIN ("sm_XY"; a "compute_XY" arch gives PTX only) */
    RT_OUT_LTOIR,       /* NVRTC -dlto's LTO-IR, for nvJitLink (NVRTC 12.0+) */
};

/* Compiles `src` (whose entry is `name`) for `arch` ("sm_90").  Options always
 * include the arch, --std=c++17 and -minimal; `extra_opts` may add more
 * (-lineinfo is the caller's: lineinfo=True).  On a compile
 * error raises cujit.CompileError-compatible info through rt_nvrtc_log: the
 * caller receives -1 and, when log != NULL, *log = malloc'd NVRTC log (the
 * exception is then NOT set, so the caller can map the log to Python lines).
 * Returns 0 and fills out. */
int rt_nvrtc_compile(const char *src, const char *name, const char *arch,
                     int want_cubin, RtCompiled *out, char **log);
/* The same with extra NVRTC options and an RT_OUT_* output.  `arch` may
 * also be "compute_90" (PTX only).  *log is set only for a compile error;
 * other failures (NVRTC missing, a bad option) raise CudaError and leave
 * *log NULL. */
int rt_nvrtc_compile_ex(const char *src, const char *name, const char *arch, int output,
                        const char *const *opts, int nopts, RtCompiled *out, char **log);
void rt_compiled_free(RtCompiled *c);
/* Starts NVRTC's preload (opening it and a tiny compilation on a background
 * thread, which compilations and fork() wait for) now, before any device is
 * used: the kernel constructors call it.  Opens the driver library first
 * (no cuInit).  Once; CUJIT_PRELOAD_NVRTC=0: never. */
void rt_nvrtc_warm_up(void);
/* NVRTC version as major*1000 + minor*10, or -1 with exception */
int rt_nvrtc_version(void);

/* Does src name foreign code to link ("//@cujit-link" lines: runtime/link.c)?
 * It is then compiled as relocatable device code (-rdc=true) and linked. */
int rt_link_marked(const char *src);

/* ---- records in the disk cache: small byte strings keyed by 128 bits,
 * written atomically and checked like the binaries (the pipeline's
 * front-key index) ---- */
/* 1: *data (malloc'd) and *len filled; 0: none (or the cache is off).
 * Never raises. */
int rt_record_load(const uint64_t key[2], char **data, size_t *len);
/* 0: stored; -1: not (the cache is off or cannot be written).  Never raises. */
int rt_record_store(const uint64_t key[2], const char *data, size_t len);

/* ---- devices and contexts ---- */
/* Makes the current device's primary context current on this thread (lazily
 * initialising the driver).  Returns the device ordinal or -1. */
int rt_ensure_context(void);
/* ms spent initialising the driver and making contexts current since the
 * last call (CUJIT_LOG's "cuda init"); then 0 until a context is set up again */
double rt_take_context_ms(void);
/* "sm_90" for the current device; -1 on error */
int rt_current_arch(char *buf, size_t n);

/* ---- kernels ---- */
typedef struct {
    void *function;         /* CUfunction */
    void *module;           /* CUmodule */
    uint64_t err_addr;      /* device address of `cj_error` (0 if the module has none) */
    int device;
} RtKernel;

/* Compiles (or finds in the memory / disk cache) and loads `src` with entry
 * `name` for the current device.  `key_extra` is mixed into the disk cache key
 * (cujit version, options...).  Fills `out`; *hit: 0 compiled now, 1 from
 * the disk cache, 2 from the in-process cache (per device).  CUJIT_LOG=1
 * prints one line per compilation or disk load. */
int rt_load_kernel(const char *src, const char *name, const char *key_extra,
                   RtKernel *out, int *hit);

#define RT_MAXOPTS 48               /* extra NVRTC options at most */

/* what one load did, for the caller's CUJIT_LOG line */
typedef struct {
    int loaded;                     /* 1: compiled or read from disk now; 0: the
                                     * in-process cache had it (nothing else set) */
    char arch[32];                  /* the device's, "sm_90" */
    double nvrtc_ms, load_ms;       /* load: all but NVRTC, of which: */
    double key_ms, disk_ms, module_ms;  /* the binary's key, reading the cache file,
                                     * cuModuleLoadData */
    int fast;                       /* --Ofast-compile=min was used */
    double link_ms;                 /* the driver's linker (foreign code: link.c) */
    const char *disk;               /* "hit", "off", "miss (stored)", "miss" or why
                                     * it was not stored (static text) */
} RtLoadStats;

typedef struct {
    const char *key_extra;          /* mixed into the cache keys; may be NULL */
    const char *const *opts;        /* extra NVRTC options (also in the keys) */
    int nopts;
    char **log;                     /* NULL, or where an NVRTC error log goes */
    int fast_compile;               /* NVRTC --Ofast-compile=min where it has it (12.8+)
                                     * and CUJIT_FAST_COMPILE is not 0: a third less
                                     * compile time, for kernels it does not slow */
    RtLoadStats *stats;             /* NULL, or filled instead of printing the
                                     * CUJIT_LOG line (the caller prints it) */
} RtLoadOptions;

/* rt_load_kernel with options (opt may be NULL).  *hit: 0 compiled now, 1
 * from the disk cache, 2 from the in-process cache.  Returns 0; -1 with an
 * exception; or -2 when NVRTC rejected the source and opt->log was given:
 * then *opt->log is the malloc'd NVRTC log and no exception is set (the
 * caller maps `#line` positions back to Python lines).  Without opt->log a
 * compile error raises CudaError carrying the log. */
int rt_load_kernel_ex(const char *src, const char *name, const RtLoadOptions *opt,
                      RtKernel *out, int *hit);

/* A NumPy / buffer-protocol format string ('f', '<f4', 'Zd'...) as a dtype;
 * 0 on success, -1 with TypeError if unsupported. */
int rt_dtype_from_format(const char *fmt, Py_ssize_t itemsize, DType *out);
/* A dtype object (numpy.dtype, NumPy scalar type, name; a structured dtype
 * becomes a record dtype) as a DType; -1 with TypeError. */
int rt_dtype_of(PyObject *o, DType *out);
/* The same for the buffer of o: a structured array's format (T{...}) is
 * read from o.dtype as a record dtype. */
int rt_buffer_dtype(PyObject *o, const char *fmt, Py_ssize_t itemsize, DType *out);
/* datetime64 / timedelta64 (NumPy's 'M' and 'm' kinds) are read as their int64
 * counts: 1 when o has such a dtype (never an exception); and, where o's
 * buffer failed, o.view('int64') (new reference) or NULL with the buffer's
 * error again */
int rt_is_datetime(PyObject *o);
PyObject *rt_datetime_counts(PyObject *o);
/* ml_dtypes' bfloat16 arrays export no buffer either: rt_datetime_counts
 * gives o.view('uint16') for them, and the caller, seeing rt_is_bfloat16(o)
 * (1 for o's dtype bfloat16; never an exception), types it DT_BF16 again */
int rt_is_bfloat16(PyObject *o);

/* ---- device arrays ---- */
/* Is o a cujit.DeviceArray? */
int rt_is_device_array(PyObject *o);
/* the type itself, for exact checks on hot paths */
extern PyTypeObject rt_DeviceArray_Type;
/* A new C-contiguous cujit.DeviceArray on the current device, its memory
 * allocated (stream-ordered) on `stream`; uninitialised.  stream_obj is the
 * stream argument the handle came from (NULL, None or an int: none): the
 * array keeps it alive, since it frees its memory on that stream. */
PyObject *rt_empty(int ndim, const int64_t *shape, DType dt, void *stream, PyObject *stream_obj);
/* the same in C ('C') or Fortran ('F') order */
PyObject *rt_empty_order(int ndim, const int64_t *shape, DType dt, char order, void *stream,
                         PyObject *stream_obj);

/* A Python number as the bytes of one element of dt (NumPy casting for
 * in-range values; OverflowError for integers that do not fit). */
int rt_scalar_to_bytes(PyObject *v, DType dt, unsigned char out[16]);

/* Another entry of the module `k` came from (a reduction's second pass). */
int rt_kernel_sibling(const RtKernel *k, const char *name, RtKernel *out);

/* cuFuncGetAttribute(attr) of k's function (CU_FUNC_ATTRIBUTE_*: 0 max
 * threads per block, 1 static shared bytes, 2 constant bytes, 3 local bytes
 * per thread, 4 registers per thread ...) into *value; -1 with CudaError */
int rt_kernel_attribute(const RtKernel *k, int attr, int *value);
/* cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT):
 * percent of the unified L1 / shared memory kept for shared memory (-1 the
 * driver's default); -1 with CudaError naming kname */
int rt_kernel_set_carveout(const RtKernel *k, int percent, const char *kname);

/* ---- arguments ---- */
typedef struct {
    void *ptr;              /* device pointer */
    int ndim;
    int64_t shape[RT_MAXDIM];
    int64_t strides[RT_MAXDIM];   /* bytes */
    DType dtype;
    int readonly;
    int c_contig, f_contig;
    void *stream;           /* CAI 'stream' field to wait on, or NULL */
    PyObject *host;         /* NumPy array copied in; copied back by rt_array_release */
    void *owned;            /* device memory allocated for a host array */
    int owned_dev;          /* the device it is on */
} RtArray;

/* Is `o` an array argument (DeviceArray, __cuda_array_interface__, DLPack,
 * NumPy / buffer)?  Cheap; no exception. */
int rt_is_array(PyObject *o);
/* Reads an array argument; host arrays are copied to the device on `stream`.
 * `what` names the argument in messages ("argument 'x'").  When a CUDA Array
 * Interface producer names a stream, `stream` is made to wait for it (and
 * out->stream records it). */
int rt_get_array(PyObject *o, RtArray *out, void *stream, const char *what);
/* How CuPy arrays of o's type are read: "learning", "verifying", "on" (the
 * fields in place), "off" (the attributes) or "not a CuPy array". */
const char *rt_cupy_fields_state(PyObject *o);
/* After the launch: copies host arrays back (copy_back) and frees what
 * rt_get_array allocated. */
int rt_array_release(RtArray *a, void *stream, int copy_back);

/* A stream argument: None (legacy default 0), int handle, cujit.Stream, or an
 * object with __cuda_stream__, .ptr or .cuda_stream. */
int rt_get_stream(PyObject *o, void **out);

/* A grid or block given as an int or a tuple of 1 to 3 ints into out (the
 * rest 1); -1 with TypeError / ValueError naming `what` ("grid", "block") */
int rt_launch_dims(PyObject *o, unsigned out[3], const char *what);

/* cuLaunchKernel; raises CudaError naming `kname` on failure. */
int rt_launch(RtKernel *k, const unsigned grid[3], const unsigned block[3],
              unsigned shmem, void *stream, void **params, const char *kname);

/* cuLaunchCooperativeKernel, for a kernel that synchronises its grid
 * (jit.cg.this_grid().sync()): checks first that the device has cooperative
 * launches and that every block of the grid fits on it at once (the
 * occupancy per SM times the SMs), else a ValueError naming the kernel,
 * the grid and the most blocks that fit: never a launch that would hang. */
int rt_launch_cooperative(RtKernel *k, const unsigned grid[3], const unsigned block[3],
                          unsigned shmem, void *stream, void **params, const char *kname);
/* The most blocks of `threads` threads and `shmem` dynamic shared bytes of
 * k that can be resident on its device at once (a cooperative grid's
 * limit: Numba's max_cooperative_grid_blocks); -1 with an exception */
long long rt_kernel_coresident_blocks(RtKernel *k, unsigned threads, unsigned shmem,
                                      const char *kname);

/* Waits for `stream` and flushes stdout (what kernels printed); raises
 * CudaError naming kname if the stream failed. */
int rt_stream_synchronize(void *stream, const char *kname);

/* Device limits for launch checks */
int rt_max_threads_per_block(void);
int rt_max_shared_per_block(void);
int rt_multiprocessor_count(void);

/* The record a kernel's `__device__ CjErrorRecord cj_error` holds after a
 * failed assert or bounds check (first failing thread wins; layout shared with
 * the prelude in codegen/prelude.h). */
typedef struct {
    int flag;               /* 0: nothing recorded */
    int kind;               /* 1: assert, 2: index out of bounds */
    int line;               /* Python line */
    int msg_id;             /* index into the kernel's assert messages, -1 none */
    unsigned block[3], thread[3];
    long long index, extent;
    int dim, pad;
} CjErrorRecord;

/* Synchronises `stream`, reads the kernel's error record into *rec and clears
 * it on the device.  Returns 1 if a thread recorded a failure, 0 if not, -1 on
 * a CUDA error (exception set, naming kname; a faulting kernel is reported
 * here). */
int rt_check_error_record(RtKernel *k, void *stream, const char *kname, CjErrorRecord *rec);

#endif
