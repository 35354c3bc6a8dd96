"""`Estimator.evaluate` and `Estimator.predict`: run the EVAL / PREDICT graph on the latest checkpoint."""

from __future__ import annotations

import os
from typing import Any

from webflow.estimator.hooks import SessionRunContext, SessionRunValues
from webflow.estimator.mode_keys import ModeKeys
from webflow.estimator.session_setup import latest_checkpoint, make_saver, restore_or_initialize
from webflow.framework.errors import OutOfRangeError


def _checkpoint(estimator: Any, checkpoint_path: str | None, purpose: str) -> str | None:
    path = checkpoint_path or latest_checkpoint(estimator.model_dir)
    if not path:
        from webflow.platform import tf_logging
        tf_logging.info(f"Could not find trained model in model_dir: {estimator.model_dir}, "
                        f"running initialization to {purpose}.")
    return path


def _run_with_hooks(session: Any, hooks: list, fetches: Any) -> Any:
    context = SessionRunContext(None, session)
    extra = {i: args.fetches for i, hook in enumerate(hooks)
             if (args := hook.before_run(context)) is not None and args.fetches is not None}
    values, extra_values = session.run([fetches, extra])
    for index, hook in enumerate(hooks):
        hook.after_run(context, SessionRunValues(extra_values.get(index), None, None))
    return values, context.stop_requested


def _metric_ops(spec: Any) -> dict:
    from webflow.metrics.metrics_impl import mean
    metrics = {"loss": mean(spec.loss)}
    metrics.update(spec.eval_metric_ops)
    return metrics


def _write_summaries(estimator: Any, name: str | None, results: dict) -> None:
    """Each scalar result as an event in model_dir/eval (eval_<name>), at the evaluated global step."""
    from webflow.framework.graph import Graph
    from webflow.runtime.session import Session
    from webflow.summary.v1 import merge_all, scalar
    from webflow.summary.writer import FileWriter
    folder = os.path.join(estimator.model_dir, "eval" if not name else f"eval_{name}")
    with Graph().as_default() as graph:
        for key, value in results.items():
            if key != "global_step" and getattr(value, "ndim", 0) == 0:
                scalar(key, float(value))
        summary = merge_all()
        if summary is None:
            return
        with Session(graph=graph) as session:
            writer = FileWriter(folder)
            writer.add_summary(session.run(summary), int(results["global_step"]))
            writer.close()


def evaluate(estimator: Any, input_fn: Any, steps: int | None, hooks: list, checkpoint_path: str | None,
             name: str | None) -> dict:
    from webflow.framework.graph import Graph
    from webflow.runtime.session import Session
    path = _checkpoint(estimator, checkpoint_path, "evaluate")
    with Graph().as_default() as graph:
        global_step, spec, _ = estimator._build(input_fn, ModeKeys.EVAL)
        metrics = _metric_ops(spec)
        updates = [update for _, update in metrics.values()]
        hooks = hooks + list(spec.evaluation_hooks)
        for hook in hooks:
            hook.begin()
        with Session(graph=graph, config=estimator._config.session_config) as session:
            restore_or_initialize(session, make_saver(estimator._config), path)
            for hook in hooks:
                hook.after_create_session(session, None)
            done = 0
            while steps is None or done < steps:
                try:
                    _, stop = _run_with_hooks(session, hooks, updates)
                except OutOfRangeError:
                    break
                done += 1
                if stop:
                    break
            results = session.run({key: value for key, (value, _) in metrics.items()})
            results["global_step"] = session.run(global_step)
            for hook in hooks:
                hook.end(session)
    _write_summaries(estimator, name, results)
    return results


def _examples(values: Any, single: bool) -> Any:
    """One batch of predictions as examples (yield_single_examples) or as the whole batch."""
    if not single:
        yield values
        return
    if not isinstance(values, dict):
        yield from values
        return
    sizes = {len(v) for v in values.values()}
    if len(sizes) != 1:
        raise ValueError(f"Batch length of predictions should be same. {values} has different batch length.")
    for index in range(sizes.pop()):
        yield {key: value[index] for key, value in values.items()}


def predict(estimator: Any, input_fn: Any, predict_keys: Any, hooks: list, checkpoint_path: str | None,
            single: bool) -> Any:
    from webflow.framework.graph import Graph
    from webflow.runtime.session import Session
    path = _checkpoint(estimator, checkpoint_path, "predict")
    with Graph().as_default() as graph:
        _, spec, _ = estimator._build(input_fn, ModeKeys.PREDICT)
        predictions = spec.predictions
        if predict_keys is not None and isinstance(predictions, dict):
            keys = [predict_keys] if isinstance(predict_keys, str) else list(predict_keys)
            missing = [k for k in keys if k not in predictions]
            if missing:
                raise ValueError(f"Expected to run at least one output from {list(predictions)}, "
                                 f"provided {missing}.")
            predictions = {k: predictions[k] for k in keys}
        hooks = hooks + list(spec.prediction_hooks)
        for hook in hooks:
            hook.begin()
        with Session(graph=graph, config=estimator._config.session_config) as session:
            restore_or_initialize(session, make_saver(estimator._config), path)
            while True:
                try:
                    values, stop = _run_with_hooks(session, hooks, predictions)
                except OutOfRangeError:
                    break
                yield from _examples(values, single)
                if stop:
                    break
            for hook in hooks:
                hook.end(session)
