/* coarsen.c - a second entry for elementwise kernels: each thread takes
 * `vec` consecutive elements, moving whole aligned packs.
 *
 * A kernel qualifies when its body is
 *     i = <the thread's global index>
 *     if <cond>:                   or      if <i >= bound [or i >= bound2 ...]>:
 *         <body>                               return
 *                                          <body>
 * where the index is jit.grid(1) / cuda.grid(1) or blockIdx.x * blockDim.x +
 * threadIdx.x in any operand order, and the body depends on the thread only
 * through i (no thread indices, barriers, warp functions, shared memory,
 * print, assert or return in it; no parameter assigned).  A bound is an
 * integer constant or parameter, a.size, a.shape[k] or len(a) of a
 * parameter array.  One element per thread keeps too few bytes in flight
 * to reach memory bandwidth; the runtime launches this entry instead, on
 * 1-d launches whose packed arrays are aligned, with the same results.
 * ARCHITECTURE.md (section 3) says why each form is safe. */
#include <stdio.h>
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

typedef struct {
    Cg *g;
    Var *iv;
    int ok;
    Var **arr;          /* candidate arrays (1-d, C, global) */
    int narr;
    char *packable;     /* by position in arr: every access is a[i] */
    char *read, *written, *cond_written;
} Scan;

/* the kernel's parts: i = <index>; then `if cond: body` (guard), or
 * `if <i >= bound ...>: return` (guard, exits) followed by body */
typedef struct {
    Var *iv;
    Node *guard;
    int exits;
    Node **body;
    int nbody;
} Shape;

static int
arr_index(Scan *s, Var *v)
{
    for (int k = 0; k < s->narr; k++) {
        if (s->arr[k] == v) {
            return k;
        }
    }
    return -1;
}

static void scan_node(Scan *s, Node *n, int depth, int store);

static void
scan_list(Scan *s, Node **list, int n, int depth, int store)
{
    for (int i = 0; list && i < n; i++) {
        scan_node(s, list[i], depth, store);
    }
}

/* every operand and sub-statement of n, read (not a target) */
static void
scan_children(Scan *s, Node *n, int depth)
{
    scan_node(s, n->a, depth, 0);
    scan_node(s, n->b, depth, 0);
    scan_node(s, n->c, depth, 0);
    scan_list(s, n->list, n->n, depth, 0);
    scan_list(s, n->list2, n->n2, depth, 0);
}

/* a[ix], read or (store) written: packable only as a[i] */
static void
scan_index(Scan *s, Node *n, int depth, int store)
{
    int k = n->a->kind == ND_VAR ? arr_index(s, n->a->var) : -1;
    if (k < 0) {
        scan_node(s, n->a, depth, 0);
    } else {
        int plain = n->n == 1 && n->list[0]->kind == ND_VAR && n->list[0]->var == s->iv;
        if (!plain) {
            s->packable[k] = 0;
        }
        if (store) {
            s->written[k] = 1;
            s->cond_written[k] |= depth > 0;
        } else {
            s->read[k] = 1;
        }
    }
    scan_list(s, n->list, n->n, depth, 0);
}

/* a name: assigning i changes the element, assigning a parameter changes
 * what the next element of the thread sees (and may move a bound); an array
 * used whole (passed on, aliased, given to an atomic) is not packed */
static void
scan_var(Scan *s, Node *n, int store)
{
    if (n->var == s->iv || n->var->is_param) {
        s->ok &= !store;
    }
    if (n->var == s->iv) {
        return;
    }
    int k = arr_index(s, n->var);
    if (k >= 0) {
        s->packable[k] = 0;
    }
}

/* builtins whose result or effect depends on the thread beyond i, or on
 * its neighbours: the kernel keeps one element per thread */
static const unsigned char thread_bound[BI_COUNT] = {
    [BI_THREADIDX] = 1, [BI_BLOCKIDX] = 1, [BI_BLOCKDIM] = 1, [BI_GRIDDIM] = 1,
    [BI_GRID] = 1, [BI_GRIDSIZE] = 1, [BI_LANEID] = 1, [BI_SYNCTHREADS] = 1,
    [BI_SYNCWARP] = 1, [BI_THREADFENCE] = 1, [BI_THREADFENCE_BLOCK] = 1,
    [BI_THREADFENCE_SYSTEM] = 1, [BI_SHARED_MEMORY] = 1, [BI_SHFL_SYNC] = 1,
    [BI_SHFL_UP_SYNC] = 1, [BI_SHFL_DOWN_SYNC] = 1, [BI_SHFL_XOR_SYNC] = 1,
    [BI_ALL_SYNC] = 1, [BI_ANY_SYNC] = 1, [BI_BALLOT_SYNC] = 1, [BI_ACTIVEMASK] = 1,
    [BI_PRINT] = 1, [BI_SYNCTHREADS_COUNT] = 1, [BI_SYNCTHREADS_AND] = 1,
    [BI_SYNCTHREADS_OR] = 1, [BI_EQ_SYNC] = 1, [BI_LANEMASK_LT] = 1,
    [BI_BLOCK_REDUCE] = 1, [BI_WARP_REDUCE] = 1, [BI_BLOCK_SCAN] = 1, [BI_WARP_SCAN] = 1,
    [BI_MATCH_ANY_SYNC] = 1, [BI_MATCH_ALL_SYNC] = 1, [BI_CONST_ARRAY] = 1,
    /* jit.cg: groups, their collectives and memcpy_async (which writes) */
    [BI_CG_THIS_BLOCK] = 1, [BI_CG_THIS_GRID] = 1, [BI_CG_TILED_PARTITION] = 1,
    [BI_CG_COALESCED] = 1, [BI_CG_SYNC] = 1, [BI_CG_WAIT] = 1, [BI_CG_WAIT_PRIOR] = 1,
    [BI_CG_MEMCPY_ASYNC] = 1, [BI_CG_METHOD] = 1,
    /* jit.thrust writes through its iterators */
    [BI_THRUST] = 1, [BI_ARRAY_BEGIN] = 1, [BI_ARRAY_END] = 1,
    /* a device function may write the arrays it is given */
    [BI_DEVFUNC] = 1,
    /* a declared foreign function may write through the pointers it is given */
    [BI_EXTERN] = 1, [BI_FROM_BUFFER] = 1,
    /* NumPy's functions read whole arrays, and a.copy() makes a local one */
    [BI_NPFUNC] = 1,
};

/* atomics write their array: scan_var sees it passed whole, so never packed */
static void
scan_call(Scan *s, Node *n, int depth)
{
    if (n->op < 0 || n->op >= BI_COUNT || thread_bound[n->op]) {
        s->ok = 0;
        return;
    }
    scan_children(s, n, depth);
}

/* t1 = t2 = value; a target may be a tuple of targets */
static void
scan_assign(Scan *s, Node *n, int depth)
{
    scan_node(s, n->a, depth, 0);
    scan_list(s, n->list, n->n, depth, 1);
}

/* target op= value: the target is read, then written */
static void
scan_augassign(Scan *s, Node *n, int depth)
{
    scan_node(s, n->a, depth, 0);
    scan_node(s, n->a, depth, 1);
    scan_node(s, n->b, depth, 0);
}

/* a loop of a constant trip count (range of constants; a tuple's items are
 * unrolled before codegen).  A loop bounded at run time (range(a.shape[1]),
 * while) makes each element long work of its own: the threads' number, not
 * the bytes each moves, is what keeps memory busy, and packing halves it
 * (bench section 15 c: row sums of 16384 x 1024 float32, one row per thread,
 * ran 2x slower packed) */
static int
const_trips(const Node *n)
{
    int64_t v;
    return cg_const_int(n->a, &v) && cg_const_int(n->b, &v) && cg_const_int(n->c, &v);
}

/* depth counts the conditions around a node: a store under one may not
 * happen, so its pack is loaded first */
static void
scan_node(Scan *s, Node *n, int depth, int store)
{
    if (!n || !s->ok) {
        return;
    }
    switch (n->kind) {
    case ND_INDEX:
        scan_index(s, n, depth, store);
        return;
    case ND_VAR:
        scan_var(s, n, store);
        return;
    case ND_TUPLE:
        scan_list(s, n->list, n->n, depth, store);
        return;
    case ND_ATTR:
        if (n->a->kind != ND_VAR) {
            scan_node(s, n->a, depth, 0);   /* a[i].real reads a[i]; a.size no element */
        }
        return;
    case ND_CALL:
        scan_call(s, n, depth);
        return;
    case ND_RETURN:
    case ND_ASSERT:
        s->ok = 0;
        return;
    case ND_ASSIGN:
        scan_assign(s, n, depth);
        return;
    case ND_AUGASSIGN:
        scan_augassign(s, n, depth);
        return;
    case ND_FOR:
        s->ok &= n->var != s->iv && const_trips(n);
        scan_children(s, n, depth + 1);
        return;
    case ND_WHILE:
        s->ok = 0;      /* a run-time trip count: see const_trips */
        return;
    case ND_IF:
        scan_node(s, n->a, depth, 0);
        scan_list(s, n->list, n->n, depth + 1, 0);
        scan_list(s, n->list2, n->n2, depth + 1, 0);
        return;
    case ND_IFEXP:
    case ND_BOOLOP:
        scan_children(s, n, depth + 1);
        return;
    case ND_EXPR: case ND_BINOP: case ND_UNARY: case ND_COMPARE: case ND_SLICE:
        scan_children(s, n, depth);
        return;
    case ND_CONST: case ND_BREAK: case ND_CONTINUE: case ND_PASS:
        return;
    }
}

/* a bound no element can move: an integer constant, an integer parameter
 * (never assigned: scan_var), a.size, a.shape[k] with k constant, or len(a),
 * of a parameter array a */
static int
invariant_bound(Scan *s, Node *b)
{
    char k = b->kind == ND_VAR || b->kind == ND_CONST ? cj_type_kind(cg_type(s->g, b)) : 0;
    return (b->kind == ND_CONST && (k == 'i' || k == 'u'))
           || (b->kind == ND_VAR && b->var->is_param && (k == 'i' || k == 'u'))
           || (b->kind == ND_ATTR && b->op == AT_SIZE && b->a->kind == ND_VAR
               && b->a->var->is_param)
           || (b->kind == ND_INDEX && b->n == 1 && b->list[0]->kind == ND_CONST
               && b->a->kind == ND_ATTR && b->a->op == AT_SHAPE && b->a->a->kind == ND_VAR
               && b->a->a->var->is_param)
           || (b->kind == ND_CALL && b->op == BI_LEN && b->n == 1
               && b->list[0]->kind == ND_VAR && b->list[0]->var->is_param);
}

/* `i < b` or `b > i` (below), `i >= b` or `b <= i` (not below): b, when
 * invariant; NULL otherwise */
static Node *
compare_bound(Scan *s, Node *c, int below)
{
    if (c->kind != ND_COMPARE || c->n != 2) {
        return NULL;
    }
    Node *l = c->list[0], *r = c->list[1], *b = NULL;
    if (l->kind == ND_VAR && l->var == s->iv && c->ops[0] == (below ? OP_LT : OP_GE)) {
        b = r;
    } else if (r->kind == ND_VAR && r->var == s->iv && c->ops[0] == (below ? OP_GT : OP_LE)) {
        b = l;
    }
    return b && invariant_bound(s, b) ? b : NULL;
}

/* cond is `i < bound` terms joined by `and` (below), or `i >= bound` terms
 * joined by `or` (not below): those bounds are checked once for the whole
 * pack */
static int
bound_terms(Scan *s, Node *c, int below, Node **terms, int *nt)
{
    if (c->kind == ND_BOOLOP && c->op == (below ? OP_AND : OP_OR)) {
        for (int i = 0; i < c->n; i++) {
            if (!bound_terms(s, c->list[i], below, terms, nt)) {
                return 0;
            }
        }
        return 1;
    }
    Node *b = compare_bound(s, c, below);
    if (!b || *nt >= 8) {
        return 0;
    }
    terms[(*nt)++] = b;
    return 1;
}

/* jit.threadIdx.x, jit.blockIdx.x or jit.blockDim.x (bi) */
static int
is_x_of(const Node *n, int bi)
{
    return n->kind == ND_CALL && n->op == bi && n->axis == 0;
}

/* blockIdx.x * blockDim.x, either order */
static int
is_block_start(const Node *n)
{
    return n->kind == ND_BINOP && n->op == OP_MUL
           && ((is_x_of(n->a, BI_BLOCKIDX) && is_x_of(n->b, BI_BLOCKDIM))
               || (is_x_of(n->a, BI_BLOCKDIM) && is_x_of(n->b, BI_BLOCKIDX)));
}

/* the thread's global index: grid(1), or blockIdx.x * blockDim.x +
 * threadIdx.x in any order of the operands */
static int
is_thread_index(const Node *n)
{
    if (n->kind == ND_CALL) {
        return n->op == BI_GRID && n->axis == 1;
    }
    return n->kind == ND_BINOP && n->op == OP_ADD
           && ((is_block_start(n->a) && is_x_of(n->b, BI_THREADIDX))
               || (is_x_of(n->a, BI_THREADIDX) && is_block_start(n->b)));
}

/* `if c: return` with no else (the bound of c is checked by the caller) */
static int
is_exit(const Node *n)
{
    return n->kind == ND_IF && n->n2 == 0 && n->n == 1 && n->list[0]->kind == ND_RETURN
           && !n->list[0]->a;
}

/* kernel: i = <index>; if <cond>: body (no else), or i = <index>;
 * if <cond>: return; body...  A docstring (a pass) may come first. */
static int
elementwise_shape(Func *fn, Shape *sh)
{
    Node **body = fn->body;
    int nbody = fn->nbody;
    while (nbody > 0 && body[0]->kind == ND_PASS) {
        body++;
        nbody--;
    }
    if (fn->is_device || fn->boundscheck || nbody < 2) {
        return 0;
    }
    Node *s0 = body[0], *s1 = body[1];
    if (s0->kind != ND_ASSIGN || s0->n != 1 || s0->list[0]->kind != ND_VAR
        || !is_thread_index(s0->a) || s1->kind != ND_IF || s1->n2 != 0) {
        return 0;
    }
    sh->iv = s0->list[0]->var;
    sh->guard = s1;
    sh->exits = is_exit(s1);
    sh->body = sh->exits ? body + 2 : s1->list;
    sh->nbody = sh->exits ? nbody - 2 : s1->n;
    return sh->exits || nbody == 2;
}

/* Finds the arrays moved in packs: packable[k] is left set only for those
 * touched, and only at a[i].  Returns 0 when the kernel does not qualify. */
static int
scan_kernel(Scan *sc, Cg *g, Inst *in, const Shape *sh)
{
    Arena *a = g->p->arena;
    Func *fn = in->fn;
    int np = fn->nparams;
    memset(sc, 0, sizeof *sc);
    sc->g = g;
    sc->iv = sh->iv;
    sc->ok = 1;
    sc->arr = cj_alloc(a, sizeof(Var *) * (size_t)(np + 1));
    for (int k = 0; k < np && k < 64; k++) {    /* coarse_mask has 64 bits */
        const Type *t = in->args[k];
        if (t->kind == TY_ARRAY && t->ndim == 1 && t->layout == 'C' && t->mem == MEM_GLOBAL) {
            sc->arr[sc->narr++] = fn->vars[k];
        }
    }
    if (!sc->narr) {
        return 0;
    }
    sc->packable = cj_alloc(a, (size_t)sc->narr);
    sc->read = cj_alloc(a, (size_t)sc->narr);
    sc->written = cj_alloc(a, (size_t)sc->narr);
    sc->cond_written = cj_alloc(a, (size_t)sc->narr);
    memset(sc->packable, 1, (size_t)sc->narr);
    scan_node(sc, sh->guard->a, 0, 0);
    scan_list(sc, sh->body, sh->nbody, 0, 0);
    int npack = 0;
    for (int k = 0; k < sc->narr; k++) {
        sc->packable[k] &= sc->read[k] | sc->written[k];
        npack += sc->packable[k];
    }
    return sc->ok && npack;
}

/* elements per thread: 16 bytes of the widest packed element type */
static int
pack_width(Scan *sc, Inst *in)
{
    int maxsize = 1;
    for (int k = 0; k < sc->narr; k++) {
        if (sc->packable[k]) {
            int size = cj_dtypes[in->args[sc->arr[k]->id]->dtype].size;
            maxsize = size > maxsize ? size : maxsize;
        }
    }
    int vec = 16 / maxsize;
    return vec > 8 ? 8 : vec;
}

static void
vec_stmts(Cg *g, Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        cg_stmt(g, list[i]);
    }
}

/* <kname>_x<vec>(params..., cj_nthreads) { declarations */
static void
entry_head(Cg *g, Inst *in, int vec, const char *I)
{
    Func *fn = in->fn;
    P("\n/* %s, %d elements per thread in aligned packs (chosen at launch) */\n", fn->name, vec);
    cg_line_mark(g, fn->loc.line);
    S("extern \"C\" __global__ void ");
    cg_launch_bounds(g);
    P("%s_x%d(", in->cname, vec);
    for (int k = 0; k < fn->nparams; k++) {
        const char *ct = cg_ctype(g, in->args[k]);
        P("%s%s%s%s", k ? ", " : "", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", fn->vars[k]->cname);
    }
    P(", %s cj_nthreads)\n{\n", I);
    g->out->indent = 1;
    for (int k = fn->nparams; k < fn->nvars; k++) {
        cg_declare_var(g, fn->vars[k]);
    }
}

/* if (the whole pack is in bounds) {: every line on the `if` of the kernel */
static void
pack_guard(Cg *g, Scan *sc, Node *s1, int vec, const char *I, Node **terms, int nt)
{
    int line = s1->loc.line;
    cg_line_mark(g, line);
    P("    const %s cj_i0 = ((%s)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n", I, I, vec);
    cg_line_mark(g, line);
    P("    if (cj_i0 + %d <= cj_nthreads", vec);
    for (int k = 0; k < sc->narr; k++) {
        if (sc->packable[k]) {
            P(" && cj_i0 + %d <= %s.shape[0]", vec, sc->arr[k]->cname);
        }
    }
    for (int t = 0; t < nt; t++) {
        /* an int64 parameter n compared in 64 bits: cut to 32 it could wrap
         * (extents fit in 32 bits when indices do) */
        const Type *bt = cj_concrete(cg_type(g, terms[t]));
        int wide = g->p->idx32 && terms[t]->kind == ND_VAR && bt->kind == TY_SCALAR
                   && cj_dtypes[bt->dtype].size > 4;
        if (wide) {
            P(" && (long long)cj_i0 + %d <= ", vec);
        } else {
            P(" && cj_i0 + %d <= ", vec);
        }
        cg_conv(g, terms[t], cj_scalar(wide || !g->p->idx32 ? DT_I64 : DT_I32), PR_REL + 1);
    }
    S(") {\n");
}

/* the packs: loaded when read or not surely overwritten; const when only read */
static void
pack_loads(Cg *g, Scan *sc, Inst *in, int line, int vec, int cond_known)
{
    for (int k = 0; k < sc->narr; k++) {
        if (!sc->packable[k]) {
            continue;
        }
        Var *v = sc->arr[k];
        const char *et = cj_dtypes[in->args[v->id]->dtype].ctype;
        g->p->coarse_mask |= 1ull << v->id;
        int preload = sc->read[k] || !cond_known || sc->cond_written[k];
        cg_line_mark(g, line);
        P("        %scj_pack<%s, %d> %s_v", sc->written[k] ? "" : "const ", et, vec, v->cname);
        if (preload) {
            P(" = *(const cj_pack<%s, %d> *)(%s.data + cj_i0)", et, vec, v->cname);
        }
        S(";\n");
    }
}

/* the written packs go back in one store each */
static void
pack_stores(Cg *g, Scan *sc, Inst *in, int line, int vec)
{
    for (int k = 0; k < sc->narr; k++) {
        if (sc->packable[k] && sc->written[k]) {
            Var *v = sc->arr[k];
            const char *et = cj_dtypes[in->args[v->id]->dtype].ctype;
            cg_line_mark(g, line);
            P("        *(cj_pack<%s, %d> *)(%s.data + cj_i0) = %s_v;\n", et, vec, v->cname,
              v->cname);
        }
    }
}

/* for each element of the pack: the body, reading and writing the packs */
static void
pack_loop(Cg *g, Scan *sc, const Shape *sh, int vec, int cond_known)
{
    int line = sh->guard->loc.line;
    cg_line_mark(g, line);
    P("#pragma unroll\n        for (int cj_e = 0; cj_e < %d; cj_e++) {\n", vec);
    cg_line_mark(g, line);
    P("            %s = cj_i0 + cj_e;\n", sc->iv->cname);
    g->vec_i = sc->iv;
    g->vec_arrays = sc->arr;
    g->vec_packable = sc->packable;
    g->vec_narr = sc->narr;
    g->out->indent = 3;
    if (cond_known) {
        vec_stmts(g, sh->body, sh->nbody);
    } else {
        cg_line_mark(g, line);
        buf_indent(g->out);
        S("if (");
        cg_truth(g, sh->guard->a, PR_COMMA);
        S(") {\n");
        g->out->indent = 4;
        vec_stmts(g, sh->body, sh->nbody);
        g->out->indent = 3;
        buf_indent(g->out);
        S("}\n");
    }
    g->vec_i = NULL;
    S("        }\n");
}

/* the last, partial pack: element by element, as the plain kernel (an exit
 * `if i >= n: return` ends the loop, rightly: later elements are past n too) */
static void
tail_loop(Cg *g, Scan *sc, const Shape *sh, int vec)
{
    int line = sh->guard->loc.line;
    cg_line_mark(g, line);
    P("    for (int cj_e = 0; cj_e < %d; cj_e++) {\n", vec);
    cg_line_mark(g, line);
    P("        %s = cj_i0 + cj_e;\n", sc->iv->cname);
    cg_line_mark(g, line);
    P("        if (%s >= cj_nthreads) {\n            return;\n        }\n", sc->iv->cname);
    g->out->indent = 2;
    cg_stmt(g, sh->guard);
    if (sh->exits) {
        vec_stmts(g, sh->body, sh->nbody);
    }
    S("    }\n}\n");
    g->out->indent = 0;
}

/* Appends the coarsened entry to g->out; sets p->coarse_vec (0: none). */
void
cg_coarsen(Cg *g, Inst *in)
{
    Program *p = g->p;
    p->coarse_vec = 0;
    Scan sc;
    Shape sh;
    if (p->nrecords) {
        return;     /* records are not loaded in packs: one element per thread */
    }
    for (int i = 0; i < in->fn->nvars; i++) {
        if (in->fn->vars[i]->maybe_unset) {
            return;     /* its zero would be one element's, carried to the next */
        }
    }
    if (!elementwise_shape(in->fn, &sh) || !scan_kernel(&sc, g, in, &sh)) {
        return;
    }
    Node *terms[8];
    int nt = 0;
    int cond_known = bound_terms(&sc, sh.guard->a, !sh.exits, terms, &nt);
    int vec = pack_width(&sc, in);
    if (vec < 2 || (sh.exits && !cond_known)) {
        return;     /* an exit on anything but bounds would end the other elements */
    }
    const char *I = p->idx32 ? "int" : "long long";
    int line = sh.guard->loc.line;
    p->coarse_vec = vec;
    p->coarse_mask = 0;
    entry_head(g, in, vec, I);
    pack_guard(g, &sc, sh.guard, vec, I, terms, cond_known ? nt : 0);
    pack_loads(g, &sc, in, line, vec, cond_known);
    pack_loop(g, &sc, &sh, vec, cond_known);
    pack_stores(g, &sc, in, line, vec);
    S("        return;\n    }\n");
    tail_loop(g, &sc, &sh, vec);
    p->features |= FEAT_PACK;
}
