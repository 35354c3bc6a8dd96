"""`enable()`: explanations appear by themselves when an op fails.

- In IPython / Jupyter: a custom exception handler for ValueError, TypeError and tf.errors.OpError that
  shows ONE output for an error a webflow op raised: the graph document with its `error` section (the
  learner's frames as `Cell In[3], line 3`, engine frames folded, the failing node highlighted), whose
  text/plain fallback is the traceback without engine frames plus the explanation. Other errors get IPython's
  usual traceback. `%debug` still steps through every frame (sys.last_traceback is the full one).
- In a plain terminal: a `sys.excepthook` that prints the usual traceback, then the explanation.
`%load_ext webflow.lab` calls enable(). The exceptions themselves are never changed or wrapped.
"""

from __future__ import annotations

import sys
from typing import Any

from webflow.framework.errors import OpError
from webflow.lab.error_frames import learner_traceback
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
        explanation = explain(value)
        if not explanation.found:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        from IPython.display import display

        sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # for %debug, as showtraceback does
        if hasattr(sys, "last_exc"):
            sys.last_exc = value
        display(notebook_bundle(explanation), raw=True)
    except Exception as error:  # never lose the traceback because of the explanation
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        print(f"(webflow.lab could not explain this error: {error!r})", file=sys.stderr)
    finally:
        _STATE["inside"] = False
    return None


def notebook_bundle(explanation: Any) -> dict:
    """The one output of a failed op: the graph document (its panel) and, as text, the learner's traceback with
    the one explanation under it."""
    bundle = dict(explanation._repr_mimebundle_())
    summary = explanation.document["error"].get("summary") if explanation.document else ""
    bundle["text/plain"] = learner_traceback(explanation.exception) + ("\n" + summary if summary else "")
    return bundle


__all__ = ["enable", "disable", "notebook_bundle", "HANDLED"]
