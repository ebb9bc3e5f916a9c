/* frontend.c - fe_read: reads a decorated function's Python AST (through the
 * CPython C API) once into cujit's IR, with the device functions it calls.
 * The frontend resolves names too (names.c): locals, jit / math / numpy
 * builtins, device functions and global or closure constants, which are
 * folded in.  No PyObject* survives past frontend/. */
#include <string.h>

#include "fe_impl.h"

/* params := [ name { ',' name } [ ',' ] ]   (positional only: no defaults,
 * *args, **kwargs or keyword-only parameters) */
static void
read_params(Fe *f, PyObject *def)
{
    PyObject *args = fe_get(f, def, S_args);
    Loc loc = fe_loc_of(f, def);
    if (PyList_GET_SIZE(fe_get(f, args, S_kwonlyargs)) || fe_get(f, args, S_vararg) != Py_None
        || fe_get(f, args, S_kwarg) != Py_None) {
        fe_fail(f, loc, "kernels take positional parameters only (no *args, **kwargs or "
                "keyword-only parameters)");
    }
    if (PyList_GET_SIZE(fe_get(f, args, S_defaults))) {
        fe_fail(f, loc, "default parameter values are not supported in kernels");
    }
    PyObject *lists[2] = {fe_get(f, args, S_posonlyargs), fe_get(f, args, S_args)};
    for (int k = 0; k < 2; k++) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++) {
            PyObject *a = PyList_GET_ITEM(lists[k], i);
            PyObject *nm = fe_get(f, a, S_arg);
            PySet_Add(f->locals, nm);
            fe_add_var(f, fe_utf8(f, nm), fe_loc_of(f, a), 1);
        }
    }
}

/* a lambda's body as `return <expression>` (`lambda: None` as a bare
 * return, as `return None` in a def) */
static void
lambda_body(Fe *f, PyObject *lam)
{
    Func *fn = f->fn;
    Node *r = fe_new_node(f, ND_RETURN, fe_loc_of(f, lam));
    PyObject *body = fe_get(f, lam, S_body);
    int none = fe_is(body, A_Constant) && fe_get(f, body, S_value) == Py_None;
    r->a = none ? NULL : fe_expr(f, body);
    fn->body = cj_alloc(f->cx->arena, sizeof(Node *));
    fn->body[0] = r;
    fn->nbody = 1;
}

/* the IR already read for `pyfunc` in this compilation, or NULL */
static Func *
seen_find(FeCtx *cx, PyObject *pyfunc)
{
    for (int i = 0; i < cx->nseen; i++) {
        if (cx->seen[i].pyfunc == pyfunc) {
            return cx->seen[i].fn;
        }
    }
    return NULL;
}

/* A name no other function of this compilation has: g, then g_2, g_3 for
 * other functions called g (two products of one factory, two lambdas on one
 * line), so that their C++ names differ. */
static const char *
unique_name(FeCtx *cx, const char *name)
{
    const char *s = name;
    for (int k = 2;; k++) {
        int taken = 0;
        for (int i = 0; i < cx->nseen && !taken; i++) {
            taken = strcmp(cx->seen[i].fn->name, s) == 0;
        }
        if (!taken) {
            return s;
        }
        s = cj_aprintf(cx->arena, "%s_%d", name, k);
    }
}

/* Records `fn` as read before its body is, so that recursion finds it. */
static void
seen_add(FeCtx *cx, PyObject *pyfunc, Func *fn)
{
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
}

/* lambda := 'lambda' params ':' expr, found in the lines around `first` */
static void
read_lambda(Fe *f, PyObject *lines, int first, PyObject *code, PyObject *filename)
{
    Func *fn = f->fn;
    PyObject *lam = fe_find_lambda(f, lines, first, code, filename);
    fn->name = unique_name(f->cx, cj_aprintf(f->cx->arena, "lambda%d", first + 1));
    fn->loc = fe_loc_of(f, lam);
    read_params(f, lam);
    fn->nparams = f->nvars;
    lambda_body(f, lam);
}

/* def := [decorators] 'def' name '(' params ')' ':' block, cut from the lines
 * from `first` on */
static void
read_def(Fe *f, PyObject *lines, int first, PyObject *filename)
{
    Func *fn = f->fn;
    const char *src = fe_function_source(f, lines, first);
    fn->src_hash = cj_hash64(src, strlen(src), 0);
    PyObject *def = fe_parse_source(f, src, filename);
    fn->loc = fe_loc_of(f, def);
    read_params(f, def);
    fn->nparams = f->nvars;
    fn->numpy_math = fe_fused(f);
    PyObject *body = fe_get(f, def, S_body);
    fe_bound_names(f, body);
    fn->body = fe_stmts(f, body, &fn->nbody);
    if (fe_fused(f) && (fn->nbody == 0 || fn->body[fn->nbody - 1]->kind != ND_RETURN)) {
        Node **b = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(fn->nbody + 1));
        memcpy(b, fn->body, sizeof(Node *) * (size_t)fn->nbody);
        b[fn->nbody++] = fe_fused_return(f, fn->loc);
        fn->body = b;
    }
}

Func *
fe_read(FeCtx *cx, PyObject *pyfunc, int is_device, int boundscheck)
{
    Func *fn = seen_find(cx, pyfunc);
    if (fn) {
        return fn;
    }
    Fe fs, *f = &fs;
    memset(f, 0, sizeof fs);
    f->cx = cx;
    Loc none = {0, 0, 0};
    if (fe_init() < 0) {
        fe_fail_py(f, none, "cujit could not start its frontend");
    }
    if (!PyFunction_Check(pyfunc)) {
        fe_fail(f, none, "cujit compiles Python functions; got %s",
                fe_describe_object(f, pyfunc));
    }
    fn = cj_alloc(cx->arena, sizeof(Func));
    f->fn = fn;
    fn->is_device = is_device;
    fn->boundscheck = boundscheck;
    PyObject *code = PyFunction_GET_CODE(pyfunc);
    const char *pyname = fe_utf8(f, fe_get(f, pyfunc, S___name__));
    fn->name = unique_name(cx, pyname);
    PyObject *filename = fe_get(f, code, S_co_filename);
    f->file = fn->file = fe_utf8(f, filename);
    f->globals = PyFunction_GET_GLOBALS(pyfunc);
    seen_add(cx, pyfunc, fn);
    fe_read_closure(f, pyfunc, code);
    int first;
    PyObject *lines = fe_source_lines(f, code, filename, &first);
    f->locals = fe_keep(f, PySet_New(NULL));
    cx->depth++;
    if (strcmp(pyname, "<lambda>") == 0) {
        read_lambda(f, lines, first, code, filename);
    } else {
        read_def(f, lines, first, filename);
    }
    cx->depth--;
    fn->vars = f->vars;
    fn->nvars = f->nvars;
    fn->nnodes = f->nnodes;
    return fn;
}
