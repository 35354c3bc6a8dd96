"""`tf.train.Example` and its parts as the real protobuf message classes (webflow/protos/example.proto, feature.proto),
reached lazily: `tf.train.Example` imports protobuf on first use, so `import webflow` does not load it.

    example = tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}))
    record = example.SerializeToString()   # the bytes TensorFlow writes for the same Example
"""

from __future__ import annotations

import importlib
from typing import Any

# message name -> the generated module (webflow/protos/) that defines it
MESSAGE_MODULES = {
    "Example": "example_pb2", "SequenceExample": "example_pb2",
    "Features": "feature_pb2", "Feature": "feature_pb2", "FeatureList": "feature_pb2", "FeatureLists": "feature_pb2",
    "BytesList": "feature_pb2", "FloatList": "feature_pb2", "Int64List": "feature_pb2",
}


def example_class(name: str, facade: str) -> Any:
    """The message class `name` (for a namespace module's `__getattr__`); AttributeError for any other name."""
    if name not in MESSAGE_MODULES:
        raise AttributeError(f"module {facade!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"webflow.protos.{MESSAGE_MODULES[name]}"), name)
