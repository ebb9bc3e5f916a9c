/* fakefs.c - an LD_PRELOAD library that makes the file system misbehave for
 * the disk cache's tests (tests/test_cache_safety.py), where neither root
 * (to chown files to another user) nor a small or read-only mount can be
 * had.  It changes nothing in cujit; each switch is an environment variable:
 *   FAKEFS_EUID=n        geteuid() returns n: every file this user made looks
 *                        owned by another user
 *   FAKEFS_EROFS=dir     mkdir, and open for writing, under dir fail with EROFS
 *   FAKEFS_ENOSPC=dir    write() to a file opened for writing under dir fails
 *                        with ENOSPC (a full disk)
 * Everything else goes to the C library as it is. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAXFD 4096

static unsigned char full[MAXFD];       /* fds whose writes fail with ENOSPC */

/* 1 when path lies under the folder the variable `env` names */
static int
under(const char *env, const char *path)
{
    const char *d = getenv(env);
    size_t n = d ? strlen(d) : 0;
    return n && path && strncmp(path, d, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

uid_t
geteuid(void)
{
    static uid_t (*real)(void);
    const char *v = getenv("FAKEFS_EUID");
    if (v) {
        return (uid_t)atol(v);
    }
    if (!real) {
        *(void **)&real = dlsym(RTLD_NEXT, "geteuid");
    }
    return real();
}

int
mkdir(const char *path, mode_t mode)
{
    static int (*real)(const char *, mode_t);
    if (under("FAKEFS_EROFS", path)) {
        struct stat st;
        if (stat(path, &st) == 0) {
            errno = EEXIST;
        } else {
            errno = EROFS;
        }
        return -1;
    }
    if (!real) {
        *(void **)&real = dlsym(RTLD_NEXT, "mkdir");
    }
    return real(path, mode);
}

static int
do_open(const char *sym, const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...);
    int writing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT);
    if (writing && under("FAKEFS_EROFS", path)) {
        errno = EROFS;
        return -1;
    }
    *(void **)&real = dlsym(RTLD_NEXT, sym);
    int fd = real(path, flags, mode);
    if (fd >= 0 && fd < MAXFD) {
        full[fd] = writing && under("FAKEFS_ENOSPC", path);
    }
    return fd;
}

int
open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    return do_open("open", path, flags, mode);
}

int
open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    return do_open("open64", path, flags, mode);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (fd >= 0 && fd < MAXFD && full[fd]) {
        errno = ENOSPC;
        return -1;
    }
    if (!real) {
        *(void **)&real = dlsym(RTLD_NEXT, "write");
    }
    return real(fd, buf, n);
}

int
close(int fd)
{
    static int (*real)(int);
    if (fd >= 0 && fd < MAXFD) {
        full[fd] = 0;
    }
    if (!real) {
        *(void **)&real = dlsym(RTLD_NEXT, "close");
    }
    return real(fd);
}
