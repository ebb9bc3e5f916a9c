/* shape.h - shape arithmetic for launches of the forms: strides of an
 * operand seen through a broadcast shape, dimensions merged where every
 * operand steps through them contiguously, and an array's dimensions
 * grouped into kept and reduced ones.  Pure arithmetic on RtArray. */
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

#endif
