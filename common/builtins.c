/* builtins.c - the names of the builtins (BI_* in cj.h), as messages show
 * them; shared by the frontend, typeinfer and codegen. */
#include "cj.h"

/* by BI_* */
const char *const cj_builtin_names[BI_COUNT] = {
    "jit.threadIdx", "jit.blockIdx", "jit.blockDim", "jit.gridDim", "jit.grid",
    "jit.gridsize", "jit.laneid", "jit.syncthreads", "jit.syncwarp", "jit.threadfence",
    "jit.syncthreads_count", "jit.syncthreads_and", "jit.syncthreads_or",
    "jit.threadfence_block", "jit.threadfence_system", "jit.shared_memory",
    "jit.local_memory", "cuda.const.array_like", "jit.atomic_add", "jit.atomic_sub", "jit.atomic_max",
    "jit.atomic_min", "jit.atomic_exch", "jit.atomic_and", "jit.atomic_or",
    "jit.atomic_xor", "jit.atomic_inc", "jit.atomic_dec", "jit.atomic_cas",
    "cuda.atomic.nanmax", "cuda.atomic.nanmin",
    "jit.shfl_sync", "jit.shfl_up_sync", "jit.shfl_down_sync", "jit.shfl_xor_sync",
    "jit.all_sync", "jit.any_sync", "jit.eq_sync", "jit.ballot_sync", "jit.activemask",
    "jit.lanemask_lt", "jit.match_any_sync", "jit.match_all_sync", "jit.popc", "jit.clz", "jit.ffs", "jit.brev", "jit.selp",
    "cuda.ld<hint>", "cuda.st<hint>", "cuda.nanosleep", "cuda.carray",
    "jit.cg.this_thread_block", "jit.cg.this_grid", "jit.cg.tiled_partition",
    "jit.cg.coalesced_threads", "jit.cg.sync", "jit.cg.wait", "jit.cg.wait_prior",
    "jit.cg.memcpy_async", "group method", "print",
    "range", "len", "int", "float", "bool", "complex", "dtype cast", "abs", "min", "max", "round", "conjugate", "isinstance", "sum", "math.sqrt",
    "math.exp", "math.expm1", "math.log", "math.log1p", "math.log2", "math.log10",
    "math.pow", "math.sin", "math.cos", "math.tan", "math.asin", "math.acos",
    "math.atan", "math.atan2", "math.sinh", "math.cosh", "math.tanh", "math.asinh",
    "math.acosh", "math.atanh", "math.hypot", "math.floor", "math.ceil", "math.trunc",
    "math.fabs", "math.fmod", "math.copysign", "math.erf", "math.erfc", "math.gamma",
    "math.lgamma", "math.isnan", "math.isinf", "math.isfinite", "math.cbrt", "math.fma",
    "intrinsic",
    "cuda vector type",
    "jit.block_reduce", "jit.warp_reduce", "jit.block_scan", "jit.warp_scan",
    "jit.thrust algorithm", "jit.thrust execution policy", "begin", "end",
    "device function", "NumPy or cmath function",
    "declared device function", "ffi.from_buffer",
};

/* by TH_*: jit.thrust's algorithms as Python spells them, and their forms */
const char *const cj_thrust_names[TH_NALGOS] = {
#define CJ_TH_NAME(n, s, f) s,
    CJ_THRUST_ALGOS(CJ_TH_NAME)
#undef CJ_TH_NAME
};

const char *const cj_thrust_forms[TH_NALGOS] = {
#define CJ_TH_FORM(n, s, f) f,
    CJ_THRUST_ALGOS(CJ_TH_FORM)
#undef CJ_TH_FORM
};

/* by GM_*: a group's methods as Python spells them */
const char *const cj_group_method_names[GM_COUNT] = {
#define CJ_GM_NAME(n, s) s,
    CJ_GROUP_METHODS(CJ_GM_NAME)
#undef CJ_GM_NAME
};

/* by NP_*: NumPy's and cmath's functions in kernels */
const NpFuncInfo cj_np_funcs[NP_COUNT] = {
#define CJ_NP_INFO(n, s, k, lo, hi) {s, k, lo, hi},
    CJ_NP_FUNCS(CJ_NP_INFO)
    CJ_NP_UFUNCS(CJ_NP_INFO)
#undef CJ_NP_INFO
};

/* by Node.axis of BI_CACHE_LD and BI_CACHE_ST */
const char *const cj_ld_hints[5] = {"ca", "cg", "cs", "lu", "cv"};
const char *const cj_st_hints[4] = {"cg", "cs", "wb", "wt"};
