"""`UNINITIALIZED`: the value a TF1 variable has in a session's resource store before its initializer runs.

VariableV2's kernel (ops/state_ops.py) returns it for a variable the session holds no value for, and a
FuncGraph's runner (runtime/executor.py) feeds it for a captured variable reference the same way; Assign
may consume it, and the executor raises FailedPreconditionError when any other op reads it. It lives here,
below ops/ and runtime/, because both use it.
"""

from __future__ import annotations


class _Uninitialized:
    def __repr__(self) -> str:
        return "UNINITIALIZED"


UNINITIALIZED = _Uninitialized()

__all__ = ["UNINITIALIZED"]
