"""Lesson 11's exercise checkers (lessons/checks_11.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
"""

from __future__ import annotations

import math
import os
import struct
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_11 as lesson11  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402


def blank(*args): ...


# --- 11.1 time per op type --------------------------------------------------------------------------------------------
def reference_time_by_op_type(run_metadata):
    totals = {}
    for stat in run_metadata.step_stats.dev_stats:
        totals[stat.op_type] = totals.get(stat.op_type, 0.0) + stat.all_end_rel_micros
    return totals


def by_node(run_metadata):
    return {stat.node_name: stat.all_end_rel_micros for stat in run_metadata.step_stats.dev_stats}


def last_run_only(run_metadata):
    return {stat.op_type: stat.all_end_rel_micros for stat in run_metadata.step_stats.dev_stats}


def start_times(run_metadata):
    totals = {}
    for stat in run_metadata.step_stats.dev_stats:
        totals[stat.op_type] = totals.get(stat.op_type, 0.0) + stat.all_start_micros
    return totals


def by_backend(run_metadata):
    totals = {}
    for stat in run_metadata.step_stats.dev_stats:
        totals[stat.backend] = totals.get(stat.backend, 0.0) + stat.all_end_rel_micros
    return totals


def test_11_1_time_by_op_type() -> None:
    assert lesson11.exercise_1(reference_time_by_op_type, quiet=True).passed
    fails_with(lesson11.exercise_1, blank, "not started")
    fails_with(lesson11.exercise_1, by_node, "node names", "op_type")
    fails_with(lesson11.exercise_1, last_run_only, "*every* run")
    fails_with(lesson11.exercise_1, start_times, "start times")
    fails_with(lesson11.exercise_1, by_backend, "backends")
    fails_with(lesson11.exercise_1, lambda md: sorted(reference_time_by_op_type(md).items()), "return a dict")


def test_11_1_on_a_real_traced_step() -> None:
    """The reference answer adds up to the profile's total on a step the engine traced."""
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        y = tf.reduce_sum(tf.matmul(x, x) + tf.matmul(x, x, transpose_a=True))
        metadata = tf.RunMetadata()
        with tf.Session() as sess:
            sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    from webflow.lab import profile_section

    totals = reference_time_by_op_type(metadata)
    assert "MatMul" in totals or "_FusedMatMul" in totals
    assert sum(totals.values()) == pytest.approx(profile_section(metadata)["total_us"])


# --- 11.2 the work of a convolution ----------------------------------------------------------------------------------
def reference_conv2d_flops(batch, height, width, in_channels, out_channels, kernel_size, padding):
    if padding == "VALID":
        height, width = height - kernel_size + 1, width - kernel_size + 1
    return 2 * batch * height * width * out_channels * kernel_size * kernel_size * in_channels


def test_11_2_conv2d_flops() -> None:
    assert lesson11.exercise_2(reference_conv2d_flops, quiet=True).passed
    fails_with(lesson11.exercise_2, blank, "not started")
    fails_with(lesson11.exercise_2, lambda *a: reference_conv2d_flops(*a) // 2, "multiply *and* an add")
    fails_with(lesson11.exercise_2, lambda b, h, w, ci, co, k, p: reference_conv2d_flops(b, h, w, 1, co, k, p),
               "every* input channel")
    fails_with(lesson11.exercise_2, lambda b, h, w, ci, co, k, p: reference_conv2d_flops(b, h, w, ci, co, k, "SAME"),
               "size − k + 1")
    fails_with(lesson11.exercise_2, lambda b, h, w, ci, co, k, p: reference_conv2d_flops(b, h, w, ci, co, k, "VALID"),
               "keeps the input's height")
    fails_with(lesson11.exercise_2, lambda *a: reference_conv2d_flops(*a) + 1, "output positions")
    fails_with(lesson11.exercise_2, lambda *a: str(reference_conv2d_flops(*a)), "return a number")


def test_11_2_matches_the_engines_output_shape() -> None:
    """The output sizes the reference assumes are the ones webflow's conv2d gives."""
    for batch, height, width, cin, cout, k, padding in lesson11.CONVS:
        with tf.Graph().as_default():
            out = tf.nn.conv2d(tf.zeros([batch, height, width, cin]), tf.zeros([k, k, cin, cout]), [1, 1, 1, 1],
                               padding)
            n, ho, wo, co = out.shape.as_list()
        assert reference_conv2d_flops(batch, height, width, cin, cout, k, padding) == 2 * n * ho * wo * co * k * k * cin


# --- 11.3 a loss scale --------------------------------------------------------------------------------------------
def reference_loss_scale_for(gradients):
    largest = max(abs(g) for g in gradients)
    scale = 2 ** 24
    while scale > 1 and largest * scale > 65504:
        scale //= 2
    return scale


def test_11_3_loss_scale_for() -> None:
    assert lesson11.exercise_3(reference_loss_scale_for, quiet=True).passed
    assert lesson11.exercise_3(lambda g: float(reference_loss_scale_for(g)), quiet=True).passed
    fails_with(lesson11.exercise_3, blank, "not started")
    fails_with(lesson11.exercise_3, lambda g: 2 ** 15, "not the largest")
    fails_with(lesson11.exercise_3, lambda g: 2 ** 24, "65504", "inf")
    fails_with(lesson11.exercise_3, lambda g: 65504 / max(max(abs(x) for x in g), 1e-30), "power of two")
    fails_with(lesson11.exercise_3, lambda g: reference_loss_scale_for(g) / 2, "not the largest")
    fails_with(lesson11.exercise_3, lambda g: 2 ** 30 if max(abs(x) for x in g) < 1e-6 else
               reference_loss_scale_for(g), "more than 2**24")
    fails_with(lesson11.exercise_3, lambda g: 1.0 / max(abs(x) for x in g if x), "power of two")
    fails_with(lesson11.exercise_3, lambda g: 0, "≥ 1")


def test_11_3_the_scale_keeps_small_gradients_alive() -> None:
    """With the reference scale, every non-zero gradient of the first set survives float16 (struct's 'e')."""
    gradients = lesson11.GRADIENT_SETS[0]
    scale = reference_loss_scale_for(gradients)
    assert lesson11.half(3e-8) == 0.0 or lesson11.half(3e-8) == pytest.approx(5.96e-8, rel=0.01)
    assert all(struct.unpack("e", struct.pack("e", g * scale))[0] != 0 for g in gradients if g)
    assert math.log2(scale) == int(math.log2(scale))


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson11.exercise_1, last_run_only),
                            (lesson11.exercise_2, lambda *a: reference_conv2d_flops(*a) // 2),
                            (lesson11.exercise_3, lambda g: reference_loss_scale_for(g) / 2)):
        message = checker(answer, quiet=True).message
        for code in ("totals.get(", "2 * batch", "scale //= 2", "16777216"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
