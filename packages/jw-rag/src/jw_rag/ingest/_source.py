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
:data:`MAX_RATIO`, is refused before anything is unpacked, and one whose
directory lists more than ``jw_core.MAX_ARCHIVE_MEMBERS`` members before it
is read (:func:`check_archive`).

Control characters: one rule for every source kind, applied where the text is
decoded (:func:`clean_controls`), before any chunker or store sees it. C0
control characters other than tab, newline and carriage return (NUL included)
are removed, so SQLite and PostgreSQL (which refuses NUL) store the same text;
a lone surrogate (a half of a UTF-16 pair, which a PDF's text or a JSON string
can carry and no UTF-8 store can hold) becomes U+FFFD.
"""

from __future__ import annotations

import http.client
import io
import math
import os
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from jw_core import MAX_TEXT_BYTES as _MAX_TEXT_BYTES
from jw_core import directory_problem
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest._http import AddressCheck, Deadline, DeadlinePassed, Hop, open_hop
from jw_rag.ingest._local import open_local, refuse_non_path

__all__ = [
    "ACCEPT_ENCODING",
    "FETCH_DEADLINE",
    "AddressCheck",
    "UrlCheck",
    "checking_addresses",
    "checking_urls",
    "fetch_limits",
    "MAX_RATIO",
    "MAX_REDIRECTS",
    "MAX_SOURCE_BYTES",
    "MAX_PARAGRAPHS",
    "MAX_TAGS",
    "MAX_TEXT_BYTES",
    "MAX_UNPACKED_BYTES",
    "BINARY_CONTROL_SHARE",
    "Loaded",
    "check_archive",
    "check_paragraphs",
    "check_text_size",
    "clean_controls",
    "decode_text",
    "fetch_url",
    "is_url",
    "carries_verse_ids",
    "looks_binary",
    "looks_like_article_page",
    "read_path",
    "read_source",
    "refuse_empty_path",
    "refuse_other_kind",
    "sniff_kind",
    "url_source_id",
    "utf16_without_bom",
]

#: Seconds a whole fetch may take (resolving, connecting, redirects, headers and body).
FETCH_DEADLINE = 60.0
#: Redirects one fetch follows (http and https only) before it gives up.
MAX_REDIRECTS = 10
#: The largest source read or fetched, in bytes.
MAX_SOURCE_BYTES = 256 * 1024 * 1024
#: The most text or markup one source (a page, a text or Markdown file) may hold.
MAX_TEXT_BYTES = _MAX_TEXT_BYTES
#: The most paragraphs one source may hold. A source is chunked and stored as a
#: stream (:mod:`jw_rag.ingest.pipeline`), but its paragraphs are held while it
#: is: each costs about 200 bytes however short it is, so short ones are bounded
#: by count, not by bytes (a 3 MB text of 1,000,000 one-letter paragraphs peaks
#: at about 265 MB, 32 MB of 1,000,000 short sentences at about 410 MB).
MAX_PARAGRAPHS = 1_000_000
#: The most tags an HTML page may hold (counted before it is parsed as a stream).
MAX_TAGS = 1_000_000
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
    with a redirect to a refused URL is refused at that hop."""
    token = _URL_CHECK.set(check)
    try:
        yield
    finally:
        _URL_CHECK.reset(token)


_ADDRESS_CHECK: ContextVar[AddressCheck | None] = ContextVar("jw_rag_address_check", default=None)


@contextmanager
def checking_addresses(check: AddressCheck) -> Iterator[None]:
    """Within the block, every address the host of each hop of a fetch resolves
    to goes through ``check(url, host, address)`` before anything connects, and
    the connection is made to those checked addresses only (the host is not
    resolved again), so a name that resolves differently the second time
    cannot reach a refused address."""
    token = _ADDRESS_CHECK.set(check)
    try:
        yield
    finally:
        _ADDRESS_CHECK.reset(token)


#: ``(max_bytes, deadline)`` set by :func:`fetch_limits`; None: the module's defaults.
_FETCH_LIMITS: ContextVar[tuple[int | None, float | None]] = ContextVar(
    "jw_rag_fetch_limits", default=(None, None)
)


@contextmanager
def fetch_limits(max_bytes: int | None = None, deadline: float | None = None) -> Iterator[None]:
    """Within the block, a fetch stops at ``max_bytes`` of body and after
    ``deadline`` seconds in all (resolving, connecting, redirects, headers and
    body); ``None`` keeps :data:`MAX_SOURCE_BYTES` or :data:`FETCH_DEADLINE`."""
    if max_bytes is not None and max_bytes < 1:
        raise ConfigError(f"fetch size cap {max_bytes} is not positive: give at least 1 byte")
    if deadline is not None and not (deadline > 0 and math.isfinite(deadline)):
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
    in a script must not ingest the folder the script runs in); what is not a
    path at all (None, a number, bytes) is a one-line ConfigError naming it."""
    refuse_non_path(path)
    if isinstance(path, str) and not path.strip():
        raise IngestError("the path is empty; pass a file, a folder or an http(s) URL")


def read_path(path: str | Path) -> Loaded:
    """The bytes of a local file, opened by :func:`~jw_rag.ingest._local.open_local`
    (resolved, checked and opened as one step); at most :data:`MAX_SOURCE_BYTES`."""
    refuse_empty_path(path)
    p = Path(path).expanduser()
    with open_local(path) as fh:
        try:
            # sized by the file, not the cap: reading up to the cap at once would
            # reserve 256 MiB for a file of a few bytes (and a file that grows
            # meanwhile is still read up to the cap, then refused)
            before = os.fstat(fh.fileno())
            size = min(before.st_size, MAX_SOURCE_BYTES)
            data = fh.read(size + 1)
            if len(data) > size:
                data += fh.read(MAX_SOURCE_BYTES + 1 - len(data))
            after = os.fstat(fh.fileno())
        except OSError as exc:
            raise IngestError(
                f"{p}: cannot be read ({exc.strerror or exc}); check its permissions"
            ) from exc
    if len(data) <= MAX_SOURCE_BYTES and (before.st_size, before.st_mtime_ns) != (
        after.st_size,
        after.st_mtime_ns,
    ):  # what was read may be part old, part new, or cut short
        raise IngestError(f"{p} changed while it was being read; try again once it is settled")
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
    :data:`MAX_RATIO` times (a decompression bomb), from its directory alone;
    one whose directory lists too many members before reading it
    (:func:`jw_core.directory_problem`)."""
    problem = directory_problem(io.BytesIO(data))
    if problem is not None:
        raise IngestError(f"{name} {problem}; it is not a publication this reads")
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
    """GET ``url``, following at most :data:`MAX_REDIRECTS` redirects (http and
    https only), reading at most :data:`MAX_SOURCE_BYTES` of decoded body, all
    within :data:`FETCH_DEADLINE` seconds (or the limits of
    :func:`fetch_limits`). Each hop is checked (:func:`checking_urls`,
    :func:`checking_addresses`) and connected to the address that was checked;
    the one deadline covers resolving, connecting, TLS, headers and body of
    every hop (:mod:`jw_rag.ingest._http`). Nothing is retried."""
    _check_url(url, url)
    max_bytes, seconds = _limits()
    deadline = Deadline.after(seconds)
    url_check, address_check = _URL_CHECK.get(), _ADDRESS_CHECK.get()
    current = url
    try:
        for _ in range(MAX_REDIRECTS + 1):
            if url_check is not None:
                url_check(current)
            with open_hop(current, deadline, address_check, ACCEPT_ENCODING) as hop:
                following = _redirect(url, current, hop)
                if following is None:
                    _check_status(url, hop)
                    data = _read_body(url, hop, max_bytes)
                    content_type = hop.header("content-type")
                    break
            current = following
        else:
            raise IngestError(
                f"{url}: cannot be fetched (more than {MAX_REDIRECTS} redirects); check the "
                "address, or download the page and pass the file path"
            )
    except DeadlinePassed as exc:
        raise _past_deadline(url, seconds) from exc
    except (OSError, http.client.HTTPException) as exc:
        reason = _reason(exc)
        raise IngestError(
            f"{url}: cannot be fetched ({reason}); check the address and your network "
            "connection, or download the page and pass the file path"
        ) from exc
    if not data:
        raise IngestError(f"{url}: the server sent an empty page; check the address")
    return Loaded(data=data, name=url, url=current, content_type=content_type)


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def _redirect(url: str, current: str, hop: Hop) -> str | None:
    """The URL a redirect answer points to (http or https only); None for other answers."""
    location = hop.header("location").strip()
    if hop.status not in _REDIRECTS or not location:
        return None
    try:
        following = urljoin(current, location)
    except ValueError:
        following = location
    _check_url(url, following)
    if urlsplit(following).scheme.lower() not in ("http", "https"):
        raise IngestError(
            f"{url}: cannot be fetched (it redirects to {following!r}, not an http(s) URL); "
            "download the page and pass the file path"
        )
    return following


def _reason(exc: BaseException) -> str:
    """What went wrong in a hop, in a few words on one line."""
    if isinstance(exc, http.client.IncompleteRead):
        return "the connection closed before the page ended"
    if isinstance(exc, http.client.BadStatusLine):
        return "the server's answer is not HTTP"
    return " ".join(clean_controls(str(exc)).split()) or type(exc).__name__


def _check_url(url: str, target: str) -> None:
    """Refuse a ``target`` (``url`` or a redirect of it) that does not parse as a URL."""
    try:
        parts = urlsplit(target)
        _ = parts.port, parts.hostname
    except ValueError as exc:
        where = "" if target == url else f" (it redirects to {target!r})"
        raise IngestError(f"{url}: not a valid URL{where}: {exc}; check the address") from None


def _past_deadline(url: str, seconds: float) -> IngestError:
    return IngestError(
        f"{url}: still downloading after {seconds:g} s; try again later or "
        "download the page and pass the file path"
    )


def _check_status(url: str, hop: Hop) -> None:
    if 300 <= hop.status < 400 and hop.status != 304:
        raise IngestError(
            f"{url}: the server answered HTTP {hop.status} {hop.reason} without an address "
            "to follow; check the address"
        )
    if hop.status >= 400:
        raise IngestError(
            f"{url}: the server answered HTTP {hop.status} {hop.reason}; check the address"
        )


#: Content encodings a fetch asks for and decodes itself, a piece at a time.
ACCEPT_ENCODING = "gzip, deflate"
_STEP = 1024 * 1024


def _decoder(url: str, hop: Hop) -> Any:
    """A zlib inflater for the body's content encoding; None for an unencoded body."""
    encoding = hop.header("content-encoding").strip().lower()
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


def _read_body(url: str, hop: Hop, max_bytes: int) -> bytes:
    """The decoded body, stopped at the size cap or a bomb's ratio (the hop
    stops it at the deadline)."""
    inflater = _decoder(url, hop)
    body = bytearray()  # grown in place: no list of pieces joined into a second copy
    wire = 0
    while True:
        chunk = hop.read(_STEP)
        wire += len(chunk)
        for part in _decoded(url, inflater, chunk):  # b"": what the inflater still holds
            _check_body(url, len(body) + len(part), wire, max_bytes)
            body += part
        if not chunk:
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


#: Control bytes (NUL included; not tab, line breaks or form feed) in more than
#: this share of the first 4 KiB make a file binary data rather than text.
BINARY_CONTROL_SHARE = 0.05


def utf16_without_bom(data: bytes) -> str | None:
    """``"utf-16le"`` or ``"utf-16be"`` when the first 4 KiB of ``data`` read as
    text in that encoding, saved without a byte-order mark; else None. The high
    byte of each pair is NUL (Latin letters, and the spaces and punctuation of
    any script) or one script's block (0x04 for Cyrillic...), and the text is
    printable."""
    head = data[: 4096 & ~1]
    if len(head) < 4 or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    for codec, high in (("utf-16le", head[1::2]), ("utf-16be", head[0::2])):
        counts = Counter(high)
        zeros = counts.pop(0, 0)
        block = max(counts.values(), default=0)
        if zeros < len(high) * 0.05 or zeros + block < len(high) * 0.9:
            continue
        try:
            text = head.decode(codec)
        except UnicodeDecodeError:
            continue
        if all(c.isprintable() or c in "\t\n\r" for c in text):
            return codec
    return None


def looks_binary(data: bytes) -> bool:
    """True when more than :data:`BINARY_CONTROL_SHARE` of the first 4 KiB of
    ``data`` are control bytes. A text with a few stray NULs is text (they are
    removed when it is decoded, see :func:`clean_controls`)."""
    head = data[:4096]
    if not head:
        return False
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text
        return False
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    return controls > len(head) * BINARY_CONTROL_SHARE


_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def clean_controls(text: str) -> str:
    """``text`` under the control-character rule in this module's docstring."""
    if _CONTROLS.search(text):
        text = _CONTROLS.sub("", text)
    if _SURROGATES.search(text):
        text = _SURROGATES.sub("\ufffd", text)
    return text


_HTML_START = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
    re.IGNORECASE | re.DOTALL,
)


def _zip_kind(data: bytes) -> str:
    if directory_problem(io.BytesIO(data)) is not None:
        return "zip"  # not opened: the kind's reader names the problem
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


#: A wol verse container's id (``v43003016``, ``v43-3-16-1``): a Bible chapter page.
_VERSE_ID = re.compile(rb"""id=["']v\d{1,2}(?:\d{6}|-\d{1,3}-\d{1,3})""")
#: A wol article paragraph.
_PID = re.compile(rb"""\sdata-pid=["']""", re.IGNORECASE)
#: How much of a page is searched for them.
_PAGE_HEAD = 200_000


def carries_verse_ids(data: bytes) -> bool:
    """True when the page carries wol verse ids: a Bible chapter page."""
    return _VERSE_ID.search(data[:_PAGE_HEAD]) is not None


def looks_like_article_page(data: bytes) -> bool:
    """True for a wol article page: ``data-pid`` paragraphs and no verse ids."""
    head = data[:_PAGE_HEAD]
    return _PID.search(head) is not None and _VERSE_ID.search(head) is None


def _looks_like_html_file(loaded: Loaded) -> bool:
    name = (loaded.url or loaded.name).lower().split("?", 1)[0]
    named = name.endswith((".html", ".htm", ".xhtml"))
    return named and loaded.data[:1024].removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"<"


def refuse_other_kind(loaded: Loaded, kind: str) -> None:
    """A one-line IngestError when ``loaded`` is plainly another kind than
    ``kind``: its signature shows one (:func:`sniff_kind`), or it is named
    ``.html``/``.htm``/``.xhtml`` and opens with a tag (an HTML fragment)."""
    found = sniff_kind(loaded.data)
    if found is None and _looks_like_html_file(loaded):
        found = "article"
    if found is None or found == kind:
        return
    if found == "zip":
        raise IngestError(
            f"{loaded.name} is a ZIP archive, not {kind}; unpack it and ingest its files"
        )
    from jw_rag.ingest.kinds import source_kind  # the kinds' readers import this module

    shown = source_kind(found).described
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
