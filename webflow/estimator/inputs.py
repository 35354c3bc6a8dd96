"""`tf.compat.v1.estimator.inputs.numpy_input_fn`: an input_fn over NumPy arrays (a dict of them, or one).

TensorFlow feeds these through a queue; here they go through tf.data (slices -> shuffle -> repeat -> batch),
which gives the same batches when `shuffle=False` (shuffled orders differ from TensorFlow's queue).
"""

from __future__ import annotations

from typing import Any

_DIRECT_KEY = "__direct_np_input_key__"


def numpy_input_fn(x: Any, y: Any = None, batch_size: int = 128, num_epochs: int | None = 1,
                   shuffle: Any = None, queue_capacity: int = 1000, num_threads: int = 1) -> Any:
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is recommended to set it "
                         f"as True for training); got {shuffle}")
    features = dict(x) if isinstance(x, dict) else {_DIRECT_KEY: x}
    if isinstance(y, dict):
        clash = set(features) & set(y)
        if clash:
            raise ValueError(f"{clash} duplicate keys are found in both x and y: {clash}")

    def input_fn() -> Any:
        from webflow.data.dataset import DatasetV2
        from webflow.data.v1 import make_one_shot_iterator
        data = DatasetV2.from_tensor_slices((features, y) if y is not None else features)
        if shuffle:
            data = data.shuffle(queue_capacity)
        data = data.repeat(num_epochs).batch(batch_size)
        element = make_one_shot_iterator(data).get_next()
        batch_features, labels = element if y is not None else (element, None)
        if not isinstance(x, dict):
            batch_features = batch_features[_DIRECT_KEY]
        return (batch_features, labels) if y is not None else batch_features

    return input_fn
