"""JPEG against real TensorFlow 2.21 (WEBFLOW_TF_PYTHON), through Pillow (libjpeg-turbo).

Measured and asserted here:
- webflow's decode_jpeg (libjpeg's ISLOW DCT, fancy upsampling) equals TensorFlow's
  `decode_jpeg(dct_method="INTEGER_ACCURATE")` pixel for pixel, for 4:2:0, 4:2:2 and 4:4:4 colour files, grey
  files, odd sizes, channels 0/1/3 (grey from colour is libjpeg's luma plane, as TensorFlow's), scaled decoding
  (ratio 2, 4, 8), and TensorFlow's own encode_jpeg output;
- TensorFlow's default dct_method "" is libjpeg's IFAST DCT, which Pillow cannot select: there the pixels differ
  by a few levels (the bound below is the largest difference measured on these files, with margin);
- TensorFlow decodes the files webflow's encode_jpeg writes; they are not TensorFlow's bytes (other JFIF/encoder
  settings), but decode to within a few levels of TensorFlow's own encoding of the same image.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result

import webflow as wf

Image = pytest.importorskip("PIL.Image")

IFAST_BOUND = 16  # max |webflow - TensorFlow's default| over these files: 11 levels (4:2:2, q95), 1-5 elsewhere

_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow as tf
jobs = json.load(sys.stdin)
out = {"decode": [], "encode": []}
for data, channels in jobs["decode"]:
    data = bytes.fromhex(data)
    accurate = tf.io.decode_jpeg(data, channels=channels, dct_method="INTEGER_ACCURATE").numpy()
    default = tf.io.decode_jpeg(data, channels=channels).numpy()
    scaled = [tf.io.decode_jpeg(data, channels=channels, ratio=r, dct_method="INTEGER_ACCURATE").numpy()
              for r in (2, 4, 8)]
    out["decode"].append([accurate.tobytes().hex(), list(accurate.shape), default.tobytes().hex(),
                          [[s.tobytes().hex(), list(s.shape)] for s in scaled]])
for data, shape in jobs["encode"]:
    image = np.frombuffer(bytes.fromhex(data), np.uint8).reshape(shape)
    theirs = tf.io.encode_jpeg(image).numpy()
    pixels = tf.io.decode_jpeg(theirs, dct_method="INTEGER_ACCURATE").numpy()
    out["encode"].append([theirs.hex(), pixels.tobytes().hex()])
print("RESULT:" + json.dumps(out))
"""


def sample_image(height: int, width: int, seed: int) -> np.ndarray:
    """Smooth colour ramps with noise: what photographs look like to a DCT."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    image = np.stack([(x * 5 + seed) % 256, (y * 7) % 256, (x * y // 3) % 256], -1)
    return np.clip(image + rng.integers(-25, 25, image.shape), 0, 255).astype(np.uint8)


def jpeg(image: np.ndarray, **options) -> bytes:
    out = io.BytesIO()
    Image.fromarray(image.squeeze(-1) if image.shape[-1] == 1 else image).save(out, "JPEG", **options)
    return out.getvalue()


FILES = {
    "420_q90": jpeg(sample_image(37, 53, 1), quality=90),
    "422_q95": jpeg(sample_image(40, 33, 2), quality=95, subsampling=1),
    "444_q75": jpeg(sample_image(16, 16, 3), quality=75, subsampling=0),
    "420_odd": jpeg(sample_image(17, 9, 4), quality=85),
    "grey": jpeg(sample_image(21, 30, 5)[..., :1], quality=90),
    "progressive": jpeg(sample_image(24, 40, 6), quality=80, progressive=True),
}
DECODINGS = [(name, channels) for name in FILES for channels in (0, 1, 3)]
ENCODINGS = [sample_image(32, 48, 7), sample_image(15, 22, 8), sample_image(20, 20, 9)[..., :1].copy()]


@pytest.fixture(scope="module")
def tensorflow() -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    jobs = {"decode": [[FILES[name].hex(), channels] for name, channels in DECODINGS],
            "encode": [[image.tobytes().hex(), list(image.shape)] for image in ENCODINGS]}
    jobs["decode"] += [[wf.io.encode_jpeg(image).numpy().hex(), 0] for image in ENCODINGS]
    return child_result(_DRIVER, json.dumps(jobs))


def _pixels(hex_data: str, shape: list) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(hex_data), np.uint8).reshape(shape)


@pytest.mark.parametrize("index", range(len(DECODINGS)), ids=[f"{n}-c{c}" for n, c in DECODINGS])
def test_decode_jpeg_equals_tensorflow_accurate_dct(index: int, tensorflow: dict) -> None:
    name, channels = DECODINGS[index]
    accurate, shape, default, scaled = tensorflow["decode"][index]
    ours = wf.io.decode_jpeg(FILES[name], channels=channels).numpy()
    assert list(ours.shape) == shape
    assert np.array_equal(ours, _pixels(accurate, shape))
    assert np.array_equal(wf.io.decode_image(FILES[name], channels=channels or None).numpy(), ours)
    difference = np.abs(ours.astype(int) - _pixels(default, shape).astype(int)).max()
    assert difference <= IFAST_BOUND, f"{name}: {difference} levels from TensorFlow's default (IFAST) decode"
    for ratio, (pixels, scaled_shape) in zip((2, 4, 8), scaled):
        ours = wf.io.decode_jpeg(FILES[name], channels=channels, ratio=ratio).numpy()
        assert np.array_equal(ours, _pixels(pixels, scaled_shape)), f"ratio {ratio}"


@pytest.mark.parametrize("index", range(len(ENCODINGS)))
def test_encode_jpeg_is_read_by_tensorflow(index: int, tensorflow: dict) -> None:
    image = ENCODINGS[index]
    accurate, shape, _, _ = tensorflow["decode"][len(DECODINGS) + index]
    assert shape == list(image.shape)
    assert np.array_equal(_pixels(accurate, shape), wf.io.decode_jpeg(wf.io.encode_jpeg(image)).numpy())
    theirs, their_pixels = tensorflow["encode"][index]
    assert wf.io.decode_jpeg(bytes.fromhex(theirs)).numpy().tobytes().hex() == their_pixels
    ours = _pixels(accurate, shape).astype(int)
    assert np.abs(ours - _pixels(their_pixels, shape).astype(int)).max() <= 4


def test_jpeg_errors() -> None:
    with pytest.raises(wf.errors.InvalidArgumentError, match="JPEG does not support 4 channels"):
        wf.io.decode_jpeg(FILES["grey"], channels=4)
    with pytest.raises(wf.errors.InvalidArgumentError, match="Invalid JPEG data"):
        wf.io.decode_jpeg(FILES["420_q90"][:300])
    with pytest.raises(wf.errors.InvalidArgumentError, match="Unknown image file format"):
        wf.io.decode_jpeg(b"garbage")
