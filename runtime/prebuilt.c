/* prebuilt.c - the prebuilt store: the stdlib's binaries, built at install
 * time (`python -m cujit prebuild`, cujit/_prebuild.py) into the installed
 * package, <package>/_prebuilt/<key>.cjc, in the disk cache's format.
 *
 * At run time a binary that the user's disk cache does not have is looked
 * up here before NVRTC runs (kernel.c).  Only sources that name a file of
 * the package in their #line marks are looked up: the stdlib's kernels.
 * Their key is the disk cache's (cujit version, NVRTC identity, arch, name,
 * options, source) over the source with the package's directory written
 * "<cujit>": the store is built from the build tree, before the package is
 * copied to site-packages, and the file names in #line marks and comments
 * are all that differ.  The
 * store is read as the package's code is: any owner, but magic, key, sizes
 * and checksum are checked.  CUJIT_NO_PREBUILT=1 turns it off; the package
 * sets where it is (_set_prebuilt, at import; CUJIT_PREBUILT_DIR for
 * another place).
 *
 * A prebuild process (CUJIT_PREBUILD_ARCH, the driver of nodriver.c) writes
 * every binary it compiles there, readable by every user. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_impl.h"

long long rt_prebuilt_hits;

static char *store_dir;         /* NULL: no store (none given, or turned off) */
static char *mark;              /* "<package dir>/", as #line marks and comments name
                                 * its files */

/* src with every `mark` written "<cujit>/", malloc'd; NULL when src has none */
static char *
portable(const char *src)
{
    size_t ml = strlen(mark), n = 0;
    for (const char *p = strstr(src, mark); p; p = strstr(p + ml, mark)) {
        n++;
    }
    if (!n) {
        return NULL;
    }
    static const char rep[] = "<cujit>/";
    char *out = malloc(strlen(src) + n * sizeof rep + 1), *o = out;
    if (!out) {
        return NULL;
    }
    for (const char *p = src, *q; (q = strstr(p, mark)) != NULL; p = q + ml) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, rep, sizeof rep - 1);
        o += sizeof rep - 1;
        src = q + ml;
    }
    strcpy(o, src);
    return out;
}

/* the portable key of src: 1, or 0 when src is no stdlib kernel or there is no store */
static int
portable_key(RtCacheKey *k, const char *src, const char *name, const char *key_extra,
             const char *const *opts, int nopts, const char *arch)
{
    if (!store_dir || !mark) {
        return 0;
    }
    char *p = portable(src);
    if (!p) {
        return 0;
    }
    rt_cache_key(k, p, name, key_extra, opts, nopts, arch);
    free(p);
    return 1;
}

int
rt_prebuilt_load(const char *src, const char *name, const char *key_extra,
                 const char *const *opts, int nopts, const char *arch, RtCompiled *out)
{
    RtCacheKey k;
    memset(out, 0, sizeof *out);
    if (!portable_key(&k, src, name, key_extra, opts, nopts, arch)
        || !rt_cache_load_any_owner(store_dir, &k, out)) {
        return 0;
    }
    rt_prebuilt_hits++;
    return 1;
}

void
rt_prebuilt_store(const char *src, const char *name, const char *key_extra,
                  const char *const *opts, int nopts, const char *arch, const RtCompiled *c)
{
    RtCacheKey k;
    const char *why = NULL;
    if (!rt_nodriver_arch() || !portable_key(&k, src, name, key_extra, opts, nopts, arch)) {
        return;
    }
    if (rt_cache_store_shared(store_dir, &k, c, &why) < 0) {
        fprintf(stderr, "cujit prebuild: cannot store kernel %s in %s: %s\n", name, store_dir,
                why ? why : "?");
    }
}

/* _set_prebuilt(store_dir | None, package_dir): where the store is and the
 * package directory its kernels' #line marks name (None: no store) */
PyObject *
rt_py_set_prebuilt(PyObject *self, PyObject *args)
{
    PyObject *dir_obj, *pkg_obj, *dir_b = NULL, *pkg_b = NULL;
    if (!PyArg_ParseTuple(args, "OO:_set_prebuilt", &dir_obj, &pkg_obj)) {
        return NULL;
    }
    if ((dir_obj != Py_None && !PyUnicode_FSConverter(dir_obj, &dir_b))
        || !PyUnicode_FSConverter(pkg_obj, &pkg_b)) {
        Py_XDECREF(dir_b);
        return NULL;
    }
    const char *pkg = PyBytes_AS_STRING(pkg_b);
    /* a path that #line would escape never matches: no store */
    int escaped = strpbrk(pkg, "\"\\") != NULL;
    free(store_dir);
    free(mark);
    store_dir = dir_b ? strdup(PyBytes_AS_STRING(dir_b)) : NULL;
    mark = escaped ? NULL : malloc(strlen(pkg) + 2);
    if (mark) {
        sprintf(mark, "%s/", pkg);
    }
    int oom = (dir_b && !store_dir) || (!escaped && !mark);
    Py_XDECREF(dir_b);
    Py_DECREF(pkg_b);
    if (oom) {
        return PyErr_NoMemory();
    }
    Py_RETURN_NONE;
}
