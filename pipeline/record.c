/* record.c - a PlCompiled as bytes, for the disk cache's front-key index
 * (rt_record_store / rt_record_load keep and check them):
 *
 *     record = "CJFR2" int* src kname sig callees msgs
 *     int    = 8 bytes, little-endian two's complement
 *     str    = int length (-1: NULL), then the bytes
 *
 * The CUDA C++ travels in the record, so a hit needs no codegen for any
 * device, inspect_cuda() still answers, and a binary missing from the cache
 * (another arch, a cleared entry) is compiled from it by NVRTC. */
#include "pl_impl.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_MAGIC "CJFR2"

static void
put_int(Buf *b, int64_t v)
{
    unsigned char w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (unsigned char)((uint64_t)v >> (8 * i));
    }
    buf_putmem(b, w, 8);
}

static void
put_str(Buf *b, const char *s)
{
    put_int(b, s ? (int64_t)strlen(s) : -1);
    if (s) {
        buf_putmem(b, s, strlen(s));
    }
}

/* the numbers of c, in one order for both directions */
#define NINTS (11 + PL_MAXOUT + PL_MAXIN)

static void
ints_of(const PlCompiled *c, int64_t *v)
{
    int n = 0;
    v[n++] = c->nmsgs;
    v[n++] = c->check_errors;
    v[n++] = c->has_dynshared;
    v[n++] = c->has_print;
    v[n++] = c->coarse_vec;
    v[n++] = (int64_t)c->coarse_mask;
    v[n++] = c->nout;
    v[n++] = c->acc_size;
    v[n++] = c->fast_compile;
    v[n++] = c->cooperative;
    v[n++] = PL_MAXOUT * 1000 + PL_MAXIN;   /* the layout of what follows */
    for (int i = 0; i < PL_MAXOUT; i++) {
        v[n++] = c->out[i];
    }
    for (int i = 0; i < PL_MAXIN; i++) {
        v[n++] = c->weak_to[i];
    }
}

static int
set_ints(PlCompiled *c, const int64_t *v)
{
    int n = 0;
    c->nmsgs = 0;                       /* counted as the messages are read */
    n++;
    c->check_errors = (int)v[n++];
    c->has_dynshared = (int)v[n++];
    c->has_print = (int)v[n++];
    c->coarse_vec = (int)v[n++];
    c->coarse_mask = (uint64_t)v[n++];
    c->nout = (int)v[n++];
    c->acc_size = (int)v[n++];
    c->fast_compile = (int)v[n++];
    c->cooperative = (int)v[n++];
    if (v[n++] != PL_MAXOUT * 1000 + PL_MAXIN || c->nout < 0 || c->nout > PL_MAXOUT) {
        return -1;
    }
    for (int i = 0; i < PL_MAXOUT; i++) {
        c->out[i] = (DType)v[n++];
    }
    for (int i = 0; i < PL_MAXIN; i++) {
        c->weak_to[i] = (uint32_t)v[n++];
    }
    return 0;
}

int
pl_record_encode(const PlCompiled *c, char **data, size_t *len)
{
    Buf b;
    int64_t v[NINTS];
    buf_init(&b);
    buf_puts(&b, RECORD_MAGIC);
    ints_of(c, v);
    for (int i = 0; i < NINTS; i++) {
        put_int(&b, v[i]);
    }
    put_str(&b, c->src);
    put_str(&b, c->kname);
    put_str(&b, c->sig);
    put_str(&b, c->callees);
    for (int i = 0; i < c->nmsgs; i++) {
        put_str(&b, c->msgs[i]);
    }
    *len = b.len;
    *data = buf_steal(&b);
    return *data ? 0 : -1;
}

/* ---- reading, every length checked against what is left ---- */

typedef struct {
    const unsigned char *p;
    size_t left;
} Reader;

static int
get_int(Reader *r, int64_t *v)
{
    if (r->left < 8) {
        return -1;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) {
        u |= (uint64_t)r->p[i] << (8 * i);
    }
    *v = (int64_t)u;
    r->p += 8;
    r->left -= 8;
    return 0;
}

/* *s: malloc'd or NULL (a NULL string); -1 malformed or no memory */
static int
get_str(Reader *r, char **s)
{
    int64_t n;
    *s = NULL;
    if (get_int(r, &n) < 0 || n < -1 || (n >= 0 && (uint64_t)n > r->left)) {
        return -1;
    }
    if (n < 0) {
        return 0;
    }
    if (!(*s = malloc((size_t)n + 1))) {
        return -1;
    }
    memcpy(*s, r->p, (size_t)n);
    (*s)[n] = '\0';
    r->p += n;
    r->left -= (size_t)n;
    return 0;
}

static int
decode(Reader *r, PlCompiled *c)
{
    int64_t v[NINTS];
    size_t m = strlen(RECORD_MAGIC);
    if (r->left < m || memcmp(r->p, RECORD_MAGIC, m) != 0) {
        return -1;
    }
    r->p += m;
    r->left -= m;
    for (int i = 0; i < NINTS; i++) {
        if (get_int(r, &v[i]) < 0) {
            return -1;
        }
    }
    if (set_ints(c, v) < 0 || v[0] < 0 || v[0] > 1 << 20 || get_str(r, &c->src) < 0
        || get_str(r, &c->kname) < 0 || get_str(r, &c->sig) < 0
        || get_str(r, &c->callees) < 0
        || !(c->msgs = calloc((size_t)v[0] + 1, sizeof(char *)))) {
        return -1;
    }
    for (int i = 0; i < v[0]; i++) {
        if (get_str(r, &c->msgs[i]) < 0 || !c->msgs[i]) {
            return -1;
        }
        c->nmsgs = i + 1;
    }
    return r->left == 0 ? 0 : -1;
}

int
pl_record_decode(const char *data, size_t len, PlCompiled *c)
{
    Reader r = {(const unsigned char *)data, len};
    memset(c, 0, sizeof *c);
    if (decode(&r, c) < 0) {
        pl_compiled_free(c);
        memset(c, 0, sizeof *c);
        return -1;
    }
    return 0;
}
