/* forms.c - the kernels around scalar functions: elementwise (@vectorize)
 * and reductions (@reduce).  The scalar functions are device functions
 * typed like any other; these wrappers are written here as text. */
#include <stdio.h>
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(b, __VA_ARGS__)
#define S(s) buf_puts(b, (s))

static const char packs[] =
    "/* N elements loaded or stored as one aligned access */\n"
    "template <typename T, int N> struct alignas(sizeof(T) * N) cj_pack {\n"
    "    T v[N];\n"
    "};\n";

static const char *
ity(Program *p)
{
    return p->idx32 ? "int" : "long long";
}

static const char *
ctype_of(Cg *g, const Type *t)
{
    return cg_ctype(g, t);
}

void
cg_note_dtype(Program *p, DType dt)
{
    if (cj_is_half(dt)) {
        p->features |= cj_half_feature(dt);
    } else if (cj_dtypes[dt].kind == 'c') {
        p->features |= FEAT_COMPLEX;
    }
}

/* `expr` of dtype `from` as dtype `to`, NumPy's casts: complex to a real
 * keeps the real part, complex to bool is its truth */
void
cg_conv_to(Program *p, Buf *b, DType from, DType to, const char *expr)
{
    char fk = cj_dtypes[from].kind, tk = cj_dtypes[to].kind;
    const char *ct = cj_dtypes[to].ctype;
    cg_note_dtype(p, from);
    cg_note_dtype(p, to);
    if (from == to) {
        P("(%s)", expr);
    } else if (fk == 'c' && tk == 'b') {
        P("cj_truth(%s)", expr);
    } else if (fk == 'c' && tk != 'c') {
        P("(%s)(%s).re", ct, expr);
    } else if (tk == 'c') {
        P("%s(%s)", ct, expr);
    } else {
        const char *via = cg_float_int_via(from, to);
        P("(%s)%s%s%s(%s)", ct, via ? "(" : "", via ? via : "", via ? ")" : "", expr);
    }
}

static DType
scalar_dt(const Type *t)
{
    return cj_concrete(t)->dtype;
}

/* ---- elementwise ---- */

/* the call of the scalar function on element expressions args[] */
static void
ew_call(Buf *b, Inst *fn, const char *const *args, int nin)
{
    P("%s(", fn->cname);
    for (int i = 0; i < nin; i++) {
        P("%s%s", i ? ", " : "", args[i]);
    }
    S(")");
}

/* out_k = result (or result.f_k for tuple returns) */
static void
ew_store(Cg *g, Buf *b, const EwSpec *s, const char *const *outs, const char *res)
{
    const Type *ret = cj_concrete(g->p->kernel->ret);
    for (int k = 0; k < s->nout; k++) {
        DType from = s->nout == 1 ? ret->dtype : cj_concrete(ret->tup[k])->dtype;
        const char *val = s->nout == 1 ? res : cj_aprintf(g->p->arena, "%s.f%d", res, k);
        P("            %s = ", outs[k]);
        cg_conv_to(g->p, b, from, s->out[k], val);
        S(";\n");
    }
}

static void
ew_params(Cg *g, Buf *b, const EwSpec *s)
{
    Program *p = g->p;
    for (int i = 0; i < s->nin; i++) {
        const Type *t = s->in[i];
        if (t->kind != TY_ARRAY) {
            P("%s%s in%d", i ? ", " : "", ctype_of(g, t), i);
        } else if (s->ndim == 0) {
            P("%sconst %s *__restrict__ in%d", i ? ", " : "", cj_dtypes[t->dtype].ctype, i);
        } else {
            P("%scj_array<%s, %d, %s> in%d", i ? ", " : "", cj_dtypes[t->dtype].ctype, s->ndim,
              ity(p), i);
        }
    }
    for (int k = 0; k < s->nout; k++) {
        if (s->ndim == 0) {
            P(", %s *out%d", cj_dtypes[s->out[k]].ctype, k);
        } else {
            P(", cj_array<%s, %d, %s> out%d", cj_dtypes[s->out[k]].ctype, s->ndim, ity(p), k);
        }
    }
    P(", %s n)\n", ity(p));
}

/* contiguous operands of one shape: the flat index is the only index; with
 * vec > 1 each thread moves vec elements per aligned access */
static void
ew_flat(Cg *g, Buf *b, const EwSpec *s, Inst *fn)
{
    Program *p = g->p;
    const char *I = ity(p);
    const char *args[64], *outs[16];
    P("    %s i = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    P("    const %s stride = (%s)blockDim.x * gridDim.x;\n", I, I);
    if (s->vec > 1) {
        int v = s->vec;
        P("    const %s nv = n / %d;\n", I, v);
        P("    for (%s j = i; j < nv; j += stride) {\n", I);
        for (int k = 0; k < s->nin; k++) {
            if (s->in[k]->kind == TY_ARRAY) {
                const char *ct = cj_dtypes[s->in[k]->dtype].ctype;
                P("        const cj_pack<%s, %d> a%d = ((const cj_pack<%s, %d> *)in%d)[j];\n", ct,
                  v, k, ct, v, k);
            }
        }
        for (int k = 0; k < s->nout; k++) {
            P("        cj_pack<%s, %d> r%d;\n", cj_dtypes[s->out[k]].ctype, v, k);
        }
        P("#pragma unroll\n        for (int e = 0; e < %d; e++) {\n", v);
        for (int k = 0; k < s->nin; k++) {
            args[k] = s->in[k]->kind == TY_ARRAY ? cj_aprintf(p->arena, "a%d.v[e]", k)
                                                 : cj_aprintf(p->arena, "in%d", k);
        }
        for (int k = 0; k < s->nout; k++) {
            outs[k] = cj_aprintf(p->arena, "r%d.v[e]", k);
        }
        S("            auto res = ");
        ew_call(b, fn, args, s->nin);
        S(";\n");
        ew_store(g, b, s, outs, "res");
        S("        }\n");
        for (int k = 0; k < s->nout; k++) {
            const char *ct = cj_dtypes[s->out[k]].ctype;
            P("        ((cj_pack<%s, %d> *)out%d)[j] = r%d;\n", ct, v, k, k);
        }
        S("    }\n");
        P("    i += nv * %d;\n", v);
    }
    P("    for (; i < n; i += stride) {\n");
    for (int k = 0; k < s->nin; k++) {
        args[k] = s->in[k]->kind == TY_ARRAY ? cj_aprintf(p->arena, "in%d[i]", k)
                                             : cj_aprintf(p->arena, "in%d", k);
    }
    for (int k = 0; k < s->nout; k++) {
        outs[k] = cj_aprintf(p->arena, "out%d[i]", k);
    }
    S("        {\n            auto res = ");
    ew_call(b, fn, args, s->nin);
    S(";\n");
    ew_store(g, b, s, outs, "res");
    S("        }\n    }\n");
}

/* any shapes and strides: the flat index is split over the output's shape;
 * broadcast inputs have stride 0 there */
/* the operands' byte offsets (o<k>, q<k>) of the element whose coordinates
 * in dimensions 0..last are the digits of `rem` (the last fastest), plus
 * `col` in dimension last + 1 when col is given */
static void
ew_offsets(Buf *b, const EwSpec *s, const char *I, int last, const char *col)
{
    P("        %s rem = row", I);
    for (int k = 0; k < s->nin; k++) {
        if (s->in[k]->kind == TY_ARRAY) {
            if (col) {
                P(", o%d = %s * in%d.strides[%d]", k, col, k, last + 1);
            } else {
                P(", o%d = 0", k);
            }
        }
    }
    for (int k = 0; k < s->nout; k++) {
        if (col) {
            P(", q%d = %s * out%d.strides[%d]", k, col, k, last + 1);
        } else {
            P(", q%d = 0", k);
        }
    }
    S(";\n");
    for (int d = last; d >= 0; d--) {
        P("        {\n            const %s c = rem %% out0.shape[%d];\n", I, d);
        if (d) {
            P("            rem /= out0.shape[%d];\n", d);
        }
        for (int k = 0; k < s->nin; k++) {
            if (s->in[k]->kind == TY_ARRAY) {
                P("            o%d += c * in%d.strides[%d];\n", k, k, d);
            }
        }
        for (int k = 0; k < s->nout; k++) {
            P("            q%d += c * out%d.strides[%d];\n", k, k, d);
        }
        S("        }\n");
    }
}

/* the function at the offsets o<k> / q<k> */
static void
ew_strided_body(Cg *g, Buf *b, const EwSpec *s, Inst *fn)
{
    Program *p = g->p;
    const char *args[64], *outs[16];
    for (int k = 0; k < s->nin; k++) {
        args[k] = s->in[k]->kind == TY_ARRAY ? cj_aprintf(p->arena, "cj_at(in%d.data, o%d)", k, k)
                                             : cj_aprintf(p->arena, "in%d", k);
    }
    for (int k = 0; k < s->nout; k++) {
        outs[k] = cj_aprintf(p->arena, "cj_at(out%d.data, q%d)", k, k);
    }
    S("        {\n            auto res = ");
    ew_call(b, fn, args, s->nin);
    S(";\n");
    ew_store(g, b, s, outs, "res");
    S("        }\n    }\n");
}

/* Strided and broadcast operands.  With 2+ dimensions and rows of 32 or
 * more, threads walk the output in tiles of 8 rows x 32 columns (a warp a
 * row's 32 columns, a block's warps 8 rows): an operand laid out in another
 * order (a transposed one) then reads each 32-byte sector once per block
 * and finds it in L1 for the other rows, instead of once per element. */
static void
ew_strided(Cg *g, Buf *b, const EwSpec *s, Inst *fn)
{
    Program *p = g->p;
    const char *I = ity(p);
    int nd = s->ndim;
    P("    const %s stride = (%s)blockDim.x * gridDim.x;\n", I, I);
    if (nd >= 2) {
        P("    const %s W = out0.shape[%d];\n", I, nd - 1);
        S("    if (W >= 32 && blockDim.x == 256) {\n");
        P("        const %s H = n / W, tpr = (W + 31) / 32;\n", I);
        S("        const long long total = (long long)((H + 7) / 8) * tpr * 256;\n");
        S("        for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; "
          "t += stride) {\n");
        P("            const %s tile = (%s)(t >> 8), tr = tile / tpr;\n", I, I);
        P("            const %s row = tr * 8 + (%s)((t >> 5) & 7);\n", I, I);
        P("            const %s col = (tile - tr * tpr) * 32 + (%s)(t & 31);\n", I, I);
        S("            if (row >= H || col >= W) {\n                continue;\n            }\n");
        /* the loop body below, one level deeper */
        Buf in;
        buf_init(&in);
        ew_offsets(&in, s, I, nd - 2, "col");
        ew_strided_body(g, &in, s, fn);
        for (const char *ln = in.s; *ln;) {
            const char *nl = strchr(ln, '\n');
            size_t len = nl ? (size_t)(nl - ln + 1) : strlen(ln);
            P("    %.*s", (int)len, ln);
            ln += len;
        }
        buf_free(&in);
        S("        return;\n    }\n");
    }
    P("    for (%s row = (%s)blockIdx.x * blockDim.x + threadIdx.x; row < n; row += stride) {\n",
      I, I);
    ew_offsets(b, s, I, nd - 1, NULL);
    ew_strided_body(g, b, s, fn);
}

void
cg_emit_elementwise(Program *p, const EwSpec *s, Buf *out)
{
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Buf w, *b = &w;
    buf_init(&w);
    Inst *fn = p->kernel;
    for (int k = 0; k < s->nin; k++) {
        cg_note_dtype(p, cj_concrete(s->in[k])->dtype);
    }
    for (int k = 0; k < s->nout; k++) {
        cg_note_dtype(p, s->out[k]);
    }
    p->ew_name = s->kname ? cj_strdup(p->arena, s->kname)
                 : cj_aprintf(p->arena, "cj_vec_%s%s%d", fn->cname + 7,
                              s->ndim == 0 ? "_flat" : "_nd", s->ndim ? s->ndim : s->vec);
    P("\n/* elementwise over %s: %s */\n", fn->fn->name,
      s->ndim == 0 ? (s->vec > 1 ? "contiguous operands, aligned packs" : "contiguous operands")
                   : "strided and broadcast operands");
    P("extern \"C\" __global__ void %s(", p->ew_name);
    ew_params(g, b, s);
    S("{\n");
    if (s->ndim == 0) {
        ew_flat(g, b, s, fn);
    } else {
        ew_strided(g, b, s, fn);
    }
    S("}\n");
    if (s->vec > 1) {
        p->features |= FEAT_PACK;
    }
    cg_emit_roots(p, &p->kernel, 1, w.s, out);
    buf_free(&w);
}

/* ---- reductions ---- */

const char cg_block_reduce[] =
    "/* the block's values combined in a fixed order: warps by shuffles, then the\n"
    " * warp results by the first warp (blockDim.x a multiple of 32, at most 1024) */\n"
    "template <typename T, typename F> static __device__ T cj_block_reduce(T v, F combine)\n"
    "{\n"
    "    __shared__ T part[32];\n"
    "    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n"
    "#pragma unroll\n"
    "    for (int d = 16; d > 0; d >>= 1) {\n"
    "        v = combine(v, cj_shfl_down(v, d));\n"
    "    }\n"
    "    if (lane == 0) {\n"
    "        part[warp] = v;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    const int nw = blockDim.x >> 5;\n"
    "    if (warp == 0) {\n"
    "        v = part[0];\n"
    "        for (int w = 1; w < nw; w++) {\n"
    "            v = combine(v, part[w]);\n"
    "        }\n"
    "    }\n"
    "    __syncthreads();\n"
    "    return v;\n"
    "}\n";

/* shuffles of any value type, 32 bits at a time */
const char cg_shfl_any[] =
    "template <typename T> static __device__ __forceinline__ T cj_shfl_down(T v, int d)\n"
    "{\n"
    "    constexpr int W = (sizeof(T) + 3) / 4;\n"
    "    union {\n"
    "        T t;\n"
    "        unsigned u[W];\n"
    "    } x;\n"
    "    x.t = v;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < W; k++) {\n"
    "        x.u[k] = __shfl_down_sync(0xffffffffu, x.u[k], d);\n"
    "    }\n"
    "    return x.t;\n"
    "}\n";

/* the accumulator: with no identity it carries "has a value" */
static void
red_types(Cg *g, Buf *b, const RedSpec *s)
{
    const char *T = ctype_of(g, s->acc);
    if (s->has_identity) {
        P("typedef %s cj_acc;\n", T);
        P("static __device__ __forceinline__ cj_acc cj_combine(cj_acc a, cj_acc b) { return (cj_acc)%s(a, b); }\n",
          s->combine->cname);
        S("static __device__ __forceinline__ cj_acc cj_ident(void) { return ");
        Buf *save = g->out;
        g->out = b;
        cg_literal(g, &s->identity, s->acc);
        g->out = save;
        S("; }\n");
        S("static __device__ __forceinline__ cj_acc cj_lift(cj_acc v) { return v; }\n");
        S("#define CJ_RESULT(a) (a)\n");
        return;
    }
    P("struct cj_acc {\n    %s v;\n    bool has;\n};\n", T);
    P("static __device__ __forceinline__ cj_acc cj_combine(cj_acc a, cj_acc b)\n{\n"
      "    if (!a.has) {\n        return b;\n    }\n    if (!b.has) {\n        return a;\n    }\n"
      "    return cj_acc{(%s)%s(a.v, b.v), true};\n}\n", T, s->combine->cname);
    P("typedef %s cj_acc_v;\n", T);
    S("static __device__ __forceinline__ cj_acc cj_ident(void) { return cj_acc{cj_acc_v(), false}; }\n");
    P("static __device__ __forceinline__ cj_acc cj_lift(%s v) { return cj_acc{v, true}; }\n", T);
    S("#define CJ_RESULT(a) ((a).v)\n");
}

/* one element, mapped, as an accumulator */
static void
red_element(Cg *g, Buf *b, const RedSpec *s, const char *load)
{
    Program *p = g->p;
    if (s->acc->kind != TY_SCALAR) {
        const char *T = ctype_of(g, s->acc);
        if (s->map) {
            P("cj_lift((%s)%s(%s))", T, s->map->cname, load);
        } else {
            P("cj_lift((%s)(%s))", T, load);
        }
        return;
    }
    /* read as `in`, cast to the elements' dtype (dtype=), mapped, lifted */
    Buf e;
    buf_init(&e);
    cg_conv_to(p, &e, s->in, s->elem, load);
    const char *elem = cj_strdup(p->arena, e.s);
    buf_free(&e);
    S("cj_lift(");
    if (s->map) {
        const char *mapped = cj_aprintf(p->arena, "%s(%s)", s->map->cname, elem);
        cg_conv_to(p, b, scalar_dt(s->map->ret), s->acc->dtype, mapped);
    } else {
        cg_conv_to(p, b, s->elem, s->acc->dtype, elem);
    }
    S(")");
}

/* the accumulator `a` stored as the output dtype */
static void
red_result(Cg *g, Buf *b, const RedSpec *s, const char *a)
{
    const char *r = cj_aprintf(g->p->arena, "CJ_RESULT(%s)", a);
    if (s->acc->kind != TY_SCALAR) {
        P("(%s)%s", cj_dtypes[s->out].ctype, r);
        return;
    }
    cg_conv_to(g->p, b, s->acc->dtype, s->out, r);
}

/* offsets of the kept (o) and reduced (r) coordinates */
void
cg_red_offset(Buf *b, const char *I, const char *var, const char *idx, int first, int n,
           const char *shape, const char *strides)
{
    if (n == 1) {
        P("        const %s %s = %s * %s[%d];\n", I, var, idx, strides, first);
        return;
    }
    P("        %s %s = 0;\n        {\n            %s rem = %s;\n", I, var, I, idx);
    for (int d = first + n - 1; d >= first; d--) {
        P("            %s += (rem %% %s[%d]) * %s[%d];\n", var, shape, d, strides, d);
        if (d > first) {
            P("            rem /= %s[%d];\n", shape, d);
        }
    }
    S("        }\n");
}

/* pass 1: block (x: split, y..: output) reduces every splits-th run of
 * blockDim elements of one output's row (interleaved: at any moment the
 * blocks read neighbouring memory, which keeps every DRAM channel busy);
 * splits > 1 leaves partials for pass 2 */
static void
red_inner(Cg *g, Buf *b, const RedSpec *s)
{
    Program *p = g->p;
    const char *I = ity(p);
    const char *X = cj_dtypes[s->in].ctype;
    int nd = s->nkeep + s->nred;
    P("extern \"C\" __global__ void %s(cj_array<%s, %d, %s> x, cj_acc *part, %s *out, "
      "%s nout, %s nred, %s splits)\n{\n", p->ew_name, X, nd > 0 ? nd : 1, I,
      cj_dtypes[s->out].ctype, I, I, I);
    P("    const %s o = (%s)blockIdx.y * gridDim.z + blockIdx.z;\n", I, I);
    S("    if (o >= nout) {\n        return;\n    }\n");
    P("    const %s first = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    P("    const %s step = splits * (%s)blockDim.x;\n", I, I);
    S("    cj_acc acc = cj_ident();\n");
    if (s->nkeep) {
        cg_red_offset(b, I, "ko", "o", 0, s->nkeep, "x.shape", "x.strides");
    } else {
        P("    const %s ko = 0;\n", I);
    }
    if (s->contiguous && s->vec > 1) {
        int v = s->vec;
        /* a contiguous row per output, read as aligned packs (the host
         * checks the alignment) */
        P("    {\n        const cj_pack<%s, %d> *px = (const cj_pack<%s, %d> *)((const char *)x.data + ko);\n",
          X, v, X, v);
        P("        const %s nv = nred / %d;\n", I, v);
        /* one accumulator per lane of the pack: independent chains, combined
         * in lane order at the end (the same order every run) */
        P("        cj_acc lane[%d];\n#pragma unroll\n        for (int e = 0; e < %d; e++) {\n"
          "            lane[e] = cj_ident();\n        }\n", v, v);
        P("#pragma unroll 4\n        for (%s j = first; j < nv; j += step) {\n", I);
        P("            const cj_pack<%s, %d> a = px[j];\n#pragma unroll\n", X, v);
        P("            for (int e = 0; e < %d; e++) {\n                lane[e] = cj_combine(lane[e], ", v);
        red_element(g, b, s, "a.v[e]");
        S(");\n            }\n        }\n");
        P("#pragma unroll\n        for (int e = 0; e < %d; e++) {\n"
          "            acc = cj_combine(acc, lane[e]);\n        }\n", v);
        P("        for (%s r = nv * %d + first; r < nred; r += step) {\n", I, v);
        S("            acc = cj_combine(acc, ");
        red_element(g, b, s, "cj_at(x.data, ko + r * (long long)sizeof(x.data[0]))");
        S(");\n        }\n    }\n");
    } else {
        P("    for (%s r = first; r < nred; r += step) {\n", I);
        if (s->contiguous) {
            P("        const %s off = ko + r * (%s)sizeof(%s);\n", I, I, X);
        } else {
            cg_red_offset(b, I, "ro", "r", s->nkeep, s->nred, "x.shape", "x.strides");
            P("        const %s off = ko + ro;\n", I);
        }
        S("        acc = cj_combine(acc, ");
        red_element(g, b, s, "cj_at(x.data, off)");
        S(");\n    }\n");
    }
    S("    acc = cj_block_reduce(acc, cj_combine);\n");
    S("    if (threadIdx.x == 0) {\n");
    S("        if (splits == 1) {\n");
    S("            out[o] = ");
    red_result(g, b, s, "acc");
    S(";\n");
    S("        } else {\n            part[o * splits + blockIdx.x] = acc;\n        }\n    }\n}\n");
}

/* the outer form when the kept dimension is contiguous and aligned: a
 * thread takes vec neighbouring outputs and reads them as one pack */
static void
red_outer_packs(Cg *g, Buf *b, const RedSpec *s)
{
    Program *p = g->p;
    const char *I = ity(p);
    const char *X = cj_dtypes[s->in].ctype;
    int v = s->vec;
    P("    const %s o0 = ((%s)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n", I, I, v);
    S("    if (o0 >= nout) {\n        return;\n    }\n");
    P("    const %s lo = (%s)blockIdx.y * chunk;\n", I, I);
    P("    const %s hi = lo + chunk < nred ? lo + chunk : nred;\n", I);
    P("    cj_acc acc[%d];\n#pragma unroll\n    for (int e = 0; e < %d; e++) {\n"
      "        acc[e] = cj_ident();\n    }\n", v, v);
    P("    const char *base = (const char *)x.data + o0 * (%s)sizeof(%s);\n", I, X);
    P("#pragma unroll 4\n    for (%s r = lo; r < hi; r++) {\n", I);
    cg_red_offset(b, I, "ro", "r", s->nkeep, s->nred, "x.shape", "x.strides");
    P("        const cj_pack<%s, %d> a = *(const cj_pack<%s, %d> *)(base + ro);\n", X, v, X, v);
    P("#pragma unroll\n        for (int e = 0; e < %d; e++) {\n            acc[e] = cj_combine(acc[e], ", v);
    red_element(g, b, s, "a.v[e]");
    S(");\n        }\n    }\n");
    P("#pragma unroll\n    for (int e = 0; e < %d; e++) {\n", v);
    S("        if (splits == 1) {\n");
    S("            out[o0 + e] = ");
    red_result(g, b, s, "acc[e]");
    S(";\n");
    S("        } else {\n            part[blockIdx.y * nout + o0 + e] = acc[e];\n        }\n    }\n}\n");
}

/* pass 1 when the reduced dimensions are not the innermost: a thread per
 * output (coalesced), blocks along y take chunks of the reduction */
static void
red_outer(Cg *g, Buf *b, const RedSpec *s)
{
    Program *p = g->p;
    const char *I = ity(p);
    const char *X = cj_dtypes[s->in].ctype;
    int nd = s->nkeep + s->nred;
    P("extern \"C\" __global__ void %s(cj_array<%s, %d, %s> x, cj_acc *part, %s *out, "
      "%s nout, %s nred, %s splits, %s chunk)\n{\n", p->ew_name, X, nd, I,
      cj_dtypes[s->out].ctype, I, I, I, I);
    if (s->vec > 1) {
        red_outer_packs(g, b, s);
        return;
    }
    P("    const %s o = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    S("    if (o >= nout) {\n        return;\n    }\n");
    P("    const %s lo = (%s)blockIdx.y * chunk;\n", I, I);
    P("    const %s hi = lo + chunk < nred ? lo + chunk : nred;\n", I);
    cg_red_offset(b, I, "ko", "o", 0, s->nkeep, "x.shape", "x.strides");
    S("    cj_acc acc = cj_ident();\n");
    P("#pragma unroll 4\n    for (%s r = lo; r < hi; r++) {\n", I);
    cg_red_offset(b, I, "ro", "r", s->nkeep, s->nred, "x.shape", "x.strides");
    S("        acc = cj_combine(acc, ");
    red_element(g, b, s, "cj_at(x.data, ko + ro)");
    S(");\n    }\n");
    S("    if (splits == 1) {\n        out[o] = ");
    red_result(g, b, s, "acc");
    S(";\n    } else {\n        part[blockIdx.y * nout + o] = acc;\n    }\n}\n");
}

/* pass 2: the partials of each output, combined in split order */
static void
red_final(Cg *g, Buf *b, const RedSpec *s)
{
    Program *p = g->p;
    const char *I = ity(p);
    P("extern \"C\" __global__ void %s_final(const cj_acc *part, %s *out, %s nout, %s splits, "
      "int outer)\n{\n", p->ew_name, cj_dtypes[s->out].ctype, I, I);
    S("    if (outer) {\n");
    P("        const %s o = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", I, I);
    S("        if (o < nout) {\n            cj_acc acc = cj_ident();\n");
    P("            for (%s k = 0; k < splits; k++) {\n", I);
    S("                acc = cj_combine(acc, part[k * nout + o]);\n            }\n");
    S("            out[o] = ");
    red_result(g, b, s, "acc");
    S(";\n        }\n        return;\n    }\n");
    P("    const %s o = (%s)blockIdx.x;\n", I, I);
    S("    cj_acc acc = cj_ident();\n");
    P("    for (%s k = threadIdx.x; k < splits; k += blockDim.x) {\n", I);
    S("        acc = cj_combine(acc, part[o * splits + k]);\n    }\n");
    S("    acc = cj_block_reduce(acc, cj_combine);\n");
    S("    if (threadIdx.x == 0) {\n        out[o] = ");
    red_result(g, b, s, "acc");
    S(";\n    }\n}\n");
}

void
cg_emit_reduction(Program *p, const RedSpec *s, Buf *out)
{
    Cg gs, *g = &gs;
    memset(g, 0, sizeof gs);
    g->p = p;
    Buf w, *b = &w;
    buf_init(&w);
    cg_note_dtype(p, s->in);
    cg_note_dtype(p, s->out);
    cg_note_dtype(p, s->elem);
    p->ew_name = cj_aprintf(p->arena, "cj_red_%s_%s_%s%d_%d", s->combine->fn->name,
                            cj_dtypes[s->in].code, s->outer ? "o" : "i", s->nkeep, s->nred);
    P("\n/* reduction by %s%s%s */\n", s->combine->fn->name, s->map ? " of " : "",
      s->map ? s->map->fn->name : "");
    red_types(g, b, s);
    S(cg_shfl_any);
    S(cg_block_reduce);
    if (s->outer) {
        red_outer(g, b, s);
    } else {
        red_inner(g, b, s);
    }
    red_final(g, b, s);
    p->features |= FEAT_PACK;
    Inst *roots[2] = {s->combine, s->map};
    cg_emit_roots(p, roots, s->map ? 2 : 1, w.s, out);
    buf_free(&w);
}

void
cg_form_prelude(Buf *b, Features features)
{
    if (features & FEAT_PACK) {
        buf_puts(b, packs);
    }
}
