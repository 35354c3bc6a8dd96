"""tf.train.Saver's graph: the save/ nodes (SaveV2, RestoreV2, one Assign per variable, restore_all), node for node,
with the SaverDef naming them; sharded, reshape, dict var_list, a second Saver (save_1/), defer_build; then saving
and restoring through those ops, and running them by their SaverDef names as TF1 code does."""

import os
import tempfile

import numpy as np
from _graph_listing import graph_nodes
from _util import error_name


def _variables(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.variable_scope("s"):
        w = tf.get_variable("w", [2, 3], dtype=tf.float64, initializer=tf.constant_initializer(0.5))
    step = tf.train.get_or_create_global_step()
    return v, w, step


def _saver_def(saver):
    d = saver.saver_def
    return [d.filename_tensor_name, d.save_tensor_name, d.restore_op_name, d.max_to_keep, d.sharded,
            d.keep_checkpoint_every_n_hours, int(d.version)]


def _new_nodes(tf, before):
    return graph_nodes(tf.get_default_graph())[before:]


def program_nodes(tf):
    out = {}
    v, w, _ = _variables(tf)
    before = len(tf.get_default_graph().get_operations())
    saver = tf.train.Saver(max_to_keep=3, keep_checkpoint_every_n_hours=2.0)
    out["default"] = _new_nodes(tf, before)
    out["default_def"] = _saver_def(saver)
    before = len(tf.get_default_graph().get_operations())
    second = tf.train.Saver({"renamed/w": w, "v": v}, reshape=True, filename="weights")
    out["second"] = _new_nodes(tf, before)
    out["second_def"] = _saver_def(second)
    before = len(tf.get_default_graph().get_operations())
    third = tf.train.Saver([v], name="mine")
    out["named"] = _new_nodes(tf, before)
    out["named_def"] = _saver_def(third)
    return out


def program_sharded(tf):
    out = {}
    _variables(tf)
    before = len(tf.get_default_graph().get_operations())
    saver = tf.train.Saver(sharded=True)
    out["nodes"] = _new_nodes(tf, before)
    out["saver_def"] = _saver_def(saver)
    with tf.Session() as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(folder, "model"), global_step=4)
        out["saved_as"] = os.path.basename(path)
        out["files"] = sorted(os.listdir(folder))
        out["listed"] = [[name, list(shape)] for name, shape in tf.train.list_variables(path)]
    return out


def program_defer_build(tf):
    out = {}
    v = tf.Variable(3.0, name="early")
    saver = tf.train.Saver(defer_build=True)
    late = tf.Variable(4.0, name="late")
    out["saver_def_before_build"] = saver.saver_def is None
    with tf.Session() as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(tf.global_variables_initializer())
        out["save_before_build"] = error_name(lambda: saver.save(sess, os.path.join(folder, "m")))
        before = len(tf.get_default_graph().get_operations())
        saver.build()
        out["nodes"] = _new_nodes(tf, before)
        path = saver.save(sess, os.path.join(folder, "m"))
        out["listed"] = [name for name, _ in tf.train.list_variables(path)]
        sess.run([v.assign(0.0), late.assign(0.0)])
        saver.restore(sess, path)
        out["restored"] = sess.run([v, late])
    return out


def program_run_by_name(tf):
    """TF1 code that runs the Saver's ops itself: the save tensor with the prefix fed, then restore_all."""
    out = {}
    v, w, step = _variables(tf)
    saver = tf.train.Saver()
    names = saver.saver_def
    with tf.Session() as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(tf.global_variables_initializer())
        sess.run([v.assign([7.0, 8.0]), tf.assign_add(step, 5)])
        prefix = os.path.join(folder, "direct")
        saved = sess.run(names.save_tensor_name, {names.filename_tensor_name: prefix})
        out["save_tensor_value"] = os.path.basename(saved.decode())
        out["files"] = sorted(os.listdir(folder))
        sess.run([v.assign([0.0, 0.0]), w.assign(tf.zeros([2, 3], tf.float64)), step.assign(0)])
        sess.run(names.restore_op_name, {names.filename_tensor_name: prefix})
        out["restored"] = sess.run([v, w, step])
        out["reader"] = tf.train.load_checkpoint(prefix).get_tensor("v")
        sess.run(v.assign([1.5, 2.5]))
        saver.restore(sess, saver.save(sess, os.path.join(folder, "through_saver")))
        out["through_saver"] = sess.run(v)
    return out


def program_meta_graph_round_trip(tf):
    """The .meta holds the Saver's nodes and SaverDef: import_meta_graph's Saver runs the imported save/restore_all."""
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        graph = tf.Graph()
        with graph.as_default():
            v, _, _ = _variables(tf)
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(v.assign([3.0, 4.0]))
                path = saver.save(sess, os.path.join(folder, "model"))
        other = tf.Graph()
        with other.as_default():
            restorer = tf.train.import_meta_graph(path + ".meta")
            out["saver_def"] = _saver_def(restorer)
            out["imported_save_ops"] = sorted(op.name for op in other.get_operations() if op.name.startswith("save/"))
            with tf.Session() as sess:
                restorer.restore(sess, path)
                out["restored"] = sess.run("v:0")
                out["w"] = sess.run("s/w:0")
            out["second"] = _saver_def(tf.train.Saver())
    return out


def program_restore_errors(tf):
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        with tf.Graph().as_default():
            tf.Variable([1.0, 2.0], name="v")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                path = tf.train.Saver().save(sess, os.path.join(folder, "m"))
        cases = {"shape": lambda: tf.Variable([1.0, 2.0, 3.0], name="v"),
                 "dtype": lambda: tf.Variable([1, 2], name="v"),
                 "missing": lambda: tf.Variable(1.0, name="absent")}
        for key, make in cases.items():
            with tf.Graph().as_default():
                make()
                saver = tf.train.Saver()
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    out[key] = error_name(lambda: saver.restore(sess, path))  # noqa: B023 - called at once
        with tf.Graph().as_default():
            tf.Variable(1.0, name="v")
            saver = tf.train.Saver()
            out["not_a_checkpoint"] = error_name(lambda: saver.restore(None, os.path.join(folder, "none")))
            out["none_path"] = error_name(lambda: saver.restore(None, None))
    out["no_variables"] = error_name(lambda: tf.train.Saver())
    out["saved_values"] = np.array([1.0, 2.0], np.float32)
    return out
