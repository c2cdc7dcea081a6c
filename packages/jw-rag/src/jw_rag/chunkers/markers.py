"""Continuation and closure markers, loaded from JSON data per language.

The data lives in ``jw_core/data/continuation_markers.json``; adding a
language means adding an entry there, not code. See that file's
``description`` for the matching rules and per-marker conditions.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jw_rag.errors import ConfigError, shown_value

__all__ = ["MarkerSet", "load_markers", "marker_languages"]

# Paragraph number ("17 ", "17. ", "(17) "), opening punctuation, quotes, dashes
# and any Unicode whitespace (NBSP included) before the marker.
_PREFIX = r"^[\s]*(?:\(?\d{1,4}[.)]?[\s]+)?[\s¿¡«»\"“”„‘’'(\[—–\-]*"
_WORD_END = r"(?![^\W_])"
# Inside a marker, a space matches any one Unicode space except a line break
# (no-break, narrow no-break, thin...), and an apostrophe matches its
# typographic forms, so "Sin\u00a0embargo," and "That’s why" match the data's
# "Sin embargo" and "That's why" in every language.
_ANY_SPACE = r"[^\S\r\n]"
_APOSTROPHES = "'’ʼ"
_ANY_APOSTROPHE = "[" + _APOSTROPHES + "]"


def _literal(text: str) -> str:
    """A regex matching ``text`` with the space and apostrophe variants above."""
    out = []
    for ch in text:
        if ch.isspace():
            out.append(_ANY_SPACE)
        elif ch in _APOSTROPHES:
            out.append(_ANY_APOSTROPHE)
        else:
            out.append(re.escape(ch))
    return "".join(out)


@dataclass(frozen=True)
class _Marker:
    marker: str
    followed_by: str = ""
    not_followed_by: tuple[str, ...] = ()

    def pattern(self) -> str:
        p = _literal(self.marker) + _WORD_END
        if self.followed_by:
            p += r"(?=\s*[" + re.escape(self.followed_by) + "])"
        for word in self.not_followed_by:
            p += r"(?!\s+" + _literal(word) + _WORD_END + ")"
        return p


#: What one language's entry holds: a list of markers of each kind.
_KINDS = ("continuation", "closure", "reference")


def _parse_marker(item: Any, where: str) -> _Marker:
    if isinstance(item, str) and item.strip():
        return _Marker(item)
    if isinstance(item, Mapping) and isinstance(item.get("marker"), str) and item["marker"].strip():
        marker = item["marker"]
        unknown = set(item) - {"marker", "followed_by", "not_followed_by"}
        if unknown:
            raise ConfigError(
                f"marker {shown_value(marker)} in {where} has unknown keys {sorted(unknown)}"
            )
        followed_by = item.get("followed_by", "")
        if not isinstance(followed_by, str):
            raise ConfigError(
                f"marker {shown_value(marker)} in {where}: followed_by must be a string of the characters "
                f'that may follow it (such as ","), got {shown_value(followed_by)}'
            )
        words = item.get("not_followed_by", [])
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise ConfigError(
                f"marker {shown_value(marker)} in {where}: not_followed_by must be a list of words "
                f'(such as ["another"]), got {shown_value(words)}'
            )
        return _Marker(marker, followed_by, tuple(words))
    raise ConfigError(
        f"invalid marker entry {shown_value(item)} in {where}: use a non-empty string or an object "
        "with a non-empty 'marker'"
    )


def _parse_list(entry: Mapping[str, Any], lang: str, kind: str) -> list[_Marker]:
    items = entry.get(kind, [])
    if not isinstance(items, list):
        raise ConfigError(
            f"{lang}.{kind} in the markers file must be a list of markers, got {shown_value(items)}"
        )
    return [_parse_marker(m, f"{lang}.{kind}") for m in items]


class _Matcher:
    def __init__(self, markers: list[_Marker]) -> None:
        ordered = sorted(markers, key=lambda m: -len(m.marker))
        self._markers = [m.marker for m in ordered]
        if ordered:
            alternation = "|".join(f"(?P<m{i}>{m.pattern()})" for i, m in enumerate(ordered))
            self._rx: re.Pattern[str] | None = re.compile(_PREFIX + "(?:" + alternation + ")")
        else:
            self._rx = None

    def __call__(self, text: str) -> str | None:
        if self._rx is None:
            return None
        m = self._rx.match(text)
        if m is None or m.lastgroup is None:
            return None
        return self._markers[int(m.lastgroup[1:])]


def _leading_letters(text: str) -> str:
    """The run of letters ``text`` starts with ("" when it starts otherwise)."""
    end = 0
    n = len(text)
    while end < n and text[end].isalpha():
        end += 1
    return text[:end]


class _Openers:
    """Which kind of marker a paragraph opens with, closure first, then
    continuation, then reference: one regex pass instead of up to three.

    Sound because every marker starts with a letter and the prefix consumes
    no letters, so all three matchers can only try their markers at one
    position (the first letter); there, one alternation of the closure, then
    the continuation, then the reference markers (each list longest first, as
    :class:`_Matcher` orders it) picks what the separate matchers would:
    the first of them that matches.
    Marker data with an entry not starting with a letter uses the separate
    matchers instead."""

    def __init__(
        self,
        closure: list[_Marker],
        continuation: list[_Marker],
        reference: list[_Marker],
        separate: tuple[_Matcher, _Matcher, _Matcher],
    ) -> None:
        self._separate = separate
        self._found: list[tuple[str, str]] = []
        self._rx: re.Pattern[str] | None = None
        kinds = (("closure", closure), ("continuation", continuation), ("reference", reference))
        self._combined = all(m.marker[:1].isalpha() for _, ms in kinds for m in ms)
        self._heads: frozenset[str] = frozenset()
        self._heads2: frozenset[str] = frozenset()
        if not self._combined:
            return
        # A paragraph that starts with a letter leaves the prefix nothing to
        # skip: a marker can only match if the text starts with it, and then
        # the text's leading run of letters is the marker's (a marker that is
        # all letters must end a word).
        self._heads = frozenset(_leading_letters(m.marker) for _, ms in kinds for m in ms)
        self._heads2 = frozenset(h[:2] for h in self._heads)  # checked first: cheaper
        # Alternatives grouped by their first letter (in order within a group):
        # only one group can match at that position, and the regex engine
        # skips a group whose literal first letter differs at once.
        by_letter: dict[str, list[str]] = {}
        for kind, markers in kinds:
            for m in sorted(markers, key=lambda m: -len(m.marker)):
                rest = m.pattern()[len(re.escape(m.marker[0])) :]
                by_letter.setdefault(m.marker[0], []).append(f"(?P<m{len(self._found)}>{rest})")
                self._found.append((kind, m.marker))
        if by_letter:
            alternation = "|".join(
                re.escape(letter) + "(?:" + "|".join(alts) + ")"
                for letter, alts in by_letter.items()
            )
            self._rx = re.compile(_PREFIX + "(?:" + alternation + ")")

    def find(self, text: str) -> tuple[str, str] | None:
        """``(kind, marker)`` of the marker ``text`` opens with, if any."""
        if self._combined:
            head = text[:1]
            if head.isalpha():
                if text[:2] not in self._heads2 and head not in self._heads:
                    return None
                if _leading_letters(text) not in self._heads:
                    return None
            m = self._rx.match(text) if self._rx is not None else None
            if m is None or m.lastgroup is None:
                return None
            return self._found[int(m.lastgroup[1:])]
        # The general path: each matcher in turn, as links_back does.
        for kind, matcher in zip(
            ("closure", "continuation", "reference"), self._separate, strict=True
        ):
            marker = matcher(text)
            if marker:
                return kind, marker
        return None


class MarkerSet:
    """The continuation and closure markers of one language."""

    def __init__(
        self,
        language: str,
        continuation: list[_Marker],
        closure: list[_Marker],
        reference: list[_Marker] | None = None,
    ) -> None:
        self.language = language
        self.continuation_markers = tuple(m.marker for m in continuation)
        self.closure_markers = tuple(m.marker for m in closure)
        self.reference_markers = tuple(m.marker for m in reference or ())
        self._continuation = _Matcher(continuation)
        self._closure = _Matcher(closure)
        self._reference = _Matcher(list(reference or ()))
        self._openers = _Openers(
            closure,
            continuation,
            list(reference or ()),
            (self._closure, self._continuation, self._reference),
        )

    def continuation(self, paragraph: str) -> str | None:
        """The continuation marker ``paragraph`` opens with, if any."""
        return self._continuation(paragraph)

    def closure(self, paragraph: str) -> str | None:
        """The closure marker ``paragraph`` opens with, if any."""
        return self._closure(paragraph)

    def reference(self, paragraph: str) -> str | None:
        """The back-reference opener ("This", "Esto", "Isso") ``paragraph`` starts with, if any."""
        return self._reference(paragraph)

    def opener(self, paragraph: str) -> tuple[str, str] | None:
        """``(kind, marker)`` for the first of :meth:`closure`,
        :meth:`continuation` and :meth:`reference` (in that order) that finds
        a marker ``paragraph`` opens with; ``None`` when none does."""
        return self._openers.find(paragraph)

    def links_back(self, paragraph: str) -> str | None:
        """Any opener that ties ``paragraph`` to the one before it: continuation,
        closure or back-reference."""
        return (
            self._continuation(paragraph) or self._closure(paragraph) or self._reference(paragraph)
        )

    def __repr__(self) -> str:
        return (
            f"MarkerSet({self.language!r}, {len(self.continuation_markers)} continuation, "
            f"{len(self.closure_markers)} closure)"
        )


#: The most a markers file may hold (the bundled one is about 20 KB).
MAX_MARKERS_BYTES = 16 * 1024 * 1024


def _read_file(path: str) -> str:
    """A markers file's text: a regular file of at most :data:`MAX_MARKERS_BYTES`
    (a FIFO, a device or an endless file is refused before it is read)."""
    fd = os.open(Path(path).expanduser(), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", path)
        if not stat.S_ISREG(mode):
            raise ValueError(
                "it is not a regular file (a FIFO, device or socket); give the marker "
                "lists' JSON file"
            )
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(MAX_MARKERS_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_MARKERS_BYTES:
        raise ValueError(
            f"it is over {MAX_MARKERS_BYTES // 2**20} MiB; give the marker lists' JSON file"
        )
    return data.decode("utf-8")


def _read(path: str | None) -> dict[str, Any]:
    try:
        if path is None:
            raw = (
                resources.files("jw_core")
                .joinpath("data/continuation_markers.json")
                .read_text("utf-8")
            )
        else:
            raw = _read_file(path)
        data = json.loads(raw)
    except RecursionError:
        where = path or "jw_core/data/continuation_markers.json"
        raise ConfigError(
            f"cannot read markers file {where}: its JSON is nested too deeply; give the marker "
            "lists' JSON file"
        ) from None
    except (OSError, ValueError) as exc:
        where = path or "jw_core/data/continuation_markers.json"
        raise ConfigError(f"cannot read markers file {where}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("languages"), dict):
        raise ConfigError("markers file must be an object with a 'languages' object")
    return data


@lru_cache(maxsize=16)
def _load_all(path: str | None) -> dict[str, MarkerSet]:
    data = _read(path)
    out: dict[str, MarkerSet] = {}
    for lang, entry in data["languages"].items():
        if not isinstance(entry, dict):
            raise ConfigError(f"markers for {lang!r} must be an object")
        unknown = sorted(set(entry) - set(_KINDS))
        if unknown:  # a misspelt kind would leave that language without those markers
            raise ConfigError(
                f"markers for {lang!r} have unknown keys {unknown}: use {', '.join(_KINDS)}"
            )
        cont, clos, refs = (_parse_list(entry, lang, kind) for kind in _KINDS)
        out[lang] = MarkerSet(lang, cont, clos, refs)
    return out


def load_markers(language: str, path: str | Path | None = None) -> MarkerSet | None:
    """The marker set for ``language`` (ISO 639-1), or ``None`` when the data has none."""
    return _load_all(str(path) if path is not None else None).get(language)


def marker_languages(path: str | Path | None = None) -> tuple[str, ...]:
    """Languages that have markers."""
    return tuple(sorted(_load_all(str(path) if path is not None else None)))
