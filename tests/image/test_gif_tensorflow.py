"""GIF against real TensorFlow 2.21 (WEBFLOW_TF_PYTHON): `decode_gif` and `decode_image` (expand_animations or not)
on animated and single-frame GIFs written by Pillow (256-colour quantized frames, frames that change only a region,
so Pillow's encoder stores partial frames), `decode_gif` on a PNG, and the errors (channels, an animation given to
decode_png). webflow composites frames with Pillow; these files give TensorFlow's pixels exactly."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result

import webflow as wf

Image = pytest.importorskip("PIL.Image")

_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow as tf
out = []
for data, call in json.load(sys.stdin):
    try:
        value = eval(call, {"tf": tf, "data": bytes.fromhex(data)}).numpy()
        out.append([value.tobytes().hex(), list(value.shape)])
    except Exception as error:
        out.append([type(error).__name__, str(error).split("}}")[-1].split(" [Op:")[0].strip()])
print("RESULT:" + json.dumps(out))
"""


def _gif(frames: list, **options) -> bytes:
    out = io.BytesIO()
    images = [Image.fromarray(f).quantize(256) if f.ndim == 3 else Image.fromarray(f) for f in frames]
    images[0].save(out, "GIF", save_all=len(images) > 1, append_images=images[1:], **options)
    return out.getvalue()


def _frames() -> list:
    rng = np.random.default_rng(4)
    y, x = np.mgrid[0:12, 0:16]
    base = np.stack([x * 15, y * 20, (x + y) * 8], -1).astype(np.uint8)
    frames = [base]
    for k in range(3):  # each next frame changes a small block only
        frame = frames[-1].copy()
        frame[2 + k:6 + k, 3:9] = rng.integers(0, 256, 3, dtype=np.uint8)
        frames.append(frame)
    return frames


FILES = {"animated": _gif(_frames(), duration=30, loop=0), "single": _gif(_frames()[:1]),
         "png": wf.io.encode_png(_frames()[0][..., :1]).numpy()}
CALLS = [("animated", "tf.io.decode_gif(data)"), ("animated", "tf.io.decode_image(data)"),
         ("animated", "tf.io.decode_image(data, expand_animations=False)"),
         ("animated", "tf.io.decode_image(data, channels=3, dtype=tf.float32)"),
         ("single", "tf.io.decode_gif(data)"), ("single", "tf.io.decode_image(data)"),
         ("single", "tf.io.decode_png(data)"), ("png", "tf.io.decode_gif(data)"),
         ("animated", "tf.io.decode_png(data)"), ("animated", "tf.io.decode_image(data, channels=1)")]


@pytest.fixture(scope="module")
def tensorflow() -> list:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    jobs = [[FILES[name].hex(), call] for name, call in CALLS]
    return child_result(_DRIVER, json.dumps(jobs))


@pytest.mark.parametrize("index", range(len(CALLS)), ids=[f"{n}: {c}" for n, c in CALLS])
def test_gif_as_tensorflow(index: int, tensorflow: list) -> None:
    name, call = CALLS[index]
    try:
        value = eval(call, {"tf": wf, "data": FILES[name]}).numpy()  # noqa: S307 - our own table of calls
        ours = [value.tobytes().hex(), list(value.shape)]
    except wf.errors.OpError as error:
        ours = [type(error).__name__, str(error)]
    assert ours == tensorflow[index]
