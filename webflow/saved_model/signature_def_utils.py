"""`tf.saved_model.signature_def_utils`: SignatureDefs, a SavedModel's named entry points: input and output
TensorInfos by key plus a method name (TensorFlow Serving's predict, classify and regress APIs)."""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.saved_model import signature_constants
from webflow.saved_model.utils import build_tensor_info, build_tensor_info_from_op, get_element_from_tensor_info


def build_signature_def(inputs: dict | None = None, outputs: dict | None = None, method_name: str | None = None,
                        defaults: dict | None = None) -> Any:
    """A SignatureDef of {key: TensorInfo} inputs and outputs and a method name; `defaults` {input key: a Const
    tensor} become TensorProtos."""
    from webflow.io.tensor_proto import make_tensor_proto
    from webflow.protos import meta_graph_pb2

    signature = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        signature.inputs[key].MergeFromString(info.SerializeToString())
    for key, info in (outputs or {}).items():
        signature.outputs[key].MergeFromString(info.SerializeToString())
    if method_name is not None:
        signature.method_name = method_name
    for key, default in (defaults or {}).items():
        if hasattr(default, "numpy"):   # an EagerTensor
            signature.defaults[key].CopyFrom(make_tensor_proto(default.numpy()))
        elif getattr(getattr(default, "op", None), "type", None) == "Const":
            signature.defaults[key].CopyFrom(make_tensor_proto(default.op.get_attr("value"), dtype=default.dtype))
        else:
            raise ValueError(f"Unable to convert object {default} of type {type(default)} to TensorProto.")
    return signature


def predict_signature_def(inputs: dict, outputs: dict) -> Any:
    """The Predict API's signature: any tensors, method `tensorflow/serving/predict`."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({key: build_tensor_info(t) for key, t in inputs.items()},
                               {key: build_tensor_info(t) for key, t in outputs.items()},
                               signature_constants.PREDICT_METHOD_NAME)


def classification_signature_def(examples: Any, classes: Any, scores: Any) -> Any:
    """The Classify API's signature: serialized tf.Examples in, string classes and/or float scores out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    inputs = {signature_constants.CLASSIFY_INPUTS: _typed(examples, dtypes.string,
                                                          "Classification input tensors must be of type string.")}
    outputs = {}
    if classes is not None:
        outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = _typed(
            classes, dtypes.string, "Classification classes must be of type string Tensor.")
    if scores is not None:
        outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = _typed(
            scores, dtypes.float32, "Classification scores must be a float Tensor.")
    return build_signature_def(inputs, outputs, signature_constants.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples: Any, predictions: Any) -> Any:
    """The Regress API's signature: serialized tf.Examples in, float predictions out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    inputs = {signature_constants.REGRESS_INPUTS: _typed(examples, dtypes.string,
                                                         "Regression input tensors must be of type string.")}
    outputs = {signature_constants.REGRESS_OUTPUTS: _typed(predictions, dtypes.float32,
                                                           "Regression output tensors must be of type float.")}
    return build_signature_def(inputs, outputs, signature_constants.REGRESS_METHOD_NAME)


def _typed(tensor: Any, dtype: Any, message: str) -> Any:
    info = build_tensor_info(tensor)
    if info.dtype != dtype.as_datatype_enum:
        raise ValueError(f"{message} Found tensors of type {info.dtype}")
    return info


def is_valid_signature(signature_def: Any) -> bool:
    """Whether TensorFlow Serving can serve `signature_def` (a classify, regress or predict signature)."""
    if signature_def is None:
        return False
    method, inputs, outputs = signature_def.method_name, signature_def.inputs, signature_def.outputs
    string, real = dtypes.string.as_datatype_enum, dtypes.float32.as_datatype_enum
    if method == signature_constants.PREDICT_METHOD_NAME:
        return bool(inputs) and bool(outputs)
    if method == signature_constants.REGRESS_METHOD_NAME:
        return (set(inputs) == {signature_constants.REGRESS_INPUTS} and set(outputs) ==
                {signature_constants.REGRESS_OUTPUTS} and inputs[signature_constants.REGRESS_INPUTS].dtype == string
                and outputs[signature_constants.REGRESS_OUTPUTS].dtype == real)
    if method == signature_constants.CLASSIFY_METHOD_NAME:
        wanted = {signature_constants.CLASSIFY_OUTPUT_CLASSES: string, signature_constants.CLASSIFY_OUTPUT_SCORES: real}
        return (set(inputs) == {signature_constants.CLASSIFY_INPUTS}
                and inputs[signature_constants.CLASSIFY_INPUTS].dtype == string
                and bool(outputs) and all(key in wanted and outputs[key].dtype == wanted[key] for key in outputs))
    return False


def op_signature_def(op: Any, key: str) -> Any:
    """A SignatureDef whose one output names `op` (the init and train op signatures)."""
    return build_signature_def(outputs={key: build_tensor_info_from_op(op)})


def load_op_from_signature_def(signature_def: Any, key: str, import_scope: str | None = None) -> Any:
    from webflow.framework import errors

    try:
        return get_element_from_tensor_info(signature_def.outputs[key], import_scope=import_scope)
    except (KeyError, ValueError):
        raise errors.NotFoundError(None, None, f'The key "{key}" could not be found in the graph. Please make sure '
                                   "the SavedModel was created by the internal _SavedModelBuilder. If you are using "
                                   "the public API, please make sure the SignatureDef in the SavedModel does not "
                                   f'contain the key "{key}".') from None
