/* vectypes.c - CUDA C++ of the vector types (Numba's cuda.float32x4 ...):
 * CUDA's own float4 and make_float4, which NVRTC knows without a header. */
#include <stdio.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

static const char lane_names[] = "xyzw";

/* the lanes of argument k of a constructor, each ", "-separated: a number
 * converted to the element type, or the lanes of a vector (read from
 * `name` when the vector was bound to a lambda parameter, else from the
 * variable itself) */
static void
ctor_lanes(Cg *g, Node *n, int k, const Type *vt, const char *name, int *first)
{
    const Type *at = cg_type(g, n->list[k]);
    int lanes = at->kind == TY_VECTOR ? at->lanes : 1;
    for (int l = 0; l < lanes; l++) {
        S(*first ? "" : ", ");
        *first = 0;
        if (at->kind != TY_VECTOR) {
            cg_conv(g, n->list[k], cj_scalar(vt->dtype), PR_COMMA);
        } else if (name) {
            P("%s.%c", name, lane_names[l]);
        } else {
            cg_expr(g, n->list[k], PR_POSTFIX);
            P(".%c", lane_names[l]);
        }
    }
}

/* does the constructor read a vector given by an expression that must be
 * evaluated once (not a variable)? */
static int
needs_temps(Cg *g, Node *n)
{
    for (int k = 0; k < n->n; k++) {
        const Type *at = cg_type(g, n->list[k]);
        if (at->kind == TY_VECTOR && at->lanes > 1 && n->list[k]->kind != ND_VAR) {
            return 1;
        }
    }
    return 0;
}

/* vtype(parts...) -> make_float4(x, v.x, v.y, w); a vector made by an
 * expression is bound once to a lambda's parameter:
 * [](float2 cj_p0, float cj_p1) { return make_float3(cj_p0.x, cj_p0.y, cj_p1); }(f(), z) */
void
cg_vector_ctor(Cg *g, Node *n)
{
    const Type *vt = cg_type(g, n);
    const char *vname = cj_vector_cname(vt);
    int temps = needs_temps(g, n), first = 1;
    if (temps) {
        S("[](");
        for (int k = 0; k < n->n; k++) {
            const Type *at = cg_type(g, n->list[k]);
            P("%s%s cj_p%d", k ? ", " : "", at->kind == TY_VECTOR ? cg_ctype(g, at)
              : cj_dtypes[vt->dtype].ctype, k);
        }
        S(") { return ");
    }
    P("make_%s(", vname);
    for (int k = 0; k < n->n; k++) {
        char name[16];
        snprintf(name, sizeof name, "cj_p%d", k);
        if (temps && cg_type(g, n->list[k])->kind != TY_VECTOR) {
            P("%s%s", first ? "" : ", ", name);
            first = 0;
            continue;
        }
        ctor_lanes(g, n, k, vt, temps ? name : NULL, &first);
    }
    S(")");
    if (!temps) {
        return;
    }
    S("; }(");
    for (int k = 0; k < n->n; k++) {
        const Type *at = cg_type(g, n->list[k]);
        S(k ? ", " : "");
        cg_conv(g, n->list[k], at->kind == TY_VECTOR ? at : cj_scalar(vt->dtype), PR_COMMA);
    }
    S(")");
}

/* v.x ... v.w: the lane typeinfer put in aux */
void
cg_vector_lane(Cg *g, Node *n)
{
    cg_expr(g, n->a, PR_POSTFIX);
    P(".%c", lane_names[g->in->aux[n->id]]);
}
