"""Download the public evaluation sets the benchmark reads (XQuAD, FaQuAD, Chroma's).

:func:`get_public_dataset` fetches each file of a set from its public upstream
(or a mirror laid out like the destination), checks it against a pinned
SHA-256 and only then moves it into place, in the layout
``jw eval chunker-bench --dataset`` reads::

    DEST/xquad/xquad.en.json, DEST/xquad/xquad.es.json
    DEST/faquad/dataset.json
    DEST/chroma/corpora/{chatlogs,state_of_the_union,wikitexts}.md,
    DEST/chroma/questions_df.csv, DEST/chroma/LICENSE

A set is written whole or not at all: every file is downloaded to a
temporary file beside its target and checked before any is moved into place.
A file already there with the pinned checksum is kept (nothing downloaded);
one that differs is refused unless ``force``. Nothing touches the network
until :func:`get_public_dataset` is called.
"""

from __future__ import annotations

import csv
import hashlib
import http.client
import io
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from jw_rag.errors import JwRagError

__all__ = [
    "PUBLIC_DATASETS",
    "DatasetDownloadError",
    "FileResult",
    "PublicFile",
    "get_public_dataset",
]

#: The largest file accepted from a server (the biggest pinned file is 0.7 MB).
MAX_BYTES = 32 * 1024 * 1024

_XQUAD = "https://raw.githubusercontent.com/google-deepmind/xquad/HEAD/"
_FAQUAD = "https://raw.githubusercontent.com/liafacom/faquad/HEAD/data/"
_CHROMA = "https://raw.githubusercontent.com/brandonstarxel/chunking_evaluation/HEAD/"
_CHROMA_DATA = _CHROMA + "src/chunking_evaluation/evaluation_framework/general_evaluation_data/"
#: The three of Chroma's five corpora the benchmark uses (the others are not
#: redistributable text); ``questions_df.csv`` keeps only their questions.
CHROMA_CORPORA = ("chatlogs", "state_of_the_union", "wikitexts")


class DatasetDownloadError(JwRagError):
    """A public evaluation set could not be downloaded or checked; nothing was written."""


@dataclass(frozen=True)
class PublicFile:
    """One file of a public set: where it goes under the destination, where it
    comes from, and the SHA-256 of the file as written."""

    path: str
    url: str
    sha256: str
    #: For Chroma's question table: keep only the rows of these corpora.
    keep_corpora: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileResult:
    """What :func:`get_public_dataset` did with one file."""

    path: Path
    status: Literal["downloaded", "present", "replaced"]
    bytes: int


PUBLIC_DATASETS: dict[str, tuple[PublicFile, ...]] = {
    "xquad": (
        PublicFile(
            "xquad/xquad.en.json",
            _XQUAD + "xquad.en.json",
            "e4c57d1c9143aaa1c5d265ba5987a65f4e69528d2a98f29d6e75019b10344f29",
        ),
        PublicFile(
            "xquad/xquad.es.json",
            _XQUAD + "xquad.es.json",
            "dcbae93ec3a9f4b9e78fd834a171d6f96c1a875e10e15b7530b7e4ef4971e37e",
        ),
    ),
    "faquad": (
        PublicFile(
            "faquad/dataset.json",
            _FAQUAD + "dataset.json",
            "bd515d8890a9ff02a50aeb07ce76be408be54e9e384ce989caec1045a8e04588",
        ),
    ),
    "chroma": (
        PublicFile(
            "chroma/corpora/chatlogs.md",
            _CHROMA_DATA + "corpora/chatlogs.md",
            "543a98f82b2a6a492349fd7f8c9d6c3e78d1a4af81d13c79a7fd513c3f65bda6",
        ),
        PublicFile(
            "chroma/corpora/state_of_the_union.md",
            _CHROMA_DATA + "corpora/state_of_the_union.md",
            "6fc21d560d31eb2421e337596feea0f83f1fa9ca02c6c4e47bc26959d7531b37",
        ),
        PublicFile(
            "chroma/corpora/wikitexts.md",
            _CHROMA_DATA + "corpora/wikitexts.md",
            "74cafcdb771185ecb9f22cc41b73e2e44477e0636ecf9cf1f96fd6ee0f4b86c0",
        ),
        PublicFile(
            "chroma/questions_df.csv",
            _CHROMA_DATA + "questions_df.csv",
            "f76ca45b6a8245d9fcc790ac471c9e708088e349219b9ff470b76e9734515053",
            keep_corpora=CHROMA_CORPORA,
        ),
        PublicFile(
            "chroma/LICENSE",
            _CHROMA + "LICENSE",
            "d45a8feb04274ffe74d308c1ce44db7af536b6fe66f48a96566a4e4329ffba27",
        ),
    ),
}

Fetch = Callable[[str, float], bytes]


def get_public_dataset(
    name: str,
    dest: str | os.PathLike[str],
    *,
    force: bool = False,
    mirror: str | None = None,
    timeout: float = 60.0,
    fetch: Fetch | None = None,
) -> list[FileResult]:
    """Download the public set ``name`` (``xquad``, ``faquad`` or ``chroma``)
    into ``dest`` in the layout the benchmark reads, every file checked
    against its pinned SHA-256.

    ``mirror`` is a base URL laid out like ``dest`` (``MIRROR/xquad/xquad.en.json``)
    used instead of the upstream addresses. A file already in place with the
    pinned checksum is kept; one that differs raises
    :class:`DatasetDownloadError` unless ``force``. Any failure (unreachable
    server, a size over :data:`MAX_BYTES`, a checksum that does not match)
    raises :class:`DatasetDownloadError` and leaves ``dest`` as it was.
    """
    if name not in PUBLIC_DATASETS:
        raise ValueError(
            f"unknown dataset {name!r}; choose one of {', '.join(sorted(PUBLIC_DATASETS))}"
        )
    if mirror is not None and not mirror.startswith(("http://", "https://")):
        raise ValueError(
            f"mirror {mirror!r} is not an http(s) URL; give e.g. http://host/bench-data"
        )
    if not timeout > 0:
        raise ValueError(f"timeout {timeout!r} must be a positive number of seconds")
    root = Path(dest)
    if root.exists() and not root.is_dir():
        raise ValueError(f"{root} is not a folder; give --dest a folder (it is created if missing)")
    get = fetch or _http_get
    files = PUBLIC_DATASETS[name]
    todo: list[tuple[PublicFile, Path, bool]] = []
    results: list[FileResult] = []
    for item in files:
        target = root / item.path
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise DatasetDownloadError(
                f"{target} is not a regular file; move it away and run again"
            )
        if target.exists():
            if _sha256_file(target) == item.sha256:
                results.append(FileResult(target, "present", target.stat().st_size))
                continue
            if not force:
                raise DatasetDownloadError(
                    f"{target} exists and differs from the pinned {name} file; "
                    "pass --force to replace it"
                )
        todo.append((item, target, target.exists()))
    payloads: list[tuple[PublicFile, Path, bool, bytes]] = []
    for item, target, existed in todo:
        url = f"{mirror.rstrip('/')}/{item.path}" if mirror else item.url
        data = get(url, timeout)
        if item.keep_corpora:
            data = _keep_corpora(data, item.keep_corpora, url)
        digest = hashlib.sha256(data).hexdigest()
        if digest != item.sha256:
            raise DatasetDownloadError(
                f"checksum mismatch for {item.path} from {url} (sha256 {digest[:12]}…, "
                f"pinned {item.sha256[:12]}…): the file changed upstream or was damaged; "
                "nothing was written"
            )
        payloads.append((item, target, existed, data))
    _write_all(payloads)
    for _item, target, existed, data in payloads:
        results.append(FileResult(target, "replaced" if existed else "downloaded", len(data)))
    order = {item.path: i for i, item in enumerate(files)}
    return sorted(results, key=lambda r: order[r.path.relative_to(root).as_posix()])


def _write_all(payloads: list[tuple[PublicFile, Path, bool, bytes]]) -> None:
    """Write every checked file to a temporary file beside its target, then
    move them all into place; on any failure remove what was made (temporary
    files, files that were not there before, folders made)."""
    made_dirs: list[Path] = []
    temps: list[tuple[Path, Path, bool]] = []
    placed: list[Path] = []
    try:
        for _item, target, existed, data in payloads:
            for parent in reversed(target.parents):
                if not parent.exists():
                    try:
                        parent.mkdir()
                    except FileExistsError:  # made meanwhile by another download
                        continue
                    made_dirs.append(parent)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
            temps.append((Path(tmp), target, existed))
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
        for tmp, target, existed in temps:
            os.replace(tmp, target)
            if not existed:
                placed.append(target)
    except BaseException:
        for tmp, _target, _existed in temps:
            tmp.unlink(missing_ok=True)
        for target in placed:
            target.unlink(missing_ok=True)
        for folder in reversed(made_dirs):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise


def _http_get(url: str, timeout: float) -> bytes:
    """The body of ``url``, at most :data:`MAX_BYTES`, or a one-line error."""
    request = urllib.request.Request(url, headers={"User-Agent": "jw-eval datasets"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only
            body = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise DatasetDownloadError(
            f"cannot download {url}: HTTP {exc.code} {exc.reason}; nothing was written"
        ) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DatasetDownloadError(
            f"cannot download {url}: {' '.join(str(reason).split())}; check the network "
            "(or pass --mirror) and run again; nothing was written"
        ) from None
    if len(body) > MAX_BYTES:
        raise DatasetDownloadError(
            f"{url} sent more than {MAX_BYTES // (1024 * 1024)} MiB; it is not the pinned file; "
            "nothing was written"
        )
    return body


def _keep_corpora(data: bytes, corpora: tuple[str, ...], url: str) -> bytes:
    """Chroma's question table with only the rows of ``corpora`` (CSV rewritten
    as the upstream writes it: minimal quoting, CRLF line ends)."""
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DatasetDownloadError(
            f"{url} is not a UTF-8 CSV table ({exc}); nothing was written"
        ) from None
    if not rows or "corpus_id" not in rows[0]:
        raise DatasetDownloadError(f"{url} has no corpus_id column; nothing was written")
    column = rows[0].index("corpus_id")
    kept = [rows[0]] + [r for r in rows[1:] if len(r) > column and r[column] in corpora]
    out = io.StringIO(newline="")
    csv.writer(out).writerows(kept)
    return out.getvalue().encode("utf-8")


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
