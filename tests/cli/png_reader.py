"""A small PNG decoder (stdlib only) for checking screenshots: size and pixel colours."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

__all__ = ["read_png"]

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> channels (8-bit, non-palette)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> list[bytes]:
    stride = width * bpp
    rows: list[bytes] = []
    prior = bytearray(stride)
    pos = 0
    for _ in range(height):
        kind = raw[pos]
        line = bytearray(raw[pos + 1 : pos + 1 + stride])
        pos += 1 + stride
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((x + y) & 0xFF for x, y in zip(line, prior, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                up_left = prior[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prior[i], up_left)) & 0xFF
        elif kind != 0:
            raise ValueError(f"bad PNG filter type {kind}")
        rows.append(bytes(line))
        prior = line
    return rows


def read_png(path: Path) -> tuple[int, int, list[bytes], int]:
    """``(width, height, rows, channels)`` of an 8-bit non-interlaced PNG."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat = 8, bytearray()
    width = height = depth = ctype = interlace = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if depth != 8 or ctype not in _CHANNELS or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
    channels = _CHANNELS[ctype]
    return width, height, _unfilter(zlib.decompress(bytes(idat)), width, height, channels), channels
