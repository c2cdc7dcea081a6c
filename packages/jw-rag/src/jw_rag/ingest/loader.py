"""``load_documents``: any supported source (file, folder or URL) to documents.

Kinds: those of :data:`jw_rag.ingest.kinds.SOURCE_KINDS` read from bytes
(``article``, ``bible``, ``epub``, ``pdf``, ``markdown``, ``text``).
Without ``kind`` the file extension decides (``.html``/``.htm``/``.xhtml``
article, or bible when the page carries wol verse ids; ``.epub``; ``.pdf``;
``.md``/``.markdown``; ``.txt``), else the content (``%PDF``, an EPUB zip,
HTML markup, else text); for a URL the response's content type and content.

A folder is read recursively (files with a known extension, sorted by path;
with a ``kind``, only the files of that kind: by their extension, and of the
two HTML kinds a Bible chapter page, one with wol verse ids, is no article
and an article page in which the Bible reader finds no verses no chapter).
The files left out, those of other kinds and those no kind reads, are named
in one warning with the kinds that read them (:mod:`jw_rag.ingest._left_out`);
each document's ``source_id`` is the folder's own name followed by the file's
path inside it, without the extension: ingesting ``corpus/es`` gives
``es/alma``, ``corpus/pt`` gives ``pt/alma``, and ``corpus`` gives
``corpus/es/alma``. Two files of one folder that differ only in their
extension keep it (``notes/a.md``, ``notes/a.txt``). A Bible chapter keeps its
``book:chapter`` id. A single file's id is its stem; a URL's is host and path.
Where each source came from is checked when it is stored (see
:mod:`jw_rag.ingest._identity`). :func:`load_folder` can leave bad files out
instead of failing on the first (``skip_bad``), listing each with its reason.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from jw_rag.errors import ConfigError, IngestError, check_flag
from jw_rag.ingest._identity import DEFAULT_ID_KEY, refuse_raw_name
from jw_rag.ingest._left_out import (
    LeftOut,
    link_groups,
    note_left_out,
    page_group,
    type_groups,
)
from jw_rag.ingest._local import RefusedPath, checked_folder
from jw_rag.ingest._skipped import PER_FILE_ERRORS, SkippedFile
from jw_rag.ingest._source import (
    Loaded,
    carries_verse_ids,
    is_url,
    looks_like_article_page,
    read_path,
    read_source,
    refuse_empty_path,
    refuse_other_kind,
    sniff_kind,
)
from jw_rag.ingest.kinds import FOLDER, SOURCE_KINDS, BytesReader, FolderIds, source_kind
from jw_rag.model import Document

__all__ = ["EXTENSIONS", "KINDS", "SkippedFile", "detect_kind", "load_documents", "load_folder"]

#: The kinds read from bytes (a file, a URL, a folder's files), by name.
_READERS: dict[str, BytesReader] = {
    k.name: k.read_bytes for k in SOURCE_KINDS if k.read_bytes is not None
}
_FOLDER_IDS: dict[str, FolderIds] = {k.name: k.folder_ids for k in SOURCE_KINDS}
KINDS: tuple[str, ...] = tuple(_READERS)
EXTENSIONS: dict[str, str] = {
    ext: k.name for k in SOURCE_KINDS if k.name in _READERS for ext in k.extensions
}
#: Files of the kinds that read one file at a time (a JWPUB, a backup), by extension:
#: a folder leaves them out, naming the kind that reads each.
_ONE_FILE_EXTENSIONS: dict[str, str] = {
    ext: k.name for k in SOURCE_KINDS if not k.takes(FOLDER) for ext in k.extensions
}
_CONTENT_TYPES: dict[str, str] = {
    ctype: k.name for k in SOURCE_KINDS if k.name in _READERS for ctype in k.content_types
}


def detect_kind(loaded: Loaded) -> str:
    """The kind of an already-read source (see the module docstring)."""
    suffix = loaded.path.suffix.lower() if loaded.path is not None else ""
    kind = EXTENSIONS.get(suffix)
    ctype = loaded.content_type.split(";")[0].strip().lower()
    if kind is None and ctype:
        kind = _CONTENT_TYPES.get(ctype)
    if kind is None:
        sniffed = sniff_kind(loaded.data)
        if sniffed is not None and sniffed not in KINDS:
            refuse_other_kind(loaded, "a page, book or text file")
        html = loaded.data.lstrip()[:1] == b"<" or ctype in ("text/html", "application/xhtml+xml")
        kind = sniffed or ("article" if html else "text")
    if kind == "article" and carries_verse_ids(loaded.data):
        kind = "bible"
    return kind


def _parse(loaded: Loaded, kind: str | None, source_id: str | None) -> list[Document]:
    """The documents of ``loaded``; ``source_id`` (the caller's) replaces the
    default id (an EPUB's chapters keep their file names after it)."""
    return _READERS[kind or detect_kind(loaded)](loaded, source_id)


def _folder_ids(root: Path, files: list[Path]) -> list[str]:
    """Each file's id: the folder's name, then the path inside it without the
    extension; with the extension for files that would otherwise share one."""
    name = root.name if root.name not in ("", "..") else root.resolve().name
    ids = [f"{name}/{p.relative_to(root).with_suffix('').as_posix()}" for p in files]
    shared = {i for i, n in Counter(ids).items() if n > 1}
    return [
        f"{name}/{p.relative_to(root).as_posix()}" if i in shared else i
        for i, p in zip(ids, files, strict=True)
    ]


def _folder_files(root: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """The supported files below ``root``, those no kind reads, and the links
    that are not files (a linked folder is not followed: a link may loop back;
    a broken link reads nothing), sorted; no supported file is a one-line
    IngestError."""
    found = sorted(root.rglob("*"))
    every = [p for p in found if p.is_file()]
    links = [p for p in found if p.is_symlink() and not p.is_file()]
    files = [p for p in every if p.suffix.lower() in EXTENSIONS]
    if not files:
        held = ""
        linked = [p for p in links if p.is_dir()]
        if linked:
            each = "it" if len(linked) == 1 else "each"
            held = f"; it holds {link_groups(root, linked)[0].said()}: ingest {each} on its own"
        raise IngestError(
            f"{root}: no supported files ({', '.join(sorted(EXTENSIONS))}) in this folder{held}"
        )
    return files, [p for p in every if p.suffix.lower() not in EXTENSIONS], links


def _of_kind(
    root: Path, pairs: list[tuple[Path, str]], kind: str
) -> tuple[list[tuple[Path, str]], list[Path]]:
    """The files of a folder read as ``kind`` (by their extensions) and the
    others; a folder with none of its files is an error."""
    asked = source_kind(kind)
    wanted = asked.reads_extensions
    taken = [(p, i) for p, i in pairs if p.suffix.lower() in wanted]
    others = [p for p, _ in pairs if p.suffix.lower() not in wanted]
    if others and not taken:
        counts = Counter(p.suffix.lower() for p in others)
        held = ", ".join(f"{n} {ext}" for ext, n in sorted(counts.items()))
        raise IngestError(
            f"{root} has no file that is {asked.described} ({', '.join(wanted)}), "
            f"only {held}: ingest it as the kind of those files"
        )
    return taken, others


#: For each kind read from HTML, the other one, what its pages are called and
#: how to tell one of them when met under the kind asked for.
_OTHER_PAGE = {"article": ("bible", "Bible chapter page"), "bible": ("article", "article page")}


def _other_page(loaded: Loaded, kind: str | None, failure: IngestError | None) -> bool:
    """True when ``loaded``, read as ``kind``, is a page of the other HTML kind:
    a Bible chapter page (wol verse ids) read as an article, or an article page
    (``data-pid`` paragraphs, no verse ids) in which the Bible reader found no
    verses (``failure``)."""
    if kind == "article":
        return carries_verse_ids(loaded.data)
    if kind == "bible" and failure is not None:
        return looks_like_article_page(loaded.data)
    return False


class _PageOfOtherKind(Exception):
    """A folder's page belongs to the other HTML kind (see :func:`_other_page`)."""


def _folder_file(path: Path, folder_id: str, kind: str | None) -> list[Document]:
    """The documents of one file of a folder, under the folder's id for it."""
    loaded = read_path(path)
    chosen = kind or detect_kind(loaded)
    if _other_page(loaded, kind, None):
        raise _PageOfOtherKind
    if _FOLDER_IDS[chosen] == "prefix":
        parsed = _parse(loaded, chosen, folder_id)
    else:
        try:
            parsed = _parse(loaded, chosen, None)
        except IngestError as exc:
            if _other_page(loaded, kind, exc):
                raise _PageOfOtherKind from None
            raise
    if _FOLDER_IDS[chosen] == "file":  # "own": e.g. a chapter's id is its book and number
        for doc in parsed:
            doc.source_id = folder_id
            doc.metadata[DEFAULT_ID_KEY] = True
    refuse_raw_name(str(path), folder_id)  # a file error, so that skip_bad leaves it out
    return parsed


def _both_names(kind: str) -> str:
    """A kind as the library and ``jw`` call it, and as the MCP tool does when that differs."""
    public = source_kind(kind).public_name
    return kind if public == kind else f"{kind} ({public} in the MCP ingest tool)"


def _left_out(
    root: Path,
    kind: str | None,
    others: list[Path],
    pages: list[Path],
    unread: list[Path],
    links: list[Path],
    outside: list[Path],
) -> LeftOut | None:
    """What a folder ingest left out, or None when it read every file."""
    if not (others or pages or unread or links or outside):
        return None
    groups = type_groups(
        root, [*others, *unread], lambda t: EXTENSIONS.get(t) or _ONE_FILE_EXTENSIONS.get(t)
    )
    if pages and kind in _OTHER_PAGE:
        other, what = _OTHER_PAGE[kind]
        groups.insert(len(groups) - sum(g.kind is None for g in groups),
                      page_group(root, what, pages, other))  # fmt: skip
    groups += link_groups(root, links, outside)
    described = source_kind(kind).described if kind is not None else ""
    return LeftOut(str(root), kind, described, tuple(groups))


def _check_kind(kind: str | None) -> str | None:
    if kind is None:
        return None
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise ConfigError(f"unknown source kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    return kind


def load_folder(
    folder: str | Path, *, kind: str | None = None, skip_bad: bool = False
) -> tuple[list[Document], list[SkippedFile]]:
    """Every document of the supported files below ``folder`` (ids as in the
    module docstring) and the files ``skip_bad`` left out (the files of other
    kinds, and those no kind reads, are one note: see
    :func:`~jw_rag.ingest.collecting_left_out`). Without ``skip_bad`` the first
    bad file raises its one-line :class:`IngestError`; with it, each bad file
    (unreadable, empty, not UTF-8, broken, a bomb, too big...) is left out and
    listed with the reason, and the others are read."""
    check_flag("skip_bad", skip_bad)
    kind = _check_kind(kind)
    refuse_empty_path(folder)
    root = checked_folder(folder)
    if not root.is_dir():
        raise IngestError(f"{root} is not a folder; pass a folder")
    files, unread, links = _folder_files(root)
    pairs = list(zip(files, _folder_ids(root, files), strict=True))  # ids as without a kind
    others: list[Path] = []
    if kind is not None:
        pairs, others = _of_kind(root, pairs, kind)
    docs: list[Document] = []
    skipped: list[SkippedFile] = []
    pages: list[Path] = []
    outside: list[Path] = []
    for path, folder_id in pairs:
        try:
            docs.extend(_folder_file(path, folder_id, kind))
        except _PageOfOtherKind:
            pages.append(path)
        except RefusedPath:  # a link out of the allowed roots: refused before it was opened
            outside.append(path)
        except PER_FILE_ERRORS as exc:
            if not skip_bad:
                raise
            skipped.append(SkippedFile.of(str(path), exc))
    left = _left_out(root, kind, others, pages, unread, links, outside)
    if (pages or outside) and not docs and not skipped and left is not None:
        as_kind = f" as {kind}" if kind else ""
        raise IngestError(f"{root}: nothing to read{as_kind}, {left.said(_both_names)}")
    if left is not None:
        note_left_out(left)
    return docs, skipped


def load_documents(
    path_or_url: str | Path, *, kind: str | None = None, source_id: str | None = None
) -> list[Document]:
    """Every document in a file, folder or URL (an EPUB gives one per chapter);
    ``source_id`` replaces the default id of a single source."""
    kind = _check_kind(kind)
    if is_url(path_or_url):
        return _parse(read_source(path_or_url), kind, source_id)
    refuse_empty_path(path_or_url)
    root = Path(path_or_url).expanduser()
    if not root.is_dir():
        return _parse(read_path(root), kind, source_id)
    checked_folder(root)
    if source_id is not None:
        n = len(_folder_files(root)[0])
        fix = (
            "ingest that file itself to name it, or let the folder give the id"
            if n == 1
            else "ingest the files one at a time to name them, or let the folder give the ids"
        )
        held = "one file" if n == 1 else f"{n} files"
        raise ConfigError(f"a source id names one source, but {root} is a folder of {held}: {fix}")
    return load_folder(root, kind=kind)[0]
