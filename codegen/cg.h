/* cg.h - codegen internals shared by the codegen files */
#ifndef CG_H
#define CG_H

#include "../common/cj.h"
#include "codegen.h"

typedef struct {
    Program *p;
    Inst *in;
    Func *fn;
    Buf *out;
    int last_line;      /* last #line emitted */
    Buf *mark_buf;      /* the buffer it went into, and its length after it */
    size_t mark_end;
    int ntemp;          /* numbering of cj_tN temporaries */
    int loop_var_escapes;
    int brk_label;      /* the innermost loop has an else: its break is goto cj_brk<n> */
    int nlabels;
    Var *vec_i;         /* coarsening: a[i] of packed arrays reads a_v.v[cj_e] */
    Var **vec_arrays;
    char *vec_packable;
    int vec_narr;
    int lvalue;         /* a complex record field is written: its member, not its value */
    Node *check_node;   /* debug=True: the divisor cg_expr wraps in cj_nz (checks.c) */
    int check_line;
    Node *opt_raw;      /* the node cj_opt_get is wrapping: printed as the Optional itself */
    Inst *nn_in;        /* nonneg.c: the instance nn_lb and nn_node are for */
    int64_t *nn_lb;     /* by var id: a lower bound of its values */
    unsigned char *nn_node; /* by node id: an index proven >= 0 under its guards */
} Cg;

/* C++ precedence levels, higher binds tighter */
enum {
    PR_COMMA = 1, PR_ASSIGN, PR_COND, PR_LOR, PR_LAND, PR_BOR, PR_BXOR, PR_BAND, PR_EQ,
    PR_REL, PR_SHIFT, PR_ADD, PR_MUL, PR_UNARY, PR_POSTFIX, PR_PRIMARY,
};

void cg_prelude(Buf *b, Features features, unsigned atomic_ops);
/* checks.c: debug=True's exception checks */
extern const char cg_checks_prelude[];
void cg_div_check(Cg *g, Node *n);
int cg_checked(Cg *g, Node *n);
/* the id of an exception's message ("module\nqualname\nrepr(args)"), added once */
int cg_exception_msg(Program *p, const char *text);
/* expr.c: the message id of cj_opt_get's TypeError on None of an Optional raw */
int cg_opt_get_msg(Cg *g, const Type *raw);
void cg_tuple_index(Cg *g, Node *n, int ntup, int prec);
/* C++ spelling of a type (weak types as their defaults) */
const char *cg_ctype(Cg *g, const Type *t);
/* "__launch_bounds__(128, 2) " for a kernel given launch bounds, else nothing */
void cg_launch_bounds(Cg *g);
void cg_expr(Cg *g, Node *n, int prec);
/* n converted to type `to` */
void cg_conv(Cg *g, Node *n, const Type *to, int prec);
const char *cg_float_int_via(DType from, DType to);
void cg_call(Cg *g, Node *n, int prec);
void cg_index_ref(Cg *g, Node *n);
const Type *cg_type(Cg *g, Node *n);
void cg_open(Cg *g, int prec, int need);
void cg_close(Cg *g, int prec, int need);
void cg_literal(Cg *g, const Const *c, const Type *to);
void cg_tuple_elem(Cg *g, Node *n, int k, int prec);
/* a[ix] where ix is one integer or a tuple of them */
void cg_element(Cg *g, Node *a, Node *ix);
void cg_truth(Cg *g, Node *n, int prec);
/* prelude, tuple structs, the functions `roots` reach and then `tail` */
void cg_emit_roots(Program *p, Inst **roots, int nroots, const char *tail, Buf *out);
void cg_form_prelude(Buf *b, Features features);
/* forms.c, shared with fuse.c: NumPy's cast of expr, dtypes' headers, the
 * byte offset of the digits of idx in dimensions first.., block reduction */
void cg_conv_to(Program *p, Buf *b, DType from, DType to, const char *expr);
void cg_note_dtype(Program *p, DType dt);
void cg_red_offset(Buf *b, const char *I, const char *var, const char *idx, int first, int n,
                   const char *shape, const char *strides);
extern const char cg_block_reduce[], cg_shfl_any[];
void cg_stmt(Cg *g, Node *n);
/* #line so that NVRTC names Python line `line` for the next line of output */
void cg_line_mark(Cg *g, int line);
void cg_declare_var(Cg *g, Var *v);
void cg_coarsen(Cg *g, Inst *in);
/* groups.c: jit.cg's structs and calls, match_*_sync */
void cg_group_prelude(Buf *b, Features features);
const char *cg_group_ctype(Cg *g, const Type *t);
void cg_group_call(Cg *g, Node *n, int prec);
void cg_match_call(Cg *g, Node *n);
/* thrust.c: jit.thrust's iterators and algorithms */
void cg_thrust_prelude(Buf *b, Features features);
const char *cg_iter_ctype(Cg *g, const Type *t);
void cg_array_iter(Cg *g, Node *n, int prec);
/* extern.c: declared foreign functions (cuda.declare_device) */
void cg_externs(Cg *g, Buf *out);
void cg_extern_call(Cg *g, Node *n);
void cg_iter_binop(Cg *g, Node *n, int prec);
void cg_iter_index(Cg *g, Node *n);
void cg_carray(Cg *g, Node *n);             /* cptr.c */
void cg_thrust(Cg *g, Node *n, int prec);
/* npfuncs.c: NumPy's reductions and array methods, cmath */
void cg_np_prelude(Buf *b, Features features);
void cg_ufunc_prelude(Buf *b, Features features);
void cg_ufunc(Cg *g, Node *n);
void cg_npfunc(Cg *g, Node *n, int prec);
int cg_np_assign(Cg *g, Node *n);
void cg_array_transpose(Cg *g, Node *n, const Type *at);
void cg_array_part(Cg *g, Node *n, const Type *at, int prec);
void cg_field_view(Cg *g, Node *n, const Type *at);
/* vectypes.c: CUDA's vector types: make_float4(...) and v.x */
void cg_vector_ctor(Cg *g, Node *n);
void cg_vector_lane(Cg *g, Node *n);
/* codegen.c: n is an integer constant or its negation (its value in *v; NULL:
 * 1, range's default step) */
int cg_const_int(const Node *n, int64_t *v);
/* nonneg.c: n's value is never negative (so an index of it needs no wrap) */
int cg_nonneg(Cg *g, Node *n);
/* expr.c: an array as a (data, shape, strides) struct: a static one wrapped */
void cg_view_base(Cg *g, Node *a, const Type *at);

#endif
