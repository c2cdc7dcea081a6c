"""Files of a folder an ingest did not read, grouped by why, and the line that says so.

A folder read as one kind takes that kind's files and leaves the others out:
files another kind reads (by their extension, or an HTML page of the other
HTML kind: a Bible chapter page met while reading articles, an article page
without verses met while reading Bible chapters) and files no kind reads.

A note's size does not grow with the folder: it names each extension another
kind reads (there are few), at most :data:`NAMED_TYPES` extensions no kind
reads (the rest are counted as one group) and at most :data:`NAMED_FILES` file
names per group, each cut to :data:`NAME_CHARS` characters and shown escaped
when it holds anything unprintable.

Within :func:`collecting_left_out` the notes are kept for the caller (the MCP
``ingest`` tool returns them with its result); elsewhere each one is a
``UserWarning`` (the ``jw`` command prints it as one ``warning:`` line).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from jw_rag.ingest.kinds import FOLDER, kind_names, source_kind

__all__ = [
    "NAMED_FILES",
    "NAMED_TYPES",
    "LeftOut",
    "LeftOutGroup",
    "collecting_left_out",
    "link_groups",
    "note_left_out",
    "page_group",
    "shown_name",
    "type_groups",
]

#: The most extensions no kind reads that one note names; the rest are one group.
NAMED_TYPES = 5
#: The most file names one group of a note quotes.
NAMED_FILES = 3
#: The most characters of one quoted file name.
NAME_CHARS = 60

#: What an extension must look like to be named as it is (else "other names").
_PLAIN_EXTENSION = re.compile(r"\.[0-9a-z_+~-]{1,16}", re.ASCII)


@dataclass(frozen=True, slots=True)
class LeftOutGroup:
    """Files left out for one reason: ``what`` they are (an extension such as
    ``.pdf``, ``Bible chapter pages``...), how many, the kind that reads them
    (None: no kind does), a few of their paths inside the folder, and whether
    they were told apart by their content (``page``) rather than their extension."""

    what: str
    files: int
    kind: str | None
    examples: tuple[str, ...] = ()
    #: True for pages found by their content (the others go by their extension).
    page: bool = False
    #: True for links that are not files: a linked folder (``what`` "linked
    #: folder", not followed) or a broken link (``what`` "broken link").
    link: bool = False

    def said(self) -> str:
        """A link group in words: ``1 linked folder, which is not followed (shared)``."""
        if self.what == LINK_OUTSIDE:
            noun = LINK_OUTSIDE if self.files == 1 else "links to files outside the allowed roots"
            return f"{self.files} {noun} ({_examples(self)})"
        plural = "" if self.files == 1 else "s"
        which = ", which is not followed" if self.files == 1 else ", which are not followed"
        which = which if self.what == LINKED_FOLDER else ""
        return f"{self.files} {self.what}{plural}{which} ({_examples(self)})"


@dataclass(frozen=True, slots=True)
class LeftOut:
    """The files below ``folder`` an ingest as ``kind`` (None: by extension) left out."""

    folder: str
    kind: str | None
    described: str
    groups: tuple[LeftOutGroup, ...]

    @property
    def files(self) -> int:
        return sum(g.files for g in self.groups)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds that read some of the files as a folder, in the order of
        the kinds' table (a kind that reads one file at a time is not one)."""
        wanted = {g.kind for g in self.groups if g.kind is not None and _reads_folders(g.kind)}
        return tuple(k for k in kind_names() if k in wanted)

    def line(self, kind_name: Callable[[str], str] = str) -> str:
        """One line naming the folder, what was left out and which kinds read
        it (``kind_name`` spells a kind as the reader's front end does)."""
        return f"{self.shown_folder}: {self.said(kind_name)}"

    @property
    def shown_folder(self) -> str:
        """The folder as the line names it: escaped when it holds anything unprintable."""
        return self.folder if self.folder.isprintable() else repr(self.folder)

    def said(self, kind_name: Callable[[str], str] = str) -> str:
        """:meth:`line` without the folder."""
        parts = []
        other = [g for g in self.groups if g.kind is not None and not g.page]
        single = [g for g in other if not _reads_folders(g.kind)]
        other = [g for g in other if _reads_folders(g.kind)]
        if other:
            held = ", ".join(f"{g.files} {g.what}" for g in other)
            n = sum(g.files for g in other)
            parts.append(f"{_files(n, 'that is')} not {self.described} ({held})")
        for g in self.groups:
            if g.page:
                plural = "" if g.files == 1 else "s"
                parts.append(f"{g.files} {g.what}{plural} ({_examples(g)})")
        if single:
            held = ", ".join(f"{g.files} {g.what}" for g in single)
            n = sum(g.files for g in single)
            parts.append(f"{_files(n, '')} that a kind reads one at a time ({held})")
        unread = [g for g in self.groups if g.kind is None and not g.link]
        if unread:
            held = ", ".join(f"{g.files} {g.what}" for g in unread)
            n = sum(g.files for g in unread)
            parts.append(f"{_files(n, '')} of a type no kind reads ({held})")
        parts += [g.said() for g in self.groups if g.link]
        said = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
        line = f"left out {said}"
        if self.kinds:
            named = [kind_name(k) for k in self.kinds]
            alone = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
            line += f"; ingest the folder again as {alone} to store them"
        if single:
            each = " and ".join(
                f"each {g.what} file as {kind_name(g.kind)}" for g in single if g.kind
            )
            line += f"{', and' if self.kinds else ';'} ingest {each}"
        if any(g.link and g.what == LINKED_FOLDER for g in self.groups):
            line += f"{', and' if ';' in line else ';'} ingest a linked folder on its own to store its files"
        if any(g.link and g.what == LINK_OUTSIDE for g in self.groups):
            line += f"{', and' if ';' in line else ';'} copy a linked file under a root to store it"
        return line

    @property
    def message(self) -> str:
        """:meth:`line` with the library's kind names."""
        return self.line()

    def as_dict(self, kind_name: Callable[[str], str] = str) -> dict[str, Any]:
        """The folder (as the line names it), how many files and each group, as
        JSON-ready values (``kind_name`` spells a kind as the front end does)."""
        groups = [
            {**asdict(g), "examples": list(g.examples),
             "kind": None if g.kind is None else kind_name(g.kind)}
            for g in self.groups
        ]  # fmt: skip
        for group in groups:  # a link group is told by its "what"
            del group["link"]
        return {"folder": self.shown_folder, "files": self.files, "groups": groups}


def _reads_folders(kind: str | None) -> bool:
    """Whether ``kind`` reads a folder's files (a JWPUB or a backup is read alone)."""
    return kind is not None and source_kind(kind).takes(FOLDER)


def _files(n: int, verb: str) -> str:
    """``1 file that is`` / ``2 files that are`` (``verb`` "that is" or "")."""
    noun = "file" if n == 1 else "files"
    if not verb:
        return f"{n} {noun}"
    return f"{n} {noun} {verb if n == 1 else 'that are'}"


def _examples(group: LeftOutGroup) -> str:
    more = group.files - len(group.examples)
    shown = ", ".join(group.examples)
    return f"{shown} and {more} more" if more > 0 else shown


def shown_name(name: str) -> str:
    """A file name for a note: as it is when printable, escaped otherwise, and
    cut to :data:`NAME_CHARS` characters."""
    text = name if name.isprintable() else repr(name)
    return text if len(text) <= NAME_CHARS else f"{text[: NAME_CHARS - 3]}..."


def _type(path: Path) -> str:
    suffix = path.suffix.lower()
    if not suffix:
        return "no extension"
    return suffix if _PLAIN_EXTENSION.fullmatch(suffix) else "other names"


def type_groups(
    root: Path, paths: Iterable[Path], kind_of: Callable[[str], str | None]
) -> list[LeftOutGroup]:
    """``paths`` grouped by extension, each with the kind that reads it
    (``kind_of``); extensions no kind reads beyond the :data:`NAMED_TYPES`
    commonest are counted as one group, ``other types``."""
    by_type: dict[str, list[Path]] = {}
    for p in paths:
        by_type.setdefault(_type(p), []).append(p)
    known = sorted(t for t in by_type if kind_of(t) is not None)
    unknown = sorted(
        (t for t in by_type if kind_of(t) is None), key=lambda t: (-len(by_type[t]), t)
    )
    groups = [_group(root, t, by_type[t], kind_of(t)) for t in known]
    groups += [_group(root, t, by_type[t], None) for t in unknown[:NAMED_TYPES]]
    rest = sum(len(by_type[t]) for t in unknown[NAMED_TYPES:])
    if rest:
        groups.append(LeftOutGroup("other types", rest, None))
    return groups


def _group(
    root: Path, what: str, paths: list[Path], kind: str | None, page: bool = False
) -> LeftOutGroup:
    names = tuple(shown_name(p.relative_to(root).as_posix()) for p in paths[:NAMED_FILES])
    return LeftOutGroup(what, len(paths), kind, names, page)


#: What a link to a folder is called in a note, a link to nothing, and a
#: link to a file the path check refused (:func:`jw_rag.ingest.checking_paths`).
LINKED_FOLDER = "linked folder"
BROKEN_LINK = "broken link"
LINK_OUTSIDE = "link to a file outside the allowed roots"


def link_groups(
    root: Path, links: Iterable[Path], outside: Iterable[Path] = ()
) -> list[LeftOutGroup]:
    """``links`` below ``root`` that are not files: the linked folders (not
    followed), then the broken links; then the links to files ``outside``
    the allowed roots (refused by the path check, never opened); each a group."""
    links = list(links)
    folders = [p for p in links if p.is_dir()]
    broken = [p for p in links if not p.is_dir()]
    groups = []
    kinds = ((LINKED_FOLDER, folders), (BROKEN_LINK, broken), (LINK_OUTSIDE, list(outside)))
    for what, paths in kinds:
        if paths:
            names = tuple(shown_name(p.relative_to(root).as_posix()) for p in paths[:NAMED_FILES])
            groups.append(LeftOutGroup(what, len(paths), None, names, link=True))
    return groups


def page_group(root: Path, what: str, paths: list[Path], kind: str) -> LeftOutGroup:
    """HTML pages of another kind than the one asked for (``what``: what one
    is, such as ``Bible chapter page``)."""
    return _group(root, what, paths, kind, page=True)


_COLLECTED: ContextVar[list[LeftOut] | None] = ContextVar("jw_rag_left_out", default=None)


@contextmanager
def collecting_left_out() -> Iterator[list[LeftOut]]:
    """Within the block, what each folder ingest leaves out is added to the
    list this yields instead of being warned about."""
    found: list[LeftOut] = []
    token = _COLLECTED.set(found)
    try:
        yield found
    finally:
        _COLLECTED.reset(token)


def note_left_out(left: LeftOut) -> None:
    """Keep ``left`` for :func:`collecting_left_out`, else warn with its line."""
    found = _COLLECTED.get()
    if found is None:
        warnings.warn(left.message, UserWarning, stacklevel=4)
    else:
        found.append(left)
