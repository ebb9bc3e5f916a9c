/* groups.c - jit.cg's cooperative groups in CUDA C++: the structs the
 * prelude gives each group (cujit's own, not <cooperative_groups.h>, whose
 * include costs NVRTC 0.8-1.5 s per kernel: ARCHITECTURE.md), and the calls
 * of the cg builtins and of a group's methods. */
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, (s))

/* The groups.  Each is default-constructible (a kernel declares its
 * variables first) and holds at most the mask of its threads.  A tile of
 * N threads (a power of 2, at most 32) is the N-aligned lanes of a warp;
 * warps are made of consecutive ranks of the block.  The grid's barrier is
 * the one the driver gives a cooperative launch: its workspace's address is
 * in %envreg1 (high) and %envreg2 (low), the barrier word 4 bytes in; the
 * master block adds 0x80000000 - (blocks - 1), the others 1, so the top bit
 * flips once every block has arrived. */
static const char groups[] =
    "/* jit.cg: cooperative groups */\n"
    "#define CJ_CGF __device__ __forceinline__\n"
    "struct cj_u3 { unsigned x, y, z; };\n"
    "template <typename R> CJ_DEVICE R cj_dim3(cj_u3 v) { return R{v.x, v.y, v.z}; }\n"
    "CJ_DEVICE unsigned cj_cg_brank(void)\n"
    "{\n"
    "    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;\n"
    "}\n"
    "CJ_DEVICE unsigned cj_cg_bsize(void) { return blockDim.x * blockDim.y * blockDim.z; }\n"
    "CJ_DEVICE unsigned cj_cg_lane(void)\n"
    "{\n"
    "    unsigned r;\n"
    "    asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n"
    "    return r;\n"
    "}\n"
    "struct cj_cg_block {\n"
    "    CJ_CGF void sync() const { __syncthreads(); }\n"
    "    CJ_CGF unsigned thread_rank() const { return cj_cg_brank(); }\n"
    "    CJ_CGF unsigned size() const { return cj_cg_bsize(); }\n"
    "    CJ_CGF cj_u3 group_index() const { return cj_u3{blockIdx.x, blockIdx.y, blockIdx.z}; }\n"
    "    CJ_CGF cj_u3 thread_index() const { return cj_u3{threadIdx.x, threadIdx.y, threadIdx.z}; }\n"
    "    CJ_CGF cj_u3 dim_threads() const { return cj_u3{blockDim.x, blockDim.y, blockDim.z}; }\n"
    "};\n";

static const char group_grid[] =
    "struct cj_cg_grid {\n"
    "    CJ_CGF unsigned long long ws() const\n"
    "    {\n"
    "        unsigned hi, lo;\n"
    "        asm volatile(\"mov.u32 %0, %%envreg1;\" : \"=r\"(hi));\n"
    "        asm volatile(\"mov.u32 %0, %%envreg2;\" : \"=r\"(lo));\n"
    "        return ((unsigned long long)hi << 32) | lo;\n"
    "    }\n"
    "    CJ_CGF bool is_valid() const { return ws() != 0; }\n"
    "    CJ_CGF void sync() const\n"
    "    {\n"
    "        unsigned long long w = ws();\n"
    "        if (w == 0) {\n"
    "            __trap();       /* not a cooperative launch: never hang */\n"
    "        }\n"
    "        unsigned *bar = (unsigned *)(w + 4);\n"
    "        __syncthreads();\n"
    "        if (cj_cg_brank() == 0) {\n"
    "            unsigned nb = gridDim.x * gridDim.y * gridDim.z, old, cur;\n"
    "            unsigned add = blockIdx.x + blockIdx.y + blockIdx.z == 0 ? 0x80000000u - (nb - 1) : 1u;\n"
    "            asm volatile(\"atom.add.release.gpu.u32 %0, [%1], %2;\" : \"=r\"(old) : \"l\"(bar), \"r\"(add) : \"memory\");\n"
    "            do {\n"
    "                asm volatile(\"ld.acquire.gpu.u32 %0, [%1];\" : \"=r\"(cur) : \"l\"(bar) : \"memory\");\n"
    "            } while (((old ^ cur) & 0x80000000u) == 0);\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "    CJ_CGF unsigned long long block_rank() const\n"
    "    {\n"
    "        return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;\n"
    "    }\n"
    "    CJ_CGF unsigned long long num_blocks() const\n"
    "    {\n"
    "        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;\n"
    "    }\n"
    "    CJ_CGF unsigned long long thread_rank() const { return block_rank() * cj_cg_bsize() + cj_cg_brank(); }\n"
    "    CJ_CGF unsigned long long size() const { return num_blocks() * cj_cg_bsize(); }\n"
    "    CJ_CGF cj_u3 dim_blocks() const { return cj_u3{gridDim.x, gridDim.y, gridDim.z}; }\n"
    "    CJ_CGF cj_u3 block_index() const { return cj_u3{blockIdx.x, blockIdx.y, blockIdx.z}; }\n"
    "};\n";

static const char group_tile[] =
    "/* N threads of a warp; P: the parent tile's threads, 0 for the block */\n"
    "template <unsigned N, unsigned P> struct cj_cg_tile {\n"
    "    CJ_CGF unsigned base() const { return cj_cg_lane() & ~(N - 1); }\n"
    "    CJ_CGF unsigned mask() const { return N == 32 ? 0xffffffffu : ((1u << (N % 32)) - 1) << base(); }\n"
    "    CJ_CGF void sync() const { __syncwarp(mask()); }\n"
    "    CJ_CGF unsigned thread_rank() const { return cj_cg_lane() & (N - 1); }\n"
    "    CJ_CGF unsigned size() const { return N; }\n"
    "    CJ_CGF unsigned meta_group_rank() const { return (P ? cj_cg_brank() % P : cj_cg_brank()) / N; }\n"
    "    CJ_CGF unsigned meta_group_size() const { return P ? P / N : (cj_cg_bsize() + N - 1) / N; }\n"
    "    template <typename T> CJ_CGF T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }\n"
    "    template <typename T> CJ_CGF T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, N); }\n"
    "    template <typename T> CJ_CGF T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask(), v, d, N); }\n"
    "    template <typename T> CJ_CGF T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask(), v, m, N); }\n"
    "    CJ_CGF bool any(bool p) const { return __any_sync(mask(), p) != 0; }\n"
    "    CJ_CGF bool all(bool p) const { return __all_sync(mask(), p) != 0; }\n"
    "    CJ_CGF unsigned ballot(bool p) const { return __ballot_sync(mask(), p) >> base(); }\n"
    "    template <typename T> CJ_CGF unsigned match_any(T v) const { return __match_any_sync(mask(), v) >> base(); }\n"
    "    template <typename R, typename T> CJ_CGF R match_all(T v) const\n"
    "    {\n"
    "        int p;\n"
    "        unsigned m = __match_all_sync(mask(), v, &p);\n"
    "        return R{m >> base(), p != 0};\n"
    "    }\n"
    "};\n";

static const char group_coalesced[] =
    "/* the threads of a warp active where it was made; rank r is the r-th set bit */\n"
    "struct cj_cg_coalesced {\n"
    "    unsigned m;\n"
    "    CJ_CGF void sync() const { __syncwarp(m); }\n"
    "    CJ_CGF unsigned thread_rank() const { return __popc(m & ((1u << cj_cg_lane()) - 1)); }\n"
    "    CJ_CGF unsigned size() const { return __popc(m); }\n"
    "    CJ_CGF unsigned meta_group_rank() const { return 0; }\n"
    "    CJ_CGF unsigned meta_group_size() const { return 1; }\n"
    "    CJ_CGF unsigned lane_of(unsigned from, int k) const\n"
    "    {\n"
    "        unsigned l = __fns(m, from, k);\n"
    "        return l > 31 ? cj_cg_lane() : l;\n"
    "    }\n"
    "    CJ_CGF unsigned pack(unsigned lanes) const\n"
    "    {\n"
    "        unsigned r = 0, k = 0;\n"
    "        for (unsigned t = m; t; t &= t - 1, k++) {\n"
    "            r |= (lanes & t & (0u - t)) ? 1u << k : 0u;\n"
    "        }\n"
    "        return r;\n"
    "    }\n"
    "    template <typename T> CJ_CGF T shfl(T v, int r) const { return __shfl_sync(m, v, __fns(m, 0, r + 1)); }\n"
    "    template <typename T> CJ_CGF T shfl_up(T v, unsigned d) const { return __shfl_sync(m, v, lane_of(cj_cg_lane(), -(int)(d + 1))); }\n"
    "    template <typename T> CJ_CGF T shfl_down(T v, unsigned d) const { return __shfl_sync(m, v, lane_of(cj_cg_lane(), (int)(d + 1))); }\n"
    "    CJ_CGF bool any(bool p) const { return __any_sync(m, p) != 0; }\n"
    "    CJ_CGF bool all(bool p) const { return __all_sync(m, p) != 0; }\n"
    "    CJ_CGF unsigned ballot(bool p) const { return pack(__ballot_sync(m, p)); }\n"
    "    template <typename T> CJ_CGF unsigned match_any(T v) const { return pack(__match_any_sync(m, v)); }\n"
    "    template <typename R, typename T> CJ_CGF R match_all(T v) const\n"
    "    {\n"
    "        int p;\n"
    "        unsigned r = __match_all_sync(m, v, &p);\n"
    "        return R{pack(r), p != 0};\n"
    "    }\n"
    "};\n"
    "CJ_DEVICE cj_cg_coalesced cj_coalesced_threads(void) { return cj_cg_coalesced{__activemask()}; }\n";

/* jit.cg.memcpy_async: every thread of the group copies its share at once
 * (words when both ends and the size allow); cg.wait is the group's sync */
static const char group_copy[] =
    "template <typename G> CJ_DEVICE void cj_cg_copy(const G &g, void *dst, const void *src,\n"
    "                                                unsigned long long n)\n"
    "{\n"
    "    unsigned long long r = g.thread_rank(), s = g.size();\n"
    "    if ((((unsigned long long)dst | (unsigned long long)src | n) & 3) == 0) {\n"
    "        for (unsigned long long i = r; i < n / 4; i += s) {\n"
    "            ((unsigned *)dst)[i] = ((const unsigned *)src)[i];\n"
    "        }\n"
    "        return;\n"
    "    }\n"
    "    for (unsigned long long i = r; i < n; i += s) {\n"
    "        ((unsigned char *)dst)[i] = ((const unsigned char *)src)[i];\n"
    "    }\n"
    "}\n";

/* match_all_sync(mask, value): Numba's (mask, pred) tuple */
static const char match_all[] =
    "template <typename R, typename T> CJ_DEVICE R cj_match_all(unsigned m, T v)\n"
    "{\n"
    "    int p;\n"
    "    unsigned r = __match_all_sync(m, v, &p);\n"
    "    return R{r, p != 0};\n"
    "}\n";

void
cg_group_prelude(Buf *b, Features features)
{
    if (features & FEAT_CG) {
        buf_puts(b, groups);
    }
    if (features & FEAT_CG_GRID) {
        buf_puts(b, group_grid);
    }
    if (features & FEAT_CG_TILE) {
        buf_puts(b, group_tile);
    }
    if (features & FEAT_CG_COALESCED) {
        buf_puts(b, group_coalesced);
    }
    if (features & FEAT_CG_COPY) {
        buf_puts(b, group_copy);
    }
    if (features & FEAT_MATCH) {
        buf_puts(b, match_all);
    }
}

const char *
cg_group_ctype(Cg *g, const Type *t)
{
    switch (t->group) {
    case GK_BLOCK:
        return "cj_cg_block";
    case GK_GRID:
        return "cj_cg_grid";
    case GK_TILE:
        return cj_aprintf(g->p->arena, "cj_cg_tile<%d, %d>", t->tile, t->parent);
    case GK_COALESCED:
        return "cj_cg_coalesced";
    }
    cj_unreachable(g->p->try_, "group kind");
}

/* the C++ method a GM_* calls; the aliases (num_threads, group_dim) map to
 * the one the struct has */
static const char *
method_cname(const Type *gt, int m)
{
    switch ((GroupMethod)m) {
    case GM_NUM_THREADS:
        return "size";
    case GM_GROUP_DIM:
        return gt->group == GK_GRID ? "dim_blocks" : "dim_threads";
    case GM_SYNC: case GM_THREAD_RANK: case GM_SIZE: case GM_GROUP_INDEX:
    case GM_THREAD_INDEX: case GM_DIM_THREADS: case GM_IS_VALID: case GM_BLOCK_RANK:
    case GM_NUM_BLOCKS: case GM_DIM_BLOCKS: case GM_BLOCK_INDEX: case GM_META_GROUP_RANK:
    case GM_META_GROUP_SIZE: case GM_SHFL: case GM_SHFL_UP: case GM_SHFL_DOWN:
    case GM_SHFL_XOR: case GM_ANY: case GM_ALL: case GM_BALLOT: case GM_MATCH_ANY:
    case GM_MATCH_ALL: case GM_COUNT:
        break;
    }
    return cj_group_method_names[m];
}

/* g.method(args): the receiver, then the arguments in the types typeinfer
 * chose (the value's own type, int lanes, bool predicates) */
static void
method_call(Cg *g, Node *n)
{
    const Type *gt = cg_type(g, n->list[0]);
    const Type *rt = cg_type(g, n);
    int dim3 = rt->kind == TY_TUPLE && n->axis != GM_MATCH_ALL;
    if (dim3) {
        P("cj_dim3<%s>(", cg_ctype(g, rt));
    }
    cg_expr(g, n->list[0], PR_POSTFIX);
    P(".%s", method_cname(gt, n->axis));
    if (n->axis == GM_MATCH_ALL) {
        P("<%s>", cg_ctype(g, rt));
    }
    S("(");
    for (int i = 1; i < n->n; i++) {
        const Type *at = cg_type(g, n->list[i]);
        S(i > 1 ? ", " : "");
        if (n->axis == GM_ANY || n->axis == GM_ALL || n->axis == GM_BALLOT) {
            cg_truth(g, n->list[i], PR_COMMA);
        } else if (i == 1) {
            cg_conv(g, n->list[i], cj_concrete(at), PR_COMMA);
        } else {
            cg_conv(g, n->list[i], cj_scalar(DT_I32), PR_COMMA);
        }
    }
    S(")");
    if (dim3) {
        S(")");
    }
}

/* cg.memcpy_async(group, dst, dst_idx, src, src_idx, nbytes) */
static void
copy_call(Cg *g, Node *n)
{
    S("cj_cg_copy(");
    cg_expr(g, n->list[0], PR_COMMA);
    S(", &");
    cg_element(g, n->list[1], n->list[2]);
    S(", &");
    cg_element(g, n->list[3], n->list[4]);
    S(", ");
    cg_conv(g, n->list[5], cj_scalar(DT_U64), PR_COMMA);
    S(")");
}

/* the BI_CG_* calls (cg_call's cases pass them here) */
void
cg_group_call(Cg *g, Node *n, int prec)
{
    int op = n->op;
    if (op == BI_CG_THIS_BLOCK || op == BI_CG_THIS_GRID || op == BI_CG_TILED_PARTITION) {
        P("%s()", cg_ctype(g, cg_type(g, n)));
    } else if (op == BI_CG_COALESCED) {
        S("cj_coalesced_threads()");
    } else if (op == BI_CG_SYNC || op == BI_CG_WAIT || op == BI_CG_WAIT_PRIOR) {
        cg_expr(g, n->list[0], PR_POSTFIX);
        S(".sync()");
    } else if (op == BI_CG_MEMCPY_ASYNC) {
        copy_call(g, n);
    } else {
        method_call(g, n);
    }
}

/* match_any_sync(mask, value) / match_all_sync(mask, value) */
void
cg_match_call(Cg *g, Node *n)
{
    const Type *vt = cj_concrete(cg_type(g, n->list[1]));
    if (n->op == BI_MATCH_ALL_SYNC) {
        P("cj_match_all<%s>(", cg_ctype(g, cg_type(g, n)));
    } else {
        S("__match_any_sync(");
    }
    cg_conv(g, n->list[0], cj_scalar(DT_U32), PR_COMMA);
    S(", ");
    cg_conv(g, n->list[1], vt, PR_COMMA);
    S(")");
}
