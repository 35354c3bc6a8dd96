// TensorBoard's scalar smoothing: an exponential moving average with its start-up bias removed
// (TensorBoard's line chart, `resmoothDataset`): last = w·last + (1 − w)·y; smoothed = last / (1 − w^n), n counting
// the finite points so far. NaN/inf points pass through unsmoothed; a constant series is left as it is.

/** TensorBoard's default smoothing weight. */
export const DEFAULT_SMOOTHING = 0.6;

export function smooth(values: number[], weight: number): number[] {
  const constant = values.every((v) => v === values[0]);
  let last = 0;
  let count = 0;
  return values.map((value) => {
    if (constant || !Number.isFinite(value)) return value;
    last = last * weight + (1 - weight) * value;
    count += 1;
    const debias = weight === 1 ? 1 : 1 - Math.pow(weight, count);
    return last / debias;
  });
}
