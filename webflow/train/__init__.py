"""`tf.train`: optimizers, learning-rate schedules, moving averages, global step, gradient clipping."""

# ruff: noqa: F401, I001

# --- optimizers, schedules, EMA, global step (train/) ---
from webflow.train.adadelta import AdadeltaOptimizer
from webflow.train.adagrad import AdagradOptimizer
from webflow.train.adam import AdamOptimizer
from webflow.train.gradient_descent import GradientDescentOptimizer
from webflow.train.learning_rate_decay import (
    cosine_decay, exponential_decay, inverse_time_decay, natural_exp_decay, piecewise_constant, polynomial_decay,
)
from webflow.train.momentum import MomentumOptimizer
from webflow.train.moving_averages import ExponentialMovingAverage
from webflow.train.optimizer import Optimizer
from webflow.train.rmsprop import RMSPropOptimizer
from webflow.train.training_util import (
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step, global_step,
)
