/* webs.c - a local name split into one variable per web of its definitions
 * and uses (Numba types each SSA version of a name apart):
 *
 *     b = 1          # web 1: b holds an int64
 *     use(b)
 *     b = (1, 2)     # web 2: another variable, of a tuple type
 *     use(b[0])
 *
 * Reaching definitions are computed over the structured IR (if, while, for,
 * break, continue, return, raise; a loop's body runs to a fixed point).  A use
 * joins all the definitions that reach it into one web; each web becomes a
 * Var of its own (the first keeps the name's Var, the others get a C++ name
 * of their own), so typeinfer types them apart, and a use reached by
 * definitions of two types stays its type error.  A parameter's value at
 * entry is a definition.  A use that no definition reaches (Python's
 * UnboundLocalError) joins the name's first web; typeinfer's
 * definite-assignment walk warns about it and codegen zero-initializes it.
 *
 * In a cuda.jit kernel (FeCtx.numba) a loop that assigns a name also read
 * apart from the loop (before it) gets a copy `name = name` in front of it,
 * and an if that does so one at the end of each branch the outer version
 * goes through, as Numba's SSA gives their phi a version of its own:
 *
 *     w = words[i]        # uint32, read by v = w
 *     v = w
 *     w = w               # the copy: the loop's w is another variable
 *     while w: w &= w - 1 # int64 there; v stays a copy of the uint32
 *
 * so that what the loop makes of the name does not change the type of the
 * reads before it (with_copies). */
#include <string.h>

#include "fe_impl.h"

typedef struct {
    uint64_t *bits;     /* the definitions that reach this point */
    int dead;           /* no path reaches this point */
} St;

typedef struct Loop Loop;
struct Loop {
    St brk, cont;       /* joined at each break / continue of the loop */
    Loop *up;
};

typedef struct {
    Fe *f;
    int np;             /* parameters: definitions 0 .. np - 1 */
    int nbits;          /* np + nodes: a definition by a node is np + its id */
    int nwords;
    Var **defvar;       /* by definition: its name's Var, NULL when not one */
    int *parent;        /* union-find over definitions */
    int *userep;        /* by node id: a definition reaching that use, or -1 */
    Node **nodes;       /* by node id: the ND_VAR / ND_FOR nodes met */
    unsigned char *unset;   /* by node id: x op= y where no definition of x reaches */
    Loop *loop;
    /* loop copies (numba only; NULL otherwise), by node id: */
    uint64_t **reach;       /* a read: the definitions that reach it */
    uint64_t **entry;       /* a loop or an if: the definitions that reach its entry */
    uint64_t **ends;        /* an if: those reaching the end of its two branches (2 per
                             * node: then, else; NULL where the end is never reached) */
    unsigned char *fixed;   /* by Var id: a shared, local or constant array, never copied */
} Webs;

static void web_stmts(Webs *w, Node **list, int n, St *s);

static int
find(Webs *w, int d)
{
    while (w->parent[d] != d) {
        w->parent[d] = w->parent[w->parent[d]];
        d = w->parent[d];
    }
    return d;
}

static void
unite(Webs *w, int a, int b)
{
    a = find(w, a);
    b = find(w, b);
    if (a != b) {
        /* the lower definition (earlier in the function) is the root */
        w->parent[a > b ? a : b] = a < b ? a : b;
    }
}

static St
st_new(Webs *w, int dead)
{
    St s;
    s.bits = cj_alloc(w->f->cx->arena, sizeof(uint64_t) * (size_t)w->nwords);
    s.dead = dead;
    return s;
}

static St
st_copy(Webs *w, const St *s)
{
    St c = st_new(w, s->dead);
    memcpy(c.bits, s->bits, sizeof(uint64_t) * (size_t)w->nwords);
    return c;
}

/* into |= from (a dead state joins nothing); 1 when into grew */
static int
st_join(Webs *w, St *into, const St *from)
{
    if (from->dead) {
        return 0;
    }
    int grew = into->dead;
    if (into->dead) {
        memcpy(into->bits, from->bits, sizeof(uint64_t) * (size_t)w->nwords);
    }
    for (int i = 0; i < w->nwords; i++) {
        grew |= (into->bits[i] | from->bits[i]) != into->bits[i];
        into->bits[i] |= from->bits[i];
    }
    into->dead = 0;
    return grew;
}

/* *into |= the definitions of s (allocated on first use) */
static void
bits_or(Webs *w, uint64_t **into, const St *s)
{
    if (s->dead) {
        return;
    }
    if (!*into) {
        *into = cj_alloc(w->f->cx->arena, sizeof(uint64_t) * (size_t)w->nwords);
    }
    for (int i = 0; i < w->nwords; i++) {
        (*into)[i] |= s->bits[i];
    }
}

/* a read of v: every definition of v reaching it joins one web */
static void
use(Webs *w, Node *n, const St *s)
{
    w->nodes[n->id] = n;
    if (w->reach) {
        bits_or(w, &w->reach[n->id], s);
    }
    for (int i = 0; !s->dead && i < w->nwords; i++) {
        for (uint64_t m = s->bits[i]; m; m &= m - 1) {
            int d = i * 64 + __builtin_ctzll(m);
            if (w->defvar[d] != n->var) {
                continue;
            }
            if (w->userep[n->id] < 0) {
                w->userep[n->id] = d;
            }
            unite(w, d, w->userep[n->id]);
        }
    }
}

/* definition d of v: it alone reaches what follows */
static void
define(Webs *w, int d, Var *v, St *s)
{
    w->defvar[d] = v;
    for (int i = 0; i < w->nwords; i++) {
        for (uint64_t m = s->bits[i]; m; m &= m - 1) {
            int k = i * 64 + __builtin_ctzll(m);
            if (w->defvar[k] == v) {
                s->bits[i] &= ~((uint64_t)1 << (k % 64));
            }
        }
    }
    s->bits[d / 64] |= (uint64_t)1 << (d % 64);
}

static void
web_expr(Webs *w, Node *n, const St *s)
{
    if (!n) {
        return;
    }
    switch (n->kind) {
    case ND_VAR:
        use(w, n, s);
        return;
    case ND_CONST: case ND_BINOP: case ND_UNARY: case ND_COMPARE: case ND_BOOLOP:
    case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL: case ND_TUPLE: case ND_SLICE:
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_IF: case ND_WHILE: case ND_FOR: case ND_BREAK:
    case ND_CONTINUE: case ND_PASS: case ND_RETURN: case ND_ASSERT: case ND_EXPR:
        break;
    }
    web_expr(w, n->a, s);
    web_expr(w, n->b, s);
    web_expr(w, n->c, s);
    for (int i = 0; i < n->n; i++) {
        web_expr(w, n->list[i], s);
    }
    for (int i = 0; i < n->n2; i++) {
        web_expr(w, n->list2[i], s);
    }
}

/* an assignment's target: names are defined, elements and fields read */
static void
web_target(Webs *w, Node *n, St *s)
{
    if (n->kind == ND_VAR) {
        w->nodes[n->id] = n;
        define(w, w->np + n->id, n->var, s);
    } else if (n->kind == ND_TUPLE) {
        for (int i = 0; i < n->n; i++) {
            web_target(w, n->list[i], s);
        }
    } else {
        web_expr(w, n, s);
    }
}

/* x op= y: the read and the write of x are one variable in C++ */
static void
web_augassign(Webs *w, Node *n, St *s)
{
    web_expr(w, n->a, s);
    web_expr(w, n->b, s);
    if (n->a->kind == ND_VAR) {
        int d = w->np + n->a->id;
        w->unset[n->a->id] |= w->userep[n->a->id] < 0 && !s->dead;
        define(w, d, n->a->var, s);
        if (w->userep[n->a->id] >= 0) {
            unite(w, d, w->userep[n->a->id]);
        }
        w->userep[n->a->id] = d;
    }
}

static void
web_if(Webs *w, Node *n, St *s)
{
    web_expr(w, n->a, s);
    St x = st_copy(w, s), y = st_copy(w, s);
    int truth;
    int known = cj_fold_truth(n->a, &truth);
    if (w->entry && !known) {
        bits_or(w, &w->entry[n->id], s);
    }
    web_stmts(w, n->list, n->n, &x);
    web_stmts(w, n->list2, n->n2, &y);
    if (w->entry && !known) {
        bits_or(w, &w->ends[2 * n->id], &x);
        bits_or(w, &w->ends[2 * n->id + 1], &y);
    }
    /* a constant condition: the other branch is never taken */
    x.dead |= known && !truth;
    y.dead |= known && truth;
    s->dead = 1;
    st_join(w, s, &x);
    st_join(w, s, &y);
}

/* while / for: the body runs from the loop's head until the head's
 * definitions stop growing; `s` leaves as the head (the loop ended). */
static void
web_loop(Webs *w, Node *n, St *s, St *brk)
{
    Loop lp;
    lp.up = w->loop;
    w->loop = &lp;
    if (w->entry) {
        bits_or(w, &w->entry[n->id], s);
    }
    for (int grew = 1; grew;) {
        if (n->kind == ND_WHILE) {
            web_expr(w, n->a, s);
        }
        lp.brk = st_new(w, 1);
        lp.cont = st_new(w, 1);
        St body = st_copy(w, s);
        if (n->kind == ND_FOR) {
            w->nodes[n->id] = n;
            define(w, w->np + n->id, n->var, &body);
        }
        web_stmts(w, n->list, n->n, &body);
        grew = st_join(w, s, &body);
        grew |= st_join(w, s, &lp.cont);
    }
    w->loop = lp.up;
    *brk = lp.brk;
}

static void
web_while(Webs *w, Node *n, St *s)
{
    St brk;
    web_loop(w, n, s, &brk);
    int64_t c;
    if (n->a->kind == ND_CONST && cj_fold_int(n->a, &c) && c != 0) {
        s->dead = 1;    /* while True: it ends at a break only */
    }
    web_stmts(w, n->list2, n->n2, s);
    st_join(w, s, &brk);
}

static void
web_for(Webs *w, Node *n, St *s)
{
    web_expr(w, n->a, s);
    web_expr(w, n->b, s);
    web_expr(w, n->c, s);
    St brk;
    web_loop(w, n, s, &brk);
    web_stmts(w, n->list2, n->n2, s);
    st_join(w, s, &brk);
}

static void
web_stmt(Webs *w, Node *n, St *s)
{
    switch (n->kind) {
    case ND_ASSIGN:
        web_expr(w, n->a, s);
        for (int i = 0; i < n->n; i++) {
            web_target(w, n->list[i], s);
        }
        if (w->fixed && n->a->kind == ND_CALL && n->list[0]->kind == ND_VAR
            && (n->a->op == BI_SHARED_MEMORY || n->a->op == BI_LOCAL_MEMORY
                || n->a->op == BI_CONST_ARRAY || n->a->op == BI_NPFUNC)) {
            w->fixed[n->list[0]->var->id] = 1;
        }
        return;
    case ND_AUGASSIGN:
        web_augassign(w, n, s);
        return;
    case ND_IF:
        web_if(w, n, s);
        return;
    case ND_WHILE:
        web_while(w, n, s);
        return;
    case ND_FOR:
        web_for(w, n, s);
        return;
    case ND_RETURN:
        web_expr(w, n->a, s);
        s->dead = 1;
        return;
    case ND_BREAK:
    case ND_CONTINUE:
        if (w->loop) {
            st_join(w, n->kind == ND_BREAK ? &w->loop->brk : &w->loop->cont, s);
        }
        s->dead = 1;
        return;
    case ND_ASSERT:
        web_expr(w, n->a, s);
        s->dead |= n->op == ND_RAISE_OP;
        return;
    case ND_EXPR:
        web_expr(w, n->a, s);
        return;
    case ND_PASS:
        return;
    case ND_CONST: case ND_VAR: case ND_BINOP: case ND_UNARY: case ND_COMPARE:
    case ND_BOOLOP: case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL:
    case ND_TUPLE: case ND_SLICE:
        break;
    }
    web_expr(w, n, s);
}

static void
web_stmts(Webs *w, Node **list, int n, St *s)
{
    for (int i = 0; i < n; i++) {
        web_stmt(w, list[i], s);
    }
}

/* a C++ name no other variable of the function has: b_2, b_3 ... */
static const char *
fresh_cname(Fe *f, Var *v, int k)
{
    for (;; k++) {
        const char *c = cj_aprintf(f->cx->arena, "%s_%d", v->cname, k);
        int taken = 0;
        for (int i = 0; i < f->nvars && !taken; i++) {
            taken = strcmp(f->vars[i]->cname, c) == 0 || strcmp(f->vars[i]->name, c) == 0;
        }
        if (!taken) {
            return c;
        }
    }
}

/* the Var of web `root`: the name's first web keeps the name's Var */
static Var *
web_var(Webs *w, Var **byroot, int root, int *count)
{
    if (byroot[root]) {
        return byroot[root];
    }
    Var *v = w->defvar[root];
    if (count[v->id]++ == 0) {
        return byroot[root] = v;
    }
    Fe *f = w->f;
    Var *c = cj_alloc(f->cx->arena, sizeof(Var));
    *c = *v;
    c->is_param = 0;
    c->cname = fresh_cname(f, v, count[v->id]);
    if (root >= w->np && w->nodes[root - w->np]) {
        c->loc = w->nodes[root - w->np]->loc;
    }
    c->id = f->nvars;
    f->vars = (Var **)cj_vec_push(f->cx->arena, (void **)f->vars, &f->nvars, &f->capvars, c);
    return byroot[root] = c;
}

/* the name's first definition, or -1 */
static int
first_def(Webs *w, const Var *v)
{
    for (int d = 0; d < w->nbits; d++) {
        if (w->defvar[d] == v) {
            return d;
        }
    }
    return -1;
}

/* every Var node gets its web's Var, in the order of the definitions */
static void
rename_nodes(Webs *w)
{
    Fe *f = w->f;
    int nv = f->nvars;
    Var **byroot = cj_alloc(f->cx->arena, sizeof(Var *) * (size_t)w->nbits);
    int *count = cj_alloc(f->cx->arena, sizeof(int) * (size_t)(nv + 1));
    for (int id = 0; id < f->nnodes; id++) {
        if (w->unset[id]) {
            unite(w, w->np + id, first_def(w, w->nodes[id]->var));
        }
    }
    for (int d = w->np; d < w->nbits; d++) {
        if (w->defvar[d] && w->defvar[d]->byref) {
            unite(w, d, first_def(w, w->defvar[d]));    /* nonlocal: the caller's one variable */
        }
    }
    for (int d = 0; d < w->nbits; d++) {
        if (w->defvar[d]) {
            web_var(w, byroot, find(w, d), count);
        }
    }
    for (int id = 0; id < f->nnodes; id++) {
        Node *n = w->nodes[id];
        if (!n) {
            continue;
        }
        int d = w->defvar[w->np + id] ? w->np + id : w->userep[id];
        if (d < 0) {
            d = first_def(w, n->var);     /* no definition reaches it */
        }
        if (d >= 0) {
            n->var = web_var(w, byroot, find(w, d), count);
        }
    }
}

/* ---- loop copies (Numba's SSA versions at a loop's head) ---- */

/* in[id] = 1 for n and every node under it */
static void
mark_under(Node *n, unsigned char *in)
{
    if (!n) {
        return;
    }
    in[n->id] = 1;
    mark_under(n->a, in);
    mark_under(n->b, in);
    mark_under(n->c, in);
    for (int i = 0; i < n->n; i++) {
        mark_under(n->list[i], in);
    }
    for (int i = 0; i < n->n2; i++) {
        mark_under(n->list2[i], in);
    }
}

/* the nodes whose definitions meet at the construct's phi: a loop's
 * iterations (its body, a while's test, a for's own binding; not a for's
 * range, evaluated once before, nor the else block, run after); an if's
 * two branches (not its test) */
static unsigned char *
phi_nodes(Webs *w, Node *n)
{
    unsigned char *in = cj_alloc(w->f->cx->arena, (size_t)w->f->nnodes + 1);
    in[n->id] = n->kind == ND_FOR;
    if (n->kind == ND_WHILE) {
        mark_under(n->a, in);
    }
    for (int i = 0; i < n->n; i++) {
        mark_under(n->list[i], in);
    }
    for (int i = 0; n->kind == ND_IF && i < n->n2; i++) {
        mark_under(n->list2[i], in);
    }
    return in;
}

static int
bit(const uint64_t *b, int d)
{
    return b && (b[d / 64] >> (d % 64)) & 1;
}

/* which definitions of v reach read r: *inside, one made in loop or if n;
 * *outside, one from before n that reaches its entry */
static void
reaching_sides(Webs *w, Node *n, const unsigned char *in, int r, const int *defs, int ndefs,
               int *inside, int *outside)
{
    *inside = *outside = 0;
    for (int k = 0; k < ndefs; k++) {
        int d = defs[k];
        if (!bit(w->reach[r], d)) {
            continue;
        }
        int here = d >= w->np && in[d - w->np];
        *inside |= here;
        *outside |= !here && bit(w->entry[n->id], d);
    }
}

/* 1 when n needs a copy of v (Numba types the version of v where the two
 * meet, its phi, apart): some read outside n (before it, an if's test) sees
 * only definitions from before n that reach its entry, and some read of the
 * name (not a for's own binding) sees one of those and one made in n.  A for
 * target read only in its body has no such read, so two loops `for v in t2`
 * and `for v in t3` over tuples of other types stay apart.  defs: the
 * definitions of v */
static int
needs_copy(Webs *w, Node *n, const unsigned char *in, const Var *v, const int *defs, int ndefs)
{
    int apart = 0, phi = 0;
    for (int r = 0; r < w->nbits - w->np; r++) {     /* the nodes analysed, not the copies */
        if (!w->reach[r] || w->nodes[r]->var != v) {
            continue;
        }
        int inside, outside;
        reaching_sides(w, n, in, r, defs, ndefs, &inside, &outside);
        apart |= !in[r] && outside && !inside;
        phi |= w->nodes[r]->kind == ND_VAR && inside && outside;
    }
    return apart && phi;
}

/* the definitions of v, into defs: their count */
static int
defs_of(Webs *w, const Var *v, int *defs)
{
    int k = 0;
    for (int d = 0; d < w->nbits; d++) {
        if (w->defvar[d] == v) {
            defs[k++] = d;
        }
    }
    return k;
}

/* `v = v`, placed in front of loop n */
static Node *
copy_stmt(Webs *w, Node *n, Var *v)
{
    Fe *f = w->f;
    Node *c = fe_new_node(f, ND_ASSIGN, n->loc);
    c->a = fe_new_node(f, ND_VAR, n->loc);
    c->a->var = v;
    c->n = 1;
    c->list = cj_alloc(f->cx->arena, sizeof(Node *));
    c->list[0] = fe_new_node(f, ND_VAR, n->loc);
    c->list[0]->var = v;
    return c;
}

/* 1 when one of v's definitions in `ends` comes from outside the construct */
static int
flows_through(Webs *w, const uint64_t *ends, const unsigned char *in, const int *defs,
              int ndefs)
{
    for (int k = 0; ends && k < ndefs; k++) {
        if (bit(ends, defs[k]) && (defs[k] < w->np || !in[defs[k] - w->np])) {
            return 1;
        }
    }
    return 0;
}

/* *list, *n with `v = v` appended (a new else block where there was none) */
static void
append_copy(Webs *w, Node *at, Var *v, Node ***list, int *n)
{
    int cap = *n;
    *list = (Node **)cj_vec_push(w->f->cx->arena, (void **)*list, n, &cap, copy_stmt(w, at, v));
}

/* the copies construct n needs for name v (read apart from it and assigned
 * in it; not by reference, not an array of a block or thread): a loop's
 * pushed onto *out (in front of it), an if's at the end of each branch
 * that the outer version of v goes through; the count made */
static int
copies_of(Webs *w, Node *n, const unsigned char *in, Var *v, int *defs, Node ***out,
          int *nout, int *cap)
{
    int ndefs = defs_of(w, v, defs);
    if (v->byref || w->fixed[v->id] || !needs_copy(w, n, in, v, defs, ndefs)) {
        return 0;
    }
    if (n->kind != ND_IF) {
        *out = (Node **)cj_vec_push(w->f->cx->arena, (void **)*out, nout, cap,
                                    copy_stmt(w, n, v));
        return 1;
    }
    int made = 0;
    if (flows_through(w, w->ends[2 * n->id], in, defs, ndefs)) {
        append_copy(w, n, v, &n->list, &n->n);
        made++;
    }
    if (flows_through(w, w->ends[2 * n->id + 1], in, defs, ndefs)) {
        append_copy(w, n, v, &n->list2, &n->n2);
        made++;
    }
    return made;
}

/* the copies loop or if n needs (copies_of), for each name assigned in it */
static int
copies_for(Webs *w, Node *n, Node ***out, int *nout, int *cap)
{
    if (!w->entry[n->id]) {
        return 0;
    }
    unsigned char *in = phi_nodes(w, n);
    unsigned char *done = cj_alloc(w->f->cx->arena, (size_t)w->f->nvars + 1);
    int *defs = cj_alloc(w->f->cx->arena, sizeof(int) * (size_t)(w->nbits + 1));
    int made = 0;
    for (int d = w->np; d < w->nbits; d++) {
        Var *v = w->defvar[d];
        if (v && in[d - w->np] && !done[v->id]) {
            done[v->id] = 1;
            made += copies_of(w, n, in, v, defs, out, nout, cap);
        }
    }
    return made;
}

/* the statements of a block, each loop preceded by its copies and each if
 * ending its branches with theirs; the count of copies made, under it too */
static int
with_copies(Webs *w, Node ***list, int *n)
{
    Node **out = NULL;
    int nout = 0, cap = 0, made = 0;
    for (int i = 0; i < *n; i++) {
        Node *s = (*list)[i];
        if (s->kind == ND_IF || s->kind == ND_WHILE || s->kind == ND_FOR) {
            made += with_copies(w, &s->list, &s->n);
            made += with_copies(w, &s->list2, &s->n2);
            made += copies_for(w, s, &out, &nout, &cap);
        }
        out = (Node **)cj_vec_push(w->f->cx->arena, (void **)out, &nout, &cap, s);
    }
    if (made) {
        *list = out;
        *n = nout;
    }
    return made;
}

/* reaching definitions over the function (above), recording what the loop
 * copies need where `track` */
static void
analyse(Fe *f, Webs *w, int track)
{
    Func *fn = f->fn;
    Arena *a = f->cx->arena;
    memset(w, 0, sizeof *w);
    w->f = f;
    w->np = fn->nparams;
    w->nbits = w->np + f->nnodes;
    w->nwords = w->nbits / 64 + 1;
    w->defvar = cj_alloc(a, sizeof(Var *) * (size_t)(w->nbits + 1));
    w->parent = cj_alloc(a, sizeof(int) * (size_t)(w->nbits + 1));
    w->userep = cj_alloc(a, sizeof(int) * (size_t)(f->nnodes + 1));
    w->nodes = cj_alloc(a, sizeof(Node *) * (size_t)(f->nnodes + 1));
    w->unset = cj_alloc(a, (size_t)f->nnodes + 1);
    if (track) {
        w->reach = cj_alloc(a, sizeof(uint64_t *) * (size_t)(f->nnodes + 1));
        w->entry = cj_alloc(a, sizeof(uint64_t *) * (size_t)(f->nnodes + 1));
        w->ends = cj_alloc(a, sizeof(uint64_t *) * (size_t)(2 * f->nnodes + 2));
        w->fixed = cj_alloc(a, (size_t)f->nvars + 1);
    }
    for (int d = 0; d < w->nbits; d++) {
        w->parent[d] = d;
    }
    for (int i = 0; i < f->nnodes; i++) {
        w->userep[i] = -1;
    }
    St s = st_new(w, 0);
    for (int p = 0; p < w->np; p++) {
        define(w, p, f->vars[p], &s);
    }
    web_stmts(w, fn->body, fn->nbody, &s);
}

/* Splits each local of the function just read into its webs (above); in a
 * cuda.jit kernel, after placing the loop copies (and so analysing twice
 * where there are any). */
void
fe_split_webs(Fe *f)
{
    Webs w;
    analyse(f, &w, f->cx->numba);
    if (f->cx->numba && with_copies(&w, &f->fn->body, &f->fn->nbody)) {
        analyse(f, &w, 0);
    }
    rename_nodes(&w);
}
