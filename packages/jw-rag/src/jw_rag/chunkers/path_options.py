"""Which options of a chunker spec name something on the machine that runs it.

A chunker option whose value is a file or folder (``markers_path``,
``cache_dir``), or a model loaded from one (``embedder``: a
sentence-transformers model may be a local folder; the LLM chunker's ``model``
and ``provider``: a GGUF file read by ``llamacpp``), reaches the file system
of whoever builds the chunker. :func:`path_options` finds them in a spec, in
the specs nested in it (``parent-child``'s ``parent`` and ``child``) and, for
chunkers from plugins, by name (``..._path``, ``..._dir``, ``..._file``,
``..._folder``, ``..._directory``), so a caller that takes specs from
someone it does not trust (an MCP agent) can refuse them.
"""

from __future__ import annotations

from jw_rag.chunkers.registry import parse_chunker_spec

__all__ = ["PATH_OPTIONS", "SPEC_OPTIONS", "path_options"]

#: Options of the built-in chunkers that name a file, a folder or a model on disk
#: (the LLM chunker's ``model`` may be a GGUF path, its ``provider`` picks what
#: reads it or which service the server's keys pay for).
PATH_OPTIONS = frozenset({"markers_path", "cache_dir", "embedder", "model", "provider"})
#: Options whose value is itself a chunker spec.
SPEC_OPTIONS = frozenset({"parent", "child"})
_WORDS = ("path", "dir", "file", "folder", "directory")


def _names_a_path(key: str) -> bool:
    key = key.strip().lower().replace("-", "_")
    return key in PATH_OPTIONS or any(key == w or key.endswith("_" + w) for w in _WORDS)


def path_options(spec: str) -> list[str]:
    """The options of ``spec`` that name something on disk, nested ones as
    ``parent.markers_path``, in the order given (a malformed spec raises the
    parser's :class:`~jw_rag.errors.ConfigError`)."""
    found: list[str] = []
    for key, value in parse_chunker_spec(spec)[1].items():
        if _names_a_path(key):
            found.append(key)
        elif key.strip().lower() in SPEC_OPTIONS and isinstance(value, str):
            found.extend(f"{key}.{inner}" for inner in path_options(value))
    return found
