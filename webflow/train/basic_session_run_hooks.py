"""The basic session-run hooks of `tf.train` / `tf.estimator`: StopAtStepHook, LoggingTensorHook,
CheckpointSaverHook, SummarySaverHook (what MonitoredTrainingSession installs for a checkpoint_dir)."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from webflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues


def _global_step_tensor() -> Any:
    from webflow.train.training_util import get_global_step
    step = get_global_step()
    if step is None:
        raise RuntimeError("Global step should be created to use StopAtStepHook.")
    return step


class StopAtStepHook(SessionRunHook):
    """Stops after `num_steps` more steps, or once the global step reaches `last_step`."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self) -> None:
        self._global_step_tensor = _global_step_tensor()

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context: SessionRunContext) -> Any:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        # The fetched value may predate this step's increment: read the variable again before deciding.
        if int(run_values.results) + 1 >= self._last_step:
            if int(run_context.session.run(self._global_step_tensor)) >= self._last_step:
                run_context.request_stop()


class LoggingTensorHook(SessionRunHook):
    """Logs tensors' values every `every_n_iter` steps (or `every_n_secs`), and at the end with `at_end`."""

    def __init__(self, tensors: Any, every_n_iter: int | None = None, every_n_secs: float | None = None,
                 at_end: bool = False, formatter: Any = None):
        if not at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if isinstance(tensors, dict):
            self._order, self._tensors = list(tensors.keys()), dict(tensors)
        else:
            names = [t if isinstance(t, str) else t.name for t in tensors]
            self._order, self._tensors = names, dict(zip(names, tensors))
        self._every_n_iter, self._every_n_secs, self._at_end = every_n_iter, every_n_secs, at_end
        self._formatter = formatter

    def begin(self) -> None:
        from webflow.framework.context import get_default_graph
        graph = get_default_graph()
        self._fetches = {k: graph.as_graph_element(t) if isinstance(t, str) else t for k, t in self._tensors.items()}
        self._iter, self._last_time, self._last_values = 0, None, None

    def _due(self) -> bool:
        if self._every_n_iter is not None:
            return self._iter % self._every_n_iter == 0
        if self._every_n_secs is None:
            return False
        return self._last_time is None or time.time() - self._last_time >= self._every_n_secs

    def before_run(self, run_context: SessionRunContext) -> Any:
        self._should_log = self._due()
        return SessionRunArgs(self._fetches) if self._should_log or self._at_end else None

    def _log(self, values: dict) -> None:
        logger = logging.getLogger("tensorflow")  # tf.get_logger()'s logger
        if self._formatter:
            logger.info(self._formatter(values))
        else:
            logger.info(", ".join(f"{name} = {values[name]}" for name in self._order))
        self._last_time = time.time()

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if run_values.results is not None:
            self._last_values = run_values.results
        if self._should_log:
            self._log(run_values.results)
        self._iter += 1

    def end(self, session: Any) -> None:
        if self._at_end and self._last_values is not None:
            self._log(session.run(self._fetches))


class _Timer:
    """Every `steps` global steps or every `secs` seconds (TF's SecondOrStepTimer)."""

    def __init__(self, steps: int | None, secs: float | None):
        self.steps, self.secs, self.last_step, self.last_time = steps, secs, None, None

    def due(self, step: int) -> bool:
        if self.last_step is None:
            return True
        if self.steps:
            return step >= self.last_step + self.steps
        return bool(self.secs) and time.time() - self.last_time >= self.secs

    def mark(self, step: int) -> None:
        self.last_step, self.last_time = step, time.time()


class CheckpointSaverHook(SessionRunHook):
    """Saves `<checkpoint_dir>/model.ckpt-<step>` when the session starts, every N steps/secs, and at the end."""

    def __init__(self, checkpoint_dir: str, save_secs: float | None = None, save_steps: int | None = None,
                 saver: Any = None, checkpoint_basename: str = "model.ckpt", scaffold: Any = None,
                 listeners: Any = None, save_graph_def: bool = True):
        if (save_secs is None) == (save_steps is None):
            raise ValueError("exactly one of save_secs and save_steps should be provided.")
        self._path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._saver, self._timer = saver, _Timer(save_steps, save_secs)

    def begin(self) -> None:
        from webflow.train.saver import Saver
        self._global_step = _global_step_tensor()
        if self._saver is None:
            self._saver = Saver()

    def _save(self, session: Any, step: int) -> None:
        self._saver.save(session, self._path, global_step=step, write_meta_graph=False)
        self._timer.mark(step)

    def after_create_session(self, session: Any, coord: Any) -> None:
        self._save(session, int(session.run(self._global_step)))

    def before_run(self, run_context: SessionRunContext) -> Any:
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        step = int(run_context.session.run(self._global_step))
        if self._timer.due(step):
            self._save(run_context.session, step)

    def end(self, session: Any) -> None:
        step = int(session.run(self._global_step))
        if step != self._timer.last_step:
            self._save(session, step)


class SummarySaverHook(SessionRunHook):
    """Runs the merged summaries on the first step and then every `save_steps`, into `output_dir`."""

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None, output_dir: str | None = None,
                 summary_writer: Any = None, scaffold: Any = None, summary_op: Any = None):
        if (save_secs is None) == (save_steps is None):
            raise ValueError("Exactly one of save_steps and save_secs should be provided.")
        self._every, self._output_dir, self._writer, self._op = save_steps, output_dir, summary_writer, summary_op
        self._last = None

    def begin(self) -> None:
        from webflow.ops.summary_ops import merge_all
        from webflow.summary.writer import FileWriter
        self._global_step = _global_step_tensor()
        self._op = self._op if self._op is not None else merge_all()
        if self._writer is None and self._output_dir:
            self._writer = FileWriter(self._output_dir)

    def before_run(self, run_context: SessionRunContext) -> Any:
        step = int(run_context.session.run(self._global_step))
        self._due = self._op is not None and (self._last is None or step + 1 >= self._last + (self._every or 1))
        return SessionRunArgs({"summary": self._op}) if self._due else None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if self._due and self._writer is not None:
            self._last = int(run_context.session.run(self._global_step))
            self._writer.add_summary(run_values.results["summary"], self._last)

    def end(self, session: Any) -> None:
        if self._writer is not None:
            self._writer.flush()
