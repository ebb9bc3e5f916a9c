/* loops.c - for loops over more than range(): a 1-d array, a tuple (its
 * items meet in one type), enumerate(...) and zip(...) of these and of
 * range(), nested.  Each is read as a loop over a hidden index,
 *
 *     for x in seq: body   ->   _cj_seq = seq
 *                               for _cj_i in range(len(_cj_seq)):
 *                                   x = _cj_seq[_cj_i]
 *                                   body
 *
 * so typeinfer and codegen see only range loops, assignments, len() and
 * indexing (a tuple indexed by a variable: typeinfer's tuple_index_var).
 * The sequence is evaluated once, before the loop, as in Python; a local
 * variable is read in place (a shared array cannot be copied). */
#include <string.h>

#include "fe_impl.h"

typedef enum { SQ_ITEMS, SQ_RANGE, SQ_ENUM, SQ_ZIP } SeqKind;

typedef struct Seq Seq;
struct Seq {
    SeqKind kind;
    Var *var;                   /* SQ_ITEMS: the array or tuple */
    Node *start, *stop, *step;  /* SQ_RANGE (constants or hidden variables);
                                 * SQ_ENUM: start */
    Seq **kids;                 /* SQ_ENUM: 1, SQ_ZIP: nkids */
    int nkids;
    Loc loc;
};

/* statements to run before the loop */
typedef struct {
    Node **v;
    int n, cap;
} Block;

static void
add_stmt(Fe *f, Block *b, Node *s)
{
    b->v = (Node **)cj_vec_push(f->cx->arena, (void **)b->v, &b->n, &b->cap, s);
}

static Node *
var_node(Fe *f, Var *v, Loc loc)
{
    Node *n = fe_new_node(f, ND_VAR, loc);
    n->var = v;
    return n;
}

static Node *
int_node(Fe *f, int64_t v, Loc loc)
{
    Const c = {.kind = CK_INT, .weak = 1, .dt = DT_I64, .i = v};
    return fe_const_node(f, loc, c);
}

/* a variable of the loop's own, named so that no Python name meets it */
static Var *
hidden_var(Fe *f, const char *what, Loc loc)
{
    return fe_add_var(f, cj_aprintf(f->cx->arena, "_cj_%s%d", what, f->nvars), loc, 0);
}

/* `name = value` as an IR statement */
static Node *
assign_node(Fe *f, Node *target, Node *value, Loc loc)
{
    Node *a = fe_new_node(f, ND_ASSIGN, loc);
    a->a = value;
    a->n = 1;
    a->list = cj_alloc(f->cx->arena, sizeof(Node *));
    a->list[0] = target;
    return a;
}

/* arithmetic of Python int constants (-3, N + 1) */
static int
weak_int(const Node *n)
{
    if (n->kind == ND_CONST) {
        return n->cval.weak && n->cval.kind == CK_INT;
    }
    return (n->kind == ND_UNARY && weak_int(n->a))
           || (n->kind == ND_BINOP && weak_int(n->a) && weak_int(n->b));
}

/* value evaluated once: an integer constant stays one, anything else goes
 * into a hidden variable before the loop */
static Node *
once(Fe *f, Block *pre, Node *value)
{
    int64_t v;
    if (weak_int(value) && cj_fold_int(value, &v)) {
        return int_node(f, v, value->loc);
    }
    Var *h = hidden_var(f, "v", value->loc);
    add_stmt(f, pre, assign_node(f, var_node(f, h, value->loc), value, value->loc));
    return var_node(f, h, value->loc);
}

/* another use of a node `once` gave: a new node for the same value */
static Node *
again(Fe *f, const Node *x, Loc loc)
{
    if (x->kind == ND_VAR) {
        return var_node(f, x->var, loc);
    }
    return fe_const_node(f, loc, x->cval);
}

static Node *
binop_node(Fe *f, int op, Node *a, Node *b, Loc loc)
{
    Node *n = fe_new_node(f, ND_BINOP, loc);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

static Node *
call_node(Fe *f, int bi, Node **args, int n, Loc loc)
{
    Node *c = fe_new_node(f, ND_CALL, loc);
    c->op = bi;
    c->n = n;
    c->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)(n + 1));
    memcpy(c->list, args, sizeof(Node *) * (size_t)n);
    return c;
}

/* ---- reading the sequence ---- */

static Seq *read_seq(Fe *f, PyObject *it, Block *pre);

static Seq *
new_seq(Fe *f, SeqKind k, Loc loc)
{
    Seq *s = cj_alloc(f->cx->arena, sizeof *s);
    s->kind = k;
    s->loc = loc;
    return s;
}

/* Python's builtin `name` (enumerate, zip) */
static int
is_py_builtin(const Resolved *r, const char *name)
{
    return r->value && r->value == PyDict_GetItemString(fe_builtins_dict, name);
}

/* range(...) inside enumerate or zip: start, stop, step read once */
static Seq *
range_seq(Fe *f, PyObject *call, Block *pre, Loc loc)
{
    if (PyList_GET_SIZE(fe_get(f, call, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "range() inside enumerate() or zip() takes no keywords "
                     "(unroll= applies to a loop directly over jit.range)");
    }
    int na;
    Node **a = fe_expr_list(f, fe_get(f, call, S_args), &na);
    if (na < 1 || na > 3) {
        fe_fail_kind(f, loc, CE_TYPE, "range() expects 1 to 3 arguments, got %d", na);
    }
    Seq *s = new_seq(f, SQ_RANGE, loc);
    s->start = once(f, pre, na == 1 ? int_node(f, 0, loc) : a[0]);
    s->stop = once(f, pre, na == 1 ? a[0] : a[1]);
    s->step = once(f, pre, na == 3 ? a[2] : int_node(f, 1, loc));
    int64_t c;
    if (cj_fold_int(s->step, &c) && c == 0) {
        fe_fail_kind(f, loc, CE_VALUE, "range() step must not be zero");
    }
    return s;
}

/* enumerate(seq [, start]) */
static Seq *
enumerate_seq(Fe *f, PyObject *call, Block *pre, Loc loc)
{
    PyObject *args = fe_get(f, call, S_args), *kws = fe_get(f, call, S_keywords);
    Py_ssize_t na = PyList_GET_SIZE(args), nk = PyList_GET_SIZE(kws);
    PyObject *start = na == 2 ? PyList_GET_ITEM(args, 1) : NULL;
    if (nk == 1 && na == 1 && fe_get(f, PyList_GET_ITEM(kws, 0), S_arg) != Py_None
        && strcmp(fe_utf8(f, fe_get(f, PyList_GET_ITEM(kws, 0), S_arg)), "start") == 0) {
        start = fe_get(f, PyList_GET_ITEM(kws, 0), S_value);
        nk = 0;
    }
    if (na < 1 || na > 2 || nk) {
        fe_fail_kind(f, loc, CE_TYPE, "enumerate() takes a sequence and an optional start");
    }
    Seq *s = new_seq(f, SQ_ENUM, loc);
    s->kids = cj_alloc(f->cx->arena, sizeof(Seq *));
    s->kids[0] = read_seq(f, PyList_GET_ITEM(args, 0), pre);
    s->nkids = 1;
    s->start = once(f, pre, start ? fe_expr(f, start) : int_node(f, 0, loc));
    return s;
}

/* zip(seq, seq ...) */
static Seq *
zip_seq(Fe *f, PyObject *call, Block *pre, Loc loc)
{
    PyObject *args = fe_get(f, call, S_args);
    Py_ssize_t na = PyList_GET_SIZE(args);
    if (na < 1 || PyList_GET_SIZE(fe_get(f, call, S_keywords))) {
        fe_fail_kind(f, loc, CE_TYPE, "zip() in a kernel takes one or more sequences and no "
                     "keywords");
    }
    Seq *s = new_seq(f, SQ_ZIP, loc);
    s->kids = cj_alloc(f->cx->arena, sizeof(Seq *) * (size_t)na);
    for (Py_ssize_t i = 0; i < na; i++) {
        s->kids[s->nkids++] = read_seq(f, PyList_GET_ITEM(args, i), pre);
    }
    return s;
}

/* seq := range(...) | enumerate(seq [, start]) | zip(seq, ...) | expr
 * (an array or a tuple) */
static Seq *
read_seq(Fe *f, PyObject *it, Block *pre)
{
    Loc loc = fe_loc_of(f, it);
    PyObject *fn = fe_is(it, A_Call) ? fe_get(f, it, S_func) : NULL;
    Resolved r;
    if (fn && (fe_is(fn, A_Name) || fe_is(fn, A_Attribute)) && fe_resolve(f, fn, &r)) {
        if (r.kind == R_BUILTIN && r.bi == BI_RANGE) {
            return range_seq(f, it, pre, loc);
        }
        if (is_py_builtin(&r, "enumerate")) {
            return enumerate_seq(f, it, pre, loc);
        }
        if (is_py_builtin(&r, "zip")) {
            return zip_seq(f, it, pre, loc);
        }
    }
    Seq *s = new_seq(f, SQ_ITEMS, loc);
    if (fe_is(it, A_Name) && fe_is_local_name(f, fe_get(f, it, S_id))) {
        s->var = fe_name_expr(f, it, loc)->var;
        return s;
    }
    s->var = hidden_var(f, "seq", loc);
    add_stmt(f, pre, assign_node(f, var_node(f, s->var, loc), fe_expr(f, it), loc));
    return s;
}

/* ---- the length and the items ---- */

/* the step, or -step for a count downwards */
static Node *
step_node(Fe *f, const Seq *s, int up, Loc loc)
{
    if (up) {
        return again(f, s->step, loc);
    }
    Node *neg = fe_new_node(f, ND_UNARY, loc);
    neg->op = OP_NEG;
    neg->a = again(f, s->step, loc);
    return neg;
}

/* max(0, (stop - start + step - 1) // step) for a step > 0, with the
 * signs turned for a step < 0 */
static Node *
range_count(Fe *f, const Seq *s, int up, Loc loc)
{
    Node *lo = again(f, up ? s->start : s->stop, loc), *hi = again(f, up ? s->stop : s->start, loc);
    Node *d = binop_node(f, OP_SUB, hi, lo, loc);
    int64_t c;
    if (!(cj_fold_int(s->step, &c) && (c == 1 || c == -1))) {
        Node *num = binop_node(f, OP_SUB, binop_node(f, OP_ADD, d, step_node(f, s, up, loc), loc),
                               int_node(f, 1, loc), loc);
        d = binop_node(f, OP_FLOORDIV, num, step_node(f, s, up, loc), loc);
    }
    Node *args[2] = {int_node(f, 0, loc), d};
    return call_node(f, BI_MAX, args, 2, loc);
}

/* the number of turns of the loop */
static Node *
seq_len(Fe *f, const Seq *s, Loc loc)
{
    switch (s->kind) {
    case SQ_ITEMS: {
        Node *v = var_node(f, s->var, loc);
        return call_node(f, BI_LEN, &v, 1, loc);
    }
    case SQ_RANGE: {
        int64_t c;
        if (cj_fold_int(s->step, &c)) {
            return range_count(f, s, c > 0, loc);
        }
        Node *cond = fe_new_node(f, ND_COMPARE, loc);
        cond->n = 2;
        cond->list = cj_alloc(f->cx->arena, sizeof(Node *) * 2);
        cond->list[0] = again(f, s->step, loc);
        cond->list[1] = int_node(f, 0, loc);
        cond->ops = cj_alloc(f->cx->arena, sizeof(int));
        cond->ops[0] = OP_GT;
        Node *n = fe_new_node(f, ND_IFEXP, loc);
        n->a = cond;
        n->b = range_count(f, s, 1, loc);
        n->c = range_count(f, s, 0, loc);
        return n;
    }
    case SQ_ENUM:
        return seq_len(f, s->kids[0], loc);
    case SQ_ZIP: {
        if (s->nkids == 1) {
            return seq_len(f, s->kids[0], loc);
        }
        Node **lens = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)s->nkids);
        for (int i = 0; i < s->nkids; i++) {
            lens[i] = seq_len(f, s->kids[i], loc);
        }
        return call_node(f, BI_MIN, lens, s->nkids, loc);
    }
    }
    return NULL;
}

/* start + i (enumerate's count) */
static Node *
count_node(Fe *f, const Seq *s, Var *iv, Loc loc)
{
    int64_t c;
    if (cj_fold_int(s->start, &c) && c == 0) {
        return var_node(f, iv, loc);
    }
    return binop_node(f, OP_ADD, again(f, s->start, loc), var_node(f, iv, loc), loc);
}

/* the item of turn iv */
static Node *
seq_item(Fe *f, const Seq *s, Var *iv, Loc loc)
{
    switch (s->kind) {
    case SQ_ITEMS: {
        Node *ix = fe_new_node(f, ND_INDEX, loc);
        ix->a = var_node(f, s->var, loc);
        ix->n = 1;
        ix->list = cj_alloc(f->cx->arena, sizeof(Node *));
        ix->list[0] = var_node(f, iv, loc);
        return ix;
    }
    case SQ_RANGE:
        return binop_node(f, OP_ADD, again(f, s->start, loc),
                          binop_node(f, OP_MUL, var_node(f, iv, loc), again(f, s->step, loc),
                                     loc), loc);
    case SQ_ENUM:
    case SQ_ZIP: {
        Node *t = fe_new_node(f, ND_TUPLE, loc);
        t->n = s->kind == SQ_ENUM ? 2 : s->nkids;
        t->list = cj_alloc(f->cx->arena, sizeof(Node *) * (size_t)t->n);
        for (int i = 0; i < t->n; i++) {
            t->list[i] = s->kind == SQ_ENUM && i == 0 ? count_node(f, s, iv, loc)
                         : seq_item(f, s->kids[s->kind == SQ_ENUM ? 0 : i], iv, loc);
        }
        return t;
    }
    }
    return NULL;
}

/* target := name | '(' target, ... ')': a tuple target over enumerate or
 * zip takes the items one by one (no tuple is built); any other target
 * takes the item */
static void
bind_items(Fe *f, PyObject *tg, const Seq *s, Var *iv, Block *body)
{
    Loc loc = fe_loc_of(f, tg);
    PyObject *elts = fe_is(tg, A_Tuple) || fe_is(tg, A_List) ? fe_get(f, tg, S_elts) : NULL;
    Py_ssize_t n = elts ? PyList_GET_SIZE(elts) : -1;
    int starred = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        starred |= fe_is(PyList_GET_ITEM(elts, i), A_Starred);
    }
    if (!starred && ((s->kind == SQ_ENUM && n == 2) || (s->kind == SQ_ZIP && n == s->nkids))) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *el = PyList_GET_ITEM(elts, i);
            if (s->kind == SQ_ENUM && i == 0) {
                add_stmt(f, body, assign_node(f, fe_target(f, el), count_node(f, s, iv, loc),
                                              loc));
            } else {
                bind_items(f, el, s->kids[s->kind == SQ_ENUM ? 0 : i], iv, body);
            }
        }
        return;
    }
    add_stmt(f, body, assign_node(f, fe_target(f, tg), seq_item(f, s, iv, loc), loc));
}

/* ---- loops unrolled at compile time ---- */

/* literal_unroll(x) (numba.literal_unroll, numba.cuda.misc.special's,
 * cujit.cuda's): x, else NULL */
static PyObject *
literal_unroll_arg(Fe *f, PyObject *it)
{
    if (!fe_is(it, A_Call)) {
        return NULL;
    }
    PyObject *fn = fe_get(f, it, S_func), *args = fe_get(f, it, S_args);
    Resolved r;
    if (!(fe_is(fn, A_Name) || fe_is(fn, A_Attribute)) || !fe_resolve(f, fn, &r) || !r.value) {
        return NULL;
    }
    PyObject *nm = PyObject_GetAttr(r.value, fe_names[S___name__]);
    PyObject *mod = nm ? PyObject_GetAttr(r.value, fe_names[S___module__]) : NULL;
    int is = nm && mod && PyUnicode_Check(nm) && PyUnicode_Check(mod)
             && PyUnicode_CompareWithASCIIString(nm, "literal_unroll") == 0
             && (PyUnicode_Tailmatch(mod, fe_keep(f, PyUnicode_FromString("numba")), 0, 5, -1) == 1
                 || PyUnicode_Tailmatch(mod, fe_keep(f, PyUnicode_FromString("cujit")), 0, 5, -1)
                    == 1);
    Py_XDECREF(nm);
    Py_XDECREF(mod);
    PyErr_Clear();
    if (!is) {
        return NULL;
    }
    if (PyList_GET_SIZE(args) != 1 || PyList_GET_SIZE(fe_get(f, it, S_keywords))) {
        fe_fail_kind(f, fe_loc_of(f, it), CE_TYPE, "literal_unroll() takes one argument, a "
                     "tuple");
    }
    return PyList_GET_ITEM(args, 0);
}

/* does a statement list break or continue the loop it is the body of? */
static int
breaks_out(Fe *f, PyObject *list, Loc *where)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        if (fe_is(s, A_Break) || fe_is(s, A_Continue)) {
            *where = fe_loc_of(f, s);
            return 1;
        }
        if (fe_is(s, A_If) && (breaks_out(f, fe_get(f, s, S_body), where)
                               || breaks_out(f, fe_get(f, s, S_orelse), where))) {
            return 1;
        }
    }
    return 0;
}

/* the tuple known at compile time that `for x in it` unrolls over: a
 * global or closure tuple (literal_unroll(t) or not) holding a NumPy array,
 * whose items cannot be one variable's, or any such tuple given to
 * literal_unroll; NULL for a loop read as a range loop */
static PyObject *
unrolled_tuple(Fe *f, PyObject *it, int asked)
{
    Resolved r;
    if (!(fe_is(it, A_Name) || fe_is(it, A_Attribute)) || !fe_resolve(f, it, &r)
        || !r.value || !PyTuple_Check(r.value)) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(r.value) && !asked; i++) {
        asked = strcmp(Py_TYPE(PyTuple_GET_ITEM(r.value, i))->tp_name, "numpy.ndarray") == 0;
    }
    return asked ? r.value : NULL;
}

/* unrolled := 'for' name 'in' tuple ':' block: the block read once per item,
 * with the name bound to the item as a global would be (each item typed on
 * its own, as Numba's literal_unroll does); the else block after them */
static Node *
unrolled_for(Fe *f, PyObject *s, PyObject *items, Loc loc)
{
    PyObject *tg = fe_get(f, s, S_target), *body = fe_get(f, s, S_body);
    Loc where;
    if (!fe_is(tg, A_Name)) {
        fe_fail_kind(f, fe_loc_of(f, tg), CE_TYPE, "a loop unrolled over a tuple of arrays "
                     "takes one name as its target");
    }
    if (breaks_out(f, body, &where)) {
        fe_fail(f, where, "break and continue are not supported in a loop unrolled over a "
                "tuple of arrays (literal_unroll); use a flag");
    }
    PyObject *id = fe_get(f, tg, S_id);
    if (!f->aliases) {
        f->aliases = fe_keep(f, PyDict_New());
    }
    if (!f->aliases || PySet_Discard(f->locals, id) < 0) {
        fe_fail_py(f, loc, "cujit");
    }
    Block blk = {NULL, 0, 0};
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); i++) {
        if (PyDict_SetItem(f->aliases, id, PyTuple_GET_ITEM(items, i)) < 0) {
            fe_fail_py(f, loc, "cujit");
        }
        int nb;
        Node **stmts = fe_stmts(f, body, &nb);
        for (int k = 0; k < nb; k++) {
            add_stmt(f, &blk, stmts[k]);
        }
    }
    if (PyDict_DelItem(f->aliases, id) < 0 || PySet_Add(f->locals, id) < 0) {
        fe_fail_py(f, loc, "cujit");
    }
    int ne;
    Node **other = fe_stmts(f, fe_get(f, s, S_orelse), &ne);
    for (int k = 0; k < ne; k++) {
        add_stmt(f, &blk, other[k]);
    }
    Node *n = fe_new_node(f, ND_IF, loc);
    Const yes = {.kind = CK_BOOL, .dt = DT_BOOL, .i = 1};
    n->a = fe_const_node(f, loc, yes);
    n->list = blk.v;
    n->n = blk.n;
    return n;
}

/* for := 'for' target 'in' seq ':' block [ 'else' ':' block ] over what is
 * not a plain range(): read as a range loop over a hidden index, with the
 * statements that read the sequence once before it (a block: an if on a
 * constant True, which codegen prints as a bare block) */
Node *
fe_for_items(Fe *f, PyObject *s, Loc loc)
{
    Block pre = {NULL, 0, 0}, body = {NULL, 0, 0};
    PyObject *it = fe_get(f, s, S_iter), *inner = literal_unroll_arg(f, it);
    PyObject *items = unrolled_tuple(f, inner ? inner : it, inner != NULL);
    if (items) {
        return unrolled_for(f, s, items, loc);
    }
    Seq *seq = read_seq(f, inner ? inner : it, &pre);
    Var *iv = hidden_var(f, "i", loc);
    Node *n = fe_new_node(f, ND_FOR, loc);
    n->var = iv;
    n->b = seq_len(f, seq, loc);
    bind_items(f, fe_get(f, s, S_target), seq, iv, &body);
    int nb;
    Node **user = fe_stmts(f, fe_get(f, s, S_body), &nb);
    for (int i = 0; i < nb; i++) {
        add_stmt(f, &body, user[i]);
    }
    n->list = body.v;
    n->n = body.n;
    n->list2 = fe_stmts(f, fe_get(f, s, S_orelse), &n->n2);
    if (!pre.n) {
        return n;
    }
    add_stmt(f, &pre, n);
    Node *blk = fe_new_node(f, ND_IF, loc);
    Const yes = {.kind = CK_BOOL, .dt = DT_BOOL, .i = 1};
    blk->a = fe_const_node(f, loc, yes);
    blk->list = pre.v;
    blk->n = pre.n;
    return blk;
}
