"""A JSON schema (a small subset) as a machine that reads its valid texts a
character at a time, for constrained decoding.

The texts it accepts are the schema's valid values in one canonical layout:
object properties in the order the schema lists them, every listed property
written, ``", "`` between items and ``": "`` after keys, no other whitespace.
That layout is what ``json.dumps`` writes, so a model's usual habits fit it.

Supported: ``type`` object (``properties``, ``required``,
``additionalProperties``), array (``items``, ``minItems``, ``maxItems``),
integer (``minimum``, ``maximum``), boolean and null; ``enum`` and ``const`` of
any JSON values; ``anyOf``/``oneOf``; ``title``, ``description`` and
``$schema`` are ignored. Anything else (free strings, numbers, patterns) raises
:class:`UnsupportedSchema` naming the keyword.

The machine is nondeterministic: a state is a frozenset of threads, each a
stack of frames (top last), so alternatives that share a prefix are read in
step until the text tells them apart. ``min_chars`` is the length of the
shortest text that completes a state, which a decoder uses to finish within a
token budget.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Machine", "State", "UnsupportedSchema", "compile_schema"]

_IGNORED = {"title", "description", "$schema", "required", "additionalProperties"}
_KNOWN = {"type", "properties", "items", "minItems", "maxItems", "minimum", "maximum"}
_KNOWN |= {"enum", "const", "anyOf", "oneOf"} | _IGNORED
_DIGITS = "0123456789"


class UnsupportedSchema(ValueError):
    """The schema uses a feature the machine does not read."""


# -- nodes: the compiled schema ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lit:
    text: str


@dataclass(frozen=True, slots=True)
class _Int:
    lo: int | None
    hi: int | None


@dataclass(frozen=True, slots=True)
class _Seq:
    parts: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    options: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Choice:
    """One of several literal texts (an enum): read as one thread, not one per text."""

    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Arr:
    item: Any
    min: int
    max: int | None


_Node = _Lit | _Int | _Seq | _Alt | _Choice | _Arr


def _int_bound(schema: Mapping[str, Any], key: str) -> int | None:
    value = schema.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise UnsupportedSchema(f"{key} must be a whole number, got {value!r}")
    return int(value)


def _compile(schema: Any) -> _Node:
    if not isinstance(schema, Mapping):
        raise UnsupportedSchema(f"a schema must be an object, got {type(schema).__name__}")
    unknown = sorted(set(schema) - _KNOWN)
    if unknown:
        raise UnsupportedSchema(f"schema keyword {unknown[0]!r} is not supported")
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            if not isinstance(options, list) or not options:
                raise UnsupportedSchema(f"{key} must be a non-empty list")
            return _alt([_compile(s) for s in options])
    if "const" in schema:
        return _Lit(json.dumps(schema["const"]))
    if "enum" in schema:
        values = schema["enum"]
        if not isinstance(values, list) or not values:
            raise UnsupportedSchema("enum must be a non-empty list")
        return _alt([_Lit(json.dumps(v)) for v in values])
    kind = schema.get("type")
    if kind == "object":
        return _object(schema)
    if kind == "array":
        return _array(schema)
    if kind == "integer":
        lo, hi = _int_bound(schema, "minimum"), _int_bound(schema, "maximum")
        if lo is not None and hi is not None and lo > hi:
            raise UnsupportedSchema(f"no integer lies in {lo}..{hi}")
        return _Int(lo, hi)
    if kind == "boolean":
        return _Alt((_Lit("true"), _Lit("false")))
    if kind == "null":
        return _Lit("null")
    raise UnsupportedSchema(
        f"type {kind!r} is not supported (object, array, integer, boolean, null)"
    )


def _alt(options: list[_Node]) -> _Node:
    unique = tuple(dict.fromkeys(options))
    if len(unique) == 1:
        return unique[0]
    if all(isinstance(o, _Lit) for o in unique):
        return _Choice(tuple(o.text for o in unique if isinstance(o, _Lit)))
    return _Alt(unique)


def _object(schema: Mapping[str, Any]) -> _Node:
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise UnsupportedSchema("properties must be an object")
    parts: list[_Node] = []
    for i, (key, sub) in enumerate(properties.items()):
        parts.append(_Lit(("{" if i == 0 else ", ") + json.dumps(key) + ": "))
        parts.append(_compile(sub))
    parts.append(_Lit("}" if parts else "{}"))
    return _Seq(tuple(parts))


def _array(schema: Mapping[str, Any]) -> _Node:
    low = _int_bound(schema, "minItems") or 0
    high = _int_bound(schema, "maxItems")
    if low < 0 or (high is not None and high < low):
        raise UnsupportedSchema(f"no array length lies in {low}..{high}")
    if high == 0:
        return _Lit("[]")
    if "items" not in schema:
        raise UnsupportedSchema("an array needs items (or maxItems 0)")
    return _Arr(_compile(schema["items"]), low, high)


# -- integers --------------------------------------------------------------------------


def _int_text_ok(s: str) -> bool:
    """``s`` is a prefix of a canonical JSON integer (no leading zeros, no ``-0``)."""
    body = s[1:] if s.startswith("-") else s
    if not body:
        return True
    if not body.isdigit() or (body[0] == "0" and (len(body) > 1 or s.startswith("-"))):
        return False
    return True


def _digits_span(n: int, negative: bool) -> tuple[int, int] | None:
    """The integers of exactly ``n`` digits (no leading zero), with a sign or not."""
    if n < 1:
        return None
    low, high = (0 if n == 1 else 10 ** (n - 1)), 10**n - 1
    if negative:
        return (-high, -max(low, 1))
    return (low, high)


def _values(s: str, extra: int) -> list[tuple[int, int]]:
    """The integers written as ``s`` plus ``extra`` more characters, as intervals."""
    if not _int_text_ok(s):
        return []
    if s == "":
        spans = [_digits_span(extra, False), _digits_span(extra - 1, True)]
    elif s == "-":
        spans = [_digits_span(extra, True)]
    else:
        negative = s.startswith("-")
        v = int(s[1:] if negative else s)
        if v == 0:
            spans = [(0, 0)] if extra == 0 else []
        else:
            a, b = v * 10**extra, v * 10**extra + 10**extra - 1
            spans = [(-b, -a) if negative else (a, b)]
    return [span for span in spans if span is not None]


def _meets(spans: list[tuple[int, int]], lo: int | None, hi: int | None) -> bool:
    return any((lo is None or b >= lo) and (hi is None or a <= hi) for a, b in spans)


_MAX_EXTRA = 24  # no integer in a supported range needs more characters


def _int_min_extra(s: str, lo: int | None, hi: int | None) -> int | None:
    """How many more characters the shortest integer in ``lo..hi`` written
    with the prefix ``s`` needs, or ``None`` when there is none."""
    for extra in range(_MAX_EXTRA):
        if _meets(_values(s, extra), lo, hi):
            return extra
    return None


def _int_viable(s: str, lo: int | None, hi: int | None) -> bool:
    """Some integer in ``lo..hi`` is written with the prefix ``s``."""
    return _int_min_extra(s, lo, hi) is not None


def _int_done(s: str, lo: int | None, hi: int | None) -> bool:
    return s not in ("", "-") and _meets(_values(s, 0), lo, hi)


# -- the machine -------------------------------------------------------------------------

#: A thread: a stack of frames, top last. Frames: ("L", text, pos),
#: ("C", texts, pos) (the texts of a choice that still match, none finished),
#: ("I", lo, hi, digits), ("A", item, min, max, count, phase), ("N", node).
_Thread = tuple[tuple[Any, ...], ...]
State = frozenset[_Thread]


def _node_min(node: _Node) -> int:
    if isinstance(node, _Lit):
        return len(node.text)
    if isinstance(node, _Int):
        return _int_min_extra("", node.lo, node.hi) or 0
    if isinstance(node, _Seq):
        return sum(_node_min(p) for p in node.parts)
    if isinstance(node, _Alt):
        return min(_node_min(o) for o in node.options)
    if isinstance(node, _Choice):
        return min(len(t) for t in node.texts)
    item = _node_min(node.item)
    return 2 + (item * node.min + 2 * (node.min - 1) if node.min else 0)


class Machine:
    """The valid texts of one schema, read a character at a time."""

    def __init__(self, root: _Node) -> None:
        self.root = root
        self._mins: dict[_Node, int] = {}
        self.alphabet = frozenset(self._chars(root))

    def _chars(self, node: _Node) -> Iterable[str]:
        if isinstance(node, _Lit):
            yield from node.text
        elif isinstance(node, _Int):
            yield from _DIGITS
            if node.lo is None or node.lo < 0:
                yield "-"
        elif isinstance(node, _Choice):
            for text in node.texts:
                yield from text
        elif isinstance(node, _Seq | _Alt):
            for part in node.parts if isinstance(node, _Seq) else node.options:
                yield from self._chars(part)
        else:
            yield from "[], "
            yield from self._chars(node.item)

    def start(self) -> State:
        return frozenset(
            _settle(
                ((("N", self.root),)),
            )
        )

    def accepts(self, state: State) -> bool:
        """Whether the text read so far is a whole valid value."""
        return self.min_chars(state) == 0

    def next_chars(self, state: State) -> set[str]:
        """The characters that can come next."""
        out: set[str] = set()
        for ch in self.alphabet:
            if _step_state(state, ch):
                out.add(ch)
        return out

    def step(self, state: State, text: str) -> State:
        """The state after reading ``text`` (empty when it cannot be read)."""
        for ch in text:
            state = _step_state(state, ch)
            if not state:
                break
        return state

    def min_chars(self, state: State) -> int:
        """The length of the shortest text that completes ``state`` (a large
        number for an empty state)."""
        if not state:
            return 1 << 30
        return min(sum(self._frame_min(f) for f in thread) for thread in state)

    def _frame_min(self, frame: tuple[Any, ...]) -> int:
        kind = frame[0]
        if kind == "L":
            return len(frame[1]) - frame[2]
        if kind == "C":
            return min(len(t) for t in frame[1]) - frame[2]
        if kind == "I":
            extra = _int_min_extra(frame[3], frame[1], frame[2])
            return 1 << 30 if extra is None else extra
        if kind == "N":
            return self._min(frame[1])
        _, item, low, _high, count, phase = frame
        m = self._min(item)
        if phase == 1:  # after "[", no item yet
            return 1 if low == 0 else m * low + 2 * (low - 1) + 1
        if phase == 2:  # after item number `count`
            return max(low - count, 0) * (m + 2) + 1
        return m + max(low - count - 1, 0) * (m + 2) + 1  # phase 4: an item must come

    def _min(self, node: _Node) -> int:
        if node not in self._mins:
            self._mins[node] = _node_min(node)
        return self._mins[node]


def compile_schema(schema: Mapping[str, Any]) -> Machine:
    """The machine of ``schema``; raises :class:`UnsupportedSchema`."""
    return Machine(_compile(schema))


def _settle(thread: _Thread) -> list[_Thread]:
    """Expand the top of ``thread`` until it reads a character (or is empty)."""
    out: list[_Thread] = []
    todo = [thread]
    while todo:
        t = todo.pop()
        if not t:
            out.append(t)
            continue
        top = t[-1]
        if top[0] == "L" and top[2] >= len(top[1]):
            todo.append(t[:-1])
        elif top[0] != "N":
            out.append(t)
        else:
            node = top[1]
            rest = t[:-1]
            if isinstance(node, _Lit):
                todo.append(rest + (("L", node.text, 0),))
            elif isinstance(node, _Int):
                out.append(rest + (("I", node.lo, node.hi, ""),))
            elif isinstance(node, _Seq):
                todo.append(rest + tuple(("N", p) for p in reversed(node.parts)))
            elif isinstance(node, _Alt):
                todo.extend(rest + (("N", o),) for o in node.options)
            elif isinstance(node, _Choice):
                out.append(rest + (("C", node.texts, 0),))
            else:
                todo.append(rest + (("A", node.item, node.min, node.max, 0, 1), ("L", "[", 0)))
    return out


def _step_state(state: State, ch: str) -> State:
    out: set[_Thread] = set()
    for thread in state:
        out.update(_step(thread, ch))
    return frozenset(out)


def _step(thread: _Thread, ch: str) -> list[_Thread]:
    """The threads after ``thread`` reads ``ch`` (settled)."""
    if not thread:
        return []
    top, rest = thread[-1], thread[:-1]
    kind = top[0]
    if kind == "L":
        _, text, pos = top
        if text[pos] != ch:
            return []
        return _settle(rest + (("L", text, pos + 1),))
    if kind == "C":
        _, texts, pos = top
        matched = [t for t in texts if t[pos] == ch]
        longer = tuple(t for t in matched if len(t) > pos + 1)
        out = [rest + (("C", longer, pos + 1),)] if longer else []
        if len(longer) < len(matched):  # a text ends here
            out.extend(_settle(rest))
        return out
    if kind == "I":
        _, lo, hi, digits = top
        out = []
        if (ch in _DIGITS or ch == "-") and _int_viable(digits + ch, lo, hi):
            out.append(rest + (("I", lo, hi, digits + ch),))
        if _int_done(digits, lo, hi):
            out.extend(t for r in _settle(rest) for t in _step(r, ch))
        return out
    # an array frame
    _, item, low, high, count, phase = top
    if phase in (1, 4):
        out = []
        if phase == 1 and ch == "]" and low == 0:
            out.extend(_settle(rest))
        begun = rest + (("A", item, low, high, count + 1, 2), ("N", item))
        for t in _settle(begun):
            out.extend(_step(t, ch))
        return out
    if ch == "]" and count >= low:
        return _settle(rest)
    if ch == "," and (high is None or count < high):
        return [rest + (("A", item, low, high, count, 4), ("L", " ", 0))]
    return []
