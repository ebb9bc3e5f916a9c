/* coarsen.c - a second entry for elementwise kernels: each thread takes
 * `vec` consecutive elements, moving whole aligned packs.
 *
 * A kernel qualifies when its body is
 *     i = jit.grid(1)
 *     if <cond>:
 *         <statements that depend on the thread only through i>
 * (no thread indices, barriers, warp functions, shared memory, print, assert
 * or return in them).  One element per thread keeps too few bytes in flight
 * to reach memory bandwidth; the runtime launches this entry instead, on
 * 1-d launches whose packed arrays are aligned, with the same results. */
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
scan_index(Scan *s, Node *n, int depth, int store)
{
    int k = n->a->kind == ND_VAR ? arr_index(s, n->a->var) : -1;
    if (k >= 0) {
        int plain = n->n == 1 && n->list[0]->kind == ND_VAR && n->list[0]->var == s->iv;
        if (!plain) {
            s->packable[k] = 0;
        }
        if (store) {
            s->written[k] = 1;
            if (depth > 0) {
                s->cond_written[k] = 1;
            }
        } else {
            s->read[k] = 1;
        }
    } else {
        scan_node(s, n->a, depth, 0);
    }
    for (int i = 0; i < n->n; i++) {
        scan_node(s, n->list[i], depth, 0);
    }
}

static int
allowed_call(Scan *s, Node *n)
{
    switch ((BuiltinKind)n->op) {
    case BI_THREADIDX: case BI_BLOCKIDX: case BI_BLOCKDIM: case BI_GRIDDIM: case BI_GRID:
    case BI_GRIDSIZE: case BI_LANEID: case BI_SYNCTHREADS: case BI_SYNCWARP:
    case BI_THREADFENCE: case BI_THREADFENCE_BLOCK: case BI_THREADFENCE_SYSTEM:
    case BI_SHARED_MEMORY: case BI_SHFL_SYNC: case BI_SHFL_UP_SYNC: case BI_SHFL_DOWN_SYNC:
    case BI_SHFL_XOR_SYNC: case BI_ALL_SYNC: case BI_ANY_SYNC: case BI_BALLOT_SYNC:
    case BI_ACTIVEMASK: case BI_PRINT: case BI_DEVFUNC:
        return 0;
    case BI_ATOMIC_ADD: case BI_ATOMIC_SUB: case BI_ATOMIC_MAX: case BI_ATOMIC_MIN:
    case BI_ATOMIC_EXCH: case BI_ATOMIC_AND: case BI_ATOMIC_OR: case BI_ATOMIC_XOR:
    case BI_ATOMIC_INC: case BI_ATOMIC_DEC: case BI_ATOMIC_CAS:
        if (n->list[0]->kind == ND_VAR) {
            int k = arr_index(s, n->list[0]->var);
            if (k >= 0) {
                s->packable[k] = 0;
            }
        }
        return 1;
    default:
        return 1;
    }
}

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
    case ND_CALL:
        if (!allowed_call(s, n)) {
            s->ok = 0;
            return;
        }
        break;
    case ND_RETURN:
    case ND_ASSERT:
        s->ok = 0;
        return;
    case ND_ASSIGN:
        scan_node(s, n->a, depth, 0);
        for (int i = 0; i < n->n; i++) {
            if (n->list[i]->kind == ND_VAR && n->list[i]->var == s->iv) {
                s->ok = 0;
            }
            scan_node(s, n->list[i], depth, 1);
        }
        return;
    case ND_AUGASSIGN:
        if (n->a->kind == ND_VAR && n->a->var == s->iv) {
            s->ok = 0;
        }
        scan_node(s, n->a, depth, 0);
        scan_node(s, n->a, depth, 1);
        scan_node(s, n->b, depth, 0);
        return;
    case ND_FOR:
        if (n->var == s->iv) {
            s->ok = 0;
        }
        break;
    case ND_VAR:
        if (n->var != s->iv && arr_index(s, n->var) >= 0) {
            s->packable[arr_index(s, n->var)] = 0;     /* used whole: a.shape... fine, but keep it simple */
        }
        return;
    case ND_ATTR:
        return;     /* a.size, a.shape[k]: no element access */
    default:
        break;
    }
    int inner = depth + (n->kind == ND_IF || n->kind == ND_WHILE || n->kind == ND_FOR
                         || n->kind == ND_IFEXP || n->kind == ND_BOOLOP);
    scan_node(s, n->a, n->kind == ND_IF || n->kind == ND_WHILE ? depth : inner, 0);
    scan_node(s, n->b, inner, 0);
    scan_node(s, n->c, inner, 0);
    for (int i = 0; i < n->n; i++) {
        if (n->list) {
            scan_node(s, n->list[i], inner, 0);
        }
    }
    for (int i = 0; i < n->n2; i++) {
        if (n->list2) {
            scan_node(s, n->list2[i], inner, 0);
        }
    }
}

/* cond is i < bound terms joined by `and`: those bounds are checked once
 * for the whole pack */
static int
bound_terms(Scan *s, Node *c, Node **terms, int *nt)
{
    if (c->kind == ND_BOOLOP && c->op == OP_AND) {
        for (int i = 0; i < c->n; i++) {
            if (!bound_terms(s, c->list[i], terms, nt)) {
                return 0;
            }
        }
        return 1;
    }
    if (c->kind != ND_COMPARE || c->n != 2 || c->ops[0] != OP_LT
        || c->list[0]->kind != ND_VAR || c->list[0]->var != s->iv || *nt >= 8) {
        return 0;
    }
    Node *b = c->list[1];
    int extent = (b->kind == ND_ATTR && b->op == AT_SIZE && b->a->kind == ND_VAR
                  && cg_type(s->g, b->a)->ndim == 1)
                 || (b->kind == ND_INDEX && b->a->kind == ND_ATTR && b->a->op == AT_SHAPE)
                 || (b->kind == ND_CALL && b->op == BI_LEN)
                 || (b->kind == ND_VAR && b->var->is_param)
                 || b->kind == ND_CONST;
    if (!extent) {
        return 0;
    }
    terms[(*nt)++] = b;
    return 1;
}

static void
vec_stmts(Cg *g, Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        cg_stmt(g, list[i]);
    }
}

/* Appends the coarsened entry to g->out; sets p->coarse_vec (0: none). */
void
cg_coarsen(Cg *g, Inst *in)
{
    Program *p = g->p;
    Func *fn = in->fn;
    p->coarse_vec = 0;
    if (fn->is_device || fn->boundscheck || fn->nbody != 2) {
        return;
    }
    Node *s0 = fn->body[0], *s1 = fn->body[1];
    if (s0->kind != ND_ASSIGN || s0->n != 1 || s0->list[0]->kind != ND_VAR
        || s0->a->kind != ND_CALL || s0->a->op != BI_GRID || s0->a->axis != 1
        || s1->kind != ND_IF || s1->n2 != 0) {
        return;
    }
    Scan sc;
    memset(&sc, 0, sizeof sc);
    sc.g = g;
    sc.iv = s0->list[0]->var;
    sc.ok = 1;
    int np = fn->nparams;
    sc.arr = cj_alloc(p->arena, sizeof(Var *) * (size_t)(np + 1));
    for (int k = 0; k < np; k++) {
        const Type *t = in->args[k];
        if (t->kind == TY_ARRAY && t->ndim == 1 && t->layout == 'C' && t->mem == MEM_GLOBAL) {
            sc.arr[sc.narr++] = fn->vars[k];
        }
    }
    if (!sc.narr) {
        return;
    }
    sc.packable = cj_alloc(p->arena, (size_t)sc.narr);
    sc.read = cj_alloc(p->arena, (size_t)sc.narr);
    sc.written = cj_alloc(p->arena, (size_t)sc.narr);
    sc.cond_written = cj_alloc(p->arena, (size_t)sc.narr);
    memset(sc.packable, 1, (size_t)sc.narr);
    scan_node(&sc, s1->a, 0, 0);
    for (int i = 0; i < s1->n; i++) {
        scan_node(&sc, s1->list[i], 0, 0);
    }
    Node *terms[8];
    int nt = 0;
    int cond_known = bound_terms(&sc, s1->a, terms, &nt);
    int maxsize = 1, npack = 0;
    for (int k = 0; k < sc.narr; k++) {
        if (sc.packable[k] && (sc.read[k] || sc.written[k])) {
            int size = cj_dtypes[in->args[sc.arr[k]->id]->dtype].size;
            maxsize = size > maxsize ? size : maxsize;
            npack++;
        }
    }
    if (!sc.ok || !npack) {
        return;
    }
    int vec = 16 / maxsize;
    vec = vec > 8 ? 8 : vec;
    if (vec < 2) {
        return;
    }
    const char *I = p->idx32 ? "int" : "long long";
    p->coarse_vec = vec;
    p->coarse_mask = 0;
    P("\n/* %s, %d elements per thread in aligned packs (chosen at launch) */\n", fn->name, vec);
    P("extern \"C\" __global__ void %s_x%d(", in->cname, vec);
    for (int k = 0; k < np; k++) {
        const char *ct = cg_ctype(g, in->args[k]);
        P("%s%s%s%s", k ? ", " : "", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", fn->vars[k]->cname);
    }
    P(", %s cj_nthreads)\n{\n", I);
    g->out->indent = 1;
    for (int k = fn->nparams; k < fn->nvars; k++) {
        cg_declare_var(g, fn->vars[k]);
    }
    P("    const %s cj_i0 = ((%s)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n", I, I, vec);
    P("    if (cj_i0 + %d <= cj_nthreads", vec);
    for (int k = 0; k < sc.narr; k++) {
        if (sc.packable[k] && (sc.read[k] || sc.written[k])) {
            P(" && cj_i0 + %d <= %s.shape[0]", vec, sc.arr[k]->cname);
        }
    }
    for (int t = 0; cond_known && t < nt; t++) {
        P(" && cj_i0 + %d <= ", vec);
        cg_conv(g, terms[t], cj_scalar(p->idx32 ? DT_I32 : DT_I64), PR_REL + 1);
    }
    S(") {\n");
    for (int k = 0; k < sc.narr; k++) {
        if (!sc.packable[k] || !(sc.read[k] || sc.written[k])) {
            continue;
        }
        Var *v = sc.arr[k];
        const char *et = cj_dtypes[in->args[v->id]->dtype].ctype;
        p->coarse_mask |= 1ull << v->id;
        int preload = sc.read[k] || !cond_known || sc.cond_written[k];
        P("        %scj_pack<%s, %d> %s_v", sc.written[k] ? "" : "const ", et, vec, v->cname);
        if (preload) {
            P(" = *(const cj_pack<%s, %d> *)(%s.data + cj_i0)", et, vec, v->cname);
        }
        S(";\n");
    }
    P("#pragma unroll\n        for (int cj_e = 0; cj_e < %d; cj_e++) {\n", vec);
    P("            %s = cj_i0 + cj_e;\n", sc.iv->cname);
    g->vec_i = sc.iv;
    g->vec_arrays = sc.arr;
    g->vec_packable = sc.packable;
    g->vec_narr = sc.narr;
    g->out->indent = 3;
    if (cond_known) {
        vec_stmts(g, s1->list, s1->n);
    } else {
        buf_indent(g->out);
        S("if (");
        cg_truth(g, s1->a, PR_COMMA);
        S(") {\n");
        g->out->indent = 4;
        vec_stmts(g, s1->list, s1->n);
        g->out->indent = 3;
        buf_indent(g->out);
        S("}\n");
    }
    g->vec_i = NULL;
    S("        }\n");
    for (int k = 0; k < sc.narr; k++) {
        if (sc.packable[k] && sc.written[k]) {
            Var *v = sc.arr[k];
            const char *et = cj_dtypes[in->args[v->id]->dtype].ctype;
            P("        *(cj_pack<%s, %d> *)(%s.data + cj_i0) = %s_v;\n", et, vec, v->cname,
              v->cname);
        }
    }
    S("        return;\n    }\n");
    P("    for (int cj_e = 0; cj_e < %d; cj_e++) {\n", vec);
    P("        %s = cj_i0 + cj_e;\n", sc.iv->cname);
    P("        if (%s >= cj_nthreads) {\n            return;\n        }\n", sc.iv->cname);
    g->out->indent = 2;
    cg_stmt(g, s1);
    S("    }\n}\n");
    g->out->indent = 0;
    p->features |= FEAT_PACK;
}
