/* gufunc.c - the kernel around a generalized ufunc's function
 * (@guvectorize).  The function is a device function typed like any other,
 * whose parameters are views of its operands' core dimensions (or numbers)
 * and which writes its outputs through their views.  The kernel gives each
 * loop instance one thread: it splits the thread's flat index over the loop
 * dimensions (the first nloop of every array operand, broadcast inputs with
 * stride 0 there), offsets each operand's data pointer by it, and calls the
 * function with views of the remaining (core) dimensions.
 *
 * The staged entry <name>_st (GuSpec.stage) runs the same call for T
 * consecutive instances per block (T = blockDim.x), after the block has
 * copied the core blocks of the inputs the launch marks (cj_gu_plan.mask:
 * those whose T blocks are one contiguous run) into dynamic shared memory
 * with coalesced 16-byte loads.  Each instance's block starts `pitch` units
 * after the previous one, an odd number of 4-, 8- or 16-byte units, so that
 * the threads of a warp reading element k of their own blocks hit distinct
 * banks; the function's view of a staged operand only points elsewhere.
 * Outputs the launch marks (ones it allocated) are written there too, and
 * the block copies them out after a third barrier. */
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
gu_params(Cg *g, Buf *b, const GuSpec *s, Inst *fn, const char *extra)
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
    P(", %s n%s)\n", ity(p), extra);
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

static void
gu_views(Cg *g, Buf *b, const GuSpec *s)
{
    for (int k = 0; k < s->nparam; k++) {
        if (s->mode[k] == GU_VIEW) {
            gu_view(g, b, s, k);
        }
    }
}

/* the function on the views, element values and numbers */
static void
gu_call(Cg *g, Buf *b, const GuSpec *s, Inst *fn)
{
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

/* ---- the staged entry ---- */

/* an operand the staged entry may keep in shared memory: an input it
 * copies in, or an output it copies out */
static int
is_stageable(const GuSpec *s, int k)
{
    return s->mode[k] == GU_VIEW;
}

/* cj_gu_stage(dst, src, total, len, pitch, magic): `total` 4-byte words at
 * src (whole blocks of `len`) to dst, word e at e + (e / len) * (pitch - len);
 * e / len is __umulhi(e, magic), exact for the launch's sizes (module/gufunc.c).
 * Elements of 8 and 16 bytes are 2 or 4 words, pitch the same multiple.
 * 16-byte loads where src is aligned, four in flight per thread, stored as
 * words in an order rotated by lane group so that a warp's stores fall in
 * distinct banks; with pitch == len, 16-byte stores.  One function for
 * every input, not inlined: NVRTC compiles it once. */
static const char stage_helper[] =
    "CJ_DEVICE void cj_gu_put(unsigned *d, uint4 r, unsigned v, unsigned pad, unsigned magic)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (unsigned j = 0; j < 4; j++) {\n"
    "        const unsigned jj = (j + (v >> 3)) & 3, e = v * 4 + jj;\n"
    "        d[e + __umulhi(e, magic) * pad] = jj == 0 ? r.x : jj == 1 ? r.y : jj == 2 ? r.z : r.w;\n"
    "    }\n"
    "}\n"
    "static __device__ __noinline__ void cj_gu_stage(unsigned *d, const unsigned *s, unsigned total,\n"
    "                                                unsigned len, unsigned pitch, unsigned magic)\n"
    "{\n"
    "    const unsigned t = threadIdx.x, T = blockDim.x, pad = pitch - len;\n"
    "    unsigned done = 0;\n"
    "    if (((unsigned long long)s & 15) == 0) {\n"
    "        const uint4 *s4 = (const uint4 *)s;\n"
    "        uint4 *d4 = (uint4 *)d;\n"
    "        const unsigned nv = total / 4;\n"
    "        unsigned v = t;\n"
    "        done = nv * 4;\n"
    "#pragma unroll 1\n"
    "        for (; v + 3 * T < nv; v += 4 * T) {\n"
    "            const uint4 r0 = s4[v], r1 = s4[v + T], r2 = s4[v + 2 * T], r3 = s4[v + 3 * T];\n"
    "            if (pad == 0) {\n"
    "                d4[v] = r0;\n"
    "                d4[v + T] = r1;\n"
    "                d4[v + 2 * T] = r2;\n"
    "                d4[v + 3 * T] = r3;\n"
    "            } else {\n"
    "                cj_gu_put(d, r0, v, pad, magic);\n"
    "                cj_gu_put(d, r1, v + T, pad, magic);\n"
    "                cj_gu_put(d, r2, v + 2 * T, pad, magic);\n"
    "                cj_gu_put(d, r3, v + 3 * T, pad, magic);\n"
    "            }\n"
    "        }\n"
    "#pragma unroll 1\n"
    "        for (; v < nv; v += T) {\n"
    "            cj_gu_put(d, s4[v], v, pad, magic);\n"
    "        }\n"
    "    }\n"
    "#pragma unroll 1\n"
    "    for (unsigned e = done + t; e < total; e += T) {\n"
    "        d[e + __umulhi(e, magic) * pad] = s[e];\n"
    "    }\n"
    "}\n"
    "/* the way back: the blocks in shared memory (pitch apart) to a contiguous run */\n"
    "static __device__ __noinline__ void cj_gu_unstage(unsigned *d, const unsigned *s, unsigned total,\n"
    "                                                  unsigned len, unsigned pitch, unsigned magic)\n"
    "{\n"
    "    const unsigned t = threadIdx.x, T = blockDim.x, pad = pitch - len;\n"
    "    unsigned done = 0;\n"
    "    if (((unsigned long long)d & 15) == 0) {\n"
    "        uint4 *d4 = (uint4 *)d;\n"
    "        const unsigned nv = total / 4;\n"
    "        done = nv * 4;\n"
    "#pragma unroll 1\n"
    "        for (unsigned v = t; v < nv; v += T) {\n"
    "            const unsigned e = v * 4;\n"
    "            uint4 r;\n"
    "            r.x = s[e + __umulhi(e, magic) * pad];\n"
    "            r.y = s[e + 1 + __umulhi(e + 1, magic) * pad];\n"
    "            r.z = s[e + 2 + __umulhi(e + 2, magic) * pad];\n"
    "            r.w = s[e + 3 + __umulhi(e + 3, magic) * pad];\n"
    "            d4[v] = r;\n"
    "        }\n"
    "    }\n"
    "#pragma unroll 1\n"
    "    for (unsigned e = done + t; e < total; e += T) {\n"
    "        d[e] = s[e + __umulhi(e, magic) * pad];\n"
    "    }\n"
    "}\n";

/* the launch's plan: the inputs staged (bits), and per input its offset in
 * shared memory (bytes), words per instance, pitch (words) and 2^32 / len */
static void
stage_plan_struct(Buf *b, const GuSpec *s)
{
    S("struct cj_gu_plan {\n    unsigned mask;\n");
    P("    unsigned off[%d], len[%d], pitch[%d], magic[%d];\n};\n", s->nparam, s->nparam,
      s->nparam, s->nparam);
}

/* the block copies the marked inputs' blocks of instances base.. */
static void
stage_copies(Buf *b, const GuSpec *s)
{
    for (int k = 0; k < s->nin; k++) {
        if (is_stageable(s, k)) {
            P("        if (pl.mask >> %d & 1u) {\n", k);
            P("            cj_gu_stage((unsigned *)(cj_gu_smem + pl.off[%d]),\n", k);
            P("                        (const unsigned *)op%d.data + (unsigned long long)base "
              "* pl.len[%d],\n", k, k);
            P("                        (unsigned)cnt * pl.len[%d], pl.len[%d], pl.pitch[%d], "
              "pl.magic[%d]);\n        }\n", k, k, k, k);
        }
    }
}

/* ... and the marked outputs' blocks back */
static void
unstage_copies(Buf *b, const GuSpec *s)
{
    for (int k = s->nin; k < s->nparam; k++) {
        if (is_stageable(s, k)) {
            P("        if (pl.mask >> %d & 1u) {\n", k);
            P("            cj_gu_unstage((unsigned *)op%d.data + (unsigned long long)base * "
              "pl.len[%d],\n", k, k);
            P("                          (const unsigned *)(cj_gu_smem + pl.off[%d]),\n", k);
            P("                          (unsigned)cnt * pl.len[%d], pl.len[%d], pl.pitch[%d], "
              "pl.magic[%d]);\n        }\n", k, k, k, k);
        }
    }
}

/* a staged operand's view: the thread's block in shared memory */
static void
stage_views(Buf *b, const GuSpec *s)
{
    for (int k = 0; k < s->nparam; k++) {
        if (is_stageable(s, k)) {
            P("        if (pl.mask >> %d & 1u) {\n", k);
            P("            v%d.data = (%s *)(cj_gu_smem + pl.off[%d] + threadIdx.x * pl.pitch[%d] "
              "* 4);\n        }\n", k, cj_dtypes[s->dtype[k]].ctype, k, k);
        }
    }
}

/* <name>_st(..., n, plan): blocks of T instances, the inputs in the plan's
 * mask staged in shared memory (a barrier before each copy and after it) */
static void
stage_entry(Cg *g, Buf *b, const GuSpec *s, Inst *fn)
{
    const char *I = ity(g->p);
    S("\n/* staged: each block runs blockDim.x consecutive instances on its inputs'\n"
      " * blocks copied to shared memory */\n");
    S(stage_helper);
    stage_plan_struct(b, s);
    P("extern \"C\" __global__ void %s_st(", g->p->ew_name);
    gu_params(g, b, s, fn, ", cj_gu_plan pl");
    S("{\n    extern __shared__ __align__(16) char cj_gu_smem[];\n");
    P("    const %s T = (%s)blockDim.x;\n", I, I);
    P("    for (%s base = (%s)blockIdx.x * T; base < n; base += (%s)gridDim.x * T) {\n", I, I, I);
    P("        const %s cnt = n - base < T ? n - base : T;\n", I);
    S("        __syncthreads();\n");
    stage_copies(b, s);
    S("        __syncthreads();\n");
    P("        if ((%s)threadIdx.x < cnt) {\n", I);
    P("            const %s i = base + (%s)threadIdx.x;\n", I, I);
    Buf inner;
    buf_init(&inner);
    gu_offsets(&inner, s, I);
    gu_views(g, &inner, s);
    stage_views(&inner, s);
    gu_call(g, &inner, s, fn);
    /* the instance's code, one level deeper */
    for (const char *line = inner.s; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        P("    %.*s\n", (int)len, line);
        line = nl ? nl + 1 : line + len;
    }
    buf_free(&inner);
    S("        }\n");
    if (s->nparam > s->nin) {
        P("        if (pl.mask >> %d) {\n            __syncthreads();\n        }\n", s->nin);
        unstage_copies(b, s);
    }
    S("    }\n}\n");
}

static int
can_stage(const GuSpec *s)
{
    for (int k = 0; k < s->nparam; k++) {
        if (is_stageable(s, k)) {
            return 1;
        }
    }
    return 0;
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
        if (is_array_param(s, k) && cj_is_half(s->dtype[k])) {
            p->features |= cj_half_feature(s->dtype[k]);
        } else if (is_array_param(s, k) && cj_dtypes[s->dtype[k]].kind == 'c') {
            p->features |= FEAT_COMPLEX;
        }
    }
    p->ew_name = cj_aprintf(p->arena, "cj_guf_%s_l%d", fn->cname + 7, s->nloop);
    P("\n/* generalized ufunc over %s: one thread per loop instance */\n", fn->fn->name);
    P("extern \"C\" __global__ void %s(", p->ew_name);
    gu_params(g, b, s, fn, "");
    S("{\n");
    P("    const %s stride = (%s)blockDim.x * gridDim.x;\n", I, I);
    P("    for (%s i = (%s)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {\n", I,
      I);
    gu_offsets(b, s, I);
    gu_views(g, b, s);
    gu_call(g, b, s, fn);
    S("    }\n}\n");
    if (s->stage && can_stage(s)) {
        stage_entry(g, b, s, fn);
    }
    cg_emit_roots(p, &p->kernel, 1, w.s, out);
    buf_free(&w);
}
