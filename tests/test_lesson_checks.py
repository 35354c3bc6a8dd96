"""Every exercise checker of the lessons, tested both ways.

A lesson's exercise (lessons/checks.py) is checked by a function of lessons/checks_NN.py. Here each checker gets
the reference solution, which must pass, then a blank (the `...` a learner starts from) and typical wrong
answers, which must fail with a hint that points at the mistake — and never contains the answer's code.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
"""

from __future__ import annotations

import os
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()


def verdict(checker, *answer) -> checks.Verdict:
    return checker(*answer, quiet=True)


# --- the mechanism --------------------------------------------------------------------------------------------
def test_blank_functions_are_recognised() -> None:
    def blank(x): ...

    def passes(x):
        pass

    def written(x):
        return x

    assert checks.is_blank(blank) and checks.is_blank(passes) and not checks.is_blank(written)


def test_a_checker_prints_its_verdict(capsys) -> None:
    @checks.exercise("0.1")
    def positive(number):
        checks.hint_unless(number > 0, "a positive number, please")

    assert positive(3) and capsys.readouterr().out == "✔ Exercise 0.1: correct.\n"
    assert not positive(-1) and capsys.readouterr().out == "✘ Exercise 0.1, not yet. Hint: a positive number, please\n"
    result = positive("x")  # the learner's value makes the checker raise: reported as a hint, never an exception
    assert not result and "TypeError" in result.message
    assert result._ipython_display_() is None  # a verdict as a cell's value adds no second copy of the message


# --- lesson 7: input pipelines ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lesson7():
    import checks_07

    return checks_07


def reference_make_example(image, label):
    pixels = [p / 255.0 for p in image.reshape(784).tolist()]
    return tf.train.Example(features=tf.train.Features(feature={
        "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=pixels)),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)]))}))


def reference_parse_record(record):
    parsed = tf.io.parse_single_example(record, {"image": tf.io.FixedLenFeature([], tf.string),
                                                 "label": tf.io.FixedLenFeature([], tf.int64)})
    image = tf.reshape(tf.cast(tf.io.decode_raw(parsed["image"], tf.uint8), tf.float32) / 255.0, [28, 28])
    return image, tf.cast(parsed["label"], tf.int32)


def reference_make_dataset(path):
    return tf.data.TFRecordDataset(path).shuffle(200, seed=7).repeat(2).batch(50)


def test_7_1_make_example(lesson7) -> None:
    assert verdict(lesson7.exercise_1, reference_make_example)

    def blank(image, label): ...

    fails_with(lesson7.exercise_1, blank, "not started")
    fails_with(lesson7.exercise_1, lambda i, l: reference_make_example(i, l).SerializeToString(),
               "Example itself")

    def float_label(image, label):
        example = reference_make_example(image, label)
        example.features.feature["label"].Clear()
        example.features.feature["label"].float_list.value.append(float(label))
        return example

    fails_with(lesson7.exercise_1, float_label, "whole number")

    def pixels_as_bytes(image, label):  # the lesson's own format, not the exercise's
        example = reference_make_example(image, label)
        example.features.feature["pixels"].Clear()
        example.features.feature["pixels"].bytes_list.value.append(bytes(image.reshape(784).tolist()))
        return example

    fails_with(lesson7.exercise_1, pixels_as_bytes, "not as bytes")

    def unscaled(image, label):
        example = reference_make_example(image, label)
        example.features.feature["pixels"].float_list.value[:] = image.reshape(784).tolist()
        return example

    fails_with(lesson7.exercise_1, unscaled, "[0, 1]")

    def one_row(image, label):
        example = reference_make_example(image, label)
        example.features.feature["pixels"].float_list.value[:] = [p / 255.0 for p in image[14].tolist()]
        return example

    fails_with(lesson7.exercise_1, one_row, "holds 28 values", "reshape")


def test_7_2_parse_record(lesson7) -> None:
    assert verdict(lesson7.exercise_2, reference_parse_record)

    def blank(record): ...

    fails_with(lesson7.exercise_2, blank, "not started")
    fails_with(lesson7.exercise_2, lambda r: (tf.reshape(tf.cast(tf.io.decode_raw(
        tf.io.parse_single_example(r, lesson7.FEATURES)["image"], tf.uint8), tf.float32), [28, 28]),
        reference_parse_record(r)[1]), "[0, 1]")  # forgot / 255
    fails_with(lesson7.exercise_2, lambda r: (tf.reshape(reference_parse_record(r)[0], [784]),
                                              reference_parse_record(r)[1]), "[28, 28]")
    fails_with(lesson7.exercise_2, lambda r: (reference_parse_record(r)[0],
                                              tf.io.parse_single_example(r, lesson7.FEATURES)["label"]), "int32")
    fails_with(lesson7.exercise_2, lambda r: tf.io.parse_single_example(r, lesson7.FEATURES), "pair")


def test_7_3_make_dataset(lesson7) -> None:
    assert verdict(lesson7.exercise_3, reference_make_dataset)

    def blank(path): ...

    fails_with(lesson7.exercise_3, blank, "not started")
    fails_with(lesson7.exercise_3, lambda p: tf.data.TFRecordDataset(p).shuffle(200, seed=7).batch(50), "twice")
    fails_with(lesson7.exercise_3, lambda p: tf.data.TFRecordDataset(p).repeat(2).batch(50), "shuffle")
    fails_with(lesson7.exercise_3, lambda p: tf.data.TFRecordDataset(p).shuffle(200, seed=7).batch(50).repeat(2),
               "repeat first")
    fails_with(lesson7.exercise_3, lambda p: tf.data.TFRecordDataset(p).shuffle(200).repeat(2).batch(64), "50")
    fails_with(lesson7.exercise_3, lambda p: [p], "Dataset")


# --- lesson 8: saving and seeing --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lesson8():
    import checks_08

    return checks_08


def reference_read_bias(prefix):
    return tf.train.load_checkpoint(prefix).get_tensor("b")


def reference_make_saver(weights, biases):
    return tf.train.Saver({"weights": weights})


def reference_log_losses(logdir, losses):
    value = tf.placeholder(tf.float32, [])
    summary = tf.summary.scalar("loss", value)
    writer = tf.summary.FileWriter(logdir)
    with tf.Session() as sess:
        for step, loss in enumerate(losses):
            writer.add_summary(sess.run(summary, {value: loss}), step)
    writer.close()


def test_8_1_read_bias(lesson8) -> None:
    assert verdict(lesson8.exercise_1, reference_read_bias)

    def blank(prefix): ...

    fails_with(lesson8.exercise_1, blank, "not started")
    fails_with(lesson8.exercise_1, lambda p: tf.train.load_checkpoint(p).get_tensor("W"), "W's value")
    fails_with(lesson8.exercise_1, lambda p: tf.train.list_variables(p)[0][0], "text")
    fails_with(lesson8.exercise_1, lambda p: tf.train.load_checkpoint(p).get_tensor("bias"), "raised")


def test_8_2_make_saver(lesson8) -> None:
    assert verdict(lesson8.exercise_2, reference_make_saver)

    def blank(weights, biases): ...

    fails_with(lesson8.exercise_2, blank, "not started")
    fails_with(lesson8.exercise_2, lambda w, b: tf.train.Saver(), "var_list")
    fails_with(lesson8.exercise_2, lambda w, b: tf.train.Saver([w]), "a dict")
    fails_with(lesson8.exercise_2, lambda w, b: {"weights": w}, "not a tf.train.Saver")


def test_8_3_log_losses(lesson8) -> None:
    assert verdict(lesson8.exercise_3, reference_log_losses)

    def blank(logdir, losses): ...

    fails_with(lesson8.exercise_3, blank, "not started")

    def no_close(logdir, losses):  # the writer is never flushed
        tf.summary.FileWriter(logdir)

    fails_with(lesson8.exercise_3, no_close, "flush")

    def all_at_step_0(logdir, losses):
        value = tf.placeholder(tf.float32, [])
        summary = tf.summary.scalar("loss", value)
        with tf.Session() as sess, tf.summary.FileWriter(logdir) as writer:
            for loss in losses:
                writer.add_summary(sess.run(summary, {value: loss}))

    fails_with(lesson8.exercise_3, all_at_step_0, "second argument")

    def wrong_tag(logdir, losses):
        value = tf.placeholder(tf.float32, [])
        summary = tf.summary.scalar("cost", value)
        with tf.Session() as sess, tf.summary.FileWriter(logdir) as writer:
            for step, loss in enumerate(losses):
                writer.add_summary(sess.run(summary, {value: loss}), step)

    fails_with(lesson8.exercise_3, wrong_tag, "'loss'")


# --- the same, without NumPy (as in the browser) and the pictures ---------------------------------------------
def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)


def test_pictures_are_well_formed_svg() -> None:
    import xml.etree.ElementTree as ElementTree

    import plots

    pictures = [plots.bars(["a", "b & c"], [1.0, 0.25], title="t", unit="s"),
                plots.lines({"loss": [2.3, 1.0, 0.5], "other": ([0, 2], [1.0, 1.0])}, title="curves"),
                plots.images([[[0, 255], [128, 0]]], captions=[7], title="digit")]
    for picture in pictures:
        root = ElementTree.fromstring(picture._repr_svg_())
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "b & c 0.25 s" in repr(pictures[0])
    assert repr(pictures[1]) == "<picture: line chart 'curves': loss 2.3 → 0.5, other 1 → 1>"
    # the curves span the axes: the highest value at the top of the y axis (y = 24), the lowest on the x axis
    svg = ElementTree.fromstring(pictures[1]._repr_svg_())
    axis = svg.findall("{http://www.w3.org/2000/svg}line")[1]
    loss = svg.findall("{http://www.w3.org/2000/svg}polyline")[0].get("points").split()
    assert loss[0] == f"{axis.get('x1')}.0,{axis.get('y1')}.0" and loss[-1].endswith(f",{axis.get('y2')}.0")
    # the image: one rect per inked pixel (two here) plus the frame; the darkest is black
    rects = ElementTree.fromstring(pictures[2]._repr_svg_()).findall("{http://www.w3.org/2000/svg}rect")
    assert [rect.get("fill") for rect in rects] == ["rgb(0,0,0)", "rgb(127,127,127)", "none"]
