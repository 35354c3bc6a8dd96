"""webflow.autodiff: reverse-mode differentiation (see README.md here).

Importing the package registers the gradients of If, While and the function-call ops
(func_graph_gradients.py): ops/ defines those ops but sits below autodiff/ and may not import it.
"""

from webflow.autodiff import (
    func_graph_gradients,  # noqa: F401  (registers gradients on import)
    py_function_gradient,  # noqa: F401  (EagerPyFunc's gradient)
)
