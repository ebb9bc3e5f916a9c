/* shape.c - shape arithmetic for the forms' launches (see shape.h). */
#include <string.h>

#include "shape.h"

void
rt_broadcast_strides(const RtArray *a, int ndim, const int64_t *shape, int64_t *out)
{
    int off = ndim - a->ndim;
    for (int d = 0; d < ndim; d++) {
        int k = d - off;
        out[d] = (k < 0 || (a->shape[k] == 1 && shape[d] != 1)) ? 0 : a->strides[k];
    }
}

int
rt_collapse_dims(int ndim, int64_t *shape, int64_t st[][RT_MAXDIM], int nops)
{
    int nd = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 1) {
            continue;
        }
        int merge = nd > 0;
        for (int k = 0; k < nops && merge; k++) {
            merge = st[k][nd - 1] == st[k][d] * shape[d];
        }
        if (merge) {
            shape[nd - 1] *= shape[d];
            for (int k = 0; k < nops; k++) {
                st[k][nd - 1] = st[k][d];
            }
            continue;
        }
        shape[nd] = shape[d];
        for (int k = 0; k < nops; k++) {
            st[k][nd] = st[k][d];
        }
        nd++;
    }
    if (nd == 0) {
        shape[0] = 1;
        for (int k = 0; k < nops; k++) {
            st[k][0] = 0;
        }
        nd = 1;
    }
    return nd;
}

void
rt_group_dims(const RtArray *a, const int *red, int *nkeep, int *nred, int64_t *shape,
              int64_t *strides)
{
    int64_t st[1][RT_MAXDIM];
    int64_t ks[RT_MAXDIM], rs[RT_MAXDIM];
    int nk = 0, nr = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (red[d]) {
            rs[nr] = a->shape[d];
            st[0][nr++] = a->strides[d];
        }
    }
    /* reduced group */
    int64_t rst[1][RT_MAXDIM];
    memcpy(rst[0], st[0], sizeof(int64_t) * (size_t)nr);
    int ndr = nr ? rt_collapse_dims(nr, rs, rst, 1) : 0;
    if (nr && ndr == 1 && rs[0] == 1) {
        ndr = 0;
    }
    for (int d = 0; d < a->ndim; d++) {
        if (!red[d]) {
            ks[nk] = a->shape[d];
            st[0][nk++] = a->strides[d];
        }
    }
    int ndk = nk ? rt_collapse_dims(nk, ks, st, 1) : 0;
    if (nk && ndk == 1 && ks[0] == 1) {
        ndk = 0;
    }
    for (int d = 0; d < ndk; d++) {
        shape[d] = ks[d];
        strides[d] = st[0][d];
    }
    for (int d = 0; d < ndr; d++) {
        shape[ndk + d] = rs[d];
        strides[ndk + d] = rst[0][d];
    }
    *nkeep = ndk;
    *nred = ndr;
}

/* one group (kept or reduced) of dimensions, merged: its extents into
 * gshape, its strides into gst; the group's rank */
static int
group_n(int ndim, const int64_t *shape, int64_t st[][RT_MAXDIM], int nops, const int *red,
        int want, int64_t *gshape, int64_t gst[][RT_MAXDIM])
{
    int n = 0;
    for (int d = 0; d < ndim; d++) {
        if (!red[d] == !want) {
            gshape[n] = shape[d];
            for (int k = 0; k < nops; k++) {
                gst[k][n] = st[k][d];
            }
            n++;
        }
    }
    n = n ? rt_collapse_dims(n, gshape, gst, nops) : 0;
    return n == 1 && gshape[0] == 1 ? 0 : n;
}

void
rt_group_dims_n(int ndim, const int64_t *shape, int64_t st[][RT_MAXDIM], int nops,
                const int *red, int *nkeep, int *nred, int64_t *gshape)
{
    int64_t ks[RT_MAXDIM], rs[RT_MAXDIM];
    int64_t kst[RT_MAXIN_GROUP][RT_MAXDIM], rst[RT_MAXIN_GROUP][RT_MAXDIM];
    int nk = group_n(ndim, shape, st, nops, red, 0, ks, kst);
    int nr = group_n(ndim, shape, st, nops, red, 1, rs, rst);
    for (int k = 0; k < nops; k++) {
        for (int d = 0; d < nk; d++) {
            st[k][d] = kst[k][d];
        }
        for (int d = 0; d < nr; d++) {
            st[k][nk + d] = rst[k][d];
        }
    }
    memcpy(gshape, ks, sizeof(int64_t) * (size_t)nk);
    memcpy(gshape + nk, rs, sizeof(int64_t) * (size_t)nr);
    *nkeep = nk;
    *nred = nr;
}

int64_t
rt_red_splits_rows(int64_t nout, int64_t nred, int64_t target)
{
    int64_t splits = 1;
    if (nout > 0 && nout < target && nred > 8192) {
        int64_t s = (target + nout - 1) / nout, maxs = nred / 4096;
        s = s < maxs ? s : maxs;
        splits = s < 1 ? 1 : s;
    }
    return splits > 65535 ? 65535 : splits;
}

void
rt_red_splits_cols(int64_t bx, int64_t nred, int64_t target, int64_t *splits, int64_t *chunk)
{
    int64_t n = 1;
    if (bx < target && nred > 64) {
        int64_t s = (target + bx - 1) / bx, maxs = nred / 32;
        s = s < maxs ? s : maxs;
        n = s < 1 ? 1 : s > 65535 ? 65535 : s;
    }
    *chunk = (nred + n - 1) / n;
    *splits = nred > 0 ? (nred + *chunk - 1) / *chunk : 1;
}
