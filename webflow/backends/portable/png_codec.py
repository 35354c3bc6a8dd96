"""PNG files read and written in pure Python (zlib from the standard library): the codec behind DecodePng and
EncodePng on every backend, NumPy or not (Pyodide).

Decoding follows the PNG specification (W3C PNG, 2nd ed.): every colour type (grey, grey+alpha, RGB, RGBA,
palette), bit depths 1/2/4/8/16, the five row filters, Adam7 interlacing, tRNS transparency; every chunk's CRC
is checked. The conversions are libpng's as TensorFlow configures it (core/lib/png/png_io.cc), checked against
TensorFlow 2.21 in tests/image/test_png_tensorflow.py: grey from colour is (9797 R + 19234 G + 3737 B) >> 15
(png_set_rgb_to_gray with 0.299, 0.587, no gamma; + 16384 before the shift on 16-bit files), at the file's depth;
16 to 8 bits keeps the high byte (png_set_strip_16); 8 to 16 bits is x * 257; low grey depths scale to 0..255;
an added alpha is (1 << bit depth) - 1 (so 1, 3 or 15 for 1/2/4-bit files, TensorFlow's filler).

Encoding is what libpng writes for TensorFlow, byte for byte: IHDR, IDAT chunks of at most 8192 bytes, IEND;
each row filtered with libpng's adaptive heuristic (the filter of least sum of |byte as signed|, ties to the
lower filter number), deflated with zlib's Z_FILTERED strategy at TensorFlow's level, the window shrunk to the
image's size as libpng does (png_deflate_claim, optimize_cmf).
"""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
GREY, RGB, PALETTE, GREY_ALPHA, RGBA = 0, 2, 3, 4, 6
_CHANNELS = {GREY: 1, RGB: 3, PALETTE: 1, GREY_ALPHA: 2, RGBA: 4}
_COLOUR_OF_CHANNELS = {1: GREY, 2: GREY_ALPHA, 3: RGB, 4: RGBA}
# Adam7 passes: (first row, first column, row step, column step)
_ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1))


class PNGError(ValueError):
    """A file that is not a PNG this codec can read (the op turns it into InvalidArgumentError)."""


class Header:
    def __init__(self, width: int, height: int, depth: int, colour: int, interlace: int):
        self.width, self.height, self.depth, self.colour, self.interlace = width, height, depth, colour, interlace
        self.palette: list = []      # [(r, g, b, a)]
        self.transparent: tuple | None = None  # tRNS of grey / RGB: the sample values that are transparent

    @property
    def samples(self) -> int:
        return _CHANNELS[self.colour]

    def channels(self) -> int:
        """What TensorFlow decodes with channels=0: palette gives RGB, or RGBA with tRNS."""
        if self.colour == PALETTE:
            return 4 if self.transparent is not None else 3
        return self.samples


# --- reading chunks ---------------------------------------------------------------------------------------
def read_header(data: bytes) -> Header:
    header, _ = _read_chunks(data, need_pixels=False)
    return header


def _read_chunks(data: bytes, need_pixels: bool = True) -> tuple:
    if data[:8] != SIGNATURE:
        raise PNGError("not a PNG file")
    position, header, compressed = 8, None, []
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if len(body) < length or position + 12 + length > len(data):
            raise PNGError("truncated PNG chunk")
        (crc,) = struct.unpack(">I", data[position + 8 + length:position + 12 + length])
        if crc != zlib.crc32(kind + body):
            raise PNGError(f"bad CRC in PNG chunk {kind.decode('latin-1')}")
        position += 12 + length
        if kind == b"IHDR":
            header = _parse_ihdr(body)
            if not need_pixels:
                return header, b""
        elif header is None:
            raise PNGError("PNG without IHDR first")
        elif kind == b"PLTE":
            header.palette = [(body[i], body[i + 1], body[i + 2], 255) for i in range(0, length - 2, 3)]
        elif kind == b"tRNS":
            _parse_trns(header, body)
        elif kind == b"IDAT":
            compressed.append(body)
        elif kind == b"IEND":
            break
    if header is None or not compressed:
        raise PNGError("PNG without IHDR or IDAT")
    return header, b"".join(compressed)


def _parse_ihdr(body: bytes) -> Header:
    width, height, depth, colour, method, filtering, interlace = struct.unpack(">IIBBBBB", body[:13])
    allowed = {GREY: (1, 2, 4, 8, 16), RGB: (8, 16), PALETTE: (1, 2, 4, 8), GREY_ALPHA: (8, 16), RGBA: (8, 16)}
    if colour not in allowed or depth not in allowed[colour] or method or filtering or interlace > 1:
        raise PNGError(f"unsupported PNG: colour type {colour}, bit depth {depth}")
    if width == 0 or height == 0:
        raise PNGError("PNG with zero width or height")
    return Header(width, height, depth, colour, interlace)


def _parse_trns(header: Header, body: bytes) -> None:
    if header.colour == PALETTE:
        header.palette = [(r, g, b, body[i] if i < len(body) else a)
                          for i, (r, g, b, a) in enumerate(header.palette)]
        header.transparent = ()
    elif header.colour == GREY:
        header.transparent = struct.unpack(">H", body[:2])
    elif header.colour == RGB:
        header.transparent = struct.unpack(">HHH", body[:6])


# --- decoding -------------------------------------------------------------------------------------------
def decode(data: bytes, channels: int = 0, sixteen_bit: bool = False) -> tuple:
    """(height, width, channels, samples): the flat row-major samples (a bytearray for 8 bits, a list of ints
    for 16) of PNG `data`, converted to `channels` (0: the file's own) and to 8 or 16 bits as TensorFlow does."""
    header, compressed = _read_chunks(data)
    try:
        raw = zlib.decompress(compressed)
    except zlib.error as error:
        raise PNGError(f"damaged PNG image data: {error}") from None
    wanted = channels or header.channels()
    if _as_stored(header, wanted):  # no conversion: the unfiltered rows are the samples
        rows = b"".join(_unfilter(header, raw, header.width, header.height))
        if header.depth == 8:
            flat = bytearray(rows) if not sixteen_bit else [v * 257 for v in rows]
        else:
            values = struct.unpack(f">{len(rows) // 2}H", rows)
            flat = list(values) if sixteen_bit else bytearray(v >> 8 for v in values)
        return header.height, header.width, wanted, flat
    pixels = _pixels(header, raw)  # per pixel tuples of samples at the file's depth (palette: 8-bit RGBA)
    depth = 8 if header.colour == PALETTE else header.depth
    # an added alpha is (1 << the file's bit depth) - 1: 255 or 65535, but 1, 3 or 15 for 1/2/4-bit files
    # (TensorFlow's png_set_add_alpha filler; a quirk kept for the same pixels)
    converted = _convert_channels(pixels, header, wanted, (1 << header.depth) - 1, header.depth == 16)
    flat = [v for pixel in converted for v in pixel]
    if sixteen_bit:
        flat = flat if depth == 16 else [v * 257 for v in flat]
    else:
        flat = bytearray(v >> 8 for v in flat) if depth == 16 else bytearray(flat)
    return header.height, header.width, wanted, flat


def _as_stored(header: Header, wanted: int) -> bool:
    return (header.colour != PALETTE and header.depth >= 8 and header.transparent is None and not header.interlace
            and wanted == header.samples)


def _pixels(header: Header, raw: bytes) -> list:
    """Row-major pixels of the whole image as tuples (grey expanded to 0..255 from 1/2/4 bits)."""
    if not header.interlace:
        rows = _unfilter(header, raw, header.width, header.height)
        return [p for row in rows for p in _row_pixels(header, row, header.width)]
    image: list = [None] * (header.width * header.height)
    offset = 0
    for top, left, down, across in _ADAM7:
        width = (header.width - left + across - 1) // across
        height = (header.height - top + down - 1) // down
        if width <= 0 or height <= 0:
            continue
        size = height * (1 + _row_bytes(header, width))
        rows = _unfilter(header, raw[offset:offset + size], width, height)
        offset += size
        for r, row in enumerate(rows):
            for c, pixel in enumerate(_row_pixels(header, row, width)):
                image[(top + r * down) * header.width + left + c * across] = pixel
    return image


def _row_bytes(header: Header, width: int) -> int:
    return (width * header.samples * header.depth + 7) // 8


def _unfilter(header: Header, raw: bytes, width: int, height: int) -> list:
    """The rows with their filters undone (None, Sub, Up, Average, Paeth: PNG spec section 9)."""
    stride = _row_bytes(header, width)
    bpp = max(1, header.samples * header.depth // 8)  # bytes per complete pixel, at least one
    if len(raw) < height * (stride + 1):
        raise PNGError("PNG image data too short")
    previous = bytearray(stride)
    rows = []
    for r in range(height):
        start = r * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif kind == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            _unpaeth(row, previous, bpp)
        elif kind != 0:
            raise PNGError(f"unknown PNG row filter {kind}")
        rows.append(row)
        previous = row
    return rows


def _unpaeth(row: bytearray, previous: bytearray, bpp: int) -> None:
    """paeth() inlined: this loop is most of a decode (libpng picks Paeth for most rows of photographs)."""
    for i in range(min(bpp, len(row))):  # no left neighbours: the predictor is the byte above
        row[i] = (row[i] + previous[i]) & 255
    for i in range(bpp, len(row)):
        a, b, c = row[i - bpp], previous[i], previous[i - bpp]
        pa, pb = b - c, a - c  # p - a and p - b, with p = a + b - c
        pc = pa + pb
        pa, pb, pc = (pa if pa >= 0 else -pa), (pb if pb >= 0 else -pb), (pc if pc >= 0 else -pc)
        row[i] = (row[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255


def paeth(a: int, b: int, c: int) -> int:
    """The neighbour (left a, up b, up-left c) closest to a + b - c, ties to a, then b."""
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _row_pixels(header: Header, row: bytearray, width: int) -> list:
    samples = header.samples
    if header.depth == 8:
        values = row
    elif header.depth == 16:
        values = struct.unpack(f">{len(row) // 2}H", row)
    else:
        values = _unpack_bits(row, header.depth, width)
    if header.colour == PALETTE:
        palette = header.palette
        try:
            return [palette[i] for i in values[:width]]
        except IndexError:
            raise PNGError("PNG palette index out of range") from None
    if header.colour == GREY and header.depth < 8:
        scale = 255 // ((1 << header.depth) - 1)
        if header.transparent is not None:
            key = header.transparent[0]
            return [(v * scale, 0 if v == key else 255) for v in values[:width]]
        return [(v * scale,) for v in values[:width]]
    pixels = [tuple(values[i:i + samples]) for i in range(0, width * samples, samples)]
    if header.transparent is not None:  # grey or RGB with a transparent colour: an alpha sample
        opaque = (1 << header.depth) - 1
        pixels = [p + ((0 if p == header.transparent else opaque),) for p in pixels]
    return pixels


def _unpack_bits(row: bytearray, depth: int, width: int) -> list:
    per_byte, mask = 8 // depth, (1 << depth) - 1
    values = []
    for byte in row:
        for k in range(per_byte):
            values.append((byte >> (8 - depth * (k + 1))) & mask)
    return values[:width]


def _convert_channels(pixels: list, header: Header, wanted: int, opaque: int, sixteen: bool) -> list:
    """Each pixel to `wanted` samples: grey <-> colour, alpha dropped or added (opaque), as libpng does."""
    colour = header.colour in (RGB, RGBA, PALETTE)
    has_alpha = header.colour in (GREY_ALPHA, RGBA) or header.transparent is not None
    grey = grey16_of if sixteen else grey_of
    if wanted == 1:
        return [(grey(p) if colour else p[0],) for p in pixels]
    if wanted == 2:
        return [(grey(p) if colour else p[0], p[-1] if has_alpha else opaque) for p in pixels]
    base = [p[:3] if colour else (p[0], p[0], p[0]) for p in pixels]
    if wanted == 3:
        return base
    return [b + ((p[-1] if has_alpha else opaque),) for b, p in zip(base, pixels)]


def grey_of(pixel: tuple) -> int:
    """libpng's png_do_rgb_to_gray for TensorFlow's coefficients 0.299 / 0.587 (fixed point, truncated)."""
    r, g, b = pixel[0], pixel[1], pixel[2]
    if r == g == b:
        return r
    return (9797 * r + 19234 * g + 3737 * b) >> 15


def grey16_of(pixel: tuple) -> int:
    """The same on 16-bit samples, where libpng rounds (+ 16384) instead of truncating."""
    r, g, b = pixel[0], pixel[1], pixel[2]
    if r == g == b:
        return r
    return (9797 * r + 19234 * g + 3737 * b + 16384) >> 15


# --- encoding -------------------------------------------------------------------------------------------
def encode(samples: bytes | list, height: int, width: int, channels: int, sixteen_bit: bool = False,
           level: int = -1) -> bytes:
    """A PNG file of row-major samples (8-bit bytes, or 16-bit ints), as libpng writes it for TensorFlow's
    encode_png(compression=level)."""
    if channels not in _COLOUR_OF_CHANNELS:
        raise PNGError(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    if sixteen_bit:
        samples = struct.pack(f">{len(samples)}H", *samples)
    depth = 16 if sixteen_bit else 8
    stride = width * channels * depth // 8
    bpp = channels * depth // 8
    filtered = bytearray()
    previous = bytes(stride)
    for r in range(height):
        row = bytes(samples[r * stride:(r + 1) * stride])
        filtered += best_filtered_row(row, previous, bpp)
        previous = row
    return encode_filtered(bytes(filtered), height, width, channels, sixteen_bit, level)


def encode_filtered(filtered: bytes, height: int, width: int, channels: int, sixteen_bit: bool, level: int) -> bytes:
    """The PNG file around rows already filtered (each: its filter byte, then the row): the NumPy kernel filters
    all rows at once (backends/numpy/png_filters.py), the same choices as best_filtered_row."""
    depth = 16 if sixteen_bit else 8
    header = struct.pack(">IIBBBBB", width, height, depth, _COLOUR_OF_CHANNELS[channels], 0, 0, 0)
    stream = _deflate(filtered, level)
    idat = b"".join(_chunk(b"IDAT", stream[i:i + 8192]) for i in range(0, len(stream), 8192))
    return SIGNATURE + _chunk(b"IHDR", header) + idat + _chunk(b"IEND", b"")


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _cost(data: bytes | bytearray) -> int:
    """libpng's heuristic: the sum of the bytes read as signed magnitudes (v < 128 ? v : 256 - v)."""
    return sum(v if v < 128 else 256 - v for v in data)


def best_filtered_row(row: bytes, previous: bytes, bpp: int) -> bytes:
    """The filter byte and filtered row libpng's png_write_find_filter picks (least cost, earlier on ties)."""
    left = bytes(bpp) + row[:-bpp] if bpp < len(row) else bytes(len(row))
    up_left = bytes(bpp) + previous[:-bpp] if bpp < len(row) else bytes(len(row))
    candidates = [
        row,
        bytes((x - a) & 255 for x, a in zip(row, left)),
        bytes((x - b) & 255 for x, b in zip(row, previous)),
        bytes((x - ((a + b) >> 1)) & 255 for x, a, b in zip(row, left, previous)),
        bytes((x - paeth(a, b, c)) & 255 for x, a, b, c in zip(row, left, previous, up_left)),
    ]
    best, best_cost = 0, _cost(row)
    for kind in range(1, 5):
        cost = _cost(candidates[kind])
        if cost < best_cost:
            best, best_cost = kind, cost
    return bytes([best]) + candidates[best]


def _deflate(data: bytes, level: int) -> bytes:
    """zlib as libpng runs it: Z_FILTERED, memLevel 8, the window shrunk for small images, then the header's
    window size lowered to the smallest that covers the data (optimize_cmf)."""
    window_bits, half = 15, 1 << 14
    if len(data) <= 16384:
        while len(data) + 262 <= half:
            half >>= 1
            window_bits -= 1
    window_bits = max(window_bits, 9)  # zlib refuses 8 for deflate
    packer = zlib.compressobj(level, zlib.DEFLATED, window_bits, 8, zlib.Z_FILTERED)
    stream = bytearray(packer.compress(data) + packer.flush())
    if len(data) <= 16384:
        _shrink_window_field(stream, len(data))
    return bytes(stream)


def _shrink_window_field(stream: bytearray, size: int) -> None:
    cmf = stream[0]
    if cmf & 0x0F != 8 or cmf & 0xF0 > 0x70:
        return
    info = cmf >> 4
    half = 1 << (info + 7)
    if size > half:
        return
    while True:
        half >>= 1
        info -= 1
        if not (info > 0 and size <= half):
            break
    cmf = (cmf & 0x0F) | (info << 4)
    flags = stream[1] & 0xE0
    flags += 0x1F - ((cmf << 8) + flags) % 0x1F
    stream[0], stream[1] = cmf, flags
