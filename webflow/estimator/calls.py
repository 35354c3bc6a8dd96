"""Calling the user's input_fn and model_fn the way TensorFlow does: extra arguments only if they are asked for."""

from __future__ import annotations

import inspect
from typing import Any

from webflow.estimator.spec import EstimatorSpec


def fn_args(fn: Any) -> tuple:
    """The argument names of `fn` (a functools.partial's bound ones removed)."""
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ()


def _optional(fn: Any, params: Any, config: Any) -> dict:
    names, kwargs = fn_args(fn), {}
    if "params" in names:
        kwargs["params"] = params
    if "config" in names:
        kwargs["config"] = config
    return kwargs


def _next_element(value: Any) -> Any:
    """A tf.data Dataset becomes the tensors of one-shot iterator's get_next (OutOfRangeError at its end)."""
    from webflow.data.dataset import DatasetV2
    if isinstance(value, DatasetV2):
        from webflow.data.v1 import make_one_shot_iterator
        return make_one_shot_iterator(value).get_next()
    return value


def call_input_fn(input_fn: Any, params: Any, config: Any) -> tuple:
    """(features, labels) from input_fn's Dataset, (features, labels) tuple or features alone."""
    if "mode" in fn_args(input_fn):
        raise ValueError("input_fn must not take a mode argument in this Estimator; pass it with functools.partial.")
    result = _next_element(input_fn(**_optional(input_fn, params, config)))
    if isinstance(result, (tuple, list)):
        if len(result) != 2:
            raise ValueError(f"input_fn should return (features, labels) as a len 2 tuple, got {len(result)}")
        return result[0], result[1]
    return result, None


def check_model_fn(model_fn: Any) -> None:
    names = fn_args(model_fn)
    if "features" not in names:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")


def call_model_fn(model_fn: Any, features: Any, labels: Any, mode: str, params: Any, config: Any) -> EstimatorSpec:
    names, kwargs = fn_args(model_fn), _optional(model_fn, params, config)
    if "labels" in names:
        kwargs["labels"] = labels
    elif labels is not None:
        raise ValueError("model_fn does not take labels, but input_fn returns labels.")
    if "mode" in names:
        kwargs["mode"] = mode
    spec = model_fn(features=features, **kwargs)
    if not isinstance(spec, EstimatorSpec):
        raise ValueError(f"model_fn should return an EstimatorSpec. Given: {spec}")
    return spec
