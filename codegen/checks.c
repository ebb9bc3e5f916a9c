/* checks.c - Numba's debug=True exception checks (Func.boundscheck &
 * CHK_DEBUG).  A divisor of zero (/, //, %) records ZeroDivisionError and
 * ends the thread, as Numba's Python error model does (cj_nz: a float
 * divisor only with CHK_FLOATDIV, not under fastmath=True); a tuple indexed by
 * a variable (shape[-x]) takes negative indices from the end and records
 * IndexError("tuple index out of range") outside them (cj_tix).  The host
 * raises the recorded exception after the launch (module/raise.c), with the
 * thread and block. */
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

const char cg_checks_prelude[] =
    "/* debug=True: a zero divisor or a tuple index out of range raises on the host */\n"
    "template <typename T> CJ_DEVICE T cj_nz(T d, int line, int msg)\n"
    "{\n"
    "    if (d == (T)0) {\n"
    "        cj_record(3, line, msg, 0, 0, 0);\n"
    "        asm volatile(\"exit;\");\n"
    "    }\n"
    "    return d;\n"
    "}\n"
    "template <typename I> CJ_DEVICE long long cj_tix(I i, long long n, int line, int msg)\n"
    "{\n"
    "    long long k = (long long)i < 0 ? (long long)i + n : (long long)i;\n"
    "    if (k < 0 || k >= n) {\n"
    "        cj_record(3, line, msg, 0, 0, 0);\n"
    "        asm volatile(\"exit;\");\n"
    "    }\n"
    "    return k;\n"
    "}\n";

/* the id of an exception's message ("module\nqualname\nrepr(args)") in the
 * program's table, added once */
int
cg_exception_msg(Program *p, const char *text)
{
    for (int i = 0; i < p->nmsgs; i++) {
        if (strcmp(p->msgs[i], text) == 0) {
            return i;
        }
    }
    p->msgs = (const char **)cj_vec_push(p->arena, (void **)p->msgs, &p->nmsgs, &p->mcap,
                                         (void *)text);
    p->features |= FEAT_ASSERT;
    return p->nmsgs - 1;
}

/* x / y, x // y, x % y under debug=True: y is checked where cg_expr meets it
 * (cg_checked); a constant divisor is not (no side effect, its value known) */
void
cg_div_check(Cg *g, Node *n)
{
    const Type *dt = cg_type(g, n->b);
    if (!(g->fn->boundscheck & CHK_DEBUG) || dt->kind != TY_SCALAR || n->b->kind == ND_CONST) {
        return;
    }
    char k = cj_dtypes[dt->dtype].kind;
    if (k == 'c' || dt->dtype == DT_F16 || (k == 'f' && !(g->fn->boundscheck & CHK_FLOATDIV))) {
        return;
    }
    g->check_node = n->b;
    g->check_line = n->loc.line;
}

/* cg_expr's hook: the divisor marked by cg_div_check, wrapped in cj_nz */
int
cg_checked(Cg *g, Node *n)
{
    if (n != g->check_node) {
        return 0;
    }
    g->check_node = NULL;
    int line = g->check_line;
    int msg = cg_exception_msg(g->p, "builtins\nZeroDivisionError\n('division by zero',)");
    g->p->features |= FEAT_DEBUG_CHECKS;
    S("cj_nz(");
    cg_expr(g, n, PR_COMMA);
    P(", %d, %d)", line, msg);
    return 1;
}

/* the index of t[i], i a variable: as written, or under debug=True
 * normalised and checked (cj_tix) */
void
cg_tuple_index(Cg *g, Node *n, int ntup, int prec)
{
    if (!(g->fn->boundscheck & CHK_DEBUG)) {
        cg_expr(g, n->list[0], prec);
        return;
    }
    int msg = cg_exception_msg(g->p, "builtins\nIndexError\n('tuple index out of range',)");
    g->p->features |= FEAT_DEBUG_CHECKS;
    S("cj_tix(");
    cg_expr(g, n->list[0], PR_COMMA);
    P(", %dLL, %d, %d)", ntup, n->loc.line, msg);
}
