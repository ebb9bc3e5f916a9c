/* names.c - what a name means in a kernel: locals (Python's rule), closure
 * cells, globals, builtins, jit / math names (__cujit_builtin__ tags), NumPy
 * dtypes, device functions and constants. */
#include <stdio.h>
#include <string.h>

#include "fe_impl.h"

/* the kernel type's recognizer, passed down by its owner (fe.h) */
static FeKernelFunction kernel_function;

void
fe_set_kernel_function(FeKernelFunction f)
{
    kernel_function = f;
}

/* axis: the component of threadIdx and friends; for other builtins the
 * spelling's variant (FE_V_*), which Numba's spellings (cujit/cuda/kernelnames.py) use */
typedef struct {
    const char *name;
    int bi, axis;
} BuiltinName;

static const BuiltinName jit_names[] = {
    {"threadIdx.x", BI_THREADIDX, 0}, {"threadIdx.y", BI_THREADIDX, 1}, {"threadIdx.z", BI_THREADIDX, 2},
    {"blockIdx.x", BI_BLOCKIDX, 0}, {"blockIdx.y", BI_BLOCKIDX, 1}, {"blockIdx.z", BI_BLOCKIDX, 2},
    {"blockDim.x", BI_BLOCKDIM, 0}, {"blockDim.y", BI_BLOCKDIM, 1}, {"blockDim.z", BI_BLOCKDIM, 2},
    {"gridDim.x", BI_GRIDDIM, 0}, {"gridDim.y", BI_GRIDDIM, 1}, {"gridDim.z", BI_GRIDDIM, 2},
    {"grid", BI_GRID, 0}, {"gridsize", BI_GRIDSIZE, 0}, {"laneid", BI_LANEID, 0},
    {"syncthreads", BI_SYNCTHREADS, 0}, {"syncwarp", BI_SYNCWARP, 0},
    {"threadfence", BI_THREADFENCE, 0}, {"threadfence_block", BI_THREADFENCE_BLOCK, 0},
    {"threadfence_system", BI_THREADFENCE_SYSTEM, 0},
    {"syncthreads_count", BI_SYNCTHREADS_COUNT, 0}, {"syncthreads_and", BI_SYNCTHREADS_AND, 0},
    {"syncthreads_or", BI_SYNCTHREADS_OR, 0},
    {"shared_memory", BI_SHARED_MEMORY, 0}, {"local_memory", BI_LOCAL_MEMORY, 0},
    {"atomic_add", BI_ATOMIC_ADD, 0}, {"atomic_sub", BI_ATOMIC_SUB, 0},
    {"atomic_max", BI_ATOMIC_MAX, 0}, {"atomic_min", BI_ATOMIC_MIN, 0},
    {"atomic_exch", BI_ATOMIC_EXCH, 0}, {"atomic_and", BI_ATOMIC_AND, 0},
    {"atomic_or", BI_ATOMIC_OR, 0}, {"atomic_xor", BI_ATOMIC_XOR, 0},
    {"atomic_inc", BI_ATOMIC_INC, 0}, {"atomic_dec", BI_ATOMIC_DEC, 0},
    {"atomic_cas", BI_ATOMIC_CAS, 0},
    {"shfl_sync", BI_SHFL_SYNC, 0}, {"shfl_up_sync", BI_SHFL_UP_SYNC, 0},
    {"shfl_down_sync", BI_SHFL_DOWN_SYNC, 0}, {"shfl_xor_sync", BI_SHFL_XOR_SYNC, 0},
    {"all_sync", BI_ALL_SYNC, 0}, {"any_sync", BI_ANY_SYNC, 0}, {"eq_sync", BI_EQ_SYNC, 0},
    {"ballot_sync", BI_BALLOT_SYNC, 0}, {"activemask", BI_ACTIVEMASK, 0},
    {"lanemask_lt", BI_LANEMASK_LT, 0},
    {"match_any_sync", BI_MATCH_ANY_SYNC, 0}, {"match_all_sync", BI_MATCH_ALL_SYNC, 0},
    {"atomic_nanmax", BI_ATOMIC_NANMAX, 0}, {"atomic_nanmin", BI_ATOMIC_NANMIN, 0},
    /* jit.cg (cupyx.jit.cg) and Numba's cuda.cg */
    {"cg.this_thread_block", BI_CG_THIS_BLOCK, 0}, {"cg.this_grid", BI_CG_THIS_GRID, 0},
    {"cg.tiled_partition", BI_CG_TILED_PARTITION, 0},
    {"cg.coalesced_threads", BI_CG_COALESCED, 0}, {"cg.sync", BI_CG_SYNC, 0},
    {"cg.wait", BI_CG_WAIT, 0}, {"cg.wait_prior", BI_CG_WAIT_PRIOR, 0},
    {"cg.memcpy_async", BI_CG_MEMCPY_ASYNC, 0},
    {"popc", BI_POPC, 0}, {"clz", BI_CLZ, 0}, {"ffs", BI_FFS, 0}, {"brev", BI_BREV, 0},
    {"selp", BI_SELP, 0}, {"cbrt", BI_CBRT, 0}, {"fma", BI_FMA, 0},
    /* Numba's cache-hint loads and stores: FE_V_HINT + the hint (cj_ld_hints ...) */
    {"numba.ldca", BI_CACHE_LD, FE_V_HINT}, {"numba.ldcg", BI_CACHE_LD, FE_V_HINT + 1},
    {"numba.ldcs", BI_CACHE_LD, FE_V_HINT + 2}, {"numba.ldlu", BI_CACHE_LD, FE_V_HINT + 3},
    {"numba.ldcv", BI_CACHE_LD, FE_V_HINT + 4},
    {"numba.stcg", BI_CACHE_ST, FE_V_HINT}, {"numba.stcs", BI_CACHE_ST, FE_V_HINT + 1},
    {"numba.stwb", BI_CACHE_ST, FE_V_HINT + 2}, {"numba.stwt", BI_CACHE_ST, FE_V_HINT + 3},
    {"numba.nanosleep", BI_NANOSLEEP, 0},
    /* Numba's cuda.carray / farray(ptr, shape, dtype): axis 0 C order, 1 F order */
    {"numba.carray", BI_CARRAY, FE_V_HINT}, {"numba.farray", BI_CARRAY, FE_V_HINT + 1},
    {"range", BI_RANGE, 0},
    {"block_reduce", BI_BLOCK_REDUCE, 0}, {"warp_reduce", BI_WARP_REDUCE, 0},
    {"block_scan", BI_BLOCK_SCAN, 0}, {"warp_scan", BI_WARP_SCAN, 0},
    /* Numba's spellings that differ in form, not in meaning (cujit/cuda/kernelnames.py) */
    {"numba.shared.array", BI_SHARED_MEMORY, FE_V_NUMBA_ALLOC},
    {"numba.local.array", BI_LOCAL_MEMORY, FE_V_NUMBA_ALLOC},
    {"numba.const.array_like", BI_CONST_ARRAY, 0},
    {"numba.compare_and_swap", BI_ATOMIC_CAS, FE_V_FIRST_ELEMENT},
    {"numba.laneid", BI_LANEID, FE_V_VALUE},
    {NULL, 0, 0},
};

static const BuiltinName py_builtins[] = {
    {"print", BI_PRINT, 0}, {"range", BI_RANGE, 0}, {"len", BI_LEN, 0},
    {"int", BI_INT, 0}, {"float", BI_FLOAT, 0}, {"bool", BI_BOOL, 0},
    {"complex", BI_COMPLEX, 0}, {"abs", BI_ABS, 0}, {"min", BI_MIN, 0},
    {"max", BI_MAX, 0}, {"round", BI_ROUND, 0}, {"isinstance", BI_ISINSTANCE, 0},
    {"sum", BI_SUM, 0},
    {NULL, 0, 0},
};

static const BuiltinName math_names[] = {
    {"sqrt", BI_SQRT, 0}, {"exp", BI_EXP, 0}, {"expm1", BI_EXPM1, 0}, {"log", BI_LOG, 0},
    {"log1p", BI_LOG1P, 0}, {"log2", BI_LOG2, 0}, {"log10", BI_LOG10, 0}, {"pow", BI_POW, 0},
    {"sin", BI_SIN, 0}, {"cos", BI_COS, 0}, {"tan", BI_TAN, 0}, {"asin", BI_ASIN, 0},
    {"acos", BI_ACOS, 0}, {"atan", BI_ATAN, 0}, {"atan2", BI_ATAN2, 0}, {"sinh", BI_SINH, 0},
    {"cosh", BI_COSH, 0}, {"tanh", BI_TANH, 0}, {"asinh", BI_ASINH, 0}, {"acosh", BI_ACOSH, 0},
    {"atanh", BI_ATANH, 0}, {"hypot", BI_HYPOT, 0}, {"floor", BI_FLOOR, 0}, {"ceil", BI_CEIL, 0},
    {"trunc", BI_TRUNC, 0}, {"fabs", BI_FABS, 0}, {"fmod", BI_FMOD, 0},
    {"copysign", BI_COPYSIGN, 0}, {"erf", BI_ERF, 0}, {"erfc", BI_ERFC, 0},
    {"gamma", BI_GAMMA, 0}, {"lgamma", BI_LGAMMA, 0}, {"isnan", BI_ISNAN, 0},
    {"isinf", BI_ISINF, 0}, {"isfinite", BI_ISFINITE, 0}, {"cbrt", BI_CBRT, 0},
    {"fma", BI_FMA, 0}, {NULL, 0, 0},
};

static const BuiltinName *
lookup_name(const BuiltinName *t, const char *name)
{
    for (; t->name; t++) {
        if (strcmp(t->name, name) == 0) {
            return t;
        }
    }
    return NULL;
}

/* the name of a module, NULL for anything else */
const char *
fe_module_name(PyObject *obj)
{
    if (!PyModule_Check(obj)) {
        return NULL;
    }
    return PyModule_GetName(obj);
}

/* A jit name: an object tagged __cujit_builtin__ (jit.syncthreads,
 * jit.threadIdx.x); a tag that names no builtin is a namespace (jit.threadIdx). */
/* jit.thrust's names: "thrust.sort" is BI_THRUST with TH_SORT in the axis,
 * "thrust.device" / "thrust.seq" are its execution policies */
static int
thrust_tag(const char *tag, Resolved *r)
{
    if (strncmp(tag, "thrust.", 7) != 0) {
        return 0;
    }
    tag += 7;
    if (strcmp(tag, "device") == 0 || strcmp(tag, "seq") == 0) {
        r->kind = R_BUILTIN;
        r->bi = BI_THRUST_POLICY;
        r->axis = 0;
        return 1;
    }
    for (int k = 0; k < TH_NALGOS; k++) {
        if (strcmp(cj_thrust_names[k], tag) == 0) {
            r->kind = R_BUILTIN;
            r->bi = BI_THRUST;
            r->axis = k;
            return 1;
        }
    }
    return 0;
}

/* CUDA's vector types (cujit.cuda.float32x4, tagged "vector.float32x4"):
 * BI_VECTOR, the lanes in the axis and the element's dtype in dt */
static int
vector_tag(const char *tag, Resolved *r)
{
    DType dt;
    int lanes;
    if (strncmp(tag, "vector.", 7) != 0 || !cj_vector_from_name(tag + 7, &dt, &lanes)) {
        return 0;
    }
    r->kind = R_BUILTIN;
    r->bi = BI_VECTOR;
    r->axis = lanes;
    r->dt = dt;
    return 1;
}

static int
jit_tagged(PyObject *obj, Resolved *r)
{
    PyObject *tag = PyObject_GetAttr(obj, fe_names[S___cujit_builtin__]);
    if (tag && PyUnicode_Check(tag) && !PyModule_Check(obj)) {
        if (thrust_tag(PyUnicode_AsUTF8(tag), r) || vector_tag(PyUnicode_AsUTF8(tag), r)) {
            Py_DECREF(tag);
            return 1;
        }
        const BuiltinName *b = lookup_name(jit_names, PyUnicode_AsUTF8(tag));
        int row = b ? -1 : cj_intrin_find(PyUnicode_AsUTF8(tag));   /* cuda.fp16.hadd */
        Py_DECREF(tag);
        if (b) {
            r->kind = R_BUILTIN;
            r->bi = b->bi;
            r->axis = b->axis;
            return 1;
        }
        if (row >= 0) {
            r->kind = R_BUILTIN;
            r->bi = BI_INTRIN;
            r->axis = row;
            return 1;
        }
        r->kind = R_NAMESPACE;      /* jit.threadIdx and friends */
        return 1;
    }
    Py_XDECREF(tag);
    PyErr_Clear();
    return 0;
}

/* The operator module's functions (operator.add, operator.lt, operator.neg)
 * and the builtin pow(): an operator applied to the arguments.  `arity` 2
 * with kind ND_COMPARE is a comparison. */
static const FeOperator operator_names[] = {
    {"add", ND_BINOP, OP_ADD}, {"iadd", ND_BINOP, OP_ADD},
    {"sub", ND_BINOP, OP_SUB}, {"isub", ND_BINOP, OP_SUB},
    {"mul", ND_BINOP, OP_MUL}, {"imul", ND_BINOP, OP_MUL},
    {"truediv", ND_BINOP, OP_DIV}, {"itruediv", ND_BINOP, OP_DIV},
    {"floordiv", ND_BINOP, OP_FLOORDIV}, {"ifloordiv", ND_BINOP, OP_FLOORDIV},
    {"mod", ND_BINOP, OP_MOD}, {"imod", ND_BINOP, OP_MOD},
    {"pow", ND_BINOP, OP_POW}, {"ipow", ND_BINOP, OP_POW},
    {"lshift", ND_BINOP, OP_LSHIFT}, {"ilshift", ND_BINOP, OP_LSHIFT},
    {"rshift", ND_BINOP, OP_RSHIFT}, {"irshift", ND_BINOP, OP_RSHIFT},
    {"and_", ND_BINOP, OP_BITAND}, {"iand", ND_BINOP, OP_BITAND},
    {"or_", ND_BINOP, OP_BITOR}, {"ior", ND_BINOP, OP_BITOR},
    {"xor", ND_BINOP, OP_BITXOR}, {"ixor", ND_BINOP, OP_BITXOR},
    {"neg", ND_UNARY, OP_NEG}, {"pos", ND_UNARY, OP_POS}, {"not_", ND_UNARY, OP_NOT},
    {"invert", ND_UNARY, OP_INVERT}, {"inv", ND_UNARY, OP_INVERT},
    {"eq", ND_COMPARE, OP_EQ}, {"ne", ND_COMPARE, OP_NE}, {"lt", ND_COMPARE, OP_LT},
    {"le", ND_COMPARE, OP_LE}, {"gt", ND_COMPARE, OP_GT}, {"ge", ND_COMPARE, OP_GE},
    {NULL, 0, 0},
};

const FeOperator *
fe_operator(int i)
{
    return &operator_names[i];
}

/* operator.<name>, or the builtin pow (operator.pow's meaning) */
static int
operator_function(const char *m, const char *n, PyObject *obj, Resolved *r)
{
    int is_pow = strcmp(m, "builtins") == 0 && strcmp(n, "pow") == 0
                 && PyDict_GetItemString(fe_builtins_dict, n) == obj;
    if (strcmp(m, "_operator") != 0 && strcmp(m, "operator") != 0 && !is_pow) {
        return 0;
    }
    for (int i = 0; operator_names[i].name; i++) {
        if (strcmp(operator_names[i].name, n) == 0) {
            r->kind = R_OPERATOR;
            r->bi = i;
            return 1;
        }
    }
    return 0;
}

/* math.<n> that has no builtin of its own but an intrinsic row (math.exp2) */
static int
math_intrinsic(const char *n, Resolved *r)
{
    char name[64];
    snprintf(name, sizeof name, "math.%s", n);
    int row = cj_intrin_find(name);
    if (row < 0) {
        return 0;
    }
    r->kind = R_BUILTIN;
    r->bi = BI_INTRIN;
    r->axis = row;
    return 1;
}

/* A math function (math.sqrt), a Python builtin function (abs, min) or an
 * operator (operator.add). */
static int
builtin_function(PyObject *obj, Resolved *r)
{
    if (!PyCFunction_Check(obj)) {
        return 0;
    }
    int found = 0;
    PyObject *mod = PyObject_GetAttr(obj, fe_names[S___module__]);
    PyObject *nm = PyObject_GetAttr(obj, fe_names[S___name__]);
    PyErr_Clear();
    if (mod && nm && PyUnicode_Check(mod) && PyUnicode_Check(nm)) {
        const char *m = PyUnicode_AsUTF8(mod), *n = PyUnicode_AsUTF8(nm);
        int math = strcmp(m, "math") == 0;
        const BuiltinName *b = math ? lookup_name(math_names, n)
                               : strcmp(m, "builtins") == 0 ? lookup_name(py_builtins, n)
                               : NULL;
        if (b && (math || PyDict_GetItemString(fe_builtins_dict, n) == obj)) {
            r->kind = R_BUILTIN;
            r->bi = b->bi;
            found = 1;
        } else {
            found = (math && math_intrinsic(n, r)) || operator_function(m, n, obj, r);
        }
    }
    Py_XDECREF(mod);
    Py_XDECREF(nm);
    return found;
}

/* A Python builtin type (int, float, bool, complex) or a NumPy dtype
 * (np.float32, np.dtype('f4')). */
static int
builtin_type(Fe *f, PyObject *obj, Resolved *r)
{
    if (PyType_Check(obj)) {
        for (const BuiltinName *b = py_builtins; b->name; b++) {
            if (PyDict_GetItemString(fe_builtins_dict, b->name) == obj) {
                r->kind = R_BUILTIN;
                r->bi = b->bi;
                return 1;
            }
        }
        if (fe_dtype_of_object(f, obj, &r->dt)) {
            r->kind = R_DTYPE;
            return 1;
        }
    }
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) == 0
        && fe_dtype_of_object(f, obj, &r->dt)) {
        r->kind = R_DTYPE;
        return 1;
    }
    return 0;
}

/* An object tagged __cujit_collective__ with a tuple (collective.c), or
 * with "template" (jit.cub.WarpReduce, subscripted) or "class" (its products) */
static int
collective_tag_is(PyObject *obj, int tuple, const char *what)
{
    PyObject *t = PyObject_GetAttrString(obj, "__cujit_collective__");
    int r = t && (tuple ? PyTuple_Check(t)
                  : PyUnicode_Check(t) && PyUnicode_CompareWithASCIIString(t, what) == 0);
    Py_XDECREF(t);
    PyErr_Clear();
    return r;
}

static int
collective_tagged(PyObject *obj)
{
    return !PyType_Check(obj) && collective_tag_is(obj, 1, NULL);
}

/* ---- fused functions ---- */

/* inside a fused function (the top one, not the device functions it calls) */
int
fe_fused(Fe *f)
{
    return f->cx->fuse_names != NULL && f->cx->depth == 1;
}

/* a reduction method of an array inside a fused function (x.sum()): RedOp,
 * 0 for any other name */
int
fe_fuse_method_red(const char *name)
{
    static const char *const names[] = {"", "sum", "prod", "min", "max", "mean", "any",
                                        "all", "argmin", "argmax"};
    for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return 0;
}

/* An array library's function (a NumPy or CuPy ufunc, a function of numpy,
 * cupy or cujit) seen by its name: "numpy", "cupy" or "cujit", or NULL */
static const char *
array_library(PyObject *obj)
{
    const char *tn = Py_TYPE(obj)->tp_name;
    if (strstr(tn, "ufunc")) {
        return strncmp(tn, "cupy", 4) == 0 ? "cupy" : "numpy";
    }
    if (PyType_Check(obj) || !PyCallable_Check(obj)) {
        return NULL;
    }
    PyObject *mod = PyObject_GetAttr(obj, fe_names[S___module__]);
    const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;
    static const char *const libs[] = {"numpy", "cupy", "cujit"};
    const char *found = NULL;
    for (int i = 0; m && i < 3 && !found; i++) {
        size_t n = strlen(libs[i]);
        if (strncmp(m, libs[i], n) == 0 && (m[n] == '\0' || m[n] == '.')) {
            found = libs[i];
        }
    }
    Py_XDECREF(mod);
    PyErr_Clear();
    return found;
}

static Resolved classify(Fe *f, PyObject *obj, Loc loc);

/* In a fused function, an array library's function means what the table
 * fuse_names gives its name: a math builtin, a device function written in
 * the kernel language, or a reduction.  One it does not hold is an error
 * here, at the call, never a silent fallback.  0: obj is none of these. */
static int
fuse_name(Fe *f, PyObject *obj, Loc loc, Resolved *r)
{
    const char *lib = f->cx->fuse_names ? array_library(obj) : NULL;
    if (!lib) {
        return 0;
    }
    PyObject *nm = PyObject_GetAttr(obj, fe_names[S___name__]);
    if (!nm) {
        PyErr_Clear();
        nm = PyObject_GetAttr(obj, fe_names[S_name]);   /* cujit's stdlib functions */
    }
    const char *name = nm && PyUnicode_Check(nm) ? fe_utf8(f, fe_keep(f, nm)) : NULL;
    if (!name) {
        Py_XDECREF(nm);
        PyErr_Clear();
        fe_fail(f, loc, "this %s object cannot be fused: it has no name", lib);
    }
    const char *key = strncmp(name, "cupy_", 5) == 0 ? name + 5 : name;
    PyObject *v = PyDict_GetItemString(f->cx->fuse_names, key);
    if (!v) {
        fe_fail_kind(f, loc, CE_TYPE, "%s.%s cannot be fused: it has no meaning on one element "
                     "(a fused function takes arithmetic, comparisons, the elementwise math of "
                     "cujit / NumPy / CuPy, where, clip, minimum, maximum, astype and a final "
                     "sum, prod, min, max, mean, any or all)", lib, key);
    }
    memset(r, 0, sizeof *r);
    if (PyLong_Check(v)) {
        r->kind = R_FUSE_REDUCE;
        r->bi = (int)PyLong_AsLong(v);
        r->obj = obj;
        return 1;
    }
    if (PyFunction_Check(v)) {
        r->kind = R_DEVFUNC;
        r->obj = v;
        return 1;
    }
    *r = classify(f, v, loc);
    r->value = obj;
    return 1;
}

/* A Numba type object as its dtype: cujit.cuda's float32 (tagged
 * __cujit_dtype__, a dtype name; a record type's or a struct model's tag is
 * its numpy.dtype) or numba's own (numba.float32, numba.types.int32: a type
 * defined in numba whose str is a dtype name). */
static int
numba_dtype(Fe *f, PyObject *obj, Resolved *r)
{
    PyObject *tag = PyObject_GetAttr(obj, fe_names[S___cujit_dtype__]);
    if (!tag) {
        PyErr_Clear();
        PyObject *mod = PyObject_GetAttr((PyObject *)Py_TYPE(obj), fe_names[S___module__]);
        const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;
        if (m && (strcmp(m, "numba") == 0 || strncmp(m, "numba.", 6) == 0)) {
            tag = PyObject_Str(obj);
        }
        Py_XDECREF(mod);
        PyErr_Clear();
    }
    int ok = tag && PyUnicode_Check(tag) && cj_dtype_from_name(PyUnicode_AsUTF8(tag), &r->dt);
    if (!ok && tag && strncmp(Py_TYPE(tag)->tp_name, "numpy.dtype", 11) == 0) {
        ok = fe_dtype_of_object(f, tag, &r->dt);
    }
    Py_XDECREF(tag);
    PyErr_Clear();
    if (ok) {
        r->kind = R_DTYPE;
    }
    return ok;
}

/* A device function's declared signatures (cuda.jit(sig, device=True) sets
 * __cujit_signatures__, a tuple of signature strings), or NULL */
static PyObject *
declared_signatures(Fe *f, PyObject *obj, Loc loc)
{
    PyObject *t = PyObject_GetAttr(obj, fe_names[S___cujit_signatures__]);
    if (!t) {
        PyErr_Clear();
        return NULL;
    }
    if (!PyTuple_Check(t)) {
        Py_DECREF(t);
        fe_fail(f, loc, "a device function's __cujit_signatures__ must be a tuple of "
                "signature strings");
    }
    if (!fe_keep(f, t)) {
        fe_fail_py(f, loc, "cujit could not keep a device function's signatures");
    }
    return t;
}

/* Parses the declared signatures into fn (once per function read): a call
 * then takes the first whose argument types its arguments convert to
 * (typeinfer), as Numba's device functions compiled for a signature do */
void
fe_declare_signatures(Fe *f, Func *fn, PyObject *sigs, Loc loc)
{
    Py_ssize_t n = PyTuple_GET_SIZE(sigs);
    if (fn->decl_args || n == 0) {
        return;
    }
    fn->decl_args = cj_alloc(f->cx->arena, sizeof(Type **) * (size_t)n);
    fn->decl_ret = cj_alloc(f->cx->arena, sizeof(Type *) * (size_t)n);
    fn->decl_nargs = cj_alloc(f->cx->arena, sizeof(int) * (size_t)n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyTuple_GET_ITEM(sigs, i);
        char msg[512];
        const char *text = PyUnicode_Check(s) ? fe_utf8(f, s) : NULL;
        Type *ret = NULL;
        int nt = text ? cj_parse_signature(f->cx->arena, text, &fn->decl_args[i], &ret, msg,
                                           sizeof msg) : -1;
        if (nt < 0) {
            fe_fail_kind(f, loc, CE_TYPE, "device function '%s': %s", fn->name,
                         text ? msg : "a declared signature is not a string");
        }
        fn->decl_nargs[i] = nt;
        fn->decl_ret[i] = ret;
    }
    fn->ndecl = (int)n;
}

/* What a Python object found by name means inside a kernel: a jit, math or
 * Python builtin, a namespace (module), a dtype, a device function or
 * kernel, a constant folded in, or something kernels cannot use. */
static Resolved
classify(Fe *f, PyObject *obj, Loc loc)
{
    Resolved r;
    memset(&r, 0, sizeof r);
    r.obj = obj;
    r.value = obj;
    if (fuse_name(f, obj, loc, &r) || jit_tagged(obj, &r)) {
        return r;
    }
    if (PyModule_Check(obj)) {
        r.kind = R_NAMESPACE;
        return r;
    }
    if (builtin_function(obj, &r) || builtin_type(f, obj, &r)) {
        return r;
    }
    if (collective_tagged(obj)) {
        r.kind = R_COLLECTIVE;      /* a collective's object: called in kernels */
        return r;
    }
    if (fe_overloaded(f, obj, &r)) {
        return r;               /* a function with @overload implementations */
    }
    if (fe_extern_classify(obj, &r) || fe_from_buffer_classify(obj, &r)) {
        return r;               /* cuda.declare_device's functions, ffi.from_buffer */
    }
    int is_device = 0;
    PyObject *pyfunc = kernel_function ? kernel_function(obj, &is_device) : NULL;
    if (!pyfunc && fe_is_inner(f, obj)) {
        pyfunc = obj;           /* def inner(): ... in a kernel: a device function */
        is_device = 1;
    }
    if (!pyfunc && (pyfunc = fe_numba_function(f, obj))) {
        is_device = 1;          /* numba.njit's, or numba's own cuda.jit: its py_func */
    }
    if (pyfunc) {
        r.kind = is_device ? R_DEVFUNC : R_KERNEL;
        r.obj = pyfunc;
        r.sigs = is_device ? declared_signatures(f, obj, loc) : NULL;
        return r;
    }
    if (fe_np_function(obj, &r)) {
        return r;
    }
    Node *c = fe_object_const(f, obj, loc);
    if (!c) {
        c = fe_device_array_const(f, obj, loc);
    }
    if (!c) {
        c = fe_ndarray_const(f, obj, loc);
    }
    if (c) {
        r.kind = R_CONST;
        r.node = c;
        return r;
    }
    if (numba_dtype(f, obj, &r)) {
        return r;
    }
    fe_check_record_dtype(f, obj, loc);     /* a record dtype refused: say why */
    r.kind = R_OTHER;
    return r;
}

Resolved
fe_classify(Fe *f, PyObject *obj, Loc loc)
{
    return classify(f, obj, loc);
}

/* The value of a global, closure or builtin name; NULL if there is none. */
static PyObject *
lookup_global(Fe *f, PyObject *name)
{
    PyObject *v = f->closure ? PyDict_GetItemWithError(f->closure, name) : NULL;
    if (!v && !PyErr_Occurred()) {
        v = PyDict_GetItemWithError(f->globals, name);
    }
    if (!v && !PyErr_Occurred()) {
        v = PyDict_GetItemWithError(fe_builtins_dict, name);
    }
    PyErr_Clear();
    return v;
}

/* is `name` bound in the function (a parameter or assigned)? */
/* A name found nowhere.  In a device function read for a call, a type
 * error in Numba's words (its TypingError names the NameError and the
 * callee); in a kernel a plain CompileError (cupyx.jit expects NameError,
 * which a SyntaxError cannot also be). */
static CJ_NORETURN void
unknown_name(Fe *f, PyObject *id, Loc loc)
{
    const char *s = fe_utf8(f, id);
    if (f->fn->is_device && f->cx->depth > 1) {
        fe_fail_kind(f, loc, CE_TYPE, "unknown name '%s' (NameError: name '%s' is not defined) "
                     "in device function '%s': not an argument, a local variable, a global, a "
                     "closure variable or a builtin (Numba: resolving callee type: "
                     "type(CUDADispatcher(%s)))", s, s, f->fn->name, f->fn->name);
    }
    fe_fail(f, loc, "unknown name '%s': not an argument, a local variable, a global, "
            "a closure variable or a builtin", s);
}

int
fe_is_local_name(Fe *f, PyObject *name)
{
    int r = PySet_Contains(f->locals, name);
    if (r < 0) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

const char *
fe_describe_object(Fe *f, PyObject *obj)
{
    return cj_aprintf(f->cx->arena, "an object of type '%s'", Py_TYPE(obj)->tp_name);
}

/* Does expression e read a local variable of the function anywhere? */
static int
uses_locals(Fe *f, PyObject *e)
{
    PyObject *it = fe_keep(f, PyObject_CallOneArg(fe_ast_walk, e));
    PyObject *node;
    int found = 0;
    while (it && !found && (node = PyIter_Next(it))) {
        found = fe_is(node, A_Name) && fe_is_local_name(f, fe_get(f, node, S_id));
        Py_DECREF(node);
    }
    if (!it || PyErr_Occurred()) {
        fe_fail_py(f, fe_loc_of(f, e), "cujit could not walk an expression");
    }
    return found;
}

/* The value of expression e, evaluated by Python now, with the function's
 * globals and closure; `what` says what failed if it raises. */
static PyObject *
eval_now(Fe *f, PyObject *e, Loc loc, const char *what)
{
    PyObject *expr = fe_keep(f, PyObject_CallOneArg((PyObject *)fe_ast_types[A_Expression], e));
    PyObject *compile = PyDict_GetItemString(fe_builtins_dict, "compile");
    PyObject *code = expr && compile ? fe_keep(f, PyObject_CallFunction(
                         compile, "Oss", expr, f->file, "eval")) : NULL;
    PyObject *locals = f->closure ? f->closure : f->globals;
    PyObject *v = code ? fe_keep(f, PyEval_EvalCode(code, f->globals, locals)) : NULL;
    if (!v) {
        fe_fail_py(f, loc, what);
    }
    return v;
}

/* Is the callee of call e a plain Python callable (a factory, numpy.dtype),
 * not one the kernel language gives a meaning (a builtin, a cast, a device
 * function)? */
static int
plain_callee(Fe *f, PyObject *e)
{
    Resolved r;
    PyObject *fn = fe_get(f, e, S_func);
    return (fe_is(fn, A_Name) || fe_is(fn, A_Attribute) || fe_is(fn, A_Call))
           && fe_resolve(f, fn, &r) && r.kind == R_OTHER && PyCallable_Check(r.obj);
}

/* compile_time_call := callee '(' args ')' where neither callee nor args read
 * a local variable and the callee is a plain Python callable: make(10),
 * numpy.dtype(t), g(step * 2).  Python runs it while the kernel compiles (as
 * cupyx.jit does) and the value, kept, is resolved as a global would be: a
 * device function, a dtype, a constant.  NULL when it is not such a call. */
PyObject *
fe_compile_time_call(Fe *f, PyObject *e, Loc loc)
{
    if (!fe_is(e, A_Call) || uses_locals(f, e) || !plain_callee(f, e)) {
        return NULL;
    }
    return eval_now(f, e, loc, "this call runs in Python while the kernel compiles, and it "
                    "raised");
}

/* template_item := template '[' exprs ']' where the template is tagged
 * __cujit_collective__ = "template" (jit.cub.BlockReduce[T, 256]); the
 * subscript, known at compile time, is taken in Python. 0 if e is not one. */
static int
template_item(Fe *f, PyObject *e, Resolved *out, Loc loc)
{
    Resolved rb;
    if (!fe_resolve(f, fe_get(f, e, S_value), &rb)
        || !collective_tag_is(rb.obj, 0, "template")) {
        return 0;
    }
    PyObject *sl = fe_get(f, e, S_slice);
    if (uses_locals(f, sl)) {
        fe_fail_kind(f, loc, CE_TYPE, "the arguments in [] of a collective's class must be "
                     "known when the kernel compiles (dtypes and constants, not local "
                     "variables)");
    }
    PyObject *key = eval_now(f, sl, loc, "these [] arguments raised");
    PyObject *v = fe_keep(f, PyObject_GetItem(rb.obj, key));
    if (!v) {
        fe_fail_py(f, loc, "this class of collectives does not take these [] arguments");
    }
    *out = classify(f, v, loc);
    return 1;
}

/* the call of a cupyx class object (WarpReduce[T](temp_storage)): the same
 * object, its argument unused; 0 if e is not one */
static int
class_call(Fe *f, PyObject *e, Resolved *out)
{
    PyObject *fn = fe_get(f, e, S_func);
    Resolved r;
    if ((fe_is(fn, A_Name) || fe_is(fn, A_Attribute) || fe_is(fn, A_Subscript))
        && fe_resolve(f, fn, &r) && fe_is_collective_class(r.obj)) {
        *out = r;
        return 1;
    }
    return 0;
}

/* float.as_integer_ratio, np.float32.fromhex: an attribute of a number
 * class is Numba's typing error (its class(float64) has none), never run
 * by Python at compile time */
static void
number_class_attr(Fe *f, const Resolved *rb, PyObject *attr, Loc loc)
{
    const char *cls = rb->kind == R_DTYPE ? (rb->obj && PyType_Check(rb->obj)
                                             ? cj_dtypes[rb->dt].name : NULL)
                      : rb->kind != R_BUILTIN ? NULL
                      : rb->bi == BI_FLOAT ? "float64" : rb->bi == BI_INT ? "int64"
                      : rb->bi == BI_BOOL ? "bool" : rb->bi == BI_COMPLEX ? "complex128" : NULL;
    if (cls) {
        fe_fail_kind(f, loc, CE_TYPE, "Unknown attribute '%s' of type class(%s): a number "
                     "class has no attributes in kernels", fe_utf8(f, attr), cls);
    }
}

/* dotted := (name | compile_time_call | template_item | class_call) { '.' name }
 * Resolves Name / Attribute chains that do not start at a local. Returns 0
 * if the expression starts at a local (the caller reads it as a value). */
int
fe_resolve(Fe *f, PyObject *e, Resolved *out)
{
    Loc loc = fe_loc_of(f, e);
    if (fe_is(e, A_Subscript)) {
        return fe_enum_item(f, e, out, loc) || template_item(f, e, out, loc);
    }
    if (fe_is(e, A_Call)) {
        if (class_call(f, e, out)) {
            return 1;
        }
        PyObject *v = fe_compile_time_call(f, e, loc);
        if (!v) {
            return 0;
        }
        *out = classify(f, v, loc);
        return 1;
    }
    if (fe_is(e, A_Name)) {
        PyObject *id = fe_get(f, e, S_id);
        PyObject *alias = f->aliases ? PyDict_GetItemWithError(f->aliases, id) : NULL;
        if (alias) {
            *out = classify(f, alias, loc);     /* BR = jit.cub.BlockReduce[T, N] */
            return 1;
        }
        PyErr_Clear();
        if (fe_is_local_name(f, id)) {
            return 0;
        }
        PyObject *v = lookup_global(f, id);
        if (!v) {
            unknown_name(f, id, loc);
        }
        *out = classify(f, v, loc);
        return 1;
    }
    if (fe_is(e, A_Attribute)) {
        PyObject *base = fe_get(f, e, S_value);
        Resolved rb;
        if (!fe_resolve(f, base, &rb)) {
            return 0;
        }
        PyObject *attr = fe_get(f, e, S_attr);
        number_class_attr(f, &rb, attr, loc);
        if (rb.kind == R_CONST && (strcmp(Py_TYPE(rb.obj)->tp_name, "numpy.ndarray") != 0
                                   || fe_np_method_name(fe_utf8(f, attr)))) {
            return 0;           /* a constant's .real etc.: read as a value */
        }
        /* a global NumPy array's attributes are Python's (.shape, .dtype, .T),
         * but for the methods kernels have (a.sum(), a.copy() ...) */
        PyObject *v = PyObject_GetAttr(rb.obj, attr);
        if (!v) {
            PyErr_Clear();
            const char *mn = fe_module_name(rb.obj);
            if (mn) {
                fe_fail(f, loc, "unknown name '%s.%s': module '%s' has no attribute '%s' usable "
                        "in a kernel", mn, fe_utf8(f, attr), mn, fe_utf8(f, attr));
            }
            fe_fail(f, loc, "unknown attribute '%s' of %s", fe_utf8(f, attr),
                    fe_describe_object(f, rb.obj));
        }
        fe_keep(f, v);
        *out = classify(f, v, loc);
        if (out->kind == R_OTHER || out->kind == R_NAMESPACE) {
            /* math.foo that is not one we know, jit.something unknown */
            const char *mn = fe_module_name(rb.obj);
            if (mn && (strcmp(mn, "math") == 0)) {
                fe_fail(f, loc, "math.%s is not supported in kernels", fe_utf8(f, attr));
            }
        }
        return 1;
    }
    return 0;
}

/* Marks the names a target binds as locals: name | '(' target { ',' target } ')' */
static void
bind_target(Fe *f, PyObject *t)
{
    if (fe_is(t, A_Name)) {
        if (PySet_Add(f->locals, fe_get(f, t, S_id)) < 0) {
            fe_fail_py(f, fe_loc_of(f, t), "cujit");
        }
    } else if (fe_is(t, A_Tuple) || fe_is(t, A_List)) {
        PyObject *elts = fe_get(f, t, S_elts);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(elts); i++) {
            bind_target(f, PyList_GET_ITEM(elts, i));
        }
    }
}

/* Python's rule for locals: a name bound anywhere in the body (=, op=,
 * annotated =, a for target), in any if / while / for block, is local to the
 * whole function.  Collects them into f->locals before the body is read. */
void
fe_bound_names(Fe *f, PyObject *list)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        if (fe_is(s, A_Assign) && (fe_fused(f) || !fe_is_lambda_def(f, s))) {  /* g = lambda: a def */
            PyObject *tl = fe_get(f, s, S_targets);
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(tl); j++) {
                bind_target(f, PyList_GET_ITEM(tl, j));
            }
        } else if (fe_is(s, A_AugAssign) || fe_is(s, A_AnnAssign) || fe_is(s, A_For)) {
            bind_target(f, fe_get(f, s, S_target));
        }
        if (fe_is(s, A_If) || fe_is(s, A_While) || fe_is(s, A_For)) {
            fe_bound_names(f, fe_get(f, s, S_body));
            fe_bound_names(f, fe_get(f, s, S_orelse));
        }
    }
}

/* The values of the function's free variables (closure cells), by name,
 * into f->closure; an empty cell is left out. */
void
fe_read_closure(Fe *f, PyObject *pyfunc, PyObject *code)
{
    f->closure = fe_inner_closure(f, pyfunc);
    PyObject *cl = PyObject_GetAttr(pyfunc, fe_names[S___closure__]);
    fe_keep(f, cl);
    if (!cl || cl == Py_None) {
        PyErr_Clear();
        return;
    }
    PyObject *fv = fe_get(f, code, S_co_freevars);
    if (!f->closure) {
        f->closure = fe_keep(f, PyDict_New());
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fv) && i < PyTuple_GET_SIZE(cl); i++) {
        PyObject *v = PyCell_Get(PyTuple_GET_ITEM(cl, i));
        if (!v) {
            PyErr_Clear();
            continue;       /* an empty cell: reading it gives "unknown name" */
        }
        PyDict_SetItem(f->closure, PyTuple_GET_ITEM(fv, i), v);
        Py_DECREF(v);
    }
}
