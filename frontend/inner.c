/* inner.c - functions defined inside a kernel or device function
 * (numba-cuda compiles them as device functions):
 *
 *     def inner(z): return z + 1        (a statement of the body)
 *
 * The def is run by Python now, compiled from its AST with the file's line
 * numbers, so the function found has a code object whose source the
 * frontend reads as any other's (from the enclosing function's text when no
 * file holds it: FeCtx.texts).  Its name is bound in the enclosing
 * function like a closure variable (a compile-time object: it can be
 * called, or passed to a device function); FeCtx.inner maps it to the
 * enclosing function's compile-time names, which its body sees too.
 *
 * The variables of the enclosing function that it reads (its captures, not
 * constants) become extra parameters when it is read (frontend.c), and a
 * call in the enclosing function passes their values by name then (Python's
 * late binding: the value at the call); FeCtx.inner_caps holds their names.
 * `g = lambda t: ...` in a kernel binds g the same way.
 *
 * `nonlocal x` in such a def makes x a capture passed by reference (a C++
 * T &): its assignments there rebind the caller's variable, as in Python.
 * Python compiles the def without its nonlocal statements (there is no
 * function around it then); x is no constant of the function around it. */
#include <string.h>

#include "fe_impl.h"

/* the nonlocal statements of a def (a copy) replaced by pass, in its
 * blocks and theirs: Python compiles it with no function around it */
static void
drop_nonlocals(Fe *f, PyObject *node)
{
    static const int fields[] = {S_body, S_orelse};
    for (int k = 0; k < 2; k++) {
        PyObject *l = PyObject_HasAttrString(node, k ? "orelse" : "body")
                      ? fe_get(f, node, fields[k]) : NULL;
        for (Py_ssize_t i = 0; l && PyList_Check(l) && i < PyList_GET_SIZE(l); i++) {
            PyObject *x = PyList_GET_ITEM(l, i);
            if (!fe_is(x, A_Nonlocal)) {
                drop_nonlocals(f, x);
                continue;
            }
            PyObject *pass = PyObject_CallNoArgs((PyObject *)fe_ast_types[A_Pass]);
            if (!pass || PyList_SetItem(l, i, pass) < 0) {
                fe_fail_py(f, fe_loc_of(f, node), "cujit could not read a function defined "
                           "in a kernel");
            }
        }
    }
}

/* the def statement as a code object of the file, at the file's lines */
static PyObject *
def_code(Fe *f, PyObject *s, Loc loc)
{
    PyObject *ast = fe_keep(f, PyImport_ImportModule("ast"));
    PyObject *moved = ast ? fe_keep(f, PyObject_CallMethod(ast, "increment_lineno", "Oi", s,
                                                           f->line0)) : NULL;
    PyObject *body = moved ? fe_keep(f, PyList_New(1)) : NULL;
    PyObject *ignores = body ? fe_keep(f, PyList_New(0)) : NULL;
    if (!ignores) {
        fe_fail_py(f, loc, "cujit could not read a function defined in a kernel");
    }
    PyObject *copy = fe_keep(f, PyImport_ImportModule("copy"));
    PyObject *own = copy ? fe_keep(f, PyObject_CallMethod(copy, "deepcopy", "O", s)) : NULL;
    if (!own) {
        fe_fail_py(f, loc, "cujit could not read a function defined in a kernel");
    }
    drop_nonlocals(f, own);
    Py_INCREF(own);
    PyList_SET_ITEM(body, 0, own);
    PyObject *mod = fe_keep(f, PyObject_CallFunction((PyObject *)fe_ast_types[A_Module], "OO",
                                                     body, ignores));
    if (mod && !fe_keep(f, PyObject_CallMethod(ast, "fix_missing_locations", "O", mod))) {
        mod = NULL;
    }
    PyObject *compile = PyDict_GetItemString(fe_builtins_dict, "compile");
    PyObject *code = mod && compile ? fe_keep(f, PyObject_CallFunction(compile, "Oss", mod,
                                                                       f->file, "exec")) : NULL;
    if (!code) {
        fe_fail_py(f, loc, "cujit could not compile a function defined in a kernel");
    }
    return code;
}

/* The number of statements anywhere in `list` that bind `name` (=, op=,
 * a for target, a def), nested blocks included. */
static int
bindings(Fe *f, PyObject *list, PyObject *name)
{
    PyObject *probe = fe_keep(f, PySet_New(NULL));
    int count = 0;
    for (Py_ssize_t i = 0; probe && i < PyList_GET_SIZE(list); i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        PyObject *one = fe_keep(f, PyList_New(1));
        if (!one) {
            break;
        }
        Py_INCREF(s);
        PyList_SET_ITEM(one, 0, s);
        PySet_Clear(probe);
        PyObject *saved = f->locals;
        f->locals = probe;
        fe_bound_names(f, one);
        f->locals = saved;
        count += PySet_Contains(probe, name) == 1
                 || (fe_is(s, A_FunctionDef) && PyObject_RichCompareBool(
                         fe_get(f, s, S_name), name, Py_EQ) == 1);
        if (fe_is(s, A_If) || fe_is(s, A_While) || fe_is(s, A_For)) {
            count += bindings(f, fe_get(f, s, S_body), name) > 0
                     || bindings(f, fe_get(f, s, S_orelse), name) > 0;
        }
    }
    if (!probe || PyErr_Occurred()) {
        fe_fail_py(f, f->fn->loc, "cujit");
    }
    return count;
}

/* A local of the function around a def that is a constant: assigned once
 * in the whole function, at its top level, `name = <constant>` (a number,
 * a string, a tuple of them, a global constant).  Its value, or NULL. */
static int rebound_inside(Fe *f, PyObject *name);

PyObject *
fe_constant_local(Fe *f, PyObject *name)
{
    if (!f->body || bindings(f, f->body, name) != 1 || rebound_inside(f, name)) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(f->body); i++) {
        PyObject *s = PyList_GET_ITEM(f->body, i);
        PyObject *tl = fe_is(s, A_Assign) ? fe_get(f, s, S_targets) : NULL;
        if (!tl || PyList_GET_SIZE(tl) != 1 || !fe_is(PyList_GET_ITEM(tl, 0), A_Name)
            || PyObject_RichCompareBool(fe_get(f, PyList_GET_ITEM(tl, 0), S_id), name,
                                        Py_EQ) != 1) {
            continue;
        }
        PyObject *v = fe_get(f, s, S_value);
        return fe_is(v, A_Constant) ? fe_get(f, v, S_value) : NULL;
    }
    return NULL;
}

/* how many times `name` is stored to in the function's body */
int
fe_local_stores(Fe *f, PyObject *name)
{
    int count = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(f->body); i++) {
        PyObject *it = fe_keep(f, PyObject_CallOneArg(fe_ast_walk,
                                                      PyList_GET_ITEM(f->body, i)));
        PyObject *node;
        while (it && (node = PyIter_Next(it))) {
            count += fe_is(node, A_Name) && !fe_is(fe_get(f, node, S_ctx), A_Load)
                     && PyObject_RichCompareBool(fe_get(f, node, S_id), name, Py_EQ) == 1;
            Py_DECREF(node);
        }
        if (!it || PyErr_Occurred()) {
            fe_fail_py(f, f->fn->loc, "cujit could not walk the function");
        }
    }
    return count;
}

/* the names the def's nonlocal statements name (a tuple, maybe empty) */
static PyObject *
nonlocal_names(Fe *f, PyObject *def)
{
    PyObject *out = fe_keep(f, PyList_New(0));
    PyObject *it = out ? fe_keep(f, PyObject_CallOneArg(fe_ast_walk, def)) : NULL;
    PyObject *node;
    while (it && (node = PyIter_Next(it))) {
        PyObject *names = fe_is(node, A_Nonlocal) ? fe_get(f, node, S_names) : NULL;
        for (Py_ssize_t i = 0; names && i < PyList_GET_SIZE(names); i++) {
            PyList_Append(out, PyList_GET_ITEM(names, i));
        }
        Py_DECREF(node);
    }
    PyObject *t = it && !PyErr_Occurred() ? fe_keep(f, PyList_AsTuple(out)) : NULL;
    if (!t) {
        fe_fail_py(f, fe_loc_of(f, def), "cujit could not read a function defined in a kernel");
    }
    return t;
}

/* is name rebound by a nonlocal statement of a def in the function (then
 * it is no constant there) */
static int
rebound_inside(Fe *f, PyObject *name)
{
    for (Py_ssize_t i = 0; f->body && i < PyList_GET_SIZE(f->body); i++) {
        PyObject *s = PyList_GET_ITEM(f->body, i);
        if (fe_is(s, A_FunctionDef)
            && PySequence_Contains(nonlocal_names(f, s), name) == 1) {
            return 1;
        }
        if ((fe_is(s, A_If) || fe_is(s, A_For) || fe_is(s, A_While))) {
            PyObject *saved = f->body;
            int r = 0;
            f->body = fe_get(f, s, S_body);
            r = rebound_inside(f, name);
            f->body = fe_get(f, s, S_orelse);
            r = r || rebound_inside(f, name);
            f->body = saved;
            if (r) {
                return 1;
            }
        }
    }
    return 0;
}

/* `nonlocal x` in a def: x must be a variable of the function around it */
static void
check_def(Fe *f, PyObject *def)
{
    PyObject *names = nonlocal_names(f, def);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *x = PyTuple_GET_ITEM(names, i);
        if (!fe_is_local_name(f, x)) {
            fe_fail(f, fe_loc_of(f, def), "nonlocal '%s' in '%s': '%s' is no variable of the "
                    "function that defines it (assign it there first)", fe_utf8(f, x),
                    fe_utf8(f, fe_get(f, def, S_name)), fe_utf8(f, x));
        }
    }
}

static PyObject *inner_names(Fe *f, PyObject *s);
static PyObject *capture_names(Fe *f, PyObject *s, PyObject *names);

/* Numba's error for a function that reads the kernel's variables (caps)
 * handed to another function: it has no values for them there */
void
fe_escape_fail(Fe *f, PyObject *caps, PyObject *fname, Loc loc)
{
    PyObject *var = PyTuple_Check(caps) ? PyTuple_GET_ITEM(caps, 0) : PyList_GET_ITEM(caps, 0);
    if (f->body && fe_local_stores(f, var) > 1) {
        fe_fail_kind(f, loc, CE_TYPE, "Cannot capture a constant value for variable '%s' in a "
                     "function that will escape: '%s' reads it, it is assigned more than "
                     "once, and the function is passed to another function here; pass the "
                     "value as an argument instead", fe_utf8(f, var), fe_utf8(f, fname));
    }
    fe_fail_kind(f, loc, CE_TYPE, "Cannot capture the non-constant value associated with "
                 "variable '%s' in a function that will escape: '%s' reads it and is "
                 "passed to another function here; pass the value as an argument instead",
                 fe_utf8(f, var), fe_utf8(f, fname));
}

/* `name` passed as an argument of a call in statement s: the argument, or NULL */
static PyObject *
passed_in(Fe *f, PyObject *s, PyObject *name)
{
    PyObject *it = fe_keep(f, PyObject_CallOneArg(fe_ast_walk, s));
    PyObject *node, *found = NULL;
    while (!found && it && (node = PyIter_Next(it))) {
        PyObject *args = fe_is(node, A_Call) ? fe_get(f, node, S_args) : NULL;
        for (Py_ssize_t i = 0; args && i < PyList_GET_SIZE(args); i++) {
            PyObject *a = PyList_GET_ITEM(args, i);
            if (fe_is(a, A_Name) && PyObject_RichCompareBool(fe_get(f, a, S_id), name,
                                                             Py_EQ) == 1) {
                found = a;
            }
        }
        Py_DECREF(node);
    }
    if (!it || PyErr_Occurred()) {
        fe_fail_py(f, f->fn->loc, "cujit could not walk the function");
    }
    return found;
}

/* is `name` passed as an argument of a call in the function's body: the
 * argument, or NULL */
static PyObject *
passed_on(Fe *f, PyObject *name)
{
    PyObject *found = NULL;
    for (Py_ssize_t i = 0; !found && f->body && i < PyList_GET_SIZE(f->body); i++) {
        found = passed_in(f, PyList_GET_ITEM(f->body, i), name);
    }
    return found;
}

/* A def that reads the function's variables and is passed to another
 * function fails with Numba's capture error before the body is read, so
 * that it comes before an error of the captured value's statement. */
static void
escape_def(Fe *f, PyObject *def)
{
    PyObject *caps = capture_names(f, def, inner_names(f, def));
    PyObject *name = fe_get(f, def, S_name);
    PyObject *arg = PyList_GET_SIZE(caps) ? passed_on(f, name) : NULL;
    if (arg) {
        fe_escape_fail(f, caps, name, fe_loc_of(f, arg));
    }
}

/* The defs among the statements (in if / for / while blocks too) are checked
 * before the body is read, so that the capture is named before what the
 * captured value's assignment might fail on. */
void
fe_check_captures(Fe *f, PyObject *list)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        if (fe_is(s, A_FunctionDef)) {
            check_def(f, s);
            escape_def(f, s);
        } else if (fe_is(s, A_If) || fe_is(s, A_For) || fe_is(s, A_While)) {
            fe_check_captures(f, fe_get(f, s, S_body));
            fe_check_captures(f, fe_get(f, s, S_orelse));
        }
    }
}

/* the compile-time names the def sees: the function's own, and its locals
 * that are constants (def inner(): return y + 1, after y = 10) */
static PyObject *
inner_names(Fe *f, PyObject *s)
{
    PyObject *d = fe_keep(f, f->closure ? PyDict_Copy(f->closure) : PyDict_New());
    PyObject *it = d ? fe_keep(f, PyObject_CallOneArg(fe_ast_walk, s)) : NULL;
    PyObject *node;
    while (it && (node = PyIter_Next(it))) {
        PyObject *id = fe_is(node, A_Name) ? fe_get(f, node, S_id) : NULL;
        PyObject *v = id && fe_is_local_name(f, id) ? fe_constant_local(f, id) : NULL;
        if (v && PyDict_SetItem(d, id, v) < 0) {
            Py_DECREF(node);
            break;
        }
        Py_DECREF(node);
    }
    if (!it || PyErr_Occurred()) {
        fe_fail_py(f, fe_loc_of(f, s), "cujit could not read a function defined in a kernel");
    }
    return d;
}

/* the def's own names: its parameters and what its body binds */
static PyObject *
own_names(Fe *f, PyObject *s)
{
    PyObject *own = fe_keep(f, PySet_New(NULL));
    PyObject *args = fe_get(f, s, S_args);
    static const int lists[] = {S_posonlyargs, S_args, S_kwonlyargs};
    for (int k = 0; own && k < 3; k++) {
        PyObject *l = fe_get(f, args, lists[k]);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {
            PySet_Add(own, fe_get(f, PyList_GET_ITEM(l, i), S_arg));
        }
    }
    static const int stars[] = {S_vararg, S_kwarg};
    for (int k = 0; own && k < 2; k++) {
        PyObject *a = fe_get(f, args, stars[k]);
        if (a != Py_None) {
            PySet_Add(own, fe_get(f, a, S_arg));
        }
    }
    if (!own || PyErr_Occurred()) {
        fe_fail_py(f, fe_loc_of(f, s), "cujit could not read a function defined in a kernel");
    }
    PyObject *body = fe_get(f, s, S_body);
    if (PyList_Check(body)) {           /* a def's statements; a lambda's is an expression */
        PyObject *saved = f->locals;
        f->locals = own;
        fe_bound_names(f, body);
        f->locals = saved;
        PyObject *refs = nonlocal_names(f, s);      /* the caller's: captures */
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(refs); i++) {
            PySet_Discard(own, PyTuple_GET_ITEM(refs, i));
        }
    }
    return own;
}

/* the enclosing function's variables the def reads (not its constants,
 * which `names` holds): a list of names, each once */
static PyObject *
capture_names(Fe *f, PyObject *s, PyObject *names)
{
    PyObject *own = own_names(f, s);
    PyObject *caps = fe_keep(f, PyList_New(0));
    PyObject *it = caps ? fe_keep(f, PyObject_CallOneArg(fe_ast_walk, s)) : NULL;
    PyObject *node;
    while (it && (node = PyIter_Next(it))) {
        PyObject *id = fe_is(node, A_Name) ? fe_get(f, node, S_id) : NULL;
        if (id && fe_is_local_name(f, id) && PySet_Contains(own, id) == 0
            && PyDict_Contains(names, id) == 0 && PySequence_Contains(caps, id) == 0) {
            PyList_Append(caps, id);
        }
        Py_DECREF(node);
    }
    if (!it || PyErr_Occurred()) {
        fe_fail_py(f, fe_loc_of(f, s), "cujit could not read a function defined in a kernel");
    }
    return caps;
}

/* Runs statement s, which binds `name` to a function (fnode: its def or
 * lambda), and binds the name in this function to it. */
static Node *
inner_function(Fe *f, PyObject *s, PyObject *name, PyObject *fnode, Loc loc)
{
    if (fe_is_local_name(f, name)) {
        fe_fail(f, loc, "'%s' is also assigned in this function: a function defined in a "
                "kernel needs a name of its own", fe_utf8(f, name));
    }
    PyObject *names = inner_names(f, fnode);
    PyObject *caps = capture_names(f, fnode, names);
    PyObject *code = def_code(f, s, loc);
    PyObject *ns = fe_keep(f, PyDict_New());
    PyObject *r = ns ? PyEval_EvalCode(code, f->globals, ns) : NULL;
    Py_XDECREF(r);
    PyObject *fn = r ? PyDict_GetItemWithError(ns, name) : NULL;
    if (!fn) {
        fe_fail_py(f, loc, "this function definition raised while the kernel compiled");
    }
    FeCtx *cx = f->cx;
    if (!f->closure) {
        f->closure = fe_keep(f, PyDict_New());
    }
    if (!cx->inner) {
        cx->inner = fe_keep(f, PyDict_New());
    }
    if (!cx->inner_caps) {
        cx->inner_caps = fe_keep(f, PyDict_New());
    }
    PyObject *refs = fe_is(fnode, A_FunctionDef) ? nonlocal_names(f, fnode) : NULL;
    PyObject *entry = PyList_GET_SIZE(caps) && cx->inner_caps
                      ? fe_keep(f, Py_BuildValue("(NNOO)", PyList_AsTuple(caps),
                                                 PyLong_FromVoidPtr(f->fn), name,
                                                 refs ? refs : Py_None)) : NULL;
    if (PyList_GET_SIZE(caps) && (!entry || PyDict_SetItem(cx->inner_caps, fn, entry) < 0)) {
        fe_fail_py(f, loc, "cujit");
    }
    if (!f->closure || !cx->inner || PyDict_SetItem(f->closure, name, fn) < 0
        || PyDict_SetItem(names, name, fn) < 0
        || (PyFunction_Check(fn) && PyDict_SetItem(cx->inner, fn, names) < 0)
        || (f->text_lines && PyFunction_Check(fn)
            && PyDict_SetItem(cx->texts, PyFunction_GET_CODE(fn), f->text_lines) < 0)) {
        fe_fail_py(f, loc, "cujit");
    }
    return fe_new_node(f, ND_PASS, loc);
}

/* innerdef := 'def' name '(' params ')' ':' block   (inside a kernel) */
Node *
fe_inner_def(Fe *f, PyObject *s, Loc loc)
{
    return inner_function(f, s, fe_get(f, s, S_name), s, loc);
}

/* innerlambda := name '=' 'lambda' params ':' expr   (inside a kernel) */
Node *
fe_inner_lambda(Fe *f, PyObject *s, Loc loc)
{
    PyObject *target = PyList_GET_ITEM(fe_get(f, s, S_targets), 0);
    return inner_function(f, s, fe_get(f, target, S_id), fe_get(f, s, S_value), loc);
}

/* the enclosing function's compile-time names, for a function defined in
 * it (a copy: the function binds its own parameters there); NULL for any
 * other function */
PyObject *
fe_inner_closure(Fe *f, PyObject *pyfunc)
{
    PyObject *outer = f->cx->inner ? PyDict_GetItemWithError(f->cx->inner, pyfunc) : NULL;
    if (!outer) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *d = fe_keep(f, PyDict_Copy(outer));
    if (!d) {
        fe_fail_py(f, f->fn->loc, "cujit");
    }
    return d;
}

/* is obj a function defined in a kernel of this compilation (a device
 * function, though undecorated) */
int
fe_is_inner(Fe *f, PyObject *obj)
{
    int r = f->cx->inner && PyFunction_Check(obj) ? PyDict_Contains(f->cx->inner, obj) : 0;
    PyErr_Clear();
    return r == 1;
}

static PyObject *
caps_entry(FeCtx *cx, PyObject *pyfunc)
{
    PyObject *e = cx->inner_caps ? PyDict_GetItemWithError(cx->inner_caps, pyfunc) : NULL;
    PyErr_Clear();
    return e;
}

/* the names of the variables of the function around it that a function
 * defined in a kernel reads (its extra parameters), or NULL */
PyObject *
fe_inner_params(FeCtx *cx, PyObject *pyfunc)
{
    PyObject *e = caps_entry(cx, pyfunc);
    return e ? PyTuple_GET_ITEM(e, 0) : NULL;
}

/* the captures it rebinds (nonlocal): passed by reference; NULL for none */
PyObject *
fe_inner_refs(FeCtx *cx, PyObject *pyfunc)
{
    PyObject *e = caps_entry(cx, pyfunc);
    PyObject *r = e ? PyTuple_GET_ITEM(e, 3) : NULL;
    return r && PyTuple_Check(r) && PyTuple_GET_SIZE(r) ? r : NULL;
}

/* `nonlocal x, y` read in the function defined in a kernel: a statement
 * with no effect when its names are the function's by-reference captures */
int
fe_nonlocal_ok(Fe *f, PyObject *s)
{
    PyObject *names = fe_get(f, s, S_names);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
        if (!f->refs || PySequence_Contains(f->refs, PyList_GET_ITEM(names, i)) != 1) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* the same names for a call of it, which only the function around it can
 * make (only there do they have values): elsewhere an error */
PyObject *
fe_inner_captures(Fe *f, PyObject *pyfunc, Loc loc)
{
    PyObject *e = caps_entry(f->cx, pyfunc);
    if (!e) {
        return NULL;
    }
    PyObject *caps = PyTuple_GET_ITEM(e, 0);
    if (PyLong_AsVoidPtr(PyTuple_GET_ITEM(e, 1)) != (void *)f->fn) {
        fe_fail(f, loc, "'%s' reads the variable '%s' of the function that defines it, so "
                "only that function can call it; pass the value as an argument instead",
                fe_utf8(f, PyTuple_GET_ITEM(e, 2)), fe_utf8(f, PyTuple_GET_ITEM(caps, 0)));
    }
    return caps;
}

/* is s `name = lambda ...` (one plain name target) */
int
fe_is_lambda_def(Fe *f, PyObject *s)
{
    if (!fe_is(s, A_Assign) || !fe_is(fe_get(f, s, S_value), A_Lambda)) {
        return 0;
    }
    PyObject *tl = fe_get(f, s, S_targets);
    return PyList_GET_SIZE(tl) == 1 && fe_is(PyList_GET_ITEM(tl, 0), A_Name);
}
