"""`tf.summary.experimental`: the default step and the tag scope TF2's summary functions use."""

from webflow.summary.summary_v2 import get_step, set_step, summary_scope

__all__ = ["get_step", "set_step", "summary_scope"]
