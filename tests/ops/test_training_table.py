"""Op table rows for the ops of ops/nn_loss_ops.py and the fused optimizer updates of ops/training_ops.py
(see tests/op_harness.py for what each row checks).

An update row makes a `wf.Variable` of each state input (the variable and its slots) and applies one update
to them with the other inputs: in the harness's graph that is TF1's `Apply<X>` / `SparseApply<X>` on
RefVariables, eagerly `ResourceApply<X>` / `ResourceSparseApply<X>` on ResourceVariables; the row's outputs
are the new values of every state variable, and both runs must give the NumPy reference. The references
follow the formulas in TensorFlow's op documentation (training_ops.cc), one NumPy line per formula; a sparse
update applies the dense formula to rows `indices[i]` in order, so a repeated index updates twice.
How the optimizers drive these ops over many steps is in tests/test_optimizers.py.
"""

import inspect

import numpy as np
import pytest
from op_harness import OpCase, after_initializers, check_case

import webflow as wf
from webflow.ops import training_ops

rng = np.random.default_rng(1)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pos(*shape):
    return rng.uniform(0.1, 1.0, shape).astype(np.float32)


def f32(value):
    return np.float32(value)


# --- the update formulas in NumPy (TensorFlow's documented math) -------------------------------------
def np_gradient_descent(var, alpha, delta):
    return [var - alpha * delta]


def np_momentum(var, accum, lr, grad, momentum, nesterov=False):
    accum = accum * momentum + grad
    var = var - grad * lr - accum * momentum * lr if nesterov else var - lr * accum
    return [var, accum]


def np_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, nesterov=False):
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    step = m * beta1 + (1 - beta1) * grad if nesterov else m
    return [var - lr_t * step / (np.sqrt(v) + epsilon), m, v]


def np_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = rho * ms + (1 - rho) * grad * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms + epsilon)
    return [var - mom, ms, mom]


def np_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    mg = rho * mg + (1 - rho) * grad
    ms = rho * ms + (1 - rho) * grad * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms - mg * mg + epsilon)
    return [var - mom, mg, ms, mom]


def np_adagrad(var, accum, lr, grad):
    accum = accum + grad * grad
    return [var - lr * grad / np.sqrt(accum), accum]


def np_adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    accum = rho * accum + (1 - rho) * grad * grad
    update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
    accum_update = rho * accum_update + (1 - rho) * update * update
    return [var - lr * update, accum, accum_update]


def sparse(update, num_state):
    """The dense formula applied to rows indices[i] of the state, with grad row i, in order."""
    def reference(*args):
        state, rest = [np.array(s) for s in args[:num_state]], list(args[num_state:])
        grad_at = list(inspect.signature(update).parameters)[num_state:].index("grad")  # indices follow grad
        grad, indices = rest[grad_at], rest[grad_at + 1]
        others = rest[:grad_at] + rest[grad_at + 2:]
        for i, row in enumerate(indices):
            scalars = others[:grad_at] + [grad[i]] + others[grad_at:]
            for s, new in zip(state, update(*[s[row] for s in state], *scalars)):
                s[row] = new
        return state

    return reference


def update_row(name, op, num_state, inputs, reference, **attrs):
    """A row applying `Apply<op>` (graph) / `ResourceApply<op>` (eager) to variables made of the first
    `num_state` inputs; outputs: every state variable's new value."""
    def build(*tensors):
        eager = wf.executing_eagerly()
        variables = [wf.Variable(t) for t in tensors[:num_state]]
        with after_initializers(*variables):
            update = training_ops.apply_update(("Resource" if eager else "") + op, variables,
                                               list(tensors[num_state:]), attrs)
        with wf.control_dependencies([] if eager else [update]):
            return [v.read_value() for v in variables]

    return OpCase(name, build, inputs, reference, grad=False, unknown_shapes=False)  # variables need shapes


SHAPE = (4, 3)
ROWS = np.array([2, 0, 2], np.int32)  # row 2 twice


def g(rows=None):
    """A random array of the variables' SHAPE, or of `rows` rows (a sparse update's gradient)."""
    return r(*((SHAPE[0],) if rows is None else (rows,)), SHAPE[1])


CASES = [
    OpCase("l2_loss_matrix", lambda t: wf.nn.l2_loss(t), [r(3, 4)], lambda t: np.sum(t * t) / 2),
    OpCase("l2_loss_scalar", lambda t: wf.nn.l2_loss(t), [np.float32(1.5)], lambda t: np.asarray(np.sum(t * t) / 2)),
    # dense updates
    update_row("apply_gradient_descent", "ApplyGradientDescent", 1, [g(), f32(0.1), g()], np_gradient_descent),
    update_row("apply_momentum", "ApplyMomentum", 2, [g(), g(), f32(0.1), g(), f32(0.9)], np_momentum),
    update_row("apply_momentum_nesterov", "ApplyMomentum", 2, [g(), g(), f32(0.1), g(), f32(0.9)],
               lambda *args: np_momentum(*args, nesterov=True), use_nesterov=True),
    update_row("apply_adam", "ApplyAdam", 3,
               [g(), g(), pos(*SHAPE), f32(0.9 ** 3), f32(0.999 ** 3), f32(0.01), f32(0.9), f32(0.999), f32(1e-7), g()],
               np_adam),
    update_row("apply_adam_nesterov", "ApplyAdam", 3,
               [g(), g(), pos(*SHAPE), f32(0.9), f32(0.999), f32(0.01), f32(0.9), f32(0.999), f32(1e-7), g()],
               lambda *args: np_adam(*args, nesterov=True), use_nesterov=True),
    update_row("apply_rms_prop", "ApplyRMSProp", 3,
               [g(), pos(*SHAPE), g(), f32(0.01), f32(0.9), f32(0.5), f32(1e-7), g()], np_rms_prop),
    update_row("apply_centered_rms_prop", "ApplyCenteredRMSProp", 4,
               [g(), g() * 0.1, pos(*SHAPE) + 0.1, g(), f32(0.01), f32(0.9), f32(0.5), f32(1e-7), g()],
               np_centered_rms_prop),
    update_row("apply_adagrad", "ApplyAdagrad", 2, [g(), pos(*SHAPE), f32(0.1), g()], np_adagrad),
    update_row("apply_adadelta", "ApplyAdadelta", 3,
               [g(), pos(*SHAPE), pos(*SHAPE), f32(1.0), f32(0.95), f32(1e-6), g()], np_adadelta),
    # sparse updates: grad rows for the variable rows in ROWS
    update_row("sparse_apply_momentum", "SparseApplyMomentum", 2, [g(), g(), f32(0.1), g(3), ROWS, f32(0.9)],
               sparse(np_momentum, 2)),
    update_row("sparse_apply_rms_prop", "SparseApplyRMSProp", 3,
               [g(), pos(*SHAPE), g(), f32(0.01), f32(0.9), f32(0.5), f32(1e-7), g(3), ROWS], sparse(np_rms_prop, 3)),
    update_row("sparse_apply_centered_rms_prop", "SparseApplyCenteredRMSProp", 4,
               [g(), g() * 0.1, pos(*SHAPE) + 0.1, g(), f32(0.01), f32(0.9), f32(0.5), f32(1e-7), g(3), ROWS],
               sparse(np_centered_rms_prop, 4)),
    update_row("sparse_apply_adagrad", "SparseApplyAdagrad", 2, [g(), pos(*SHAPE), f32(0.1), g(3), ROWS],
               sparse(np_adagrad, 2)),
    update_row("sparse_apply_adadelta", "SparseApplyAdadelta", 3,
               [g(), pos(*SHAPE), pos(*SHAPE), f32(1.0), f32(0.95), f32(1e-6), g(3), ROWS], sparse(np_adadelta, 3)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case: OpCase) -> None:
    check_case(case)
