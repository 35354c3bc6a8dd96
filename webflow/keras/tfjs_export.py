"""A Keras model in TensorFlow.js's layers format: what `tensorflowjs.converters.save_keras_model(model, dir)` (and
the command line `tensorflowjs_converter --input_format=keras model.h5 dir`) writes, for
`tf.loadLayersModel("…/model.json")` in a web page or Node.

    dir/model.json          {"format": "layers-model", "generatedBy": "keras v2.15.0", "convertedBy": ...,
                             "modelTopology": model.to_json() as a JSON object (class_name, config, keras_version,
                                              backend),
                             "weightsManifest": [{"paths": ["group1-shard1of2.bin", "group1-shard2of2.bin"],
                                                  "weights": [{"name": "dense/kernel", "shape": [784, 128],
                                                               "dtype": "float32"}, ...]}]}
    dir/group1-shard*of*.bin  every weight's bytes (little-endian, C order) one after another, in the manifest's
                              order, cut into shards of at most 4 MB (a browser caches each file separately)

TensorFlow.js rebuilds the model from the topology (the same Keras config `model.to_json()` gives, saving.py) and
gives each of its weights the bytes of the manifest entry with its name: the layer's weight name without `:0`
(`lstm/lstm_cell/kernel`), as tensorflowjs names them. No quantization, no training config (the loaded model is
not compiled, as with a model saved uncompiled).

Loaded and predicting as webflow does in TensorFlow.js 4.22 (tests/keras/test_tfjs_export.py): Sequential and
Functional models (several inputs/outputs, shared layers) of Dense, Dropout, Flatten, Activation, ReLU, LeakyReLU,
Softmax, Reshape, Permute, RepeatVector, Conv1D/2D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D,
Max/AveragePooling1D/2D, GlobalAverage/MaxPooling1D/2D, UpSampling2D, ZeroPadding2D, Cropping2D, BatchNormalization,
LayerNormalization, Embedding (mask_zero), SimpleRNN, LSTM, GRU(reset_after=False), Bidirectional, TimeDistributed,
Masking, Concatenate, Add, Multiply, Average, Maximum, Minimum, Dot. TensorFlow.js refuses (at load) GRU with
tf_keras's default reset_after=True, Conv1D(padding="causal") and Subtract; it differs from tf_keras on masked steps
of Bidirectional(return_sequences=True) and in a graph mixing a masked and an unmasked Embedding. A Lambda layer
or a TensorFlow op applied to a Keras tensor has no config to export (as with tensorflowjs).
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from webflow.keras import saving

SHARD_SIZE = 4 * 1024 * 1024   # tensorflowjs_converter's default --weight_shard_size_bytes
_DTYPES = {"float32": "<f4", "int32": "<i4"}   # what TensorFlow.js's weight loader reads


def save_keras_model(model: Any, artifacts_dir: str, weight_shard_size_bytes: int = SHARD_SIZE,
                     metadata: dict | None = None) -> None:
    """`tensorflowjs.converters.save_keras_model`: writes `model.json` and its weight shards into `artifacts_dir`
    (made if missing). Each file is written to a temporary name and renamed; model.json comes last, so a reader
    never finds a model.json whose shards are missing or half-written."""
    if weight_shard_size_bytes <= 0:
        raise ValueError(f"Invalid weight_shard_size_bytes: {weight_shard_size_bytes}; it must be positive.")
    topology = json.loads(saving.to_json(model))   # raises for a subclassed model, as tensorflowjs does
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by calling `build()` or by "
                         "calling the model on a batch of data.")
    specs, data = _weights(model)
    shards = [data[start:start + weight_shard_size_bytes]
              for start in range(0, len(data), weight_shard_size_bytes)]
    paths = [f"group1-shard{index + 1}of{len(shards)}.bin" for index in range(len(shards))]
    os.makedirs(artifacts_dir, exist_ok=True)
    for path, shard in zip(paths, shards):
        _write_atomically(os.path.join(artifacts_dir, path), shard)
    manifest = {"format": "layers-model", "generatedBy": f"keras v{saving.KERAS_VERSION}",
                "convertedBy": f"webflow v{_webflow_version()} (tensorflowjs layers format)",
                "modelTopology": topology, "weightsManifest": [{"paths": paths, "weights": specs}]}
    if metadata is not None:
        manifest["userDefinedMetadata"] = metadata
    _write_atomically(os.path.join(artifacts_dir, "model.json"), json.dumps(manifest).encode("utf-8"))


def _weights(model: Any) -> tuple[list, bytes]:
    """The manifest entries and the bytes of every weight, in model.weights order, each name once (a shared
    layer's weights are stored once, as tensorflowjs does)."""
    from webflow.backends.arrays.numpy_arrays import np
    specs, chunks, seen = [], [], set()
    for weight in model.weights:
        name = weight.name[:-2] if weight.name.endswith(":0") else weight.name
        if name in seen:
            continue
        seen.add(name)
        dtype = weight.dtype.name if hasattr(weight.dtype, "name") else str(weight.dtype)
        if dtype not in _DTYPES:
            raise ValueError(f"Weight {name!r} has dtype {dtype}: the TensorFlow.js export writes float32 and "
                             "int32 weights only.")
        value = np.asarray(weight.numpy(), dtype=_DTYPES[dtype])
        specs.append({"name": name, "shape": list(value.shape), "dtype": dtype})
        chunks.append(value.tobytes(order="C"))
    return specs, b"".join(chunks)


def _write_atomically(path: str, payload: bytes) -> None:
    folder, base = os.path.split(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(payload)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _webflow_version() -> str:
    from importlib import metadata
    try:
        return metadata.version("webflow")
    except metadata.PackageNotFoundError:   # a source checkout on sys.path (Pyodide, a notebook)
        return "0+unknown"
