"""Language data and text utilities shared by every jw-agent-toolkit package."""

from jw_core._bounded import (
    MAX_ARCHIVE_MEMBERS,
    MAX_DIRECTORY_BYTES,
    MAX_TEXT_BYTES,
    directory_problem,
)
from jw_core.language import SUPPORTED_LANGUAGES, detect_language, normalize_language
from jw_core.sentences import SentenceCursor, ends_sentence, split_sentences

__all__ = [
    "MAX_ARCHIVE_MEMBERS",
    "MAX_DIRECTORY_BYTES",
    "MAX_TEXT_BYTES",
    "SUPPORTED_LANGUAGES",
    "SentenceCursor",
    "detect_language",
    "directory_problem",
    "ends_sentence",
    "normalize_language",
    "split_sentences",
]
