"""Files an ingest left out under ``skip_bad``, and the reason given for each."""

from __future__ import annotations

from dataclasses import dataclass, field

from jw_rag.errors import IngestError

__all__ = ["PER_FILE_ERRORS", "SkippedFile", "skip_reason"]

#: Failures that belong to one file (its bytes, its text), not to the run:
#: what ``skip_bad`` leaves out. Bad options, a failing embedder or store stop the run.
PER_FILE_ERRORS: tuple[type[BaseException], ...] = (IngestError, RecursionError, UnicodeError)


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file of a folder left out by ``skip_bad``: its path and the one-line
    reason, which names the problem only (``"is empty; pass a file with text"``);
    ``message`` is the whole line the failure said, the path within, as an
    ingest without ``skip_bad`` would have said it."""

    path: str
    reason: str
    message: str = field(default="", compare=False)

    @classmethod
    def of(cls, path: str, exc: BaseException) -> SkippedFile:
        """The file at ``path`` left out for ``exc``."""
        message = skip_reason(exc)
        return cls(path, _without_path(message, path), message)


def _without_path(message: str, path: str) -> str:
    """``message`` without the path it opens with (and the ``:`` after it)."""
    if not path or not message.startswith(path):
        return message
    rest = message[len(path) :].lstrip()
    if rest.startswith(":"):
        rest = rest[1:].lstrip()
    return rest or message


def skip_reason(exc: BaseException) -> str:
    """The one-line reason a file was left out."""
    if isinstance(exc, RecursionError):
        return "it nests too deeply to read"
    return " ".join(str(exc).split()) or type(exc).__name__
