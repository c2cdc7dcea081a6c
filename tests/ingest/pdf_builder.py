"""Write small, valid PDFs by hand: Helvetica text lines placed on each page."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_pdf"]

Line = tuple[float, float, str] | tuple[float, float, str, float]  # x, y, text[, font size]


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(lines: list[Line]) -> bytes:
    ops = [b"BT"]
    for line in lines:
        x, y, text = line[0], line[1], line[2]
        size = line[3] if len(line) > 3 else 12  # type: ignore[misc]
        ops.append(f"/F1 {size:g} Tf 1 0 0 1 {x:g} {y:g} Tm".encode())
        ops.append(b"(" + _escape(text) + b") Tj")
    ops.append(b"ET")
    return b"\n".join(ops)


def write_pdf(path: Path, pages: list[list[Line]]) -> Path:
    """A PDF with one page per entry; each line is drawn at (x, y) in points."""
    n = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{4 + 2 * i} 0 R".encode() for i in range(n))
        + f"] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for i, lines in enumerate(pages):
        stream = _content(lines)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    path.write_bytes(bytes(out))
    return path
