"""TF1 optimizers' variables named as TensorFlow 2.21's tf.compat.v1 names them, in every scope.

A slot is made inside the variable scope current at `minimize` time, named "<variable's full name>/<optimizer
name>" and made unique among the variable scopes opened there (`lin/lin/v/Adam`, `lin/lin/v/Adam_1`); a non-slot
variable (Adam's `beta1_power`) takes the name scope current at `minimize` time (`lin/head/beta1_power`). Both
are made under `colocate_with` their variable, so their ops carry TensorFlow's `_class: loc:@<variable>` attr.
The table is every optimizer x every context, compared with real TensorFlow (WEBFLOW_TF_PYTHON).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, plain, run_tensorflow

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

OPTIMIZERS = {
    "GradientDescent": "tf.train.GradientDescentOptimizer(0.1)",
    "Momentum": "tf.train.MomentumOptimizer(0.1, 0.9)",
    "Adam": "tf.train.AdamOptimizer(0.1)",
    "Adagrad": "tf.train.AdagradOptimizer(0.1)",
    "Adadelta": "tf.train.AdadeltaOptimizer(1.0)",
    "RMSProp": "tf.train.RMSPropOptimizer(0.1, momentum=0.5)",
    "RMSPropCentered": "tf.train.RMSPropOptimizer(0.1, centered=True)",
    "Ftrl": "tf.train.FtrlOptimizer(0.1)",   # webflow's is tf.compat.v1.estimator's (webflow/estimator/ftrl_v1.py)
}

MODEL = """v = tf.get_variable("v", shape=[2, 3], initializer=tf.ones_initializer())
b = tf.Variable([1.0, 2.0], name="b")
loss = tf.reduce_sum(v * v) + tf.reduce_sum(b * b)
"""


def _inside(header: str, body: str) -> str:
    return header + "\n" + textwrap.indent(body, "    ")


CONTEXTS = {
    "top_level": MODEL + "opt = OPT\nopt.minimize(loss)\n",
    "variable_scope": _inside("with tf.variable_scope('lin'):", MODEL + "opt = OPT\nopt.minimize(loss)\n"),
    "name_scope": _inside("with tf.name_scope('head'):", MODEL + "opt = OPT\nopt.minimize(loss)\n"),
    "variable_and_name_scope": _inside("with tf.variable_scope('lin'):", _inside(
        "with tf.name_scope('head'):", MODEL + "opt = OPT\nopt.minimize(loss)\n")),
    "minimize_elsewhere": _inside("with tf.variable_scope('lin'):", MODEL) + "opt = OPT\n" +
    _inside("with tf.variable_scope('train'), tf.name_scope('step'):", "opt.minimize(loss)\n"),
    "two_optimizers": MODEL + "opt = OPT\nopt.minimize(loss)\nOPT.minimize(loss)\n",
    "partial_var_list": MODEL + "c = tf.Variable(3.0, name='c', trainable=False)\nopt = OPT\n"
                                "opt.minimize(loss + c, var_list=[v])\n",
}

# every global variable (name, shape) and, for the optimizer's own, the `_class` attr of its VariableV2
LISTING = """
_classes = {n.name: [s.decode() for s in n.attr["_class"].list.s] for n in tf.get_default_graph().as_graph_def().node}
_own = {x.op.name for x in opt.variables()}
result = [[x.name, x.shape.as_list(), _classes[x.op.name] if x.op.name in _own else None]
          for x in tf.global_variables()]
"""

# every node the optimizer builds (not the gradients, not the model's own variables): name, type, `_class`
NODES = """
_model = ("lin/v", "lin/head/b")
_made_by_model = {m + tail for m in _model for tail in ("", "/Assign", "/read", "/Initializer/ones")}
result = [[n.name, n.op, [s.decode() for s in n.attr["_class"].list.s]]
          for n in tf.get_default_graph().as_graph_def().node
          if "gradients" not in n.name and n.name not in _made_by_model]
"""

CASES = {f"{o}-{c}": (OPTIMIZERS[o], CONTEXTS[c]) for o in OPTIMIZERS for c in CONTEXTS}


def _program(optimizer: str, context: str, tail: str) -> str:
    return context.replace("OPT", optimizer) + tail


def _webflow_result(source: str):
    import webflow.compat.v1 as tf
    from webflow.estimator.ftrl_v1 import FtrlOptimizer

    tf.disable_v2_behavior()
    scope = {"tf": tf, "np": np, "FtrlOptimizer": FtrlOptimizer}
    with tf.Graph().as_default():
        exec(source.replace("tf.train.FtrlOptimizer", "FtrlOptimizer"), scope)
    return plain(scope["result"])


@pytest.fixture(scope="module")
def their_results() -> dict:
    programs = {key: _program(o, c, LISTING) for key, (o, c) in CASES.items()}
    programs.update({f"nodes-{o}": _program(OPTIMIZERS[o], CONTEXTS["variable_and_name_scope"], NODES)
                     for o in OPTIMIZERS if o != "Ftrl"})
    return run_tensorflow(programs)


@pytest.mark.parametrize("case", list(CASES))
def test_variable_names_shapes_and_colocation_as_tensorflow(case: str, their_results: dict) -> None:
    """tf.global_variables(): names, shapes, and the optimizer variables' `_class` (loc:@<their variable>)."""
    optimizer, context = CASES[case]
    assert _webflow_result(_program(optimizer, context, LISTING)) == their_results[case]


# webflow's Ftrl builds its update from several ops where TensorFlow runs one ApplyFtrl: not compared node for node
@pytest.mark.parametrize("optimizer", [o for o in OPTIMIZERS if o != "Ftrl"])
def test_optimizer_nodes_named_and_colocated_as_tensorflow(optimizer: str, their_results: dict) -> None:
    """Node for node (slots, beta powers, update ops, their `_class` attrs) under variable_scope + name_scope."""
    mine = _webflow_result(_program(OPTIMIZERS[optimizer], CONTEXTS["variable_and_name_scope"], NODES))
    assert mine == their_results[f"nodes-{optimizer}"]


COLOCATION = """
g = tf.get_default_graph()
a = tf.constant(1.0, name="a")
v = tf.Variable(2.0, name="v")
with g.colocate_with(a.op):
    b = tf.identity(a, name="b")
    with g.colocate_with(v):
        c = tf.add(b, 1.0, name="c")
        with g.colocate_with(None, ignore_existing=True):
            d = tf.identity(c, name="d")
    with g.colocate_with(b, ignore_existing=True):
        e = tf.identity(b, name="e")
result = {n.name: [s.decode() for s in n.attr["_class"].list.s]
          for n in g.as_graph_def().node if n.name in ("b", "c", "d", "e", "c/y")}
"""


def test_graph_colocate_with_records_tensorflows_groups() -> None:
    """Graph.colocate_with: nested groups sorted, a Tensor or variable stands for its op, ignore_existing clears."""
    assert _webflow_result(COLOCATION) == run_tensorflow({"colocation": COLOCATION})["colocation"]
