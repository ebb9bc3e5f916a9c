/* shape.h - shape arithmetic for launches of the forms: strides of an
 * operand seen through a broadcast shape, dimensions merged where every
 * operand steps through them contiguously, and an array's dimensions
 * grouped into kept and reduced ones, and a reduction's splits of its
 * rows over blocks.  Pure arithmetic on RtArray. */
#ifndef SHAPE_H
#define SHAPE_H

#include "rt.h"

/* strides of operand `a` seen with the broadcast shape (0 where broadcast) */
void rt_broadcast_strides(const RtArray *a, int ndim, const int64_t *shape, int64_t *out);
/* Merges dimensions that every operand steps through contiguously and
 * drops extents of 1; returns the new ndim. st[k] holds operand k. */
int rt_collapse_dims(int ndim, int64_t *shape, int64_t st[][RT_MAXDIM], int nops);
/* x(..., kept dims in order, reduced dims in order) with each group's
 * contiguous dimensions merged */
void rt_group_dims(const RtArray *a, const int *red, int *nkeep, int *nred, int64_t *shape,
                   int64_t *strides);

#define RT_MAXIN_GROUP 33     /* operands rt_group_dims_n takes at most */

/* the same for several operands of one shape (strides st[k], 0 where
 * broadcast): dimensions merged where every operand allows; st is
 * rewritten in the grouped order */
void rt_group_dims_n(int ndim, const int64_t *shape, int64_t st[][RT_MAXDIM], int nops,
                     const int *red, int *nkeep, int *nred, int64_t *gshape);

/* Blocks per output of a reduction whose reduced elements are innermost:
 * when the nout outputs give fewer than `target` blocks, enough splits of
 * each row to reach it, each split at least 4096 elements; at most 65535. */
int64_t rt_red_splits_rows(int64_t nout, int64_t nred, int64_t target);
/* When a kept dimension is innermost and bx blocks cover the outputs: the
 * reduced rows cut into *splits chunks of *chunk elements (at least 32 each)
 * so that about `target` blocks run; at most 65535 splits. */
void rt_red_splits_cols(int64_t bx, int64_t nred, int64_t target, int64_t *splits,
                        int64_t *chunk);

#endif
