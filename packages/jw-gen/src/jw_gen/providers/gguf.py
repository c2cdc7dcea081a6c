"""Read the metadata of a GGUF model file without loading the model.

Only the header and the key/value section are read (the tensors are not
touched), so checking a file and reading its chat template costs a fraction of
a second even for a large model. The layout (GGUF versions 2 and 3, little
endian): the magic ``GGUF``, a ``uint32`` version, a ``uint64`` tensor count,
a ``uint64`` key/value count, then each key as a length-prefixed UTF-8 string,
a ``uint32`` value type and the value.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from jw_gen.errors import GenerationError

__all__ = ["MAGIC", "GGUFError", "read_metadata"]

MAGIC = b"GGUF"

#: Value type -> struct format of the fixed-size scalar types.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}  # fmt: skip
_STRING = 8
_ARRAY = 9
_MAX_STRING = 64 * 1024 * 1024  # a longer "string" means a damaged file


class GGUFError(GenerationError):
    """The file is missing, not a GGUF file, or damaged."""


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise EOFError
    return data


def _unpack(f: BinaryIO, fmt: str) -> Any:
    return struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]


def _string(f: BinaryIO) -> str:
    n = _unpack(f, "<Q")
    if n > _MAX_STRING:
        raise ValueError(f"a string of {n} bytes")
    return _read(f, n).decode("utf-8", errors="replace")


def _value(f: BinaryIO, kind: int, keep: bool) -> Any:
    """One value of type ``kind``; arrays are skipped (``None``) unless ``keep``."""
    if kind in _SCALARS:
        return _unpack(f, _SCALARS[kind])
    if kind == _STRING:
        return _string(f)
    if kind != _ARRAY:
        raise ValueError(f"unknown value type {kind}")
    item, count = _unpack(f, "<I"), _unpack(f, "<Q")
    if item in _SCALARS and not keep:
        f.seek(struct.calcsize(_SCALARS[item]) * count, 1)
        return None
    if item == _STRING and not keep:
        for _ in range(count):
            f.seek(_unpack(f, "<Q"), 1)
        return None
    return [_value(f, item, keep) for _ in range(count)]


def read_metadata(path: str | Path, *, arrays: bool = False) -> dict[str, Any]:
    """The key/value metadata of the GGUF file at ``path``.

    Array values (the vocabulary, merges, ...) are read as ``None`` unless
    ``arrays=True``. Raises :class:`GGUFError` with a one-line message for a
    missing file, a file that is not GGUF, or one cut short or damaged.
    """
    path = Path(path)
    if not path.is_file():
        raise GGUFError(f"GGUF file not found: {path}", provider="llamacpp")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
            if magic != MAGIC:
                raise GGUFError(
                    f"{path} is not a GGUF file (it starts with {magic!r}, not {MAGIC!r})",
                    provider="llamacpp",
                )
            version = _unpack(f, "<I")
            if version not in (2, 3):
                raise GGUFError(
                    f"{path}: GGUF version {version} is not supported (2 or 3)",
                    provider="llamacpp",
                )
            _unpack(f, "<Q")  # tensor count
            count = _unpack(f, "<Q")
            out: dict[str, Any] = {}
            for _ in range(count):
                key = _string(f)
                out[key] = _value(f, _unpack(f, "<I"), arrays)
            return out
    except (EOFError, ValueError, struct.error) as exc:
        detail = "cut short" if isinstance(exc, EOFError) else str(exc)
        raise GGUFError(
            f"corrupt GGUF file {path}: metadata {detail}", provider="llamacpp"
        ) from None
