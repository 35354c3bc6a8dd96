"""`tf.train.MonitoredTrainingSession`: a Session that initializes or restores itself and runs hooks.

With a `checkpoint_dir` it restores the latest checkpoint there (else runs the initializers), saves
checkpoints (CheckpointSaverHook: at the start, every `save_checkpoint_steps` or `save_checkpoint_secs`
(600 by default), at the end) and summaries (SummarySaverHook, every `save_summaries_steps` = 100).
`run` runs the hooks around each step; `should_stop()` turns True when a hook asks to stop or the input
ends (an OutOfRangeError leaves the `with` block quietly, as in TensorFlow).
"""

from __future__ import annotations

from typing import Any

from webflow.framework.errors import OutOfRangeError
from webflow.train.basic_session_run_hooks import CheckpointSaverHook, SummarySaverHook
from webflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

_USE_DEFAULT = object()


def _initialize(session: Any, checkpoint_dir: str | None) -> None:
    from webflow.ops.control_flow_ops import group
    from webflow.ops.lookup_tables import tables_initializer
    from webflow.ops.variables import global_variables_initializer, local_variables_initializer
    from webflow.train.saver import Saver, latest_checkpoint
    path = latest_checkpoint(checkpoint_dir) if checkpoint_dir else None
    if path:
        Saver().restore(session, path)
    else:
        session.run(global_variables_initializer())
    session.run(group(local_variables_initializer(), tables_initializer()))


class MonitoredSession:
    """A session with hooks (what MonitoredTrainingSession returns)."""

    def __init__(self, hooks: list, checkpoint_dir: str | None = None, config: Any = None):
        from webflow.framework.context import get_default_graph
        from webflow.runtime.session import Session
        self._hooks, self._stop = list(hooks), False
        for hook in self._hooks:
            hook.begin()
        self._session = Session(graph=get_default_graph(), config=config)
        _initialize(self._session, checkpoint_dir)
        for hook in self._hooks:
            hook.after_create_session(self._session, None)

    @property
    def graph(self) -> Any:
        return self._session.graph

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None) -> Any:
        if self._stop:
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._session)
        extra, feed = {}, dict(feed_dict or {})
        for index, hook in enumerate(self._hooks):
            args = hook.before_run(context)
            if args is not None and args.fetches is not None:
                extra[index] = args.fetches
            if args is not None and args.feed_dict:
                feed.update(args.feed_dict)
        try:
            values, extra_values = self._session.run([fetches, extra], feed_dict=feed or None)
        except OutOfRangeError:
            self._stop = True
            raise
        for index, hook in enumerate(self._hooks):
            hook.after_run(context, SessionRunValues(extra_values.get(index), options, run_metadata))
        self._stop = self._stop or context.stop_requested
        return values

    def should_stop(self) -> bool:
        return self._stop

    def close(self) -> None:
        if self._session is None:
            return
        try:
            for hook in self._hooks:
                hook.end(self._session)
        finally:
            self._session.close()
            self._session = None

    def __enter__(self) -> MonitoredSession:
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> bool:
        self.close()
        return kind in (OutOfRangeError, StopIteration)  # the end of the input ends training quietly


def MonitoredTrainingSession(master: str = "", is_chief: bool = True, checkpoint_dir: str | None = None,  # noqa: N802
                             scaffold: Any = None, hooks: Any = None, chief_only_hooks: Any = None,
                             save_checkpoint_secs: Any = _USE_DEFAULT, save_summaries_steps: Any = _USE_DEFAULT,
                             save_summaries_secs: Any = _USE_DEFAULT, config: Any = None,
                             stop_grace_period_secs: int = 120, log_step_count_steps: int = 100,
                             max_wait_secs: int = 7200, save_checkpoint_steps: Any = _USE_DEFAULT,
                             summary_dir: str | None = None) -> MonitoredSession:
    """TensorFlow's function of this name (a capitalized function returning a MonitoredSession)."""
    if save_checkpoint_steps is _USE_DEFAULT:
        save_checkpoint_steps = None
    if save_checkpoint_secs is _USE_DEFAULT:
        save_checkpoint_secs = 600 if save_checkpoint_steps is None else None
    if save_summaries_steps is _USE_DEFAULT:
        save_summaries_steps = 100 if save_summaries_secs in (_USE_DEFAULT, None) else None
    all_hooks = list(hooks or []) + (list(chief_only_hooks or []) if is_chief else [])
    summary_dir = summary_dir or checkpoint_dir
    if is_chief and summary_dir and save_summaries_steps:
        all_hooks.append(SummarySaverHook(save_steps=save_summaries_steps, output_dir=summary_dir))
    if is_chief and checkpoint_dir and (save_checkpoint_steps or save_checkpoint_secs):
        all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_secs=save_checkpoint_secs,
                                             save_steps=save_checkpoint_steps))
    return MonitoredSession(all_hooks, checkpoint_dir, config)
