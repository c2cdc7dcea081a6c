"""Chunker registry: names to factories, ``get_chunker`` and plugins.

Built-in chunkers register next to their classes' import here; third-party
packages register through the ``jw_rag.chunkers`` entry-point group (each
entry point loads a factory ``(**kwargs) -> Chunker``). Registering a name
twice is rejected. A factory whose signature does not say which options take
text (one taking ``**kwargs``) may name them in a ``text_options`` attribute.

A chunker *spec* is a name with constructor options, ``name:key=value[,key=value]``
(``"semantic:target_chars=800"``); values read as booleans (``true``/``false``),
integers or floats when they look like one, else as text, except that an
option the chunker declares as text (annotated ``str``, such as structure's
``separator`` or semantic's ``markers_path``) takes the value as written
(``separator=1_000`` is the text "1_000"). ``get_chunker`` and
``$JW_CHUNKER`` accept a spec wherever they accept a name.
"""

from __future__ import annotations

import inspect
import os
import re
import types
import typing
from collections.abc import Callable
from importlib import metadata as importlib_metadata
from typing import Any

from jw_rag.chunkers.protocol import Chunker
from jw_rag.defaults import DEFAULT_CHUNKER
from jw_rag.errors import ConfigError, check_flag, shown_value

__all__ = [
    "DEFAULT_CHUNKER",
    "ENV_VAR",
    "available_chunkers",
    "get_chunker",
    "parse_chunker_spec",
    "register_chunker",
    "text_parameters",
]

ENV_VAR = "JW_CHUNKER"
ENTRY_POINT_GROUP = "jw_rag.chunkers"

Factory = Callable[..., Chunker]
_REGISTRY: dict[str, Factory] = {}
_plugins_loaded = False


def register_chunker(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Make ``get_chunker(name)`` build chunkers with ``factory(**kwargs)``."""
    check_flag("replace", replace)
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ConfigError(f"invalid chunker name {name!r}: use letters, digits, '-' or '_'")
    if name in _REGISTRY and not replace and _REGISTRY[name] is not factory:
        raise ConfigError(f"a chunker named {name!r} is already registered")
    _REGISTRY[name] = factory


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for ep in importlib_metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _REGISTRY:
            continue
        try:
            register_chunker(ep.name, ep.load())
        except Exception as exc:  # a broken plugin must not break the built-ins
            import warnings

            warnings.warn(f"chunker plugin {ep.name!r} failed to load: {exc}", stacklevel=2)


def available_chunkers() -> tuple[str, ...]:
    """Every name ``get_chunker`` accepts, sorted."""
    _load_plugins()
    return tuple(sorted(_REGISTRY))


def _option_value(raw: str) -> Any:
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if _DIGITS.fullmatch(raw.strip()):  # a whole number, however long (never a float)
        try:
            return int(raw)
        except ValueError:  # more digits than Python converts: the option's check says so
            return raw
    if "_" in raw or not raw.isascii():  # 0_5 is not 0.5 nor 5, ١٢ not 12: text, which
        return raw  # the option's check refuses naming what was given
    try:
        return float(raw)
    except ValueError:
        return raw


#: A whole number; ``_`` only between groups of three digits (``1_000``), so a
#: mistyped ``0_5`` stays text instead of reading as 5.
_DIGITS = re.compile(r"[+-]?(?:[0-9]+|[0-9]{1,3}(?:_[0-9]{3})+)")


def split_chunker_specs(text: str) -> list[str]:
    """A comma-separated list of specs, where commas also separate one spec's
    options: a ``key=value`` part that names no chunker belongs to the spec
    before it.

    >>> split_chunker_specs("paragraph, semantic:target_chars=800,overflow=0.2,page")
    ['paragraph', 'semantic:target_chars=800,overflow=0.2', 'page']
    """
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part.split("=")[0] and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def parse_chunker_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,..."`` as ``(name, options)``: the name lowercased, the
    values typed (module docstring). The name is not checked here
    (:func:`get_chunker` does); a malformed option is a one-line :class:`ConfigError`.

    >>> parse_chunker_spec("Semantic:target_chars=800,overflow=0.2")
    ('semantic', {'target_chars': 800, 'overflow': 0.2})
    """
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if not name:
        raise ConfigError(f"chunker spec {spec!r} has no name: use name[:key=value,...]")
    as_text = _text_options(name) if rest.strip() else frozenset()
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"chunker spec {spec!r}: options are key=value pairs, got {part!r}")
        if key.strip() in options:
            raise ConfigError(
                f"chunker spec {shown_value(spec)}: option {key.strip()!r} is given twice; give it once"
            )
        key, value = key.strip(), value.strip()
        options[key] = value if key in as_text else _option_value(value)
    return name, options


def _text_options(name: str) -> frozenset[str]:
    """The options chunker ``name`` declares as text: its factory's
    ``text_options``, else the parameters annotated ``str`` (with no number or
    bool beside it); none for a name not registered."""
    factory = _REGISTRY.get(name)
    if factory is None:
        _load_plugins()
        factory = _REGISTRY.get(name)
    if factory is None:
        return frozenset()
    declared = getattr(factory, "text_options", None)
    if declared is not None:
        return frozenset(declared)
    return text_parameters(factory)


def text_parameters(factory: Callable[..., Any]) -> frozenset[str]:
    """The parameters of ``factory`` annotated as text (``str``, ``str | None``,
    ``str | Path``, ``Embedder | str``), not as a number or bool as well."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read
        return frozenset()
    return frozenset(p.name for p in params if _declares_text(p.annotation))


_NOT_ONLY_TEXT = frozenset({"int", "float", "bool", "complex", "Any", "object"})


def _declares_text(annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty:
        return False
    if isinstance(annotation, str):  # postponed annotations: "str | Path | None"
        parts = {part.strip() for part in annotation.split("|")}
    else:
        union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
        args = typing.get_args(annotation) if union else (annotation,)
        parts = {getattr(arg, "__name__", str(arg)) for arg in args}
    return "str" in parts and not parts & _NOT_ONLY_TEXT


def get_chunker(name: str | None = None, **kwargs: Any) -> Chunker:
    """The chunker ``name`` names, else ``$JW_CHUNKER``'s, else ``"paragraph"``.

    ``name`` is a registered name or a spec with options
    (``"semantic:target_chars=800"``); keyword arguments go to the chunker's
    constructor and win over the spec's options. An unknown name raises
    :class:`ValueError` (a :class:`~jw_rag.errors.ConfigError`) listing the valid names.
    """
    if name is not None and not isinstance(name, str):
        already = callable(getattr(name, "chunk", None))
        raise ConfigError(
            f"the chunker name must be a str such as 'semantic' or 'semantic:target_chars=800', "
            f"got {type(name).__name__}"
            + (": it is a chunker already, use it as it is" if already else "")
        )
    spec = name if name is not None else (os.environ.get(ENV_VAR) or DEFAULT_CHUNKER)
    chosen, options = parse_chunker_spec(spec)
    kwargs = {**options, **kwargs}
    factory = _REGISTRY.get(chosen)
    if factory is None:
        _load_plugins()
        factory = _REGISTRY.get(chosen)
    if factory is None:
        source = f" (from ${ENV_VAR})" if name is None else ""
        raise ConfigError(
            f"unknown chunker {chosen!r}{source}; valid names: {', '.join(available_chunkers())}"
        )
    _check_option_names(chosen, factory, kwargs)
    try:
        return factory(**kwargs)
    except TypeError as exc:
        unexpected = _UNEXPECTED.search(str(exc))
        if unexpected:  # a factory taking **kwargs passed an unknown option on
            raise ConfigError(
                f"chunker {chosen!r} has no option {unexpected.group(1)!r}; check its "
                "spelling or leave it out"
            ) from exc
        raise ConfigError(f"bad options for chunker {spec!r}: {exc}") from exc


_UNEXPECTED = re.compile(r"unexpected keyword argument '([^']*)'")


def _check_option_names(name: str, factory: Any, options: dict[str, Any]) -> None:
    """Refuse an option the chunker's constructor does not take, naming the ones it does."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read: the constructor says
        return
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [key for key in options if key not in names]
    if unknown:
        known = ", ".join(names) if names else "none"
        raise ConfigError(
            f"chunker {name!r} has no option {unknown[0]!r}; its options are: {known}"
        )
