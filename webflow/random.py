"""`wf.random`: TensorFlow 2's random namespace (stateful ops with TF's seeds and numbers).

`wf.random.set_seed(1); wf.random.normal([3])` gives TensorFlow's numbers for the same program.
The ops are in ops/random_ops.py; the seed rules in framework/random_seed.py.
"""

# ruff: noqa: F401
from webflow.framework.random_seed import set_seed
from webflow.ops.candidate_sampling_ops import log_uniform_candidate_sampler, uniform_candidate_sampler
from webflow.ops.random_ops import categorical, truncated_normal
from webflow.ops.random_ops import random_normal as normal
from webflow.ops.random_ops import random_shuffle as shuffle
from webflow.ops.random_ops import random_uniform as uniform
from webflow.ops.stateless_random_ops import stateless_random_normal as stateless_normal
from webflow.ops.stateless_random_ops import stateless_random_uniform as stateless_uniform
from webflow.ops.stateless_random_ops import stateless_truncated_normal

__all__ = ["normal", "uniform", "truncated_normal", "shuffle", "categorical", "set_seed",
           "log_uniform_candidate_sampler", "uniform_candidate_sampler", "stateless_normal", "stateless_uniform",
           "stateless_truncated_normal"]
