"""PNG decoding and encoding and the resize ops without NumPy (as in Pyodide), in a child Python where `import numpy`
fails (tests/test_no_numpy.py's runner): files from the specification (png_files.py) decode to their pixels,
`encode_png` writes the same bytes as on the NumPy path, and a TF1 graph `decode_png -> resize_bilinear` gives the
NumPy path's numbers. Pillow is not needed for any of it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from png_files import cases
from test_no_numpy import run_without_numpy

import webflow as wf

FILES = cases(seed=5)
IMAGE = np.random.default_rng(2).integers(0, 256, (6, 7, 3), dtype=np.uint8)

PROGRAM = """
    import json, sys
    sys.modules["PIL"] = None  # and no Pillow either: PNG is pure Python
    import webflow as wf
    import webflow.compat.v1 as tf
    jobs = json.loads(open("JOBS").read())
    decoded = [wf.io.decode_png(bytes.fromhex(data)).numpy().tolist() for data in jobs["files"]]
    encoded = wf.io.encode_png(wf.constant(jobs["image"], dtype=wf.uint8)).numpy().hex()
    with tf.Graph().as_default():
        contents = tf.placeholder(tf.string, [])
        image = tf.image.decode_png(contents, channels=3)
        resized = tf.image.resize_bilinear(tf.expand_dims(image, 0), [4, 9], half_pixel_centers=True)
        nearest = tf.image.resize_nearest_neighbor(tf.expand_dims(image, 0), [9, 4], align_corners=True)
        with tf.Session() as sess:
            values = sess.run([resized, nearest], {contents: bytes.fromhex(encoded)})
    pillow = "PIL" in sys.modules and sys.modules["PIL"] is not None
    print(json.dumps({"decoded": decoded, "encoded": encoded, "resized": values[0].tolist(),
                      "nearest": values[1].tolist(), "pillow": pillow}))
"""


@pytest.fixture(scope="module")
def without_numpy(tmp_path_factory) -> dict:
    jobs = {"files": [data.hex() for _, data, _, _ in FILES], "image": IMAGE.tolist()}
    path = tmp_path_factory.mktemp("jobs") / "jobs.json"
    path.write_text(json.dumps(jobs))
    return run_without_numpy(PROGRAM.replace('"JOBS"', repr(str(path))))


def test_decodes_every_kind_of_png(without_numpy: dict) -> None:
    for (name, _, expected, _), got in zip(FILES, without_numpy["decoded"]):
        assert got == expected.tolist(), name
    assert without_numpy["pillow"] is False


def test_encode_png_same_bytes_as_numpy_path(without_numpy: dict) -> None:
    assert without_numpy["encoded"] == wf.io.encode_png(IMAGE).numpy().hex()


def test_graph_decode_and_resize_as_numpy_path(without_numpy: dict) -> None:
    from webflow.ops.image_resize_ops import resize_bilinear, resize_nearest_neighbor

    batch = IMAGE[None]

    expected = resize_bilinear(batch, [4, 9], half_pixel_centers=True).numpy()
    np.testing.assert_allclose(np.array(without_numpy["resized"]), expected, rtol=1e-6, atol=1e-4)
    expected = resize_nearest_neighbor(batch, [9, 4], align_corners=True).numpy()
    assert np.array_equal(np.array(without_numpy["nearest"]), expected)
