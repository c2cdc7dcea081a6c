"""Files an ingest left out under ``skip_bad``, and the reason given for each."""

from __future__ import annotations

from dataclasses import dataclass

from jw_rag.errors import IngestError

__all__ = ["PER_FILE_ERRORS", "SkippedFile", "skip_reason"]

#: Failures that belong to one file (its bytes, its text), not to the run:
#: what ``skip_bad`` leaves out. Bad options, a failing embedder or store stop the run.
PER_FILE_ERRORS: tuple[type[BaseException], ...] = (IngestError, RecursionError, UnicodeError)


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file of a folder left out by ``skip_bad``: its path and the one-line reason."""

    path: str
    reason: str


def skip_reason(exc: BaseException) -> str:
    """The one-line reason a file was left out."""
    if isinstance(exc, RecursionError):
        return "it nests too deeply to read"
    return " ".join(str(exc).split()) or type(exc).__name__
