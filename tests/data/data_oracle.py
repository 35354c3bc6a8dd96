"""Runs tf.data programs under real TensorFlow 2.21 (one subprocess per test module) and under webflow.

A program is Python source using the name `tf`, `np` and `tmp` (a directory for files); it sets `result`.
"eager" programs get TF2 (`import tensorflow as tf` / `import webflow as tf`), "graph" programs TF1 in graph
mode (`tensorflow.compat.v1` / `webflow.compat.v1` after disable_v2_behavior). Results become JSON-able
values: arrays lists, bytes their latin-1 text, dtypes their names.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result  # noqa: F401  (the tests import them from here)

_PLAIN = r'''
def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "numpy") and callable(value.numpy):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype == object:
            return plain(value.tolist())
        return value.tolist()
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if hasattr(value, "as_numpy_dtype"):
        return value.name
    if hasattr(value, "as_list") and hasattr(value, "rank"):
        return None if value.rank is None else value.as_list()
    return value
'''

_DRIVER = r"""
import json, sys
import numpy as np
""" + _PLAIN + r"""
request = json.load(sys.stdin)
mode, tmp, programs = request["mode"], request["tmp"], request["programs"]
if mode == "graph":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import tensorflow as tf
out = {}
for key, source in programs.items():
    if mode == "graph":
        tf.reset_default_graph()
    else:
        tf.random.set_seed(None)
    scope = {"tf": tf, "np": np, "tmp": tmp}
    try:
        exec(source, scope)
        out[key] = plain(scope["result"])
    except Exception as error:
        out[key] = {"error": type(error).__name__}
print("RESULT:" + json.dumps(out))
"""

_NAMESPACE = {"np": np}
exec(_PLAIN, _NAMESPACE)  # plain() here too: both engines' results are made JSON-able by the same code
plain = _NAMESPACE["plain"]


def run_tensorflow(programs: dict, mode: str, tmp: str) -> dict:
    """{id: result} from real TensorFlow ({"error": name} for a program that raised)."""
    request = json.dumps({"mode": mode, "tmp": tmp, "programs": programs})
    return child_result(_DRIVER, request, timeout=900)


def run_webflow(source: str, mode: str, tmp: str) -> Any:
    """The program's result under webflow (its exception's type name as {"error": name})."""
    if mode == "graph":
        import webflow.compat.v1 as tf

        tf.disable_v2_behavior()
        tf.reset_default_graph()
    else:
        import webflow as tf

        tf.random.set_seed(None)
    scope = {"tf": tf, "np": np, "tmp": tmp}
    try:
        exec(source, scope)
        return json.loads(json.dumps(plain(scope["result"])))
    except Exception as error:
        return {"error": type(error).__name__}
    finally:
        if mode == "graph":
            tf.enable_v2_behavior()


def same(got: Any, expected: Any) -> bool:
    """Equal, floats within 1e-6 relative."""
    if isinstance(expected, float) and isinstance(got, (int, float)):
        return abs(got - expected) <= 1e-6 * max(1.0, abs(expected))
    if isinstance(expected, list) and isinstance(got, list):
        return len(got) == len(expected) and all(same(g, e) for g, e in zip(got, expected))
    if isinstance(expected, dict) and isinstance(got, dict):
        return got.keys() == expected.keys() and all(same(got[k], expected[k]) for k in expected)
    return got == expected
