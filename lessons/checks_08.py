"""The checkers of lesson 8 (saving and seeing). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from checks import exercise, hint_unless

import webflow.compat.v1 as tf

BIAS = [0.25, -1.5, 3.0]


def _checkpoint(directory: str) -> str:
    """A checkpoint holding W (2 × 2, all 7) and b (= BIAS); returns its prefix."""
    with tf.Graph().as_default():
        tf.Variable(tf.fill([2, 2], 7.0), name="W")
        tf.Variable(BIAS, name="b")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, os.path.join(directory, "model"), global_step=1)


@exercise("8.1")
def exercise_1(read_bias: Callable) -> None:
    """read_bias(prefix) -> the value of the variable "b" saved at `prefix`, read without building a graph."""
    with tempfile.TemporaryDirectory() as directory:
        value = read_bias(_checkpoint(directory))
    hint_unless(value is not None, "read_bias returned None: return the value you read.")
    hint_unless(not isinstance(value, (str, bytes)), f"read_bias returned the text {value!r}; return the saved "
                "numbers (a checkpoint reader's get_tensor gives them).")
    values = value.tolist() if hasattr(value, "tolist") else value
    hint_unless(values != [[7.0, 7.0], [7.0, 7.0]], "that is W's value; the bias is saved under another name "
                "(list_variables shows the names).")
    hint_unless(isinstance(values, list) and len(values) == 3, f"read_bias returned {values!r}, not the 3 numbers "
                "of the bias.")
    hint_unless(values == BIAS, f"the values {values} are not what the checkpoint holds for 'b'.")


@exercise("8.2")
def exercise_2(make_saver: Callable) -> None:
    """make_saver(weights, biases) -> a Saver whose checkpoints hold only W, under the name "weights"."""
    with tempfile.TemporaryDirectory() as directory, tf.Graph().as_default():
        weights = tf.Variable(tf.ones([3, 2]), name="W")
        biases = tf.Variable(tf.zeros([2]), name="b")
        saver = make_saver(weights, biases)
        hint_unless(hasattr(saver, "save"), f"make_saver returned {type(saver).__name__}, not a tf.train.Saver.")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(directory, "only_w"))
        saved = dict(tf.train.list_variables(prefix))
    names = sorted(saved)
    hint_unless("b" not in names, f"the checkpoint holds {names}: tell the Saver which variables to save "
                "(its first argument, var_list).")
    hint_unless(names != ["W"], "W is saved under its own name 'W'; a dict for var_list chooses the name each "
                "variable gets in the checkpoint.")
    hint_unless(names == ["weights"], f"the checkpoint holds {names}, not just 'weights'.")
    hint_unless(saved["weights"] == [3, 2], f"'weights' has shape {saved['weights']}, not W's [3, 2].")


@exercise("8.3")
def exercise_3(log_losses: Callable) -> None:
    """log_losses(logdir, losses) writes the scalar summary "loss" = losses[i] at step i into event files."""
    losses = [2.5, 1.25, 0.75, 0.5]
    with tempfile.TemporaryDirectory() as directory, tf.Graph().as_default():
        log_losses(directory, losses)
        files = [os.path.join(root, name) for root, _, names in os.walk(directory) for name in names
                 if "tfevents" in name]
        hint_unless(files, "no event file in logdir: a tf.summary.FileWriter(logdir) writes one.")
        found = {}
        for path in files:
            for event in tf.train.summary_iterator(path):
                for value in event.summary.value:
                    found.setdefault(value.tag, []).append((event.step, value.simple_value))
    hint_unless(found, "the event file holds no summaries: add_summary each one, and flush() or close() the "
                "writer so they reach the file.")
    hint_unless("loss" in found, f"the summaries are tagged {sorted(found)}; TensorBoard's curve should be "
                "called 'loss'.")
    points = sorted(found["loss"])
    hint_unless(len(points) == len(losses), f"{len(points)} loss values were written, not one per step "
                f"({len(losses)}).")
    hint_unless([step for step, _ in points] == list(range(len(losses))), f"the steps are "
                f"{[step for step, _ in points]}: pass the step as add_summary's second argument.")
    hint_unless([value for _, value in points] == losses, "the values at each step are not the losses given.")
