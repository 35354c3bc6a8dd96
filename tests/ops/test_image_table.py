"""Op table rows for the image ops: ResizeBilinear, ResizeNearestNeighbor, their gradients ResizeBilinearGrad and
ResizeNearestNeighborGrad, DecodePng, EncodePng, DecodeImage, DecodeJpeg, EncodeJpeg, DecodeGif, AdjustContrastv2.

The resize references loop over output pixels with TensorFlow's formulas written out here in NumPy float32
scalars (scale = in / out or (in - 1) / (out - 1) with align_corners; source = (i + 0.5) * scale - 0.5 for
bilinear half-pixel centres, (i + 0.5) * scale for nearest), independently of framework/resize_geometry.py; the
harness checks the registered gradients against central differences of them. The gradient ops' own rows are
checked against the transposed loops. The codec rows decode what they encode (the pixels must come back), and
decode a colour PNG to grey with libpng's fixed-point formula; tests/image/ compares the bytes with TensorFlow's.
"""

import io
import math

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.ops import image_codec_ops as codec
from webflow.ops.image_resize_ops import resize_bilinear, resize_nearest_neighbor
from webflow.ops.registry import apply_op

rng = np.random.default_rng(25)
F32 = np.float32


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pixels(*shape, dtype=np.uint8):
    return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)


# --- resize references ----------------------------------------------------------------------------------------
def scale_of(in_size, out_size, align):
    if align and out_size > 1:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(in_size) / F32(out_size)


def linear_taps(in_size, out_size, align, half):
    """[(lower, upper, weight of upper)] per output index."""
    scale, taps = scale_of(in_size, out_size, align), []
    for i in range(out_size):
        source = (F32(i) + F32(0.5)) * scale - F32(0.5) if half else F32(i) * scale
        low = math.floor(source)
        taps.append((max(low, 0), min(math.ceil(source), in_size - 1), F32(source - F32(low))))
    return taps


def nearest_taps(in_size, out_size, align, half):
    scale, taps = scale_of(in_size, out_size, align), []
    for i in range(out_size):
        source = (F32(i) + F32(0.5)) * scale if half else F32(i) * scale
        index = min(int(math.floor(source + 0.5)) if align else int(math.floor(source)), in_size - 1)
        taps.append(max(index, 0))
    return taps


def bilinear_reference(size, align=False, half=False):
    def reference(x):
        kind = np.float64 if x.dtype == np.float64 else np.float32  # float64 only for the numerical gradient
        x = x.astype(kind)
        rows, cols = linear_taps(x.shape[1], size[0], align, half), linear_taps(x.shape[2], size[1], align, half)
        out = np.zeros((x.shape[0], size[0], size[1], x.shape[3]), kind)
        for i, (top, bottom, dy) in enumerate(rows):
            for j, (left, right, dx) in enumerate(cols):
                upper = x[:, top, left] + (x[:, top, right] - x[:, top, left]) * kind(dx)
                lower = x[:, bottom, left] + (x[:, bottom, right] - x[:, bottom, left]) * kind(dx)
                out[:, i, j] = upper + (lower - upper) * kind(dy)
        return out
    return reference


def nearest_reference(size, align=False, half=False):
    def reference(x):
        rows, cols = nearest_taps(x.shape[1], size[0], align, half), nearest_taps(x.shape[2], size[1], align, half)
        return x[:, rows][:, :, cols]
    return reference


def bilinear_grad_reference(align=False, half=False):
    def reference(grads, image):
        rows = linear_taps(image.shape[1], grads.shape[1], align, half)
        cols = linear_taps(image.shape[2], grads.shape[2], align, half)
        out = np.zeros(image.shape, np.float64)
        for i, (top, bottom, dy) in enumerate(rows):
            for j, (left, right, dx) in enumerate(cols):
                g = grads[:, i, j].astype(np.float64)
                out[:, top, left] += g * (1 - dy) * (1 - dx)
                out[:, top, right] += g * (1 - dy) * dx
                out[:, bottom, left] += g * dy * (1 - dx)
                out[:, bottom, right] += g * dy * dx
        return out.astype(image.dtype)
    return reference


def nearest_grad_reference(size, align=False, half=False):
    def reference(grads):
        rows = nearest_taps(size[0], grads.shape[1], align, half)
        cols = nearest_taps(size[1], grads.shape[2], align, half)
        out = np.zeros((grads.shape[0], size[0], size[1], grads.shape[3]), grads.dtype)
        for i, row in enumerate(rows):
            for j, col in enumerate(cols):
                out[:, row, col] += grads[:, i, j]
        return out
    return reference


def bilinear_case(name, shape, size, align=False, half=False, dtype=np.float32):
    x = r(*shape) if dtype == np.float32 else pixels(*shape, dtype=dtype)
    return OpCase(name, lambda t: resize_bilinear(t, size, align_corners=align, half_pixel_centers=half), [x],
                  bilinear_reference(size, align, half), grad=dtype == np.float32)


def nearest_case(name, shape, size, align=False, half=False, dtype=np.float32):
    x = r(*shape) if dtype == np.float32 else pixels(*shape, dtype=dtype)
    return OpCase(name, lambda t: resize_nearest_neighbor(t, size, align_corners=align, half_pixel_centers=half), [x],
                  nearest_reference(size, align, half), grad=dtype == np.float32)


RESIZE_CASES = (  # a tuple: the table's one row list is CASES
    bilinear_case("bilinear_half_up", (1, 3, 4, 2), (5, 7), half=True),
    bilinear_case("bilinear_half_down", (2, 6, 5, 1), (4, 3), half=True),
    bilinear_case("bilinear_legacy_up", (1, 3, 3, 1), (5, 4)),
    bilinear_case("bilinear_legacy_down", (1, 7, 6, 2), (3, 4)),
    bilinear_case("bilinear_align_up", (1, 3, 4, 2), (7, 5), align=True),
    bilinear_case("bilinear_align_down", (1, 6, 5, 1), (2, 3), align=True),
    bilinear_case("bilinear_uint8", (1, 4, 4, 3), (6, 3), half=True, dtype=np.uint8),
    nearest_case("nearest_half_up", (1, 3, 4, 2), (5, 7), half=True),
    nearest_case("nearest_half_down", (2, 7, 6, 1), (3, 4), half=True),
    nearest_case("nearest_legacy_up", (1, 3, 3, 1), (5, 4)),
    nearest_case("nearest_align_up", (1, 3, 4, 2), (7, 5), align=True),
    nearest_case("nearest_align_down", (1, 6, 5, 1), (2, 3), align=True),
    nearest_case("nearest_uint16", (1, 4, 4, 3), (6, 3), half=True, dtype=np.uint16),
    OpCase("image_resize_v2_3d", lambda t: wf.image.resize(t, [5, 3]), [r(4, 6, 2)],
           lambda x: bilinear_reference((5, 3), half=True)(x[None])[0], unknown_shapes=False),
    OpCase("image_resize_v2_nearest", lambda t: wf.image.resize(t, [5, 3], "nearest"), [r(2, 4, 6, 2)],
           nearest_reference((5, 3), half=True), unknown_shapes=False),  # TF: "'images' contains no shape."
)

GRAD_CASES = (  # a tuple: the table's one row list is CASES
    OpCase("resize_bilinear_grad_half", lambda g, x: apply_op("ResizeBilinearGrad", [g, x],
           {"align_corners": False, "half_pixel_centers": True}), [r(1, 5, 7, 2), r(1, 3, 4, 2)],
           bilinear_grad_reference(half=True), grad=False),
    OpCase("resize_bilinear_grad_align_f64", lambda g, x: apply_op("ResizeBilinearGrad", [g, x],
           {"align_corners": True, "half_pixel_centers": False}), [r(2, 2, 3, 1), r(2, 6, 5, 1).astype(np.float64)],
           bilinear_grad_reference(align=True), grad=False),
    OpCase("resize_nearest_grad_half", lambda g: apply_op("ResizeNearestNeighborGrad", [g, [3, 4]],
           {"align_corners": False, "half_pixel_centers": True}), [r(1, 5, 7, 2)],
           nearest_grad_reference((3, 4), half=True), grad=False),
    OpCase("resize_nearest_grad_legacy", lambda g: apply_op("ResizeNearestNeighborGrad", [g, [7, 5]],
           {"align_corners": False, "half_pixel_centers": False}), [r(2, 3, 2, 1)],
           nearest_grad_reference((7, 5)), grad=False),
)


# --- codecs ---------------------------------------------------------------------------------------------------
def libpng_grey(x):
    """png_do_rgb_to_gray with TensorFlow's coefficients: (9797 R + 19234 G + 3737 B) >> 15."""
    x = x.astype(np.int64)
    return ((9797 * x[..., 0] + 19234 * x[..., 1] + 3737 * x[..., 2]) >> 15)[..., None].astype(np.uint8)


def pillow_jpeg_round_trip(x):
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(x).save(out, "JPEG", quality=95, subsampling=2, dpi=(300, 300))
    return np.asarray(Image.open(io.BytesIO(out.getvalue())).convert("RGB"))


def gif_file():
    """Three frames of four colours as an animated GIF written by Pillow (None without Pillow); GIF is lossless for
    images of at most 256 colours, so the frames are the reference."""
    try:
        from PIL import Image
    except ImportError:
        return None, None
    colours = np.array([[0, 0, 0], [255, 0, 0], [20, 200, 90], [250, 250, 250]], np.uint8)
    frames = colours[rng.integers(0, 4, (3, 5, 6))]
    images = [Image.fromarray(f) for f in frames]
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=40, loop=0)
    return out.getvalue(), frames


GIF, GIF_FRAMES = gif_file()


def codec_case(name, build, x, reference, **kw):
    return OpCase(name, build, [x], reference, grad=False, fully_static=False, **kw)


CODEC_CASES = (  # a tuple: the table's one row list is CASES
    codec_case("png_rgb8", lambda t: codec.decode_png(codec.encode_png(t)), pixels(5, 7, 3), lambda x: x),
    codec_case("png_grey_alpha8", lambda t: codec.decode_png(codec.encode_png(t)), pixels(4, 3, 2), lambda x: x),
    codec_case("png_rgba16", lambda t: codec.decode_png(codec.encode_png(t, compression=9), dtype=wf.uint16),
               pixels(3, 4, 4, dtype=np.uint16), lambda x: x),
    codec_case("png_grey16_to_8", lambda t: codec.decode_png(codec.encode_png(t)), pixels(3, 5, 1, dtype=np.uint16),
               lambda x: (x >> 8).astype(np.uint8)),
    codec_case("png_rgb_to_grey", lambda t: codec.decode_png(codec.encode_png(t), channels=1), pixels(4, 6, 3),
               libpng_grey),
    codec_case("png_grey_to_rgba", lambda t: codec.decode_png(codec.encode_png(t), channels=4), pixels(3, 3, 1),
               lambda x: np.concatenate([x, x, x, np.full_like(x, 255)], -1)),
    codec_case("decode_image_float", lambda t: codec.decode_image(codec.encode_png(t), dtype=wf.float32),
               pixels(3, 4, 3), lambda x: (x.astype(np.uint16) * 257).astype(np.float32) * F32(1 / 65535)),
    # INTEGER_ACCURATE: the DCT webflow (Pillow's libjpeg) decodes with; TensorFlow's default "" is libjpeg's fast
    # one, a few levels off (tests/io/test_graph_def.py runs this row's graph in TensorFlow too)
    codec_case("jpeg_rgb", lambda t: codec.decode_jpeg(codec.encode_jpeg(t), dct_method="INTEGER_ACCURATE"),
               pixels(9, 11, 3),
               pillow_jpeg_round_trip),
    # the input only gives the row a placeholder (added as float: no uint8 AddV2 kernel without NumPy)
    codec_case("gif_frames", lambda t: wf.cast(codec.decode_gif(wf.constant(GIF)), wf.float32) + t,
               np.zeros((1, 1, 1, 3), np.float32), lambda x: GIF_FRAMES.astype(np.float32) + x),
)

def contrast_reference(factor):
    def reference(x):
        mean = x.astype(np.float64).mean(axis=(-3, -2), keepdims=True)
        return ((x - mean) * factor + mean).astype(x.dtype)
    return reference


ADJUST_CASES = (  # a tuple: the table's one row list is CASES
    OpCase("adjust_contrast_batch", lambda t: apply_op("AdjustContrastv2", [t, F32(1.7)]), [r(2, 5, 4, 3)],
           contrast_reference(1.7), grad=False),
    OpCase("adjust_contrast_one_image", lambda t: apply_op("AdjustContrastv2", [t, F32(0.3)]), [r(7, 3, 1)],
           contrast_reference(0.3), grad=False),
)

CASES = [*RESIZE_CASES, *GRAD_CASES, *CODEC_CASES, *ADJUST_CASES]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    if case in CODEC_CASES[-2:]:
        pytest.importorskip("PIL")
    check_case(case)
