"""`tf.compat.v1.random`: TF1's random namespace (`tf.random.normal`, `tf.random.set_random_seed` ...).

TF1 spells the seed setter `set_random_seed` (and has no `set_seed`) and keeps `multinomial`.
"""

# ruff: noqa: F401
from webflow.framework.random_seed import get_seed, set_random_seed
from webflow.ops.candidate_sampling_ops import log_uniform_candidate_sampler, uniform_candidate_sampler
from webflow.ops.random_ops import categorical, multinomial, truncated_normal
from webflow.ops.random_ops import random_normal as normal
from webflow.ops.random_ops import random_shuffle as shuffle
from webflow.ops.random_ops import random_uniform as uniform

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler",
           "normal", "uniform", "truncated_normal", "shuffle", "categorical", "multinomial", "set_random_seed",
           "get_seed"]
