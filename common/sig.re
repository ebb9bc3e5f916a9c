/* sig.re - signature strings: a re2c lexer and a recursive-descent parser.
 *
 *   signature := '(' args ')' | type '(' args ')' | args
 *   args      := [ type { ',' type } [ ',' ] ]
 *   type      := dtype [ '[' dim { ',' dim } ']' | '*' ] | vtype | 'Tuple' '(' args ')'
 *   dim       := ':' | '::1'
 *   dtype     := name | typestr ('<f4', '|b1') | '?' | 'rec_' hex (a record dtype
 *                interned in this process: cujit.cuda writes Record types so)
 *   vtype     := dtype 'x' ('1' | '2' | '3' | '4')    (float32x4: a CUDA vector type)
 *
 * The type before '(' is the return type ("void(float32[:])").  In an array
 * spec, '::1' on the last dimension means C order, on the first (ndim >= 2)
 * F order; none means any layout.  'dtype*' is a raw pointer (Numba's
 * types.CPointer(dtype), whose str it is): a kernel or device function
 * parameter only, not a tuple element or return type.
 *
 * Generated code: common/sig.c comes from this file by `make regen`
 * (re2c -W --no-generation-date); both are committed. */
#include <stdio.h>
#include <string.h>

#include "cj.h"

typedef enum {
    T_END, T_NAME, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_COMMA,
    T_COLON, T_DCOLON1, T_STAR, T_BAD,
} TokKind;

typedef struct {
    TokKind kind;
    const char *start;
    size_t len;
} Tok;

typedef struct {
    Arena *arena;
    const char *src;
    const char *cur;
    Tok tok;            /* the current (look-ahead) token */
    char *msg;
    size_t msglen;
    jmp_buf jb;
    Type **args;        /* results */
    Type *ret;
    int nargs;
    int depth;          /* inside a Tuple( ) */
} Parser;

/* the next token from p->cur */
static Tok
lex(Parser *p)
{
    const char *YYCURSOR = p->cur, *YYMARKER = NULL, *start;
    Tok t;
    for (;;) {
        start = YYCURSOR;
        /*!re2c
            re2c:define:YYCTYPE = char;
            re2c:yyfill:enable = 0;

            ws = [ \t\r\n]+;
            name = [A-Za-z_][A-Za-z0-9_]*;
            typestr = [<>|=] ([A-Za-z?] [0-9]*);

            ws                 { continue; }
            "\x00"             { t.kind = T_END; YYCURSOR = start; break; }
            name | typestr | "?" { t.kind = T_NAME; break; }
            "("                { t.kind = T_LPAREN; break; }
            ")"                { t.kind = T_RPAREN; break; }
            "["                { t.kind = T_LBRACK; break; }
            "]"                { t.kind = T_RBRACK; break; }
            ","                { t.kind = T_COMMA; break; }
            "*"                { t.kind = T_STAR; break; }
            "::" [ \t]* "1"    { t.kind = T_DCOLON1; break; }
            ":"                { t.kind = T_COLON; break; }
            *                  { t.kind = T_BAD; break; }
        */
    }
    (void)YYMARKER;
    t.start = start;
    t.len = (size_t)(YYCURSOR - start);
    p->cur = YYCURSOR;
    return t;
}

static void
advance(Parser *p)
{
    p->tok = lex(p);
}

/* how the current token reads in a message */
static const char *
tok_desc(const Tok *t, char *buf, size_t n)
{
    if (t->kind == T_END) {
        return "end of signature";
    }
    snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
    return buf;
}

/* "signature 'S': <what> at column N..." then longjmp out */
static void
fail_at(Parser *p, const char *at, const char *what, const char *hint)
{
    snprintf(p->msg, p->msglen, "signature '%s': %s at column %d%s%s", p->src, what,
             (int)(at - p->src) + 1, hint ? "; " : "", hint ? hint : "");
    longjmp(p->jb, 1);
}

/* "expected X, found Y" at the current token */
static void
fail_expected(Parser *p, const char *expected)
{
    char buf[64], what[160];
    snprintf(what, sizeof what, "expected %s, found %s", expected,
             tok_desc(&p->tok, buf, sizeof buf));
    fail_at(p, p->tok.start, what, NULL);
}

static void
expect(Parser *p, TokKind k, const char *what)
{
    if (p->tok.kind != k) {
        fail_expected(p, what);
    }
    advance(p);
}

static int
tok_is(const Tok *t, const char *word)
{
    return t->kind == T_NAME && t->len == strlen(word) && memcmp(t->start, word, t->len) == 0;
}

static Type *parse_type(Parser *p);

/* args := [ type { ',' type } [ ',' ] ], up to `close` (T_RPAREN or T_END) */
static int
parse_args(Parser *p, TokKind close, Type ***out)
{
    Type **v = NULL;
    int n = 0, cap = 0;
    while (p->tok.kind != close) {
        Type *t = parse_type(p);
        v = (Type **)cj_vec_push(p->arena, (void **)v, &n, &cap, t);
        if (p->tok.kind != T_COMMA) {
            break;
        }
        advance(p);
    }
    if (p->tok.kind != close) {
        fail_expected(p, close == T_RPAREN ? "',' or ')'" : "',' or end of signature");
    }
    *out = v;
    return n;
}

/* dims := dim { ',' dim } ']'; '::1' on the last dim is C, on the first F */
static Type *
parse_dims(Parser *p, DType dt)
{
    int ndim = 0, first = 0, last = 0, ncontig = 0;
    const char *start = p->tok.start;
    for (;;) {
        const char *dim = p->tok.start;
        if (p->tok.kind == T_DCOLON1) {
            ncontig++;
            first |= ndim == 0;
            last = 1;
        } else if (p->tok.kind == T_COLON) {
            last = 0;
        } else {
            fail_expected(p, "':' or '::1' in an array spec");
        }
        ndim++;
        advance(p);
        if (p->tok.kind == T_COLON || p->tok.kind == T_BAD) {
            fail_at(p, dim, "a dimension is ':' or '::1' (no bounds or steps)", NULL);
        }
        if (p->tok.kind != T_COMMA) {
            break;
        }
        advance(p);
    }
    expect(p, T_RBRACK, "',' or ']'");
    if (ncontig > 1 || (ncontig == 1 && !first && !last)) {
        fail_at(p, start, "'::1' may only mark the last (C order) or first (F order) dimension",
                NULL);
    }
    return cj_array_type(p->arena, dt, ndim, last ? 'C' : first ? 'F' : 'A');
}

/* 'Tuple' '(' args ')' */
static Type *
parse_tuple(Parser *p)
{
    Type **el;
    advance(p);
    expect(p, T_LPAREN, "'(' after Tuple");
    p->depth++;
    int n = parse_args(p, T_RPAREN, &el);
    p->depth--;
    advance(p);
    return cj_tuple_type(p->arena, el, n);
}

/* dtype '*': a raw pointer (a jit.thrust pointer iterator's type), a
 * parameter of its own only */
static Type *
parse_pointer(Parser *p, DType dt)
{
    const char *at = p->tok.start;
    advance(p);
    if (p->depth > 0) {
        fail_at(p, at, "a tuple cannot hold a pointer", "pass the pointer as a parameter of "
                "its own");
    }
    if (p->tok.kind == T_STAR) {
        fail_at(p, p->tok.start, "a pointer to a pointer is not supported", NULL);
    }
    if (p->tok.kind == T_LBRACK) {
        fail_at(p, p->tok.start, "an array of pointers is not supported", NULL);
    }
    if (cj_is_record(dt)) {
        fail_at(p, at, "a pointer to a record is not supported", NULL);
    }
    return cj_iter_type(p->arena, dt, 'P');
}

/* vtype: a CUDA vector type (float32x4), of a device function's
 * signature; no array or pointer of one */
static Type *
parse_vector(Parser *p, DType dt, int lanes)
{
    advance(p);
    if (p->tok.kind == T_LBRACK || p->tok.kind == T_STAR) {
        fail_at(p, p->tok.start, "arrays of and pointers to CUDA vector types are not "
                "supported", "pass an array of numbers and make the vectors in the kernel");
    }
    return cj_vector_type(dt, lanes);
}

/* type := dtype [ '[' dims ']' | '*' ] | vtype | Tuple(...) */
static Type *
parse_type(Parser *p)
{
    DType dt;
    if (tok_is(&p->tok, "Tuple")) {
        return parse_tuple(p);
    }
    if (p->tok.kind != T_NAME) {
        fail_expected(p, "a type");
    }
    char *name = cj_strndup(p->arena, p->tok.start, p->tok.len);
    if (name[0] == '>' && !cj_dtype_from_name(name, &dt)) {
        fail_at(p, p->tok.start, "big-endian types are not supported", NULL);
    }
    int lanes;
    if (!cj_dtype_from_name(name, &dt) && cj_vector_from_name(name, &dt, &lanes)) {
        return parse_vector(p, dt, lanes);
    }
    if (!cj_dtype_from_name(name, &dt)) {
        char what[128];
        snprintf(what, sizeof what, "unknown type '%.60s'", name);
        fail_at(p, p->tok.start, what, "expected a dtype name like float32, int64 or <f4");
    }
    advance(p);
    if (p->tok.kind == T_STAR) {
        return parse_pointer(p, dt);
    }
    if (p->tok.kind != T_LBRACK) {
        return cj_elem_type(dt, 0);     /* a record: one, passed as its 0-d array */
    }
    advance(p);
    return parse_dims(p, dt);
}

/* the optional return type before '(': 'void' or a type */
static Type *
parse_ret(Parser *p)
{
    if (tok_is(&p->tok, "void")) {
        advance(p);
        if (p->tok.kind != T_LPAREN) {
            fail_expected(p, "'(' after void");
        }
        return cj_void();
    }
    return parse_type(p);
}

/* signature := '(' args ')' | type '(' args ')' | args */
static int
parse_signature(Parser *p, Type ***out, Type **ret)
{
    int n;
    if (p->tok.kind == T_LPAREN) {
        advance(p);
        n = parse_args(p, T_RPAREN, out);
        advance(p);
        expect(p, T_END, "end of signature");
        return n;
    }
    if (p->tok.kind == T_END) {
        *out = NULL;
        return 0;
    }
    Type *first = parse_ret(p);
    if (p->tok.kind == T_LPAREN) {
        *ret = first;
        advance(p);
        n = parse_args(p, T_RPAREN, out);
        advance(p);
        expect(p, T_END, "end of signature");
        return n;
    }
    Type **rest;
    int nrest = 0;
    if (p->tok.kind == T_COMMA) {
        advance(p);
        nrest = parse_args(p, T_END, &rest);
    } else if (p->tok.kind != T_END) {
        fail_expected(p, "',' or '('");
    }
    *out = cj_alloc(p->arena, sizeof(Type *) * (size_t)(nrest + 1));
    (*out)[0] = first;
    for (int i = 0; i < nrest; i++) {
        (*out)[i + 1] = rest[i];
    }
    return nrest + 1;
}

/* Parses a signature string; the return type (if any) goes to *ret. */
int
cj_parse_signature(Arena *a, const char *s, Type ***out, Type **ret, char *msg, size_t msglen)
{
    static char dummy[8];
    Parser p;
    memset(&p, 0, sizeof p);
    p.arena = a;
    p.src = s;
    p.cur = s;
    p.msg = msg ? msg : dummy;
    p.msglen = msg ? msglen : sizeof dummy;
    if (setjmp(p.jb)) {
        return -1;
    }
    advance(&p);
    p.nargs = parse_signature(&p, &p.args, &p.ret);
    *out = p.args;
    if (ret) {
        *ret = p.ret;
    }
    return p.nargs;
}
