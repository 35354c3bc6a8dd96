"""`wf.queue` / `tf.queue`: TensorFlow's queue classes (`FIFOQueue`, `RandomShuffleQueue`, `PaddingFIFOQueue`,
`QueueBase`), ops/queues.py. They work eagerly and in graphs; TF1 also has them at the top level (`tf.FIFOQueue`).
"""

# ruff: noqa: F401
from webflow.ops.queues import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "QueueBase", "RandomShuffleQueue"]
