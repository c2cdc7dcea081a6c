"""Decompression bombs built in an instant: a deflate stream of N MiB of zeros
is one compressed MiB (cut with a full flush, so every copy is the same bytes)
repeated N times, then closed. Wrapped as a ZIP member, a gzip body or the
zlib stream inside a JWPUB document, each unpacks to the full size for real."""

from __future__ import annotations

import random
import sqlite3
import struct
import tempfile
import zlib
from pathlib import Path

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from jw_core.jwpub import derive_key_iv
from tests.jwpub.jw_formats_builder import Doc, jwpub_database, write_jwpub

MIB = 1024 * 1024
_BLOCK = b"\0" * MIB
#: A MiB that deflates about 165 times: under a 200 ratio cap, yet far from real content.
_RNG = random.Random(1)
SPARSE = bytes(_RNG.randrange(1, 256) if i % 600 == 0 else 0 for i in range(MIB))


def _raw_zeros(mib: int, block: bytes = _BLOCK) -> bytes:
    """A raw deflate stream (no header) of ``mib`` copies of ``block`` (a MiB of zeros)."""
    piece = zlib.compressobj(9, zlib.DEFLATED, -15)
    one = piece.compress(block) + piece.flush(zlib.Z_FULL_FLUSH)
    closing = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # an empty final block
    return one * mib + closing


def _crc_zeros(mib: int, block: bytes = _BLOCK) -> int:
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(block, crc)
    return crc


def gzip_zeros(mib: int) -> bytes:
    """A gzip body that decodes to ``mib`` MiB of zeros."""
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", _crc_zeros(mib), (mib * MIB) & 0xFFFFFFFF)
    return header + _raw_zeros(mib) + trailer


def zlib_zeros(mib: int) -> bytes:
    """A zlib stream (header, deflate, Adler-32) of ``mib`` MiB of zeros."""
    adler = ((mib * MIB) % 65521) << 16 | 1  # a stays 1 over zeros, b counts them
    return b"\x78\xda" + _raw_zeros(mib) + struct.pack(">I", adler)


def _entry(
    name: str, method: int, crc: int, packed: int, size: int, offset: int
) -> tuple[bytes, bytes]:
    """The local header and the central directory entry of one member."""
    encoded = name.encode()
    fields = struct.pack("<HHHHHIIIH", 20, 0, method, 0, 0x21, crc, packed, size, len(encoded))
    local = b"PK\x03\x04" + fields + b"\x00\x00" + encoded
    central = b"PK\x01\x02" + struct.pack("<H", 20) + fields
    central += struct.pack("<HHHHII", 0, 0, 0, 0, 0, offset) + encoded
    return local, central


def _deflated(data: bytes, *, last: bool = True) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH)


def _end(entries: int, directory: bytes, at: int) -> bytes:
    return b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, entries, entries, len(directory), at, 0)


def write_zip(
    path: Path, members: dict[str, bytes], raw: list[tuple[str, bytes, int, int]]
) -> Path:
    """A ZIP of ``members`` (deflated) and of ``raw`` entries ``(name, deflate
    stream, CRC-32, unpacked size)`` given already compressed."""
    entries = [(n, _deflated(d), zlib.crc32(d), len(d)) for n, d in members.items()] + raw
    body, directory = b"", b""
    for name, data, crc, size in entries:
        local, central = _entry(name, 8, crc, len(data), size, len(body))
        body += local + data
        directory += central
    path.write_bytes(body + directory + _end(len(entries), directory, len(body)))
    return path


def write_zip_with_zeros(
    path: Path, members: dict[str, bytes], zeros: dict[str, int], *, block: bytes = _BLOCK
) -> Path:
    """A ZIP of ``members`` (deflated) and members of ``zeros[name]`` copies of
    ``block`` (a MiB of zeros, or :data:`SPARSE`) each."""
    raw = [
        (name, _raw_zeros(mib, block), _crc_zeros(mib, block), mib * len(block))
        for name, mib in zeros.items()
    ]
    return write_zip(path, members, raw)


def write_jwpub_with_big_contents(path: Path, mib: int) -> Path:
    """A genuine JWPUB whose 'contents' also stores an image of ``mib`` MiB
    (:data:`SPARSE`, so the file is small): 'contents' unpacks to that size."""
    db = jwpub_database(
        [Doc(1, 1, "T", "<html><body><p>Text beside a big image.</p></body></html>")],
        symbol="tp", year=2024, meps_language_index=0,
    )  # fmt: skip
    size = mib * MIB
    image, image_entry = _entry("img.png", 0, _crc_zeros(mib, SPARSE), size, size, 0)
    packed = _deflated(db)
    at = len(image) + size
    db_local, db_entry = _entry("tp.db", 8, zlib.crc32(db), len(packed), len(db), at)
    directory = image_entry + db_entry
    tail = db_local + packed + directory + _end(2, directory, at + len(db_local) + len(packed))
    stream = _deflated(image, last=False) + _deflated(SPARSE, last=False) * mib + _deflated(tail)
    crc = zlib.crc32(image)
    for _ in range(mib):
        crc = zlib.crc32(SPARSE, crc)
    crc = zlib.crc32(tail, crc)
    return write_zip(path, {}, [("contents", stream, crc, len(image) + size + len(tail))])


def write_jwpub_zlib_bomb(path: Path, mib: int, documents: int = 1) -> Path:
    """A JWPUB of ``documents`` documents whose content each inflates to ``mib`` MiB of zeros."""
    key, iv = derive_key_iv(0, "tp", 2024)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(zlib_zeros(mib)) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    blob = encryptor.update(padded) + encryptor.finalize()
    page = "<html><body><p>x</p></body></html>"
    placeholders = [Doc(n, n, f"Bomb {n}", page) for n in range(1, documents + 1)]
    db = jwpub_database(placeholders, symbol="tp", year=2024, meps_language_index=0)
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "tp.db"
        file.write_bytes(db)
        conn = sqlite3.connect(file)
        conn.execute("UPDATE Document SET Content = ?", (blob,))
        conn.commit()
        conn.close()
        db = file.read_bytes()
    return write_jwpub(path, [], database=db)


__all__ = [
    "MIB",
    "SPARSE",
    "gzip_zeros",
    "write_jwpub_zlib_bomb",
    "write_zip_with_zeros",
    "zlib_zeros",
]
