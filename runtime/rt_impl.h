/* rt_impl.h - inside the runtime: the slice of the CUDA driver API that cujit
 * uses, declared by hand (cuda.h is never included: libcuda is dlopen'ed at
 * first use), per-device state, and helpers shared by the runtime's .c files.
 * rt.h is the interface the rest of cujit sees; this header is not. */

/* Layering: each runtime file uses (calls, or names in a slot table) only
 * files listed above it, as its third column says, so no two files use each
 * other and a file can be read knowing only those above it.
 *
 *   base.c          exception objects, the context added   -
 *                   to their messages, environment switches
 *   dtype.c         dtypes, numbers as element bytes        -
 *   shape.c         broadcast strides, collapsed dims       -
 *                   (shape.h)
 *   nvrtc.c         NVRTC, found and opened at first use    base
 *   cache.c         the disk cache of compiled kernels      nvrtc base
 *   nodriver.c      the driver stand-in of a prebuild       -
 *   prebuilt.c      the prebuilt store in the package       nodriver cache nvrtc base
 *   driver.c        libcuda, devices, contexts, memory      nodriver nvrtc base
 *   device.c        cujit.Device                            driver base
 *   ipc.c           CUDA IPC of pool memory                 driver base
 *   hostmem.c       managed and mapped host memory          driver
 *   stream.c        cujit.Stream and cujit.Event            driver
 *   copy.c          host <-> device copies, fills           driver
 *   array_core.c    DeviceArray structs and views, shape    copy stream driver dtype base
 *                   and order arguments, copies to the host
 *   args.c          array arguments of any library          copy driver dtype base
 *   argdesc.c       argument keys: numbers' dtypes, arrays' args dtype
 *                   dtype, rank, layout (argdesc.h)
 *   pack.c          kernel parameters packed (pack.h)       argdesc
 *   array_ops.c     operators forwarded to cujit._stdlib    array_core copy driver
 *   array_dlpack.c  DLPack export                           array_core driver dtype
 *   array_index.c   indexing, views, writes                 args array_ops array_core copy
 *                                                           driver dtype
 *   array_create.c  to_device, empty, ..., asnumpy          array_index args array_core copy
 *                                                           stream driver dtype
 *   array.c         the DeviceArray type: attributes,       array_index array_dlpack
 *                   repr, slot and method tables            array_ops array_core device
 *                                                           driver dtype
 *   link.c          foreign code linked into kernels:       driver base
 *                   blobs, markers, the driver's linker
 *   kernel.c        loading and launching kernels           args prebuilt cache stream driver
 *                                                           link nvrtc base
 *   rtmodule.c      what the runtime adds to the module     any of the above
 *
 * One name goes up the list: rt_DeviceArray_Type (rt.h), defined in array.c
 * with the tables that name array_ops.c, array_index.c and array_dlpack.c,
 * is named by array_core.c, args.c and array_create.c, which make arrays of
 * that type and recognise them. */
#ifndef RT_IMPL_H
#define RT_IMPL_H

#include <limits.h>

#include "rt.h"

/* ---- base.c (rt_CudaError and rt_OutOfMemoryError are declared in rt.h) ---- */
/* "0", "false", "no", "off" (any case): an environment switch turned off */
int rt_env_off(const char *v);

/* ---- driver API types (cuda.h, CUDA 11.2 .. 13) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef unsigned long long CUdeviceptr;

/* CUmemPoolProps: 88 bytes in every CUDA release that has it */
typedef struct {
    int allocType;                  /* CU_MEM_ALLOCATION_TYPE_PINNED */
    int handleTypes;                /* CU_MEM_HANDLE_TYPE_NONE */
    struct {
        int type;                   /* CU_MEM_LOCATION_TYPE_DEVICE */
        int id;
    } location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} RtMemPoolProps;

/* CUmemPoolPtrExportData: 64 opaque bytes */
typedef struct {
    unsigned char reserved[64];
} RtPoolPtrExport;

/* CUmemAccessDesc */
typedef struct {
    struct {
        int type;                   /* CU_MEM_LOCATION_TYPE_DEVICE */
        int id;
    } location;
    int flags;                      /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE */
} RtMemAccessDesc;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
};

enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
    CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,
};

enum {
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3,
    CU_MEM_ATTACH_GLOBAL = 1,
    CU_MEM_ATTACH_HOST = 2,
    CU_MEMHOSTALLOC_PORTABLE = 1,
    CU_MEMHOSTALLOC_DEVICEMAP = 2,
    CU_MEMHOSTALLOC_WRITECOMBINED = 4,
};

enum {
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
    CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
    CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
    CU_MEM_ALLOCATION_TYPE_PINNED = 1,
    CU_MEM_LOCATION_TYPE_DEVICE = 1,
    CU_STREAM_NON_BLOCKING = 1,
    CU_EVENT_BLOCKING_SYNC = 1,
    CU_EVENT_DISABLE_TIMING = 2,
};

#define RT_STREAM_LEGACY ((CUstream)0x1)
#define RT_STREAM_PER_THREAD ((CUstream)0x2)

/* Every driver entry point cujit calls: X(field, symbol, optional, params).
 * `symbol` is the versioned name cuda.h maps the plain one to; optional
 * entries may be missing in old drivers (the field is then NULL). */
#define RT_DRIVER_FUNCS(X) \
    X(cuInit, "cuInit", 0, (unsigned flags)) \
    X(cuDriverGetVersion, "cuDriverGetVersion", 0, (int *v)) \
    X(cuGetErrorName, "cuGetErrorName", 0, (CUresult r, const char **s)) \
    X(cuGetErrorString, "cuGetErrorString", 0, (CUresult r, const char **s)) \
    X(cuDeviceGet, "cuDeviceGet", 0, (CUdevice *d, int ordinal)) \
    X(cuDeviceGetCount, "cuDeviceGetCount", 0, (int *n)) \
    X(cuDeviceGetName, "cuDeviceGetName", 0, (char *name, int len, CUdevice d)) \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", 0, (int *v, int attr, CUdevice d)) \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", 0, (size_t *bytes, CUdevice d)) \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 0, (CUcontext *c, CUdevice d)) \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", 0, (CUcontext *c)) \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", 0, (CUcontext c)) \
    X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", 0, (CUcontext c)) \
    X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", 0, (CUcontext *c)) \
    X(cuCtxGetDevice, "cuCtxGetDevice", 0, (CUdevice *d)) \
    X(cuCtxSynchronize, "cuCtxSynchronize", 0, (void)) \
    X(cuMemGetInfo, "cuMemGetInfo_v2", 0, (size_t *free_, size_t *total)) \
    X(cuModuleLoadData, "cuModuleLoadData", 0, (CUmodule *m, const void *image)) \
    X(cuModuleUnload, "cuModuleUnload", 0, (CUmodule m)) \
    X(cuModuleGetFunction, "cuModuleGetFunction", 0, (CUfunction *f, CUmodule m, const char *name)) \
    X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", 0, \
      (CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name)) \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", 0, (CUfunction f, int attr, int value)) \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", 0, (int *v, int attr, CUfunction f)) \
    X(cuLinkCreate, "cuLinkCreate_v2", 1, \
      (unsigned nopts, int *opts, void **vals, void **state)) \
    X(cuLinkAddData, "cuLinkAddData_v2", 1, \
      (void *state, int type, void *data, size_t size, const char *name, unsigned nopts, \
       int *opts, void **vals)) \
    X(cuLinkComplete, "cuLinkComplete", 1, (void *state, void **image, size_t *size)) \
    X(cuLinkDestroy, "cuLinkDestroy", 1, (void *state)) \
    X(cuLaunchKernel, "cuLaunchKernel", 0, \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, \
       unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)) \
    X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", 1, \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, \
       unsigned bz, unsigned shmem, CUstream s, void **params)) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, \
      "cuOccupancyMaxActiveBlocksPerMultiprocessor", 1, \
      (int *n, CUfunction f, int block, size_t shmem)) \
    X(cuMemAlloc, "cuMemAlloc_v2", 0, (CUdeviceptr *p, size_t n)) \
    X(cuMemFree, "cuMemFree_v2", 0, (CUdeviceptr p)) \
    X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 1, \
      (CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)) \
    X(cuMemFreeAsync, "cuMemFreeAsync", 1, (CUdeviceptr p, CUstream s)) \
    X(cuMemPoolCreate, "cuMemPoolCreate", 1, (CUmemoryPool *pool, const RtMemPoolProps *props)) \
    X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 1, (CUmemoryPool pool, int attr, void *v)) \
    X(cuMemPoolGetAttribute, "cuMemPoolGetAttribute", 1, (CUmemoryPool pool, int attr, void *v)) \
    X(cuMemPoolTrimTo, "cuMemPoolTrimTo", 1, (CUmemoryPool pool, size_t keep)) \
    X(cuMemGetAddressRange, "cuMemGetAddressRange_v2", 1, \
      (CUdeviceptr *base, size_t *size, CUdeviceptr p)) \
    X(cuMemPoolExportToShareableHandle, "cuMemPoolExportToShareableHandle", 1, \
      (void *handle, CUmemoryPool pool, int type, unsigned long long flags)) \
    X(cuMemPoolImportFromShareableHandle, "cuMemPoolImportFromShareableHandle", 1, \
      (CUmemoryPool *pool, void *handle, int type, unsigned long long flags)) \
    X(cuMemPoolExportPointer, "cuMemPoolExportPointer", 1, \
      (RtPoolPtrExport *out, CUdeviceptr p)) \
    X(cuMemPoolImportPointer, "cuMemPoolImportPointer", 1, \
      (CUdeviceptr *p, CUmemoryPool pool, RtPoolPtrExport *data)) \
    X(cuMemPoolSetAccess, "cuMemPoolSetAccess", 1, \
      (CUmemoryPool pool, const RtMemAccessDesc *desc, size_t n)) \
    X(cuMemPoolGetAccess, "cuMemPoolGetAccess", 1, \
      (int *flags, CUmemoryPool pool, const void *location)) \
    X(cuMemAllocManaged, "cuMemAllocManaged", 1, (CUdeviceptr *p, size_t n, unsigned flags)) \
    X(cuMemHostAlloc, "cuMemHostAlloc", 1, (void **p, size_t n, unsigned flags)) \
    X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", 1, \
      (CUdeviceptr *d, void *p, unsigned flags)) \
    X(cuMemFreeHost, "cuMemFreeHost", 1, (void *p)) \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 0, \
      (CUdeviceptr dst, const void *src, size_t n, CUstream s)) \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 0, \
      (void *dst, CUdeviceptr src, size_t n, CUstream s)) \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", 0, \
      (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)) \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", 0, (void *dst, CUdeviceptr src, size_t n)) \
    X(cuMemsetD8, "cuMemsetD8_v2", 0, (CUdeviceptr p, unsigned char v, size_t n)) \
    X(cuMemsetD8Async, "cuMemsetD8Async", 0, (CUdeviceptr p, unsigned char v, size_t n, CUstream s)) \
    X(cuMemsetD16Async, "cuMemsetD16Async", 0, \
      (CUdeviceptr p, unsigned short v, size_t n, CUstream s)) \
    X(cuMemsetD32Async, "cuMemsetD32Async", 0, (CUdeviceptr p, unsigned v, size_t n, CUstream s)) \
    X(cuStreamCreate, "cuStreamCreate", 0, (CUstream *s, unsigned flags)) \
    X(cuStreamDestroy, "cuStreamDestroy_v2", 0, (CUstream s)) \
    X(cuStreamSynchronize, "cuStreamSynchronize", 0, (CUstream s)) \
    X(cuStreamQuery, "cuStreamQuery", 0, (CUstream s)) \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", 0, (CUstream s, CUevent e, unsigned flags)) \
    X(cuEventCreate, "cuEventCreate", 0, (CUevent *e, unsigned flags)) \
    X(cuEventDestroy, "cuEventDestroy_v2", 0, (CUevent e)) \
    X(cuEventRecord, "cuEventRecord", 0, (CUevent e, CUstream s)) \
    X(cuEventSynchronize, "cuEventSynchronize", 0, (CUevent e)) \
    X(cuEventQuery, "cuEventQuery", 0, (CUevent e)) \
    X(cuEventElapsedTime, "cuEventElapsedTime", 0, (float *ms, CUevent a, CUevent b))

typedef struct {
#define RT_DRV_FIELD(field, sym, opt, params) CUresult (*field) params;
    RT_DRIVER_FUNCS(RT_DRV_FIELD)
#undef RT_DRV_FIELD
} RtDriver;

/* the loaded entry points; valid once rt_driver_init() returned 0 */
extern RtDriver rt_cu;

/* ---- nodriver.c: the driver of a prebuild, in place of libcuda ---- */
/* CUJIT_PREBUILD_ARCH ("sm_90"): this process builds the prebuilt store for
 * that architecture, with no driver; NULL in every other process */
const char *rt_nodriver_arch(void);
/* the stand-in's entry points into *d; -1 with why in err when the
 * architecture is no "sm_XY" */
int rt_nodriver_fill(RtDriver *d, char *err, size_t n);

/* dlopen libcuda.so.1 and cuInit(0) once; -1 with CudaError set */
int rt_driver_init(void);
/* CudaError "<what>: CUDA_ERROR_X (description)"; returns -1 */
int rt_cuda_fail(CUresult r, const char *fmt, ...) CJ_PRINTF(2, 3);
/* the name of a CUresult ("CUDA_ERROR_ILLEGAL_ADDRESS") */
const char *rt_cuda_errname(CUresult r);

/* ---- devices ---- */
typedef struct {
    CUdevice dev;
    CUcontext primary;          /* retained on first use, never released */
    int cc_major, cc_minor;     /* 0 until read */
    int max_threads;            /* 0 until read */
    int sm_count;               /* 0 until read */
    int coop;                   /* cooperative launches: 0 until read, 1 yes, -1 no */
    int max_shared, max_shared_optin;
    int pool_state;             /* 0 unknown, 1 pool, -1 plain cuMemAlloc */
    CUmemoryPool pool;
    int pool_exportable;        /* the pool has a POSIX fd handle type (CUDA IPC) */
    int pool_fd;                /* its fd once exported (ipc.c); -1 before */
    CUevent sync_event;         /* for cross-stream waits (no timing) */
    char name[256];
} RtDevice;

int rt_device_count(void);                   /* -1 with exception */
PyObject *rt_device_object(int ordinal);     /* a new cujit.Device */
RtDevice *rt_device(int ordinal);            /* NULL with exception */
/* Makes the primary context of `ordinal` current (retaining it); -1 on error */
int rt_set_device(int ordinal);
/* the primary context of `ordinal` (retained); NULL with exception */
CUcontext rt_primary_context(int ordinal);
/* Pushes the primary context of `dev` when the calling thread's current
 * device is another; *pushed tells rt_ctx_leave what to undo.  Never raises
 * (used from tp_dealloc); returns -1 if no context could be had. */
int rt_ctx_enter_quiet(int dev, int *pushed);
void rt_ctx_leave(int pushed);
/* cuCtxSetCurrent(c), forgetting the context cached for this thread */
CUresult rt_ctx_restore(CUcontext c);

/* the default (not opted-in) shared memory limit per block of device dev */
int rt_default_shared_per_block(int dev);
/* the value of attribute attr of d, read once into *cache; -1 with CudaError */
int rt_device_attr(RtDevice *d, int attr, int *cache);

/* ---- device memory (see driver.c for the allocator) ---- */
int rt_mem_alloc(int dev, size_t n, CUstream s, CUdeviceptr *out);   /* -1 + exception */
void rt_mem_free(int dev, CUdeviceptr p, CUstream s);                /* never raises */
/* the device's pool (made if need be; NULL without pools) and whether it is
 * exportable (created with a POSIX fd handle type) */
CUmemoryPool rt_mem_pool(int dev, int *exportable);

/* Makes stream `waiter` wait for the work queued so far on `producer`
 * (through the device's event); nothing when they are the same stream. */
int rt_stream_wait(int dev, CUstream waiter, CUstream producer);
/* NULL and CU_STREAM_LEGACY are the same stream */
static inline CUstream
rt_norm_stream(CUstream s)
{
    return s ? s : RT_STREAM_LEGACY;
}

/* a Python int that fits a C int; -1 with exception (PyLong_AsInt is 3.13+) */
static inline int
rt_as_int(PyObject *o)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v < INT_MIN || v > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "integer out of range");
        return -1;
    }
    return (int)v;
}

/* ---- record dtypes (dtype.c) ---- */
/* the record dtype of NumPy dtype d, whose .names is `names` (a tuple); -1
 * with TypeError for a field kernels cannot hold */
int rt_record_from_dtype(PyObject *d, PyObject *names, DType *out);
/* the dtype object (new reference) and "|V<itemsize>" of a record dtype */
PyObject *rt_record_dtype_object(DType dt);
const char *rt_record_typestr(DType dt);

/* ---- dtypes (dtype.c) ---- */
/* dtype argument: numpy dtype / scalar type, Python type, str, torch dtype */
int rt_dtype_from_obj(PyObject *o, DType *out);
/* CAI typestr "<f4", "|b1" */
int rt_dtype_from_typestr(const char *s, DType *out);
/* DLPack (code, bits, lanes) */
int rt_dtype_from_dlpack(int code, int bits, int lanes, DType *out);
void rt_dtype_to_dlpack(DType dt, uint8_t *code, uint8_t *bits);
/* "<f4" / "|b1" */
const char *rt_dtype_typestr(DType dt);
/* numpy.dtype for dt (new reference); the name as str without numpy */
PyObject *rt_dtype_object(DType dt);
/* numpy module (borrowed, imported once); NULL with ImportError */
PyObject *rt_numpy(void);
/* Python number -> the bytes of one element of dt (NumPy casting rules for
 * in-range values; OverflowError for integers that do not fit) */
int rt_scalar_to_bytes(PyObject *v, DType dt, unsigned char out[16]);

/* ---- array arguments (args.c; rt_get_array and the rest are in rt.h) ---- */
/* The fields of a __cuda_array_interface__ dict d (of object o): dtype,
 * shape, strides, data pointer and readonly, without waiting for its
 * stream; -1 with an exception naming `what` */
int rt_cai_read(PyObject *o, PyObject *d, RtArray *out, const char *what);

/* ---- copies of device memory (copy.c) ---- */
/* the number of elements of shape */
int64_t rt_shape_size(int ndim, const int64_t *shape);
/* byte strides of C / Fortran order into out (extents of 0 count as 1) */
void rt_c_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *out);
void rt_f_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *out);
/* C / F contiguity from shape and byte strides */
void rt_contiguity(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize,
                   int *c, int *f);
/* the byte range [*lo, *hi) a strided view touches, from its first element */
void rt_span(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize,
             int64_t *lo, int64_t *hi);
/* both C- or both Fortran-contiguous: one plain copy moves a to b */
int rt_same_layout(int ndim, const int64_t *shape, const int64_t *a, const int64_t *b,
                   int64_t itemsize);
/* one contiguous copy; rt_dtoh waits for the stream (pinned destinations) */
int rt_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s);
int rt_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s);
/* copy between host memory and a strided device region (any strides; NULL
 * strides: C-contiguous) */
int rt_copy_to_host(void *dst, const int64_t *dst_strides, CUdeviceptr src,
                    const int64_t *src_strides, int ndim, const int64_t *shape,
                    int64_t itemsize, CUstream s);
int rt_copy_from_host(CUdeviceptr dst, const int64_t *dst_strides, const void *src,
                      const int64_t *src_strides, int ndim, const int64_t *shape,
                      int64_t itemsize, CUstream s);
/* n elements at p set to elem (itemsize bytes): a memset where it can */
int rt_fill_contig(CUdeviceptr p, int64_t n, int itemsize, const unsigned char *elem, CUstream s);

/* ---- arrays (array*.c) ---- */
typedef struct {
    PyObject_HEAD
    CUdeviceptr ptr;            /* first element of this view */
    int ndim;
    DType dtype;
    int device;
    int c_contig, f_contig;
    int64_t size;
    int64_t shape[RT_MAXDIM];
    int64_t strides[RT_MAXDIM]; /* bytes */
    PyObject *base;             /* the owning array of a view; NULL for owners */
    CUdeviceptr alloc;          /* owners: the allocation to free (0: none) */
    CUstream stream;            /* the stream it was allocated and is freed on */
    PyObject *stream_ref;       /* keeps that stream's Python object alive */
    PyObject *weakreflist;
    int numba_rules;            /* made through cujit.cuda (Numba's spelling): an
                                 * element read gives a NumPy scalar and __array__
                                 * copies, as Numba's DeviceNDArray; views inherit it */
} RtDeviceArray;

extern PyTypeObject rt_DeviceArray_Type;
/* A new owning array: C (order 'C') or Fortran ('F') strides, memory from
 * device `dev`'s pool on stream s; stream_ref (may be NULL) is kept alive. */
RtDeviceArray *rt_array_new(int ndim, const int64_t *shape, DType dt, char order, int dev,
                            CUstream s, PyObject *stream_ref);

/* array_core.c */
/* a new array struct with that layout and no memory (ptr 0, no base) */
RtDeviceArray *rt_array_struct(int ndim, const int64_t *shape, const int64_t *strides, DType dt,
                               int dev);
/* a view of src's memory from ptr (its base: src's owner) */
PyObject *rt_make_view(RtDeviceArray *src, CUdeviceptr ptr, int ndim, const int64_t *shape,
                       const int64_t *strides);
/* a method's stream argument; None or NULL: the array's own stream */
int rt_method_stream(RtDeviceArray *self, PyObject *o, CUstream *s);
/* makes a's device current (undone by rt_ctx_leave(*pushed)); -1 with an
 * exception that names `what` */
int rt_enter_device(RtDeviceArray *a, int *pushed, const char *what);
/* a tuple of Python ints */
PyObject *rt_shape_tuple(int ndim, const int64_t *v);
/* an int or a sequence of ints (of any sign / none negative) */
int rt_parse_shape_signed(PyObject *o, int64_t *shape, int *ndim);
int rt_parse_shape(PyObject *o, int64_t *shape, int *ndim);
/* 'C' / 'F' / 'K' (for 'K' and 'A') from an order argument (NULL: 'C') */
int rt_parse_order(const char *order, char *out);
/* ValueError naming `what` unless a has that shape and dtype */
int rt_check_same(RtDeviceArray *a, int ndim, const int64_t *shape, DType dt, const char *what);
/* a's data into ary, a writable buffer of its shape and dtype (None or NULL:
 * a new NumPy array), on stream s; the array written, or NULL */
PyObject *rt_to_host(RtDeviceArray *a, PyObject *ary, CUstream s);

/* array_index.c */
/* copy_to_device / to_device / copy: device data of a's shape and dtype,
 * host data cast and broadcast, or a number, into a */
int rt_assign(RtDeviceArray *a, PyObject *value, CUstream s);
/* the slots and methods array.c's type object names */
PyObject *rt_DeviceArray_copy_to_device(RtDeviceArray *self, PyObject *args, PyObject *kw);
PyObject *rt_DeviceArray_copy(RtDeviceArray *self, PyObject *args, PyObject *kw);
PyObject *rt_DeviceArray_view(RtDeviceArray *self, PyObject *args);
PyObject *rt_DeviceArray_view_as(RtDeviceArray *self, PyObject *dtype_o);
extern PySequenceMethods rt_DeviceArray_as_sequence;
extern PyMappingMethods rt_DeviceArray_as_mapping;

/* array_ops.c */
/* the operations cujit._stdlib registers through _set_array_ops (its
 * dict's keys), as AOP_ADD ... AOP_ASSIGN */
#define ARRAY_OPS(X) \
    X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(TRUEDIV, "truediv") \
    X(FLOORDIV, "floordiv") X(MOD, "mod") X(POW, "pow") X(DIVMOD, "divmod") \
    X(LSHIFT, "lshift") X(RSHIFT, "rshift") X(AND, "and") X(OR, "or") X(XOR, "xor") \
    X(IADD, "iadd") X(ISUB, "isub") X(IMUL, "imul") X(ITRUEDIV, "itruediv") \
    X(IFLOORDIV, "ifloordiv") X(IMOD, "imod") X(IPOW, "ipow") X(ILSHIFT, "ilshift") \
    X(IRSHIFT, "irshift") X(IAND, "iand") X(IOR, "ior") X(IXOR, "ixor") \
    X(NEG, "neg") X(POS, "pos") X(ABS, "abs") X(INVERT, "invert") \
    X(LT, "lt") X(LE, "le") X(EQ, "eq") X(NE, "ne") X(GT, "gt") X(GE, "ge") \
    X(M_SUM, "sum") X(M_PROD, "prod") X(M_MIN, "min") X(M_MAX, "max") X(M_MEAN, "mean") \
    X(M_ARGMIN, "argmin") X(M_ARGMAX, "argmax") X(M_ANY, "any") X(M_ALL, "all") \
    X(M_CUMSUM, "cumsum") X(M_ASTYPE, "astype") X(M_FILL, "fill") X(M_RESHAPE, "reshape") \
    X(M_RAVEL, "ravel") X(M_FLATTEN, "flatten") X(M_TRANSPOSE, "transpose") \
    X(M_SQUEEZE, "squeeze") X(M_REAL, "real") X(M_IMAG, "imag") \
    X(M_ARRAY_UFUNC, "array_ufunc") X(M_ARRAY_FUNCTION, "array_function") X(ASSIGN, "assign")

enum {
#define AOP_ENUM(e, name) AOP_##e,
    ARRAY_OPS(AOP_ENUM)
#undef AOP_ENUM
    AOP_COUNT
};

/* a[...] = value by the stdlib's kernels (ops["assign"]) on stream s */
int rt_stdlib_assign(RtDeviceArray *a, PyObject *value, CUstream s);
/* the method ops[op](self, *args, **kwargs) */
PyObject *rt_forward_method(int op, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames);
/* the slots and methods array.c's type object names */
PyObject *rt_DeviceArray_item(RtDeviceArray *self, PyObject *noargs);
PyObject *rt_DeviceArray_array(RtDeviceArray *self, PyObject *args, PyObject *kw);
PyObject *rt_DeviceArray_numba_rules(RtDeviceArray *self, PyObject *noargs);
PyObject *rt_DeviceArray_richcompare(PyObject *self, PyObject *other, int cmp);
extern PyNumberMethods rt_DeviceArray_as_number;

/* array_dlpack.c */
PyObject *rt_DeviceArray_dlpack(RtDeviceArray *self, PyObject *args, PyObject *kw);
PyObject *rt_DeviceArray_dlpack_device(RtDeviceArray *self, PyObject *noargs);

/* ---- streams (stream.c) ---- */
typedef struct {
    PyObject_HEAD
    CUstream handle;
    int device;
    int owned;
} RtStream;

extern PyTypeObject rt_Stream_Type;
extern PyTypeObject rt_Event_Type;
extern PyTypeObject rt_Device_Type;

/* ---- DLPack (dlpack.h, v1.0), written out here ---- */
enum { RT_kDLCPU = 1, RT_kDLCUDA = 2, RT_kDLCUDAHost = 3, RT_kDLCUDAManaged = 13 };

typedef struct {
    int32_t device_type;
    int32_t device_id;
} RtDLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} RtDLDataType;

typedef struct {
    void *data;
    RtDLDevice device;
    int32_t ndim;
    RtDLDataType dtype;
    int64_t *shape;
    int64_t *strides;           /* elements; NULL: C-contiguous */
    uint64_t byte_offset;
} RtDLTensor;

typedef struct RtDLManagedTensor {
    RtDLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct RtDLManagedTensor *self);
} RtDLManagedTensor;

typedef struct {
    uint32_t major;
    uint32_t minor;
} RtDLPackVersion;

typedef struct RtDLManagedTensorVersioned {
    RtDLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct RtDLManagedTensorVersioned *self);
    uint64_t flags;
    RtDLTensor dl_tensor;
} RtDLManagedTensorVersioned;

#define RT_DLPACK_FLAG_READ_ONLY 1ULL

/* ---- disk cache (cache.c) ---- */
typedef struct {
    uint64_t h[2];
} RtCacheKey;

/* the key of a kernel's binary: everything that changes it */
void rt_cache_key(RtCacheKey *k, const char *src, const char *name, const char *key_extra,
                  const char *const *opts, int nopts, const char *arch);
/* the cache directory; 0 when the cache is disabled (CUJIT_CACHE=0 or no home) */
int rt_cache_dir(char *buf, size_t n);
/* 1: filled out (malloc'd cubin / ptx), 0: no valid entry.  Never raises. */
int rt_cache_load(const char *dir, const RtCacheKey *k, RtCompiled *out);
/* 0: stored, -1: not (reason in *why when non-NULL).  Never raises. */
int rt_cache_store(const char *dir, const RtCacheKey *k, const RtCompiled *c, const char **why);
/* rt_cache_load without the owner checks (magic, key, sizes and checksum stay):
 * for the prebuilt store, as trusted as the package's code */
int rt_cache_load_any_owner(const char *dir, const RtCacheKey *k, RtCompiled *out);
/* rt_cache_store readable by every user (directories 0755, files 0644), with
 * no warning and no memory of failures: for the prebuilt store */
int rt_cache_store_shared(const char *dir, const RtCacheKey *k, const RtCompiled *c,
                          const char **why);
/* in-process counters for cache_info() */
extern long long rt_cache_hits, rt_cache_misses, rt_cache_rejected;

/* ---- the prebuilt store (prebuilt.c) ---- */
/* The stdlib's binaries built at install time, in the installed package.  A
 * source is looked up there only when it names a file of the package (a
 * stdlib kernel): under its portable key, rt_cache_key of the source with
 * the package's directory written "<cujit>" (so that the store built before
 * the package moved to site-packages has the same keys).  1: *out filled,
 * 0: not there (or CUJIT_NO_PREBUILT, or no store).  Never raises. */
int rt_prebuilt_load(const char *src, const char *name, const char *key_extra,
                     const char *const *opts, int nopts, const char *arch, RtCompiled *out);
/* In a prebuild (CUJIT_PREBUILD_ARCH), c is written to the store under the
 * portable key; elsewhere nothing.  Never raises: a failure is printed. */
void rt_prebuilt_store(const char *src, const char *name, const char *key_extra,
                       const char *const *opts, int nopts, const char *arch,
                       const RtCompiled *c);
extern long long rt_prebuilt_hits;

/* ---- foreign code linked into kernels (link.c) ---- */
#define RT_MAXLINK 64               /* files one kernel links at most */
/* Links c (NVRTC's relocatable cubin, or its PTX) with the code src names,
 * through the driver's JIT linker of the current context: c then holds the
 * linked cubin and no PTX.  -1 with CudaError naming kname and the files
 * (the linker's log: an undefined function, a wrong kind of file). */
int rt_link_image(const char *src, const char *kname, RtCompiled *c);
PyObject *rt_py_link_blob(PyObject *self, PyObject *args);

/* NVRTC identity for cache keys without loading the library ("path:size:mtime") */
const char *rt_nvrtc_identity(void);
int rt_nvrtc_env_options(const char *const **out);
/* the options every NVRTC compilation gets (besides the arch and the toolkit's
 * -I), as one string for the cache keys */
const char *rt_nvrtc_fixed_options(void);
int rt_nvrtc_has_fast_compile(void);
/* Starts opening NVRTC and compiling a tiny kernel for compute capability
 * major.minor (0.0: NVRTC's default arch) in a background thread, once
 * (CUJIT_PRELOAD_NVRTC=0: never) */
void rt_nvrtc_preload(int cc_major, int cc_minor);
/* should a kernel's definition start the preload now (none started, NVRTC
 * not open, CUJIT_PRELOAD_NVRTC neither 0 nor "device")? */
int rt_nvrtc_preload_wanted(void);
int rt_fast_compile_wanted(void);
/* the architectures NVRTC can compile for (cc*10 values); -1 with exception */
int rt_nvrtc_supported_archs(const int **archs);

/* Python-level functions, registered by rt_add_types (rtmodule.c) */
PyObject *rt_py_synchronize(PyObject *self, PyObject *noargs);
PyObject *rt_py_get_device(PyObject *self, PyObject *noargs);
PyObject *rt_py_device_count(PyObject *self, PyObject *noargs);
PyObject *rt_py_current_context(PyObject *self, PyObject *noargs);
PyObject *rt_py_set_context(PyObject *self, PyObject *handle);
PyObject *rt_py_release_memory(PyObject *self, PyObject *noargs);
PyObject *rt_py_memory_info(PyObject *self, PyObject *noargs);
PyObject *rt_py_cache_info(PyObject *self, PyObject *noargs);
PyObject *rt_py_clear_cache(PyObject *self, PyObject *noargs);
PyObject *rt_py_cache_key(PyObject *self, PyObject *args);
PyObject *rt_py_set_prebuilt(PyObject *self, PyObject *args);
PyObject *rt_py_cache_store(PyObject *self, PyObject *args);
PyObject *rt_py_cache_load(PyObject *self, PyObject *args);
PyObject *rt_py_nvrtc_compile(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_nvrtc_version(PyObject *self, PyObject *noargs);
PyObject *rt_py_nvrtc_supported_archs(PyObject *self, PyObject *noargs);
PyObject *rt_py_nvrtc_preload_state(PyObject *self, PyObject *noargs);
PyObject *rt_py_launch_raw(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_loaded_kernels(PyObject *self, PyObject *noargs);
PyObject *rt_py_to_device(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_as_device_array(PyObject *self, PyObject *obj);
PyObject *rt_py_empty(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_zeros(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_ones(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_full(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_empty_like(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_zeros_like(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_ones_like(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_full_like(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_asnumpy(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rt_py_set_array_ops(PyObject *self, PyObject *ops);
/* ipc.c: CUDA IPC of pool memory; hostmem.c: managed and mapped memory */
PyObject *rt_py_ipc_export(PyObject *self, PyObject *args);
PyObject *rt_py_ipc_pool_fd(PyObject *self, PyObject *args);
PyObject *rt_py_ipc_import(PyObject *self, PyObject *args);
PyObject *rt_py_ipc_close(PyObject *self, PyObject *args);
PyObject *rt_py_host_alloc(PyObject *self, PyObject *args);
PyObject *rt_py_host_free(PyObject *self, PyObject *args);

#endif
