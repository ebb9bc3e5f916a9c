/* frontend.c - reads a decorated function's Python AST (through the CPython
 * C API) once into cujit's IR.  Names are resolved here: locals, jit / math /
 * numpy builtins, device functions and global or closure constants, which
 * are folded in.  No PyObject* survives past this file. */
#include <string.h>

#include "fe.h"

/* the kernel type's recognizer, passed down by its owner (fe.h) */
static FeKernelFunction kernel_function;

void
fe_set_kernel_function(FeKernelFunction f)
{
    kernel_function = f;
}

/* ---- cached ast classes and attribute names ---- */

#define AST_CLASSES(X) \
    X(Module) X(FunctionDef) X(AsyncFunctionDef) X(Return) X(Assign) X(AugAssign) \
    X(AnnAssign) X(For) X(While) X(If) X(Expr) X(Pass) X(Break) X(Continue) \
    X(Assert) X(BoolOp) X(BinOp) X(UnaryOp) X(IfExp) X(Compare) X(Call) \
    X(Constant) X(Attribute) X(Subscript) X(Name) X(Tuple) X(List) X(Slice) \
    X(Starred) X(And) X(Or) X(Add) X(Sub) X(Mult) X(Div) X(FloorDiv) X(Mod) \
    X(Pow) X(LShift) X(RShift) X(BitOr) X(BitXor) X(BitAnd) X(MatMult) \
    X(Invert) X(Not) X(UAdd) X(USub) X(Eq) X(NotEq) X(Lt) X(LtE) X(Gt) X(GtE) \
    X(Is) X(IsNot) X(In) X(NotIn) X(Lambda) X(NamedExpr) X(JoinedStr)

enum {
#define AST_ENUM(n) A_##n,
    AST_CLASSES(AST_ENUM)
#undef AST_ENUM
    A_COUNT
};

static const char *const ast_names[] = {
#define AST_STR(n) #n,
    AST_CLASSES(AST_STR)
#undef AST_STR
};

static PyTypeObject *ast_types[A_COUNT];

#define ATTR_NAMES(X) \
    X(body) X(args) X(posonlyargs) X(kwonlyargs) X(vararg) X(kwarg) X(arg) \
    X(defaults) X(kw_defaults) X(decorator_list) X(targets) X(target) X(value) \
    X(op) X(left) X(right) X(operand) X(test) X(orelse) X(iter) X(comparators) \
    X(ops) X(values) X(func) X(keywords) X(attr) X(slice) X(elts) X(id) X(msg) \
    X(lineno) X(col_offset) X(end_col_offset) X(end_lineno) X(name) \
    X(co_filename) X(co_firstlineno) X(co_freevars) X(__code__) X(__globals__) \
    X(__closure__) X(cell_contents) X(__cujit_builtin__) X(__module__) \
    X(__name__) X(dtype) X(item) X(getlines) X(returns) X(type_comment) X(co_varnames) \
    X(co_argcount) X(walk)

enum {
#define ATTR_ENUM(n) S_##n,
    ATTR_NAMES(ATTR_ENUM)
#undef ATTR_ENUM
    S_COUNT
};

static const char *const attr_strs[] = {
#define ATTR_STR(n) #n,
    ATTR_NAMES(ATTR_STR)
#undef ATTR_STR
};

static PyObject *names[S_COUNT];
static PyObject *builtins_dict;
static PyObject *linecache_getlines;
static PyObject *ast_walk;

static int
fe_init(void)
{
    if (names[0]) {
        return 0;
    }
    PyObject *ast = PyImport_ImportModule("_ast");
    if (!ast) {
        return -1;
    }
    for (int i = 0; i < A_COUNT; i++) {
        PyObject *t = PyObject_GetAttrString(ast, ast_names[i]);
        if (!t) {
            Py_DECREF(ast);
            return -1;
        }
        ast_types[i] = (PyTypeObject *)t;      /* kept for the process */
    }
    Py_DECREF(ast);
    for (int i = 0; i < S_COUNT; i++) {
        names[i] = PyUnicode_InternFromString(attr_strs[i]);
        if (!names[i]) {
            return -1;
        }
    }
    PyObject *b = PyImport_ImportModule("builtins");
    if (!b) {
        return -1;
    }
    builtins_dict = PyModule_GetDict(b);       /* borrowed; module kept */
    PyObject *lc = PyImport_ImportModule("linecache");
    if (!lc) {
        return -1;
    }
    linecache_getlines = PyObject_GetAttrString(lc, "getlines");
    Py_DECREF(lc);
    PyObject *astmod = PyImport_ImportModule("ast");
    if (!astmod) {
        return -1;
    }
    ast_walk = PyObject_GetAttrString(astmod, "walk");
    Py_DECREF(astmod);
    return linecache_getlines && ast_walk ? 0 : -1;
}

/* ---- per-function state ---- */

typedef struct {
    FeCtx *cx;
    Func *fn;
    const char *file;
    PyObject *globals;
    PyObject *closure;      /* dict name -> value of free variables */
    PyObject *locals;       /* set of names bound in the function */
    int line0;              /* add to AST line numbers */
    int dedent;             /* add to AST columns */
    Var **vars;
    int nvars, capvars;
    int loop_depth;
    int nnodes;
} Fe;

/* A resolved non-local: a builtin, a constant, a device function, a
 * namespace (module) or something unusable. */
typedef enum { R_NONE, R_BUILTIN, R_CONST, R_DEVFUNC, R_KERNEL, R_NAMESPACE, R_DTYPE, R_OTHER } RKind;

typedef struct {
    RKind kind;
    int bi, axis;
    PyObject *obj;          /* borrowed from cx->keep */
    Node *node;             /* R_CONST */
    DType dt;               /* R_DTYPE */
} Resolved;

static PyObject *
keep(Fe *f, PyObject *o)
{
    if (!o) {
        return NULL;
    }
    if (PyList_Append(f->cx->keep, o) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    Py_DECREF(o);
    return o;
}

CJ_NORETURN static void fail(Fe *f, Loc loc, const char *fmt, ...) CJ_PRINTF(3, 4);

static void
fail(Fe *f, Loc loc, const char *fmt, ...)
{
    CjTry *t = f->cx->try_;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->err.msg, sizeof t->err.msg, fmt, ap);
    va_end(ap);
    t->err.file = f->file;
    t->err.loc = loc;
    t->err.internal = 0;
    longjmp(t->jb, 1);
}

/* A Python error inside the frontend becomes a compile error at `loc`. */
CJ_NORETURN static void
fail_py(Fe *f, Loc loc, const char *what)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    char text[512];
    snprintf(text, sizeof text, "%s", msg ? msg : "unknown error");
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
    fail(f, loc, "%s: %s", what, text);
}

static PyObject *
get(Fe *f, PyObject *o, int name)
{
    PyObject *v = PyObject_GetAttr(o, names[name]);
    if (!v) {
        Loc l = {0, 0, 0};
        fail_py(f, l, "cujit could not read the Python AST");
    }
    return keep(f, v);
}

static int
is(PyObject *o, int cls)
{
    return Py_TYPE(o) == ast_types[cls];
}

static int
get_int(Fe *f, PyObject *o, int name)
{
    PyObject *v = PyObject_GetAttr(o, names[name]);
    if (!v) {
        PyErr_Clear();
        return 0;
    }
    long x = v == Py_None ? 0 : PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return (int)x;
}

static Loc
loc_of(Fe *f, PyObject *node)
{
    Loc l;
    int line = get_int(f, node, S_lineno);
    l.line = line + f->line0;
    l.col = get_int(f, node, S_col_offset) + f->dedent;
    int end_line = get_int(f, node, S_end_lineno);
    l.end_col = end_line == line ? get_int(f, node, S_end_col_offset) + f->dedent : -1;
    return l;
}

static Node *
new_node(Fe *f, NodeKind k, Loc loc)
{
    Node *n = cj_alloc(f->cx->arena, sizeof(Node));
    n->kind = k;
    n->loc = loc;
    n->id = f->nnodes++;
    return n;
}

static const char *
utf8(Fe *f, PyObject *s)
{
    const char *p = PyUnicode_AsUTF8(s);
    if (!p) {
        Loc l = {0, 0, 0};
        fail_py(f, l, "cujit could not read a name");
    }
    return cj_strdup(f->cx->arena, p);
}

static Var *
find_var(Fe *f, const char *name)
{
    for (int i = 0; i < f->nvars; i++) {
        if (strcmp(f->vars[i]->name, name) == 0) {
            return f->vars[i];
        }
    }
    return NULL;
}

static Var *
add_var(Fe *f, const char *name, Loc loc, int is_param)
{
    Var *v = cj_alloc(f->cx->arena, sizeof(Var));
    v->name = name;
    v->cname = cj_is_cpp_reserved(name) ? cj_aprintf(f->cx->arena, "%s_", name) : name;
    v->id = f->nvars;
    v->is_param = is_param;
    v->loc = loc;
    f->vars = (Var **)cj_vec_push(f->cx->arena, (void **)f->vars, &f->nvars, &f->capvars, v);
    return v;
}

/* ---- constants ---- */

static Node *
const_node(Fe *f, Loc loc, Const c)
{
    Node *n = new_node(f, ND_CONST, loc);
    n->cval = c;
    return n;
}

static int
is_numpy_scalar_type(PyObject *obj)
{
    if (!PyType_Check(obj)) {
        return 0;
    }
    for (PyTypeObject *t = (PyTypeObject *)obj; t; t = t->tp_base) {
        if (strcmp(t->tp_name, "numpy.generic") == 0) {
            return 1;
        }
    }
    return 0;
}

/* The dtype named by a NumPy scalar type (np.float32), a numpy.dtype
 * instance or a dtype string. */
static int
dtype_of_object(Fe *f, PyObject *obj, DType *dt)
{
    PyObject *name = NULL;
    (void)f;
    if (PyUnicode_Check(obj)) {
        return cj_dtype_from_name(PyUnicode_AsUTF8(obj), dt);
    }
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) == 0) {
        name = PyObject_GetAttrString(obj, "name");
    } else if (is_numpy_scalar_type(obj)) {
        PyObject *npmod = PyImport_ImportModule("numpy");
        PyObject *d = npmod ? PyObject_CallMethod(npmod, "dtype", "O", obj) : NULL;
        Py_XDECREF(npmod);
        name = d ? PyObject_GetAttrString(d, "name") : NULL;
        Py_XDECREF(d);
    } else {
        return 0;
    }
    int ok = name && PyUnicode_Check(name) && cj_dtype_from_name(PyUnicode_AsUTF8(name), dt);
    Py_XDECREF(name);
    PyErr_Clear();
    return ok;
}

/* A NumPy scalar (np.float32(1.5)) as a strong constant. */
static int
numpy_scalar_const(Fe *f, PyObject *obj, Const *c)
{
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) != 0) {
        return 0;
    }
    PyObject *d = PyObject_GetAttr(obj, names[S_dtype]);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    DType dt;
    int ok = dtype_of_object(f, d, &dt);
    Py_DECREF(d);
    if (!ok) {
        return 0;
    }
    PyObject *v = PyObject_CallMethodNoArgs(obj, names[S_item]);
    if (!v) {
        PyErr_Clear();
        return 0;
    }
    memset(c, 0, sizeof *c);
    c->dt = dt;
    char kind = cj_dtypes[dt].kind;
    if (kind == 'b') {
        c->kind = CK_BOOL;
        c->i = PyObject_IsTrue(v);
    } else if (kind == 'i') {
        c->kind = CK_INT;
        c->i = PyLong_AsLongLong(v);
    } else if (kind == 'u') {
        c->kind = CK_UINT;
        c->u = PyLong_AsUnsignedLongLong(v);
        c->i = (int64_t)c->u;
    } else if (kind == 'f') {
        c->kind = CK_FLOAT;
        c->f = PyFloat_AsDouble(v);
    } else {
        c->kind = CK_COMPLEX;
        Py_complex z = PyComplex_AsCComplex(v);
        c->f = z.real;
        c->im = z.imag;
    }
    Py_DECREF(v);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* Python int / float / complex / bool / None / str / NumPy scalar / tuple
 * of these -> a constant node, or NULL if obj is none of them. */
static Node *
object_const(Fe *f, PyObject *obj, Loc loc)
{
    Const c;
    memset(&c, 0, sizeof c);
    if (PyBool_Check(obj)) {
        c.kind = CK_BOOL;
        c.dt = DT_BOOL;
        c.i = obj == Py_True;
    } else if (!PyLong_CheckExact(obj) && !PyFloat_CheckExact(obj)
               && !PyComplex_CheckExact(obj) && numpy_scalar_const(f, obj, &c)) {
        /* np.float64 subclasses float, but is a strong NumPy scalar */
    } else if (PyLong_Check(obj)) {
        int overflow;
        c.kind = CK_INT;
        c.weak = 1;
        c.dt = DT_I64;
        c.i = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow > 0) {
            c.u = PyLong_AsUnsignedLongLong(obj);
            if (PyErr_Occurred()) {
                PyErr_Clear();
                fail(f, loc, "integer constant too large for 64 bits");
            }
            c.kind = CK_UINT;
            c.dt = DT_U64;
        } else if (overflow < 0) {
            fail(f, loc, "integer constant too small for 64 bits");
        }
    } else if (PyFloat_Check(obj)) {
        c.kind = CK_FLOAT;
        c.weak = 1;
        c.dt = DT_F64;
        c.f = PyFloat_AS_DOUBLE(obj);
    } else if (PyComplex_Check(obj)) {
        c.kind = CK_COMPLEX;
        c.weak = 1;
        c.dt = DT_C128;
        c.f = PyComplex_RealAsDouble(obj);
        c.im = PyComplex_ImagAsDouble(obj);
    } else if (obj == Py_None) {
        c.kind = CK_NONE;
    } else if (PyUnicode_Check(obj)) {
        c.kind = CK_STR;
        c.s = utf8(f, obj);
    } else if (PyTuple_Check(obj)) {
        Node *t = new_node(f, ND_TUPLE, loc);
        t->n = (int)PyTuple_GET_SIZE(obj);
        t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(t->n + 1));
        for (int i = 0; i < t->n; i++) {
            t->list[i] = object_const(f, PyTuple_GET_ITEM(obj, i), loc);
            if (!t->list[i]) {
                return NULL;
            }
        }
        return t;
    } else {
        return NULL;
    }
    return const_node(f, loc, c);
}

/* ---- name resolution ---- */

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
    {"shared_memory", BI_SHARED_MEMORY, 0}, {"local_memory", BI_LOCAL_MEMORY, 0},
    {"atomic_add", BI_ATOMIC_ADD, 0}, {"atomic_sub", BI_ATOMIC_SUB, 0},
    {"atomic_max", BI_ATOMIC_MAX, 0}, {"atomic_min", BI_ATOMIC_MIN, 0},
    {"atomic_exch", BI_ATOMIC_EXCH, 0}, {"atomic_and", BI_ATOMIC_AND, 0},
    {"atomic_or", BI_ATOMIC_OR, 0}, {"atomic_xor", BI_ATOMIC_XOR, 0},
    {"atomic_inc", BI_ATOMIC_INC, 0}, {"atomic_dec", BI_ATOMIC_DEC, 0},
    {"atomic_cas", BI_ATOMIC_CAS, 0},
    {"shfl_sync", BI_SHFL_SYNC, 0}, {"shfl_up_sync", BI_SHFL_UP_SYNC, 0},
    {"shfl_down_sync", BI_SHFL_DOWN_SYNC, 0}, {"shfl_xor_sync", BI_SHFL_XOR_SYNC, 0},
    {"all_sync", BI_ALL_SYNC, 0}, {"any_sync", BI_ANY_SYNC, 0},
    {"ballot_sync", BI_BALLOT_SYNC, 0}, {"activemask", BI_ACTIVEMASK, 0},
    {"popc", BI_POPC, 0}, {"clz", BI_CLZ, 0}, {"ffs", BI_FFS, 0}, {"brev", BI_BREV, 0},
    {NULL, 0, 0},
};

static const BuiltinName py_builtins[] = {
    {"print", BI_PRINT, 0}, {"range", BI_RANGE, 0}, {"len", BI_LEN, 0},
    {"int", BI_INT, 0}, {"float", BI_FLOAT, 0}, {"bool", BI_BOOL, 0},
    {"complex", BI_COMPLEX, 0}, {"abs", BI_ABS, 0}, {"min", BI_MIN, 0},
    {"max", BI_MAX, 0}, {"round", BI_ROUND, 0}, {NULL, 0, 0},
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
    {"isinf", BI_ISINF, 0}, {"isfinite", BI_ISFINITE, 0}, {NULL, 0, 0},
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

static const char *
module_name(PyObject *obj)
{
    if (!PyModule_Check(obj)) {
        return NULL;
    }
    return PyModule_GetName(obj);
}

/* What a Python object found by name means inside a kernel. */
static Resolved
classify(Fe *f, PyObject *obj, Loc loc)
{
    Resolved r;
    memset(&r, 0, sizeof r);
    r.obj = obj;
    PyObject *tag = PyObject_GetAttr(obj, names[S___cujit_builtin__]);
    if (tag && PyUnicode_Check(tag) && !PyModule_Check(obj)) {
        const BuiltinName *b = lookup_name(jit_names, PyUnicode_AsUTF8(tag));
        Py_DECREF(tag);
        if (b) {
            r.kind = R_BUILTIN;
            r.bi = b->bi;
            r.axis = b->axis;
            return r;
        }
        r.kind = R_NAMESPACE;       /* jit.threadIdx and friends */
        return r;
    }
    Py_XDECREF(tag);
    PyErr_Clear();
    if (PyModule_Check(obj)) {
        r.kind = R_NAMESPACE;
        return r;
    }
    if (PyCFunction_Check(obj)) {
        PyObject *mod = PyObject_GetAttr(obj, names[S___module__]);
        PyObject *nm = PyObject_GetAttr(obj, names[S___name__]);
        PyErr_Clear();
        if (mod && nm && PyUnicode_Check(mod) && PyUnicode_Check(nm)) {
            const char *m = PyUnicode_AsUTF8(mod), *n = PyUnicode_AsUTF8(nm);
            const BuiltinName *b = strcmp(m, "math") == 0 ? lookup_name(math_names, n)
                                   : strcmp(m, "builtins") == 0 ? lookup_name(py_builtins, n)
                                   : NULL;
            if (b && (strcmp(m, "math") == 0 || PyDict_GetItemString(builtins_dict, n) == obj)) {
                Py_DECREF(mod);
                Py_DECREF(nm);
                r.kind = R_BUILTIN;
                r.bi = b->bi;
                return r;
            }
        }
        Py_XDECREF(mod);
        Py_XDECREF(nm);
    }
    if (PyType_Check(obj)) {
        for (const BuiltinName *b = py_builtins; b->name; b++) {
            if (PyDict_GetItemString(builtins_dict, b->name) == obj) {
                r.kind = R_BUILTIN;
                r.bi = b->bi;
                return r;
            }
        }
        if (dtype_of_object(f, obj, &r.dt)) {
            r.kind = R_DTYPE;
            return r;
        }
    }
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) == 0 && dtype_of_object(f, obj, &r.dt)) {
        r.kind = R_DTYPE;
        return r;
    }
    int is_device = 0;
    PyObject *pyfunc = kernel_function ? kernel_function(obj, &is_device) : NULL;
    if (pyfunc) {
        r.kind = is_device ? R_DEVFUNC : R_KERNEL;
        r.obj = pyfunc;
        return r;
    }
    Node *c = object_const(f, obj, loc);
    if (c) {
        r.kind = R_CONST;
        r.node = c;
        return r;
    }
    r.kind = R_OTHER;
    return r;
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
        v = PyDict_GetItemWithError(builtins_dict, name);
    }
    PyErr_Clear();
    return v;
}

static int
is_local_name(Fe *f, PyObject *name)
{
    int r = PySet_Contains(f->locals, name);
    if (r < 0) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

static const char *
describe_object(Fe *f, PyObject *obj)
{
    return cj_aprintf(f->cx->arena, "an object of type '%s'", Py_TYPE(obj)->tp_name);
}

/* Resolves Name / Attribute chains that do not start at a local. Returns 0
 * if the expression starts at a local (the caller reads it as a value). */
static int
resolve(Fe *f, PyObject *e, Resolved *out)
{
    Loc loc = loc_of(f, e);
    if (is(e, A_Name)) {
        PyObject *id = get(f, e, S_id);
        if (is_local_name(f, id)) {
            return 0;
        }
        PyObject *v = lookup_global(f, id);
        if (!v) {
            fail(f, loc, "unknown name '%s': not an argument, a local variable, a global, "
                 "a closure variable or a builtin", utf8(f, id));
        }
        *out = classify(f, v, loc);
        return 1;
    }
    if (is(e, A_Attribute)) {
        PyObject *base = get(f, e, S_value);
        Resolved rb;
        if (!resolve(f, base, &rb)) {
            return 0;
        }
        PyObject *attr = get(f, e, S_attr);
        if (rb.kind == R_CONST) {
            return 0;           /* a constant's .real etc.: read as a value */
        }
        PyObject *v = PyObject_GetAttr(rb.obj, attr);
        if (!v) {
            PyErr_Clear();
            const char *mn = module_name(rb.obj);
            if (mn) {
                fail(f, loc, "unknown name '%s.%s': module '%s' has no attribute '%s' usable "
                     "in a kernel", mn, utf8(f, attr), mn, utf8(f, attr));
            }
            fail(f, loc, "unknown attribute '%s' of %s", utf8(f, attr),
                 describe_object(f, rb.obj));
        }
        keep(f, v);
        *out = classify(f, v, loc);
        if (out->kind == R_OTHER || out->kind == R_NAMESPACE) {
            /* math.foo that is not one we know, jit.something unknown */
            const char *mn = module_name(rb.obj);
            if (mn && (strcmp(mn, "math") == 0)) {
                fail(f, loc, "math.%s is not supported in kernels", utf8(f, attr));
            }
        }
        return 1;
    }
    return 0;
}

/* ---- expressions ---- */

static Node *expr(Fe *f, PyObject *e);

static Node **
expr_list(Fe *f, PyObject *list, int *n)
{
    Py_ssize_t len = PyList_Check(list) ? PyList_GET_SIZE(list) : PyTuple_GET_SIZE(list);
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(len + 1));
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *it = PyList_Check(list) ? PyList_GET_ITEM(list, i) : PyTuple_GET_ITEM(list, i);
        if (is(it, A_Starred)) {
            fail(f, loc_of(f, it), "star-arguments (*args) are not supported in kernels; "
                 "pass the values one by one");
        }
        out[i] = expr(f, it);
    }
    *n = (int)len;
    return out;
}

static int
binop_kind(Fe *f, PyObject *op, Loc loc)
{
    static const int map[][2] = {
        {A_Add, OP_ADD}, {A_Sub, OP_SUB}, {A_Mult, OP_MUL}, {A_Div, OP_DIV},
        {A_FloorDiv, OP_FLOORDIV}, {A_Mod, OP_MOD}, {A_Pow, OP_POW}, {A_LShift, OP_LSHIFT},
        {A_RShift, OP_RSHIFT}, {A_BitOr, OP_BITOR}, {A_BitXor, OP_BITXOR},
        {A_BitAnd, OP_BITAND},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (is(op, map[i][0])) {
            return map[i][1];
        }
    }
    fail(f, loc, "the matrix-multiplication operator '@' is not supported in kernels");
}

static int
cmpop_kind(Fe *f, PyObject *op, Loc loc)
{
    static const int map[][2] = {
        {A_Eq, OP_EQ}, {A_NotEq, OP_NE}, {A_Lt, OP_LT}, {A_LtE, OP_LE}, {A_Gt, OP_GT},
        {A_GtE, OP_GE}, {A_Is, OP_IS}, {A_IsNot, OP_ISNOT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (is(op, map[i][0])) {
            return map[i][1];
        }
    }
    fail(f, loc, "'in' and 'not in' are not supported in kernels; compare the values "
         "one by one");
}

static Node *
resolved_value(Fe *f, Resolved *r, PyObject *e, Loc loc)
{
    switch (r->kind) {
    case R_CONST:
        return r->node;
    case R_BUILTIN:
        if (r->bi == BI_THREADIDX || r->bi == BI_BLOCKIDX || r->bi == BI_BLOCKDIM
            || r->bi == BI_GRIDDIM) {
            Node *n = new_node(f, ND_CALL, loc);
            n->op = r->bi;
            n->axis = r->axis;
            return n;
        }
        fail(f, loc, "'%s' is a function: call it", cj_builtin_names[r->bi]);
    case R_DTYPE: {
        Const c;
        memset(&c, 0, sizeof c);
        c.kind = CK_DTYPE;
        c.dt = r->dt;
        return const_node(f, loc, c);
    }
    case R_DEVFUNC:
    case R_KERNEL:
        fail(f, loc, "a kernel or device function can only be called here, not used as a value");
    case R_NAMESPACE: {
        PyObject *tag = PyObject_GetAttr(r->obj, names[S___cujit_builtin__]);
        if (tag && PyUnicode_Check(tag)) {
            const char *t = utf8(f, tag);
            Py_DECREF(tag);
            fail(f, loc, "jit.%s is not a value: use jit.%s.x, jit.%s.y or jit.%s.z", t, t, t, t);
        }
        Py_XDECREF(tag);
        PyErr_Clear();
        fail(f, loc, "module or namespace '%s' cannot be used as a value in a kernel",
             module_name(r->obj) ? module_name(r->obj) : "jit");
    }
    case R_NONE:
    case R_OTHER:
        break;
    }
    fail(f, loc, "global '%s' is %s, which kernels cannot use: only bool, int, float, "
         "complex, NumPy scalars and tuples of these are folded in as constants",
         is(e, A_Name) ? utf8(f, get(f, e, S_id)) : utf8(f, get(f, e, S_attr)),
         describe_object(f, r->obj));
}

static Node *
attribute(Fe *f, PyObject *e, Loc loc)
{
    Resolved r;
    if (resolve(f, e, &r)) {
        return resolved_value(f, &r, e, loc);
    }
    static const struct { const char *name; int kind; } attrs[] = {
        {"shape", AT_SHAPE}, {"size", AT_SIZE}, {"ndim", AT_NDIM}, {"strides", AT_STRIDES},
        {"real", AT_REAL}, {"imag", AT_IMAG}, {"itemsize", AT_DTYPE_ITEMSIZE},
    };
    const char *an = utf8(f, get(f, e, S_attr));
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        if (strcmp(attrs[i].name, an) == 0) {
            Node *n = new_node(f, ND_ATTR, loc);
            n->op = attrs[i].kind;
            n->a = expr(f, get(f, e, S_value));
            return n;
        }
    }
    fail(f, loc, "attribute '%s' is not supported in kernels (arrays have .shape, .size, "
         ".ndim, .strides; numbers have .real, .imag)", an);
}

static Node *
subscript(Fe *f, PyObject *e, Loc loc)
{
    Node *n = new_node(f, ND_INDEX, loc);
    n->a = expr(f, get(f, e, S_value));
    PyObject *sl = get(f, e, S_slice);
    if (is(sl, A_Slice)) {
        fail(f, loc_of(f, sl), "slicing is not supported inside kernels; index single "
             "elements (a[i], a[i, j]) instead");
    }
    if (is(sl, A_Tuple)) {
        PyObject *elts = get(f, sl, S_elts);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(elts); i++) {
            if (is(PyList_GET_ITEM(elts, i), A_Slice)) {
                fail(f, loc_of(f, PyList_GET_ITEM(elts, i)), "slicing is not supported inside "
                     "kernels; index single elements (a[i], a[i, j]) instead");
            }
        }
        n->list = expr_list(f, elts, &n->n);
    } else {
        n->list = cj_alloc(f->cx->arena, sizeof(Node *));
        n->list[0] = expr(f, sl);
        n->n = 1;
    }
    return n;
}

static void
keywords(Fe *f, Node *n, PyObject *kws)
{
    Py_ssize_t nk = PyList_GET_SIZE(kws);
    if (!nk) {
        return;
    }
    n->n2 = (int)nk;
    n->list2 = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)nk);
    n->kwnames = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)nk);
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *kw = PyList_GET_ITEM(kws, i);
        PyObject *name = get(f, kw, S_arg);
        if (name == Py_None) {
            fail(f, loc_of(f, kw), "**kwargs are not supported in kernels");
        }
        n->kwnames[i] = utf8(f, name);
        n->list2[i] = expr(f, get(f, kw, S_value));
    }
}

static Node *
call(Fe *f, PyObject *e, Loc loc)
{
    PyObject *fn = get(f, e, S_func);
    Node *n = new_node(f, ND_CALL, loc);
    Resolved r;
    if (is(fn, A_Attribute) && !resolve(f, fn, &r)) {
        const char *an = utf8(f, get(f, fn, S_attr));
        if (strcmp(an, "conjugate") == 0 || strcmp(an, "conj") == 0) {
            n->op = BI_CONJUGATE;
            n->list = cj_alloc(f->cx->arena, sizeof(Node *));
            n->list[0] = expr(f, get(f, fn, S_value));
            n->n = 1;
            if (PyList_GET_SIZE(get(f, e, S_args)) || PyList_GET_SIZE(get(f, e, S_keywords))) {
                fail(f, loc, "conjugate() takes no arguments");
            }
            return n;
        }
        fail(f, loc, "method '%s' is not supported in kernels", an);
    }
    if (!is(fn, A_Name) && !is(fn, A_Attribute)) {
        fail(f, loc, "only named functions can be called in kernels");
    }
    if (!resolve(f, fn, &r)) {
        fail(f, loc, "'%s' is a local variable, not a function: it cannot be called",
             utf8(f, get(f, fn, S_id)));
    }
    switch (r.kind) {
    case R_BUILTIN:
        if (r.bi == BI_THREADIDX || r.bi == BI_BLOCKIDX || r.bi == BI_BLOCKDIM
            || r.bi == BI_GRIDDIM) {
            fail(f, loc, "%s.%c is a number, not a function: it cannot be called; drop the ()",
                 cj_builtin_names[r.bi], "xyz"[r.axis]);
        }
        n->op = r.bi;
        n->axis = r.axis;
        break;
    case R_DTYPE:
        n->op = BI_CAST;
        n->cval.kind = CK_DTYPE;
        n->cval.dt = r.dt;
        break;
    case R_DEVFUNC:
        n->op = BI_DEVFUNC;
        n->fn = fe_read(f->cx, r.obj, 1, f->fn->boundscheck);
        break;
    case R_KERNEL:
        fail(f, loc, "a kernel cannot call another kernel; decorate the callee with "
             "@jit.rawkernel(device=True) to make it a device function");
    case R_CONST:
    case R_NAMESPACE:
    case R_NONE:
    case R_OTHER:
        if (PyFunction_Check(r.obj)) {
            fail(f, loc, "cannot call plain Python function '%s' from a kernel; decorate it "
                 "with @jit.rawkernel(device=True)", utf8(f, get(f, r.obj, S___name__)));
        }
        fail(f, loc, "cannot call %s in a kernel: only jit builtins, math functions, NumPy "
             "dtype casts and @jit.rawkernel(device=True) functions can be called",
             describe_object(f, r.obj));
    }
    n->list = expr_list(f, get(f, e, S_args), &n->n);
    keywords(f, n, get(f, e, S_keywords));
    return n;
}

static Node *
constant(Fe *f, PyObject *e, Loc loc)
{
    PyObject *v = get(f, e, S_value);
    if (v == Py_Ellipsis || PyBytes_Check(v)) {
        fail(f, loc, "this constant is not supported in kernels");
    }
    Node *c = object_const(f, v, loc);
    if (!c) {
        fail(f, loc, "constant %s is not supported in kernels", describe_object(f, v));
    }
    return c;
}

static Node *
name_expr(Fe *f, PyObject *e, Loc loc)
{
    PyObject *id = get(f, e, S_id);
    if (is_local_name(f, id)) {
        const char *nm = utf8(f, id);
        Var *v = find_var(f, nm);
        if (!v) {
            v = add_var(f, nm, loc, 0);
        }
        Node *n = new_node(f, ND_VAR, loc);
        n->var = v;
        return n;
    }
    Resolved r;
    resolve(f, e, &r);
    return resolved_value(f, &r, e, loc);
}

static Node *
expr(Fe *f, PyObject *e)
{
    Loc loc = loc_of(f, e);
    Node *n;
    if (is(e, A_Name)) {
        return name_expr(f, e, loc);
    }
    if (is(e, A_Constant)) {
        return constant(f, e, loc);
    }
    if (is(e, A_BinOp)) {
        n = new_node(f, ND_BINOP, loc);
        n->op = binop_kind(f, get(f, e, S_op), loc);
        n->a = expr(f, get(f, e, S_left));
        n->b = expr(f, get(f, e, S_right));
        return n;
    }
    if (is(e, A_UnaryOp)) {
        PyObject *op = get(f, e, S_op);
        n = new_node(f, ND_UNARY, loc);
        n->op = is(op, A_USub) ? OP_NEG : is(op, A_UAdd) ? OP_POS : is(op, A_Not) ? OP_NOT
                : OP_INVERT;
        n->a = expr(f, get(f, e, S_operand));
        return n;
    }
    if (is(e, A_BoolOp)) {
        n = new_node(f, ND_BOOLOP, loc);
        n->op = is(get(f, e, S_op), A_And) ? OP_AND : OP_OR;
        n->list = expr_list(f, get(f, e, S_values), &n->n);
        return n;
    }
    if (is(e, A_Compare)) {
        PyObject *ops = get(f, e, S_ops), *cmps = get(f, e, S_comparators);
        Py_ssize_t k = PyList_GET_SIZE(ops);
        n = new_node(f, ND_COMPARE, loc);
        n->n = (int)k + 1;
        n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(k + 1));
        n->ops = cj_alloc(f->cx->arena, sizeof(int) * (size_t)k);
        n->list[0] = expr(f, get(f, e, S_left));
        for (Py_ssize_t i = 0; i < k; i++) {
            n->ops[i] = cmpop_kind(f, PyList_GET_ITEM(ops, i), loc);
            n->list[i + 1] = expr(f, PyList_GET_ITEM(cmps, i));
        }
        return n;
    }
    if (is(e, A_IfExp)) {
        n = new_node(f, ND_IFEXP, loc);
        n->a = expr(f, get(f, e, S_test));
        n->b = expr(f, get(f, e, S_body));
        n->c = expr(f, get(f, e, S_orelse));
        return n;
    }
    if (is(e, A_Call)) {
        return call(f, e, loc);
    }
    if (is(e, A_Attribute)) {
        return attribute(f, e, loc);
    }
    if (is(e, A_Subscript)) {
        return subscript(f, e, loc);
    }
    if (is(e, A_Tuple)) {
        n = new_node(f, ND_TUPLE, loc);
        n->list = expr_list(f, get(f, e, S_elts), &n->n);
        return n;
    }
    if (is(e, A_List)) {
        fail(f, loc, "lists are not supported in kernels; use a tuple, or "
             "jit.local_memory(dtype, n) for a small per-thread array");
    }
    if (is(e, A_Lambda)) {
        fail(f, loc, "lambda is not supported inside kernels; use a "
             "@jit.rawkernel(device=True) function");
    }
    if (is(e, A_NamedExpr)) {
        fail(f, loc, "assignment expressions (:=) are not supported in kernels; assign on "
             "a line of its own");
    }
    if (is(e, A_JoinedStr)) {
        fail(f, loc, "f-strings are not supported in kernels; pass the values to print() "
             "as separate arguments");
    }
    fail(f, loc, "%s expressions are not supported in kernels", Py_TYPE(e)->tp_name);
}

/* ---- statements ---- */

static Node **stmts(Fe *f, PyObject *list, int *n);

static Node *
target(Fe *f, PyObject *t)
{
    Loc loc = loc_of(f, t);
    if (is(t, A_Name)) {
        return name_expr(f, t, loc);
    }
    if (is(t, A_Subscript)) {
        return subscript(f, t, loc);
    }
    if (is(t, A_Tuple) || is(t, A_List)) {
        Node *n = new_node(f, ND_TUPLE, loc);
        PyObject *elts = get(f, t, S_elts);
        n->n = (int)PyList_GET_SIZE(elts);
        n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(n->n + 1));
        for (int i = 0; i < n->n; i++) {
            PyObject *el = PyList_GET_ITEM(elts, i);
            if (is(el, A_Starred)) {
                fail(f, loc_of(f, el), "starred assignment targets are not supported in kernels");
            }
            n->list[i] = target(f, el);
        }
        return n;
    }
    if (is(t, A_Attribute)) {
        fail(f, loc, "cannot assign to an attribute in a kernel");
    }
    fail(f, loc, "cannot assign to this expression in a kernel");
}

static Node *
for_stmt(Fe *f, PyObject *s, Loc loc)
{
    if (PyList_GET_SIZE(get(f, s, S_orelse))) {
        fail(f, loc, "for ... else is not supported in kernels");
    }
    PyObject *it = get(f, s, S_iter);
    Resolved r;
    int ok = is(it, A_Call) && resolve(f, get(f, it, S_func), &r) && r.kind == R_BUILTIN
             && r.bi == BI_RANGE;
    if (!ok) {
        fail(f, loc_of(f, it), "for loops in kernels must iterate over range(...)");
    }
    PyObject *tg = get(f, s, S_target);
    if (!is(tg, A_Name)) {
        fail(f, loc_of(f, tg), "the target of a for loop must be a single variable");
    }
    Node *n = new_node(f, ND_FOR, loc);
    Node *t = name_expr(f, tg, loc_of(f, tg));
    n->var = t->var;
    int na;
    Node **args = expr_list(f, get(f, it, S_args), &na);
    if (PyList_GET_SIZE(get(f, it, S_keywords))) {
        fail(f, loc_of(f, it), "range() takes no keyword arguments");
    }
    if (na < 1 || na > 3) {
        fail(f, loc_of(f, it), "range() expects 1 to 3 arguments, got %d", na);
    }
    n->a = na == 1 ? NULL : args[0];
    n->b = na == 1 ? args[0] : args[1];
    n->c = na == 3 ? args[2] : NULL;
    f->loop_depth++;
    n->list = stmts(f, get(f, s, S_body), &n->n);
    f->loop_depth--;
    return n;
}

static Node *
stmt(Fe *f, PyObject *s)
{
    Loc loc = loc_of(f, s);
    Node *n;
    if (is(s, A_Assign)) {
        n = new_node(f, ND_ASSIGN, loc);
        n->a = expr(f, get(f, s, S_value));
        PyObject *tl = get(f, s, S_targets);
        n->n = (int)PyList_GET_SIZE(tl);
        n->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)n->n);
        for (int i = 0; i < n->n; i++) {
            n->list[i] = target(f, PyList_GET_ITEM(tl, i));
        }
        return n;
    }
    if (is(s, A_AugAssign)) {
        n = new_node(f, ND_AUGASSIGN, loc);
        n->op = binop_kind(f, get(f, s, S_op), loc);
        n->b = expr(f, get(f, s, S_value));
        PyObject *t = get(f, s, S_target);
        if (!is(t, A_Name) && !is(t, A_Subscript)) {
            fail(f, loc_of(f, t), "augmented assignment needs a variable or an array element");
        }
        n->a = target(f, t);
        return n;
    }
    if (is(s, A_AnnAssign)) {
        PyObject *v = get(f, s, S_value);
        if (v == Py_None) {
            fail(f, loc, "a bare annotation declares nothing in a kernel; assign a value");
        }
        n = new_node(f, ND_ASSIGN, loc);
        n->a = expr(f, v);
        n->n = 1;
        n->list = cj_alloc(f->cx->arena, sizeof(Node *));
        n->list[0] = target(f, get(f, s, S_target));
        return n;
    }
    if (is(s, A_If)) {
        n = new_node(f, ND_IF, loc);
        n->a = expr(f, get(f, s, S_test));
        n->list = stmts(f, get(f, s, S_body), &n->n);
        n->list2 = stmts(f, get(f, s, S_orelse), &n->n2);
        return n;
    }
    if (is(s, A_While)) {
        if (PyList_GET_SIZE(get(f, s, S_orelse))) {
            fail(f, loc, "while ... else is not supported in kernels");
        }
        n = new_node(f, ND_WHILE, loc);
        n->a = expr(f, get(f, s, S_test));
        f->loop_depth++;
        n->list = stmts(f, get(f, s, S_body), &n->n);
        f->loop_depth--;
        return n;
    }
    if (is(s, A_For)) {
        return for_stmt(f, s, loc);
    }
    if (is(s, A_Expr)) {
        PyObject *v = get(f, s, S_value);
        if (is(v, A_Constant)) {
            PyObject *c = get(f, v, S_value);
            if (PyUnicode_Check(c) || c == Py_Ellipsis) {
                return new_node(f, ND_PASS, loc);      /* docstring or ... */
            }
        }
        n = new_node(f, ND_EXPR, loc);
        n->a = expr(f, v);
        return n;
    }
    if (is(s, A_Return)) {
        n = new_node(f, ND_RETURN, loc);
        PyObject *v = get(f, s, S_value);
        n->a = v == Py_None ? NULL : expr(f, v);
        return n;
    }
    if (is(s, A_Pass)) {
        return new_node(f, ND_PASS, loc);
    }
    if (is(s, A_Break) || is(s, A_Continue)) {
        return new_node(f, is(s, A_Break) ? ND_BREAK : ND_CONTINUE, loc);
    }
    if (is(s, A_Assert)) {
        n = new_node(f, ND_ASSERT, loc);
        n->a = expr(f, get(f, s, S_test));
        PyObject *m = get(f, s, S_msg);
        if (m != Py_None) {
            PyObject *mv = is(m, A_Constant) ? get(f, m, S_value) : NULL;
            if (!mv || !PyUnicode_Check(mv)) {
                fail(f, loc_of(f, m), "an assert message in a kernel must be a string literal");
            }
            n->str = utf8(f, mv);
        }
        return n;
    }
    const char *what = Py_TYPE(s)->tp_name;
    const char *hint = "";
    if (strcmp(what, "FunctionDef") == 0 || strcmp(what, "AsyncFunctionDef") == 0) {
        hint = "; define it at module level with @jit.rawkernel(device=True)";
    } else if (strcmp(what, "Import") == 0 || strcmp(what, "ImportFrom") == 0) {
        hint = "; import at module level";
    } else if (strcmp(what, "Global") == 0 || strcmp(what, "Nonlocal") == 0) {
        hint = "; kernels read globals as constants and write only to arrays";
    } else if (strcmp(what, "Try") == 0 || strcmp(what, "Raise") == 0) {
        hint = "; use assert to check conditions";
    }
    fail(f, loc, "'%s' statements are not supported in kernels%s", what, hint);
}

static Node **
stmts(Fe *f, PyObject *list, int *n)
{
    Py_ssize_t len = PyList_GET_SIZE(list);
    Node **out = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(len + 1));
    for (Py_ssize_t i = 0; i < len; i++) {
        out[i] = stmt(f, PyList_GET_ITEM(list, i));
    }
    *n = (int)len;
    return out;
}

/* ---- names bound in the function (Python's rule for locals) ---- */

static void bound_names(Fe *f, PyObject *list);

static void
bind_target(Fe *f, PyObject *t)
{
    if (is(t, A_Name)) {
        if (PySet_Add(f->locals, get(f, t, S_id)) < 0) {
            fail_py(f, loc_of(f, t), "cujit");
        }
    } else if (is(t, A_Tuple) || is(t, A_List)) {
        PyObject *elts = get(f, t, S_elts);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(elts); i++) {
            bind_target(f, PyList_GET_ITEM(elts, i));
        }
    }
}

static void
bound_names(Fe *f, PyObject *list)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        if (is(s, A_Assign)) {
            PyObject *tl = get(f, s, S_targets);
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(tl); j++) {
                bind_target(f, PyList_GET_ITEM(tl, j));
            }
        } else if (is(s, A_AugAssign) || is(s, A_AnnAssign) || is(s, A_For)) {
            bind_target(f, get(f, s, S_target));
        }
        if (is(s, A_If) || is(s, A_While) || is(s, A_For)) {
            bound_names(f, get(f, s, S_body));
            bound_names(f, get(f, s, S_orelse));
        }
    }
}

/* ---- source ---- */

static int
indent_of(const char *s)
{
    int k = 0;
    while (s[k] == ' ' || s[k] == '\t') {
        k++;
    }
    return k;
}

/* Bracket depth change over one line, skipping strings and comments. */
static int
bracket_delta(const char *s)
{
    int d = 0;
    char q = 0;
    for (; *s; s++) {
        if (q) {
            if (*s == '\\' && s[1]) {
                s++;
            } else if (*s == q) {
                q = 0;
            }
        } else if (*s == '#') {
            break;
        } else if (*s == '\'' || *s == '"') {
            q = *s;
        } else if (*s == '(' || *s == '[' || *s == '{') {
            d++;
        } else if (*s == ')' || *s == ']' || *s == '}') {
            d--;
        }
    }
    return d;
}

static int
blank_or_comment(const char *s)
{
    s += indent_of(s);
    return *s == '\0' || *s == '\n' || *s == '\r' || *s == '#';
}

/* The function's block (decorators, def and body) cut from the file's lines
 * and dedented, as Python source; sets f->line0 and f->dedent. */
static const char *
function_source(Fe *f, PyObject *lines, int first)
{
    Py_ssize_t nl = PyList_GET_SIZE(lines);
    Buf b;
    buf_init(&b);
    const char *l0 = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, first));
    int k = l0 ? indent_of(l0) : 0;
    int depth = 0, seen_def = 0;
    for (Py_ssize_t i = first; i < nl; i++) {
        const char *l = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, i));
        if (!l) {
            PyErr_Clear();
            break;
        }
        if (i > first && depth == 0 && seen_def && !blank_or_comment(l) && indent_of(l) <= k) {
            break;
        }
        const char *t = l + indent_of(l);
        if (depth == 0 && (strncmp(t, "def ", 4) == 0 || strncmp(t, "async def ", 10) == 0)) {
            seen_def = 1;
        }
        depth += bracket_delta(l);
        if (depth < 0) {
            depth = 0;
        }
        buf_puts(&b, indent_of(l) >= k ? l + k : t);
        if (b.len == 0 || b.s[b.len - 1] != '\n') {
            buf_putc(&b, '\n');
        }
    }
    f->line0 = first;
    f->dedent = k;
    char *s = cj_strdup(f->cx->arena, b.s ? b.s : "");
    buf_free(&b);
    return s;
}

static PyObject *
parse_source(Fe *f, const char *src, PyObject *filename)
{
    PyCompilerFlags flags = _PyCompilerFlags_INIT;
    flags.cf_flags = PyCF_ONLY_AST;
    PyObject *mod = Py_CompileStringObject(src, filename, Py_file_input, &flags, -1);
    if (!mod) {
        Loc l = {f->line0 + 1, 0, 0};
        fail_py(f, l, "cujit could not parse the function's source");
    }
    keep(f, mod);
    PyObject *body = get(f, mod, S_body);
    if (PyList_GET_SIZE(body) >= 1 && is(PyList_GET_ITEM(body, 0), A_AsyncFunctionDef)) {
        fail(f, loc_of(f, PyList_GET_ITEM(body, 0)), "async functions are not supported as kernels; "
             "use a plain def");
    }
    if (PyList_GET_SIZE(body) < 1 || (!is(PyList_GET_ITEM(body, 0), A_FunctionDef))) {
        Loc l = {f->line0 + 1, 0, 0};
        fail(f, l, "cujit could not find the function's definition in its source");
    }
    return PyList_GET_ITEM(body, 0);
}

static void
read_closure(Fe *f, PyObject *pyfunc, PyObject *code)
{
    PyObject *cl = PyObject_GetAttr(pyfunc, names[S___closure__]);
    keep(f, cl);
    if (!cl || cl == Py_None) {
        PyErr_Clear();
        return;
    }
    PyObject *fv = get(f, code, S_co_freevars);
    f->closure = keep(f, PyDict_New());
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

static void
read_params(Fe *f, PyObject *def)
{
    PyObject *args = get(f, def, S_args);
    Loc loc = loc_of(f, def);
    if (PyList_GET_SIZE(get(f, args, S_kwonlyargs)) || get(f, args, S_vararg) != Py_None
        || get(f, args, S_kwarg) != Py_None) {
        fail(f, loc, "kernels take positional parameters only (no *args, **kwargs or "
             "keyword-only parameters)");
    }
    if (PyList_GET_SIZE(get(f, args, S_defaults))) {
        fail(f, loc, "default parameter values are not supported in kernels");
    }
    PyObject *lists[2] = {get(f, args, S_posonlyargs), get(f, args, S_args)};
    for (int k = 0; k < 2; k++) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++) {
            PyObject *a = PyList_GET_ITEM(lists[k], i);
            PyObject *nm = get(f, a, S_arg);
            PySet_Add(f->locals, nm);
            add_var(f, utf8(f, nm), loc_of(f, a), 1);
        }
    }
}

/* Finds the function's lines through linecache (what inspect does, without
 * tokenizing the whole file). */
static PyObject *
source_lines(Fe *f, PyObject *code, PyObject *filename, int *first)
{
    PyObject *lines = PyObject_CallFunctionObjArgs(linecache_getlines, filename,
                                                   f->globals, NULL);
    Loc none = {0, 0, 0};
    if (!lines) {
        fail_py(f, none, "cujit could not read the kernel's source");
    }
    keep(f, lines);
    *first = get_int(f, code, S_co_firstlineno) - 1;
    if (!PyList_Check(lines) || *first < 0 || *first >= PyList_GET_SIZE(lines)) {
        fail(f, none, "cujit could not find the source of function '%s' in '%s': kernels "
             "must be defined in a file (not typed at an interactive prompt or built with "
             "exec)", f->fn->name, f->file);
    }
    return lines;
}

/* Lines [from, from + n) dedented by the first one's indentation. */
static const char *
chunk(Fe *f, PyObject *lines, int from, int n)
{
    Buf b;
    buf_init(&b);
    const char *l0 = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, from));
    int k = l0 ? indent_of(l0) : 0;
    for (int i = from; i < from + n && i < PyList_GET_SIZE(lines); i++) {
        const char *l = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, i));
        if (!l) {
            PyErr_Clear();
            break;
        }
        buf_puts(&b, indent_of(l) >= k ? l + k : l + indent_of(l));
        if (b.len == 0 || b.s[b.len - 1] != '\n') {
            buf_putc(&b, '\n');
        }
    }
    f->line0 = from;
    f->dedent = k;
    char *r = cj_strdup(f->cx->arena, b.s ? b.s : "");
    buf_free(&b);
    return r;
}

/* does this Lambda node take the code object's parameters? */
static int
lambda_matches(Fe *f, PyObject *lam, PyObject *code)
{
    PyObject *args = get(f, get(f, lam, S_args), S_args);
    PyObject *varnames = get(f, code, S_co_varnames);
    int argc = get_int(f, code, S_co_argcount);
    if (PyList_GET_SIZE(args) != argc || PyTuple_GET_SIZE(varnames) < argc) {
        return 0;
    }
    for (int i = 0; i < argc; i++) {
        int eq = PyObject_RichCompareBool(get(f, PyList_GET_ITEM(args, i), S_arg),
                                          PyTuple_GET_ITEM(varnames, i), Py_EQ);
        if (eq != 1) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* Several lambdas with these parameters on one line: the one whose compiled
 * code is the function's. */
static int
same_code(Fe *f, PyObject *lam, PyObject *code, PyObject *filename)
{
    int same = 0;
    PyObject *astmod = PyImport_ImportModule("ast");
    PyObject *ex = astmod ? PyObject_CallMethod(astmod, "Expression", "O", lam) : NULL;
    PyObject *fixed = ex ? PyObject_CallMethod(astmod, "fix_missing_locations", "O", ex) : NULL;
    PyObject *builtins = PyImport_ImportModule("builtins");
    PyObject *c = fixed && builtins ? PyObject_CallMethod(builtins, "compile", "OOs", fixed,
                                                         filename, "eval") : NULL;
    PyObject *consts = c ? PyObject_GetAttrString(c, "co_consts") : NULL;
    if (consts && PyTuple_Check(consts)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts) && !same; i++) {
            PyObject *k = PyTuple_GET_ITEM(consts, i);
            if (!PyCode_Check(k)) {
                continue;
            }
            PyObject *a = PyObject_GetAttrString(k, "co_code");
            PyObject *b = PyObject_GetAttrString(code, "co_code");
            PyObject *na = PyObject_GetAttrString(k, "co_names");
            PyObject *nb = PyObject_GetAttrString(code, "co_names");
            PyObject *ka = PyObject_GetAttrString(k, "co_consts");
            PyObject *kb = PyObject_GetAttrString(code, "co_consts");
            same = a && b && na && nb && ka && kb
                   && PyObject_RichCompareBool(a, b, Py_EQ) == 1
                   && PyObject_RichCompareBool(na, nb, Py_EQ) == 1
                   && PyObject_RichCompareBool(ka, kb, Py_EQ) == 1;
            Py_XDECREF(a);
            Py_XDECREF(b);
            Py_XDECREF(na);
            Py_XDECREF(nb);
            Py_XDECREF(ka);
            Py_XDECREF(kb);
        }
    }
    Py_XDECREF(consts);
    Py_XDECREF(c);
    Py_XDECREF(builtins);
    Py_XDECREF(fixed);
    Py_XDECREF(ex);
    Py_XDECREF(astmod);
    PyErr_Clear();
    (void)f;
    return same;
}

/* The Lambda node of a lambda function: the smallest run of lines around
 * its first line that parses, searched for a lambda with its parameters. */
static PyObject *
find_lambda(Fe *f, PyObject *lines, int first, PyObject *code, PyObject *filename)
{
    PyCompilerFlags flags = _PyCompilerFlags_INIT;
    flags.cf_flags = PyCF_ONLY_AST;
    for (int back = 0; back <= 10 && first - back >= 0; back++) {
        for (int n = back + 1; n <= back + 40 && first - back + n <= PyList_GET_SIZE(lines); n++) {
            const char *src = chunk(f, lines, first - back, n);
            PyObject *mod = Py_CompileStringObject(src, filename, Py_file_input, &flags, -1);
            if (!mod) {
                PyErr_Clear();
                continue;
            }
            keep(f, mod);
            PyObject *it = PyObject_CallOneArg(ast_walk, mod);
            PyObject *list = it ? PySequence_List(it) : NULL;
            Py_XDECREF(it);
            if (!list) {
                Loc l = {first + 1, 0, 0};
                fail_py(f, l, "cujit could not read the lambda's source");
            }
            keep(f, list);
            PyObject *found = NULL;
            int nfound = 0;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
                PyObject *node = PyList_GET_ITEM(list, i);
                if (is(node, A_Lambda) && lambda_matches(f, node, code)) {
                    nfound++;
                    if (!found || same_code(f, node, code, filename)) {
                        found = node;
                    }
                }
            }
            if (found) {
                f->fn->src_hash = cj_hash64(src, strlen(src), 0);
                return found;
            }
            break;      /* it parsed but holds no such lambda: look further back */
        }
    }
    Loc l = {first + 1, 0, 0};
    fail(f, l, "cujit could not find the source of this lambda; define the function with def");
}

/* a lambda's body as `return <expression>` */
static void
lambda_body(Fe *f, PyObject *lam)
{
    Func *fn = f->fn;
    Node *r = new_node(f, ND_RETURN, loc_of(f, lam));
    r->a = expr(f, get(f, lam, S_body));
    fn->body = cj_alloc(f->cx->arena, sizeof(Node *));
    fn->body[0] = r;
    fn->nbody = 1;
}

Func *
fe_read(FeCtx *cx, PyObject *pyfunc, int is_device, int boundscheck)
{
    for (int i = 0; i < cx->nseen; i++) {
        if (cx->seen[i].pyfunc == pyfunc) {
            return cx->seen[i].fn;
        }
    }
    Fe fs, *f = &fs;
    memset(f, 0, sizeof fs);
    f->cx = cx;
    Loc none = {0, 0, 0};
    if (fe_init() < 0) {
        fail_py(f, none, "cujit could not start its frontend");
    }
    if (!PyFunction_Check(pyfunc)) {
        fail(f, none, "cujit compiles Python functions; got %s", describe_object(f, pyfunc));
    }
    Func *fn = cj_alloc(cx->arena, sizeof(Func));
    f->fn = fn;
    fn->is_device = is_device;
    fn->boundscheck = boundscheck;
    PyObject *code = PyFunction_GET_CODE(pyfunc);
    fn->name = utf8(f, get(f, pyfunc, S___name__));
    PyObject *filename = get(f, code, S_co_filename);
    f->file = fn->file = utf8(f, filename);
    f->globals = PyFunction_GET_GLOBALS(pyfunc);
    if (cx->nseen == cx->capseen) {
        int cap = cx->capseen ? cx->capseen * 2 : 8;
        FeSeen *ns = cj_alloc(cx->arena, sizeof(FeSeen) * (size_t)cap);
        if (cx->nseen) {
            memcpy(ns, cx->seen, sizeof(FeSeen) * (size_t)cx->nseen);
        }
        cx->seen = ns;
        cx->capseen = cap;
    }
    cx->seen[cx->nseen].pyfunc = pyfunc;
    cx->seen[cx->nseen++].fn = fn;
    read_closure(f, pyfunc, code);
    int first;
    PyObject *lines = source_lines(f, code, filename, &first);
    f->locals = keep(f, PySet_New(NULL));
    if (strcmp(fn->name, "<lambda>") == 0) {
        PyObject *lam = find_lambda(f, lines, first, code, filename);
        fn->name = cj_aprintf(cx->arena, "lambda%d", first + 1);
        fn->loc = loc_of(f, lam);
        read_params(f, lam);
        fn->nparams = f->nvars;
        lambda_body(f, lam);
    } else {
        const char *src = function_source(f, lines, first);
        fn->src_hash = cj_hash64(src, strlen(src), 0);
        PyObject *def = parse_source(f, src, filename);
        fn->loc = loc_of(f, def);
        read_params(f, def);
        fn->nparams = f->nvars;
        PyObject *body = get(f, def, S_body);
        bound_names(f, body);
        fn->body = stmts(f, body, &fn->nbody);
    }
    fn->vars = f->vars;
    fn->nvars = f->nvars;
    fn->nnodes = f->nnodes;
    return fn;
}

int
fe_source_line(const char *file, int line, char *out, size_t n)
{
    out[0] = '\0';
    if (fe_init() < 0) {
        PyErr_Clear();
        return -1;
    }
    PyObject *lines = PyObject_CallFunction(linecache_getlines, "s", file);
    if (!lines) {
        PyErr_Clear();
        return -1;
    }
    int ok = PyList_Check(lines) && line >= 1 && line <= PyList_GET_SIZE(lines);
    if (ok) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, line - 1));
        if (s) {
            snprintf(out, n, "%s", s);
        } else {
            PyErr_Clear();
        }
    }
    Py_DECREF(lines);
    return ok ? 0 : -1;
}
