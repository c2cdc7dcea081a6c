"""The toolkit's exceptions, in one tree.

    JwRagError
    ├── ConfigError            bad option, unknown chunker/embedder/store name
    │   └── MissingDependencyError   an optional extra is not installed
    ├── IngestError            a source could not be read or parsed
    ├── EmbeddingError         an embedder failed (model missing, server down)
    ├── StoreError             the store could not be opened or written
    │   └── StaleIndexError    stored context changed after it was indexed
    └── GenerationError        a generation provider failed (used by the LLM chunker)

    JwRagWarning (a UserWarning)  something works, but less well than it could
                                  (e.g. an old pgvector on the server)

Every message is one line that names the problem and, where there is one, the fix.
``ConfigError`` is also a ``ValueError`` so ``get_chunker("nope")`` raises ValueError.
:func:`error_line` turns any exception, ours or one from deep inside a library,
into such a line; the ``jw`` command and the MCP server both report with it.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EmbeddingError",
    "GenerationError",
    "IngestError",
    "JwRagError",
    "JwRagWarning",
    "MissingDependencyError",
    "StaleIndexError",
    "StoreError",
    "error_line",
    "install_command",
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
            f"`{install_command(extra)}` at the repository root"
        )
        self.package = package
        self.extra = extra
        self.dist = dist


def install_command(extra: str) -> str:
    """The command that installs a workspace package's optional ``extra``."""
    return f"uv sync --all-packages --extra {extra}"


class IngestError(JwRagError):
    """A source could not be read or parsed; nothing was written to the store."""


class EmbeddingError(JwRagError):
    """An embedder could not produce vectors."""


class StoreError(JwRagError):
    """The store could not be opened, read or written."""


class StaleIndexError(StoreError):
    """Stored context changed after the chunks that point to it were indexed."""


class GenerationError(JwRagError):
    """A generation provider failed or answered something unusable."""


def error_line(exc: BaseException) -> str:
    """One line naming what went wrong: the message of the toolkit's own
    errors and of bad values (``ValueError``), the file and reason of an
    ``OSError``, a plain statement for running out of stack, memory or
    numeric range, and otherwise the exception's type and message, marked as
    unexpected (a bug to report) so that it is never a bare type name."""
    message = " ".join(str(exc).split())
    if isinstance(exc, JwRagError | ValueError):
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


def _is_sqlite_error(exc: BaseException) -> bool:
    import sqlite3

    return isinstance(exc, sqlite3.DatabaseError)
