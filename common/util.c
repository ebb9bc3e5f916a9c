/* util.c - arena, text buffer, diagnostics, hashing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cj.h"

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    max_align_t data[];
};

void
cj_arena_init(Arena *a)
{
    a->head = NULL;
}

void
cj_arena_free(Arena *a)
{
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

static void
out_of_memory(void)
{
    fputs("cujit: out of memory\n", stderr);
    abort();
}

void *
cj_alloc(Arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    ArenaBlock *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > 32768 ? n : 32768;
        b = malloc(sizeof(ArenaBlock) + cap);
        if (!b) {
            out_of_memory();
        }
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *
cj_strndup(Arena *a, const char *s, size_t n)
{
    char *p = cj_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
cj_strdup(Arena *a, const char *s)
{
    return cj_strndup(a, s, strlen(s));
}

char *
cj_aprintf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = cj_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void **
cj_vec_push(Arena *a, void **v, int *n, int *cap, void *x)
{
    if (*n == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        void **nv = cj_alloc(a, sizeof(void *) * (size_t)ncap);
        if (*n) {
            memcpy(nv, v, sizeof(void *) * (size_t)*n);
        }
        v = nv;
        *cap = ncap;
    }
    v[(*n)++] = x;
    return v;
}

/* ---- Buf ---- */

void
buf_init(Buf *b)
{
    b->s = NULL;
    b->len = b->cap = 0;
    b->indent = 0;
}

void
buf_free(Buf *b)
{
    free(b->s);
    buf_init(b);
}

static void
buf_reserve(Buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) {
        return;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        out_of_memory();
    }
    b->s = s;
    b->cap = cap;
}

void
buf_putc(Buf *b, char c)
{
    buf_reserve(b, 1);
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

void
buf_puts(Buf *b, const char *s)
{
    size_t n = strlen(s);
    buf_reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void
buf_putmem(Buf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void
buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    buf_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

void
buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void
buf_indent(Buf *b)
{
    for (int i = 0; i < b->indent; i++) {
        buf_puts(b, "    ");
    }
}

char *
buf_steal(Buf *b)
{
    char *s = b->s;
    if (!s) {
        s = malloc(1);
        if (!s) {
            out_of_memory();
        }
        s[0] = '\0';
    }
    buf_init(b);
    return s;
}

/* ---- diagnostics ---- */

void
cj_fail(CjTry *t, const char *file, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->err.msg, sizeof t->err.msg, fmt, ap);
    va_end(ap);
    t->err.file = file;
    t->err.loc = loc;
    t->err.kind = CE_COMPILE;
    t->err.internal = 0;
    longjmp(t->jb, 1);
}

void
cj_unreachable_at(CjTry *t, const char *what, const char *cfile, int cline)
{
    snprintf(t->err.msg, sizeof t->err.msg,
             "internal error in cujit (%s at %s:%d); please report it", what, cfile, cline);
    t->err.internal = 1;
    longjmp(t->jb, 1);
}

/* ---- hashing: FNV-1a 64 then a final mix ---- */

/* two 64-bit lanes over 8-byte words (multiply, xor-shift), each finished
 * with the murmur3 mix: a quarter of FNV's instructions on the kilobytes of
 * CUDA text and front keys hashed at every first call */
static uint64_t
fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

void
cj_hash128(const void *data, size_t n, uint64_t seed, uint64_t out[2])
{
    const unsigned char *p = data;
    const uint64_t m1 = 0x9e3779b97f4a7c15ULL, m2 = 0xc2b2ae3d27d4eb4fULL;
    uint64_t a = seed ^ (n * m1), b = ~seed ^ (n * m2), w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        a = (a ^ w) * m1;
        a ^= a >> 29;
        b = (b + w) * m2;
        b ^= b >> 31;
    }
    w = 0;
    memcpy(&w, p, n);
    w ^= (uint64_t)n << 56;
    a = (a ^ w) * m1;
    b = (b + w) * m2;
    out[0] = fmix64(a ^ (b >> 17));
    out[1] = fmix64(b ^ (a << 13));
}

uint64_t
cj_hash64(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* C++ keywords and names the generated code or CUDA already owns */
static const char *const reserved[] = {
    "alignas", "alignof", "asm", "auto", "bool", "case", "catch", "char", "char16_t",
    "char32_t", "char8_t", "const", "const_cast", "constexpr", "consteval", "constinit",
    "decltype", "default", "delete", "do", "double", "dynamic_cast", "enum", "explicit",
    "export", "extern", "false", "float", "friend", "goto", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private",
    "protected", "public", "register", "reinterpret_cast", "requires", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
    "this", "thread_local", "throw", "true", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "and", "and_eq",
    "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "printf", "main",
    "min", "max", "abs", "sqrt", "exp", "log", "pow", "sin", "cos", "tan", "floor",
    "ceil", "round", "trunc", "fabs", "fmod", "isnan", "isinf", "isfinite", "signbit",
    "NULL", "assert", "half", "__half", "std", "cuda", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "float2",
    "double2", "dim3", "erf", "erfc", "tgamma", "lgamma", "hypot", "atan2", "copysign",
    NULL,
};

int
cj_is_cpp_reserved(const char *name)
{
    if (strncmp(name, "cj_", 3) == 0 || strncmp(name, "__", 2) == 0) {
        return 1;
    }
    for (int i = 0; reserved[i]; i++) {
        if (strcmp(reserved[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}
