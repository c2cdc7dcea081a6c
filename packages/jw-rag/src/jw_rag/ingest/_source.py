"""Reading sources: local files and URLs to bytes, bytes to text.

Every failure is an :class:`~jw_rag.errors.IngestError` whose one-line message
names the file or URL and what to do about it.

Decoding rule for text sources: UTF-8 (a UTF-8 or UTF-16 byte-order mark is
honoured). Anything else is refused, never guessed: the message says which
encoding to convert from when the bytes are consistent with cp1252/latin-1
(the two agree on every accented letter of en/es/pt), else that the encoding
is unknown.

Size: a local source must be a regular file (not a device, FIFO or socket)
of at most :data:`MAX_SOURCE_BYTES`; a fetched page is read as a stream,
decoded here (gzip or deflate) a MiB at a time, and stops at
:data:`MAX_TEXT_BYTES` of decoded body (a page is text), at a body that unpacks more than
:data:`MAX_RATIO` times what came over the wire, or at :data:`FETCH_DEADLINE`
seconds in all, whichever comes first (a caller may set the size cap and the
deadline for a block of code with :func:`fetch_limits`); an archive whose members would
unpack to more than :data:`MAX_UNPACKED_BYTES`, or at a ratio above
:data:`MAX_RATIO`, is refused before anything is unpacked
(:func:`check_archive`).

Control characters: one rule for every source kind, applied where the text is
decoded (:func:`clean_controls`), before any chunker or store sees it. C0
control characters other than tab, newline and carriage return (NUL included)
are removed, so SQLite and PostgreSQL (which refuses NUL) store the same text.
"""

from __future__ import annotations

import io
import re
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from jw_core._bounded import MAX_TEXT_BYTES as _MAX_TEXT_BYTES
from jw_rag.errors import ConfigError, IngestError

__all__ = [
    "ACCEPT_ENCODING",
    "FETCH_DEADLINE",
    "UrlCheck",
    "checking_urls",
    "fetch_limits",
    "FETCH_RETRIES",
    "FETCH_TIMEOUT",
    "MAX_RATIO",
    "MAX_REDIRECTS",
    "MAX_SOURCE_BYTES",
    "MAX_PARAGRAPHS",
    "MAX_TAGS",
    "MAX_TEXT_BYTES",
    "MAX_UNPACKED_BYTES",
    "Loaded",
    "check_archive",
    "check_paragraphs",
    "check_text_size",
    "clean_controls",
    "decode_text",
    "fetch_url",
    "is_url",
    "looks_binary",
    "read_path",
    "read_source",
    "refuse_empty_path",
    "refuse_other_kind",
    "sniff_kind",
    "url_source_id",
]

FETCH_TIMEOUT = 20.0
FETCH_RETRIES = 2
#: Seconds a whole fetch may take (connection, redirects and body).
FETCH_DEADLINE = 60.0
#: Redirects one fetch follows (http and https only) before it gives up.
MAX_REDIRECTS = 10
#: The largest source read or fetched, in bytes.
MAX_SOURCE_BYTES = 256 * 1024 * 1024
#: The most text or markup one source (a page, a text or Markdown file) may hold.
MAX_TEXT_BYTES = _MAX_TEXT_BYTES
#: The most paragraphs one source may hold: each costs about 1.6 KB while it is
#: chunked and stored, however short it is (a 20 MB text of 250,000 paragraphs
#: peaks at about 410 MB), so short ones are bounded by count, not by bytes.
MAX_PARAGRAPHS = 250_000
#: The most tags an HTML page may hold: its parsed tree costs about 200 bytes a tag.
MAX_TAGS = 4 * MAX_PARAGRAPHS
#: The most an archive's members may unpack to, in bytes, in all.
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
#: The highest unpacked-to-packed ratio of an archive member worth reading.
MAX_RATIO = 200


#: A check run on every URL a fetch requests, redirects included; it raises to refuse one.
UrlCheck = Callable[[str], None]
_URL_CHECK: ContextVar[UrlCheck | None] = ContextVar("jw_rag_url_check", default=None)


@contextmanager
def checking_urls(check: UrlCheck) -> Iterator[None]:
    """Within the block, every request a fetch makes (the URL given and each
    redirect it follows) goes through ``check`` first; a server that answers
    with a redirect to a refused address is refused at that hop."""
    token = _URL_CHECK.set(check)
    try:
        yield
    finally:
        _URL_CHECK.reset(token)


#: ``(max_bytes, deadline)`` set by :func:`fetch_limits`; None: the module's defaults.
_FETCH_LIMITS: ContextVar[tuple[int | None, float | None]] = ContextVar(
    "jw_rag_fetch_limits", default=(None, None)
)


@contextmanager
def fetch_limits(max_bytes: int | None = None, deadline: float | None = None) -> Iterator[None]:
    """Within the block, a fetch stops at ``max_bytes`` of body and after
    ``deadline`` seconds in all (each step's timeout is at most the deadline);
    ``None`` keeps :data:`MAX_SOURCE_BYTES` or :data:`FETCH_DEADLINE`."""
    if max_bytes is not None and max_bytes < 1:
        raise ConfigError(f"fetch size cap {max_bytes} is not positive: give at least 1 byte")
    if deadline is not None and not deadline > 0:
        raise ConfigError(f"fetch deadline {deadline} is not positive: give seconds above 0")
    token = _FETCH_LIMITS.set((max_bytes, deadline))
    try:
        yield
    finally:
        _FETCH_LIMITS.reset(token)


def _limits() -> tuple[int, float]:
    """``(max_bytes, deadline)`` of a fetch: a fetched page is text, so it stops
    at :data:`MAX_TEXT_BYTES` whatever larger cap was set."""
    max_bytes, deadline = _FETCH_LIMITS.get()
    return (
        min(MAX_SOURCE_BYTES if max_bytes is None else max_bytes, MAX_TEXT_BYTES),
        FETCH_DEADLINE if deadline is None else deadline,
    )


@dataclass(frozen=True, slots=True)
class Loaded:
    """The raw bytes of a source and where they came from."""

    data: bytes
    name: str  # the path or URL, as shown in messages
    path: Path | None = None
    url: str | None = None
    content_type: str = ""

    @property
    def stem(self) -> str:
        if self.path is not None:
            return self.path.stem
        return url_source_id(self.url or self.name)


def is_url(source: str | Path) -> bool:
    return isinstance(source, str) and source.lower().startswith(("http://", "https://"))


def url_source_id(url: str) -> str:
    """A stable id for a URL: host and path, without scheme, query or slashes at the ends."""
    parts = urlsplit(url)
    path = parts.path.strip("/")
    for suffix in (".html", ".htm", ".xhtml"):
        if path.lower().endswith(suffix):
            path = path[: -len(suffix)]
    return f"{parts.netloc}/{path}" if path else parts.netloc


def refuse_empty_path(path: str | Path) -> None:
    """An empty path would name the current folder: refuse it (an unset variable
    in a script must not ingest the folder the script runs in)."""
    if isinstance(path, str) and not path.strip():
        raise IngestError("the path is empty; pass a file, a folder or an http(s) URL")


def read_path(path: str | Path) -> Loaded:
    refuse_empty_path(path)
    p = Path(path).expanduser()
    if not p.exists():
        raise IngestError(f"{p}: no such file; check the path")
    if p.is_dir():
        raise IngestError(f"{p} is a directory; pass a file (or use load_documents for a folder)")
    if not p.is_file():
        raise IngestError(f"{p} is not a regular file (a device, FIFO or socket); pass a file")
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise IngestError(
            f"{p}: cannot be read ({exc.strerror or exc}); check its permissions"
        ) from exc
    if len(data) > MAX_SOURCE_BYTES:
        raise IngestError(f"{p} is larger than {_mib(MAX_SOURCE_BYTES)}; split it before ingesting")
    return Loaded(data=data, name=str(p), path=p)


def check_text_size(size: int, name: str) -> None:
    """Refuse a source of more than :data:`MAX_TEXT_BYTES` of text or markup
    before it is decoded or parsed (each step costs several times its size)."""
    if size > MAX_TEXT_BYTES:
        raise IngestError(
            f"{name} holds {_mib(size)} of text, more than the {_mib(MAX_TEXT_BYTES)} one "
            "source may hold; split it into smaller files"
        )


def check_paragraphs(count: int, name: str) -> None:
    """Refuse a source of more than :data:`MAX_PARAGRAPHS` paragraphs (checked
    as they are read, so at most that many are ever held)."""
    if count > MAX_PARAGRAPHS:
        raise IngestError(
            f"{name} holds more than {MAX_PARAGRAPHS:,} paragraphs, the most one source "
            "may hold; split it into smaller files"
        )


def _mib(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


def check_archive(data: bytes, name: str) -> None:
    """Refuse a ZIP archive that would unpack to more than
    :data:`MAX_UNPACKED_BYTES` or holds a member compressed more than
    :data:`MAX_RATIO` times (a decompression bomb), from its directory alone."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, EOFError, OSError, ValueError):
        return  # not an archive: the reader of the kind says what it is
    total = sum(i.file_size for i in infos)
    if total > MAX_UNPACKED_BYTES:
        raise IngestError(
            f"{name} would unpack to {total // (1024 * 1024)} MiB (more than "
            f"{_mib(MAX_UNPACKED_BYTES)}); it is not a publication this reads"
        )
    for i in infos:
        if i.file_size > 1024 * 1024 and i.file_size > MAX_RATIO * max(i.compress_size, 1):
            raise IngestError(
                f"{name}: member {i.filename!r} unpacks {i.file_size // max(i.compress_size, 1)} "
                f"times its size (a decompression bomb?); it is not a publication this reads"
            )


def fetch_url(url: str) -> Loaded:
    """GET ``url`` (timeout 20 s per step, and never past what is left of the
    deadline; 2 connection retries, redirects followed, at most
    :data:`MAX_SOURCE_BYTES` of body within :data:`FETCH_DEADLINE` seconds, or
    the limits of :func:`fetch_limits`)."""
    transport = httpx.HTTPTransport(retries=FETCH_RETRIES)
    max_bytes, seconds = _limits()
    step = min(FETCH_TIMEOUT, seconds)
    deadline = time.monotonic() + seconds
    hooks = {"request": [_hop_hook(url, (deadline, seconds), _URL_CHECK.get())]}
    try:
        with (
            httpx.Client(
                timeout=step,
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                transport=transport,
                event_hooks=hooks,
                headers={"Accept-Encoding": ACCEPT_ENCODING},
            ) as client,
            client.stream("GET", url) as response,
        ):
            _check_status(url, response)
            data = _read_body(url, response, deadline, (max_bytes, seconds))
            final, content_type = str(response.url), response.headers.get("content-type", "")
    except httpx.TimeoutException as exc:
        if time.monotonic() >= deadline - 0.05:
            raise _past_deadline(url, seconds) from exc
        raise IngestError(
            f"{url}: timed out after {step:g} s; try again later or download "
            "the page and pass the file path"
        ) from exc
    except httpx.InvalidURL as exc:  # the address given, or a redirect's, is malformed
        raise IngestError(
            f"{url}: not a valid address ({exc}); check the URL, or download the page and "
            "pass the file path"
        ) from exc
    except httpx.HTTPError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise IngestError(
            f"{url}: cannot be fetched ({reason}); check the address and your network "
            "connection, or download the page and pass the file path"
        ) from exc
    if not data:
        raise IngestError(f"{url}: the server sent an empty page; check the address")
    return Loaded(data=data, name=url, url=final, content_type=content_type)


def _hop_hook(
    url: str, deadline: tuple[float, float], check: UrlCheck | None
) -> Callable[[httpx.Request], None]:
    """What runs before the request and each redirect: the caller's URL check,
    then every step of the hop (connect, send, each read) timed out at what is
    left of the deadline, so no hop outlives it (``deadline`` is ``(monotonic
    end, seconds)``)."""
    end, seconds = deadline

    def hook(request: httpx.Request) -> None:
        if check is not None:
            check(str(request.url))
        left = end - time.monotonic()
        if left <= 0:
            raise _past_deadline(url, seconds)
        request.extensions["timeout"] = httpx.Timeout(min(FETCH_TIMEOUT, left)).as_dict()

    return hook


def _past_deadline(url: str, seconds: float) -> IngestError:
    return IngestError(
        f"{url}: still downloading after {seconds:g} s; try again later or "
        "download the page and pass the file path"
    )


def _check_status(url: str, response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise IngestError(
            f"{url}: the server answered HTTP {response.status_code} "
            f"{response.reason_phrase}; check the address"
        )


#: Content encodings a fetch asks for and decodes itself, a piece at a time.
ACCEPT_ENCODING = "gzip, deflate"
_STEP = 1024 * 1024


def _decoder(url: str, response: httpx.Response) -> Any:
    """A zlib inflater for the body's content encoding; None for an unencoded body."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header, found alone
    raise IngestError(
        f"{url}: the server sent the page as {encoding!r}, which is not read here (only "
        f"{ACCEPT_ENCODING}); download the page and pass the file path"
    )


def _decoded(url: str, inflater: Any, data: bytes) -> Iterator[bytes]:
    """``data`` inflated at most :data:`_STEP` bytes at a time (as-is without an inflater)."""
    if inflater is None:
        if data:
            yield data
        return
    try:
        while True:
            out = inflater.decompress(data, _STEP)
            data = inflater.unconsumed_tail
            if out:
                yield out
            if inflater.eof or (not out and not data):
                return
    except zlib.error as exc:
        raise IngestError(
            f"{url}: the page's compressed body is broken ({exc}); try again later"
        ) from exc


def _read_body(
    url: str, response: httpx.Response, deadline: float, limits: tuple[int, float]
) -> bytes:
    """The decoded body, stopped at the size cap, a bomb's ratio or the deadline
    (``limits`` is ``(max_bytes, seconds)``)."""
    max_bytes, seconds = limits
    inflater = _decoder(url, response)
    body = bytearray()  # grown in place: no list of pieces joined into a second copy
    wire = 0
    for chunk in chain(response.iter_raw(), [b""]):  # b"": what the inflater still holds
        wire += len(chunk)
        for part in _decoded(url, inflater, chunk):
            _check_body(url, len(body) + len(part), wire, max_bytes)
            body += part
        if time.monotonic() > deadline:
            raise _past_deadline(url, seconds)
    return bytes(body)


def _check_body(url: str, size: int, wire: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise IngestError(
            f"{url}: the page is larger than {_mib(max_bytes)}; download it "
            "and split it, or pass another address"
        )
    if size > _STEP and size > MAX_RATIO * wire:
        raise IngestError(
            f"{url}: the page unpacks more than {MAX_RATIO} times its size (a "
            "decompression bomb?); pass another address"
        )


def read_source(source: str | Path) -> Loaded:
    """The bytes of a local file or a URL."""
    if is_url(source):
        return fetch_url(str(source))
    return read_path(source)


def looks_binary(data: bytes) -> bool:
    """True when the start of ``data`` holds NUL bytes or mostly control bytes."""
    head = data[:4096]
    if not head:
        return False
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    return controls > len(head) * 0.05


_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def clean_controls(text: str) -> str:
    """``text`` under the control-character rule in this module's docstring."""
    return _CONTROLS.sub("", text) if _CONTROLS.search(text) else text


_HTML_START = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
    re.IGNORECASE | re.DOTALL,
)


def _zip_kind(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, EOFError, OSError, ValueError):
        return "zip"
    if "META-INF/container.xml" in names:
        return "epub"
    if "contents" in names:
        return "jwpub"
    if "manifest.json" in names and any(n.lower().endswith(".db") for n in names):
        return "backup"
    return "zip"


def sniff_kind(data: bytes) -> str | None:
    """The kind ``data``'s signature shows: ``pdf``, ``epub``, ``jwpub``,
    ``backup``, ``zip`` (another ZIP archive) or ``article`` (an HTML page);
    ``None`` when it shows none of them."""
    head = data[:1024]
    if head.lstrip().startswith(b"%PDF"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    if _HTML_START.match(head.removeprefix(b"\xef\xbb\xbf")):
        return "article"
    return None


def refuse_other_kind(loaded: Loaded, kind: str) -> None:
    """A one-line IngestError when ``loaded`` is plainly another kind than ``kind``."""
    found = sniff_kind(loaded.data)
    if found is None or found == kind:
        return
    if found == "zip":
        raise IngestError(
            f"{loaded.name} is a ZIP archive, not {kind}; unpack it and ingest its files"
        )
    shown = {"article": "HTML", "pdf": "a PDF", "epub": "an EPUB", "jwpub": "a JWPUB",
             "backup": "a JW Library backup"}[found]  # fmt: skip
    raise IngestError(
        f"{loaded.name} is {shown}, not {kind}; ingest it as {found} (`jw rag ingest {found} ...`)"
    )


_LATIN_LETTERS = re.compile(r"[A-Za-zÀ-ÿ]")


def _cp1252_plausible(data: bytes) -> bool:
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return False
    high = [ch for ch in text if ord(ch) > 127]
    # Accented letters, typographic quotes/dashes, ¿ ¡ º ª and the like only.
    return all(_LATIN_LETTERS.match(ch) or ch in "‘’“”–—…¿¡ºª«»°·€" for ch in high)


def decode_text(data: bytes, name: str) -> str:
    """``data`` as text under the rule in this module's docstring."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return clean_controls(data.decode("utf-16"))
        except UnicodeDecodeError as exc:
            raise IngestError(f"{name}: broken UTF-16 text; re-save it as UTF-8") from exc
    try:
        return clean_controls(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        where = f"byte 0x{byte:02x} at offset {exc.start}"
        if _cp1252_plausible(data):
            raise IngestError(
                f"{name} is not UTF-8 ({where}); it looks like cp1252/latin-1: convert it "
                f"with `iconv -f cp1252 -t utf-8` and ingest the converted file"
            ) from exc
        raise IngestError(
            f"{name} is not UTF-8 ({where}) and its encoding is unknown; "
            "re-save it as UTF-8 and try again"
        ) from exc
