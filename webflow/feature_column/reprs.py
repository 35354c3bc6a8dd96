"""Columns written as TensorFlow prints them, for its error messages: `IdentityCategoricalColumn(key='i',
number_buckets=4, default_value=None)` (TF's columns are namedtuples) and `<class 'tensorflow.python...'>`."""

from __future__ import annotations

from typing import Any

_TF_MODULE = "tensorflow.python.feature_column.feature_column_v2"


def _value(value: Any) -> str:
    if isinstance(value, dict) and "class_name" in value:   # a nested column, as serialization.py writes it
        return f"{value['class_name']}({', '.join(f'{k}={_value(v)}' for k, v in value['config'].items())})"
    return repr(value)


def class_name(column: Any) -> str:
    """TensorFlow's class name of `column` (SequenceCategoricalColumn, IdentityCategoricalColumn, ...)."""
    if hasattr(column, "tf_class_name"):
        return column.tf_class_name
    from webflow.feature_column.configs import serialize_column
    return serialize_column(column)["class_name"]


def describe(column: Any) -> str:
    """`column` as TensorFlow's namedtuple repr (dtypes as `tf.string`)."""
    if hasattr(column, "tf_repr"):
        return column.tf_repr()
    from webflow.feature_column.configs import serialize_column
    config = serialize_column(column)["config"]
    if "dtype" in config:
        config = {**config, "dtype": _DType(config["dtype"])}
    return f"{class_name(column)}({', '.join(f'{key}={_value(value)}' for key, value in config.items())})"


def tf_type(column: Any) -> str:
    """`type(column)` as TensorFlow prints it: `<class 'tensorflow.python.feature_column.feature_column_v2.X'>`."""
    return f"<class '{_TF_MODULE}.{class_name(column)}'>"


class _DType:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"tf.{self.name}"
