/* cache.c - the disk cache of compiled kernels.
 *
 * One file per kernel binary, named by its 128-bit key (cj_hash128 over
 * everything that changes the binary: cujit version, NVRTC identity,
 * arch, kernel name, key_extra, options and source):
 *
 *     $CUJIT_CACHE_DIR/<32 hex digits>.cjc  (default ~/.cache/cujit)
 *     header (CacheHeader) | cubin (cubin_size bytes) | PTX (ptx_size bytes, NUL last)
 *
 * Writers write a temp file in the same directory (unique: pid, time, counter)
 * and rename() it over the entry, which is atomic: concurrent processes that
 * compile the same kernel each install a complete file, the last one wins.
 * Readers do one open and one read, then check the magic, the format, the
 * header size, the key, the sizes against the file size, the PTX's final NUL
 * and a checksum over header and payload; anything else (truncated, torn,
 * corrupted, foreign) is a miss, recompiled and replaced.  CUJIT_CACHE=0
 * turns the cache off.
 *
 * Records (<key>.cjr) are small byte strings in the same format (the bytes
 * as the "cubin", no PTX): the pipeline's front-key index.  clear_cache()
 * removes them too.
 *
 * Safety (ARCHITECTURE.md, "the disk cache"): the directory is created 0700
 * (each missing component), files 0600.  A directory or an entry owned by
 * another user (than geteuid()), or writable by the group or the world, is
 * refused: never read, never written, a CUJIT_LOG line saying why; entries
 * are opened with O_NOFOLLOW and checked on the open descriptor.  When an
 * entry cannot be stored (a read-only or full disk, a refused directory),
 * one RuntimeWarning per process says so and that directory is not written
 * again: kernels compile in memory. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt_impl.h"

#define CACHE_MAGIC "CUJITC01"
#define CACHE_FORMAT 1u
#define CACHE_SUFFIX ".cjc"
#define RECORD_SUFFIX ".cjr"
#define CACHE_TMP_PREFIX ".cjtmp-"
#define CACHE_MAX_FILE (256u << 20)

typedef struct {
    char magic[8];          /* CACHE_MAGIC, no NUL */
    uint32_t format;        /* CACHE_FORMAT */
    uint32_t header_size;   /* sizeof(CacheHeader) */
    uint64_t key[2];
    uint64_t cubin_size;
    uint64_t ptx_size;      /* including the final NUL; 0 for none */
    uint64_t checksum;      /* of the header (this field 0) and the payload */
    char version[16];       /* CJ_VERSION, NUL-padded: for people reading files */
} CacheHeader;

long long rt_cache_hits, rt_cache_misses, rt_cache_rejected;

static char off_dir[4096];          /* a directory a store failed in: not written again */
static int warned;                  /* the one warning of a failed store was given */

static void
cache_log(const char *fmt, ...) CJ_PRINTF(1, 2);

/* a CUJIT_LOG line */
static void
cache_log(const char *fmt, ...)
{
    const char *v = getenv("CUJIT_LOG");
    if (!v || !v[0] || strcmp(v, "0") == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("cujit: disk cache: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* NULL when st (of a directory or an entry) may be trusted: ours, and
 * written by no one else; else why not, in buf */
static const char *
distrust(const struct stat *st, char *buf, size_t n)
{
    if (st->st_uid != geteuid()) {
        snprintf(buf, n, "owned by uid %ld, not by this user (uid %ld)", (long)st->st_uid,
                 (long)geteuid());
        return buf;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(buf, n, "writable by %s (mode %04o)",
                 (st->st_mode & S_IWOTH) ? "every user" : "its group",
                 (unsigned)(st->st_mode & 07777));
        return buf;
    }
    return NULL;
}

/* 1 when dir is a directory cujit may read and write; else 0, logged
 * (a missing directory is 0, not logged) */
static int
dir_trusted(const char *dir)
{
    struct stat st;
    char why[160];
    const char *w;
    if (stat(dir, &st) < 0) {
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        w = "not a directory";
    } else if (!(w = distrust(&st, why, sizeof why))) {
        return 1;
    }
    cache_log("directory %s refused: %s", dir, w);
    return 0;
}
/* a word-at-a-time checksum: the payload can be megabytes and is read on
 * every warm start, so faster than the byte-wise cj_hash64 */
static uint64_t
checksum(const unsigned char *p, size_t n, uint64_t h)
{
    const uint64_t m = 0x9e3779b97f4a7c15ULL;
    h ^= n * m;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w ^ n) * m;
    h ^= h >> 32;
    return h;
}

static uint64_t
entry_checksum(const CacheHeader *hdr, const unsigned char *payload, size_t n)
{
    CacheHeader h = *hdr;
    h.checksum = 0;
    return checksum(payload, n, checksum((const unsigned char *)&h, sizeof h, 0x63756a6974ULL));
}

void
rt_cache_key(RtCacheKey *k, const char *src, const char *name, const char *key_extra,
             const char *const *opts, int nopts, const char *arch)
{
    Buf b;
    buf_init(&b);
    buf_printf(&b, "cujit %s|format %u|%s|%s|%s|%s|%s", CJ_VERSION, CACHE_FORMAT,
               rt_nvrtc_identity(), rt_nvrtc_fixed_options(), arch, name,
               key_extra ? key_extra : "");
    for (int i = 0; i < nopts; i++) {
        buf_printf(&b, "|%s", opts[i]);
    }
    const char *const *eo;
    int ne = rt_nvrtc_env_options(&eo);
    for (int i = 0; i < ne; i++) {
        buf_printf(&b, "|%s", eo[i]);
    }
    buf_putc(&b, '\n');
    buf_puts(&b, src);
    cj_hash128(b.s, b.len, 0x6b65792d32ULL, k->h);
    buf_free(&b);
}

/* the directory named by CUJIT_CACHE_DIR or ~/.cache/cujit, whether or not
 * the cache is enabled; 0 if there is none */
static int
cache_dir_path(char *buf, size_t n)
{
    const char *d = getenv("CUJIT_CACHE_DIR");
    if (d && d[0]) {
        return snprintf(buf, n, "%s", d) < (int)n;
    }
    const char *home = getenv("HOME");
    if (!home || !home[0]) {
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    if (!home || !home[0]) {
        return 0;
    }
    return snprintf(buf, n, "%s/.cache/cujit", home) < (int)n;
}

int
rt_cache_dir(char *buf, size_t n)
{
    if (rt_env_off(getenv("CUJIT_CACHE"))) {
        return 0;
    }
    return cache_dir_path(buf, n);
}

static int
entry_path_ext(char *buf, size_t n, const char *dir, const RtCacheKey *k, const char *suffix)
{
    return snprintf(buf, n, "%s/%016llx%016llx%s", dir, (unsigned long long)k->h[0],
                    (unsigned long long)k->h[1], suffix) < (int)n;
}

static int
entry_path(char *buf, size_t n, const char *dir, const RtCacheKey *k)
{
    return entry_path_ext(buf, n, dir, k, CACHE_SUFFIX);
}

/* the whole file in one read; NULL if it cannot be had (*refused: it is
 * there but may not be trusted, logged; owners are checked when `owned`) */
static unsigned char *
read_file(const char *path, size_t *len, int *refused, int owned)
{
    struct stat st;
    char why[160];
    const char *w;
    *refused = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ELOOP) {
            *refused = 1;
            cache_log("entry %s refused: a symbolic link", path);
        }
        return NULL;
    }
    unsigned char *data = NULL;
    int ok = fstat(fd, &st) == 0;
    if (ok && owned && (w = distrust(&st, why, sizeof why)) != NULL) {
        *refused = 1;
        cache_log("entry %s refused: %s", path, w);
    } else if (ok && S_ISREG(st.st_mode) && st.st_size > 0
               && (uint64_t)st.st_size <= CACHE_MAX_FILE) {
        size_t want = (size_t)st.st_size, got = 0;
        data = malloc(want);
        while (data && got < want) {
            ssize_t r = read(fd, data + got, want - got);
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                break;
            }
            got += (size_t)r;
        }
        if (data && got != want) {
            free(data);
            data = NULL;
        }
        *len = want;
    }
    close(fd);
    return data;
}

/* 1 if data holds a sound entry for k */
static int
entry_ok(const unsigned char *data, size_t len, const RtCacheKey *k, CacheHeader *hdr)
{
    if (len < sizeof *hdr) {
        return 0;
    }
    memcpy(hdr, data, sizeof *hdr);
    if (memcmp(hdr->magic, CACHE_MAGIC, 8) != 0 || hdr->format != CACHE_FORMAT
        || hdr->header_size != sizeof *hdr || hdr->key[0] != k->h[0] || hdr->key[1] != k->h[1]) {
        return 0;
    }
    size_t payload = len - sizeof *hdr;
    if (hdr->cubin_size > payload || hdr->ptx_size != payload - hdr->cubin_size) {
        return 0;
    }
    if (hdr->cubin_size == 0 && hdr->ptx_size == 0) {
        return 0;
    }
    if (hdr->ptx_size && data[len - 1] != '\0') {
        return 0;
    }
    return entry_checksum(hdr, data + sizeof *hdr, payload) == hdr->checksum;
}

/* the entry k of dir into *out: 1, or 0 when there is none sound; `owned`:
 * dir and entry must be this user's (the disk cache), else any owner's (the
 * prebuilt store, as trusted as the package's code) */
static int
load_ext(const char *dir, const RtCacheKey *k, RtCompiled *out, const char *suffix, int owned)
{
    char path[4200];
    size_t len = 0;
    CacheHeader hdr;

    int refused;
    memset(out, 0, sizeof *out);
    if (!entry_path_ext(path, sizeof path, dir, k, suffix) || (owned && !dir_trusted(dir))) {
        return 0;
    }
    unsigned char *data = read_file(path, &len, &refused, owned);
    if (!data) {
        rt_cache_rejected += refused;
        return 0;
    }
    if (!entry_ok(data, len, k, &hdr)) {
        rt_cache_rejected++;
        free(data);
        return 0;
    }
    const unsigned char *payload = data + sizeof hdr;
    if (hdr.cubin_size) {
        out->cubin = malloc(hdr.cubin_size);
        if (out->cubin) {
            memcpy(out->cubin, payload, hdr.cubin_size);
            out->cubin_len = hdr.cubin_size;
        }
    }
    if (hdr.ptx_size) {
        out->ptx = malloc(hdr.ptx_size);
        if (out->ptx) {
            memcpy(out->ptx, payload + hdr.cubin_size, hdr.ptx_size);
            out->ptx_len = hdr.ptx_size - 1;
        }
    }
    free(data);
    if ((hdr.cubin_size && !out->cubin) || (hdr.ptx_size && !out->ptx)) {
        rt_compiled_free(out);
        return 0;
    }
    return 1;
}

int
rt_cache_load(const char *dir, const RtCacheKey *k, RtCompiled *out)
{
    return load_ext(dir, k, out, CACHE_SUFFIX, 1);
}

int
rt_cache_load_any_owner(const char *dir, const RtCacheKey *k, RtCompiled *out)
{
    return load_ext(dir, k, out, CACHE_SUFFIX, 0);
}

/* mkdir -p, each directory it makes `mode` (0700 for the disk cache) */
static int
make_dirs(const char *dir, mode_t mode)
{
    char p[4096];
    struct stat st;
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (stat(p, &st) == 0) {
        errno = ENOTDIR;
        return S_ISDIR(st.st_mode) ? 0 : -1;
    }
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, mode) < 0 && errno != EEXIST) {
                return -1;
            }
            *s = '/';
        }
    }
    if (mkdir(p, mode) < 0 && errno != EEXIST) {
        return -1;
    }
    return 0;
}

static int
write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            errno = r == 0 ? EIO : errno;       /* a write of nothing: never 0 for the caller */
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* "what (strerror(errno))", in a static buffer */
static const char *
errno_why(const char *what)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s (%s)", what, strerror(errno));
    return buf;
}

/* stores c as dir's entry k; `shared`: directories 0755 and the file 0644
 * (the prebuilt store, read by every user of the package), else 0700 / 0600 */
static int
store_ext(const char *dir, const RtCacheKey *k, const RtCompiled *c, const char **why,
          const char *suffix, int shared)
{
    static unsigned counter;
    char path[4200], tmp[4300];
    CacheHeader hdr;
    const char *dummy;
    int fd = -1;

    why = why ? why : &dummy;
    *why = NULL;
    size_t ptx_size = c->ptx ? c->ptx_len + 1 : 0;
    if (!c->cubin_len && !ptx_size) {
        *why = "nothing to store";
        return -1;
    }
    if (!entry_path_ext(path, sizeof path, dir, k, suffix)) {
        *why = "the cache directory's path is too long";
        return -1;
    }
    if (make_dirs(dir, shared ? 0755 : 0700) < 0) {
        *why = errno_why("cannot create the cache directory");
        return -1;
    }
    if (!dir_trusted(dir)) {
        *why = "the cache directory is refused (CUJIT_LOG=1 says why)";
        return -1;
    }
    memset(&hdr, 0, sizeof hdr);
    memcpy(hdr.magic, CACHE_MAGIC, 8);
    hdr.format = CACHE_FORMAT;
    hdr.header_size = sizeof hdr;
    hdr.key[0] = k->h[0];
    hdr.key[1] = k->h[1];
    hdr.cubin_size = c->cubin_len;
    hdr.ptx_size = ptx_size;
    snprintf(hdr.version, sizeof hdr.version, "%s", CJ_VERSION);

    size_t total = sizeof hdr + c->cubin_len + ptx_size;
    unsigned char *data = malloc(total);
    if (!data) {
        *why = "out of memory";
        return -1;
    }
    if (c->cubin_len) {
        memcpy(data + sizeof hdr, c->cubin, c->cubin_len);
    }
    if (ptx_size) {
        memcpy(data + sizeof hdr + c->cubin_len, c->ptx, c->ptx_len);
        data[total - 1] = '\0';
    }
    hdr.checksum = entry_checksum(&hdr, data + sizeof hdr, total - sizeof hdr);
    memcpy(data, &hdr, sizeof hdr);

    for (int attempt = 0; fd < 0 && attempt < 8; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long r = (unsigned long long)ts.tv_nsec * 2654435761u
                               ^ ((unsigned long long)++counter << 32) ^ (uintptr_t)data;
        snprintf(tmp, sizeof tmp, "%s/" CACHE_TMP_PREFIX "%016llx-%ld-%llx.tmp", dir,
                 (unsigned long long)k->h[0], (long)getpid(), r);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0 && shared && fchmod(fd, 0644) < 0) {
            close(fd);
            unlink(tmp);
            fd = -1;
            break;
        }
        if (fd < 0 && errno != EEXIST) {
            break;
        }
    }
    if (fd < 0) {
        free(data);
        *why = errno_why("cannot create a file in the cache directory");
        return -1;
    }
    int err = write_all(fd, data, total) < 0 ? errno : 0;
    if (close(fd) < 0 && !err) {
        err = errno;
    }
    free(data);
    if (err || rename(tmp, path) < 0) {
        int rename_err = errno;
        unlink(tmp);
        errno = err ? err : rename_err;
        *why = errno_why(err ? "cannot write the cache file" : "cannot rename the cache file");
        return -1;
    }
    return 0;
}

/* store_ext, except in a directory a store failed in before; the first
 * failure of the process gives the one warning */
static int
guarded_store(const char *dir, const RtCacheKey *k, const RtCompiled *c, const char **why,
              const char *suffix)
{
    const char *dummy;
    why = why ? why : &dummy;
    if (off_dir[0] && strcmp(dir, off_dir) == 0) {
        *why = "not written: a store failed there before";
        return -1;
    }
    if (store_ext(dir, k, c, why, suffix, 0) == 0) {
        return 0;
    }
    snprintf(off_dir, sizeof off_dir, "%s", dir);
    cache_log("cannot store in %s: %s; kernels compile in memory", dir, *why);
    if (!warned) {
        warned = 1;
        if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                             "cujit: the kernel cache %s cannot be written: %s. Kernels are "
                             "compiled in memory for the rest of this process (CUJIT_CACHE_DIR "
                             "chooses another directory, CUJIT_CACHE=0 turns the cache off)",
                             dir, *why) < 0) {
            PyErr_WriteUnraisable(NULL);        /* -W error: said, not raised (no caller can) */
        }
    }
    return -1;
}

int
rt_cache_store(const char *dir, const RtCacheKey *k, const RtCompiled *c, const char **why)
{
    return guarded_store(dir, k, c, why, CACHE_SUFFIX);
}

int
rt_cache_store_shared(const char *dir, const RtCacheKey *k, const RtCompiled *c,
                      const char **why)
{
    return store_ext(dir, k, c, why, CACHE_SUFFIX, 1);
}

/* ---- records: small byte strings stored as entries with no PTX ---- */

int
rt_record_load(const uint64_t key[2], char **data, size_t *len)
{
    char dir[4096];
    RtCacheKey k = {{key[0], key[1]}};
    RtCompiled c;
    *data = NULL;
    *len = 0;
    if (!rt_cache_dir(dir, sizeof dir) || !load_ext(dir, &k, &c, RECORD_SUFFIX, 1)) {
        return 0;
    }
    if (c.ptx) {                    /* a record has no PTX part */
        rt_compiled_free(&c);
        return 0;
    }
    *data = c.cubin;
    *len = c.cubin_len;
    return 1;
}

int
rt_record_store(const uint64_t key[2], const char *data, size_t len)
{
    char dir[4096];
    RtCacheKey k = {{key[0], key[1]}};
    RtCompiled c;
    if (!rt_cache_dir(dir, sizeof dir)) {
        return -1;
    }
    memset(&c, 0, sizeof c);
    c.cubin = (char *)data;
    c.cubin_len = len;
    return guarded_store(dir, &k, &c, NULL, RECORD_SUFFIX);
}

static int
has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static int
is_cache_file(const char *name, int with_tmp)
{
    if (with_tmp && strncmp(name, CACHE_TMP_PREFIX, strlen(CACHE_TMP_PREFIX)) == 0) {
        return 1;
    }
    /* records are not counted as entries, and cleared with them */
    return name[0] != '.'
           && (has_suffix(name, CACHE_SUFFIX) || (with_tmp && has_suffix(name, RECORD_SUFFIX)));
}

/* ---- Python functions ---- */

/* cache_info() -> dict(dir, enabled, entries, bytes, hits, misses, rejected,
 * prebuilt_hits) */
PyObject *
rt_py_cache_info(PyObject *self, PyObject *noargs)
{
    char dir[4096];
    long long entries = 0, bytes = 0;
    int have = cache_dir_path(dir, sizeof dir);
    int enabled = have && !rt_env_off(getenv("CUJIT_CACHE"));
    DIR *d = have ? opendir(dir) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char p[8300];
            struct stat st;
            if (!is_cache_file(e->d_name, 0)) {
                continue;
            }
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                entries++;
                bytes += st.st_size;
            }
        }
        closedir(d);
    }
    return Py_BuildValue("{s:N,s:O,s:L,s:L,s:L,s:L,s:L,s:L}", "dir",
                         have ? PyUnicode_DecodeFSDefault(dir) : Py_NewRef(Py_None), "enabled",
                         enabled ? Py_True : Py_False, "entries", entries, "bytes", bytes, "hits",
                         rt_cache_hits, "misses", rt_cache_misses, "rejected", rt_cache_rejected,
                         "prebuilt_hits", rt_prebuilt_hits);
}

/* clear_cache() -> number of files removed (cujit's entries and temp files) */
PyObject *
rt_py_clear_cache(PyObject *self, PyObject *noargs)
{
    char dir[4096];
    long removed = 0;
    DIR *d = cache_dir_path(dir, sizeof dir) ? opendir(dir) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char p[8300];
            if (is_cache_file(e->d_name, 1)) {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                removed += unlink(p) == 0;
            }
        }
        closedir(d);
    }
    return PyLong_FromLong(removed);
}

static int
parse_key(const char *hex, RtCacheKey *k)
{
    unsigned long long a, b;
    char tail;
    if (strlen(hex) != 32 || sscanf(hex, "%16llx%16llx%c", &a, &b, &tail) != 2) {
        PyErr_SetString(PyExc_ValueError, "a cache key is 32 hex digits");
        return -1;
    }
    k->h[0] = a;
    k->h[1] = b;
    return 0;
}

/* _cache_key(src, name, key_extra="", arch="sm_90", options=()) -> 32 hex digits */
PyObject *
rt_py_cache_key(PyObject *self, PyObject *args)
{
    const char *src, *name, *extra = "", *arch = "sm_90";
    PyObject *options = NULL, *seq = NULL;
    const char *opts[48];
    Py_ssize_t n = 0;
    RtCacheKey k;

    if (!PyArg_ParseTuple(args, "ss|ssO:_cache_key", &src, &name, &extra, &arch, &options)) {
        return NULL;
    }
    if (options) {
        seq = PySequence_Fast(options, "options must be a sequence of str");
        if (!seq) {
            return NULL;
        }
        n = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < n && i < 48; i++) {
            opts[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
            if (!opts[i]) {
                Py_DECREF(seq);
                return NULL;
            }
        }
    }
    rt_cache_key(&k, src, name, extra, opts, (int)(n < 48 ? n : 48), arch);
    Py_XDECREF(seq);
    char hex[40];
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)k.h[0],
             (unsigned long long)k.h[1]);
    return PyUnicode_FromString(hex);
}

/* _cache_store(dir, key, cubin: bytes | None, ptx: str | None) -> the entry's path */
PyObject *
rt_py_cache_store(PyObject *self, PyObject *args)
{
    const char *dir, *hex, *why = NULL;
    Py_buffer cubin = {0};
    const char *ptx = NULL;
    Py_ssize_t ptx_len = 0;
    RtCacheKey k;
    RtCompiled c;
    char path[4200];

    if (!PyArg_ParseTuple(args, "ssz*z#:_cache_store", &dir, &hex, &cubin, &ptx, &ptx_len)) {
        return NULL;
    }
    if (parse_key(hex, &k) < 0) {
        PyBuffer_Release(&cubin);
        return NULL;
    }
    memset(&c, 0, sizeof c);
    c.cubin = cubin.buf;
    c.cubin_len = cubin.buf ? (size_t)cubin.len : 0;
    c.ptx = (char *)ptx;
    c.ptx_len = (size_t)ptx_len;
    int r = store_ext(dir, &k, &c, &why, CACHE_SUFFIX, 0);  /* no warning: it raises */
    PyBuffer_Release(&cubin);
    if (r < 0) {
        PyErr_Format(PyExc_OSError, "cache store failed: %s", why);
        return NULL;
    }
    entry_path(path, sizeof path, dir, &k);
    return PyUnicode_DecodeFSDefault(path);
}

/* _cache_load(dir, key) -> (cubin: bytes | None, ptx: str | None), or None */
PyObject *
rt_py_cache_load(PyObject *self, PyObject *args)
{
    const char *dir, *hex;
    RtCacheKey k;
    RtCompiled c;
    PyObject *cubin, *ptx;

    if (!PyArg_ParseTuple(args, "ss:_cache_load", &dir, &hex) || parse_key(hex, &k) < 0) {
        return NULL;
    }
    if (!rt_cache_load(dir, &k, &c)) {
        Py_RETURN_NONE;
    }
    cubin = c.cubin ? PyBytes_FromStringAndSize(c.cubin, (Py_ssize_t)c.cubin_len)
                    : Py_NewRef(Py_None);
    ptx = c.ptx ? PyUnicode_DecodeUTF8(c.ptx, (Py_ssize_t)c.ptx_len, "replace")
                : Py_NewRef(Py_None);
    rt_compiled_free(&c);
    if (!cubin || !ptx) {
        Py_XDECREF(cubin);
        Py_XDECREF(ptx);
        return NULL;
    }
    return Py_BuildValue("(NN)", cubin, ptx);
}
