"""The classic TF1 image-folder pipeline, unchanged under real TensorFlow 2.21 and webflow.compat.v1: five PNG files
on disk (written by Pillow, so neither engine's encoder), listed with `tf.gfile.Glob`, then
`read_file -> decode_png -> resize` (and crops of the decoded, unknown-size image) in a graph, fed one file name
at a time; and the tf.data form
(`list_files -> map(read_file, decode_png, resize) -> batch`). Both must give TensorFlow's float32 numbers exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

Image = pytest.importorskip("PIL.Image")

SESSION_PROGRAM = """
files = sorted(tf.gfile.Glob(FOLDER + "/*.png"))
name = tf.placeholder(tf.string, [])
image = tf.image.decode_png(tf.read_file(name), channels=3)
legacy = tf.image.resize_images(image, [20, 24])
half_pixel = tf.image.resize_bilinear(tf.expand_dims(image, 0), [9, 7], half_pixel_centers=True)
nearest = tf.image.resize_images(image, [5, 30], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
cropped = tf.image.resize_image_with_crop_or_pad(image, 22, 22)  # sizes known only when a file is read
centre = tf.image.resize_images(tf.image.central_crop(image, 0.875), [8, 8])
fetches = [legacy, half_pixel, nearest, cropped, centre]
with tf.Session() as sess:
    result = [[v.tolist() for v in sess.run(fetches, {name: f})] for f in files]
    result.append([f[len(FOLDER):] for f in files])
"""

DATASET_PROGRAM = """
def load(path):
    image = tf.image.decode_png(tf.io.read_file(path), channels=3)
    return tf.image.resize(tf.image.convert_image_dtype(image, tf.float32), [16, 12])
dataset = tf.data.Dataset.list_files(FOLDER + "/*.png", shuffle=False).map(load).batch(5)
batch = tf.data.make_one_shot_iterator(dataset).get_next()
with tf.Session() as sess:
    result = sess.run(batch).tolist()
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(12)
    for i in range(5):
        height, width = 18 + 3 * i, 25 - 2 * i
        y, x = np.mgrid[0:height, 0:width]
        pixels = np.stack([x * 9 % 256, y * 13 % 256, (x + y) * 5 % 256], -1)
        pixels = np.clip(pixels + rng.integers(-30, 30, pixels.shape), 0, 255).astype(np.uint8)
        mode = "RGBA" if i == 3 else "RGB"  # one file with alpha: decode_png(channels=3) drops it
        image = Image.fromarray(pixels).convert(mode)
        image.save(path / f"image_{i}.png")
    return str(path)


def _programs(folder: str) -> dict:
    prefix = f"FOLDER = {folder!r}\n"
    return {"session": prefix + SESSION_PROGRAM, "dataset": prefix + DATASET_PROGRAM}


@pytest.fixture(scope="module")
def tensorflow(folder: str) -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    return run_tensorflow(_programs(folder))


def test_session_pipeline_as_tensorflow(folder: str, tensorflow: dict) -> None:
    ours = run_webflow(_programs(folder)["session"])
    assert ours[-1] == tensorflow["session"][-1] == [f"/image_{i}.png" for i in range(5)]
    for got, expected in zip(ours[:-1], tensorflow["session"][:-1]):
        for g, e in zip(got, expected):
            assert np.array_equal(np.asarray(g), np.asarray(e))


def test_dataset_pipeline_as_tensorflow(folder: str, tensorflow: dict) -> None:
    ours = np.asarray(run_webflow(_programs(folder)["dataset"]))
    assert ours.shape == (5, 16, 12, 3)
    assert np.array_equal(ours, np.asarray(tensorflow["dataset"]))
