"""Stories for tf.variable_scope / tf.get_variable: names, reuse rules, errors, defaults, eager mode.

Expected names and messages are TensorFlow's (its documented behaviour); the `*_like_tensorflow`
tests run the very same script under real TensorFlow (WEBFLOW_TF_PYTHON) and under webflow, and
compare what they print line by line.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow.ops import variable_scope as vs

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One header line each, so both runs report the same line numbers (they appear in error messages).
HEADERS = {
    "tensorflow_graph": "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior(); tf.disable_resource_variables()",
    "webflow_graph": "import webflow.compat.v1 as tf; tf.disable_v2_behavior()",
    "tensorflow_eager": "import tensorflow.compat.v1 as tf",
    "webflow_eager": "import webflow.compat.v1 as tf",
}
CATCH = textwrap.dedent("""
    def attempt(function):
        try:
            print("ok", function())
        except Exception as error:
            print(type(error).__name__, repr(str(error)))
""")


def run_script(body: str, mode: str, tmp_path, engine: str) -> list:
    """Runs `body` under `engine` ("tensorflow" or "webflow") in a subprocess; returns its stdout lines."""
    if engine == "tensorflow":
        python = os.environ.get("WEBFLOW_TF_PYTHON")
        if not python:
            pytest.skip("WEBFLOW_TF_PYTHON is not set: no real TensorFlow to compare with")
    else:
        python = sys.executable
    script = tmp_path / "script.py"  # the same path for both engines: tracebacks in messages must match
    script.write_text(HEADERS[f"{engine}_{mode}"] + "\n" + CATCH + textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([python, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.splitlines()


def assert_same_as_tensorflow(body: str, mode: str, tmp_path) -> None:
    expected = run_script(body, mode, tmp_path, "tensorflow")
    actual = run_script(body, mode, tmp_path, "webflow")
    assert actual == expected


@pytest.fixture
def graph_mode():
    tf.disable_v2_behavior()
    yield tf.get_default_graph()


# --- names ------------------------------------------------------------------------------------------------
def test_variables_take_the_variable_scope_name_and_ops_the_name_scope(graph_mode):
    with tf.variable_scope("foo") as scope:
        v = tf.get_variable("v", [2, 3], initializer=tf.zeros_initializer())
        c = tf.constant(1.0, name="c")
    assert (scope.name, scope.original_name_scope, v.name, c.name) == ("foo", "foo/", "foo/v:0", "foo/c:0")
    assert [op.name for op in graph_mode.get_operations()] == [
        "foo/v/Initializer/zeros", "foo/v", "foo/v/Assign", "foo/v/read", "foo/c"]
    with tf.variable_scope("foo", reuse=True) as again:
        assert tf.get_variable("v") is v
        assert tf.constant(1.0, name="c").name == "foo_1/c:0"  # a second entry opens name scope foo_1/
    assert (again.name, again.original_name_scope) == ("foo", "foo_1/")


def test_reentering_a_scope_object_keeps_its_name_but_opens_a_new_name_scope(graph_mode):
    with tf.variable_scope("foo") as scope:
        pass
    with tf.variable_scope(scope) as same:
        assert tf.constant(1.0, name="c").name == "foo_1/c:0"
        with tf.variable_scope("bar") as inner:
            v = tf.get_variable("v", [1], initializer=tf.zeros_initializer())
            assert tf.constant(1.0, name="c").name == "foo_1/bar/c:0"
    assert (same.name, same.original_name_scope) == ("foo", "foo/")
    assert (inner.name, inner.original_name_scope, v.name) == ("foo/bar", "foo_1/bar/", "foo/bar/v:0")
    with tf.variable_scope(scope, auxiliary_name_scope=False):
        assert tf.constant(1.0, name="c").name == "c:0"  # no name scope opened
        with tf.name_scope(scope.original_name_scope):
            assert tf.constant(1.0, name="c").name == "foo/c:0"


def test_default_name_is_made_unique_among_variable_scopes(graph_mode):
    names = []
    for _ in range(2):
        with tf.variable_scope(None, default_name="d") as scope:
            names.append((scope.name, scope.original_name_scope))
            for _ in range(2):
                with tf.variable_scope(None, default_name="e") as inner:
                    names.append(inner.name)
    with tf.variable_scope("d") as named:  # a string name is not made unique; only its name scope is
        names.append((named.name, named.original_name_scope))
    with tf.variable_scope(None, default_name="d") as scope:
        names.append((scope.name, scope.original_name_scope))
    assert names == [("d", "d/"), "d/e", "d/e_1", ("d_1", "d_1/"), "d_1/e", "d_1/e_1", ("d", "d_2/"), ("d_2", "d_3/")]


def test_get_variable_scope_at_the_root(graph_mode):
    root = tf.get_variable_scope()
    assert (root.name, root.reuse, root.original_name_scope) == ("", False, "")
    with tf.variable_scope("a") as a:
        assert tf.get_variable_scope() is a
    assert tf.get_variable_scope() is root


def test_variable_names_ignore_an_enclosing_name_scope(graph_mode):
    with tf.name_scope("outer"):
        with tf.variable_scope("foo"):
            v = tf.get_variable("v", [1], initializer=tf.ones_initializer())
            c = tf.constant(0.0, name="c")
    assert (v.name, c.name) == ("foo/v:0", "outer/foo/c:0")
    assert v.initializer.name == "foo/v/Assign"


# --- reuse -------------------------------------------------------------------------------------------------
def test_reuse_true_returns_the_same_variable_and_is_inherited(graph_mode):
    with tf.variable_scope("layer"):
        with tf.variable_scope("dense"):
            w = tf.get_variable("w", [2, 2], initializer=tf.ones_initializer())
    with tf.variable_scope("layer", reuse=True) as scope:
        assert scope.reuse is True
        with tf.variable_scope("dense", reuse=False) as inner:  # False means "inherit": still reusing
            assert inner.reuse is True
            assert tf.get_variable("w", [2, 2]) is w
            assert tf.get_variable("w") is w  # shape may be omitted when reusing
    assert tf.global_variables() == [w] and tf.trainable_variables() == [w]


def test_auto_reuse_creates_once_then_returns(graph_mode):
    def layer():
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            return tf.get_variable("w", [3], initializer=tf.zeros_initializer())

    first, second = layer(), layer()
    assert first is second and first.name == "shared/w:0"
    assert len(tf.global_variables()) == 1


def test_reuse_variables_switches_the_current_scope_to_reuse(graph_mode):
    with tf.variable_scope("rnn") as scope:
        w = tf.get_variable("w", [1], initializer=tf.zeros_initializer())
        scope.reuse_variables()
        assert tf.get_variable("w") is w
    with tf.variable_scope(scope):  # the scope object remembers reuse
        assert tf.get_variable("w") is w


def test_reuse_errors_have_tensorflows_messages(graph_mode):
    with tf.variable_scope("foo"):
        tf.get_variable("v", [2], initializer=tf.zeros_initializer()); line = sys._getframe().f_lineno  # noqa: E702
    with pytest.raises(ValueError) as error:
        with tf.variable_scope("foo"):
            tf.get_variable("v", [2])
    # TF appends the (up to five) innermost user frames that created the variable, innermost first.
    assert str(error.value).startswith(
        "Variable foo/v already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in "
        f"VarScope? Originally defined at:\n\n  File \"{__file__}\", line {line}, in "
        "test_reuse_errors_have_tensorflows_messages\n")
    with tf.variable_scope("foo", reuse=True):
        with pytest.raises(ValueError, match=r"^Variable foo/w does not exist, or was not created with "
                           r"tf.get_variable\(\). Did you mean to set reuse=tf.AUTO_REUSE in VarScope\?$"):
            tf.get_variable("w", [3])
        with pytest.raises(ValueError, match=r"^Trying to share variable foo/v, but specified shape \(3,\) and "
                           r"found shape \(2,\).$"):
            tf.get_variable("v", [3])
        with pytest.raises(ValueError, match="^Trying to share variable foo/v, but specified dtype int32 and "
                           "found dtype float32_ref.$"):
            tf.get_variable("v", [2], dtype=tf.int32)


def test_argument_errors(graph_mode):
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is required"):
        tf.variable_scope(None)
    with pytest.raises(ValueError, match="The reuse parameter must be True or False or None."):
        tf.variable_scope("a", reuse=3)
    with pytest.raises(TypeError, match="VariableScope: name_or_scope must be a string or VariableScope."):
        with tf.variable_scope(3):
            pass
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(ValueError, match="^Variable s did not get an initializer, so its `shape` argument"):
        tf.get_variable("s")
    with pytest.raises(ValueError, match="^If initializer is a constant, do not specify shape.$"):
        tf.get_variable("s", [2], initializer=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"^Initializer type '<dtype: 'float32'>' and explicit dtype "
                       r"'<dtype: 'int32'>' don't match.$"):
        tf.get_variable("s", initializer=tf.constant([1.0, 2.0]), dtype=tf.int32)
    with pytest.raises(ValueError, match=r"^An initializer for variable s of <dtype: 'resource'> is required$"):
        tf.get_variable("s", [2], dtype=tf.resource)
    assert tf.get_variable_scope().name == ""  # every failed `with` left the scope stack as it was


# --- defaults and values -------------------------------------------------------------------------------------
def test_scope_defaults_are_inherited_and_overridable(graph_mode):
    with tf.variable_scope("s", initializer=tf.constant_initializer(3.0), dtype=tf.float64) as scope:
        a = tf.get_variable("a", [2])
        b = tf.get_variable("b", [2], initializer=tf.ones_initializer(), dtype=tf.float32)
        with tf.variable_scope("inner"):
            c = tf.get_variable("c", [1])
    with tf.variable_scope(scope):  # re-entering the object brings its defaults back
        d = tf.get_variable("d", [1])
    assert [v.dtype.base_dtype for v in (a, b, c, d)] == [tf.float64, tf.float32, tf.float64, tf.float64]
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        values = session.run([a, b, c, d])
    np.testing.assert_array_equal(values[0], [3.0, 3.0])
    np.testing.assert_array_equal(values[1], [1.0, 1.0])
    assert values[2][0] == 3.0 and values[3][0] == 3.0


def test_integer_bool_and_value_initializers(graph_mode):
    counts = tf.get_variable("counts", [3], dtype=tf.int32)  # integers default to zeros
    flags = tf.get_variable("flags", [2], dtype=tf.bool)
    from_list = tf.get_variable("from_list", initializer=[[1.0, 2.0]])
    from_tensor = tf.get_variable("from_tensor", initializer=tf.constant([4, 5], dtype=tf.int64))
    assert from_list.shape.as_list() == [1, 2] and from_tensor.dtype.base_dtype == tf.int64
    assert from_list.initial_value.op.name == "from_list/initial_value"
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        values = session.run([counts, flags, from_list, from_tensor])
    assert values[0].dtype == np.int32 and values[0].tolist() == [0, 0, 0]
    assert values[1].tolist() == [False, False]
    assert values[2].tolist() == [[1.0, 2.0]] and values[3].tolist() == [4, 5]


def test_regularizer_loss_is_collected_under_the_variable_name(graph_mode):
    def l2(v):
        return tf.reduce_sum(v * v, name="l2")

    with tf.variable_scope("r", regularizer=l2):
        w = tf.get_variable("w", initializer=[1.0, -2.0, 3.0])
        tf.get_variable("no_loss", [1], regularizer=vs.no_regularizer, initializer=tf.zeros_initializer())
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [loss.name for loss in losses] == ["r/w/Regularizer/l2:0"]
    with tf.Session() as session:
        session.run(w.initializer)
        assert session.run(losses[0]) == pytest.approx(1.0 + 4.0 + 9.0)


def test_trainable_collections_and_local_variables(graph_mode):
    frozen = tf.get_variable("frozen", [1], trainable=False, initializer=tf.zeros_initializer())
    mine = tf.get_variable("mine", [1], collections=["my_collection"], initializer=tf.zeros_initializer())
    local = vs.get_local_variable("local", [1], initializer=tf.zeros_initializer())
    assert tf.trainable_variables() == [mine]
    assert tf.global_variables() == [frozen]
    assert tf.get_collection("my_collection") == [mine]
    assert tf.local_variables() == [local]


def test_custom_getter_wraps_the_true_getter(graph_mode):
    seen = []

    def renaming_getter(getter, name, *args, **kwargs):
        seen.append(name)
        return getter(name + "_suffix", *args, **kwargs)

    with tf.variable_scope("g", custom_getter=renaming_getter):
        v = tf.get_variable("v", [1], initializer=tf.zeros_initializer())
    assert seen == ["g/v"] and v.name == "g/v_suffix:0"


def test_each_graph_has_its_own_store():
    first, second = tf.Graph(), tf.Graph()
    with first.as_default():
        with tf.variable_scope("a"):
            v1 = tf.get_variable("v", [1], initializer=tf.zeros_initializer())
    with second.as_default():
        with tf.variable_scope("a"):  # no "already exists": another graph
            v2 = tf.get_variable("v", [1], initializer=tf.zeros_initializer())
    assert v1.graph is first and v2.graph is second and v1.name == v2.name == "a/v:0"


# --- eager (TF2 running compat.v1 code) ---------------------------------------------------------------------
def test_eager_get_variable_always_creates_a_resource_variable():
    with tf.variable_scope("foo") as scope:
        assert scope.reuse is tf.AUTO_REUSE and scope.original_name_scope == "foo/"
        v = tf.get_variable("v", [2], initializer=tf.zeros_initializer())
        w = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        with tf.variable_scope("bar"):
            inner = tf.get_variable("w", [1], initializer=tf.zeros_initializer())
    assert type(v).__name__ == "ResourceVariable" and v is not w
    assert (v.name, w.name, inner.name) == ("foo/v:0", "foo/v:0", "foo/bar/w:0")
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])


# --- the same scripts under real TensorFlow --------------------------------------------------------------------
GRAPH_SCRIPT = """
    def names(prefix):
        return [op.name + ":" + op.type for op in tf.get_default_graph().get_operations() if op.name.startswith(prefix)]

    def make():
        return tf.get_variable("v", [2], initializer=tf.zeros_initializer())

    def clash():
        with tf.variable_scope("foo"):
            return make()

    with tf.variable_scope("foo") as s:
        v = make()
        print(s.name, s.original_name_scope, tf.constant(1.0, name="c").name)
    attempt(clash)
    with tf.variable_scope("foo", reuse=True) as s2:
        print(s2.name, s2.original_name_scope, tf.get_variable("v") is v, tf.constant(1.0, name="c").name)
        attempt(lambda: tf.get_variable("w", [3]).name)
        attempt(lambda: tf.get_variable("v", [3]).name)
        attempt(lambda: tf.get_variable("v", [2], dtype=tf.int32).name)
        attempt(lambda: tf.get_variable("v", [2], dtype=tf.float32).name)
    with tf.variable_scope(s) as s3:
        print(s3.name, s3.original_name_scope, tf.constant(1.0, name="c").name, s3.reuse)
        with tf.variable_scope("bar") as b:
            print(b.name, b.original_name_scope, tf.constant(1.0, name="c").name)
    for _ in range(2):
        with tf.variable_scope(None, default_name="d") as d:
            print(d.name, d.original_name_scope)
            with tf.variable_scope(None, default_name="e") as e:
                print(e.name, e.original_name_scope)
    with tf.variable_scope("d") as d:
        print(d.name, d.original_name_scope)
    with tf.variable_scope("a", reuse=tf.AUTO_REUSE) as a:
        print(tf.get_variable("x", [1], dtype=tf.int64) is tf.get_variable("x", [1], dtype=tf.int64), a.reuse)
        with tf.variable_scope("b") as b:
            print(b.reuse)
    with tf.variable_scope("r", reuse=True):
        with tf.variable_scope("b", reuse=False) as b:
            print(b.reuse)
    with tf.variable_scope("reg", regularizer=lambda v: tf.reduce_sum(v * v, name="l2")):
        w = tf.get_variable("w", initializer=[1.0, 2.0])
    print([t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)])
    print(names("foo"), names("a/"), names("reg/"))
    attempt(lambda: tf.get_variable("s"))
    attempt(lambda: tf.get_variable("s", [2], initializer=[1.0, 2.0]))
    attempt(lambda: tf.get_variable("s", [2], dtype=tf.resource))
    attempt(lambda: tf.get_variable("s", initializer=tf.constant([1.0, 2.0]), dtype=tf.int32))
    attempt(lambda: tf.variable_scope(None))
    attempt(lambda: tf.variable_scope("a", reuse=3))
    attempt(lambda: tf.variable_scope(3).__enter__())
    attempt(lambda: tf.variable_scope(None, default_name="x", reuse=True).__enter__())
    root = tf.get_variable_scope()
    print(repr(root.name), root.reuse, repr(root.original_name_scope))
"""


def test_graph_mode_names_and_errors_like_tensorflow(tmp_path):
    assert_same_as_tensorflow(GRAPH_SCRIPT, "graph", tmp_path)


EAGER_SCRIPT = """
    with tf.variable_scope("foo") as s:
        print(s.reuse, s.name, s.original_name_scope)
        v = tf.get_variable("v", [2], initializer=tf.zeros_initializer())
        w = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        print(type(v).__name__, v.name, w.name, v is w, w.numpy().tolist())
        with tf.variable_scope("bar") as b:
            print(b.original_name_scope, tf.get_variable("w", [1], dtype=tf.int32).name)
    with tf.variable_scope("foo", reuse=True) as s:
        print(s.reuse, s.original_name_scope, tf.get_variable("new", [1], initializer=tf.zeros_initializer()).name)
    for _ in range(2):
        with tf.variable_scope(None, default_name="d") as s:
            print(s.name, s.original_name_scope)
    print(tf.get_variable("i", [2], dtype=tf.int32).numpy().tolist())
    print(tf.get_variable("s", initializer=tf.constant([1.0, 2.0])).numpy().tolist())
"""


def test_eager_mode_like_tensorflow(tmp_path):
    assert_same_as_tensorflow(EAGER_SCRIPT, "eager", tmp_path)


def test_name_scope_with_outer_values_inside_a_loop_body_and_a_cond_branch():
    """TF1 `name_scope(name, default, values)` given outer tensors inside a body stays in the body's graph (as
    TensorFlow's _get_graph_from_inputs does while building a function): 3 added until >= 10 is 12; 3*2 is 6."""
    with tf.Graph().as_default():
        three = tf.constant(3.0)

        def body(total):
            with tf.name_scope(None, "step", [three]):
                return total + three

        def branch():
            with tf.name_scope("inner", values=[three]):
                return three * 2.0

        loop = tf.while_loop(lambda total: total < 10.0, body, [tf.constant(0.0)])
        chosen = tf.cond(tf.constant(True), branch, lambda: three)
        with tf.Session() as session:
            assert session.run([loop, chosen]) == [12.0, 6.0]
