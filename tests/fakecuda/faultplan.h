/* faultplan.h - the fault plan shared by the fake libcuda (fakecuda.c) and
 * the NVRTC shim (fakenvrtc.c), included once by each.
 *
 * Every entry point of the library that opens with FAULT() counts its calls
 * and can be told to fail one of them:
 *   fake_fault_set(name, k, result)   the k-th call of `name` from now returns
 *                                     `result` (a CUresult / nvrtcResult),
 *                                     once, doing nothing else; k = 0 disarms
 *   fake_fault_set_n(name, k, result, times)   calls k .. k + times - 1 fail
 *   fake_fault_calls(name)            its calls so far
 *   fake_fault_count(), fake_fault_name(i)   the entry points called so far
 *   fake_faults_fired                 how many faults fired
 * FAKECUDA_FAULT="name:k:result[:times][,...]" arms faults counted from
 * the process's start (each library takes the names it has).  Counting is
 * not thread-safe: fault tests keep NVRTC's preload thread off. */
#ifndef FAULTPLAN_H
#define FAULTPLAN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXPOINTS 96

typedef struct {
    const char *name;
    long long calls;
    long long fail_at;          /* the first call number that fails; 0: none */
    long long fail_last;        /* the last one */
    int result;
} Point;

static Point points[MAXPOINTS];
static int npoints;
static int env_read;
long long fake_faults_fired;

static int
point_index(const char *name)
{
    for (int i = 0; i < npoints; i++) {
        if (strcmp(points[i].name, name) == 0) {
            return i;
        }
    }
    if (npoints == MAXPOINTS) {
        abort();
    }
    points[npoints].name = strdup(name);
    return npoints++;
}

static void
set_fault(const char *name, long long k, int result, long long times)
{
    Point *p = &points[point_index(name)];
    p->fail_at = k > 0 ? p->calls + k : 0;
    p->fail_last = p->fail_at + (times > 1 ? times : 1) - 1;
    p->result = result;
}

static void read_env_plan(void);

int
fake_fault_set(const char *name, long long k, int result)
{
    if (!env_read) {
        read_env_plan();
    }
    set_fault(name, k, result, 1);
    return 0;
}

int
fake_fault_set_n(const char *name, long long k, int result, long long times)
{
    if (!env_read) {
        read_env_plan();
    }
    set_fault(name, k, result, times);
    return 0;
}

long long
fake_fault_calls(const char *name)
{
    return points[point_index(name)].calls;
}

/* the entry points called at least once: fake_fault_name(0 .. count-1) */
int
fake_fault_count(void)
{
    int n = 0;
    for (int i = 0; i < npoints; i++) {
        n += points[i].calls > 0;
    }
    return n;
}

const char *
fake_fault_name(int i)
{
    for (int j = 0; j < npoints; j++) {
        if (points[j].calls > 0 && i-- == 0) {
            return points[j].name;
        }
    }
    return NULL;
}

/* FAKECUDA_FAULT="name:k:result,..." */
static void
read_env_plan(void)
{
    char buf[1024], *save = NULL;
    const char *v = getenv("FAKECUDA_FAULT");
    env_read = 1;
    if (!v) {
        return;
    }
    snprintf(buf, sizeof buf, "%s", v);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *c1 = strchr(t, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
        if (c2) {
            *c1 = *c2 = '\0';
            set_fault(t, atoll(c1 + 1), atoi(c2 + 1), c3 ? atoll(c3 + 1) : 1);
        }
    }
}

/* counts a call of `name` (its point cached in *slot); the result to fail
 * it with, or 0 */
static int
fault_check(const char *name, int *slot)
{
    if (!env_read) {
        read_env_plan();
    }
    if (*slot < 0) {
        *slot = point_index(name);
    }
    Point *p = &points[*slot];
    ++p->calls;
    if (!p->fail_at || p->calls < p->fail_at || p->calls > p->fail_last) {
        return 0;
    }
    if (p->calls == p->fail_last) {
        p->fail_at = 0;
    }
    fake_faults_fired++;
    return p->result;
}

#define FAULT() \
    do { \
        static int slot_ = -1; \
        int fr_ = fault_check(__func__, &slot_); \
        if (fr_) { \
            return fr_; \
        } \
    } while (0)

#endif
