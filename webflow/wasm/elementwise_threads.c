/* elementwise_threads.c: an elementwise kernel's one call shared out over the library's threads (parallel.c).
 *
 *   void wf_elementwise_threads(kernel, arrays, pointers, item_sizes, n, threads)
 *       kernel(pointers[0] + i, ..., pointers[arrays - 1] + i, count) for consecutive slices [i, i + count) of
 *       [0, n), each pointer advanced by i * item_sizes[k] bytes; `kernel` is a contiguous elementwise export
 *       of this library taking `arrays` (2 or 3) pointers and a count: wf_relu_f32(x, y, n),
 *       wf_relu_grad_f32(gradients, features, out, n) ...
 *   int wf_binary_threads(kernel, x, y, out, ndim, shape, x_strides, y_strides, item_size, threads)
 *       a broadcasting binary export (wf_add_f32 ...: elementwise.c's signature) cut along the output's first
 *       dimension: each slice of rows is one call of `kernel` on the rows' part of x, y and out.
 *
 * Why in C: these kernels are short (a pass over a few MB), and cutting them through Python's thread pool
 * (backends/c/parallel.py) cost more than the second core saved: its worker starts tens of microseconds after
 * the call (later still when it waits for the GIL), so a big Relu took longer on two threads than on one, and an
 * AddV2 longer than NumPy's one-thread loop (benchmarks/FIGURES.md, "Elementwise ops and whole-array sums").
 * Here the caller starts its share at once and a worker that polls picks up a slice at once (parallel.c). Slices are claimed from a counter, so a thread on a
 * slower (or busy) core simply takes fewer; every element is computed by the same serial code, so the result
 * does not depend on the number of threads.
 * Native only: Python gets `kernel` as a function's address (ctypes), and WebAssembly has no threads here.
 */
#include "webflow_kernels.h"
#include "strided.h"

#if !defined(__wasm__) && !defined(_WIN32)

#define SLICE_BYTES (64 * 1024) /* a slice's output: short work, in L2 with its inputs */
#define MAX_ARRAYS 3

typedef void (*wf_unary_kernel)(void *x, void *y, wf_size n);
typedef void (*wf_ternary_kernel)(void *a, void *b, void *c, wf_size n);
typedef int (*wf_binary_kernel)(const void *x, const void *y, void *out, int ndim, const wf_size *shape,
                                const wf_size *x_strides, const wf_size *y_strides);

typedef struct {
    void *kernel;
    int arrays;
    char *pointers[MAX_ARRAYS];
    wf_size item_sizes[MAX_ARRAYS];
    wf_size n, slice, next;
} elementwise_job;

static void elementwise_thread(void *context, wf_size thread) {
    elementwise_job *job = context;
    wf_size slices = (job->n + job->slice - 1) / job->slice;
    (void)thread;
    for (wf_size s = wf_next_unit(&job->next); s < slices; s = wf_next_unit(&job->next)) {
        wf_size start = s * job->slice, count = WF_MIN(job->slice, job->n - start);
        char *p[MAX_ARRAYS];
        for (int k = 0; k < job->arrays; ++k) p[k] = job->pointers[k] + start * job->item_sizes[k];
        if (job->arrays == 2)
            ((wf_unary_kernel)job->kernel)(p[0], p[1], count);
        else
            ((wf_ternary_kernel)job->kernel)(p[0], p[1], p[2], count);
    }
}

WF_EXPORT int wf_elementwise_threads(void *kernel, int arrays, void *const *pointers, const wf_size *item_sizes,
                                     wf_size n, wf_size threads) {
    if (arrays < 2 || arrays > MAX_ARRAYS || n < 0 || threads < 1) return WF_BAD_ARGUMENT;
    elementwise_job job = {kernel, arrays, {0}, {0}, n, 1, 0};
    wf_size widest = 1;
    for (int k = 0; k < arrays; ++k) {
        job.pointers[k] = pointers[k];
        job.item_sizes[k] = item_sizes[k];
        widest = WF_MAX(widest, item_sizes[k]);
    }
    job.slice = WF_MAX(1, SLICE_BYTES / widest);
    wf_run_parallel(elementwise_thread, &job, threads);
    return WF_OK;
}

typedef struct {
    wf_binary_kernel kernel;
    const char *x, *y;
    char *out;
    int ndim;
    const wf_size *shape, *x_strides, *y_strides;
    wf_size item_size, rows, row_size, slice_rows, next, status;
} binary_job;

static void binary_thread(void *context, wf_size thread) {
    binary_job *job = context;
    wf_size slices = (job->rows + job->slice_rows - 1) / job->slice_rows, shape[WF_MAX_DIMS];
    (void)thread;
    for (int d = 1; d < job->ndim; ++d) shape[d] = job->shape[d];
    for (wf_size s = wf_next_unit(&job->next); s < slices; s = wf_next_unit(&job->next)) {
        wf_size start = s * job->slice_rows;
        shape[0] = WF_MIN(job->slice_rows, job->rows - start);
        int status = job->kernel(job->x + start * job->x_strides[0] * job->item_size,
                                 job->y + start * job->y_strides[0] * job->item_size,
                                 job->out + start * job->row_size * job->item_size, job->ndim, shape,
                                 job->x_strides, job->y_strides);
        if (status != WF_OK) __atomic_store_n(&job->status, (wf_size)status, __ATOMIC_RELAXED);
    }
}

WF_EXPORT int wf_binary_threads(void *kernel, const void *x, const void *y, void *out, int ndim,
                                const wf_size *shape, const wf_size *x_strides, const wf_size *y_strides,
                                wf_size item_size, wf_size threads) {
    if (ndim < 1 || ndim > WF_MAX_DIMS || item_size < 1 || threads < 1) return WF_BAD_ARGUMENT;
    wf_size row_size = 1;
    for (int d = 1; d < ndim; ++d) row_size *= shape[d];
    binary_job job = {(wf_binary_kernel)kernel, x, y, out, ndim, shape, x_strides, y_strides, item_size,
                      shape[0], row_size, 1, 0, WF_OK};
    job.slice_rows = WF_MAX(1, SLICE_BYTES / item_size / WF_MAX(row_size, 1));
    wf_run_parallel(binary_thread, &job, threads);
    return (int)job.status;
}

#endif
