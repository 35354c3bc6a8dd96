"""The elementwise ops the optimizers, schedules and clipping use, gathered in one import.

They are defined in their op families (ops/unary_math_ops.py, binary_math_ops.py, logic_ops.py,
gather_ops.py); train/ modules write `_math.sqrt(...)` so the update formulas read like the maths.
"""

# ruff: noqa: F401, A004
from webflow.ops.binary_math_ops import maximum, minimum, pow
from webflow.ops.gather_ops import unique
from webflow.ops.logic_ops import greater, less, less_equal, logical_and
from webflow.ops.unary_math_ops import abs, ceil, cos, exp, floor, sqrt, square
