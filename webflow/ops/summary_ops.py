"""Summary ops: `ScalarSummary`, `HistogramSummary`, `ImageSummary`, `TensorSummaryV2`, `MergeSummary`, and TF1's
`tf.summary.scalar / histogram / image / text / tensor_summary / merge / merge_all` that build them.

Each kernel returns one serialized `Summary` protocol buffer (webflow/protos/summary.proto) as a scalar string,
so `sess.run(merged)` gives the bytes TensorFlow gives, ready for `FileWriter.add_summary` (summary/). None of
them is differentiable. The protobuf modules are imported inside the kernels: `import webflow` loads no protobuf.
The long kernel bodies (TensorFlow's histogram buckets, image scaling, PNG) are backends/numpy/summaries.py.

Tags and node names follow TensorFlow's summary_scope: `scalar("loss", x)` inside name scope "train" makes the
op `train/loss` (its tag input the Const `train/loss/tags`) with tag "train/loss"; `family="f"` makes the op
`train/f/loss` and the tag "f/train/f/loss"; characters other than letters, digits, `_ - . /` become `_`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from webflow.backends.arrays import string_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.numpy import summaries
from webflow.framework import context, dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor import TensorBase
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op

_REAL = dtypes.NUMERIC  # the T of ScalarSummary and HistogramSummary: TensorFlow's RealNumberTypes
_IMAGE_TYPES = (dtypes.uint8, dtypes.float32, dtypes.float16, dtypes.float64)
_ANY = dtypes.NUMERIC + (dtypes.bool, dtypes.string)
DEFAULT_BAD_COLOR = (255, 0, 0, 255)  # ImageSummary's bad_color: opaque red for pixels that are not finite


def _summary_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec((), dtypes.string)


def _string_scalar(data: bytes) -> Any:
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def tensor_proto(value: Any) -> Any:
    """A TensorProto of `value` as TensorFlow's summary kernels write it: strings in string_val, every other
    dtype as its little-endian bytes in tensor_content (Tensor::AsProtoField / AsProtoTensorContent)."""
    from webflow.protos import tensor_pb2

    array = np.asarray(value)
    proto = tensor_pb2.TensorProto()
    proto.tensor_shape.SetInParent()  # TensorFlow sets the shape even for a scalar
    for size in array.shape:
        proto.tensor_shape.dim.add(size=size)
    if array.dtype == object or array.dtype.kind in "SU":
        proto.dtype = dtypes.string.as_datatype_enum
        proto.string_val.extend(v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in array.reshape(-1))
    else:
        proto.dtype = dtypes.as_dtype(array.dtype).as_datatype_enum
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


# --- ScalarSummary -------------------------------------------------------------------------------------------
@register_op("ScalarSummary", "ScalarSummary", inputs=("tags", "values"), shape=_summary_shape)
def scalar_summary_kernel(tags: Any, values: Any, T: Any = None) -> Any:  # noqa: N803 - TensorFlow's attr name
    """A Summary with one value per element: tag = tags[i], simple_value = float32(values[i]).
    Written on string_values' helpers, so it runs as it is where NumPy is missing (Pyodide's CArrays)."""
    from webflow.protos import summary_pb2

    (tags, tags_shape), (values, values_shape) = string_values.elements(tags), string_values.elements(values)
    if tuple(tags_shape) != tuple(values_shape):
        single = f" (tag '{_text(tags[0])}')" if len(tags) == 1 else ""
        raise InvalidArgumentError(None, None, f"tags and values are not the same shape: {_shape_text(tags_shape)} "
                                               f"!= {_shape_text(values_shape)}{single}")
    summary = summary_pb2.Summary()
    for tag, value in zip(tags, values):
        summary.value.add(tag=_text(tag), simple_value=float(value))
    return string_values.strings([summary.SerializeToString()], ())


NotDifferentiable("ScalarSummary")


# --- HistogramSummary ----------------------------------------------------------------------------------------
@register_op("HistogramSummary", "HistogramSummary", inputs=("tag", "values"), shape=_summary_shape,
             needs_context=True)
def histogram_summary_kernel(ctx: Any, tag: Any, values: Any, T: Any = None) -> Any:  # noqa: N803
    """A Summary with one HistogramProto of all the elements, in TensorFlow's fixed exponential buckets
    (backends/numpy/summaries.py); a NaN or an infinity is an error naming the op."""
    from webflow.protos import histogram_pb2, summary_pb2

    tag = np.asarray(tag)
    if tag.shape != ():
        raise InvalidArgumentError(None, None, "tags must be scalar")
    values = np.asarray(values)
    if values.dtype.kind in "fc" and not np.isfinite(values).all():
        what = "Nan" if np.isnan(values).any() else "Infinity"
        raise InvalidArgumentError(None, None, f"{what} in summary histogram for: {ctx.op_name or 'HistogramSummary'}")
    fields = summaries.histogram(values)
    summary = summary_pb2.Summary()
    summary.value.add(tag=_text(tag[()]), histo=histogram_pb2.HistogramProto(**fields))
    return _string_scalar(summary.SerializeToString())


NotDifferentiable("HistogramSummary")


# --- ImageSummary --------------------------------------------------------------------------------------------
def _image_summary_shape(inputs: list, attrs: dict) -> tuple:
    shape = inputs[1].shape
    if shape.rank is not None and shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.rank}")
    return output_spec((), dtypes.string)


@register_op("ImageSummary", "ImageSummary", inputs=("tag", "tensor"), shape=_image_summary_shape)
def image_summary_kernel(tag: Any, tensor: Any, max_images: int = 3, bad_color: Any = DEFAULT_BAD_COLOR,
                         T: Any = None) -> Any:  # noqa: N803
    """Up to `max_images` Summary.Images of a [batch, height, width, 1|3|4] tensor, tagged "<tag>/image/<i>"
    ("<tag>/image" when max_images is 1), each a PNG. uint8 pixels are kept; float ones are scaled to
    0..255 per image (backends/numpy/summaries.py normalize_image), non-finite pixels drawn in `bad_color`."""
    from webflow.protos import summary_pb2

    tag = np.asarray(tag)
    if tag.shape != ():
        raise InvalidArgumentError(None, None, "Tags must be a scalar")
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise InvalidArgumentError(None, None, f"Tensor must be 4-D with last dim 1, 3, or 4, not "
                                               f"{_shape_text(tensor.shape)}")
    batch, height, width, depth = tensor.shape
    if height * width == 0:
        raise InvalidArgumentError(None, None, f"input tensor must have non-zero dims. Found: "
                                               f"{_shape_text(tensor.shape)}")
    bad_color = np.asarray(bad_color, np.uint8).reshape(-1)
    if tensor.dtype != np.uint8 and bad_color.size < depth:
        raise InvalidArgumentError(None, None, f"expected depth <= bad_color.size, got depth = {depth}, "
                                               f"bad_color.size = {bad_color.size}")
    base = _text(tag[()])
    summary = summary_pb2.Summary()
    for i in range(min(int(max_images), batch)):
        pixels = tensor[i].reshape(height * width, depth)
        if pixels.dtype != np.uint8:
            pixels = summaries.normalize_image(pixels, bad_color)
        image = summary_pb2.Summary.Image(height=height, width=width, colorspace=depth,
                                          encoded_image_string=summaries.encode_png(pixels.tobytes(), width,
                                                                                    height, depth))
        summary.value.add(tag=f"{base}/image/{i}" if max_images > 1 else f"{base}/image", image=image)
    return _string_scalar(summary.SerializeToString())


NotDifferentiable("ImageSummary")


# --- TensorSummaryV2 -----------------------------------------------------------------------------------------
@register_op("TensorSummaryV2", "TensorSummaryV2", inputs=("tag", "tensor", "serialized_summary_metadata"),
             shape=_summary_shape)
def tensor_summary_v2_kernel(tag: Any, tensor: Any, serialized_summary_metadata: Any,
                             T: Any = None) -> Any:  # noqa: N803
    """A Summary with one value: the tensor itself as a TensorProto, and the plugin's SummaryMetadata."""
    from webflow.protos import summary_pb2

    summary = summary_pb2.Summary()
    value = summary.value.add(tag=_text(np.asarray(tag)[()]), tensor=tensor_proto(tensor))
    value.metadata.ParseFromString(bytes(np.asarray(serialized_summary_metadata)[()]))
    return _string_scalar(summary.SerializeToString())


NotDifferentiable("TensorSummaryV2")


# --- MergeSummary --------------------------------------------------------------------------------------------
@register_op("MergeSummary", "MergeSummary", inputs=("*inputs",), shape=_summary_shape)
def merge_summary_kernel(*inputs: Any, N: int = 0) -> Any:  # noqa: N803
    """One Summary holding the values of every input Summary (each input a string tensor of any shape), in
    order; two values with the same (non-empty) tag are an error. Runs without NumPy too (string_values)."""
    from google.protobuf.message import DecodeError

    from webflow.protos import summary_pb2

    merged = summary_pb2.Summary()
    seen: set = set()
    for serialized in (s for value in inputs for s in string_values.elements(value)[0]):
        summary = summary_pb2.Summary()
        try:
            summary.ParseFromString(bytes(serialized))
        except DecodeError:
            raise InvalidArgumentError(None, None, "Could not parse one of the summary inputs") from None
        for value in summary.value:
            if value.tag and value.tag in seen:
                raise InvalidArgumentError(None, None, f"Duplicate tag {value.tag} found in summary inputs ")
            seen.add(value.tag)
            merged.value.append(value)
    return string_values.strings([merged.SerializeToString()], ())


NotDifferentiable("MergeSummary")


# --- TF1's tf.summary ----------------------------------------------------------------------------------------
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name: str | None) -> str | None:
    """A summary name with every character TensorFlow does not allow in a tag replaced by '_', leading '/'
    removed (summary_op_util.clean_tag)."""
    if name is None:
        return None
    return _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")


@contextlib.contextmanager
def summary_scope(name: str, family: str | None = None, default_name: str | None = None,
                  values: Any = None) -> Iterator[tuple]:
    """TF1's summary_scope: opens name scope `name` (`family/name` with a family) and yields (tag, scope):
    the tag is the scope without its '/', prefixed by `family/` again when there is one."""
    name, family = clean_tag(name), clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with name_scope_v1(base, default_name, values) as scope:
        tag = scope.rstrip("/")
        yield (tag if family is None else f"{family}/{tag}"), scope


def collect(value: Any, collections: Any, default_collections: list) -> None:
    """Adds a summary op's output to `collections` (None: the defaults) of the default graph; eagerly, nowhere."""
    if context.executing_eagerly():
        return
    graph = context.get_default_graph()
    for key in default_collections if collections is None else collections:
        graph.add_to_collection(key, value)


def _input(value: Any, name: str, scope: str, allowed: tuple) -> Any:
    """`value` as a tensor of a dtype in `allowed`; a Python value becomes the Const `<scope><name>` TensorFlow's
    op builder makes."""
    if is_tensor_like(value) or context.executing_eagerly():
        tensor = convert_to_tensor(value)
    else:
        with context.get_default_graph().name_scope(scope):
            tensor = convert_to_tensor(value, name=name)
    dtype = tensor.dtype.base_dtype
    if dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{name}' has DataType {dtype.name} not in list of allowed "
                        f"values: {', '.join(d.name for d in allowed)}")
    return tensor


def scalar(name: str, tensor: Any, collections: Any = None, family: str | None = None) -> Any:
    """`tf.compat.v1.summary.scalar`: a ScalarSummary of one real number, added to GraphKeys.SUMMARIES."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        values = _input(tensor, "values", scope, _REAL)
        value = apply_op("ScalarSummary", [tag, values], {"T": values.dtype.base_dtype}, name=scope)
        collect(value, collections, [GraphKeys.SUMMARIES])
    return value


def histogram(name: str, values: Any, collections: Any = None, family: str | None = None) -> Any:
    """`tf.compat.v1.summary.histogram`: a HistogramSummary of all the elements of `values`."""
    with summary_scope(name, family, values=[values], default_name="HistogramSummary") as (tag, scope):
        values = _input(values, "values", scope, _REAL)
        value = apply_op("HistogramSummary", [tag, values], {"T": values.dtype.base_dtype}, name=scope)
        collect(value, collections, [GraphKeys.SUMMARIES])
    return value


def image(name: str, tensor: Any, max_outputs: int = 3, collections: Any = None, family: str | None = None) -> Any:
    """`tf.compat.v1.summary.image`: an ImageSummary of up to `max_outputs` images of a
    [batch, height, width, channels] tensor (channels 1, 3 or 4; uint8, or floats scaled per image)."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        images = _input(tensor, "tensor", scope, _IMAGE_TYPES)
        attrs = {"max_images": int(max_outputs), "bad_color": np.asarray(DEFAULT_BAD_COLOR, np.uint8),
                 "T": images.dtype.base_dtype}
        value = apply_op("ImageSummary", [tag, images], attrs, name=scope)
        collect(value, collections, [GraphKeys.SUMMARIES])
    return value


def tensor_summary(name: str, tensor: Any, summary_description: str | None = None, collections: Any = None,
                   summary_metadata: Any = None, family: str | None = None, display_name: str | None = None) -> Any:
    """`tf.compat.v1.summary.tensor_summary`: a TensorSummaryV2 holding `tensor` and its SummaryMetadata."""
    from webflow.protos import summary_pb2

    metadata = summary_pb2.SummaryMetadata()
    if summary_metadata is not None:
        metadata.ParseFromString(summary_metadata if isinstance(summary_metadata, bytes)
                                 else summary_metadata.SerializeToString())
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        data = _input(tensor, "tensor", scope, _ANY)
        value = apply_op("TensorSummaryV2", [tag, data, metadata.SerializeToString()],
                         {"T": data.dtype.base_dtype}, name=scope)
        collect(value, collections, [GraphKeys.SUMMARIES])
    return value


TEXT_PLUGIN_METADATA = b"\n\x06\n\x04text"  # SummaryMetadata(plugin_data=PluginData(plugin_name="text"))


def text(name: str, tensor: Any, collections: Any = None) -> Any:
    """`tf.compat.v1.summary.text`: a TensorSummaryV2 of a string tensor for TensorBoard's text plugin."""
    if not isinstance(tensor, TensorBase):
        tensor = convert_to_tensor(tensor)
    if tensor.dtype.base_dtype != dtypes.string:
        raise ValueError(f"Expected tensor {getattr(tensor, 'name', tensor)} to have dtype string, got "
                         f"{tensor.dtype.name}")
    return tensor_summary(name, tensor, summary_metadata=TEXT_PLUGIN_METADATA, collections=collections)


_EAGER_MERGE = ("Merging tf.summary.* ops is not compatible with eager execution. Use tf.contrib.summary "
                "instead.")


def merge(inputs: list, collections: Any = None, name: str | None = None) -> Any:
    """`tf.compat.v1.summary.merge`: one MergeSummary (under name scope "Merge") of serialized Summaries."""
    if context.executing_eagerly():
        raise RuntimeError(_EAGER_MERGE)
    inputs = list(inputs)
    name = clean_tag(name)
    with name_scope_v1(name, "Merge", inputs):
        value = apply_op("MergeSummary", inputs, {"N": len(inputs)}, name=name)
        collect(value, collections, [])
    return value


def merge_all(key: str = GraphKeys.SUMMARIES, scope: str | None = None, name: str | None = None) -> Any:
    """`tf.compat.v1.summary.merge_all`: merge() of the summaries in collection `key` (those whose name
    matches `scope`), or None when there are none."""
    if context.executing_eagerly():
        raise RuntimeError(_EAGER_MERGE)
    found = context.get_default_graph().get_collection(key, scope)
    return merge(found, name=name) if found else None


__all__ = ["scalar", "histogram", "image", "text", "tensor_summary", "merge", "merge_all", "summary_scope",
           "clean_tag", "collect", "tensor_proto", "TEXT_PLUGIN_METADATA"]
