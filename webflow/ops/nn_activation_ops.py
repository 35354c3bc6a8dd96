"""Activation ops beyond Relu: Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign, and their *Grad ops.

As in TensorFlow, each activation's gradient is a dedicated *Grad op (Relu6Grad, EluGrad ...) fed the
activation's input or output, exactly as TF's nn_grad.py does, and those *Grad ops have gradients
themselves where TensorFlow has them (so second derivatives work; SoftsignGrad has none, as in TF).
Softplus is the exception, as in TF: its gradient is grad * sigmoid(x), built from ordinary ops.
Float attrs (LeakyRelu's alpha) are stored as float32, as TensorFlow's attrs are, so alpha=0.2 on a
float64 tensor multiplies by 0.20000000298023224, the same number TensorFlow uses.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import activations as c_activations
from webflow.framework import dtypes
from webflow.ops import array_ops, logic_ops, math_ops, unary_math_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import apply_op, op_scope, output_spec, register_gradient, register_op
from webflow.ops.shapes import same_as_input

FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
REALS = dtypes.NUMERIC

# Selu's constants (Klambauer et al. 2017), the values TensorFlow's kernel uses.
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _grad_op_shape(inputs: list, attrs: dict) -> tuple:
    """A *Grad op: the gradient and the saved forward tensor have one shape, which is the output's."""
    gradients, saved = inputs
    return output_spec(gradients.shape.merge_with(saved.shape), gradients.dtype.base_dtype)


def _attr_float(value: float, dtype: Any) -> Any:
    """A float attr as the kernel sees it: rounded to float32 (TF's attr type), then cast to the input dtype."""
    return np.asarray(np.float32(value)).astype(dtype)


# --- Relu6 ------------------------------------------------------------------------------------------
@register_op("Relu6", "Relu6", inputs=("features",), shape=same_as_input, allowed=REALS, c=c_activations.relu6)
def relu6_kernel(features: Any) -> Any:
    """y = min(max(x, 0), 6)."""
    return np.minimum(np.maximum(features, features.dtype.type(0)), features.dtype.type(6))


@register_gradient("Relu6")
def _relu6_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 where 0 < y < 6, else 0 (the Relu6Grad op, fed the output as TF does)."""
    return relu6_grad(grad, op.outputs[0])


def relu6(features: Any, name: str | None = None) -> Any:
    """`tf.nn.relu6`: min(max(features, 0), 6)."""
    with op_scope(name or "Relu6") as scope:
        return apply_op("Relu6", [convert_to_tensor(features, name="features")], name=scope or None)


@register_op("Relu6Grad", "Relu6Grad", inputs=("gradients", "features"), shape=_grad_op_shape,
             same_dtype=(0, 1), allowed=REALS, c=c_activations.relu6_grad)
def relu6_grad_kernel(gradients: Any, features: Any) -> Any:
    """backprops = gradients where 0 < features < 6, else 0."""
    return np.where((features > 0) & (features < 6), gradients, np.zeros((), gradients.dtype))


@register_gradient("Relu6Grad")
def _relu6_grad_grad(op: Any, grad: Any) -> list:
    """Linear in `gradients` with the same mask; piecewise constant in `features` (zero gradient)."""
    features = op.inputs[1]
    return [relu6_grad(grad, features), array_ops.zeros_like(features)]


def relu6_grad(gradients: Any, features: Any, name: str | None = None) -> Any:
    return apply_op("Relu6Grad", [gradients, features], name=name)


# --- Elu --------------------------------------------------------------------------------------------
@register_op("Elu", "Elu", inputs=("features",), shape=same_as_input, allowed=FLOATS, c=c_activations.elu)
def elu_kernel(features: Any) -> Any:
    """y = exp(x) - 1 where x < 0, else x."""
    return np.where(features < 0, np.expm1(np.minimum(features, 0)), features).astype(features.dtype, copy=False)


@register_gradient("Elu")
def _elu_grad(op: Any, grad: Any) -> Any:
    """dy/dx = y + 1 where y < 0, else 1 (the EluGrad op, fed the output)."""
    return elu_grad(grad, op.outputs[0])


def elu(features: Any, name: str | None = None) -> Any:
    """`tf.nn.elu`: exp(features) - 1 if features < 0, features otherwise."""
    return apply_op("Elu", [features], name=name)


@register_op("EluGrad", "EluGrad", inputs=("gradients", "outputs"), shape=_grad_op_shape, same_dtype=(0, 1),
             allowed=FLOATS, c=c_activations.elu_grad)
def elu_grad_kernel(gradients: Any, outputs: Any) -> Any:
    """backprops = gradients * (outputs + 1) where outputs < 0, else gradients."""
    return np.where(outputs < 0, gradients * (outputs + outputs.dtype.type(1)), gradients)


@register_gradient("EluGrad")
def _elu_grad_grad(op: Any, grad: Any) -> list:
    """d/dgradients = EluGrad(grad, outputs); d/doutputs = grad * gradients where outputs < 0, else 0."""
    gradients, outputs = op.inputs
    return [elu_grad(grad, outputs),
            logic_ops.where(logic_ops.less(outputs, 0), math_ops.multiply(grad, gradients),
                            array_ops.zeros_like(outputs))]


def elu_grad(gradients: Any, outputs: Any, name: str | None = None) -> Any:
    return apply_op("EluGrad", [gradients, outputs], name=name)


# --- Selu -------------------------------------------------------------------------------------------
@register_op("Selu", "Selu", inputs=("features",), shape=same_as_input, allowed=FLOATS, c=c_activations.selu)
def selu_kernel(features: Any) -> Any:
    """y = scale * alpha * (exp(x) - 1) where x < 0, else scale * x (scale ~ 1.0507, alpha ~ 1.6733)."""
    scale, scale_alpha = features.dtype.type(SELU_SCALE), features.dtype.type(SELU_SCALE * SELU_ALPHA)
    negative = scale_alpha * np.expm1(np.minimum(features, 0))
    return np.where(features < 0, negative, scale * features).astype(features.dtype, copy=False)


@register_gradient("Selu")
def _selu_grad(op: Any, grad: Any) -> Any:
    """dy/dx = y + scale * alpha where y < 0, else scale (the SeluGrad op, fed the output)."""
    return selu_grad(grad, op.outputs[0])


def selu(features: Any, name: str | None = None) -> Any:
    """`tf.nn.selu`: scale * alpha * (exp(features) - 1) if features < 0, scale * features otherwise."""
    return apply_op("Selu", [features], name=name)


@register_op("SeluGrad", "SeluGrad", inputs=("gradients", "outputs"), shape=_grad_op_shape, same_dtype=(0, 1),
             allowed=FLOATS, c=c_activations.selu_grad)
def selu_grad_kernel(gradients: Any, outputs: Any) -> Any:
    """backprops = gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale."""
    scale, scale_alpha = outputs.dtype.type(SELU_SCALE), outputs.dtype.type(SELU_SCALE * SELU_ALPHA)
    return np.where(outputs < 0, gradients * (outputs + scale_alpha), gradients * scale)


@register_gradient("SeluGrad")
def _selu_grad_grad(op: Any, grad: Any) -> list:
    """d/dgradients = SeluGrad(grad, outputs); d/doutputs = grad * gradients where outputs < 0, else 0."""
    gradients, outputs = op.inputs
    return [selu_grad(grad, outputs),
            logic_ops.where(logic_ops.less(outputs, 0.0), math_ops.multiply(grad, gradients),
                            array_ops.zeros_like(outputs))]


def selu_grad(gradients: Any, outputs: Any, name: str | None = None) -> Any:
    return apply_op("SeluGrad", [gradients, outputs], name=name)


# --- LeakyRelu --------------------------------------------------------------------------------------
@register_op("LeakyRelu", "LeakyRelu", inputs=("features",), shape=same_as_input, allowed=FLOATS,
             c=c_activations.leaky_relu)
def leaky_relu_kernel(features: Any, *, alpha: float = 0.2) -> Any:
    """y = x where x > 0, else alpha * x."""
    return np.where(features > 0, features, features * _attr_float(alpha, features.dtype))


@register_gradient("LeakyRelu")
def _leaky_relu_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 where x > 0, else alpha (the LeakyReluGrad op, fed the input)."""
    return leaky_relu_grad(grad, op.inputs[0], alpha=op.get_attr("alpha"))


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Any:
    """`tf.nn.leaky_relu`: features if features > 0, alpha * features otherwise (integers are cast to float32)."""
    with op_scope(name or "LeakyRelu") as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", [features], {"alpha": float(alpha)}, name=scope or None)


@register_op("LeakyReluGrad", "LeakyReluGrad", inputs=("gradients", "features"), shape=_grad_op_shape,
             same_dtype=(0, 1), allowed=FLOATS, c=c_activations.leaky_relu_grad)
def leaky_relu_grad_kernel(gradients: Any, features: Any, *, alpha: float = 0.2) -> Any:
    """backprops = gradients where features > 0, else alpha * gradients."""
    return np.where(features > 0, gradients, gradients * _attr_float(alpha, gradients.dtype))


@register_gradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op: Any, grad: Any) -> list:
    """Linear in `gradients` with the same slopes; piecewise constant in `features` (zero gradient)."""
    features = op.inputs[1]
    return [leaky_relu_grad(grad, features, alpha=op.get_attr("alpha")), array_ops.zeros_like(features)]


def leaky_relu_grad(gradients: Any, features: Any, alpha: float = 0.2, name: str | None = None) -> Any:
    return apply_op("LeakyReluGrad", [gradients, features], {"alpha": float(alpha)}, name=name)


# --- Softplus ---------------------------------------------------------------------------------------
@register_op("Softplus", "Softplus", inputs=("features",), shape=same_as_input, allowed=FLOATS,
             c=c_activations.softplus)
def softplus_kernel(features: Any) -> Any:
    """y = log(exp(x) + 1), returning x for large x and exp(x) for very negative x (TF's thresholds)."""
    # Beyond |x| > 2 - log(machine epsilon) the other branch is exact to the dtype's precision.
    threshold = features.dtype.type(np.log(np.finfo(features.dtype).eps) + 2)
    with np.errstate(over="ignore"):
        exp = np.exp(features)
        middle = np.log(exp + features.dtype.type(1))
    return np.where(features > -threshold, features, np.where(features < threshold, exp, middle))


@register_gradient("Softplus")
def _softplus_grad(op: Any, grad: Any) -> Any:
    """dy/dx = sigmoid(x) (ordinary ops, as TF's gradient; the SoftplusGrad op is not used here)."""
    return grad * unary_math_ops.sigmoid(op.inputs[0])   # the `*` operator names the node `mul`, as TF


def softplus(features: Any, name: str | None = None) -> Any:
    """`tf.nn.softplus`: log(exp(features) + 1)."""
    return apply_op("Softplus", [features], name=name)


@register_op("SoftplusGrad", "SoftplusGrad", inputs=("gradients", "features"), shape=_grad_op_shape,
             same_dtype=(0, 1), allowed=FLOATS, c=c_activations.softplus_grad)
def softplus_grad_kernel(gradients: Any, features: Any) -> Any:
    """backprops = gradients / (1 + exp(-features))."""
    with np.errstate(over="ignore"):
        return gradients / (np.exp(-features) + features.dtype.type(1))


@register_gradient("SoftplusGrad")
def _softplus_grad_grad(op: Any, grad: Any) -> list:
    """d/dgradients = SoftplusGrad(grad, x); d/dx = grad * gradients / (exp(-x) + 2 + exp(x))."""
    gradients, features = op.inputs
    denominator = math_ops.add(math_ops.add(unary_math_ops.exp(math_ops.negative(features)), 2.0),
                               unary_math_ops.exp(features))
    return [softplus_grad(grad, features), math_ops.truediv(math_ops.multiply(grad, gradients), denominator)]


def softplus_grad(gradients: Any, features: Any, name: str | None = None) -> Any:
    return apply_op("SoftplusGrad", [gradients, features], name=name)


# --- Softsign ---------------------------------------------------------------------------------------
@register_op("Softsign", "Softsign", inputs=("features",), shape=same_as_input, allowed=FLOATS,
             c=c_activations.softsign)
def softsign_kernel(features: Any) -> Any:
    """y = x / (|x| + 1)."""
    return features / (np.abs(features) + features.dtype.type(1))


@register_gradient("Softsign")
def _softsign_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 / (1 + |x|)^2 (the SoftsignGrad op, fed the input). SoftsignGrad has no gradient, as in TF."""
    return softsign_grad(grad, op.inputs[0])


def softsign(features: Any, name: str | None = None) -> Any:
    """`tf.nn.softsign`: features / (abs(features) + 1)."""
    return apply_op("Softsign", [features], name=name)


@register_op("SoftsignGrad", "SoftsignGrad", inputs=("gradients", "features"), shape=_grad_op_shape,
             same_dtype=(0, 1), allowed=FLOATS, c=c_activations.softsign_grad)
def softsign_grad_kernel(gradients: Any, features: Any) -> Any:
    """backprops = gradients / (1 + |features|)^2."""
    return gradients / np.square(np.abs(features) + features.dtype.type(1))


def softsign_grad(gradients: Any, features: Any, name: str | None = None) -> Any:
    return apply_op("SoftsignGrad", [gradients, features], name=name)


# --- composites -------------------------------------------------------------------------------------
def log_sigmoid(x: Any, name: str | None = None) -> Any:
    """`tf.math.log_sigmoid`: log(1 / (1 + exp(-x))) = -softplus(-x), stable for large |x|."""
    with op_scope(name or "LogSigmoid") as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.negative(softplus(math_ops.negative(x)), name=scope or None)


__all__ = ["relu6", "elu", "selu", "leaky_relu", "softplus", "softsign", "log_sigmoid", "relu6_grad", "elu_grad",
           "selu_grad", "leaky_relu_grad", "softplus_grad", "softsign_grad"]
