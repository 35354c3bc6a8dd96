"""Resizing and the other `tf.image` functions against real TensorFlow 2.21 (WEBFLOW_TF_PYTHON): the same TF1
programs run under TensorFlow and under webflow.compat.v1 (tests/tf_subprocess.py) and must give the same numbers:
ResizeBilinear and ResizeNearestNeighbor up and down in every corner mode, TF2's `tf.image.resize` and TF1's
`resize_images` rules, both gradients, and the composites (convert_image_dtype, flips, seeded random flips and
crops, standardization, crops and pads, grey, brightness).

Every number agrees exactly (atol 0): the resize values (float32, TensorFlow's order of operations), both
gradients (sums added in TensorFlow's order), the composites, AdjustContrastv2 (its halving sum), and the seeded
random flips, crops, brightness and contrast (one Philox stream, so the same draws). The one exception is the CIFAR-10
augmentation story (TOLERANCE). Not compared: float -> uint8 without saturate on values outside [0, 1], where the
Cast op's overflow behaviour (not an image function's) decides.
"""

from __future__ import annotations

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

# TF2's names from a TF1 program: real TensorFlow's module there, webflow's here (no TensorFlow in webflow's venv)
SETUP = """rng = np.random.default_rng(7)
try:
    import tensorflow as v2
except ImportError:
    import webflow as v2
"""


def resize_program(op: str, shape: tuple, size: tuple, align: bool, half: bool, dtype: str = "float32") -> str:
    return SETUP + f"""
x = (rng.random({shape}) * 255).astype(np.{dtype})
y = tf.image.{op}(tf.constant(x), {list(size)}, align_corners={align}, half_pixel_centers={half})
with tf.Session() as sess:
    result = sess.run(y)
"""


def gradient_program(op: str, shape: tuple, size: tuple, align: bool, half: bool) -> str:
    return SETUP + f"""
x = tf.constant(rng.random({shape}).astype(np.float32))
y = tf.image.{op}(x, {list(size)}, align_corners={align}, half_pixel_centers={half})
w = tf.constant(rng.random([{shape[0]}, {size[0]}, {size[1]}, {shape[3]}]).astype(np.float32))
dx = tf.gradients(tf.reduce_sum(y * w), x)[0]
with tf.Session() as sess:
    result = sess.run(dx)
"""


def _raw_ops_programs() -> dict:
    programs = {}
    modes = {"half": (False, True), "legacy": (False, False), "align": (True, False)}
    for op in ("resize_bilinear", "resize_nearest_neighbor"):
        for mode, (align, half) in modes.items():
            for direction, (shape, size) in {"up": ((2, 5, 7, 3), (11, 13)), "down": ((1, 17, 12, 2), (6, 5)),
                                             "mixed": ((1, 4, 9, 1), (9, 4)), "one": ((1, 5, 5, 1), (1, 1))}.items():
                programs[f"{op}-{mode}-{direction}"] = resize_program(op, shape, size, align, half)
                if direction != "one":
                    programs[f"{op}-{mode}-{direction}-grad"] = gradient_program(op, shape, size, align, half)
        programs[f"{op}-uint8"] = resize_program(op, (1, 6, 6, 3), (4, 9), False, True, "uint8")
    return programs


WRAPPER_PROGRAMS = {
    "resize-v2-bilinear": SETUP + """
x = tf.constant((rng.random((9, 7, 3)) * 255).astype(np.uint8))
from_v2 = v2.image.resize(x, [4, 11])
with tf.Session() as sess:
    result = [sess.run(from_v2).tolist(), str(from_v2.dtype.name), from_v2.shape.as_list()]
""",
    "resize-v2-nearest": SETUP + """
x = tf.constant((rng.random((2, 9, 7, 3)) * 255).astype(np.uint8))
y = v2.image.resize(x, [13, 5], method="nearest")
with tf.Session() as sess:
    result = [sess.run(y).tolist(), y.dtype.name, y.shape.as_list()]
""",
    "resize-images-v1": SETUP + """
x = tf.constant((rng.random((9, 7, 3)) * 255).astype(np.uint8))
a = tf.image.resize_images(x, [4, 11])
b = tf.image.resize_images(x, [13, 5], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR, align_corners=True)
c = tf.image.resize_images(x, [9, 7])
d = tf.image.resize_bilinear(tf.expand_dims(x, 0), [5, 5], align_corners=True)
e = tf.image.resize_images(x, [20, 5], preserve_aspect_ratio=True)
f = v2.image.resize(tf.expand_dims(x, 0), [4, 40], preserve_aspect_ratio=True, method="nearest")
g = tf.placeholder_with_default(x, [None, None, 3])
h = tf.image.resize_images(g, [20, 5], preserve_aspect_ratio=True)
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run([a, b, c, d, e, f, h])] + [a.dtype.name, b.dtype.name, c.dtype.name]
    result += [e.shape.as_list(), f.shape.as_list(), h.shape.as_list()]
""",
}


def _composite(body: str) -> str:
    images = "u8 = (rng.random((2, 6, 5, 3)) * 255).astype(np.uint8)\nf = rng.random((2, 6, 5, 3)).astype(np.float32)\n"
    return SETUP + images + body


COMPOSITE_PROGRAMS = {
    "contrast_and_brightness": _composite("""
tf.set_random_seed(6)
ops = [tf.image.adjust_contrast(f, 1.7), tf.image.adjust_contrast(u8, 0.4), tf.image.adjust_contrast(f[0], 2.5),
       tf.image.random_brightness(u8, 0.3, seed=4), tf.image.random_contrast(f, 0.2, 1.8, seed=5),
       tf.image.adjust_contrast(rng.random((3, 33, 17, 2)).astype(np.float32), 1.3)]
with tf.Session() as sess:
    result = [[v.tolist() for v in sess.run(ops)] for _ in range(2)]
"""),
    "cifar10_augmentation": SETUP + """
tf.set_random_seed(10)
image = tf.cast(tf.constant((rng.random((32, 32, 3)) * 255).astype(np.uint8)), tf.float32)
distorted = tf.random_crop(image, [24, 24, 3])
distorted = tf.image.random_flip_left_right(distorted)
distorted = tf.image.random_brightness(distorted, max_delta=63)
distorted = tf.image.random_contrast(distorted, lower=0.2, upper=1.8)
distorted = tf.image.per_image_standardization(distorted)
evaluation = tf.image.per_image_standardization(tf.image.resize_image_with_crop_or_pad(image, 24, 24))
with tf.Session() as sess:
    result = [sess.run(distorted).tolist() for _ in range(3)] + [sess.run(evaluation).tolist()]
""",
    "convert_image_dtype": _composite("""
ops = [tf.image.convert_image_dtype(u8, tf.float32), tf.image.convert_image_dtype(f, tf.uint8),
       tf.image.convert_image_dtype(f * 1.2 - 0.1, tf.uint8, saturate=True),
       tf.image.convert_image_dtype(u8, tf.int32), tf.image.convert_image_dtype((u8.astype(np.int32) << 23), tf.uint8),
       tf.image.convert_image_dtype(u8.astype(np.uint16) * 257, tf.uint8),
       tf.image.convert_image_dtype(f, tf.float64), tf.image.convert_image_dtype(u8, tf.uint8),
       tf.image.convert_image_dtype(f - 0.5, tf.int16, saturate=True)]
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run(ops)] + [o.dtype.name for o in ops]
"""),
    "flips": _composite("""
ops = [tf.image.flip_left_right(u8), tf.image.flip_up_down(u8), tf.image.flip_left_right(u8[0]),
       tf.image.flip_up_down(f[1])]
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run(ops)]
"""),
    "random_flips_seeded": _composite("""
tf.set_random_seed(3)
ops = [tf.image.random_flip_left_right(f[0], seed=5), tf.image.random_flip_up_down(f[0], seed=9),
       tf.image.random_flip_left_right(f, seed=1), tf.image.random_flip_up_down(u8, seed=2)]
with tf.Session() as sess:
    result = [[v.tolist() for v in sess.run(ops)] for _ in range(3)]
"""),
    "random_crop_seeded": _composite("""
tf.set_random_seed(4)
ops = [tf.image.random_crop(f[0], [3, 2, 3], seed=11), tf.random_crop(u8, [1, 4, 4, 3], seed=12)]
with tf.Session() as sess:
    result = [[v.tolist() for v in sess.run(ops)] for _ in range(3)]
"""),
    "crops_and_pads": _composite("""
ops = [tf.image.central_crop(f, 0.5), tf.image.central_crop(u8[0], 0.33),
       tf.image.resize_image_with_crop_or_pad(u8[0], 3, 9), tf.image.resize_image_with_crop_or_pad(f, 8, 2),
       tf.image.crop_to_bounding_box(f, 1, 2, 4, 3), tf.image.pad_to_bounding_box(u8[0], 2, 1, 9, 7)]
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run(ops)] + [o.shape.as_list() for o in ops]
"""),
    "crops_of_unknown_size": _composite("""
image = tf.placeholder(tf.uint8, [None, None, 3])
batch = tf.placeholder(tf.float32, [None, None, None, 3])
ops = [tf.image.resize_image_with_crop_or_pad(image, 3, 9), tf.image.resize_image_with_crop_or_pad(batch, 8, 2),
       tf.image.central_crop(image, 0.6), tf.image.central_crop(batch, 0.33),
       tf.image.crop_to_bounding_box(image, 1, 2, 4, 3), tf.image.pad_to_bounding_box(batch, 2, 1, 9, 7)]
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run(ops, {image: u8[0], batch: f})] + [o.shape.as_list() for o in ops]
"""),
    "pixel_values": _composite("""
ops = [tf.image.per_image_standardization(u8), tf.image.per_image_standardization(f[0] * 0 + 0.5),
       tf.image.rgb_to_grayscale(u8), tf.image.rgb_to_grayscale(f), tf.image.grayscale_to_rgb(tf.constant(f[..., :1])),
       tf.image.adjust_brightness(u8, 0.2), tf.image.adjust_brightness(f, -0.3), tf.image.adjust_brightness(u8, -0.9)]
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run(ops)] + [o.dtype.name for o in ops]
"""),
}

NAMES_PROGRAM = """
x = tf.placeholder(tf.uint8, [6, 5, 3], name="x")
s = tf.placeholder(tf.string, [], name="s")
outs = [tf.image.resize_images(x, [4, 4]), tf.image.decode_png(s, channels=3), tf.image.encode_png(x),
        tf.image.flip_left_right(x), tf.image.convert_image_dtype(x, tf.float32), tf.image.random_flip_left_right(x),
        tf.image.per_image_standardization(x), tf.image.central_crop(x, 0.5), tf.image.rgb_to_grayscale(x),
        tf.image.resize_bilinear(tf.expand_dims(x, 0), [3, 3]), tf.random_crop(x, [2, 2, 3]),
        tf.io.decode_image(s), tf.image.decode_jpeg(s), v2.image.resize(x, [2, 2]),
        v2.image.resize(x, [2, 2], "nearest")]
result = [o.name for o in outs] + [o.shape.as_list() if o.shape.rank is not None else None for o in outs]
"""

PROGRAMS = {**_raw_ops_programs(), **WRAPPER_PROGRAMS, **COMPOSITE_PROGRAMS, "graph_names": SETUP + NAMES_PROGRAM}


# the classic CIFAR-10 augmentation standardizes 1,728 values of up to ~300: its reduce_mean (the Mean op's kernel)
# sums them in another order than Eigen, a few float32 ulps; the random draws (crop, flip, brightness,
# contrast) are TensorFlow's, or nothing would agree
TOLERANCE = {"cifar10_augmentation": 2e-6}


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    return run_tensorflow(PROGRAMS)


def _assert_same(ours, theirs, atol: float, where: str) -> None:
    """Equal structure; numbers within atol (arrays compared whole, lists of differently shaped results one by one)."""
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs, where
        return
    try:
        expected = np.asarray(theirs, dtype=float)
    except ValueError:  # several results of different shapes in one list
        assert len(ours) == len(theirs), where
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _assert_same(o, t, atol, f"{where}[{i}]")
        return
    np.testing.assert_allclose(np.asarray(ours, dtype=float), expected, atol=atol, rtol=0, err_msg=where)


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_same_as_tensorflow(key: str, tensorflow_results: dict) -> None:
    _assert_same(run_webflow(PROGRAMS[key]), tensorflow_results[key], TOLERANCE.get(key, 0.0), key)
