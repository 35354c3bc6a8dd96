"""`tf.compat.v1.flags` / `tf.compat.v1.app.flags`: absl's flags, as TensorFlow re-exports them.

    tf.app.flags.DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    FLAGS = tf.app.flags.FLAGS            # parsed by tf.app.run() from sys.argv

Every name is absl.flags's; absl-py (a dependency) is imported on the first such name used, not by `import webflow`.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    import absl.flags
    return getattr(absl.flags, name)


def __dir__() -> list:
    import absl.flags
    return dir(absl.flags)
