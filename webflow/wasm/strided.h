/* strided.h: walking N-d arrays given as (shape, strides in elements), as NumPy views are.
 *
 * Elementwise and reduction kernels take the output shape and, for every operand, one stride per
 * dimension (0 on a broadcast dimension, so one input value is reused along it). Before walking we
 * simplify: size-1 dimensions are dropped and neighbouring dimensions merged whenever every operand
 * steps through them as through one longer dimension (stride[i] == stride[i+1] * shape[i+1]).
 * A contiguous [8, 100, 3] + [8, 100, 3] becomes one dimension of 2400; [8, 100, 3] + [3] becomes
 * [800, 3] with y-strides [0, 1]. The kernel then runs a tight loop over the last dimension (the
 * "row") and this walker steps the row start through the remaining dimensions with counters.
 */
#ifndef WEBFLOW_STRIDED_H
#define WEBFLOW_STRIDED_H

#include "webflow_kernels.h"

#define WF_MAX_DIMS 16     /* more dimensions than this: the kernel returns WF_BAD_ARGUMENT */
#define WF_MAX_OPERANDS 4     /* select: condition, then, else and the output */

typedef struct {
    int ndim;                                     /* after simplification; >= 1 unless empty */
    int operands;
    wf_size total;                                /* number of elements (0: nothing to do) */
    wf_size shape[WF_MAX_DIMS];
    wf_size stride[WF_MAX_OPERANDS][WF_MAX_DIMS];
    wf_size counter[WF_MAX_DIMS];                 /* position of the current row in dims 0..ndim-2 */
    wf_size offset[WF_MAX_OPERANDS];              /* element offset of the current row, per operand */
} wf_walk;

/* Simplify (shape, strides[operand]) into `walk`. Returns WF_OK or WF_BAD_ARGUMENT (too many dims). */
static int wf_walk_init(wf_walk *walk, int ndim, const wf_size *shape, int operands,
                        const wf_size *const *strides) {
    if (ndim < 0 || ndim > WF_MAX_DIMS || operands > WF_MAX_OPERANDS) return WF_BAD_ARGUMENT;
    walk->operands = operands;
    walk->total = 1;
    int kept = 0;
    for (int d = 0; d < ndim; ++d) {
        walk->total *= shape[d];
        if (shape[d] == 1) continue;              /* a size-1 dim moves no pointer */
        int merge = kept > 0;
        for (int o = 0; o < operands && merge; ++o)
            merge = walk->stride[o][kept - 1] == strides[o][d] * shape[d];
        if (merge) {
            walk->shape[kept - 1] *= shape[d];
            for (int o = 0; o < operands; ++o) walk->stride[o][kept - 1] = strides[o][d];
        } else {
            walk->shape[kept] = shape[d];
            for (int o = 0; o < operands; ++o) walk->stride[o][kept] = strides[o][d];
            ++kept;
        }
    }
    if (kept == 0) {                              /* a scalar: one row of one element */
        walk->shape[0] = 1;
        for (int o = 0; o < operands; ++o) walk->stride[o][0] = 0;
        kept = 1;
    }
    walk->ndim = kept;
    for (int d = 0; d < kept; ++d) walk->counter[d] = 0;
    for (int o = 0; o < operands; ++o) walk->offset[o] = 0;
    return WF_OK;
}

static inline wf_size wf_walk_row_length(const wf_walk *walk) { return walk->shape[walk->ndim - 1]; }
static inline wf_size wf_walk_rows(const wf_walk *walk) {
    wf_size row_length = wf_walk_row_length(walk);
    return row_length ? walk->total / row_length : 0;
}

/* Move every operand's offset to the next row (odometer over dims ndim-2 ... 0). */
static inline void wf_walk_next_row(wf_walk *walk) {
    for (int d = walk->ndim - 2; d >= 0; --d) {
        if (++walk->counter[d] < walk->shape[d]) {
            for (int o = 0; o < walk->operands; ++o) walk->offset[o] += walk->stride[o][d];
            return;
        }
        walk->counter[d] = 0;
        for (int o = 0; o < walk->operands; ++o) walk->offset[o] -= walk->stride[o][d] * (walk->shape[d] - 1);
    }
}

/* Contiguous (row-major) strides of `shape`, in elements. */
static inline void wf_contiguous_strides(int ndim, const wf_size *shape, wf_size *strides) {
    wf_size step = 1;
    for (int d = ndim - 1; d >= 0; --d) {
        strides[d] = step;
        step *= shape[d];
    }
}

#endif /* WEBFLOW_STRIDED_H */
