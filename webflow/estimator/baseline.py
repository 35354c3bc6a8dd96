"""`BaselineClassifier` / `BaselineRegressor`: a bias-only model (TF 2.15's V2 classes), for comparison.

logits = `baseline/bias` (zeros, one per logit) repeated for every example; the default optimizer is
Keras's FTRL at learning rate 0.3. The classifier learns the class prior, the regressor the label mean.
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.canned_optimizers import get_optimizer
from webflow.estimator.estimator import Estimator
from webflow.estimator.heads import SUM_OVER_BATCH_SIZE, RegressionHead, classification_head, optimizer_train_op_fn
from webflow.estimator.mode_keys import ModeKeys
from webflow.framework import dtypes

_LEARNING_RATE = 0.3


def _baseline_logits(features: dict, weight_key: Any, units: int) -> Any:
    from webflow.ops.array_ops import ones, shape
    from webflow.ops.concat_ops import stack
    from webflow.ops.init_ops import Zeros
    from webflow.ops.variable_scope import get_variable, variable_scope
    sizes = [shape(value)[0] for key, value in features.items() if key != weight_key]
    with variable_scope("baseline"):
        bias = get_variable("bias", [units], dtypes.float32, initializer=Zeros())
    return bias * ones(stack([sizes[0], units]), dtypes.float32)


def _baseline_model_fn(head: Any, weight_column: Any, optimizer: Any, v1: bool) -> Any:
    weight_key = weight_column if isinstance(weight_column, str) else getattr(weight_column, "key", None)

    def model_fn(features: Any, labels: Any, mode: str) -> Any:
        logits = _baseline_logits(features, weight_key, head.logits_dimension)
        train_op_fn = None
        if mode == ModeKeys.TRAIN:
            from webflow.estimator.dnn import scope_variables
            train_op_fn = optimizer_train_op_fn(get_optimizer(optimizer, _LEARNING_RATE, v1),
                                                lambda: scope_variables("baseline"))
        return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)
    return model_fn


class BaselineClassifier(Estimator):
    """`BaselineClassifier(model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
    optimizer='Ftrl', config=None, loss_reduction=SUM_OVER_BATCH_SIZE)`."""

    _v1 = False  # True in estimator/v1.py's tf.compat.v1.estimator classes

    def __init__(self, model_dir: str | None = None, n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Any = None, optimizer: Any = "Ftrl", config: Any = None,
                 loss_reduction: str = SUM_OVER_BATCH_SIZE):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction, self._v1)
        super().__init__(_baseline_model_fn(head, weight_column, optimizer, self._v1), model_dir, config)


class BaselineRegressor(Estimator):
    """`BaselineRegressor(model_dir=None, label_dimension=1, weight_column=None, optimizer='Ftrl', config=None,
    loss_reduction=SUM_OVER_BATCH_SIZE)`."""

    _v1 = False

    def __init__(self, model_dir: str | None = None, label_dimension: int = 1, weight_column: Any = None,
                 optimizer: Any = "Ftrl", config: Any = None, loss_reduction: str = SUM_OVER_BATCH_SIZE):
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(_baseline_model_fn(head, weight_column, optimizer, self._v1), model_dir, config)
