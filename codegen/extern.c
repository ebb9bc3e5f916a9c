/* extern.c - the C++ of declared foreign device functions (cuda.declare_device,
 * Program.externs; typed by typeinfer/extern.c) and of ffi.from_buffer.
 *
 * The CUDA C++ sources the functions link are compiled into the kernel's
 * own program, each once (equal texts once), after the prelude: NVRTC
 * then sees the definitions and may inline them.  A call goes through a
 * wrapper, cj_ext_<name>, in the declared ABI:
 *   abi='numba': int name(R *out, args...): the result through the first
 *                pointer (a void * for a void function), the status ignored
 *   abi='c':     R name(args...)
 * The wrapper never declares the function itself (the source does, in the
 * C types its author chose): a pointer is passed as cj_extptr, which
 * converts to any pointer type, and a float16 as cj_exthalf, which converts
 * to any 16-bit type (__half), so cujit's own types meet the source's.
 *
 * A function defined only in compiled code (PTX, cubin, ...: the marker
 * lines of runtime/link.c among its sources) is declared here, extern "C"
 * with pointers as void * and float16 as a 16-bit integer, and the program
 * is compiled as relocatable code that the driver's linker joins with it. */
#include <string.h>

#include "cg.h"

#define P(...) buf_printf(g->out, __VA_ARGS__)
#define S(s) buf_puts(g->out, s)

static const char ext_helpers[] =
    "struct cj_extptr {\n"
    "    void *p;\n"
    "    template <typename T> __device__ operator T *() const { return (T *)p; }\n"
    "};\n";

static const char ext_half_helpers[] =
    "struct cj_exthalf {\n"
    "    cj_half h;\n"
    "    template <typename T> __device__ operator T() const {\n"
    "        static_assert(sizeof(T) == 2, \"a float16 of a declared device function is a "
    "16-bit type in C++ (__half)\");\n"
    "        T v; *(unsigned short *)&v = h.bits; return v;\n"
    "    }\n"
    "};\n"
    "template <typename V> __device__ cj_half cj_ext_half(V v) {\n"
    "    static_assert(sizeof(V) == 2, \"a float16 of a declared device function is a 16-bit "
    "type in C++ (__half)\");\n"
    "    cj_half h; h.bits = *(const unsigned short *)&v; return h;\n"
    "}\n";

/* the sources, each text once (a marker line after a newline: the runtime
 * finds it at a line's start) */
static void
sources(Program *p, Buf *out)
{
    for (int i = 0; i < p->nexterns; i++) {
        const CjExtern *x = p->externs[i];
        for (int k = 0; k < x->nsrcs; k++) {
            int seen = 0;
            for (int j = 0; j <= i && !seen; j++) {
                const CjExtern *y = p->externs[j];
                for (int m = 0; m < (j == i ? k : y->nsrcs) && !seen; m++) {
                    seen = strcmp(y->srcs[m], x->srcs[k]) == 0;
                }
            }
            if (!seen) {
                buf_puts(out, cj_link_marker(x->srcs[k]) ? "\n" : "");
                buf_puts(out, x->srcs[k]);
            }
        }
    }
}

/* Is x defined in compiled code only (no CUDA C++ source of its names it)?
 * Then the program declares it, for the linker to resolve. */
static int
linked_only(const CjExtern *x)
{
    for (int k = 0; k < x->nsrcs; k++) {
        if (!cj_link_marker(x->srcs[k]) && strstr(x->srcs[k], x->name)) {
            return 0;
        }
    }
    return 1;
}

/* a parameter or result of a declaration, in C: a pointer as void *, a
 * float16 as a 16-bit integer (cj_extptr and cj_exthalf convert to them) */
static const char *
decl_ctype(Cg *g, const Type *t)
{
    if (t->kind == TY_VOID) {
        return "void";
    }
    if (t->kind == TY_ITER) {
        return "void *";
    }
    return t->dtype == DT_F16 ? "unsigned short" : cg_ctype(g, t);
}

/* extern "C" __device__ int name(void *out, args...) (abi='numba') or
 * R name(args...) (abi='c'): what the linked code defines */
static void
declaration(Cg *g, const CjExtern *x, Buf *out)
{
    buf_printf(out, "extern \"C\" __device__ %s %s(", x->abi_c ? decl_ctype(g, x->ret) : "int",
               x->name);
    buf_puts(out, x->abi_c ? "" : "void *");
    for (int k = 0; k < x->nargs; k++) {
        buf_printf(out, "%s%s", k || !x->abi_c ? ", " : "", decl_ctype(g, x->args[k]));
    }
    buf_puts(out, x->nargs || !x->abi_c ? ");\n" : "void);\n");
}

/* argument k as the wrapper passes it on */
static void
pass_arg(Buf *out, const Type *t, int k)
{
    if (t->kind == TY_ITER) {
        buf_printf(out, "cj_extptr{a%d}", k);
    } else if (t->dtype == DT_F16) {
        buf_printf(out, "cj_exthalf{a%d}", k);
    } else {
        buf_printf(out, "a%d", k);
    }
}

/* cj_ext_<name>(args): the call in the declared ABI */
static void
wrapper(Cg *g, const CjExtern *x, Buf *out)
{
    int is_void = x->ret->kind == TY_VOID;
    const char *rt = is_void ? "void" : cg_ctype(g, x->ret);
    buf_printf(out, "static __device__ __forceinline__ %s cj_ext_%s(", rt, x->name);
    for (int k = 0; k < x->nargs; k++) {
        buf_printf(out, "%s%s a%d", k ? ", " : "", cg_ctype(g, x->args[k]), k);
    }
    buf_puts(out, ") {\n    ");
    if (!x->abi_c) {
        buf_printf(out, "%s r{};\n    %s(cj_extptr{&r}", is_void ? "char" : rt, x->name);
    } else if (is_void) {
        buf_printf(out, "%s(", x->name);
    } else if (x->ret->kind == TY_SCALAR && x->ret->dtype == DT_F16) {
        buf_printf(out, "return cj_ext_half(%s(", x->name);
    } else {
        buf_printf(out, "return (%s)%s(", rt, x->name);
    }
    for (int k = 0; k < x->nargs; k++) {
        buf_puts(out, k || !x->abi_c ? ", " : "");
        pass_arg(out, x->args[k], k);
    }
    int half_ret = x->abi_c && !is_void && x->ret->kind == TY_SCALAR && x->ret->dtype == DT_F16;
    buf_puts(out, half_ret ? "));\n" : ");\n");
    if (!x->abi_c && !is_void) {
        buf_puts(out, "    return r;\n");
    }
    buf_puts(out, "}\n");
}

void
cg_externs(Cg *g, Buf *out)
{
    Program *p = g->p;
    if (!p->nexterns) {
        return;
    }
    sources(p, out);
    buf_puts(out, "#line 1 \"cujit's wrappers of declared device functions\"\n");
    buf_puts(out, ext_helpers);
    if (p->features & FEAT_F16) {
        buf_puts(out, ext_half_helpers);
    }
    for (int i = 0; i < p->nexterns; i++) {
        if (linked_only(p->externs[i])) {
            declaration(g, p->externs[i], out);
        }
        wrapper(g, p->externs[i], out);
    }
}

/* a declared function's call: its wrapper, the numbers converted to the
 * declared types */
void
cg_extern_call(Cg *g, Node *n)
{
    const CjExtern *x = n->ext;
    P("cj_ext_%s(", x->name);
    for (int k = 0; k < n->n; k++) {
        S(k ? ", " : "");
        if (x->args[k]->kind == TY_ITER) {
            cg_expr(g, n->list[k], PR_COMMA);
        } else {
            cg_conv(g, n->list[k], x->args[k], PR_COMMA);
        }
    }
    S(")");
}
