// A drawn digit -> the 28x28 image MNIST's network expects, prepared the way MNIST's digits were:
// "normalized to fit in a 20x20 pixel box while preserving their aspect ratio ... anti-aliasing ...
// centered in a 28x28 image by computing the center of mass of the pixels" (LeCun et al.).
//
//   toMnistPixels(imageData)  ->  Float32Array(784) in [0, 1], row-major, ink = 1; null if nothing is drawn
//
// The ink of a pixel is its alpha (the pad is transparent, strokes are opaque).

const BOX = 20, SIZE = 28;

// The smallest rectangle holding every inked pixel: {x0, y0, width, height}, or null.
export function boundingBox(ink, width, height) {
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (ink[y * width + x] > 0) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    }
  }
  return x1 < 0 ? null : { x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

// Shrinks the box's content so its longer side is BOX pixels, averaging every source pixel that falls into
// a target pixel (an area filter: this is the anti-aliasing). Returns {pixels, width, height}.
export function shrinkToBox(ink, width, box) {
  const scale = BOX / Math.max(box.width, box.height);
  const w = Math.max(1, Math.round(box.width * scale)), h = Math.max(1, Math.round(box.height * scale));
  const sums = new Float64Array(w * h), counts = new Float64Array(w * h);
  for (let y = 0; y < box.height; y++) {
    const ty = Math.min(h - 1, Math.floor(y * scale));
    for (let x = 0; x < box.width; x++) {
      const tx = Math.min(w - 1, Math.floor(x * scale));
      sums[ty * w + tx] += ink[(box.y0 + y) * width + box.x0 + x];
      counts[ty * w + tx] += 1;
    }
  }
  const pixels = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) pixels[i] = counts[i] ? sums[i] / counts[i] : 0;
  return { pixels, width: w, height: h };
}

// Places the small image in a 28x28 frame so that its centre of mass lands on the frame's centre (14, 14).
export function centreByMass(small) {
  let total = 0, mx = 0, my = 0;
  for (let y = 0; y < small.height; y++) {
    for (let x = 0; x < small.width; x++) {
      const v = small.pixels[y * small.width + x];
      total += v; mx += v * (x + 0.5); my += v * (y + 0.5);
    }
  }
  const clamp = (v, hi) => Math.min(Math.max(v, 0), hi);
  const left = clamp(Math.round(SIZE / 2 - mx / total), SIZE - small.width);
  const top = clamp(Math.round(SIZE / 2 - my / total), SIZE - small.height);
  const out = new Float32Array(SIZE * SIZE);
  for (let y = 0; y < small.height; y++) {
    for (let x = 0; x < small.width; x++) out[(top + y) * SIZE + left + x] = small.pixels[y * small.width + x];
  }
  return out;
}

export function toMnistPixels(imageData) {
  const { width, height, data } = imageData;
  const ink = new Float32Array(width * height);
  for (let i = 0; i < width * height; i++) ink[i] = data[4 * i + 3] / 255;
  const box = boundingBox(ink, width, height);
  if (box === null) return null;
  return centreByMass(shrinkToBox(ink, width, box));
}
