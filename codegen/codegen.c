/* codegen.c - CUDA C++ for a typed program: the prelude parts it uses, tuple
 * structs, device functions (callees first) and the extern "C" entry.
 * Every line of a statement carries a #line into the Python file. */
#include <stdio.h>
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

/* ---- types ---- */

static void
need_tuple(Program *p, const Type *t)
{
    for (int i = 0; i < p->ntuples; i++) {
        if (cj_type_eq(p->tuples[i], t)) {
            return;
        }
    }
    for (int i = 0; i < t->ntup; i++) {
        if (t->tup[i]->kind == TY_TUPLE) {
            need_tuple(p, t->tup[i]);
        }
    }
    p->tuples = (Type **)cj_vec_push(p->arena, (void **)p->tuples, &p->ntuples, &p->tcap,
                                     (void *)t);
}

static const char *
tuple_name(Program *p, const Type *t)
{
    Buf b;
    buf_init(&b);
    cj_type_mangle(&b, t);
    const char *s = cj_aprintf(p->arena, "cj_%s", b.s);
    buf_free(&b);
    return s;
}

const char *
cg_ctype(Cg *g, const Type *t)
{
    t = cj_concrete(t);
    switch (t->kind) {
    case TY_SCALAR:
        return cj_dtypes[t->dtype].ctype;
    case TY_VOID:
        return "void";
    case TY_TUPLE:
        need_tuple(g->p, t);
        return tuple_name(g->p, t);
    case TY_ARRAY:
        if (t->mem != MEM_GLOBAL) {
            return cj_aprintf(g->p->arena, "%s%s *", t->mem == MEM_CONST ? "const " : "",
                              cj_dtypes[t->dtype].ctype);
        }
        return cj_aprintf(g->p->arena, "cj_array<%s, %d, %s>", cj_dtypes[t->dtype].ctype,
                          t->ndim, g->p->idx32 ? "int" : "long long");
    case TY_GROUP:
        return cg_group_ctype(g, t);
    case TY_ITER:
        return cg_iter_ctype(g, t);
    case TY_RECORD:
        return cj_dtypes[t->dtype].ctype;
    case TY_VECTOR:
        return cj_vector_cname(t);
    case TY_OPTIONAL:
        g->p->features |= FEAT_OPTIONAL;
        return cj_aprintf(g->p->arena, "cj_opt<%s>", cg_ctype(g, t->base));
    default:
        break;
    }
    cj_unreachable(g->p->try_, "type without a C++ spelling");
}

/* a variable's or parameter's C++ type: a record's is a pointer to it */
static const char *
var_ctype(Cg *g, const Type *t)
{
    if (t->kind == TY_RECORD) {
        return cj_aprintf(g->p->arena, "%s *", cj_dtypes[t->dtype].ctype);
    }
    return cg_ctype(g, t);
}

/* ---- statements ---- */

static void stmts(Cg *g, Node **list, int n);

/* The line NVRTC gives the next line of output: the last mark's line plus
 * the lines written since it; 0 when the buffer holds no mark. */
static int
reported_line(Cg *g)
{
    if (!g->last_line || g->mark_buf != g->out) {
        return 0;
    }
    int line = g->last_line;
    for (size_t i = g->mark_end; i < g->out->len; i++) {
        line += g->out->s[i] == '\n';
    }
    return line;
}

/* #line before a line of output that belongs to Python line `line`: when
 * the line changes, and again on each further line of a statement that
 * spans several, so that NVRTC names the right line for any of them
 * (closing braces, which NVRTC cannot reject, go without). */
void
cg_line_mark(Cg *g, int line)
{
    if (line <= 0 || (line == g->last_line && reported_line(g) == line)) {
        return;
    }
    P("#line %d", line);
    if (!reported_line(g)) {
        /* the function's first mark names its file; later ones keep it */
        S(" \"");
        for (const char *s = g->fn->file; *s; s++) {
            if (*s == '"' || *s == '\\') {
                buf_putc(g->out, '\\');
            }
            buf_putc(g->out, *s);
        }
        S("\"");
    }
    S("\n");
    g->last_line = line;
    g->mark_buf = g->out;
    g->mark_end = g->out->len;
}

static void
begin(Cg *g, Node *n)
{
    cg_line_mark(g, n->loc.line);
    buf_indent(g->out);
}

static const Type *
target_type(Cg *g, Node *t)
{
    if (t->kind == ND_VAR) {
        return cj_concrete(g->in->vtype[t->var->id]);
    }
    return cg_type(g, t);
}

static void
store(Cg *g, Node *target)
{
    if (target->kind == ND_VAR) {
        S(target->var->cname);
    } else if (target->kind == ND_ATTR || cg_type(g, target->a)->kind == TY_RECORD) {
        g->lvalue = 1;                      /* a record's field */
        cg_expr(g, target, PR_ASSIGN);
        g->lvalue = 0;
    } else {
        cg_index_ref(g, target);
    }
}

/* grid(2), a.shape...: tuples whose items print one by one */
static int
decomposable(Node *v, Node *target)
{
    for (int i = 0; i < target->n; i++) {
        if (target->list[i]->kind == ND_TUPLE) {
            return 0;
        }
    }
    return (v->kind == ND_CALL && (v->op == BI_GRID || v->op == BI_GRIDSIZE))
           || (v->kind == ND_ATTR && (v->op == AT_SHAPE || v->op == AT_STRIDES));
}

static void store(Cg *g, Node *target);

/* element k0, k1, ... (loop counters cj_k<d>) of array expression a: at
 * byte offsets for an argument, C order for a static shape */
static void
subarray_elem(Cg *g, Node *a, const Type *at)
{
    if (at->mem == MEM_GLOBAL) {
        S("cj_at(");
        cg_expr(g, a, PR_POSTFIX);
        S(".data, 0LL");
        for (int d = 0; d < at->ndim; d++) {
            P(" + cj_k%d * (long long)", d);
            cg_expr(g, a, PR_POSTFIX);
            P(".strides[%d]", d);
        }
        S(")");
        return;
    }
    cg_expr(g, a, PR_POSTFIX);
    S("[0");
    for (int d = 0; d < at->ndim; d++) {
        long long inner = 1;
        for (int e = d + 1; e < at->ndim; e++) {
            inner *= at->sshape[e];
        }
        P(" + cj_k%d * %lld", d, inner);
    }
    S("]");
}

/* r.f = src, f a sub-array field: nested loops over f's static shape */
static void
copy_subarray(Cg *g, Node *stmt, Node *target, Node *value)
{
    const Type *tt = cg_type(g, target), *vt = cg_type(g, value);
    begin(g, stmt);
    S("{\n");
    g->out->indent++;
    for (int d = 0; d < tt->ndim; d++) {
        begin(g, stmt);
        P("for (long long cj_k%d = 0; cj_k%d < %lld; cj_k%d++)\n", d, d,
          (long long)tt->sshape[d], d);
    }
    begin(g, stmt);
    S("    ");
    subarray_elem(g, target, tt);
    P(" = (%s)", cj_dtypes[tt->dtype].ctype);
    subarray_elem(g, value, vt);
    S(";\n");
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
}

/* the code point at *s (UTF-8, as Python gave it), s moved past it */
static unsigned
utf8_next(const unsigned char **s)
{
    const unsigned char *p = *s;
    int n = p[0] >= 0xf0 ? 3 : p[0] >= 0xe0 ? 2 : p[0] >= 0xc0 ? 1 : 0;
    unsigned cp = n ? p[0] & (0x3fu >> n) : p[0];
    for (int k = 1; k <= n && p[k]; k++) {
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    *s = p + 1 + n;
    return cp;
}

/* s[i] = "XYZ": the constant's bytes (a unicode element's: UCS-4, little
 * endian) written one by one, truncated to the element, zeros after */
static void
string_assign(Cg *g, Node *stmt, Node *target, const Const *c, const CjRecord *r)
{
    begin(g, stmt);
    S("{\n");
    g->out->indent++;
    begin(g, stmt);
    S("unsigned char *cj_p = (");
    store(g, target);
    S(").c;\n");
    int at = 0;
    const unsigned char *s = (const unsigned char *)c->s;
    const unsigned char *end = s + (c->bytes ? c->len : (int64_t)strlen(c->s));
    while (s < end && at < r->itemsize) {
        unsigned v = r->strkind == 'S' ? *s++ : utf8_next(&s);
        for (int k = 0; k < (r->strkind == 'S' ? 1 : 4); k++, at++) {
            begin(g, stmt);
            P("cj_p[%d] = %u;\n", at, (v >> (8 * k)) & 0xffu);
        }
    }
    begin(g, stmt);
    P("for (int cj_k = %d; cj_k < %d; cj_k++) {\n", at, r->itemsize);
    g->out->indent++;
    begin(g, stmt);
    S("cj_p[cj_k] = 0;\n");
    g->out->indent--;
    begin(g, stmt);
    S("}\n");
    g->out->indent--;
    begin(g, stmt);
    S("}\n");
}

/* target = value (value already a C++ expression in `val`, or a node) */
static void
assign_one(Cg *g, Node *stmt, Node *target, Node *value, const char *tmp)
{
    if (target->kind == ND_TUPLE && !tmp && decomposable(value, target)) {
        for (int i = 0; i < target->n; i++) {
            begin(g, stmt);
            store(g, target->list[i]);
            S(" = ");
            cg_tuple_elem(g, value, i, PR_ASSIGN);
            S(";\n");
        }
        return;
    }
    if (target->kind == ND_TUPLE) {
        const char *t = tmp;
        begin(g, stmt);
        S("{\n");
        g->out->indent++;
        if (!t) {
            t = cj_aprintf(g->p->arena, "cj_t%d", g->ntemp++);
            begin(g, stmt);
            P("auto %s = ", t);
            cg_expr(g, value, PR_ASSIGN);
            S(";\n");
        }
        for (int i = 0; i < target->n; i++) {
            assign_one(g, stmt, target->list[i], NULL, cj_aprintf(g->p->arena, "%s.f%d", t, i));
        }
        g->out->indent--;
        buf_indent(g->out);
        S("}\n");
        return;
    }
    const Type *tt = target_type(g, target);
    if (tt->kind == TY_NONE) {
        return;     /* x = None where x is only ever None: nothing to store */
    }
    if (tt->kind == TY_OPTIONAL && value && value->kind == ND_CONST
        && value->cval.kind == CK_NONE) {
        begin(g, stmt);
        store(g, target);
        S(" = {};\n");       /* x = None */
        return;
    }
    if (tt->kind == TY_ARRAY && tt->sshape && !tmp
        && (target->kind == ND_ATTR
            || (target->kind == ND_INDEX && cg_type(g, target->a)->kind == TY_RECORD))) {
        copy_subarray(g, stmt, target, value);      /* r.f = src: a sub-array field */
        return;
    }
    if (tt->kind == TY_RECORD && cj_record(tt->dtype)->strkind && target->kind != ND_VAR) {
        string_assign(g, stmt, target, &value->cval, cj_record(tt->dtype));
        return;     /* typing let only a string constant come here */
    }
    if (target->kind == ND_INDEX && tt->kind == TY_ARRAY && !tmp
        && cg_type(g, value)->kind == TY_ARRAY) {      /* x[a:b] = y: a copy */
        begin(g, stmt);
        S("cj_copyto(");
        cg_expr(g, target, PR_COMMA);
        S(", ");
        cg_view_base(g, value, cg_type(g, value));
        S(");\n");
        return;
    }
    if (target->kind == ND_INDEX && tt->kind == TY_ARRAY) {    /* x[a:b] = v: a fill */
        begin(g, stmt);
        S("cj_fill(");
        cg_expr(g, target, PR_COMMA);
        S(", ");
        if (tmp) {
            P("%s", tmp);
        } else {
            cg_conv(g, value, cj_scalar(tt->dtype), PR_COMMA);
        }
        S(");\n");
        return;
    }
    begin(g, stmt);
    store(g, target);
    S(" = ");
    if (target->kind == ND_VAR && tt->kind == TY_RECORD && !tmp && value->kind == ND_CALL) {
        /* r = make(...): the record is kept in r's own storage, r points there */
        P("&(cj_v_%s = ", target->var->cname);
        cg_expr(g, value, PR_ASSIGN);
        S(");\n");
        return;
    }
    if (target->kind == ND_VAR && tt->kind == TY_RECORD && !tmp) {
        /* r = a[i]: r refers to the element (of a const table too: typing
         * keeps such records read-only) */
        P("(%s *)&", cj_dtypes[tt->dtype].ctype);
        cg_expr(g, value, PR_UNARY);
        S(";\n");
        return;
    }
    if (tmp) {
        P("%s", tmp);
    } else {
        cg_conv(g, value, tt, PR_ASSIGN);
    }
    S(";\n");
}

static int
is_alloc(Node *v)
{
    return v->kind == ND_CALL && (v->op == BI_SHARED_MEMORY || v->op == BI_LOCAL_MEMORY
                                  || v->op == BI_CONST_ARRAY);
}

/* a, b = b, a: every value is read before any target is written */
static void
assign_tuple_literal(Cg *g, Node *n, Node *target, Node *value)
{
    begin(g, n);
    S("{\n");
    g->out->indent++;
    int base = g->ntemp;
    g->ntemp += value->n;
    for (int i = 0; i < value->n; i++) {
        const Type *tt = target->list[i]->kind == ND_TUPLE ? cg_type(g, value->list[i])
                         : target_type(g, target->list[i]);
        if (tt->kind == TY_NONE) {
            continue;       /* x = None where x is only ever None: assign_one stores nothing */
        }
        begin(g, n);
        P("%s cj_t%d = ", cg_ctype(g, tt), base + i);
        cg_conv(g, value->list[i], tt, PR_ASSIGN);
        S(";\n");
    }
    for (int i = 0; i < value->n; i++) {
        assign_one(g, n, target->list[i], NULL, cj_aprintf(g->p->arena, "cj_t%d", base + i));
    }
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
}

/* x[a] = v = y of an array y: a copy into the view, from the temporary t
 * holding y (a global array's view is a cj_array; a shared or local array
 * is its name, read again) */
static void
copy_chained(Cg *g, Node *n, Node *target, const char *t)
{
    const Type *vt = cg_type(g, n->a);
    begin(g, n);
    S("cj_copyto(");
    cg_expr(g, target, PR_COMMA);
    S(", ");
    if (vt->mem == MEM_GLOBAL) {
        S(t);
    } else {
        cg_view_base(g, n->a, vt);
    }
    S(");\n");
}

static void
assign_stmt(Cg *g, Node *n)
{
    if (is_alloc(n->a)) {
        return;     /* declared with the function's variables */
    }
    if (cg_np_assign(g, n)) {
        return;     /* q = a.copy(): declared, then filled */
    }
    if (n->n == 1 && n->list[0]->kind == ND_TUPLE && n->a->kind == ND_TUPLE) {
        assign_tuple_literal(g, n, n->list[0], n->a);
        return;
    }
    if (n->n == 1) {
        assign_one(g, n, n->list[0], n->a, NULL);
        return;
    }
    /* a = b = value: value evaluated once */
    const char *t = cj_aprintf(g->p->arena, "cj_t%d", g->ntemp++);
    begin(g, n);
    S("{\n");
    g->out->indent++;
    begin(g, n);
    P("auto %s = ", t);
    cg_expr(g, n->a, PR_ASSIGN);
    S(";\n");
    for (int i = 0; i < n->n; i++) {
        Node *tg = n->list[i];
        if (tg->kind == ND_TUPLE) {
            assign_one(g, n, tg, NULL, t);
        } else if (tg->kind == ND_INDEX && target_type(g, tg)->kind == TY_ARRAY
                   && cg_type(g, n->a)->kind == TY_ARRAY) {
            copy_chained(g, n, tg, t);
        } else {
            const Type *tt = target_type(g, tg);
            if (tg->kind == ND_INDEX && tt->kind == TY_ARRAY) {
                tt = cj_scalar(tt->dtype);      /* x[a:b] = ...: the view's elements */
            }
            assign_one(g, n, tg, NULL, cj_aprintf(g->p->arena, "(%s)%s", cg_ctype(g, tt), t));
        }
    }
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
}

static int
plain_compound(Cg *g, Node *n, const Type *tt, const Type *rt)
{
    if (!cj_type_eq(tt, rt) || tt->kind != TY_SCALAR) {
        return 0;
    }
    char k = cj_dtypes[tt->dtype].kind;
    if (k == 'b' || k == 'c' || cj_is_half(tt->dtype) || cj_dtypes[tt->dtype].size < 4) {
        return 0;
    }
    return n->op == OP_ADD || n->op == OP_SUB || n->op == OP_MUL
           || (n->op == OP_DIV && k == 'f') || n->op == OP_BITAND || n->op == OP_BITOR
           || n->op == OP_BITXOR || n->op == OP_LSHIFT || n->op == OP_RSHIFT;
}

static const char *
compound_op(int op)
{
    switch (op) {
    case OP_ADD: return "+=";
    case OP_SUB: return "-=";
    case OP_MUL: return "*=";
    case OP_DIV: return "/=";
    case OP_BITAND: return "&=";
    case OP_BITOR: return "|=";
    case OP_BITXOR: return "^=";
    case OP_LSHIFT: return "<<=";
    default: return ">>=";
    }
}

/* x op= y: C's compound form where it means the same; otherwise the element
 * is bound to a reference and computed as a binary operation */
static void
augassign_stmt(Cg *g, Node *n)
{
    const Type *tt = target_type(g, n->a);
    const Type *rt = cg_type(g, n);
    if (plain_compound(g, n, tt, rt)) {
        begin(g, n);
        store(g, n->a);
        P(" %s ", compound_op(n->op));
        cg_conv(g, n->b, rt, PR_ASSIGN);
        S(";\n");
        return;
    }
    /* synthesise target = target op value over a reference to the element */
    Node bin = *n;
    bin.kind = ND_BINOP;
    bin.a = n->a;
    bin.b = n->b;
    if (n->a->kind == ND_INDEX && cg_type(g, n->a->a)->kind != TY_RECORD) {
        begin(g, n);
        S("{\n");
        g->out->indent++;
        begin(g, n);
        P("%s &cj_r = ", cg_ctype(g, tt));
        cg_index_ref(g, n->a);
        S(";\n");
        Var rv = {.name = "cj_r", .cname = "cj_r", .id = -1};
        Node ref = *n->a;
        ref.kind = ND_VAR;
        ref.var = &rv;
        /* the reference reads as the element's type */
        bin.a = &ref;
        begin(g, n);
        S("cj_r = ");
        cg_conv(g, &bin, tt, PR_ASSIGN);
        S(";\n");
        g->out->indent--;
        buf_indent(g->out);
        S("}\n");
        return;
    }
    begin(g, n);
    store(g, n->a);
    S(" = ");
    cg_conv(g, &bin, tt, PR_ASSIGN);
    S(";\n");
}

/* if on a constant (the frontend kept one branch): that branch as a block */
static void
const_if_stmt(Cg *g, Node *n, int truth)
{
    S("{\n");
    g->out->indent++;
    if (truth) {
        stmts(g, n->list, n->n);
    } else {
        stmts(g, n->list2, n->n2);
    }
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
}

static void
if_stmt(Cg *g, Node *n, int is_elif)
{
    if (!is_elif) {
        begin(g, n);
    }
    int truth;
    if (cj_fold_truth(n->a, &truth)) {
        const_if_stmt(g, n, truth);
        return;
    }
    if (g->in->aux[n->id]) {
        const_if_stmt(g, n, g->in->aux[n->id] == 2);   /* known from the types */
        return;
    }
    S("if (");
    cg_truth(g, n->a, PR_COMMA);
    S(") {\n");
    g->out->indent++;
    stmts(g, n->list, n->n);
    g->out->indent--;
    if (n->n2 == 1 && n->list2[0]->kind == ND_IF) {
        buf_indent(g->out);
        S("} else ");
        if_stmt(g, n->list2[0], 1);
        return;
    }
    if (n->n2) {
        buf_indent(g->out);
        S("} else {\n");
        g->out->indent++;
        stmts(g, n->list2, n->n2);
        g->out->indent--;
    }
    buf_indent(g->out);
    S("}\n");
}

/* a break of this loop (not of one nested in it) among the statements */
static int
breaks_loop(Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        Node *s = list[i];
        if (s->kind == ND_BREAK || (s->kind == ND_IF && (breaks_loop(s->list, s->n)
                                                          || breaks_loop(s->list2, s->n2)))) {
            return 1;
        }
    }
    return 0;
}

/* loop ... else: the loop's breaks jump past the else (goto cj_brk<n>);
 * returns the outer loop's label, for loop_else */
static int
loop_begin(Cg *g, Node *n)
{
    int outer = g->brk_label;
    g->brk_label = n->n2 && breaks_loop(n->list, n->n) ? ++g->nlabels : 0;
    return outer;
}

/* the else of a loop, run when it ends without a break, then its label */
static void
loop_else(Cg *g, Node *n, int outer)
{
    int label = g->brk_label;
    g->brk_label = outer;
    if (!n->n2) {
        return;
    }
    begin(g, n);
    S("{\n");
    g->out->indent++;
    stmts(g, n->list2, n->n2);
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
    if (label) {
        buf_indent(g->out);
        P("cj_brk%d:;\n", label);
    }
}

static void
while_stmt(Cg *g, Node *n)
{
    int outer = loop_begin(g, n);
    begin(g, n);
    S("while (");
    cg_truth(g, n->a, PR_COMMA);
    S(") {\n");
    g->out->indent++;
    stmts(g, n->list, n->n);
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
    loop_else(g, n, outer);
}

static int
assigns_var(Node *n, Var *v)
{
    if (!n) {
        return 0;
    }
    if ((n->kind == ND_ASSIGN || n->kind == ND_AUGASSIGN)) {
        Node **ts = n->kind == ND_ASSIGN ? n->list : &n->a;
        int nt = n->kind == ND_ASSIGN ? n->n : 1;
        for (int i = 0; i < nt; i++) {
            if (ts[i]->kind == ND_VAR && ts[i]->var == v) {
                return 1;
            }
            if (ts[i]->kind == ND_TUPLE && assigns_var(&(Node){.kind = ND_ASSIGN,
                                                              .list = ts[i]->list,
                                                              .n = ts[i]->n}, v)) {
                return 1;
            }
        }
    }
    if (n->kind == ND_FOR && n->var == v) {
        return 1;
    }
    for (int i = 0; i < n->n && n->kind != ND_ASSIGN && n->kind != ND_COMPARE; i++) {
        if (n->list && assigns_var(n->list[i], v)) {
            return 1;
        }
    }
    for (int i = 0; i < n->n2; i++) {
        if ((n->kind == ND_IF || n->kind == ND_FOR || n->kind == ND_WHILE)
            && assigns_var(n->list2[i], v)) {
            return 1;
        }
    }
    return 0;
}

static int
reads_var(Node *n, Var *v)
{
    if (!n) {
        return 0;
    }
    if (n->kind == ND_VAR) {
        return n->var == v;
    }
    if (reads_var(n->a, v) || reads_var(n->b, v) || reads_var(n->c, v)) {
        return 1;
    }
    for (int i = 0; i < n->n; i++) {
        if (n->list && reads_var(n->list[i], v)) {
            return 1;
        }
    }
    for (int i = 0; i < n->n2; i++) {
        if (n->list2 && reads_var(n->list2[i], v)) {
            return 1;
        }
    }
    return 0;
}

/* Is the loop variable used outside this loop (then Python's value after
 * the loop, the last one taken, must be kept)? */
static int
loop_var_escapes(Cg *g, Node *loop)
{
    Func *fn = g->fn;
    for (int i = 0; i < fn->nbody; i++) {
        if (fn->body[i] == loop) {
            continue;
        }
        if (reads_var(fn->body[i], loop->var) && !(fn->body[i]->kind == ND_FOR
                                                   && fn->body[i]->var == loop->var)) {
            return 1;
        }
    }
    return 0;
}

/* an integer constant, or minus one (*v; an absent n is 1: range's step) */
int
cg_const_int(const Node *n, int64_t *v)
{
    if (!n) {
        *v = 1;
        return 1;
    }
    if (n->kind == ND_CONST && n->cval.kind == CK_INT) {
        *v = n->cval.i;
        return 1;
    }
    if (n->kind == ND_UNARY && n->op == OP_NEG && n->a->kind == ND_CONST
        && n->a->cval.kind == CK_INT) {
        *v = -n->a->cval.i;
        return 1;
    }
    return 0;
}

/* for v in range(start, stop, step): bounds and step evaluated once; the
 * body may assign v without changing the iteration (as in Python) */
static void
for_stmt(Cg *g, Node *n)
{
    const Type *vt = cj_concrete(g->in->vtype[n->var->id]);
    const char *ct = cg_ctype(g, vt);
    const char *v = n->var->cname;
    int64_t step = 1;
    int const_step = cg_const_int(n->c, &step);
    int k = g->ntemp++;
    int hidden = 0;
    for (int i = 0; i < n->n; i++) {
        hidden |= assigns_var(n->list[i], n->var);
    }
    hidden |= loop_var_escapes(g, n);
    begin(g, n);
    S("{\n");
    g->out->indent++;
    int simple_stop = n->b->kind == ND_CONST || (n->b->kind == ND_VAR && n->b->var->is_param);
    const char *stop = NULL;
    if (!simple_stop) {
        stop = cj_aprintf(g->p->arena, "cj_stop%d", k);
        begin(g, n);
        P("const %s %s = ", ct, stop);
        cg_conv(g, n->b, vt, PR_ASSIGN);
        S(";\n");
    }
    if (!const_step) {
        begin(g, n);
        P("const %s cj_step%d = ", ct, k);
        cg_conv(g, n->c, vt, PR_ASSIGN);
        S(";\n");
    }
    const char *it = hidden ? cj_aprintf(g->p->arena, "cj_i%d", k) : v;
    begin(g, n);
    if (n->unroll) {
        /* jit.range(..., unroll=): the pragma right before its loop */
        S(n->unroll < 0 ? "#pragma unroll\n" : "");
        if (n->unroll > 0) {
            P("#pragma unroll(%d)\n", n->unroll);     /* cupyx.jit's spelling */
        }
        buf_indent(g->out);
    }
    P("for (%s%s = ", hidden ? cj_aprintf(g->p->arena, "%s ", ct) : "", it);
    if (n->a) {
        cg_conv(g, n->a, vt, PR_ASSIGN);
    } else {
        S("0");
    }
    S("; ");
    if (const_step) {
        P("%s %s ", it, step > 0 ? "<" : ">");
    } else {
        P("cj_step%d > 0 ? %s < ", k, it);
    }
    if (stop) {
        S(stop);
    } else {
        cg_conv(g, n->b, vt, PR_REL + 1);
    }
    if (!const_step) {
        P(" : %s > ", it);
        if (stop) {
            S(stop);
        } else {
            cg_conv(g, n->b, vt, PR_COND);
        }
    }
    S("; ");
    if (const_step && step == 1) {
        P("%s++", it);
    } else if (const_step && step == -1) {
        P("%s--", it);
    } else if (const_step) {
        P("%s += %lld", it, (long long)step);
    } else {
        P("%s += cj_step%d", it, k);
    }
    S(") {\n");
    g->out->indent++;
    if (hidden) {
        begin(g, n);
        P("%s = %s;\n", v, it);
    }
    stmts(g, n->list, n->n);
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
}

/* return x (or None) of an Optional x where the function returns a value
 * (a declared return type): its value, or TypeError on None (cj_opt_get) */
static int
return_optional(Cg *g, Node *n)
{
    const Type *ret = g->in->ret, *vt = n->a ? cg_type(g, n->a) : NULL;
    if (ret->kind == TY_VOID || ret->kind == TY_OPTIONAL
        || (vt && vt->kind != TY_OPTIONAL && vt->kind != TY_NONE)) {
        return 0;
    }
    Type opt = {.kind = TY_OPTIONAL, .base = (Type *)ret};
    int msg = cg_opt_get_msg(g, &opt);
    P("return cj_opt_get(");
    if (vt && vt->kind == TY_OPTIONAL) {
        cg_expr(g, n->a, PR_COMMA);
    } else {
        P("cj_opt<%s>()", cg_ctype(g, ret));
        g->p->features |= FEAT_OPTIONAL;
    }
    P(", %d, %d);\n", n->loc.line, msg);
    return 1;
}

static void
return_stmt(Cg *g, Node *n)
{
    begin(g, n);
    if (return_optional(g, n)) {
        return;
    }
    if (!n->a || g->in->ret->kind == TY_VOID) {
        S(g->in->ret->kind == TY_OPTIONAL ? "return {};\n" : "return;\n");
        return;
    }
    if (g->in->ret->kind == TY_OPTIONAL) {
        /* a value or None: cj_opt<T>'s constructors wrap it */
        const Type *vt = cg_type(g, n->a);
        P("return %s(", cg_ctype(g, g->in->ret));
        if (vt->kind == TY_NONE) {
            S(");\n");
            return;
        }
        cg_conv(g, n->a, vt->kind == TY_OPTIONAL ? vt : g->in->ret->base, PR_COMMA);
        S(");\n");
        return;
    }
    S("return ");
    cg_conv(g, n->a, g->in->ret, PR_COMMA);
    S(";\n");
}

/* raise E(args): the error record (kind 3, the raise's message names the
 * exception for the host), then the thread ends: a kernel returns, a
 * device function exits the thread (PTX exit) */
static void
raise_stmt(Cg *g, Node *n, int msg)
{
    begin(g, n);
    P("cj_record(3, %d, %d, 0, 0, 0);\n", n->loc.line, msg);
    begin(g, n);
    S(g->fn->is_device ? "asm volatile(\"exit;\");\n" : "return;\n");
}

static void
assert_stmt(Cg *g, Node *n)
{
    Program *p = g->p;
    int msg = -1;
    if (n->str) {
        msg = p->nmsgs;
        p->msgs = (const char **)cj_vec_push(p->arena, (void **)p->msgs, &p->nmsgs, &p->mcap,
                                             (void *)n->str);
    }
    p->features |= FEAT_ASSERT;
    if (n->op == ND_RAISE_OP) {
        raise_stmt(g, n, msg);
        return;
    }
    begin(g, n);
    S("if (!");
    cg_truth(g, n->a, PR_UNARY);
    P(") {\n");
    g->out->indent++;
    begin(g, n);
    P("cj_record(1, %d, %d, 0, 0, 0);\n", n->loc.line, msg);
    if (!g->fn->is_device) {
        begin(g, n);
        S("return;\n");
    }
    g->out->indent--;
    buf_indent(g->out);
    S("}\n");
}

/* a value whose C++ type is a struct (complex, half, bfloat16, a record, a
 * tuple, a vector): a call of one may be emitted as T(x), which C++ reads as a
 * declaration when it stands alone */
static int
struct_valued(const Type *t)
{
    return t->kind != TY_SCALAR || cj_dtypes[t->dtype].kind == 'c' || t->dtype == DT_F16
           || t->dtype == DT_BF16;
}

void
cg_stmt(Cg *g, Node *n)
{
    switch (n->kind) {
    case ND_ASSIGN:
        assign_stmt(g, n);
        return;
    case ND_AUGASSIGN:
        augassign_stmt(g, n);
        return;
    case ND_IF:
        if_stmt(g, n, 0);
        return;
    case ND_WHILE:
        while_stmt(g, n);
        return;
    case ND_FOR: {
        int outer = loop_begin(g, n);
        for_stmt(g, n);
        loop_else(g, n, outer);
        return;
    }
    case ND_BREAK:
        begin(g, n);
        if (g->brk_label) {
            P("goto cj_brk%d;\n", g->brk_label);
        } else {
            S("break;\n");
        }
        return;
    case ND_CONTINUE:
        begin(g, n);
        S("continue;\n");
        return;
    case ND_PASS:
        return;
    case ND_RETURN:
        return_stmt(g, n);
        return;
    case ND_ASSERT:
        assert_stmt(g, n);
        return;
    case ND_EXPR:
        begin(g, n);
        if (cg_type(g, n->a)->kind == TY_VOID
            || (n->a->kind == ND_CALL && !struct_valued(cg_type(g, n->a)))) {
            cg_expr(g, n->a, PR_COMMA);
        } else {            /* (void) also keeps T(x); from reading as a declaration */
            S("(void)");
            cg_expr(g, n->a, PR_UNARY);
        }
        S(";\n");
        return;
    case ND_CONST: case ND_VAR: case ND_BINOP: case ND_UNARY: case ND_COMPARE:
    case ND_BOOLOP: case ND_IFEXP: case ND_INDEX: case ND_ATTR: case ND_CALL:
    case ND_TUPLE: case ND_SLICE:
        break;
    }
    cj_unreachable(g->p->try_, "expression as statement");
}

static void
stmts(Cg *g, Node **list, int n)
{
    for (int i = 0; i < n; i++) {
        cg_stmt(g, list[i]);
    }
}

/* ---- functions ---- */

void
cg_declare_var(Cg *g, Var *v)
{
    const Type *t = g->in->vtype[v->id];
    if (!t || t->kind == TY_NONE) {
        return;     /* never assigned (dead code), or only None: no storage */
    }
    t = cj_concrete(t);
    cg_line_mark(g, v->loc.line);
    buf_indent(g->out);
    if (t->kind == TY_ARRAY && t->mem != MEM_GLOBAL) {
        const char *ct = cj_dtypes[t->dtype].ctype;
        if (t->mem == MEM_DYNSHARED) {
            P("%s *%s = (%s *)cj_dyn_smem;\n", ct, v->cname, ct);
            return;
        }
        if (t->mem == MEM_CONST) {
            P("const %s *%s = (const %s *)cj_table%d;\n", ct, v->cname, ct, t->table->id);
            return;
        }
        int64_t total = 1;
        for (int d = 0; d < t->ndim; d++) {
            total *= t->sshape[d];
        }
        if (t->align) {
            P("%s__align__(%d) %s %s[%lld];\n", t->mem == MEM_SHARED ? "__shared__ " : "",
              t->align, ct, v->cname, (long long)total);
            return;
        }
        P("%s%s %s[%lld];\n", t->mem == MEM_SHARED ? "__shared__ " : "", ct, v->cname,
          (long long)total);
        return;
    }
    P("%s %s%s;\n", var_ctype(g, t), v->cname, v->maybe_unset ? "{}" : "");
    if (t->kind == TY_RECORD && !v->is_param) {
        /* the storage of a record assigned from a call (r = make(...)) */
        buf_indent(g->out);
        P("%s cj_v_%s;\n", cj_dtypes[t->dtype].ctype, v->cname);
    }
}

/* the parameter's variable holds another type than its argument */
static int
param_widens(const Inst *in, int i)
{
    const Type *v = in->vtype[i];
    return v && !cj_type_eq(cj_concrete(v), cj_concrete(in->args[i]));
}

/* __launch_bounds__(max threads[, min blocks[, max cluster size]]) */
void
cg_launch_bounds(Cg *g)
{
    const int *lb = g->p->launch_bounds;
    if (lb[0] <= 0) {
        return;
    }
    P("__launch_bounds__(%d", lb[0]);
    for (int i = 1; i < 3 && lb[i] > 0; i++) {
        P(", %d", lb[i]);
    }
    S(") ");
}

static void
signature(Cg *g, Inst *in)
{
    Func *fn = in->fn;
    if (fn->is_device) {
        P("static __device__ %s %s %s(", in->recursive ? "__noinline__" : "__forceinline__",
          cg_ctype(g, in->ret), in->cname);
    } else {
        S("extern \"C\" __global__ void ");
        cg_launch_bounds(g);
        P("%s(", in->cname);
    }
    for (int i = 0; i < fn->nparams; i++) {
        const Type *t = in->args[i];
        const char *ct = var_ctype(g, t);
        P("%s%s%s%s%s", i ? ", " : "", ct, fn->vars[i]->byref ? " &"
          : ct[strlen(ct) - 1] == '*' ? "" : " ", param_widens(in, i) ? "cj_p_" : "",
          fn->vars[i]->cname);
    }
    S(")");
}

/* A parameter whose variable holds a wider type than its argument
 * (x = 0.5 on one path of an int64 x; arr rebound to a view of another
 * layout): the argument comes in as cj_p_<name> and is copied into it. */
static void
widened_params(Cg *g, Inst *in)
{
    for (int i = 0; i < in->fn->nparams; i++) {
        if (!param_widens(in, i)) {
            continue;
        }
        const Type *from = cj_concrete(in->args[i]), *to = cj_concrete(in->vtype[i]);
        const char *name = in->fn->vars[i]->cname;
        const char *arg = cj_aprintf(g->p->arena, "cj_p_%s", name);
        buf_indent(g->out);
        P("%s %s = ", var_ctype(g, to), name);
        if (from->kind == TY_SCALAR && to->kind == TY_SCALAR) {
            cg_conv_to(g->p, g->out, from->dtype, to->dtype, arg);
        } else {
            S(arg);
        }
        S(";\n");
    }
}

static void
function(Cg *g, Inst *in)
{
    g->in = in;
    g->fn = in->fn;
    g->last_line = 0;
    Func *fn = in->fn;
    P("/* %s%s at %s:%d */\n", fn->name, fn->is_device ? " (device function)" : "", fn->file,
      fn->loc.line);
    cg_line_mark(g, fn->loc.line);
    signature(g, in);
    S("\n{\n");
    g->out->indent = 1;
    widened_params(g, in);
    for (int i = fn->nparams; i < fn->nvars; i++) {
        cg_declare_var(g, fn->vars[i]);
    }
    stmts(g, fn->body, fn->nbody);
    if (in->ret->kind == TY_OPTIONAL) {
        S("    return {};\n");        /* falling off the end returns None */
    }
    g->out->indent = 0;
    S("}\n");
}

/* instances the kernel reaches, callees first */
static void
mark_calls(Program *p, Inst *in, Node *n, Inst **order, int *count);

static void
reach(Program *p, Inst *in, Inst **order, int *count)
{
    for (int i = 0; i < *count; i++) {
        if (order[i] == in) {
            return;
        }
    }
    if (in->busy) {
        return;         /* a function calling itself */
    }
    in->busy = 1;
    for (int i = 0; i < in->fn->nbody; i++) {
        mark_calls(p, in, in->fn->body[i], order, count);
    }
    in->busy = 0;
    order[(*count)++] = in;
}

static void
mark_calls(Program *p, Inst *in, Node *n, Inst **order, int *count)
{
    if (!n) {
        return;
    }
    if (n->kind == ND_CALL && (n->op == BI_DEVFUNC || (n->coll & CO_MASK) == CO_FUNC)
        && in->callee[n->id]) {
        reach(p, in->callee[n->id], order, count);
    }
    mark_calls(p, in, n->a, order, count);
    mark_calls(p, in, n->b, order, count);
    mark_calls(p, in, n->c, order, count);
    for (int i = 0; i < n->n; i++) {
        if (n->list) {
            mark_calls(p, in, n->list[i], order, count);
        }
    }
    for (int i = 0; i < n->n2; i++) {
        if (n->list2) {
            mark_calls(p, in, n->list2[i], order, count);
        }
    }
}

static void
tuple_structs(Cg *g, Buf *out)
{
    /* tuples may hold tuples: p->tuples lists inner ones first */
    for (int i = 0; i < g->p->ntuples; i++) {
        const Type *t = g->p->tuples[i];
        buf_printf(out, "struct %s {\n", tuple_name(g->p, t));
        for (int k = 0; k < t->ntup; k++) {
            buf_printf(out, "    %s f%d;\n", cg_ctype(g, t->tup[k]), k);
        }
        buf_puts(out, "};\n");
    }
}

/* the libdevice functions called, declared (NVRTC links libdevice) */
static void
libdevice_decls(Program *p, Buf *out)
{
    static const char *const ctypes[] = {['v'] = "void", ['i'] = "int", ['u'] = "unsigned",
                                         ['l'] = "long long", ['L'] = "unsigned long long",
                                         ['w'] = "unsigned short", ['f'] = "float",
                                         ['d'] = "double"};
    for (int r = 0; p->intrin_used && r < cj_nintrins; r++) {
        if (!p->intrin_used[r] || !cj_intrin_is_libdevice(r)) {
            continue;
        }
        const char *sig = cj_intrins[r].sig;
        buf_printf(out, "extern \"C\" __device__ %s %s(", ctypes[(unsigned char)sig[0]],
                   cj_intrins[r].cname);
        int k = 0;
        for (const char *c = sig + 1; *c; c++, k++) {
            int ptr = *c == '*';
            c += ptr;
            buf_printf(out, "%s%s%s", k ? ", " : "", ctypes[(unsigned char)*c], ptr ? " *" : "");
        }
        buf_puts(out, ");\n");
    }
}

/* fields in the order of their offsets (NumPy may list them otherwise) */
static int *
by_offset(Program *p, const CjRecord *r)
{
    int *ord = cj_alloc(p->arena, sizeof(int) * (size_t)(r->nfields + 1));
    for (int i = 0; i < r->nfields; i++) {
        int k = i;
        while (k > 0 && r->fields[ord[k - 1]].offset > r->fields[i].offset) {
            ord[k] = ord[k - 1];
            k--;
        }
        ord[k] = i;
    }
    return ord;
}

/* One record dtype as a C++ struct at NumPy's exact offsets: its fields
 * f<i> in offset order, gaps as padding arrays, packed when a field sits off
 * its C++ alignment.  Each field then starts where the padding before it
 * ends (no implicit padding: every offset is a multiple of the field's
 * alignment, or the struct is packed); a static_assert checks the size and
 * alignment (NVRTC has no offsetof; tests check the offsets with g++). */
static void
record_struct(Program *p, DType dt, Buf *out)
{
    const CjRecord *r = cj_record(dt);
    int natural = !r->packed, at = 0, npad = 0;
    int *ord = by_offset(p, r);
    if (r->strkind) {       /* S12, U12: bytes (a U's code points little-endian) */
        buf_printf(out, "struct %s {\n    unsigned char c[%d];\n};\n", r->cname, r->itemsize);
        return;
    }
    if (natural) {
        buf_printf(out, "struct __align__(%d) %s {\n", r->align, r->cname);
    } else {
        buf_printf(out, "struct __attribute__((packed, aligned(%d))) %s {\n", r->align,
                   r->cname);
    }
    for (int k = 0; k < r->nfields; k++) {
        const CjField *f = &r->fields[ord[k]];
        if (f->offset > at) {
            buf_printf(out, "    unsigned char cj_pad%d[%d];\n", npad++, f->offset - at);
        }
        if (cj_dtypes[f->dt].kind == 'c') {
            buf_printf(out, "    cj_%ccomplex<%s> f%d", cj_field_aligned(r, f) ? 'u' : 'p',
                       f->dt == DT_C64 ? "float" : "double", ord[k]);
        } else {
            buf_printf(out, "    %s f%d", cj_dtypes[f->dt].ctype, ord[k]);
        }
        if (f->nsub) {
            buf_printf(out, "[%d]", f->count);
        }
        buf_puts(out, ";\n");
        at = f->offset + f->count * cj_dtypes[f->dt].size;
    }
    if (r->itemsize > at) {
        buf_printf(out, "    unsigned char cj_pad%d[%d];\n", npad, r->itemsize - at);
    }
    buf_puts(out, "};\n");
    buf_printf(out, "static_assert(sizeof(%s) == %d && alignof(%s) == %d, \"record "
               "layout\");\n", r->cname, r->itemsize, r->cname, r->align);
}

/* a complex field: NumPy aligns it as its parts, where cj_complex is
 * aligned to its whole size; read as a cj_complex, assigned one.  One off
 * its parts' alignment (a packed dtype) is bytes, copied (cj_pcomplex): a
 * member function's `this` would be taken as aligned. */
static const char ucomplex[] =
    "template <typename T> struct cj_ucomplex {\n"
    "    T re, im;\n"
    "    __device__ operator cj_complex<T>() const { return {re, im}; }\n"
    "    __device__ cj_ucomplex &operator=(cj_complex<T> z) { re = z.re; im = z.im; return *this; }\n"
    "};\n"
    "template <typename T> struct cj_pcomplex {\n"
    "    unsigned char b[2 * sizeof(T)];\n"
    "    __device__ operator cj_complex<T>() const {\n"
    "        cj_complex<T> z;\n"
    "        for (unsigned k = 0; k < sizeof z; k++) { ((unsigned char *)&z)[k] = b[k]; }\n"
    "        return z;\n"
    "    }\n"
    "    __device__ cj_pcomplex &operator=(cj_complex<T> z) {\n"
    "        for (unsigned k = 0; k < sizeof z; k++) { b[k] = ((unsigned char *)&z)[k]; }\n"
    "        return *this;\n"
    "    }\n"
    "};\n";

/* records[i] is the twin of an earlier one (the same layout made with and
 * without align=True): one C++ struct serves both */
static int
twin_seen(const Program *p, int i)
{
    for (int j = 0; j < i; j++) {
        if (strcmp(cj_record(p->records[j])->cname, cj_record(p->records[i])->cname) == 0) {
            return 1;
        }
    }
    return 0;
}

static void
record_structs(Program *p, Buf *out)
{
    if (p->nrecords && (p->features & FEAT_COMPLEX)) {
        buf_puts(out, ucomplex);
    }
    for (int i = 0; i < p->nrecords; i++) {
        if (!twin_seen(p, i)) {
            record_struct(p, p->records[i], out);
        }
    }
}

/* cuda.const.array_like's arrays: their bytes as __constant__ tables */
static void
const_tables(Program *p, Buf *out)
{
    for (int i = 0; i < p->ntables; i++) {
        const CjTable *t = p->tables[i];
        buf_printf(out, "__constant__ __align__(16) unsigned char cj_table%d[%lld] = {", i,
                   (long long)(t->nbytes ? t->nbytes : 1));
        for (int64_t k = 0; k < t->nbytes; k++) {
            buf_printf(out, "%s%s%u", k ? "," : "", k % 24 ? "" : "\n    ", t->data[k]);
        }
        buf_puts(out, t->nbytes ? "\n};\n" : "0};\n");
    }
}

void
cg_emit_device_entry(Program *p, const char *name, const Type *ret, int forceinline,
                     Buf *out)
{
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Inst *in = p->kernel;
    Buf tail;
    buf_init(&tail);
    g->out = &tail;
    g->in = in;
    g->fn = in->fn;
    S("\n");
    cg_line_mark(g, in->fn->loc.line);     /* NVRTC's complaints name the def line */
    P("extern \"C\" __device__ %s %s %s(", forceinline ? "__forceinline__" : "__noinline__",
      cg_ctype(g, ret), name);
    for (int i = 0; i < in->fn->nparams; i++) {
        P("%s%s cj_a%d", i ? ", " : "", cg_ctype(g, in->args[i]), i);
    }
    P(")\n{\n    %s%s(", ret->kind == TY_VOID ? "" : "return ", in->cname);
    for (int i = 0; i < in->fn->nparams; i++) {
        P("%scj_a%d", i ? ", " : "", i);
    }
    S(");\n}\n");
    cg_emit_roots(p, &in, 1, tail.s, out);
    buf_free(&tail);
}

const char *
cg_kernel_name(Program *p)
{
    return p->kernel->cname;
}

void
cg_emit_roots(Program *p, Inst **roots, int nroots, const char *tail, Buf *out)
{
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Buf body;
    buf_init(&body);
    g->out = &body;
    Inst **order = cj_alloc(p->arena, sizeof(Inst *) * (size_t)(p->ninsts + 1));
    int count = 0;
    for (int r = 0; r < nroots; r++) {
        reach(p, roots[r], order, &count);
    }
    for (int i = 0; i < count; i++) {
        function(g, order[i]);
        if (i + 1 < count) {
            S("\n");
        }
    }
    if (tail) {
        buf_puts(&body, tail);
    }
    for (int i = 0; i < p->ninsts; i++) {
        for (int k = 0; k < p->insts[i]->fn->nvars; k++) {
            const Type *t = p->insts[i]->vtype[k];
            if (t && cj_concrete(t)->kind == TY_TUPLE) {
                need_tuple(p, cj_concrete(t));
            }
        }
    }
    Inst *k = roots[0];
    buf_printf(out, "// CUDA C++ generated by cujit %s from %s() in %s:%d\n// for (", CJ_VERSION,
               k->fn->name, k->fn->file, k->fn->loc.line);
    for (int i = 0; i < k->fn->nparams; i++) {
        if (i) {
            buf_puts(out, ", ");
        }
        cj_type_str(out, k->args[i]);
    }
    buf_printf(out, "), %s-bit indexing\n", p->idx32 ? "32" : "64");
    cg_prelude(out, p->features, p->atomic_ops);
    cg_form_prelude(out, p->features);
    cg_group_prelude(out, p->features);
    cg_thrust_prelude(out, p->features);
    cg_np_prelude(out, p->features);
    cg_ufunc_prelude(out, p->features);
    libdevice_decls(p, out);
    record_structs(p, out);
    const_tables(p, out);
    cg_externs(g, out);
    Buf structs;
    buf_init(&structs);
    tuple_structs(g, &structs);
    if (structs.s) {
        buf_puts(out, structs.s);
    }
    buf_free(&structs);
    buf_puts(out, "\n");
    buf_puts(out, body.s ? body.s : "");
    buf_free(&body);
}

void
cg_emit(Program *p, Buf *out)
{
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Buf tail;
    buf_init(&tail);
    g->out = &tail;
    g->in = p->kernel;
    g->fn = p->kernel->fn;
    cg_coarsen(g, p->kernel);
    cg_emit_roots(p, &p->kernel, 1, tail.s, out);
    buf_free(&tail);
}
