"""Variant specs: ``name[:key=val,...]`` for a registered chunker, or a peer
chunker ``<peer>:<size>`` (``langchain-recursive``, ``chonkie-recursive``,
``chonkie-semantic``, ``semchunk``; size in characters). Either may end in
``+<expansion>`` (``segment``, ``relevant``, ``chain``, ``neighbors``,
``parent``, ``none``) to deliver that variant's hits that way, whatever
``--expand`` says: e.g. ``paragraph+chain`` or ``parent-child+parent``.

A chunker variant indexes window units beside its chunks, as ingestion does
(:mod:`jw_rag.windows`); the option ``window_chars=N`` sets their size for that
variant (``window_chars=0``: none), e.g. ``paragraph:window_chars=0+none``
(``windows=N``, its old name, works for one release with a warning). The
option ``reach=N`` sets how many chunks each way the expansion may add. The
retrieval units ingestion builds from the chunks (:mod:`jw_rag.units`) are built
here too; ``units=off`` indexes the chunks as made (``prefix`` still applies), ``passage_chars``,
``split_above``, ``group_below`` and ``wide`` (characters), ``pooled``
(on/off) and ``prefix`` (the title's weight, 0: embedded with each unit's
text) change the rules for that variant; a size not given follows the
passage size, a size given is used as given or refused. A peer is
run as its library ships it: its chunks only, delivered alone unless the label
names an expansion.

The run's peer set (``--peers``, :func:`parse_peers`) is added to the listed
variants (:func:`with_peers`); by default it is :data:`DEFAULT_PEERS`, the
recursive splitters at the sizes that win on some shape of text. The best
peer of a comparison is the best of every peer variant the run has."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from jw_rag.errors import ConfigError, shown_value
from jw_rag.limits import MAX_SIZE
from jw_rag.model import MAX_PREFIX_WEIGHT, is_prefix_weight
from jw_rag.renames import renamed, warn_renamed
from jw_rag.retrieve import MAX_REACH
from jw_rag.units import NO_UNITS, UnitRules
from jw_rag.windows import MAX_WINDOW_CHARS, is_window_size

__all__ = [
    "DEFAULT_PEERS",
    "PEERS",
    "VARIANT_OPTIONS",
    "VariantSpec",
    "parse_peers",
    "parse_variant",
    "parse_variants",
    "with_peers",
]

#: What a variant takes besides its chunker's own options (``paragraph:reach=2``).
VARIANT_OPTIONS = (
    "reach (chunks each way a delivery adds)",
    "window_chars (window units' size in characters, 0: none)",
    "units=off",
    "passage_chars",
    "split_above",
    "group_below",
    "pooled",
    "wide",
    "prefix (the title's weight in each unit's vector, 0: embedded with its text)",
)
PEERS = ("langchain-recursive", "chonkie-recursive", "chonkie-semantic", "semchunk")
_DEFAULT_PEER_SIZE = 1500
#: The peers every run adds unless ``--peers`` says otherwise.
DEFAULT_PEERS: tuple[str, ...] = (
    "langchain-recursive:1000",
    "langchain-recursive:1500",
    "langchain-recursive:2000",
    "chonkie-recursive:1000",
    "chonkie-recursive:1500",
    "chonkie-recursive:2000",
    "semchunk:1500",
)


@dataclass(frozen=True)
class VariantSpec:
    """One benchmark arm: ``label`` as typed, ``name`` of the chunker or peer."""

    label: str
    name: str
    options: dict[str, Any] = field(default_factory=dict)
    peer: bool = False
    #: How hits are delivered; ``None`` follows the run's ``--expand`` (peers: ``none``).
    expand: str | None = None
    #: Window units' size in characters; ``None`` follows the run's default, 0 is none.
    window_chars: int | None = None
    #: Retrieval unit rules; ``None`` follows the run's (the shipped pipeline's).
    units: UnitRules | None = None
    #: Chunks each way the expansion may reach; ``None``: the product's default.
    reach: int | None = None

    @property
    def size(self) -> int:
        return int(self.options.get("size", _DEFAULT_PEER_SIZE))

    @property
    def windows(self) -> int | None:
        """The old name of :attr:`window_chars`, kept for one release (:mod:`jw_rag.renames`)."""
        warn_renamed("VariantSpec", "windows", "window_chars")
        return self.window_chars


def parse_variant(text: str) -> VariantSpec:
    label = text.strip()
    if not label:
        raise ConfigError("empty variant name in variants")
    body, plus, expand = label.rpartition("+") if "+" in label else (label, "", "")
    expand = expand.strip().lower()
    if plus:
        from jw_rag.retrieve import EXPANSIONS

        if expand not in EXPANSIONS:
            raise ConfigError(
                f"variant {shown_value(label)}: unknown expansion {expand!r}, use {', '.join(EXPANSIONS)}"
            )
    spec = _parse_body(label, body)
    return replace(spec, expand=expand) if plus else spec


def _parse_body(label: str, body: str) -> VariantSpec:
    name, _, rest = body.partition(":")
    name = name.strip().lower()
    if name in PEERS:
        digits = rest.strip()
        if rest and not (digits.isascii() and digits.isdigit()):  # not '²' nor '١٢'
            raise ConfigError(f"peer variant {shown_value(label)}: use {name}:<size in characters>")
        size = _DEFAULT_PEER_SIZE
        if rest:  # more digits than int() reads: out of range all the same
            significant = digits.lstrip("0") or "0"
            size = int(significant) if len(significant) <= 12 else MAX_SIZE + 1
        if not 1 <= size <= MAX_SIZE:
            raise ConfigError(
                f"peer variant {shown_value(label)}: size must be from 1 to {MAX_SIZE}, "
                f"got {shown_value(digits)}"
            )
        return VariantSpec(label, name, {"size": size}, peer=True)
    from jw_rag.chunkers import available_chunkers, parse_chunker_spec

    if name not in available_chunkers():
        raise ConfigError(
            f"unknown variant {name!r}: use a chunker ({', '.join(available_chunkers())}) "
            f"or a peer ({', '.join(PEERS)})"
        )
    options = parse_chunker_spec(body)[1]
    units = _units(label, options)
    reach = options.pop("reach", None)
    if reach is not None and (
        isinstance(reach, bool) or not isinstance(reach, int) or not 0 <= reach <= MAX_REACH
    ):
        raise ConfigError(
            f"variant {shown_value(label)}: reach must be a number of chunks each way from 0 to "
            f"{MAX_REACH}, got {shown_value(reach)}"
        )
    old = options.pop("windows", None)
    window_chars = renamed(
        f"variant {shown_value(label)}",
        "windows",
        old,
        "window_chars",
        options.pop("window_chars", None),
    )
    if window_chars is not None and not is_window_size(window_chars):
        used = "window_chars" if old is None else "windows"
        renamed_note = "" if old is None else "; windows is renamed window_chars"
        raise ConfigError(
            f"variant {shown_value(label)}: {used} must be a size in characters from 0 to "
            f"{MAX_WINDOW_CHARS} (0: none{renamed_note}), got {shown_value(window_chars)}"
        )
    return VariantSpec(label, name, options, window_chars=window_chars, units=units, reach=reach)


_UNIT_OPTIONS = ("passage_chars", "split_above", "group_below", "pooled", "wide", "prefix")


def _units(label: str, options: dict[str, Any]) -> UnitRules | None:
    """The variant's unit rules from its ``units=off`` / unit-size options (removed
    from ``options``); ``None`` when it sets none."""
    off = options.pop("units", None)
    sizes = {k: options.pop(k) for k in _UNIT_OPTIONS if k in options}
    if off is not None and str(off).lower() not in ("off", "false", "0", "none"):
        raise ConfigError(f"variant {shown_value(label)}: units takes only 'off' (set sizes with "
                          f"{', '.join(_UNIT_OPTIONS)})")  # fmt: skip
    if off is not None:
        weight = sizes.pop("prefix", None)  # how the title is embedded: no unit size
        if sizes:
            raise ConfigError(f"variant {shown_value(label)}: units=off and unit sizes contradict")
        return (
            NO_UNITS if weight is None else replace(NO_UNITS, prefix_weight=_weight(label, weight))
        )
    if not sizes:
        return None
    from jw_rag.defaults import DEFAULT_PIPELINE

    current = DEFAULT_PIPELINE.units
    values = {
        "passage_chars": current.passage_chars, "split_above": current.split_above,
        "group_below": current.group_below, "pooled_windows": current.pooled_windows,
    }  # fmt: skip
    if "pooled" in sizes:
        values["pooled_windows"] = _switch(label, sizes.pop("pooled"))
    values["prefix_weight"] = _weight(label, sizes.pop("prefix", current.prefix_weight))
    for key, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(
                f"variant {shown_value(label)}: {key} must be a number of characters >= 0, got {shown_value(value)}"
            )
    values["wide_window_chars"] = sizes.pop("wide", current.wide_window_chars)
    values.update(sizes)
    # a default the variant did not set follows the sizes it did set
    if "group_below" not in sizes and values["group_below"] > values["passage_chars"]:
        values["group_below"] = values["passage_chars"]
    if "split_above" not in sizes and values["split_above"] < values["passage_chars"]:
        values["split_above"] = values["passage_chars"]
    try:
        return UnitRules(**values, window_chars=DEFAULT_PIPELINE.units.window_chars)
    except ConfigError as exc:
        raise ConfigError(f"variant {shown_value(label)}: {exc}") from None


def _weight(label: str, value: Any) -> float:
    """``prefix=`` as a number (0: the title embedded with every unit's text)."""
    try:  # text is what the spec could not read as a number (0_5): refused, not 5
        weight = -1.0 if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        weight = -1.0
    if isinstance(value, bool) or not is_prefix_weight(weight):
        raise ConfigError(
            f"variant {shown_value(label)}: prefix takes a weight from 0 to "
            f"{MAX_PREFIX_WEIGHT:g}, got {shown_value(value)}"
        )
    return weight


def _switch(label: str, value: Any) -> bool:
    """``pooled=`` as True/False: true|false, on|off, yes|no, 1|0."""
    text = str(value).strip().lower()
    if text in ("true", "on", "yes", "1"):
        return True
    if text in ("false", "off", "no", "0"):
        return False
    raise ConfigError(
        f"variant {shown_value(label)}: pooled takes on or off, got {shown_value(value)}"
    )


def parse_variants(text: str) -> list[VariantSpec]:
    """Parse ``--variants``: comma-separated specs; ``key=val`` parts after a
    ``name:`` belong to the preceding variant."""
    from jw_rag.chunkers import split_chunker_specs

    out = [parse_variant(s) for s in split_chunker_specs(text)]
    labels = [v.label for v in out]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"variants lists a variant twice: {', '.join(labels)}")
    if not out:
        raise ConfigError("variants is empty: give e.g. paragraph,semantic")
    return out


def parse_peers(text: str | None) -> list[VariantSpec]:
    """The run's peer set: ``None`` is :data:`DEFAULT_PEERS`, ``"none"`` no
    peer, else comma-separated peer variants (``langchain-recursive:2000,semchunk:1500``)."""
    if text is None:
        return [parse_variant(p) for p in DEFAULT_PEERS]
    if text.strip().lower() == "none":
        return []
    if not text.strip(" ,"):
        raise ConfigError("peers is empty: give peers such as semchunk:1500, or none")
    from jw_rag.chunkers import split_chunker_specs

    for part in split_chunker_specs(text):
        name = part.partition(":")[0].partition("+")[0].strip().lower()
        if name not in PEERS:
            raise ConfigError(
                f"peers lists {part.strip()!r}, which is not a peer: use {', '.join(PEERS)} "
                "with a size (e.g. semchunk:1500), or none"
            )
    return parse_variants(text)


def _same_arm(spec: VariantSpec) -> tuple[str, int, str | None]:
    return spec.name, spec.size, spec.expand


def with_peers(specs: list[VariantSpec], peers: list[VariantSpec]) -> list[VariantSpec]:
    """``specs`` followed by each peer they do not already list (a listed
    ``langchain-recursive`` is ``langchain-recursive:1500``)."""
    listed = {_same_arm(s) for s in specs if s.peer}
    out = list(specs)
    for peer in peers:
        if _same_arm(peer) not in listed:
            listed.add(_same_arm(peer))
            out.append(peer)
    return out
