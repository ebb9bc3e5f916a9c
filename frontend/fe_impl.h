/* fe_impl.h - the frontend's internal declarations, shared by its files:
 * the cached ast classes and attribute names, the per-function state and
 * the helpers each file gives the others.  Not for use outside frontend/. */
#ifndef FE_IMPL_H
#define FE_IMPL_H

#include "fe.h"

/* ---- cached ast classes and attribute names ---- */

#define AST_CLASSES(X) \
    X(Module) X(FunctionDef) X(AsyncFunctionDef) X(Return) X(Assign) X(AugAssign) \
    X(AnnAssign) X(For) X(While) X(If) X(Expr) X(Pass) X(Break) X(Continue) \
    X(Assert) X(BoolOp) X(BinOp) X(UnaryOp) X(IfExp) X(Compare) X(Call) \
    X(Constant) X(Attribute) X(Subscript) X(Name) X(Tuple) X(List) X(Slice) \
    X(Starred) X(And) X(Or) X(Add) X(Sub) X(Mult) X(Div) X(FloorDiv) X(Mod) \
    X(Pow) X(LShift) X(RShift) X(BitOr) X(BitXor) X(BitAnd) X(MatMult) \
    X(Invert) X(Not) X(UAdd) X(USub) X(Eq) X(NotEq) X(Lt) X(LtE) X(Gt) X(GtE) \
    X(Is) X(IsNot) X(In) X(NotIn) X(Lambda) X(NamedExpr) X(JoinedStr) X(Expression) \
    X(Raise) X(Load) X(arg) X(Nonlocal)

enum {
#define AST_ENUM(n) A_##n,
    AST_CLASSES(AST_ENUM)
#undef AST_ENUM
    A_COUNT
};

#define ATTR_NAMES(X) \
    X(body) X(args) X(posonlyargs) X(kwonlyargs) X(vararg) X(kwarg) X(arg) \
    X(defaults) X(kw_defaults) X(decorator_list) X(targets) X(target) X(value) \
    X(op) X(left) X(right) X(operand) X(test) X(orelse) X(iter) X(comparators) \
    X(ops) X(values) X(func) X(keywords) X(attr) X(slice) X(elts) X(id) X(msg) \
    X(lineno) X(col_offset) X(end_col_offset) X(end_lineno) X(name) \
    X(co_filename) X(co_firstlineno) X(co_freevars) X(__code__) X(__globals__) \
    X(__closure__) X(cell_contents) X(__cujit_builtin__) X(__cujit_dtype__) X(__cujit_signatures__) \
    X(__cujit_unsupported__) X(__module__) \
    X(__name__) X(dtype) X(item) X(getlines) X(returns) X(type_comment) X(co_varnames) \
    X(co_argcount) X(walk) X(lower) X(upper) X(step) X(exc) X(cause) X(ctx) X(names)

enum {
#define ATTR_ENUM(n) S_##n,
    ATTR_NAMES(ATTR_ENUM)
#undef ATTR_ENUM
    S_COUNT
};

/* Set by fe_init (ast.c) once per process and kept. */
extern PyTypeObject *fe_ast_types[A_COUNT];     /* ast.Name, ... by A_ kind */
extern PyObject *fe_names[S_COUNT];             /* interned attribute names */
extern PyObject *fe_builtins_dict;              /* builtins.__dict__ */
extern PyObject *fe_linecache_getlines;         /* linecache.getlines */
extern PyObject *fe_ast_walk;                   /* ast.walk */

/* ---- per-function state ---- */

typedef struct {
    FeCtx *cx;
    Func *fn;
    const char *file;
    PyObject *globals;
    PyObject *closure;      /* dict name -> value of free variables */
    PyObject *captures;     /* a function defined in a kernel: the names it reads from
                             * the function around it, extra parameters (inner.c) */
    PyObject *refs;         /* those of them it rebinds (nonlocal): by reference */
    PyObject *locals;       /* set of names bound in the function */
    PyObject *aliases;      /* dict: local name -> cupyx collective class bound to it */
    int line0;              /* add to AST line numbers */
    int dedent;             /* add to AST columns */
    Var **vars;
    int nvars, capvars;
    int nnodes;
    PyObject *bound;        /* set of the parameters bound to compile-time objects */
    const char *vararg;     /* the name of the function's *args, or NULL */
    int nvararg;            /* ... and how many values the call gave it */
    PyObject *body;         /* the def's statements (inner.c looks for constants there) */
    int out_kw;             /* fused: the call being read may take out= (a statement) */
    Node *out_target;       /* ... and this is what its out= named */
    PyObject *text_lines;   /* the lines when no file holds them (srcstore.c), else NULL */
} Fe;

/* A resolved non-local: a builtin, a constant, a device function, a
 * namespace (module) or something unusable. */
typedef enum {
    R_NONE, R_BUILTIN, R_CONST, R_DEVFUNC, R_KERNEL, R_NAMESPACE, R_DTYPE, R_COLLECTIVE,
    R_OTHER,
    R_FUSE_REDUCE,      /* fused functions: np.sum and friends (Resolved.bi: RedOp) */
    R_OPERATOR,         /* operator.add and friends, builtin pow (Resolved.bi: fe_operator) */
    R_OVERLOAD          /* a function with @overload implementations (overload.c) */
} RKind;

/* an operator module function: the node it makes (ND_BINOP, ND_UNARY,
 * ND_COMPARE) and its OP_* */
typedef struct {
    const char *name;
    int kind, op;
} FeOperator;

const FeOperator *fe_operator(int i);

/* variants of a builtin's spelling (Resolved.axis of a builtin that is not
 * threadIdx and friends): Numba's (shape, dtype) order of cuda.shared.array
 * and cuda.local.array, cuda.compare_and_swap on element 0, cuda.laneid
 * read as a value */
enum { FE_V_NUMBA_ALLOC = 1, FE_V_FIRST_ELEMENT, FE_V_VALUE };
/* Numba's cache hints (cuda.ldcg ...): FE_V_HINT + k gives the call Node.axis k */
enum { FE_V_HINT = 8 };

typedef struct {
    RKind kind;
    int bi, axis;
    PyObject *obj;          /* borrowed from cx->keep */
    PyObject *value;        /* the object the name gave (obj is a kernel's Python
                             * function for R_DEVFUNC / R_KERNEL) */
    Node *node;             /* R_CONST */
    DType dt;               /* R_DTYPE */
    PyObject *sigs;         /* R_DEVFUNC: its declared signatures, a tuple of str
                             * (cuda.jit(sig, device=True)), or NULL; kept in cx->keep */
} Resolved;

/* ast.c: fe_get, fe_fail and the rest longjmp through cx->try_ on an error */
int fe_init(void);
PyObject *fe_keep(Fe *f, PyObject *o);
CJ_NORETURN void fe_fail(Fe *f, Loc loc, const char *fmt, ...) CJ_PRINTF(3, 4);
CJ_NORETURN void fe_fail_kind(Fe *f, Loc loc, CjErrKind kind, const char *fmt, ...)
    CJ_PRINTF(4, 5);
CJ_NORETURN void fe_fail_py_kind(Fe *f, Loc loc, CjErrKind kind, const char *what);
CJ_NORETURN void fe_fail_py(Fe *f, Loc loc, const char *what);
PyObject *fe_get(Fe *f, PyObject *o, int name);
int fe_is(PyObject *o, int cls);
int fe_get_int(Fe *f, PyObject *o, int name);
Loc fe_loc_of(Fe *f, PyObject *node);
Node *fe_new_node(Fe *f, NodeKind k, Loc loc);
const char *fe_utf8(Fe *f, PyObject *s);
Var *fe_find_var(Fe *f, const char *name);
Var *fe_add_var(Fe *f, const char *name, Loc loc, int is_param);

/* frontend.c */
Func *fe_read_call(FeCtx *cx, PyObject *pyfunc, int boundscheck, const FeOffers *offers);
const char *fe_unique_name(FeCtx *cx, const char *name);

/* raise.c */
Node *fe_raise_stmt(Fe *f, PyObject *s, Loc loc);

/* consts.c */
Node *fe_const_node(Fe *f, Loc loc, Const c);
int fe_dtype_of_object(Fe *f, PyObject *obj, DType *dt);
void fe_check_record_dtype(Fe *f, PyObject *obj, Loc loc);
Node *fe_object_const(Fe *f, PyObject *obj, Loc loc);
const char **fe_namedtuple_fields(Fe *f, PyObject *cls, int *n);
/* enums.c: Enum members as constants tagged with their class */
int fe_is_enum_class(PyObject *obj);
Node *fe_enum_const(Fe *f, PyObject *obj, Loc loc);
/* a device array of any library (__cuda_array_interface__) read as a global:
 * a CK_DEVARRAY constant, obj kept in cx->captured; NULL if obj is none */
Node *fe_device_array_const(Fe *f, PyObject *obj, Loc loc);

/* names.c (also fe_set_kernel_function, from fe.h) */
const char *fe_module_name(PyObject *obj);
int fe_is_local_name(Fe *f, PyObject *name);
PyObject *fe_constant_local(Fe *f, PyObject *name);
const char *fe_describe_object(Fe *f, PyObject *obj);
int fe_resolve(Fe *f, PyObject *e, Resolved *out);
int fe_enum_item(Fe *f, PyObject *e, Resolved *out, Loc loc);
Resolved fe_classify(Fe *f, PyObject *obj, Loc loc);
void fe_declare_signatures(Fe *f, Func *fn, PyObject *sigs, Loc loc);
PyObject *fe_compile_time_call(Fe *f, PyObject *e, Loc loc);
void fe_bound_names(Fe *f, PyObject *list);
void fe_read_closure(Fe *f, PyObject *pyfunc, PyObject *code);
int fe_fused(Fe *f);
int fe_fuse_method_red(const char *name);

/* expr.c */
Node *fe_expr(Fe *f, PyObject *e);
Node **fe_expr_list(Fe *f, PyObject *list, int *n);
int fe_binop_kind(Fe *f, PyObject *op, Loc loc);
Node *fe_name_expr(Fe *f, PyObject *e, Loc loc);
Node *fe_subscript(Fe *f, PyObject *e, Loc loc);
Node *fe_resolved_value(Fe *f, Resolved *r, PyObject *e, Loc loc);

/* devcall.c */
Node **fe_call_args(Fe *f, PyObject *list, int *n);
Node *fe_devfunc_call(Fe *f, PyObject *e, Node *n, PyObject *pyfunc, PyObject *sigs,
                      PyObject *kws, Loc loc);
FeOffers *fe_call_offers(Fe *f, PyObject *e, PyObject *first, PyObject *kws,
                         Node ***pos_nodes, Node ***kw_nodes);

/* overload.c: @overload's functions, numba's dispatchers */
int fe_overloaded(Fe *f, PyObject *obj, Resolved *r);
/* extern.c: declared foreign functions (cuda.declare_device), ffi.from_buffer */
int fe_extern_classify(PyObject *obj, Resolved *r);
CjExtern *fe_extern_read(Fe *f, PyObject *obj, Loc loc);
int fe_from_buffer_classify(PyObject *obj, Resolved *r);
PyObject *fe_numba_function(Fe *f, PyObject *obj);
Node *fe_overload_call(Fe *f, PyObject *e, Node *n, PyObject *func, PyObject *kws, Loc loc);
Node *fe_method_overload(Fe *f, PyObject *e, PyObject *recv, Node *n, const char *name,
                         Loc loc);
Node *fe_attribute_overload(Fe *f, PyObject *e, const char *name, Loc loc);

/* collective.c */
void fe_collective_builtin(Fe *f, PyObject *e, Node *n, int bi, Loc loc);
void fe_collective_object(Fe *f, PyObject *e, Node *n, PyObject *obj, Loc loc);
int fe_is_collective_class(PyObject *obj);
int fe_collective_alias(Fe *f, PyObject *s);

/* stmt.c */
Node **fe_stmts(Fe *f, PyObject *list, int *n);
Node *fe_target(Fe *f, PyObject *t);

/* inner.c */
Node *fe_inner_def(Fe *f, PyObject *s, Loc loc);
PyObject *fe_inner_closure(Fe *f, PyObject *pyfunc);
int fe_is_inner(Fe *f, PyObject *obj);
PyObject *fe_inner_captures(Fe *f, PyObject *pyfunc, Loc loc);
/* the captures a function defined in a kernel rebinds (nonlocal), or NULL */
PyObject *fe_inner_refs(FeCtx *cx, PyObject *pyfunc);
/* `nonlocal x` in a function defined in a kernel: x is one of its refs */
int fe_nonlocal_ok(Fe *f, PyObject *s);
PyObject *fe_inner_params(FeCtx *cx, PyObject *pyfunc);
int fe_local_stores(Fe *f, PyObject *name);
Node *fe_inner_lambda(Fe *f, PyObject *s, Loc loc);
int fe_is_lambda_def(Fe *f, PyObject *s);

/* npfuncs.c: NumPy's functions and methods, cmath, NumPy arrays as globals */
int fe_np_function(PyObject *obj, Resolved *r);
Node *fe_ufunc_call(Fe *f, PyObject *e, Node *n, int row, Loc loc);
Node *fe_np_call(Fe *f, PyObject *e, Node *n, int row, Loc loc);
void fe_np_unsupported(Fe *f, PyObject *obj, Loc loc);
Node *fe_np_alias_call(Fe *f, PyObject *e, PyObject *obj, Loc loc);
int fe_np_method_name(const char *name);
Node *fe_np_method(Fe *f, PyObject *e, PyObject *fn, Node *n, const char *name, Loc loc);
CjTable *fe_ndarray_table(Fe *f, PyObject *arr, const char *what, Loc loc);
Node *fe_ndarray_const(Fe *f, PyObject *obj, Loc loc);

/* loops.c */
Node *fe_for_items(Fe *f, PyObject *s, Loc loc);
Node *fe_fused_return(Fe *f, Loc loc);

/* inner.c: a def reading a local of its function that is no constant fails */
void fe_check_captures(Fe *f, PyObject *list);
/* Numba's capture error of a function defined in a kernel passed on (inner.c) */
void fe_escape_fail(Fe *f, PyObject *caps, PyObject *fname, Loc loc);

/* webs.c: each local split into a Var per web of its definitions and uses */
void fe_split_webs(Fe *f);

/* srcstore.c: texts compiled from strings */
#define FE_STORE_TEXTS 1024
/* the lines of the stored text that holds `code` (new), or NULL, no error */
PyObject *fe_store_find(PyObject *code);
/* Py_CompileStringObject of text cujit parses itself, which the store skips */
PyObject *fe_compile_quiet(const char *src, PyObject *file, int start, PyCompilerFlags *flags);

/* source.c */
const char *fe_function_source(Fe *f, PyObject *lines, int first);
PyObject *fe_parse_source(Fe *f, const char *src, PyObject *filename);
PyObject *fe_source_lines(Fe *f, PyObject *code, PyObject *filename, int *first);
PyObject *fe_find_lambda(Fe *f, PyObject *lines, int first, PyObject *code, PyObject *filename);

#endif
