/* ast.c - the frontend's access to CPython ast objects: the cached ast
 * classes and attribute names, reading attributes and locations, turning
 * errors into compile errors, and making IR nodes and variables. */
#include <string.h>

#include "fe_impl.h"

static const char *const ast_names[] = {
#define AST_STR(n) #n,
    AST_CLASSES(AST_STR)
#undef AST_STR
};

PyTypeObject *fe_ast_types[A_COUNT];

static const char *const attr_strs[] = {
#define ATTR_STR(n) #n,
    ATTR_NAMES(ATTR_STR)
#undef ATTR_STR
};

PyObject *fe_names[S_COUNT];
PyObject *fe_builtins_dict;
PyObject *fe_linecache_getlines;
PyObject *fe_ast_walk;

/* Looks up the ast classes, interns the attribute names and finds
 * builtins, linecache.getlines and ast.walk, once; 0, or -1 with an error. */
int
fe_init(void)
{
    if (fe_names[0]) {
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
        fe_ast_types[i] = (PyTypeObject *)t;      /* kept for the process */
    }
    Py_DECREF(ast);
    for (int i = 0; i < S_COUNT; i++) {
        fe_names[i] = PyUnicode_InternFromString(attr_strs[i]);
        if (!fe_names[i]) {
            return -1;
        }
    }
    PyObject *b = PyImport_ImportModule("builtins");
    if (!b) {
        return -1;
    }
    fe_builtins_dict = PyModule_GetDict(b);       /* borrowed; module kept */
    PyObject *lc = PyImport_ImportModule("linecache");
    if (!lc) {
        return -1;
    }
    fe_linecache_getlines = PyObject_GetAttrString(lc, "getlines");
    Py_DECREF(lc);
    PyObject *astmod = PyImport_ImportModule("ast");
    if (!astmod) {
        return -1;
    }
    fe_ast_walk = PyObject_GetAttrString(astmod, "walk");
    Py_DECREF(astmod);
    return fe_linecache_getlines && fe_ast_walk ? 0 : -1;
}

/* Steals `o` into cx->keep, which holds it to the end of the compilation,
 * and returns it borrowed; NULL stays NULL. */
PyObject *
fe_keep(Fe *f, PyObject *o)
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

/* fills cx->try_ and longjmps out of fe_read */
CJ_NORETURN static void
fe_vfail(Fe *f, Loc loc, CjErrKind kind, const char *fmt, va_list ap)
{
    CjTry *t = f->cx->try_;
    vsnprintf(t->err.msg, sizeof t->err.msg, fmt, ap);
    va_end(ap);
    t->err.file = f->file;
    t->err.loc = loc;
    t->err.kind = kind;
    t->err.internal = 0;
    longjmp(t->jb, 1);
}

/* A user error at `loc`: fills cx->try_ and longjmps out of fe_read. */
void
fe_fail(Fe *f, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fe_vfail(f, loc, CE_COMPILE, fmt, ap);
}

/* A user error that is also a TypeError, ValueError ... (CjErrKind). */
void
fe_fail_kind(Fe *f, Loc loc, CjErrKind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fe_vfail(f, loc, kind, fmt, ap);
}

/* A Python error inside the frontend becomes a compile error of `kind` at
 * `loc`, its message after "what: " (what NULL: the message alone). */
CJ_NORETURN void
fe_fail_py_kind(Fe *f, Loc loc, CjErrKind kind, const char *what)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    char text[900];
    snprintf(text, sizeof text, "%s", msg ? msg : "an error without a message");
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
    if (what) {
        fe_fail_kind(f, loc, kind, "%s: %s", what, text);
    }
    fe_fail_kind(f, loc, kind, "%s", text);
}

CJ_NORETURN void
fe_fail_py(Fe *f, Loc loc, const char *what)
{
    fe_fail_py_kind(f, loc, CE_COMPILE, what);
}

/* o.<name> (name an S_ index), kept; a missing attribute is an error */
PyObject *
fe_get(Fe *f, PyObject *o, int name)
{
    PyObject *v = PyObject_GetAttr(o, fe_names[name]);
    if (!v) {
        Loc l = {0, 0, 0};
        fe_fail_py(f, l, "cujit could not read the Python AST");
    }
    return fe_keep(f, v);
}

/* is `o` an instance of the ast class `cls` (an A_ index), exactly? */
int
fe_is(PyObject *o, int cls)
{
    return Py_TYPE(o) == fe_ast_types[cls];
}

/* o.<name> as an int; 0 if it is missing or None */
int
fe_get_int(Fe *f, PyObject *o, int name)
{
    PyObject *v = PyObject_GetAttr(o, fe_names[name]);
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

/* An ast node's place in the file (end_col -1 when it spans lines). */
Loc
fe_loc_of(Fe *f, PyObject *node)
{
    Loc l;
    int line = fe_get_int(f, node, S_lineno);
    l.line = line + f->line0;
    l.col = fe_get_int(f, node, S_col_offset) + f->dedent;
    int end_line = fe_get_int(f, node, S_end_lineno);
    l.end_col = end_line == line ? fe_get_int(f, node, S_end_col_offset) + f->dedent : -1;
    return l;
}

Node *
fe_new_node(Fe *f, NodeKind k, Loc loc)
{
    Node *n = cj_alloc(f->cx->arena, sizeof(Node));
    n->kind = k;
    n->loc = loc;
    n->id = f->nnodes++;
    return n;
}

/* a str's text, copied into the arena */
const char *
fe_utf8(Fe *f, PyObject *s)
{
    const char *p = PyUnicode_AsUTF8(s);
    if (!p) {
        Loc l = {0, 0, 0};
        fe_fail_py(f, l, "cujit could not read a name");
    }
    return cj_strdup(f->cx->arena, p);
}

Var *
fe_find_var(Fe *f, const char *name)
{
    for (int i = 0; i < f->nvars; i++) {
        if (strcmp(f->vars[i]->name, name) == 0) {
            return f->vars[i];
        }
    }
    return NULL;
}

/* N = 100, assigned once at the top level: N's value where a constant is
 * needed (cuda.shared.array(N, int32), as Numba types such locals literal) */
static void
konst_of(Fe *f, Var *v)
{
    PyObject *name = fe_keep(f, PyUnicode_FromString(v->name));
    PyObject *c = name ? fe_constant_local(f, name) : NULL;
    if (c && PyLong_Check(c) && !PyBool_Check(c)) {
        int overflow;       /* never an error for an int */
        long long k = PyLong_AsLongLongAndOverflow(c, &overflow);
        v->has_konst = !overflow;
        v->konst = k;
    }
}

/* A new local (or parameter); C++ keywords get a '_' in the C name. */
Var *
fe_add_var(Fe *f, const char *name, Loc loc, int is_param)
{
    Var *v = cj_alloc(f->cx->arena, sizeof(Var));
    v->name = name;
    v->cname = cj_is_cpp_reserved(name) ? cj_aprintf(f->cx->arena, "%s_", name) : name;
    v->id = f->nvars;
    v->is_param = is_param;
    v->loc = loc;
    f->vars = (Var **)cj_vec_push(f->cx->arena, (void **)f->vars, &f->nvars, &f->capvars, v);
    if (!is_param) {
        konst_of(f, v);
    }
    return v;
}
