"""``ingest(store, kind, source)``: any source kind, parsed, chunked and stored.

The kind (:mod:`jw_rag.ingest.kinds`) says what ``source`` may be (a file, an
http(s) URL, a folder) and which options it takes; an option or a source it
does not take is a one-line :class:`~jw_rag.errors.ConfigError` before anything
is read. Everything is parsed and chunked before the store is touched.

The functions named after a kind (``ingest_article``, ``ingest_epub``, ...)
are the same call with the kind filled in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from jw_rag.errors import ConfigError, IngestError, check_flag
from jw_rag.ingest._local import refuse_non_path
from jw_rag.ingest._source import is_url, refuse_empty_path
from jw_rag.ingest.bible import parse_bible_chapter
from jw_rag.ingest.folder import nothing_to_ingest
from jw_rag.ingest.kinds import FOLDER, URL, SourceKind, source_kind
from jw_rag.ingest.loader import SkippedFile, load_documents, load_folder
from jw_rag.ingest.pipeline import (
    ChunkerArg,
    IngestResult,
    check_language,
    ingest_documents,
    ingest_parsed,
    with_language,
)
from jw_rag.model import Document
from jw_rag.store.protocol import Store

__all__ = [
    "ingest",
    "ingest_article",
    "ingest_bible_chapter",
    "ingest_epub",
    "ingest_jwpub",
    "ingest_markdown",
    "ingest_pdf",
    "ingest_text",
    "load_kind",
    "refuse_skip_bad",
]


def refuse_skip_bad(source: str | Path) -> None:
    """The one-line ConfigError for ``skip_bad`` given a source that is no folder."""
    if is_url(source) or not Path(source).expanduser().is_dir():
        raise ConfigError(f"--skip-bad applies to a folder, and {source} is not one; drop it")


def _check_source(kind: SourceKind, source: str | Path, skip_bad: bool) -> None:
    """A one-line ConfigError for a source ``kind`` does not read."""
    refuse_empty_path(source)
    if is_url(source):
        if not kind.takes(URL):
            raise ConfigError(
                f"kind {kind.name!r} reads a file, and {source} is a URL: download it and "
                "pass the file's path"
            )
    elif Path(source).expanduser().is_dir() and not kind.takes(FOLDER):
        raise ConfigError(f"kind {kind.name!r} reads one file, and {source} is a folder")
    if skip_bad:
        refuse_skip_bad(source)


def load_kind(
    kind: str,
    source: str | Path,
    *,
    language: str | None = None,
    source_id: str | None = None,
    skip_bad: bool = False,
) -> tuple[list[Document], list[SkippedFile] | None]:
    """Every document of ``source`` read as ``kind`` (with the caller's
    ``language``) and, with ``skip_bad`` (a folder), the files left out; a kind
    that stores its files itself (``backup``) is refused: use :func:`ingest`."""
    check_flag("skip_bad", skip_bad)
    chosen = source_kind(kind)
    chosen.check_options(source_id=source_id, replace=False, skip_bad=skip_bad, called=kind)
    check_language(language)
    _check_source(chosen, source, skip_bad)
    if chosen.read_file is not None:
        return chosen.read_file(source, language), None
    if chosen.read_bytes is None:
        raise ConfigError(f"kind {chosen.name!r} is stored as it is read; ingest it with ingest()")
    if skip_bad:
        if source_id is not None:
            raise ConfigError(
                "--source-id names one source; a folder's files get ids from their paths"
            )
        docs, skipped = load_folder(source, kind=chosen.name, skip_bad=True)
        found: tuple[list[Document], list[SkippedFile] | None] = (docs, skipped)
    else:
        found = load_documents(source, kind=chosen.name, source_id=source_id), None
    for doc in found[0]:
        with_language(doc, language)
    return found


def ingest(
    store: Store,
    kind: str,
    source: str | Path,
    *,
    chunker: ChunkerArg = None,
    language: str | None = None,
    source_id: str | None = None,
    replace: bool = False,
    skip_bad: bool = False,
) -> list[IngestResult]:
    """Parse, chunk and store ``source`` as ``kind`` (see
    :data:`jw_rag.ingest.kinds.SOURCE_KINDS`); one result per stored source.

    ``source_id`` names a single source (an EPUB's chapters get it as a
    prefix); ``replace`` lets a source replace a stored one of the same id
    that came from elsewhere; ``skip_bad`` (a folder) leaves out the files
    that cannot be read, as :func:`jw_rag.ingest.ingest_folder` does."""
    check_flag("replace", replace)
    check_flag("skip_bad", skip_bad)
    chosen = source_kind(kind)
    chosen.check_options(source_id=source_id, replace=replace, skip_bad=skip_bad, called=kind)
    if chosen.ingest_file is not None:
        check_language(language)
        _check_source(chosen, source, skip_bad)
        return chosen.ingest_file(store, source, language, chunker)
    docs, skipped = load_kind(
        chosen.name, source, language=language, source_id=source_id, skip_bad=skip_bad
    )
    if skipped is not None and not docs:
        raise nothing_to_ingest(source, skipped, chosen.name)
    results = ingest_documents(store, docs, chunker=chunker, replace=replace, skipped=skipped)
    if skipped is not None and not results:
        raise nothing_to_ingest(source, skipped, chosen.name)
    return results


R = TypeVar("R")


def _only(results: list[IngestResult]) -> IngestResult:
    (result,) = results
    return result


def _every(results: list[IngestResult]) -> list[IngestResult]:
    return results


class KindIngest(Generic[R]):
    """:func:`ingest` with the kind filled in, under the kind's function name;
    with ``_only`` it reads one source (a folder is refused) and returns its
    one result."""

    def __init__(self, kind: str, answer: Callable[[list[IngestResult]], R], name: str) -> None:
        self.kind = kind
        self._answer = answer
        self.__name__ = self.__qualname__ = name
        self.__doc__ = f"``ingest(store, {kind!r}, source, ...)``."

    def __repr__(self) -> str:
        return f"<function {self.__name__}>"

    def __call__(
        self,
        store: Store,
        source: str | Path,
        /,
        *,
        chunker: ChunkerArg = None,
        language: str | None = None,
        source_id: str | None = None,
        replace: bool = False,
    ) -> R:
        check_flag("replace", replace)
        refuse_non_path(source)
        if self._answer is _only and not is_url(source) and Path(source).expanduser().is_dir():
            raise IngestError(
                f"{source} is a directory; pass one file or URL, or ingest(store, "
                f"{self.kind!r}, folder) for every file in it"
            )
        results = ingest(
            store, self.kind, source, chunker=chunker, language=language, source_id=source_id,
            replace=replace,
        )  # fmt: skip
        return self._answer(results)


ingest_article = KindIngest("article", _only, "ingest_article")
ingest_pdf = KindIngest("pdf", _only, "ingest_pdf")
ingest_markdown = KindIngest("markdown", _only, "ingest_markdown")
ingest_text = KindIngest("text", _only, "ingest_text")
ingest_epub = KindIngest("epub", _every, "ingest_epub")
ingest_jwpub = KindIngest("jwpub", _every, "ingest_jwpub")
_bible = KindIngest("bible", _only, "ingest_bible_chapter")


def ingest_bible_chapter(
    store: Store,
    url_or_path: str | Path,
    *,
    chunker: ChunkerArg = None,
    language: str | None = None,
    book: str | None = None,
    chapter: int | None = None,
    source_id: str | None = None,
    replace: bool = False,
) -> IngestResult:
    """``ingest(store, "bible", ...)``; ``book`` and ``chapter`` name a chapter
    whose page does not carry them."""
    check_flag("replace", replace)
    if book is None and chapter is None:
        return _bible(
            store, url_or_path, chunker=chunker, language=language, source_id=source_id,
            replace=replace,
        )  # fmt: skip
    doc = parse_bible_chapter(url_or_path, book=book, chapter=chapter)
    return ingest_parsed(
        store, doc, chunker=chunker, language=language, source_id=source_id, replace=replace
    )
