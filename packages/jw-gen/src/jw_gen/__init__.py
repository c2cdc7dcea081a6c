"""jw_gen: generation providers used by the LLM chunker.

``jw_gen.providers.resolve(name, model=...)`` builds one; failures raise
:class:`jw_gen.errors.GenerationError` with a one-line message naming the fix.
"""

from jw_gen.errors import GenerationError, UnknownProviderError

__all__ = ["GenerationError", "UnknownProviderError"]
