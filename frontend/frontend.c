/* frontend.c - fe_read: reads a decorated function's Python AST (through the
 * CPython C API) once into cujit's IR, with the device functions it calls.
 * The frontend resolves names too (names.c): locals, jit / math / numpy
 * builtins, device functions and global or closure constants, which are
 * folded in.  No PyObject* survives past frontend/. */
#include <string.h>

#include "fe_impl.h"

/* a default parameter value written in a def inside a kernel: a constant or
 * a negated number (-1.0); NULL for anything else (a call has no .value) */
static PyObject *
default_value(Fe *f, PyObject *dn)
{
    if (fe_is(dn, A_Constant)) {
        return fe_get(f, dn, S_value);
    }
    if (!fe_is(dn, A_UnaryOp) || !fe_is(fe_get(f, dn, S_op), A_USub)) {
        return NULL;
    }
    PyObject *x = fe_get(f, dn, S_operand);
    if (!fe_is(x, A_Constant)) {
        return NULL;
    }
    PyObject *v = fe_get(f, x, S_value);
    if (PyBool_Check(v) || !(PyLong_Check(v) || PyFloat_Check(v) || PyComplex_Check(v))) {
        return NULL;
    }
    PyObject *neg = PyNumber_Negative(v);
    if (!neg) {
        fe_fail_py(f, fe_loc_of(f, dn), "cujit could not negate a default value");
    }
    return fe_keep(f, neg);
}

/* the compile-time value offered for parameter i named nm: by position,
 * by keyword, or its default when the call gives neither; NULL for none */
static PyObject *
offered(Fe *f, const FeOffers *of, int i, PyObject *nm, PyObject *defaults, Py_ssize_t nnamed)
{
    if (!of) {
        return NULL;
    }
    if (i < of->npos) {
        return of->pos[i];
    }
    const char *name = fe_utf8(f, nm);
    for (int k = 0; k < of->nkw; k++) {
        if (strcmp(of->kwnames[k], name) == 0) {
            return of->kw[k];
        }
    }
    Py_ssize_t d = i - (nnamed - PyList_GET_SIZE(defaults));
    PyObject *dn = d >= 0 ? PyList_GET_ITEM(defaults, d) : NULL;
    PyObject *dv = dn ? default_value(f, dn) : NULL;
    if (dn && (!dv || PyBytes_Check(dv))) {
        fe_fail(f, fe_loc_of(f, dn), "a default parameter value in a device function must "
                "be a constant (a number, a string, True, False or None)");
    }
    return dv;
}

/* the type of a compile-time argument as a Numba signature names it:
 * Python numbers as int64, float64, complex128, NumPy scalars by their
 * dtype, anything else by its Python class */
static const char *
bound_type(Fe *f, PyObject *v)
{
    if (PyBool_Check(v)) {
        return "bool";
    }
    if (PyLong_Check(v) || PyFloat_Check(v) || PyComplex_Check(v)) {
        return PyLong_Check(v) ? "int64" : PyFloat_Check(v) ? "float64" : "complex128";
    }
    PyObject *dt = strncmp(Py_TYPE(v)->tp_name, "numpy.", 6) == 0
                   ? PyObject_GetAttrString(v, "dtype") : NULL;
    PyObject *name = dt ? PyObject_GetAttrString(dt, "name") : NULL;
    Py_XDECREF(dt);
    const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    s = s ? cj_strdup(f->cx->arena, s) : Py_TYPE(v)->tp_name;
    Py_XDECREF(name);
    PyErr_Clear();
    return s;
}

/* Binds parameter nm to the compile-time object v: the body reads it as it
 * reads a closure variable (a function it calls, a dtype, a constant). */
static void
bind_param(Fe *f, PyObject *nm, PyObject *v)
{
    if (!f->closure) {
        f->closure = fe_keep(f, PyDict_New());
    }
    if (!f->bound) {
        f->bound = fe_keep(f, PySet_New(NULL));
    }
    if (!f->closure || !f->bound || PyDict_SetItem(f->closure, nm, v) < 0
        || PySet_Add(f->bound, nm) < 0) {
        fe_fail_py(f, f->fn->loc, "cujit");
    }
}

/* *args of a device function: a tuple of the call's extra positional
 * arguments, whose number the call gives */
static void
read_vararg(Fe *f, PyObject *args, Py_ssize_t nnamed, const FeOffers *of)
{
    PyObject *va = fe_get(f, args, S_vararg);
    if (va == Py_None) {
        return;
    }
    PyObject *nm = fe_get(f, va, S_arg);
    PySet_Add(f->locals, nm);
    fe_add_var(f, fe_utf8(f, nm), fe_loc_of(f, va), 1);
    f->vararg = fe_utf8(f, nm);
    f->fn->pnames[nnamed] = f->vararg;
    f->nvararg = of && of->npos > nnamed ? of->npos - (int)nnamed : 0;
    f->fn->vararg = 1;
}

/* params := [ name [ '=' constant ] { ',' name [ '=' constant ] } ] [ ',' '*' name ]
 * (kernels: names only; no **kwargs or keyword-only parameters).  A
 * parameter the call gives a compile-time object (offers) is bound to it
 * unless the body assigns to it (f->locals holds the body's names). */
static void
read_params(Fe *f, PyObject *def, const FeOffers *of)
{
    PyObject *args = fe_get(f, def, S_args);
    Loc loc = fe_loc_of(f, def);
    int device = f->fn->is_device;
    if (PyList_GET_SIZE(fe_get(f, args, S_kwonlyargs)) || fe_get(f, args, S_kwarg) != Py_None
        || (!device && fe_get(f, args, S_vararg) != Py_None)) {
        fe_fail(f, loc, device ? "device functions take positional parameters and *args "
                "only (no **kwargs or keyword-only parameters)" : "kernels take positional "
                "parameters only (no *args, **kwargs or keyword-only parameters)");
    }
    /* a kernel's default values are accepted (Numba's kernels may have
     * them); a launch passes every argument (ti_infer checks the count) */
    PyObject *defaults = fe_get(f, args, S_defaults);
    PyObject *lists[2] = {fe_get(f, args, S_posonlyargs), fe_get(f, args, S_args)};
    Py_ssize_t nnamed = PyList_GET_SIZE(lists[0]) + PyList_GET_SIZE(lists[1]);
    Py_ssize_t ncap = f->captures ? PyTuple_GET_SIZE(f->captures) : 0;
    if (ncap && fe_get(f, args, S_vararg) != Py_None) {
        fe_fail(f, loc, "a function with *args defined in a kernel cannot read the kernel's "
                "variable '%s'; pass it as an argument", fe_utf8(f,
                PyTuple_GET_ITEM(f->captures, 0)));
    }
    Func *fn = f->fn;
    fn->npnames = (int)(nnamed + ncap);
    fn->pnames = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(nnamed + ncap + 1));
    fn->pbound = cj_alloc(f->cx->arena, sizeof(char *) * (size_t)(nnamed + ncap + 1));
    int i = 0;
    for (int k = 0; k < 2; k++) {
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(lists[k]); j++, i++) {
            PyObject *a = PyList_GET_ITEM(lists[k], j);
            PyObject *nm = fe_get(f, a, S_arg);
            fn->pnames[i] = fe_utf8(f, nm);
            PyObject *v = device ? offered(f, of, i, nm, defaults, nnamed) : NULL;
            int assigned = PySet_Contains(f->locals, nm) == 1;
            if (v && !assigned && i < 64) {
                bind_param(f, nm, v);
                fn->bound |= (uint64_t)1 << i;
                fn->pbound[i] = bound_type(f, v);
                continue;
            }
            PySet_Add(f->locals, nm);
            fe_add_var(f, fn->pnames[i], fe_loc_of(f, a), 1);
        }
    }
    for (Py_ssize_t c = 0; c < ncap; c++, i++) {     /* the captures, passed by name */
        PyObject *nm = PyTuple_GET_ITEM(f->captures, c);
        fn->pnames[i] = fe_utf8(f, nm);
        PySet_Add(f->locals, nm);
        Var *v = fe_add_var(f, fn->pnames[i], loc, 1);
        v->byref = f->refs && PySequence_Contains(f->refs, nm) == 1;   /* nonlocal nm */
    }
    read_vararg(f, args, nnamed, of);
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

/* the same compile-time object: one object, or equal values of one type
 * (1 and True, 1 and 1.0 differ; floats by their bits: 0.0 and -0.0 differ) */
static int
same_object(PyObject *a, PyObject *b)
{
    if (a == b) {
        return 1;
    }
    if (!a || !b || Py_TYPE(a) != Py_TYPE(b)) {
        return 0;
    }
    if (PyTuple_Check(a)) {
        if (PyTuple_GET_SIZE(a) != PyTuple_GET_SIZE(b)) {
            return 0;
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++) {
            if (!same_object(PyTuple_GET_ITEM(a, i), PyTuple_GET_ITEM(b, i))) {
                return 0;
            }
        }
        return 1;
    }
    if (PyFloat_CheckExact(a)) {
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    int r = PyObject_RichCompareBool(a, b, Py_EQ);
    PyErr_Clear();
    return r == 1;
}

/* do two calls offer the same (NULL: a call of no arguments) */
static int
same_offers(const FeOffers *x, const FeOffers *y)
{
    static const FeOffers none;
    x = x ? x : &none;
    y = y ? y : &none;
    if (x->npos != y->npos || x->nkw != y->nkw) {
        return 0;
    }
    for (int i = 0; i < x->npos; i++) {
        if (!same_object(x->pos[i], y->pos[i])) {
            return 0;
        }
    }
    for (int i = 0; i < x->nkw; i++) {
        if (strcmp(x->kwnames[i], y->kwnames[i]) != 0 || !same_object(x->kw[i], y->kw[i])) {
            return 0;
        }
    }
    return 1;
}

/* the IR already read for `pyfunc` with these offers in this compilation,
 * or NULL */
static Func *
seen_find(FeCtx *cx, PyObject *pyfunc, const FeOffers *offers)
{
    for (int i = 0; i < cx->nseen; i++) {
        if (cx->seen[i].pyfunc == pyfunc && same_offers(cx->seen[i].offers, offers)) {
            return cx->seen[i].fn;
        }
    }
    return NULL;
}

/* A name no other function of this compilation has: g, then g_2, g_3 for
 * other functions called g (two products of one factory, two lambdas on one
 * line), so that their C++ names differ. */
const char *
fe_unique_name(FeCtx *cx, const char *name)
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
seen_add(FeCtx *cx, PyObject *pyfunc, const FeOffers *offers, Func *fn)
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
    cx->seen[cx->nseen].offers = offers;
    cx->seen[cx->nseen++].fn = fn;
}

/* lambda := 'lambda' params ':' expr, found in the lines around `first` */
static void
read_lambda(Fe *f, PyObject *lines, int first, PyObject *code, PyObject *filename,
            const FeOffers *of)
{
    Func *fn = f->fn;
    PyObject *lam = fe_find_lambda(f, lines, first, code, filename);
    fn->name = fe_unique_name(f->cx, cj_aprintf(f->cx->arena, "lambda%d", first + 1));
    fn->loc = fe_loc_of(f, lam);
    read_params(f, lam, of);
    fn->nparams = f->nvars;
    lambda_body(f, lam);
}

/* def := [decorators] 'def' name '(' params ')' ':' block, cut from the lines
 * from `first` on */
static void
read_def(Fe *f, PyObject *lines, int first, PyObject *filename, const FeOffers *of)
{
    Func *fn = f->fn;
    const char *src = fe_function_source(f, lines, first);
    fn->src_hash = cj_hash64(src, strlen(src), 0);
    PyObject *def = fe_parse_source(f, src, filename);
    fn->loc = fe_loc_of(f, def);
    PyObject *body = fe_get(f, def, S_body);
    f->body = body;
    fe_bound_names(f, body);
    read_params(f, def, of);
    fe_check_captures(f, body);
    fn->nparams = f->nvars;
    fn->numpy_math = fe_fused(f);
    fn->body = fe_stmts(f, body, &fn->nbody);
    if (fe_fused(f) && (fn->nbody == 0 || fn->body[fn->nbody - 1]->kind != ND_RETURN)) {
        Node **b = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(fn->nbody + 1));
        memcpy(b, fn->body, sizeof(Node *) * (size_t)fn->nbody);
        b[fn->nbody++] = fe_fused_return(f, fn->loc);
        fn->body = b;
    }
}

/* Reads pyfunc, binding the parameters given compile-time objects
 * (offers, NULL for none) when it is a device function. */
static Func *
read_func(FeCtx *cx, PyObject *pyfunc, int is_device, int boundscheck, const FeOffers *offers)
{
    Func *fn = seen_find(cx, pyfunc, offers);
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
    fn->name = fe_unique_name(cx, pyname);
    PyObject *filename = fe_get(f, code, S_co_filename);
    f->file = fn->file = fe_utf8(f, filename);
    f->globals = PyFunction_GET_GLOBALS(pyfunc);
    seen_add(cx, pyfunc, offers, fn);
    fe_read_closure(f, pyfunc, code);
    f->captures = fe_inner_params(cx, pyfunc);
    f->refs = fe_inner_refs(cx, pyfunc);
    int first;
    PyObject *lines = fe_source_lines(f, code, filename, &first);
    f->locals = fe_keep(f, PySet_New(NULL));
    cx->depth++;
    if (strcmp(pyname, "<lambda>") == 0) {
        read_lambda(f, lines, first, code, filename, offers);
    } else {
        read_def(f, lines, first, filename, offers);
    }
    cx->depth--;
    fe_split_webs(f);
    fn->vars = f->vars;
    fn->nvars = f->nvars;
    fn->nnodes = f->nnodes;
    return fn;
}

Func *
fe_read(FeCtx *cx, PyObject *pyfunc, int is_device, int boundscheck)
{
    return read_func(cx, pyfunc, is_device, boundscheck, NULL);
}

/* a device function called with these compile-time offers (expr.c) */
Func *
fe_read_call(FeCtx *cx, PyObject *pyfunc, int boundscheck, const FeOffers *offers)
{
    return read_func(cx, pyfunc, 1, boundscheck, offers);
}
