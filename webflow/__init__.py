"""webflow: a deep-learning engine you can read end to end, with TensorFlow's API.

`import webflow as wf` gives the TF2-style eager API; `import webflow.compat.v1 as tf` gives TF1's
graph API. Both run on one engine: a registry of ops (ops/), a graph and an executor (framework/,
runtime/), and one set of gradient rules (autodiff/).
"""

# ruff: noqa: F401, F403
from webflow._api_common import *
from webflow._api_common import bool, range, tuple
from webflow.framework.context import executing_eagerly
from webflow.framework.scopes import control_dependencies, device
from webflow.framework.scopes import name_scope_v2 as name_scope

__version__ = "0.1.0"
