"""The toolkit's exceptions, in one tree.

    JwRagError
    ├── ConfigError            bad option, unknown chunker/embedder/store name
    │   └── MissingDependencyError   an optional extra is not installed
    ├── IngestError            a source could not be read or parsed
    ├── EmbeddingError         an embedder failed (model missing, server down)
    └── StoreError             the store could not be opened or written
        └── StaleIndexError    stored context changed after it was indexed

    GenerationError            a generation provider failed (the LLM chunker): one
                               class, :class:`jw_gen.errors.GenerationError`, which
                               this module hands out under the same name

    JwRagWarning (a UserWarning)  something works, but less well than it could
                                  (e.g. an old pgvector on the server)

Every message is one line that names the problem and, where there is one, the fix.
``ConfigError`` is also a ``ValueError`` so ``get_chunker("nope")`` raises ValueError.

``GenerationError`` lives in ``jw-gen``, the generation package, which ``jw-rag``
needs only for the LLM chunker (the ``llm`` extra, ``pip install 'jw-rag[llm]'``).
``from jw_rag.errors import GenerationError`` gives that very class (so an
``except`` clause written against either name catches every generation failure),
and without ``jw-gen`` it raises :class:`MissingDependencyError` naming the extra.
It is not a :class:`JwRagError`: catch ``(JwRagError, GenerationError)`` for both.
:func:`error_line` turns any exception, ours or one from deep inside a library,
into such a line; the ``jw`` command and the MCP server both report with it.
"""

from __future__ import annotations

import ast
import re
import sys

__all__ = [
    "ConfigError",
    "EmbeddingError",
    "IngestError",
    "JwRagError",
    "JwRagWarning",
    "MissingDependencyError",
    "StaleIndexError",
    "StoreError",
    "capped_line",
    "check_flag",
    "error_line",
    "extra_hint",
    "install_command",
    "llm_extra_missing",
    "shown_value",
]


class JwRagError(Exception):
    """Base of every error the toolkit raises on purpose."""


class JwRagWarning(UserWarning):
    """Something works, but less well than it could; the message says how to fix it."""


class ConfigError(JwRagError, ValueError):
    """An option, name or environment variable has a value the toolkit rejects."""


class MissingDependencyError(ConfigError, ImportError):
    """An optional dependency is not installed; the message says which extra to install."""

    def __init__(self, package: str, extra: str, purpose: str, *, dist: str = "jw-rag") -> None:
        super().__init__(
            f"{purpose} needs the '{package}' package: install {dist}'s {extra!r} extra with "
            f"{extra_hint(dist, extra)}"
        )
        self.package = package
        self.extra = extra
        self.dist = dist


#: The longest value an error message quotes (a hostile value keeps its line short).
SHOWN_CHARS = 60


def shown_value(value: object, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters (``...``
    marks the cut); an integer too long to print is shown by its digit count."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"<an integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def check_flag(name: str, value: object) -> bool:
    """``value`` when it is a bool; else a one-line :class:`ConfigError` naming
    the argument ``name`` (``"no"``, ``0`` or ``None`` are not taken for False:
    a string is always true, so it would turn the flag on). NumPy's bool
    (``np.True_``, a column's value) is a bool too."""
    if isinstance(value, bool):
        return value
    kind = type(value)
    if kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"):
        return bool(value)
    raise ConfigError(f"{name} must be True or False, got {shown_value(value)}")


def install_command(extra: str) -> str:
    """The command that installs a workspace package's optional ``extra`` in a checkout."""
    return f"uv sync --all-packages --extra {extra}"


def extra_hint(dist: str, extra: str) -> str:
    """How to install ``dist``'s ``extra``: with pip where the package was
    installed, with uv at the root of a checkout."""
    return f"`pip install '{dist}[{extra}]'` (in a checkout: `{install_command(extra)}`)"


class IngestError(JwRagError):
    """A source could not be read or parsed; nothing was written to the store."""


class EmbeddingError(JwRagError):
    """An embedder could not produce vectors."""


class StoreError(JwRagError):
    """The store could not be opened, read or written."""


class StaleIndexError(StoreError):
    """Stored context changed after the chunks that point to it were indexed."""


def llm_extra_missing(purpose: str = "the LLM chunker") -> MissingDependencyError:
    """The error for ``purpose`` when ``jw-gen`` (the ``llm`` extra) is not installed."""
    return MissingDependencyError("jw-gen", "llm", purpose)


def __getattr__(name: str) -> type[Exception]:
    # GenerationError is jw-gen's; jw-gen is optional, so it is looked up on use.
    if name == "GenerationError":
        try:
            from jw_gen.errors import GenerationError
        except ModuleNotFoundError as exc:
            if exc.name != "jw_gen":  # jw-gen is there but broken: say what is missing
                raise
            raise llm_extra_missing("jw_rag.errors.GenerationError") from None
        return GenerationError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def error_line(exc: BaseException) -> str:
    """One line naming what went wrong (no quoted value longer than
    :data:`QUOTED_CHARS`, see :func:`capped_line`): the message of the toolkit's own
    errors and of bad values (``ValueError``), the file and reason of an
    ``OSError``, a plain statement for running out of stack, memory or
    numeric range, and otherwise the exception's type and message, marked as
    unexpected (a bug to report) so that it is never a bare type name."""
    return capped_line(_error_line(exc))


def _error_line(exc: BaseException) -> str:
    """:func:`error_line` before values are cut."""
    message = " ".join(str(exc).split())
    if isinstance(exc, JwRagError | ValueError) or _is_generation_error(exc):
        return message or type(exc).__name__
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return f"{where}{exc.strerror or message or type(exc).__name__}"
    if isinstance(exc, RecursionError):
        return "the input nests too deeply to read; check the file"
    if isinstance(exc, MemoryError):
        return "not enough memory for this input; split it or free memory"
    if isinstance(exc, OverflowError):
        return f"a number is out of range ({message}); use a smaller value"
    if _is_sqlite_error(exc):
        return f"the store cannot be read ({message}); restore it from a copy or use a new one"
    detail = f": {message}" if message else ""
    return (
        f"unexpected {type(exc).__name__}{detail} (a bug in jw-agent-toolkit or a library it "
        "uses: please report it with the command and input that caused it)"
    )


#: The most characters of one quoted value an error line shows (a 1 MB id
#: or query echoed back would flood a terminal or an agent's context).
QUOTED_CHARS = 200
#: The longest error line; a longer one keeps its start and its end (the fix).
LINE_CHARS = 2_000
#: A value quoted as Python shows it (``'...'`` or ``"..."``, escapes inside),
#: opening where a word does not go on (so the apostrophe of "store's" is not one).
_QUOTED = re.compile(r"""(?<!\w)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", re.DOTALL)


def _cut_quote(match: re.Match[str]) -> str:
    text = match.group()
    inner = text[1:-1]
    if len(inner) <= QUOTED_CHARS:
        return text
    kept = inner[:QUOTED_CHARS]
    kept = kept[: len(kept) - (len(kept) - len(kept.rstrip("\\"))) % 2]  # no half an escape
    try:  # the value's own length, not that of its escapes
        value = ast.literal_eval(text)
        total = len(value) if isinstance(value, str) else len(inner)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        total = len(inner)
    return f"{text[0]}{kept}...{text[0]} ({total:,} characters)"


def _escaped(line: str) -> str:
    """``line`` with lone surrogates and control characters (:data:`_CONTROL`) as escapes."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line)


#: Control characters a terminal would act on (escape sequences, bell...): a
#: line shows them escaped. Tab and line breaks are left to the caller.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def capped_line(line: str) -> str:
    """``line`` with each quoted value longer than :data:`QUOTED_CHARS` cut
    (``...`` and its length mark the cut), and a line still longer than
    :data:`LINE_CHARS` cut in the middle: what the ``jw`` command and the MCP
    server print of any error or warning (:func:`error_line` applies it). A
    lone surrogate (a byte of a file name that is not UTF-8) is written as its
    escape, ``\\udcff``, and a control character (an escape sequence's ESC, a
    bell) as ``\\x1b``: no terminal, log or JSON answer can carry them raw."""
    line = _escaped(line)
    if len(line) <= QUOTED_CHARS:
        return line
    line = _QUOTED.sub(_cut_quote, line)
    if len(line) <= LINE_CHARS:
        return line
    head, tail = LINE_CHARS * 3 // 5, LINE_CHARS // 5
    return f"{line[:head]} ... ({len(line) - head - tail:,} characters cut) ... {line[-tail:]}"


def _is_sqlite_error(exc: BaseException) -> bool:
    import sqlite3

    return isinstance(exc, sqlite3.DatabaseError)


def _is_generation_error(exc: BaseException) -> bool:
    # Only jw-gen raises its GenerationError, so jw_gen.errors is loaded when one is seen.
    gen = sys.modules.get("jw_gen.errors")
    return gen is not None and isinstance(exc, gen.GenerationError)
