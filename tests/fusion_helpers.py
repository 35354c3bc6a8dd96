"""What the runtime/fusion.py tests share (test_fusion*.py): the ops that ran, exact bits, the two backends, and one
program run fused then with fusion switched off on the same random numbers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import webflow
import webflow.compat.v1 as tf
from webflow.runtime import fusion


def traced(sess: tf.Session, fetches: object, feed: dict) -> tuple:
    """(values, {node name: op type} of the steps that ran), from a full trace's RunMetadata."""
    metadata = tf.RunMetadata()
    values = sess.run(fetches, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                      run_metadata=metadata)
    return values, {stat.node_name: stat.op_type for stat in metadata.step_stats.dev_stats}


def bits(array: object) -> np.ndarray:
    """The bytes of an array: equal bits, NaNs and signed zeros included."""
    return np.ascontiguousarray(np.asarray(array)).view(np.uint8)


@pytest.fixture(params=["auto", "numpy"])  # the C kernels fuse (the direct convolution's epilogue); NumPy in place
def backend(request: pytest.FixtureRequest) -> str:
    webflow.config.set_backend(request.param)
    yield request.param
    webflow.config.set_backend("auto")


def fused_then_separate(run: Callable[[], Any], rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch,
                        separate: Callable[[], Any] | None = None) -> tuple:
    """(run() with fusion, `separate` (default: run) with fusion switched off), both drawing the same numbers
    from `rng`."""
    state = rng.bit_generator.state
    fused = run()
    rng.bit_generator.state = state
    monkeypatch.setattr(fusion, "ENABLED", False)
    return fused, (separate or run)()
