"""`keras.datasets.mnist.load_data()` (webflow/datasets/mnist.py: a data folder, the cache, a verified download).

webflow.datasets is imported when data is asked for, not with `import webflow`: a program that never loads MNIST
needs none of it (the Pyodide engine tests install webflow without that folder).
"""

from __future__ import annotations

import types
from typing import Any


def _load_mnist(*args: Any, **kwargs: Any) -> Any:
    from webflow.datasets import mnist as mnist_files

    return mnist_files.load_data(*args, **kwargs)


mnist = types.SimpleNamespace(load_data=_load_mnist)
