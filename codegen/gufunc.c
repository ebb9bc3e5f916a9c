/* gufunc.c - the kernel around a generalized ufunc's function
 * (@guvectorize).  The function is a device function typed like any other,
 * whose parameters are views of its operands' core dimensions (or numbers)
 * and which writes its outputs through their views.  The kernel gives each
 * loop instance one thread: it splits the thread's flat index over the loop
 * dimensions (the first nloop of every array operand, broadcast inputs with
 * stride 0 there), offsets each operand's data pointer by it, and calls the
 * function with views of the remaining (core) dimensions. */
#include <stdio.h>
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(b, __VA_ARGS__)
#define S(s) buf_puts(b, (s))

static const char *
ity(Program *p)
{
    return p->idx32 ? "int" : "long long";
}

static int
is_array_param(const GuSpec *s, int k)
{
    return s->mode[k] != GU_VALUE;
}

/* op<k>: an array over loop (and core) dimensions, or in<k>: a number */
static void
gu_params(Cg *g, Buf *b, const GuSpec *s, Inst *fn)
{
    Program *p = g->p;
    for (int k = 0; k < s->nparam; k++) {
        S(k ? ", " : "");
        switch (s->mode[k]) {
        case GU_VALUE:
            P("%s in%d", cg_ctype(g, fn->args[k]), k);
            break;
        case GU_ELEM:
            P("cj_array<%s, %d, %s> op%d", cj_dtypes[s->dtype[k]].ctype, s->nloop, ity(p), k);
            break;
        case GU_VIEW:
            P("cj_array<%s, %d, %s> op%d", cj_dtypes[s->dtype[k]].ctype,
              s->nloop + s->ncore[k], ity(p), k);
            break;
        }
    }
    P(", %s n)\n", ity(p));
}

/* o<k>: operand k's byte offset for loop index i (the first output's loop
 * shape is the broadcast loop shape) */
static void
gu_offsets(Buf *b, const GuSpec *s, const char *I)
{
    P("        %s rem = i", I);
    for (int k = 0; k < s->nparam; k++) {
        if (is_array_param(s, k)) {
            P(", o%d = 0", k);
        }
    }
    S(";\n");
    for (int d = s->nloop - 1; d >= 0; d--) {
        P("        {\n            const %s c = rem %% op%d.shape[%d];\n", I, s->nin, d);
        if (d) {
            P("            rem /= op%d.shape[%d];\n", s->nin, d);
        }
        for (int k = 0; k < s->nparam; k++) {
            if (is_array_param(s, k)) {
                P("            o%d += c * op%d.strides[%d];\n", k, k, d);
            }
        }
        S("        }\n");
    }
    if (s->nloop == 0) {
        S("        (void)rem;\n");
    }
}

/* v<k>: the view of operand k's core dimensions at its offset */
static void
gu_view(Cg *g, Buf *b, const GuSpec *s, int k)
{
    const char *ct = cj_dtypes[s->dtype[k]].ctype;
    P("        cj_array<%s, %d, %s> v%d;\n", ct, s->ncore[k], ity(g->p), k);
    P("        v%d.data = (%s *)((char *)op%d.data + o%d);\n", k, ct, k, k);
    for (int j = 0; j < s->ncore[k]; j++) {
        P("        v%d.shape[%d] = op%d.shape[%d];\n", k, j, k, s->nloop + j);
        P("        v%d.strides[%d] = op%d.strides[%d];\n", k, j, k, s->nloop + j);
    }
}

/* the function on the views, element values and numbers */
static void
gu_call(Cg *g, Buf *b, const GuSpec *s, Inst *fn)
{
    for (int k = 0; k < s->nparam; k++) {
        if (s->mode[k] == GU_VIEW) {
            gu_view(g, b, s, k);
        }
    }
    P("        %s(", fn->cname);
    for (int k = 0; k < s->nparam; k++) {
        S(k ? ", " : "");
        switch (s->mode[k]) {
        case GU_VALUE:
            P("in%d", k);
            break;
        case GU_ELEM:
            P("(%s)cj_at(op%d.data, o%d)", cg_ctype(g, fn->args[k]), k, k);
            break;
        case GU_VIEW:
            P("v%d", k);
            break;
        }
    }
    S(");\n");
}

void
cg_emit_gufunc(Program *p, const GuSpec *s, Buf *out)
{
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Buf w, *b = &w;
    buf_init(&w);
    Inst *fn = p->kernel;
    const char *I = ity(p);
    for (int k = 0; k < s->nparam; k++) {
        if (is_array_param(s, k) && s->dtype[k] == DT_F16) {
            p->features |= FEAT_F16;
        } else if (is_array_param(s, k) && cj_dtypes[s->dtype[k]].kind == 'c') {
            p->features |= FEAT_COMPLEX;
        }
    }
    p->ew_name = cj_aprintf(p->arena, "cj_guf_%s_l%d", fn->cname + 7, s->nloop);
    P("\n/* generalized ufunc over %s: one thread per loop instance */\n", fn->fn->name);
    P("extern \"C\" __global__ void %s(", p->ew_name);
    gu_params(g, b, s, fn);
    S("{\n");
    P("    const %s stride = (%s)blockDim.x * gridDim.x;\n", I, I);
    P("    for (%s i = (%s)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {\n", I,
      I);
    gu_offsets(b, s, I);
    gu_call(g, b, s, fn);
    S("    }\n}\n");
    cg_emit_roots(p, &p->kernel, 1, w.s, out);
    buf_free(&w);
}
