"""`Estimator.train`'s loop: run train_op with the hooks until they stop it or the input ends.

What TensorFlow's MonitoredTrainingSession + CheckpointSaverHook + SummarySaverHook do, in one readable loop:
a checkpoint `model.ckpt-<step>` at the start, every `save_checkpoints_steps` (or `save_checkpoints_secs`) and at
the end; the merged summaries (the model's and `loss`) every `save_summary_steps` into model_dir's event file.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

from webflow.estimator.hooks import SessionRunContext, SessionRunValues
from webflow.estimator.session_setup import latest_checkpoint, make_saver, restore_or_initialize
from webflow.framework.errors import OutOfRangeError


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self) -> str:
        return "NaN loss during training."


class _Schedule:
    """Every `steps` global steps, or every `secs` seconds (TF's SecondOrStepTimer)."""

    def __init__(self, steps: int | None, secs: float | None, first_step: int):
        self.steps, self.secs, self.last_step, self.last_time = steps, secs, first_step, time.time()

    def due(self, step: int) -> bool:
        if self.steps:
            return step >= self.last_step + self.steps
        return bool(self.secs) and time.time() - self.last_time >= self.secs

    def mark(self, step: int) -> None:
        self.last_step, self.last_time = step, time.time()


def _merge_hook_args(hooks: list, context: SessionRunContext) -> tuple:
    fetches, feed = {}, {}  # hook index -> its fetches (hooks that fetch nothing are left out)
    for index, hook in enumerate(hooks):
        args = hook.before_run(context)
        if args is not None and args.fetches is not None:
            fetches[index] = args.fetches
        if args is not None and args.feed_dict:
            feed.update(args.feed_dict)
    return fetches, feed


_WRITERS: dict = {}  # model_dir -> its FileWriter: one event file per model_dir and process, as in TensorFlow


def _writer(model_dir: str) -> Any:
    """Like FileWriterCache.get, but made without a graph: the training loop adds its graph once the session exists."""
    from webflow.summary.writer import FileWriter
    key = os.path.abspath(model_dir)
    if key not in _WRITERS or not os.path.isdir(key):
        _WRITERS[key] = FileWriter(key)
    return _WRITERS[key]


class TrainLoop:
    def __init__(self, model_dir: str, config: Any, global_step: Any, spec: Any, hooks: list,
                 warm_start_settings: Any = None):
        from webflow.ops.summary_ops import merge_all
        self.model_dir, self.config, self.global_step = model_dir, config, global_step
        self.warm_start_settings = warm_start_settings
        self.spec, self.hooks = spec, hooks
        self.saver = make_saver(config)
        self.summary = merge_all()
        self.prefix = os.path.join(model_dir, "model.ckpt")

    def _save(self, session: Any, step: int) -> None:
        self.saver.save(session, self.prefix, global_step=step, write_meta_graph=False)

    def run(self) -> float | None:
        from webflow.runtime.session import Session
        for hook in self.hooks:
            hook.begin()
        graph = self.global_step.graph
        with Session(graph=graph, config=self.config.session_config) as session:
            checkpoint = latest_checkpoint(self.model_dir)
            restore_or_initialize(session, self.saver, checkpoint)
            if checkpoint is None and self.warm_start_settings is not None:
                from webflow.estimator.warm_start import warm_start
                warm_start(session, self.warm_start_settings)
            for hook in self.hooks:
                hook.after_create_session(session, None)
            writer = _writer(self.model_dir)
            try:
                writer.add_graph(graph)
            except ValueError:  # an op type TensorFlow lacks cannot be written (io/graph_def.py): no graph shown
                pass
            try:
                loss = self._steps(session, writer)
            finally:
                writer.flush()
            for hook in self.hooks:
                hook.end(session)
        return loss

    def _steps(self, session: Any, writer: Any) -> float | None:
        step = int(session.run(self.global_step))
        self._save(session, step)
        saves = _Schedule(self.config.save_checkpoints_steps, self.config.save_checkpoints_secs, step)
        every = self.config.save_summary_steps
        summarized_at = None  # the first step of every train call is summarized (TF's SummarySaverHook)
        loss, saved_at = None, step
        while True:
            context = SessionRunContext(None, session)
            hook_fetches, feed = _merge_hook_args(self.hooks, context)
            fetches = {"train_op": self.spec.train_op, "loss": self.spec.loss, "hooks": hook_fetches}
            summarize = self.summary is not None and bool(every) and (
                summarized_at is None or step + 1 >= summarized_at + every)
            if summarize:
                fetches["summary"] = self.summary
            try:
                results = session.run(fetches, feed_dict=feed or None)
            except OutOfRangeError:
                break
            loss = float(results["loss"])
            if math.isnan(loss):
                raise NanLossDuringTrainingError()
            step = int(session.run(self.global_step))
            for index, hook in enumerate(self.hooks):
                hook.after_run(context, SessionRunValues(results["hooks"].get(index), None, None))
            if summarize:
                writer.add_summary(results["summary"], step)
                summarized_at = step
            if saves.due(step):
                self._save(session, step)
                saves.mark(step)
                saved_at = step
            if context.stop_requested:
                break
        if step != saved_at:
            self._save(session, step)
        return loss
