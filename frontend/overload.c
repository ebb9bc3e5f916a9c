/* overload.c - functions whose device code comes from Numba's extension
 * API: calls of a function overloaded in Python (cujit.extending's
 * @overload), and numba's own jitted functions (numba.njit, a real
 * numba.cuda.jit(device=True)) called from a kernel.
 *
 * An overloaded function's implementation depends on the types of a call's
 * arguments, which the frontend does not know: the call becomes an ND_CALL
 * of a stand-in Func holding a CjOverload (common/cj.h), with the arguments
 * read once.  typeinfer calls back `resolve` with their types; resolve asks
 * the Python registry (func.__cujit_overload__._cujit_resolve) for the
 * implementation, which the factories give for Numba's types of the
 * arguments, reads it as a device function offered the call's compile-time
 * objects (devcall.c), and gives the call's arguments in the order of its
 * parameters.  A numba dispatcher is read through its Python function
 * (py_func), found by duck typing: numba is never imported. */
#include <string.h>

#include "fe_impl.h"

/* what resolve needs of the frontend, kept with the call */
typedef struct {
    FeCtx *cx;
    const char *file;       /* the caller's: errors are at the call */
    PyObject *entry;        /* its __cujit_overload__ (kept) */
    FeOffers *offers;       /* the call's compile-time objects (devcall.c) */
    Node **tails;           /* [i]: the positional arguments from i on as a tuple, for
                             * an implementation taking *args (NULL: one is no value) */
    int boundscheck;
} Ovl;

/* func.__cujit_overload__ (kept), or NULL when func has no overloads; a
 * class's own (cujit.extending.type_callable: a struct model's constructor),
 * never one it inherits */
static PyObject *
overloads_of(Fe *f, PyObject *func)
{
    if (PyType_Check(func)) {
        PyObject *own = ((PyTypeObject *)func)->tp_dict;
        PyObject *entry = own ? PyDict_GetItemString(own, "__cujit_overload__") : NULL;
        Py_XINCREF(entry);
        return fe_keep(f, entry);
    }
    if (!PyFunction_Check(func)) {
        return NULL;
    }
    PyObject *d = PyObject_GetAttrString(func, "__dict__");
    PyObject *entry = d && PyDict_Check(d) ? PyDict_GetItemString(d, "__cujit_overload__")
                                           : NULL;
    Py_XINCREF(entry);
    Py_XDECREF(d);
    PyErr_Clear();
    return fe_keep(f, entry);
}

/* Is obj a function with overloads (R_OVERLOAD)? */
int
fe_overloaded(Fe *f, PyObject *obj, Resolved *r)
{
    if (!overloads_of(f, obj)) {
        return 0;
    }
    r->kind = R_OVERLOAD;
    r->obj = obj;
    r->value = obj;
    return 1;
}

/* A numba dispatcher (numba.njit's CPUDispatcher, numba.cuda.jit's
 * CUDADispatcher): its Python function, kept; NULL for anything else. */
PyObject *
fe_numba_function(Fe *f, PyObject *obj)
{
    if (PyFunction_Check(obj) || PyType_Check(obj) || PyModule_Check(obj)) {
        return NULL;
    }
    PyObject *m = PyObject_GetAttr((PyObject *)Py_TYPE(obj), fe_names[S___module__]);
    const char *mod = m && PyUnicode_Check(m) ? PyUnicode_AsUTF8(m) : NULL;
    int numba = mod && strncmp(mod, "numba", 5) == 0 && (mod[5] == '\0' || mod[5] == '.');
    Py_XDECREF(m);
    PyErr_Clear();
    PyObject *py = numba ? PyObject_GetAttrString(obj, "py_func") : NULL;
    if (!py || !PyFunction_Check(py)) {
        Py_XDECREF(py);
        PyErr_Clear();
        return NULL;
    }
    return fe_keep(f, py);
}

/* ---- resolution, called by typeinfer ---- */

/* A Python error as a compile error at loc: a TypeError stays one */
CJ_NORETURN static void
fail_py(Fe *f, Loc loc)
{
    fe_fail_py_kind(f, loc, PyErr_ExceptionMatches(PyExc_TypeError) ? CE_TYPE : CE_COMPILE,
                    NULL);
}

static PyObject *type_desc(Fe *f, const Type *t);

static PyObject *
tuple_desc(Fe *f, const Type *t)
{
    PyObject *items = PyTuple_New(t->ntup);
    for (int i = 0; items && i < t->ntup; i++) {
        PyObject *d = type_desc(f, t->tup[i]);
        if (!d) {
            Py_CLEAR(items);
            break;
        }
        PyTuple_SET_ITEM(items, i, d);
    }
    PyObject *r = items ? Py_BuildValue("(sO)", "tuple", items) : NULL;
    Py_XDECREF(items);
    return r;
}

/* a record of number fields (no sub-array, no nested record) as
 * ("record", ((name, dtype, offset), ...), itemsize): cujit.extending finds
 * the struct model it lays out (cujit/_structs.py); NULL for another record */
static PyObject *
record_desc(const Type *t)
{
    const CjRecord *rec = cj_record(t->dtype);
    PyObject *fields = rec ? PyTuple_New(rec->nfields) : NULL;
    for (int i = 0; fields && i < rec->nfields; i++) {
        const CjField *fd = &rec->fields[i];
        PyObject *one = fd->nsub || cj_is_record(fd->dt) ? NULL
            : Py_BuildValue("(ssi)", fd->name, cj_dtypes[fd->dt].name, fd->offset);
        if (!one) {
            Py_CLEAR(fields);
            break;
        }
        PyTuple_SET_ITEM(fields, i, one);
    }
    PyObject *r = fields ? Py_BuildValue("(sOi)", "record", fields, rec->itemsize) : NULL;
    Py_XDECREF(fields);
    PyErr_Clear();
    return r;
}

/* cujit's type as cujit.extending reads it (_type): ("scalar", dtype),
 * ("weak", kind), ("array", dtype, ndim, layout, readonly), ("tuple",
 * items), ("none",), ("record", fields, itemsize), ("other", text); a new
 * reference */
static PyObject *
type_desc(Fe *f, const Type *t)
{
    static const char layouts[][2] = {"C", "F", "A"};
    t = cj_concrete((Type *)t);
    switch (t->kind) {
    case TY_SCALAR:
        if (!cj_is_record(t->dtype)) {
            return Py_BuildValue("(ss)", "scalar", cj_dtypes[t->dtype].name);
        }
        break;
    case TY_WEAK_INT:
        return Py_BuildValue("(ss)", "weak", "int");
    case TY_WEAK_FLOAT:
        return Py_BuildValue("(ss)", "weak", "float");
    case TY_WEAK_COMPLEX:
        return Py_BuildValue("(ss)", "weak", "complex");
    case TY_ARRAY:
        if (!cj_is_record(t->dtype)) {
            int l = t->layout == 'C' ? 0 : t->layout == 'F' ? 1 : 2;
            return Py_BuildValue("(ssisi)", "array", cj_dtypes[t->dtype].name, t->ndim,
                                 layouts[l], (int)t->readonly);
        }
        break;
    case TY_TUPLE:
        return tuple_desc(f, t);
    case TY_NONE:
        return Py_BuildValue("(s)", "none");
    case TY_RECORD: {
        PyObject *r = record_desc(t);
        if (r) {
            return r;
        }
        break;
    }
    case TY_VOID: case TY_STRING: case TY_DTYPE: case TY_GROUP: case TY_ITER: case TY_VECTOR:
    case TY_OPTIONAL:
        break;
    }
    Buf b;
    buf_init(&b);
    cj_type_str(&b, t);
    PyObject *r = Py_BuildValue("(ss)", "other", b.s ? b.s : "?");
    buf_free(&b);
    return r;
}

/* one argument for _cujit_resolve: (desc,) or (desc, value) when the call
 * gives a constant; a compile-time object only is (("object", obj),) */
static PyObject *
arg_desc(Fe *f, const Type *t, PyObject *offer, Loc loc)
{
    PyObject *d = t ? type_desc(f, t) : Py_BuildValue("(sO)", "object", offer);
    PyObject *r = !d ? NULL : t && offer ? PyTuple_Pack(2, d, offer) : PyTuple_Pack(1, d);
    Py_XDECREF(d);
    if (!r) {
        fail_py(f, loc);
    }
    return fe_keep(f, r);
}

/* the implementation of the call for these types: a Python function;
 * NULL before the final pass when the registry has none (or raised) */
static PyObject *
ask_registry(Fe *f, Ovl *ov, CjOverload *o, Node *call, Type **pos, Type **kw, int final)
{
    PyObject *args = fe_keep(f, PyTuple_New(o->npos));
    PyObject *kwd = fe_keep(f, PyDict_New());
    if (!args || !kwd) {
        fail_py(f, call->loc);
    }
    for (int i = 0; i < o->npos; i++) {
        PyObject *a = arg_desc(f, pos[i], ov->offers->pos[i], call->loc);
        Py_INCREF(a);
        PyTuple_SET_ITEM(args, i, a);
    }
    for (int i = 0; i < o->nkw; i++) {
        PyObject *a = arg_desc(f, kw[i], ov->offers->kw[i], call->loc);
        if (PyDict_SetItemString(kwd, o->kwnames[i], a) < 0) {
            fail_py(f, call->loc);
        }
    }
    PyObject *impl = fe_keep(f, PyObject_CallMethod(ov->entry, "_cujit_resolve", "OO",
                                                    args, kwd));
    if (!impl && !final) {
        PyErr_Clear();      /* the types may still widen: asked again in the next pass */
        return NULL;
    }
    if (!impl) {
        fail_py(f, call->loc);
    }
    Resolved r = fe_classify(f, impl, call->loc);
    if (r.kind == R_DEVFUNC || r.kind == R_KERNEL) {
        return r.obj;       /* a device function given as the implementation */
    }
    if (!PyFunction_Check(impl)) {
        fe_fail_kind(f, call->loc, CE_TYPE, "the @overload of '%s' gave %s as the "
                     "implementation: it must be a Python function",
                     call->fn->name, fe_describe_object(f, impl));
    }
    return impl;
}

/* the Var of parameter j (the parameters bound at compile time have none) */
static int
var_slot(const Func *fn, int j)
{
    int slot = 0;
    for (int i = 0; i < j; i++) {
        slot += !(i < 64 && (fn->bound >> i & 1));
    }
    return slot;
}

static int
is_bound(const Func *fn, int j)
{
    return j < 64 && (fn->bound >> j & 1);
}

/* puts argument a for parameter j of fn into all[] (NULL: bound, skipped) */
static void
place(Fe *f, Node *call, const Func *fn, Node **all, int j, Node *a)
{
    if (is_bound(fn, j)) {
        return;
    }
    int slot = var_slot(fn, j);
    if (!a) {
        fe_fail_kind(f, call->loc, CE_TYPE, "a function or a dtype is given to parameter "
                     "'%s' of '%s', which assigns to it: give the new value another name",
                     fn->pnames[j], fn->name);
    }
    if (all[slot]) {
        fe_fail_kind(f, call->loc, CE_TYPE, "%s() got argument '%s' twice", fn->name,
                     fn->pnames[j]);
    }
    all[slot] = a;
}

/* *args of the implementation: the positional arguments past its named
 * parameters, as a tuple (the last parameter) */
static void
place_vararg(Fe *f, Ovl *ov, Node *call, const Func *fn, Node **all)
{
    int first = fn->npnames < ov->offers->npos ? fn->npnames : ov->offers->npos;
    if (!ov->tails[first]) {
        fe_fail_kind(f, call->loc, CE_TYPE, "a function or a dtype cannot be passed through "
                     "*args of '%s'; name it as a parameter", fn->name);
    }
    all[fn->nparams - 1] = ov->tails[first];
}

/* the call's arguments in the order of fn's parameters, without those
 * bound at compile time */
static Node **
order_args(Fe *f, Ovl *ov, CjOverload *o, Node *call, const Func *fn)
{
    if (o->npos > fn->npnames && !fn->vararg) {
        fe_fail_kind(f, call->loc, CE_TYPE, "%s() takes %d argument%s, got %d", fn->name,
                     fn->npnames, fn->npnames == 1 ? "" : "s", o->npos);
    }
    Node **all = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(fn->nparams + 1));
    for (int i = 0; i < o->npos && i < fn->npnames; i++) {
        place(f, call, fn, all, i, o->pos[i]);
    }
    if (fn->vararg) {
        place_vararg(f, ov, call, fn, all);
    }
    for (int k = 0; k < o->nkw; k++) {
        int j = -1;
        for (int i = 0; i < fn->npnames && j < 0; i++) {
            j = strcmp(fn->pnames[i], o->kwnames[k]) == 0 ? i : -1;
        }
        if (j < 0) {
            fe_fail_kind(f, call->loc, CE_TYPE, "%s() has no parameter '%s'", fn->name,
                         o->kwnames[k]);
        }
        place(f, call, fn, all, j, o->kw[k]);
    }
    for (int i = 0; i < fn->nparams; i++) {
        if (!all[i]) {
            fe_fail_kind(f, call->loc, CE_TYPE, "%s() is missing argument '%s'", fn->name,
                         fn->vars[i]->name);
        }
    }
    return all;
}

/* CjOverload.resolve: the implementation for these argument types */
static Func *
resolve(CjOverload *o, Node *call, Type **pos, Type **kw, int final, Node ***args, int *nargs)
{
    Ovl *ov = o->ctx;
    Fe fs, *f = &fs;
    memset(f, 0, sizeof fs);
    f->cx = ov->cx;
    f->file = ov->file;
    PyObject *impl = ask_registry(f, ov, o, call, pos, kw, final);
    if (!impl) {
        return NULL;
    }
    if (ov->cx->depth >= FE_MAX_DEPTH) {
        fe_fail_kind(f, call->loc, CE_VALUE, "device functions nested more than %d deep",
                     FE_MAX_DEPTH);
    }
    Func *fn = fe_read_call(ov->cx, impl, ov->boundscheck, ov->offers);
    size_t n = strlen(call->fn->name);
    if (strncmp(fn->name, call->fn->name, n) != 0 || (fn->name[n] && fn->name[n] != '_')) {
        /* named for what the kernel calls (Numba's implementations are all `impl`) */
        fn->name = fe_unique_name(ov->cx, call->fn->name);
    }
    *args = order_args(f, ov, o, call, fn);
    *nargs = fn->nparams;
    return fn;
}

/* the tuples of the positional arguments from each i on (npos + 1 of them,
 * the last empty), made now: typeinfer cannot make nodes */
static Node **
tails(Fe *f, Node **pos, int npos, Loc loc)
{
    Node **t = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(npos + 1));
    for (int i = npos; i >= 0; i--) {
        if (i < npos && (!pos[i] || !t[i + 1])) {
            continue;       /* a compile-time object from i on: no tuple */
        }
        Node *n = fe_new_node(f, ND_TUPLE, loc);
        n->n = npos - i;
        n->list = pos + i;
        t[i] = n;
    }
    return t;
}

/* A call whose implementation typeinfer chooses (entry: the registry's
 * overloads of it), named `name`; `first` is a method's receiver or NULL.
 * Its arguments are read once. */
static Node *
overload_call(Fe *f, PyObject *e, PyObject *first, PyObject *kws, Node *n, const char *name,
              PyObject *entry, Loc loc)
{
    Arena *a = f->cx->arena;
    CjOverload *o = cj_alloc(a, sizeof *o);
    Ovl *ov = cj_alloc(a, sizeof *ov);
    ov->cx = f->cx;
    ov->file = f->file;
    ov->entry = entry;
    ov->boundscheck = f->fn->boundscheck;
    ov->offers = fe_call_offers(f, e, first, kws, &o->pos, &o->kw);
    o->npos = ov->offers->npos;
    o->nkw = ov->offers->nkw;
    o->kwnames = ov->offers->kwnames;
    o->resolve = resolve;
    o->ctx = ov;
    ov->tails = tails(f, o->pos, o->npos, loc);
    Func *stand = cj_alloc(a, sizeof *stand);
    stand->name = name;
    stand->file = f->file;
    stand->loc = loc;
    stand->is_device = 1;
    stand->ovl = o;
    n->op = BI_DEVFUNC;
    n->fn = stand;
    /* until typeinfer orders them: the arguments that are values */
    n->list = cj_alloc(a, sizeof(Node *) * (size_t)(o->npos + 1));
    for (int i = 0; i < o->npos; i++) {
        if (o->pos[i]) {
            n->list[n->n++] = o->pos[i];
        }
    }
    n->list2 = cj_alloc(a, sizeof(Node *) * (size_t)(o->nkw + 1));
    n->kwnames = cj_alloc(a, sizeof(char *) * (size_t)(o->nkw + 1));
    for (int i = 0; i < o->nkw; i++) {
        if (o->kw[i]) {
            n->kwnames[n->n2] = o->kwnames[i];
            n->list2[n->n2++] = o->kw[i];
        }
    }
    return n;
}

/* overloaded_call := function '(' args [',' keywords] ')' where the
 * function has overloads (@overload) */
Node *
fe_overload_call(Fe *f, PyObject *e, Node *n, PyObject *func, PyObject *kws, Loc loc)
{
    return overload_call(f, e, NULL, kws, n, fe_utf8(f, fe_get(f, func, S___name__)),
                         overloads_of(f, func), loc);
}

/* cujit.extending.<table>[name] (_METHODS, _ATTRS) where cujit.extending
 * is loaded (kept); NULL when no method or attribute of that name is
 * overloaded */
static PyObject *
member_overloads(Fe *f, const char *table_name, const char *name)
{
    static PyObject *modname;
    if (!modname && !(modname = PyUnicode_InternFromString("cujit.extending"))) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *mod = PyImport_GetModule(modname);
    PyObject *table = mod ? PyObject_GetAttrString(mod, table_name) : NULL;
    PyObject *entry = table && PyDict_Check(table) ? PyDict_GetItemString(table, name) : NULL;
    Py_XINCREF(entry);
    Py_XDECREF(table);
    Py_XDECREF(mod);
    PyErr_Clear();
    return fe_keep(f, entry);
}

/* overloaded_method := expr '.' name '(' args [',' keywords] ')' where a
 * method `name` has overloads (@overload_method): the receiver is the first
 * argument; NULL when none has */
Node *
fe_method_overload(Fe *f, PyObject *e, PyObject *recv, Node *n, const char *name, Loc loc)
{
    PyObject *entry = member_overloads(f, "_METHODS", name);
    return entry ? overload_call(f, e, recv, fe_get(f, e, S_keywords), n, name, entry, loc)
                 : NULL;
}

/* overloaded_attribute := expr '.' name where an attribute `name` has
 * overloads (@overload_attribute): a call of the implementation with the
 * receiver; NULL when none has */
Node *
fe_attribute_overload(Fe *f, PyObject *e, const char *name, Loc loc)
{
    PyObject *entry = member_overloads(f, "_ATTRS", name);
    if (!entry) {
        return NULL;
    }
    PyObject *none = fe_keep(f, PyList_New(0));
    if (!none) {
        fe_fail_py(f, loc, "cujit");
    }
    Node *n = fe_new_node(f, ND_CALL, loc);
    return overload_call(f, NULL, fe_get(f, e, S_value), none, n, name, entry, loc);
}
