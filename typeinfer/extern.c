/* extern.c - the typing of calls of declared foreign device functions
 * (cuda.declare_device: BI_EXTERN, its CjExtern in Node.ext) and of cffi's
 * ffi.from_buffer(array) (BI_FROM_BUFFER), the raw pointer they take.  A
 * declared function's arguments are numbers, converted to its declared
 * types, and raw pointers of its declared dtype; its result is its declared
 * return type.  Each function called is listed once in Program.externs,
 * by name, for codegen/extern.c. */
#include <string.h>

#include "ti.h"

/* x listed in p->externs (by name: one name, one signature) */
static void
note_extern(Ti *t, Node *n, CjExtern *x)
{
    Program *p = t->p;
    for (int i = 0; i < p->nexterns; i++) {
        CjExtern *y = p->externs[i];
        if (y == x) {
            return;
        }
        if (strcmp(y->name, x->name) != 0) {
            continue;
        }
        int same = y->nargs == x->nargs && cj_type_eq(y->ret, x->ret) && y->abi_c == x->abi_c;
        for (int k = 0; same && k < x->nargs; k++) {
            same = cj_type_eq(y->args[k], x->args[k]);
        }
        if (!same) {
            ti_err(t, n, "two declarations of the device function '%s' differ (signature or "
                   "abi): one C function has one declaration", x->name);
        }
        n->ext = y;
        return;
    }
    if (p->nexterns == p->extcap) {
        int cap = p->extcap ? 2 * p->extcap : 8;
        CjExtern **grown = cj_alloc(p->arena, sizeof(CjExtern *) * (size_t)cap);
        if (p->nexterns) {
            memcpy(grown, p->externs, sizeof(CjExtern *) * (size_t)p->nexterns);
        }
        p->externs = grown;
        p->extcap = cap;
    }
    p->externs[p->nexterns++] = x;
}

/* a declared type cujit can pass: a number (not complex) or a raw pointer */
static int
passable(const Type *ty)
{
    if (ty->kind == TY_ITER) {
        return ty->layout == 'P';
    }
    return ty->kind == TY_SCALAR && cj_dtypes[ty->dtype].kind != 'c';
}

static void
check_declared(Ti *t, Node *n, const CjExtern *x)
{
    for (int k = 0; k < x->nargs; k++) {
        if (!passable(x->args[k])) {
            ti_err_kind(t, n, CE_TYPE, "declared device function '%s': parameter %d is %s; "
                        "cujit passes numbers and raw pointers (types.CPointer(dtype), "
                        "ffi.from_buffer(array)) to foreign functions", x->name, k + 1,
                        ti_tstr(t, x->args[k]));
        }
        t->p->features |= x->args[k]->dtype == DT_F16 ? FEAT_F16 : 0;
    }
    if (x->ret->kind != TY_VOID && !passable(x->ret)) {
        ti_err_kind(t, n, CE_TYPE, "declared device function '%s' returns %s; cujit takes "
                    "numbers, raw pointers or void from foreign functions", x->name,
                    ti_tstr(t, x->ret));
    }
    t->p->features |= x->ret->kind != TY_VOID && x->ret->dtype == DT_F16 ? FEAT_F16 : 0;
    /* compiled code (a marker) cannot be searched: the linker judges it */
    int found = 0;
    for (int i = 0; !found && i < x->nsrcs; i++) {
        found = cj_link_marker(x->srcs[i]) || strstr(x->srcs[i], x->name) != NULL;
    }
    if (!found) {
        ti_err_kind(t, n, CE_VALUE, "declared device function '%s' is defined in none of the "
                    "CUDA C++ sources it links: give declare_device(..., link=) or the "
                    "kernel's cuda.jit(link=) the .cu file or cuda.CUSource that defines it, "
                    "or the compiled code (.ptx, .cubin, .fatbin, .o, .a)%s", x->name,
                    x->nsrcs ? "" : " (it links none)");
    }
}

/* one argument against its parameter */
static void
check_arg(Ti *t, Node *n, const CjExtern *x, int k, Type *a)
{
    const Type *want = x->args[k];
    if (want->kind == TY_ITER) {
        if (a->kind != TY_ITER || a->layout != 'P' || a->dtype != want->dtype) {
            ti_err_kind(t, n->list[k], CE_TYPE, "%s() argument %d must be a raw pointer to %s "
                        "(ffi.from_buffer(array) of a %s array, or a CPointer parameter), "
                        "got %s", x->name, k + 1, cj_dtypes[want->dtype].name,
                        cj_dtypes[want->dtype].name, ti_tstr(t, a));
        }
        return;
    }
    if (!cj_is_numeric(a) || cj_type_kind(a) == 'c') {
        ti_err_kind(t, n->list[k], CE_TYPE, "%s() argument %d must be a real number (it is "
                    "converted to %s), got %s", x->name, k + 1, cj_dtypes[want->dtype].name,
                    ti_tstr(t, a));
    }
    ti_weak_to(t, n->list[k], want);
}

Type *
ti_extern_call(Ti *t, Node *n)
{
    CjExtern *x = n->ext;
    if (n->n2) {
        ti_err_kind(t, n->list2[0], CE_TYPE, "%s() takes no keyword arguments: pass its "
                    "arguments by position", x->name);
    }
    if (n->n != x->nargs) {
        ti_err_kind(t, n, CE_TYPE, "%s() takes %d argument%s (its declared signature), got %d",
                    x->name, x->nargs, x->nargs == 1 ? "" : "s", n->n);
    }
    check_declared(t, n, x);
    for (int k = 0; k < n->n; k++) {
        Type *a = ti_expr_pub(t, n->list[k]);
        if (!a) {
            return NULL;
        }
        check_arg(t, n, x, k, a);
    }
    note_extern(t, n, x);
    t->p->features |= FEAT_EXTERN | (x->cooperative ? FEAT_GRID_SYNC : 0);
    return x->ret->kind == TY_VOID ? cj_void() : x->ret;
}

/* ffi.from_buffer(a): a raw pointer to a's first element; a is contiguous
 * (C order), as cffi's buffers are */
Type *
ti_from_buffer(Ti *t, Node *n)
{
    if (n->n2 || n->n != 1) {
        ti_err_kind(t, n, CE_TYPE, "ffi.from_buffer(array) takes one array in a kernel");
    }
    Type *a = ti_expr_pub(t, n->list[0]);
    if (!a) {
        return NULL;
    }
    if (a->kind != TY_ARRAY) {
        ti_err_kind(t, n->list[0], CE_TYPE, "ffi.from_buffer() takes an array in a kernel, "
                    "got %s", ti_tstr(t, a));
    }
    if (a->mem == MEM_GLOBAL && a->layout != 'C') {
        ti_err_kind(t, n->list[0], CE_TYPE, "ffi.from_buffer() needs a contiguous array (C "
                    "order), got %s", ti_tstr(t, a));
    }
    t->p->features |= a->dtype == DT_F16 ? FEAT_F16 : 0;
    return cj_iter_type(t->p->arena, a->dtype, 'P');
}
