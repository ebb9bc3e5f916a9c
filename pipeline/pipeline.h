/* pipeline.h - the one driver of the compiler.  A request (a kernel, an
 * elementwise form or a reduction form, with the types it is compiled for)
 * runs frontend -> typeinfer -> codegen in pl_transpile, and NVRTC -> disk
 * cache -> loaded module in pl_load.  Every front end (rawkernels, device
 * functions through the kernels that call them, @vectorize, @reduce, and
 * the stdlib through them) calls these, and none calls a stage directly.
 * CUJIT_LOG's per-stage times and CUJIT_DUMP come from here.
 *
 * Layering: module/ (the Python face) -> pipeline/ -> frontend/, typeinfer/,
 * codegen/ (through common/cj.h) and runtime/ (NVRTC, cache, loading).  The
 * runtime never sees the IR; the stages never call up into module/.
 * Errors: -1 / NULL with a Python exception; a user's mistake is a
 * cujit.CompileError at the user's line. */
#ifndef PIPELINE_H
#define PIPELINE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../codegen/codegen.h"
#include "../common/cj.h"
#include "../runtime/argdesc.h"
#include "../runtime/rt.h"
#include "../typeinfer/typeinfer.h"

#define PL_MAXIN 32             /* inputs of an elementwise form */
#define PL_MAXOUT 8             /* outputs of an elementwise form */
#define PL_WEAK 3               /* ArgKey.kind of a Python number (NEP 50 weak;
                                 * dtype int64, float64 or complex128 says which) */

/* cujit.CompileError (a SyntaxError subclass); created by pl_init */
extern PyObject *pl_CompileError;
/* Creates CompileError and its subclasses that are also TypeError,
 * ValueError and IndexError (CjErrKind) in `module`. */
int pl_add_errors(PyObject *module);

/* The module glue's kernel type, as the frontend must recognise it among a
 * function's globals: the Python function of a kernel object (borrowed) and
 * whether it is a device function; NULL when obj is none. */
typedef PyObject *(*PlKernelFunction)(PyObject *obj, int *is_device);

/* Creates CompileError in `module` and passes the kernel recognizer down to
 * the frontend.  Returns 0; -1 with an exception. */
int pl_init(PyObject *module, PlKernelFunction kernel_function);

typedef enum {
    PL_KERNEL,          /* a rawkernel: func is the kernel */
    PL_ELEMENTWISE,     /* @vectorize: func is the scalar function */
    PL_REDUCTION,       /* @reduce: func is the combiner, map the map= */
    PL_GUFUNC,          /* @guvectorize: func writes its outputs (trailing parameters) */
    PL_FUSE_REDUCTION,  /* @fuse ending in a reduction: func, read in fused mode, is the
                         * map of several inputs (args, is_array, in_dtype as
                         * PL_ELEMENTWISE), fuse_red the reduction */
    PL_DEVICE,          /* cuda.compile_ptx(device=True): func, a device function typed
                         * for args, under an extern "C" entry named kname that
                         * returns ret (when has_ret) */
} PlKind;

typedef struct {
    PlKind kind;
    PyObject *func;
    const char *label;          /* "saxpy", "vectorize f", "reduce g": for CUJIT_DUMP */
    int boundscheck;            /* kernels: jit.rawkernel(boundscheck=True) */
    int launch_bounds[3];       /* kernels: __launch_bounds__(...); 0: not given */
    int idx32;                  /* 32-bit indexing fits every array */
    int numba;                  /* Numba's rules (cuda.jit's spelling): integer arithmetic
                                 * in at least 64 bits, signed indices counted from the
                                 * end at run time (Program.numba) */
    /* PL_KERNEL: the argument types; PL_ELEMENTWISE: the scalar function's
     * parameter types (scalars, or PL_WEAK Python numbers) */
    const ArgKey *args;
    int nargs;
    /* PL_ELEMENTWISE */
    int typing_only;            /* stop after typeinfer: out[], nout, weak_to[] */
    const unsigned char *is_array;  /* per input: an array operand ... */
    const DType *in_dtype;          /* ... of this dtype */
    int ndim;                   /* 0: flat (contiguous); else the collapsed rank */
    int vec;                    /* flat: elements per aligned access */
    int nout_given;             /* out= arrays, whose dtypes win */
    DType out_given[PL_MAXOUT];
    /* PL_REDUCTION */
    PyObject *map;              /* map= function, or NULL */
    PyObject *identity;         /* None: no identity */
    DType in, elem, out;        /* the array's dtype, dtype= (elem), out= dtype */
    int has_out;
    int outer, contiguous, red_vec, nkeep, nred;
    /* PL_GUFUNC: args are the function's parameter types (a view of the core
     * dimensions, or a number); per parameter how the kernel passes it
     * (GU_VALUE, GU_ELEM, GU_VIEW), its array's dtype and the view's rank */
    const unsigned char *gu_mode;
    const DType *gu_dtype;
    const int *gu_ncore;
    int gu_nin;                 /* inputs; the other parameters are outputs */
    int gu_nloop;               /* loop dimensions, first in every array */
    int gu_stage;               /* also the staged entry <kname>_st (none when the
                                 * function uses dynamic shared memory itself) */
    /* @fuse (PL_ELEMENTWISE, PL_FUSE_REDUCTION): func is read in fused mode */
    PyObject *fuse_names;       /* library names -> element meanings (FeCtx); NULL: not fused */
    const char *kname;          /* fuse(kernel_name=): the entry's name, or NULL */
    const int *inplace;         /* parameters written in place: the first outputs */
    int ninplace;
    int fuse_red;               /* PL_FUSE_REDUCTION: RedOp */
    /* PL_KERNEL: cuda.jit(link=) read now, a tuple of str (CUDA C++ texts and
     * marker lines of compiled code: runtime/link.c), linked with each declared
     * function the kernel calls; NULL: none.  Keyed by the front key. */
    PyObject *links;
    /* PL_DEVICE: the declared return type, which the entry converts to:
     * has_ret 1 a number (ret), 2 void, 0 none declared (the function's own) */
    int has_ret;
    ArgKey ret;
    int forceinline;            /* PL_DEVICE: the entry is __forceinline__ (LTO-IR), not
                                 * __noinline__ */
} PlRequest;

/* What a request compiles to: CUDA C++ and what launching it needs. */
typedef struct {
    char *src, *kname;          /* malloc'd */
    char *sig;                  /* kernels: "(float32, float32[:])"; PL_DEVICE: the
                                 * entry's return type ("float32", "void") */
    char **msgs;                /* kernels: assert messages */
    int nmsgs;
    int check_errors;           /* asserts or boundscheck: read the error record */
    int has_dynshared;
    int has_print;              /* flush stdout after a synchronising launch */
    int print_raw;              /* a print() printed its format (> 32 values): warned when
                                 * compiled, never recorded (each process warns again) */
    char *undef_warn;           /* malloc'd: a read of a variable not every path assigns
                                 * (typeinfer): warned when compiled, never recorded */
    int cooperative;            /* this_grid().sync(): cuLaunchCooperativeKernel */
    int coarse_vec;             /* elements per thread of <kname>_x<vec>, 0: none */
    uint64_t coarse_mask;       /* parameters it moves in packs (alignment checked) */
    int nout;                   /* forms: result dtypes */
    DType out[PL_MAXOUT];
    uint32_t weak_to[PL_MAXIN]; /* elementwise: per input, the integer dtypes a
                                 * Python int argument is converted to */
    int acc_size;               /* reductions: bytes of one accumulator */
    int fast_compile;           /* NVRTC --Ofast-compile=min (elementwise forms) */
    int fastmath;               /* NVRTC --use_fast_math (Numba's fastmath=True): set by
                                 * the kernel after the front key, in the binary's key */
    int lineinfo;               /* NVRTC -lineinfo (lineinfo=True): the same */
    int noopt;                  /* NVRTC -Xnvvm=-opt=0 --fmad=false (opt=False): the same */
    int maxrreg;                /* NVRTC --maxrregcount (max_registers=N; 0 none): the same */
    double ms_source, ms_parse; /* the frontend's reading and parsing of source */
    double ms_frontend;         /* the rest of it: Python AST -> IR */
    double ms_typeinfer, ms_codegen;
    int front;                  /* PL_FRONT_*: what the front key did */
    double ms_front;            /* computing the front key and reading the index */
    PyObject *keep;             /* device arrays the kernel reads as globals (their
                                 * addresses are in src): alive while it is; or NULL */
    char *callees;              /* malloc'd: the device functions it calls and the
                                 * signatures they were typed for, one per line,
                                 * "<pl_callee_key>\t<signature>" (their dispatchers'
                                 * .signatures); NULL: none */
} PlCompiled;

enum {
    PL_FRONT_OFF,       /* not keyed (CUJIT_FRONT_KEY=0, or a value the key cannot hold) */
    PL_FRONT_HIT,       /* read from the index: no frontend, typeinfer or codegen ran */
    PL_FRONT_MISS,      /* transpiled, then stored in the index */
};

/* Runs frontend -> typeinfer -> codegen for rq into *out (zeroed first).
 * First, unless CUJIT_FRONT_KEY=0, the request's front key (pl_impl.h) is
 * looked up in the disk cache's index: on a hit *out comes from there and
 * no stage runs; on a miss the stages run and the index is written.
 * Returns 0; -1 with an exception (CompileError for the user's mistakes). */
int pl_transpile(const PlRequest *rq, PlCompiled *out);
void pl_compiled_free(PlCompiled *c);

/* Compiles (NVRTC, or the disk or memory cache) and loads c for the current
 * device, whose context the caller made current (rt_ensure_context), into
 * *rk; with `sibling`, also its entry <kname><sibling> (a coarsened entry
 * "_x4", a reduction's "_final") into *rk2.  Returns where the binary came
 * from (0 NVRTC compiled it now, 1 the disk cache, 2 the in-process cache:
 * Dispatcher.stats counts them); -1 with an exception. */
int pl_load(const PlCompiled *c, const char *sibling, RtKernel *rk, RtKernel *rk2);

/* c's PTX (str) or CUBIN (bytes) for arch ("sm_90"), no GPU needed, with
 * c's own options (fastmath, lineinfo, noopt, its linked sources' include
 * directories); an NVRTC rejection is a CompileError at the Python line it
 * names. */
PyObject *pl_binary(const PlCompiled *c, const char *arch, int cubin);
/* the same for an RT_OUT_* output (LTO-IR: bytes) with the caller's NVRTC
 * options (-G, --use_fast_math, -lineinfo, -rdc=true) instead of c's flags;
 * the include directories are c's still */
PyObject *pl_binary_ex(const PlCompiled *c, const char *arch, int output,
                       const char *const *opts, int nopts);

/* what names a Python function in PlCompiled.callees: its code's file,
 * first line and qualified name ("f.py:12:outer.<locals>.g"); -1 with no
 * exception where it has no code object */
int pl_callee_key(PyObject *pyfunc, Buf *b);

/* CompileError(msg, (file, line, offset, text, end_line, end_offset)) */
void pl_raise_compile_error(const CjError *e);
/* NVRTC's log mapped through #line to the user's line, as a CompileError */
void pl_raise_nvrtc_error(const char *log, const char *src);

/* a Python or NumPy number as an IR constant (a reduction's identity);
 * -1 with TypeError when it is no number */
int pl_const_of(PyObject *o, Const *c);

double pl_now_ms(void);

/* CUJIT_LOG's line of a first call.  pl_load holds it back (pl_log_pending)
 * for the launch its caller makes next: after launching the caller calls
 * pl_log_launched(1), which adds the time since pl_load returned (argument
 * packing, cuLaunchKernel) and prints it; pl_log_launched(0) prints it
 * without a launch (compile(), a failed launch).  A line still held when
 * pl_load runs again is printed first. */
extern int pl_log_pending;
void pl_log_launched(int launched);
/* the time `import cujit` took (cujit/__init__.py measures it): printed on
 * the first CUJIT_LOG line of the process */
void pl_set_import_ms(double ms);

#endif
