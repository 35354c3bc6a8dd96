"""PNG against real TensorFlow 2.21 (WEBFLOW_TF_PYTHON): `encode_png` writes TensorFlow's bytes exactly (libpng's
adaptive row filters and zlib settings, reproduced in webflow/backends/portable/png_codec.py) for every channel
count, both depths, several sizes (one IDAT chunk and several) and compression levels; and `decode_png` gives
TensorFlow's pixels for files TensorFlow never writes (tests/image/png_files.py: palettes, 1/2/4-bit grey, tRNS,
Adam7) with channels 0/1/3/4 and dtype uint8/uint16 — libpng's grey conversion, alpha and depth rules included.
Since the bytes are identical, each engine reads the other's files; TensorFlow decoding webflow's output is
checked too, for the record."""

from __future__ import annotations

import json

import numpy as np
import pytest
from png_files import cases
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result

import webflow as wf

_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow as tf
jobs = json.load(sys.stdin)
out = {"encode": [], "decode": []}
for data, shape, dtype, compression in jobs["encode"]:
    image = np.frombuffer(bytes.fromhex(data), dtype).reshape(shape)
    out["encode"].append(tf.io.encode_png(image, compression=compression).numpy().hex())
for data, channels, dtype in jobs["decode"]:
    try:
        pixels = tf.io.decode_png(bytes.fromhex(data), channels=channels, dtype=getattr(tf, dtype)).numpy()
        out["decode"].append([pixels.tobytes().hex(), list(pixels.shape)])
    except Exception as error:
        out["decode"].append(type(error).__name__)
print("RESULT:" + json.dumps(out))
"""

ENCODINGS = [((5, 7, c), d, level) for c in (1, 2, 3, 4) for d in ("uint8", "uint16") for level in (-1, 9)]
ENCODINGS += [((64, 48, 3), "uint8", level) for level in (0, 1, 6)] + [((120, 100, 4), "uint8", -1),
                                                                        ((90, 70, 1), "uint16", -1),
                                                                        ((1, 1, 3), "uint8", -1)]
SPEC_FILES = cases(seed=11)
DECODINGS = [(name, data, channels, dtype) for name, data, _, _ in SPEC_FILES
             for channels in (0, 1, 3, 4) for dtype in ("uint8", "uint16")]


def image_for(shape: tuple, dtype: str, index: int) -> np.ndarray:
    rng = np.random.default_rng(index)
    if index % 2:  # smooth images make the filters matter; noisy ones the compressor
        ramp = np.add.outer(np.arange(shape[0]), np.arange(shape[1]))[..., None] * (index + 3)
        return (np.broadcast_to(ramp, shape) % (np.iinfo(dtype).max + 1)).astype(dtype)
    return rng.integers(0, np.iinfo(dtype).max + 1, shape).astype(dtype)


@pytest.fixture(scope="module")
def tensorflow() -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    jobs = {"encode": [[image_for(s, d, i).tobytes().hex(), s, d, level] for i, (s, d, level) in enumerate(ENCODINGS)],
            "decode": [[data.hex(), channels, dtype] for _, data, channels, dtype in DECODINGS]}
    jobs["decode"] += [[wf.io.encode_png(image_for(s, d, i)).numpy().hex(), 0, d]
                       for i, (s, d, _) in enumerate(ENCODINGS)]
    return child_result(_DRIVER, json.dumps(jobs))


@pytest.mark.parametrize("index", range(len(ENCODINGS)), ids=[f"{s}-{d}-c{lv}" for s, d, lv in ENCODINGS])
def test_encode_png_bytes_are_tensorflows(index: int, tensorflow: dict) -> None:
    shape, dtype, level = ENCODINGS[index]
    ours = wf.io.encode_png(image_for(shape, dtype, index), compression=level).numpy()
    assert ours.hex() == tensorflow["encode"][index]


@pytest.mark.parametrize("index", range(len(ENCODINGS)), ids=[f"{s}-{d}" for s, d, _ in ENCODINGS])
def test_tensorflow_decodes_webflow_files(index: int, tensorflow: dict) -> None:
    shape, dtype, _ = ENCODINGS[index]
    pixels, got_shape = tensorflow["decode"][len(DECODINGS) + index]
    assert got_shape == list(shape)
    assert bytes.fromhex(pixels) == image_for(shape, dtype, index).tobytes()


@pytest.mark.parametrize("index", range(len(DECODINGS)), ids=[f"{n}-c{c}-{d}" for n, _, c, d in DECODINGS])
def test_decode_png_pixels_are_tensorflows(index: int, tensorflow: dict) -> None:
    _, data, channels, dtype = DECODINGS[index]
    expected = tensorflow["decode"][index]
    ours = wf.io.decode_png(data, channels=channels, dtype=getattr(wf, dtype)).numpy()
    assert [ours.tobytes().hex(), list(ours.shape)] == expected
