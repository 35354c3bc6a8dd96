"""webflow.runtime: running graphs (see README.md here).

Importing the package installs the executor's FuncGraph runner into the kernels of If, While and the
function-call ops (ops/functional_ops.py): ops/ defines them but sits below runtime/ and may not import it.
"""

from webflow.runtime import executor  # noqa: F401  (installs run_func_graph on import)
