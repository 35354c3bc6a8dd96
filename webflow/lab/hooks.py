"""`enable()`: explanations appear by themselves when an op fails.

- In IPython / Jupyter: a custom exception handler for ValueError, TypeError and tf.errors.OpError that
  shows the usual traceback, then displays the graph document with its `error` section (the failing
  node highlighted) and the explanation text.
- In a plain terminal: a `sys.excepthook` that prints the usual traceback, then the explanation.
`%load_ext webflow.lab` calls enable(). The exceptions themselves are never changed or wrapped.
"""

from __future__ import annotations

import sys
from typing import Any

from webflow.framework.errors import OpError
from webflow.lab.shape_errors import explain

HANDLED = (ValueError, TypeError, OpError)
_STATE: dict[str, Any] = {"previous_hook": None, "ipython": None}


def enable(ipython: Any = None) -> None:
    """Installs the IPython handler (when running in IPython) and the terminal excepthook (idempotent)."""
    if ipython is None:
        module = sys.modules.get("IPython")
        ipython = module.get_ipython() if module is not None else None
    if ipython is not None:
        ipython.set_custom_exc(HANDLED, _ipython_handler)
        _STATE["ipython"] = ipython
    if _STATE["previous_hook"] is None:
        _STATE["previous_hook"] = sys.excepthook
        sys.excepthook = _excepthook


def disable() -> None:
    """Removes what enable() installed."""
    if _STATE["ipython"] is not None:
        _STATE["ipython"].set_custom_exc((), None)
        _STATE["ipython"] = None
    if _STATE["previous_hook"] is not None:
        sys.excepthook = _STATE["previous_hook"]
        _STATE["previous_hook"] = None


def _excepthook(etype: type, value: BaseException, tb: Any) -> None:
    _STATE["previous_hook"](etype, value, tb)  # the usual traceback first
    if isinstance(value, HANDLED):
        try:
            explanation = explain(value)
        except Exception as error:  # an explanation must never hide the real error
            print(f"(webflow.lab could not explain this error: {error!r})", file=sys.stderr)
            return
        if explanation.found:
            print("\n" + explanation.text, file=sys.stderr)


def _ipython_handler(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> Any:
    """IPython's CustomTB: show the usual traceback, then display the explanation.

    IPython's run_code calls this instead of showing the traceback (and ignores what it returns), so it
    shows the traceback itself. (Older IPython versions call CustomTB from showtraceback: the flag
    makes that inner call just return the structured traceback.)"""
    if _STATE.get("inside"):
        return shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    _STATE["inside"] = True
    try:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        explanation = explain(value)
        if explanation.found:
            from IPython.display import display

            display(explanation._repr_mimebundle_(), raw=True)
    except Exception as error:  # never lose the traceback because of the explanation
        print(f"(webflow.lab could not explain this error: {error!r})", file=sys.stderr)
    finally:
        _STATE["inside"] = False
    return None


__all__ = ["enable", "disable", "HANDLED"]
