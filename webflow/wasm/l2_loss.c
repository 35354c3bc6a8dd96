/* l2_loss.c: float32 L2Loss, sum(t^2) / 2, of a large tensor in one pass.
 *
 * Export (x contiguous, n elements):
 *   float wf_l2_loss_f32(x, n)
 *
 * Why: tf.clip_by_global_norm takes the L2Loss of every gradient; NumPy's kernel (np.square, then np.sum) writes
 * a temporary as large as the tensor and reads it again: 0.8 ms for the word LM's [200, 10000] softmax weight
 * gradient, where TensorFlow's fused reduction takes ~0.2 (benchmarks/FIGURES.md, "Word LM: fused sparse
 * cross-entropy").
 * How: blocks of BLOCK elements, each summed in 4 vector accumulators of squares (then the tail, then the lanes)
 * in float, as TensorFlow's Eigen reduction sums float packets; the block sums are added in double, so the
 * error does not grow with the tensor's size. The order is fixed: the result does not depend on anything else.
 */
#include "register_tiles.h" /* vec: 64-byte vectors in the avx512 build (16 lanes), else the build's width */

#define BLOCK 4096

static float block_squares(const float *x, wf_size n) {
    vec acc[4] = {{0}, {0}, {0}, {0}};
    wf_size i = 0;
    for (; i + 4 * LANES <= n; i += 4 * LANES)
        for (int v = 0; v < 4; ++v) {
            vec e = load(x + i + v * LANES);
            acc[v] += e * e;
        }
    vec both = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    float sum = 0;
    for (; i < n; ++i) sum += x[i] * x[i];
    for (int lane = 0; lane < LANES; ++lane) sum += both[lane];
    return sum;
}

WF_EXPORT float wf_l2_loss_f32(const float *x, wf_size n) {
    double total = 0;
    for (wf_size start = 0; start < n; start += BLOCK) total += block_squares(x + start, WF_MIN(BLOCK, n - start));
    return (float)(total / 2);
}
