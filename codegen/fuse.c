/* fuse.c - the reduction kernels of fused functions (@cujit.fuse ending in
 * np.sum, prod, min, max, mean, any or all): the function is the map of
 * several inputs, each an array of the broadcast shape (its own strides, 0
 * where broadcast) or a number, read at one index; the accumulator, the
 * combiner and the identity follow from the reduction and the map's dtype.
 * The passes are those of forms.c's reductions (interleaved blocks per
 * output, or a thread per output when a kept dimension is innermost; a
 * second pass "_final" over the splits), with the same fixed order. */
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
is_array(const FuseRedSpec *s, int k)
{
    return s->in[k]->kind == TY_ARRAY;
}

/* the first array input, whose shape every array input shares */
static int
first_array(const FuseRedSpec *s)
{
    for (int k = 0; k < s->nin; k++) {
        if (is_array(s, k)) {
            return k;
        }
    }
    return 0;
}

/* the largest (or smallest) value of an integer or bool dtype, as C++ */
static const char *
int_extreme(Program *p, DType dt, int largest)
{
    const DTypeInfo *d = &cj_dtypes[dt];
    if (d->kind == 'b') {
        return largest ? "true" : "false";
    }
    int bits = d->size * 8;
    if (d->kind == 'u') {
        return largest ? cj_aprintf(p->arena, "(%s)%lluULL", d->ctype,
                                    bits == 64 ? ~0ULL : (1ULL << bits) - 1) : "0";
    }
    unsigned long long m = (1ULL << (bits - 1)) - 1;
    return largest ? cj_aprintf(p->arena, "(%s)%lldLL", d->ctype, (long long)m)
                   : cj_aprintf(p->arena, "(%s)(-%lldLL - 1)", d->ctype, (long long)m);
}

static int
is_arg(const FuseRedSpec *s)
{
    return s->op == RED_ARGMIN || s->op == RED_ARGMAX;
}

/* the identity: 0, 1, false, true; min and max (and the values of argmin
 * and argmax) start from the far end of the accumulator's range (an empty
 * reduction of them is refused before) */
static void
identity(Program *p, Buf *b, const FuseRedSpec *s)
{
    char k = cj_dtypes[s->acc].kind;
    int smallest = s->op == RED_MIN || s->op == RED_ARGMIN;
    switch (s->op) {
    case RED_SUM:
    case RED_MEAN:
        cg_conv_to(p, b, DT_I64, s->acc, "0");
        return;
    case RED_PROD:
        cg_conv_to(p, b, DT_I64, s->acc, "1");
        return;
    case RED_ANY:
        S("false");
        return;
    case RED_ALL:
        S("true");
        return;
    case RED_MIN:
    case RED_MAX:
    case RED_ARGMIN:
    case RED_ARGMAX:
        if (k == 'f') {
            p->features |= FEAT_INFNAN;
            cg_conv_to(p, b, DT_F64, s->acc, smallest ? "CJ_INF" : "-CJ_INF");
        } else {
            S(int_extreme(p, s->acc, smallest));
        }
        return;
    case RED_NONE:
        break;
    }
    S("cj_acc()");
}

/* the combiner: NumPy's minimum / maximum (a NaN wins) for min and max */
static const char *
combine_expr(const FuseRedSpec *s)
{
    switch (s->op) {
    case RED_SUM:
    case RED_MEAN:
        return "a + b";
    case RED_PROD:
        return "a * b";
    case RED_MIN:
        return "(a <= b || a != a) ? a : b";
    case RED_MAX:
        return "(a >= b || a != a) ? a : b";
    case RED_ANY:
        return "a || b";
    case RED_ALL:
        return "a && b";
    case RED_ARGMIN:
    case RED_ARGMAX:
    case RED_NONE:
        break;
    }
    return "a";
}

/* argmin / argmax: the value and its index; NumPy's first extreme value, a
 * NaN before any number (the first NaN), whatever order the pairs meet in */
static void
arg_types(Cg *g, Buf *b, const FuseRedSpec *s)
{
    Program *p = g->p;
    P("struct cj_acc {\n    %s v;\n    long long i;\n};\n", cj_dtypes[s->acc].ctype);
    P("static __device__ __forceinline__ cj_acc cj_combine(cj_acc a, cj_acc b)\n{\n"
      "    const bool an = a.v != a.v, bn = b.v != b.v;\n"
      "    if (an || bn) {\n        return an && (!bn || a.i < b.i) ? a : b;\n    }\n"
      "    if (a.v %s b.v) {\n        return a;\n    }\n"
      "    if (b.v %s a.v) {\n        return b;\n    }\n"
      "    return a.i <= b.i ? a : b;\n}\n", s->op == RED_ARGMIN ? "<" : ">",
      s->op == RED_ARGMIN ? "<" : ">");
    S("static __device__ __forceinline__ cj_acc cj_ident(void) { return cj_acc{");
    identity(p, b, s);
    S(", 9223372036854775807LL}; }\n");
}

static void
acc_types(Cg *g, Buf *b, const FuseRedSpec *s)
{
    Program *p = g->p;
    if (is_arg(s)) {
        arg_types(g, b, s);
        return;
    }
    P("typedef %s cj_acc;\n", cj_dtypes[s->acc].ctype);
    P("static __device__ __forceinline__ cj_acc cj_combine(cj_acc a, cj_acc b) { return %s; }\n",
      combine_expr(s));
    S("static __device__ __forceinline__ cj_acc cj_ident(void) { return ");
    identity(p, b, s);
    S("; }\n");
}

/* the map on the elements args[], as an accumulator (argmin / argmax: with
 * its index idx among the reduced elements) */
static void
element(Cg *g, Buf *b, const FuseRedSpec *s, const char *const *args, const char *idx)
{
    Program *p = g->p;
    Buf c;
    buf_init(&c);
    buf_printf(&c, "%s(", s->map->cname);
    for (int k = 0; k < s->nin; k++) {
        buf_printf(&c, "%s%s", k ? ", " : "", args[k]);
    }
    buf_putc(&c, ')');
    if (is_arg(s)) {
        S("cj_acc{");
    }
    cg_conv_to(p, b, s->val, s->acc, c.s);
    if (is_arg(s)) {
        P(", (long long)(%s)}", idx);
    }
    buf_free(&c);
}

/* the accumulator `a` as the result (mean: divided by the count) */
static void
result(Cg *g, Buf *b, const FuseRedSpec *s, const char *a)
{
    Program *p = g->p;
    const char *v = a;
    if (is_arg(s)) {
        P("(long long)(%s).i", a);
        return;
    }
    if (s->op == RED_MEAN) {
        Buf n;
        buf_init(&n);
        cg_conv_to(p, &n, DT_F64, s->acc, "(double)nred");
        v = cj_aprintf(p->arena, "(%s) / %s", a, n.s);
        buf_free(&n);
    }
    cg_conv_to(p, b, s->acc, s->out, v);
}

static void
params(Cg *g, Buf *b, const FuseRedSpec *s, int nd)
{
    Program *p = g->p;
    for (int k = 0; k < s->nin; k++) {
        if (is_array(s, k)) {
            P("cj_array<%s, %d, %s> x%d, ", cj_dtypes[s->in[k]->dtype].ctype, nd, ity(p), k);
        } else {
            P("%s in%d, ", cg_ctype(g, s->in[k]), k);
        }
    }
}

/* each array's byte offset `<var><k>` of coordinates idx in dims first.. */
static void
offsets(Buf *b, const FuseRedSpec *s, const char *I, const char *var, const char *idx,
        int first, int n)
{
    char shape[32], strides[32], name[32];
    snprintf(shape, sizeof shape, "x%d.shape", first_array(s));
    for (int k = 0; k < s->nin; k++) {
        if (!is_array(s, k)) {
            continue;
        }
        snprintf(name, sizeof name, "%s%d", var, k);
        snprintf(strides, sizeof strides, "x%d.strides", k);
        if (n == 0) {
            P("        const %s %s = 0;\n", I, name);
        } else {
            cg_red_offset(b, I, name, idx, first, n, shape, strides);
        }
    }
}

/* the element expressions: arrays at `fmt` (printf of k, k, k), numbers */
static const char **
elements(Program *p, const FuseRedSpec *s, const char *fmt)
{
    const char **args = cj_alloc(p->arena, sizeof(char *) * (size_t)(s->nin + 1));
    for (int k = 0; k < s->nin; k++) {
        args[k] = is_array(s, k) ? cj_aprintf(p->arena, fmt, k, k, k, k)
                                 : cj_aprintf(p->arena, "in%d", k);
    }
    return args;
}

/* contiguous rows read as aligned packs, one accumulator per lane */
static void
inner_packs(Cg *g, Buf *b, const FuseRedSpec *s)
{
    Program *p = g->p;
    const char *I = ity(p);
    int v = s->vec;
    S("    {\n");
    for (int k = 0; k < s->nin; k++) {
        if (is_array(s, k)) {
            const char *X = cj_dtypes[s->in[k]->dtype].ctype;
            P("        const cj_pack<%s, %d> *px%d = (const cj_pack<%s, %d> *)((const char *)"
              "x%d.data + ko%d);\n", X, v, k, X, v, k, k);
        }
    }
    P("        const %s nv = nred / %d;\n", I, v);
    P("        cj_acc lane[%d];\n#pragma unroll\n        for (int e = 0; e < %d; e++) {\n"
      "            lane[e] = cj_ident();\n        }\n", v, v);
    P("#pragma unroll 4\n        for (%s j = first; j < nv; j += step) {\n", I);
    for (int k = 0; k < s->nin; k++) {
        if (is_array(s, k)) {
            const char *X = cj_dtypes[s->in[k]->dtype].ctype;
            P("            const cj_pack<%s, %d> a%d = px%d[j];\n", X, v, k, k);
        }
    }
    P("#pragma unroll\n            for (int e = 0; e < %d; e++) {\n"
      "                lane[e] = cj_combine(lane[e], ", v);
    element(g, b, s, elements(p, s, "a%d.v[e]"), cj_aprintf(p->arena, "j * %d + e", v));
    S(");\n            }\n        }\n");
    P("#pragma unroll\n        for (int e = 0; e < %d; e++) {\n"
      "            acc = cj_combine(acc, lane[e]);\n        }\n", v);
    P("        for (%s r = nv * %d + first; r < nred; r += step) {\n", I, v);
    S("            acc = cj_combine(acc, ");
    element(g, b, s, elements(p, s, "cj_at(x%d.data, ko%d + r * (long long)sizeof(x%d.data[0]))"),
            "r");
    S(");\n        }\n    }\n");
}

/* pass 1, reduced dimensions innermost: blocks (x: split, y/z: output)
 * take every splits-th run of blockDim elements of an output's row */
static void
inner(Cg *g, Buf *b, const FuseRedSpec *s, int nd)
{
    Program *p = g->p;
    const char *I = ity(p);
    P("extern \"C\" __global__ void %s(", p->ew_name);
    params(g, b, s, nd);
    P("cj_acc *part, %s *out, %s nout, %s nred, %s splits)\n{\n", cj_dtypes[s->out].ctype, I, I,
      I);
    P("    const %s o = (%s)blockIdx.y * gridDim.z + blockIdx.z;\n", I, I);
    S("    if (o >= nout) {\n        return;\n    }\n");
    P("    const %s first = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    P("    const %s step = splits * (%s)blockDim.x;\n", I, I);
    S("    cj_acc acc = cj_ident();\n");
    offsets(b, s, I, "ko", "o", 0, s->nkeep);
    if (s->contiguous && s->vec > 1) {
        inner_packs(g, b, s);
    } else {
        P("    for (%s r = first; r < nred; r += step) {\n", I);
        if (s->contiguous) {
            for (int k = 0; k < s->nin; k++) {
                if (is_array(s, k)) {
                    P("        const %s ro%d = r * (%s)sizeof(x%d.data[0]);\n", I, k, I, k);
                }
            }
        } else {
            offsets(b, s, I, "ro", "r", s->nkeep, s->nred);
        }
        S("        acc = cj_combine(acc, ");
        element(g, b, s, elements(p, s, "cj_at(x%d.data, ko%d + ro%d)"), "r");
        S(");\n    }\n");
    }
    S("    acc = cj_block_reduce(acc, cj_combine);\n");
    S("    if (threadIdx.x == 0) {\n        if (splits == 1) {\n            out[o] = ");
    result(g, b, s, "acc");
    S(";\n        } else {\n            part[o * splits + blockIdx.x] = acc;\n        }\n    }\n}\n");
}

/* pass 1, a kept dimension innermost: a thread per output, blocks along y
 * take chunks of the reduction */
static void
outer(Cg *g, Buf *b, const FuseRedSpec *s, int nd)
{
    Program *p = g->p;
    const char *I = ity(p);
    P("extern \"C\" __global__ void %s(", p->ew_name);
    params(g, b, s, nd);
    P("cj_acc *part, %s *out, %s nout, %s nred, %s splits, %s chunk)\n{\n",
      cj_dtypes[s->out].ctype, I, I, I, I);
    P("    const %s o = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    S("    if (o >= nout) {\n        return;\n    }\n");
    P("    const %s lo = (%s)blockIdx.y * chunk;\n", I, I);
    P("    const %s hi = lo + chunk < nred ? lo + chunk : nred;\n", I);
    offsets(b, s, I, "ko", "o", 0, s->nkeep);
    S("    cj_acc acc = cj_ident();\n");
    P("#pragma unroll 4\n    for (%s r = lo; r < hi; r++) {\n", I);
    offsets(b, s, I, "ro", "r", s->nkeep, s->nred);
    S("        acc = cj_combine(acc, ");
    element(g, b, s, elements(p, s, "cj_at(x%d.data, ko%d + ro%d)"), "r");
    S(");\n    }\n");
    S("    if (splits == 1) {\n        out[o] = ");
    result(g, b, s, "acc");
    S(";\n    } else {\n        part[blockIdx.y * nout + o] = acc;\n    }\n}\n");
}

/* pass 2: each output's partials combined in split order */
static void
final(Cg *g, Buf *b, const FuseRedSpec *s)
{
    Program *p = g->p;
    const char *I = ity(p);
    P("extern \"C\" __global__ void %s_final(const cj_acc *part, %s *out, %s nout, %s splits, "
      "int outer, %s nred)\n{\n", p->ew_name, cj_dtypes[s->out].ctype, I, I, I);
    S("    if (outer) {\n");
    P("        const %s o = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    S("        if (o < nout) {\n            cj_acc acc = cj_ident();\n");
    P("            for (%s k = 0; k < splits; k++) {\n", I);
    S("                acc = cj_combine(acc, part[k * nout + o]);\n            }\n");
    S("            out[o] = ");
    result(g, b, s, "acc");
    S(";\n        }\n        return;\n    }\n");
    P("    const %s o = (%s)blockIdx.x;\n", I, I);
    S("    cj_acc acc = cj_ident();\n");
    P("    for (%s k = threadIdx.x; k < splits; k += blockDim.x) {\n", I);
    S("        acc = cj_combine(acc, part[o * splits + k]);\n    }\n");
    S("    acc = cj_block_reduce(acc, cj_combine);\n");
    S("    if (threadIdx.x == 0) {\n        out[o] = ");
    result(g, b, s, "acc");
    S(";\n    }\n}\n");
}

void
cg_emit_fused_reduction(Program *p, const FuseRedSpec *s, Buf *out)
{
    static const char *const names[] = {"none", "sum", "prod", "min", "max", "mean", "any",
                                        "all", "argmin", "argmax"};
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Buf w, *b = &w;
    buf_init(&w);
    for (int k = 0; k < s->nin; k++) {
        cg_note_dtype(p, cj_concrete(s->in[k])->dtype);
    }
    cg_note_dtype(p, s->val);
    cg_note_dtype(p, s->acc);
    cg_note_dtype(p, s->out);
    int nd = s->nkeep + s->nred;
    p->ew_name = s->kname ? cj_strdup(p->arena, s->kname)
                 : cj_aprintf(p->arena, "cj_fred_%s_%s_%s%d_%d", s->map->cname + 7,
                              names[s->op], s->outer ? "o" : "i", s->nkeep, s->nred);
    P("\n/* fused reduction: %s of %s over %d input%s */\n", names[s->op], s->map->fn->name,
      s->nin, s->nin == 1 ? "" : "s");
    acc_types(g, b, s);
    S(cg_shfl_any);
    S(cg_block_reduce);
    if (s->outer) {
        outer(g, b, s, nd > 0 ? nd : 1);
    } else {
        inner(g, b, s, nd > 0 ? nd : 1);
    }
    final(g, b, s);
    p->features |= FEAT_PACK;
    cg_emit_roots(p, &p->kernel, 1, w.s, out);
    buf_free(&w);
}
