"""Opening a Session on an Estimator graph: restore the latest checkpoint or initialize, then the local state."""

from __future__ import annotations

from typing import Any


def restore_or_initialize(session: Any, saver: Any, checkpoint: str | None) -> None:
    """Variables from `checkpoint` when there is one, else their initializers; locals and tables always fresh."""
    from webflow.ops.control_flow_ops import group
    from webflow.ops.lookup_tables import tables_initializer
    from webflow.ops.variables import global_variables_initializer, local_variables_initializer
    if checkpoint:
        saver.restore(session, checkpoint)
    else:
        session.run(global_variables_initializer())
    session.run(group(local_variables_initializer(), tables_initializer()))


def make_saver(config: Any) -> Any:
    """The Saver of the default graph's global variables, under TF's names where a premade model recorded them
    (checkpoint_keys.py: TF1 premade models' optimizer slots)."""
    from webflow.estimator.checkpoint_keys import saver_var_list
    from webflow.framework.context import get_default_graph
    from webflow.train.saver import Saver
    return Saver(saver_var_list(get_default_graph()), max_to_keep=config.keep_checkpoint_max,
                 keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours)


def latest_checkpoint(model_dir: str) -> str | None:
    from webflow.train.saver import latest_checkpoint as latest
    return latest(model_dir)
