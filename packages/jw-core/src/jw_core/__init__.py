"""Language data and text utilities shared by every jw-agent-toolkit package."""

from jw_core._bounded import MAX_TEXT_BYTES
from jw_core.language import SUPPORTED_LANGUAGES, detect_language, normalize_language
from jw_core.sentences import SentenceCursor, ends_sentence, split_sentences

__all__ = [
    "MAX_TEXT_BYTES",
    "SUPPORTED_LANGUAGES",
    "SentenceCursor",
    "detect_language",
    "ends_sentence",
    "normalize_language",
    "split_sentences",
]
