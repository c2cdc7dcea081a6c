"""Retrieval: search a store, then deliver what a reader needs around each hit.

``retrieve(store, query, expand=...)`` runs ``store.search`` and fills each
hit's ``expanded`` with the chunks to deliver, in reading order. Defaults come
from :mod:`jw_rag.defaults`: hybrid search and ``"segment"`` delivery.

A hit is a chunk or a window unit (:mod:`jw_rag.windows`); a window hit stands
for its member chunks, which every mode delivers in its place (its *core*).

``"segment"``
    a window hit's members as they are; for a one-chunk hit, the best
    contiguous run of chunks around it, each valued by its similarity to the
    query against the weakest hit's, marker links counting as continuity
    (see :mod:`jw_rag.segments`), at most ``reach`` chunks each side
    (default 1). The delivered hit's ``chunk`` is the member of its core
    closest to the query.
``"none"``
    the hit's core alone.
``"neighbors"``
    the core with up to ``reach`` chunks before and after it (default 1).
``"chain"``
    marker-aware neighbours: walk backwards while the current first chunk
    opens with a continuation, closure or back-reference marker of its language
    ("However, ...", "Por lo tanto, ...", "Isso ..."), and forwards while the
    next chunk does, at most ``reach`` steps each way (default 2). An
    argument split over paragraphs comes back whole; a self-contained
    paragraph comes back alone.
``"relevant"``
    neighbours that belong with the hit: walking outwards from it (at most
    ``reach`` steps each way, default 2), a neighbour comes along while it
    is linked to the hit by a marker (as in ``"chain"``) or is as similar to
    the query as the weakest hit retrieved (the k-th hit's cosine). No
    threshold to tune: a self-contained paragraph comes back alone, an
    argument whose parts are all about the question comes back whole.
``"parent"``
    the hit's parent (chunks ingested with ``ParentChildChunker``); hits that
    share a parent are delivered once, at the best child's rank.

Every mode deduplicates: a chunk delivered for an earlier hit is not delivered
again, and a hit whose core was all delivered that way is dropped (folded into
the earlier hit's context; :class:`Delivery` reports which); ``k`` counts delivered hits, so the store is
searched a little deeper than ``k`` (:func:`search_depth`). Hard caps bound
the result: ``max_parents`` parents (default 5) and ``max_context_tokens`` of
delivered text in total (default 4,000; a token is estimated as 4
characters). The budget pays for the delivered hit's chunk first, then for
its context nearest first (:func:`delivery_order`): when a hit's whole group
does not fit, the hit comes with as many of its nearest neighbours as fit,
and when the hit itself does not fit delivery stops. The first hit is always
delivered. Delivered hits are ranked 1, 2, … in delivery order.

Stale state: a child whose parent is missing, or whose parent's
``source_hash`` or ``chunker_version`` differs from what the child recorded,
raises :class:`~jw_rag.errors.StaleIndexError` — retrieval never returns a
parent that changed after its children were indexed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from jw_rag.chunkers.markers import MarkerSet, load_markers
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_K,
    DEFAULT_MAX_CONTEXT_TOKENS,
    DEFAULT_MAX_PARENTS,
    DEFAULT_SEARCH_MODE,
    EXPANSIONS,
    Expansion,
    SearchMode,
)
from jw_rag.embed.protocol import embed_queries
from jw_rag.errors import ConfigError, StaleIndexError, shown_value
from jw_rag.model import Chunk
from jw_rag.renames import renamed, warn_renamed
from jw_rag.segments import best_run, run_values
from jw_rag.store import check_search, check_store, embed_chunks
from jw_rag.store.protocol import SearchHit, Store
from jw_rag.windows import members

__all__ = [
    "DEFAULT_MAX_CONTEXT_TOKENS",
    "DEFAULT_MAX_PARENTS",
    "EXPANSIONS",
    "MAX_REACH",
    "Delivery",
    "Expansion",
    "approx_tokens",
    "delivery_order",
    "expand_hits",
    "retrieve",
    "search_depth",
    "unknown_sources",
]

CHARS_PER_TOKEN = 4
#: The most hits one call delivers, and the farthest a delivery reaches (chunks each way).
MAX_K = 1000
MAX_REACH = 50
#: Default ``reach`` (chunks each way) per expansion.
_REACH = {"segment": 1, "chain": 2, "relevant": 2}


def __getattr__(name: str) -> Any:
    if name == "MAX_WINDOW":  # renamed MAX_REACH: the old name works for one release
        warn_renamed("jw_rag.retrieve", "MAX_WINDOW", "MAX_REACH")
        return MAX_REACH
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def approx_tokens(text: str) -> int:
    """Token estimate used by the context cap: one token per 4 characters."""
    return -(-len(text) // CHARS_PER_TOKEN)


def search_depth(k: int) -> int:
    """How many store hits ``retrieve`` reads to deliver ``k``: hits folded
    into an earlier hit's context (overlapping windows, neighbours) leave room
    for the next ones."""
    return max(2 * k, 20)


class Delivery(list[SearchHit]):
    """The delivered hits, as a list, and what happened to the others.

    Each hit's ``expanded`` holds every chunk delivered for it in reading
    order, the hit's own chunk included (a ``"parent"`` delivery holds the
    parent instead). ``folded`` maps the chunk id of each store hit that was
    not delivered as a hit of its own, because an earlier hit's context
    already holds it, to that hit's rank (a window hit by its member chunks'
    ids; never the chunk that rank was delivered as).
    """

    def __init__(self, hits: Iterable[SearchHit] = (), folded: Mapping[str, int] | None = None):
        super().__init__(hits)
        self.folded: dict[str, int] = dict(folded or {})

    def folded_into(self, rank: int) -> list[str]:
        """Ids of the store hits delivered inside the context of the hit ranked ``rank``."""
        return [i for i, r in self.folded.items() if r == rank]


def unknown_sources(store: Store, filters: Mapping[str, Any] | None) -> list[str]:
    """The ``source_id`` values of ``filters`` that ``store`` holds no source for
    (none equal under Unicode NFC either: :meth:`~jw_rag.store.Store.matching_sources`),
    in the order given: why a filtered search found nothing, when it is a typo."""
    wanted = (filters or {}).get("source_id")
    if wanted is None:
        return []
    ids = [wanted] if isinstance(wanted, str) else list(wanted)
    return [s for s in ids if isinstance(s, str) and not store.matching_sources(s)]


def retrieve(
    store: Store,
    query: str,
    k: int = DEFAULT_K,
    *,
    mode: SearchMode = DEFAULT_SEARCH_MODE,
    filters: Mapping[str, Any] | None = None,
    expand: Expansion | str | None = DEFAULT_EXPANSION,
    reach: int | None = None,
    max_parents: int = DEFAULT_MAX_PARENTS,
    max_context_tokens: int | None = DEFAULT_MAX_CONTEXT_TOKENS,
    window: int | None = None,
) -> Delivery:
    """Search ``store`` and deliver up to ``k`` hits with their context (see
    the module docstring); the :class:`Delivery` also says which store hits
    were folded into another hit's context. ``reach``: chunks each way a
    delivery may add (``None``: the expansion's default); ``window`` is its
    old name, kept for one release (:mod:`jw_rag.renames`)."""
    reach = renamed("retrieve()", "window", window, "reach", reach)
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_K:
        raise ConfigError(f"k must be an integer from 0 to {MAX_K}, got {k!r}")
    check_store(store, "search")
    if isinstance(query, str) and not query.strip():
        # a blank query would rank every chunk against nothing: arbitrary hits
        raise ConfigError("the query is empty: give words to search for")
    depth = search_depth(k) if k else 0
    # every argument is checked before the store searches (embeds the query...)
    check_search(query, depth, mode, filters)
    _expansion(expand, query, reach, max_parents, max_context_tokens)
    hits = store.search(query, depth, mode=mode, filters=filters)
    return expand_hits(
        store,
        hits,
        expand=expand,
        query=query,
        reach=reach,
        max_parents=max_parents,
        max_context_tokens=max_context_tokens,
        limit=k,
    )


def expand_hits(
    store: Store,
    hits: Sequence[SearchHit],
    *,
    expand: Expansion | str | None = "none",
    query: str | None = None,
    reach: int | None = None,
    max_parents: int = DEFAULT_MAX_PARENTS,
    max_context_tokens: int | None = DEFAULT_MAX_CONTEXT_TOKENS,
    limit: int | None = None,
    window: int | None = None,
) -> Delivery:
    """Fill ``expanded`` on already-ranked ``hits``; returns the delivered hits
    (at most ``limit``, see :class:`Delivery`). ``"segment"`` and ``"relevant"``
    need the ``query``; ``reach`` as in :func:`retrieve` (``window``: its old name)."""
    reach = renamed("expand_hits()", "window", window, "reach", reach)
    mode, reach = _expansion(expand, query, reach, max_parents, max_context_tokens)
    if not hits:
        return Delivery()
    known = _Known(store, hits)
    cores = [known.core(h) for h in hits]
    reps = [core[0] for core in cores]
    if mode == "parent":
        groups = _parent_groups(store, cores)
    elif mode in ("segment", "relevant"):
        assert query is not None
        around = _neighbour_groups(known, cores, reach, chain=False)
        sim = _similarities(store, query, [c for g in around for c in g] + [h.chunk for h in hits])
        floor = _threshold(sim, hits, limit)
        pick = _segment if mode == "segment" else _relevant
        groups = [pick(core, group, sim, floor) for core, group in zip(cores, around, strict=True)]
        reps = [max(core, key=lambda c: sim[c.id]) for core in cores]
    elif mode in ("neighbors", "chain"):
        groups = _neighbour_groups(known, cores, reach, chain=mode == "chain")
    else:
        groups = cores
    # max_parents counts parents: a hit without one (delivered alone) is not one
    parented = [g is not core for g, core in zip(groups, cores, strict=True)]
    units = (max_parents, parented) if mode == "parent" else None
    return _deliver(hits, reps, cores, groups, max_context_tokens, units, limit)


def _expansion(
    expand: object, query: object, reach: object, max_parents: object, max_context_tokens: object
) -> tuple[str, int]:
    """``(mode, reach)`` for the expansion options of :func:`expand_hits` (the
    default reach filled in), each checked: a one-line ConfigError otherwise."""
    if expand is not None and not isinstance(expand, str):
        raise ConfigError(
            f"expand must be one of {', '.join(EXPANSIONS)} (or None), got {type(expand).__name__}"
        )
    mode = (expand or "none").lower()
    if mode not in EXPANSIONS:
        raise ConfigError(f"unknown expansion {expand!r}: use one of {', '.join(EXPANSIONS)}")
    reach = _REACH.get(mode, 1) if reach is None else reach
    _check_reach(reach)
    if isinstance(max_parents, bool) or not isinstance(max_parents, int) or max_parents < 1:
        raise ConfigError(f"max_parents must be a whole number >= 1, got {max_parents!r}")
    if max_context_tokens is not None and (
        isinstance(max_context_tokens, bool)
        or not isinstance(max_context_tokens, int)
        or max_context_tokens < 0
    ):
        raise ConfigError(
            f"max_context_tokens must be a whole number >= 0 or None, got {max_context_tokens!r}"
        )
    if mode in ("segment", "relevant") and query is None:
        raise ConfigError(f"expand={mode!r} needs the query: pass query= (retrieve does)")
    if query is not None:
        check_search(query, 0)  # a string within the query length limit, as search takes
    return mode, reach  # type: ignore[return-value]


def _check_reach(reach: object) -> None:
    if isinstance(reach, bool) or not isinstance(reach, int) or not 0 <= reach <= MAX_REACH:
        hint = ""
        if isinstance(reach, int) and not isinstance(reach, bool) and reach > MAX_REACH:
            hint = " (the size of window units in characters is window_chars, set at ingestion)"
        raise ConfigError(
            f"reach must be a number of chunks each way from 0 to {MAX_REACH}, got "
            f"{shown_value(reach)}{hint}"
        )


class _Known:
    """Chunks fetched so far, by id; fetches what is missing in one call."""

    def __init__(self, store: Store, hits: Sequence[SearchHit]) -> None:
        self.store = store
        self.chunks: dict[str, Chunk] = {h.chunk.id: h.chunk for h in hits}
        self.fetch({i for h in hits for i in members(h.chunk)})

    def fetch(self, ids: set[str]) -> None:
        missing = [i for i in ids if i and i not in self.chunks]
        if missing:
            for c in self.store.get(missing):
                self.chunks[c.id] = c

    def core(self, hit: SearchHit) -> list[Chunk]:
        found = [self.chunks[i] for i in members(hit.chunk) if i in self.chunks]
        return found or [hit.chunk]


def delivery_order(hit: Chunk, group: Sequence[Chunk]) -> list[Chunk]:
    """The order in which a context budget pays for ``group`` (a hit's chunks
    in reading order): the hit first, then the others nearest first, at equal
    distance the one before the hit (whose argument the hit often continues).
    A group that does not hold the hit (a parent) comes after the hit.

    >>> [c.id for c in delivery_order(Chunk("c", ""), [Chunk(i, "") for i in "abcde"])]
    ['c', 'b', 'd', 'a', 'e']
    """
    ids = [c.id for c in group]
    if hit.id not in ids:
        return [hit, *group]
    at = ids.index(hit.id)
    return sorted(group, key=lambda c: (abs(ids.index(c.id) - at), ids.index(c.id) > at))


def _fit(hit: Chunk, group: list[Chunk], budget: int) -> tuple[list[Chunk], int]:
    """The chunks of ``group`` a budget of ``budget`` tokens pays for, in reading
    order, and their cost: the hit, then neighbours nearest first while each
    side stays contiguous. A group without the hit (a parent) is all or the
    hit. The cost exceeds ``budget`` only when the hit alone does."""
    cost = sum(approx_tokens(c.text) for c in group)
    if cost <= budget:
        return group, cost
    ids = [c.id for c in group]
    if hit.id not in ids:
        return [hit], approx_tokens(hit.text)
    at = ids.index(hit.id)
    taken = {at}
    cost = approx_tokens(hit.text)
    closed: set[bool] = set()
    for c in delivery_order(hit, group)[1:]:
        i = ids.index(c.id)
        side = i > at
        if side in closed:
            continue
        extra = approx_tokens(c.text)
        if cost + extra > budget:
            closed.add(side)
            continue
        taken.add(i)
        cost += extra
    return [group[i] for i in sorted(taken)], cost


def _deliver(
    hits: Sequence[SearchHit],
    reps: Sequence[Chunk],
    cores: Sequence[list[Chunk]],
    groups: Sequence[list[Chunk]],
    max_context_tokens: int | None,
    max_units: tuple[int, Sequence[bool]] | None,
    limit: int | None,
) -> Delivery:
    """Deduplicate and cap: each hit delivers its group's chunks not delivered
    yet, as much of them as the remaining budget pays for (:func:`_fit`); a hit
    whose core was all delivered is folded into the hit that delivered it;
    when not even the hit fits, delivery stops (the first hit always comes),
    and so it does once ``max_units`` (a cap, and which groups count toward it)
    is reached.
    A delivered hit's ``chunk`` is its representative (a window hit's member
    closest to the query) and its ``rank`` its place among the delivered hits."""
    budget = max_context_tokens
    seen: dict[str, int] = {}  # delivered chunk id -> rank of the hit delivering it
    folded: dict[str, int] = {}
    out: list[SearchHit] = []
    cap, counted = max_units if max_units is not None else (None, [False] * len(hits))
    units = 0
    for hit, rep, core, group, counts in zip(hits, reps, cores, groups, counted, strict=True):
        if limit is not None and len(out) >= limit:
            break
        fresh = [c for c in group if c.id not in seen]
        if all(c.id in seen for c in core) or not fresh:
            _fold(folded, seen, out, core, group)
            continue
        if rep.id in seen:
            rep = next(c for c in core if c.id not in seen)
        if budget is not None:
            fresh, cost = _fit(rep, fresh, budget)
            if cost > budget and out:
                break
            budget = max(0, budget - cost)
        rank = len(out) + 1
        seen.update((c.id, rank) for c in (*fresh, rep))
        out.append(SearchHit(chunk=rep, score=hit.score, rank=rank, expanded=fresh))
        units += counts
        if cap is not None and units >= cap:
            break
    return Delivery(out, folded)


def _fold(
    folded: dict[str, int],
    seen: Mapping[str, int],
    out: Sequence[SearchHit],
    core: Sequence[Chunk],
    group: Sequence[Chunk],
) -> None:
    """Record a store hit whose chunks were all delivered already: by the
    ids of its own chunks (a window's members, never the window's internal
    id), each mapped to the rank that delivered it, leaving out the chunk
    that rank was delivered as (a hit is never folded into itself)."""
    holder = next((c.id for c in (*core, *group) if c.id in seen), None)
    if holder is None:
        return
    for c in core:
        rank = seen.get(c.id, seen[holder])
        if out[rank - 1].chunk.id != c.id:
            folded.setdefault(c.id, rank)


def _neighbour_groups(
    known: _Known, cores: Sequence[list[Chunk]], reach: int, *, chain: bool
) -> list[list[Chunk]]:
    """Each core with up to ``reach`` chunks before and after it (``chain``:
    only while a marker links them), in reading order."""
    before: list[list[Chunk]] = [[] for _ in cores]
    after: list[list[Chunk]] = [[] for _ in cores]
    first = [c[0] for c in cores]
    last = [c[-1] for c in cores]
    open_back = [True] * len(cores)
    open_fwd = [True] * len(cores)
    for _ in range(reach):
        wanted: set[str] = set()
        for i in range(len(cores)):
            if open_back[i] and (not chain or _links_back(first[i])):
                wanted.add(first[i].metadata.get("prev_id") or "")
            else:
                open_back[i] = False
            if open_fwd[i]:
                wanted.add(last[i].metadata.get("next_id") or "")
        known.fetch(wanted)
        for i in range(len(cores)):
            if open_back[i]:
                prev = known.chunks.get(first[i].metadata.get("prev_id") or "")
                if prev is None:
                    open_back[i] = False
                else:
                    before[i].insert(0, prev)
                    first[i] = prev
            if open_fwd[i]:
                nxt = known.chunks.get(last[i].metadata.get("next_id") or "")
                if nxt is None or (chain and not _links_back(nxt)):
                    open_fwd[i] = False
                else:
                    after[i].append(nxt)
                    last[i] = nxt
    return [[*before[i], *cores[i], *after[i]] for i in range(len(cores))]


def _similarities(store: Store, query: str, chunks: Sequence[Chunk]) -> dict[str, float]:
    """Cosine of each chunk to ``query``: the query's vector the store searched
    with (embedded once per search), the chunks' vectors read from the store
    (those it does not have are embedded)."""
    embedder = store.embedder
    by_id = {c.id: c for c in chunks}
    vectors = dict(store.vectors(list(by_id)))
    missing = [c for i, c in by_id.items() if i not in vectors]
    if missing:
        fresh = embed_chunks(missing, embedder.embed)
        vectors.update(zip((c.id for c in missing), fresh, strict=True))
    known = store.query_vector(query)  # the search's own vector: no second embedding
    if known is None:
        known = embed_queries(embedder, [query])[0]
    query_vector = np.asarray(known, dtype=np.float32)
    return {i: float(np.asarray(vectors[i], dtype=np.float32) @ query_vector) for i in by_id}


def _threshold(sim: Mapping[str, float], hits: Sequence[SearchHit], limit: int | None) -> float:
    """The similarity of the weakest hit the caller asked for (the k-th)."""
    asked = hits[:limit] if limit else hits
    return min(sim[h.chunk.id] for h in asked)


def _segment(
    core: list[Chunk], group: list[Chunk], sim: Mapping[str, float], floor: float
) -> list[Chunk]:
    """The best run of ``group`` around a one-chunk ``core``; a window's core
    is already a run the retriever chose, and comes as it is
    (:mod:`jw_rag.segments`)."""
    if len(core) > 1:
        return core
    ids = [c.id for c in group]
    span = (ids.index(core[0].id), ids.index(core[-1].id))
    values = run_values([sim[c.id] for c in group], floor, [_links_back(c) for c in group], span)
    first, last = best_run(values, span)
    return group[first : last + 1]


def _relevant(
    core: list[Chunk], group: list[Chunk], sim: Mapping[str, float], floor: float
) -> list[Chunk]:
    """``core`` with the neighbours out to the first one that is neither as
    close to the query as ``floor`` nor marker-linked."""
    ids = [c.id for c in group]
    lo, hi = ids.index(core[0].id), ids.index(core[-1].id)
    while lo > 0 and (sim[group[lo - 1].id] >= floor or _links_back(group[lo])):
        lo -= 1
    while hi < len(group) - 1 and (sim[group[hi + 1].id] >= floor or _links_back(group[hi + 1])):
        hi += 1
    return group[lo : hi + 1]


_MARKERS: dict[str, MarkerSet | None] = {}


def _links_back(chunk: Chunk) -> bool:
    lang = chunk.metadata.get("language")
    if not lang:
        return False
    if lang not in _MARKERS:
        _MARKERS[lang] = load_markers(lang)
    markers = _MARKERS[lang]
    return markers is not None and markers.links_back(chunk.text) is not None


def _parent_groups(store: Store, cores: Sequence[list[Chunk]]) -> list[list[Chunk]]:
    wanted = [core[0].metadata.get("parent_id") for core in cores]
    ids = [p for p in dict.fromkeys(wanted) if p]
    parents = {p.id: p for p in (store.get_parents(ids) if ids else [])}
    groups: list[list[Chunk]] = []
    for core, parent_id in zip(cores, wanted, strict=True):
        if not parent_id:
            groups.append(core)
            continue
        parent = parents.get(parent_id)
        _check_fresh(core[0], parent, parent_id)
        assert parent is not None
        groups.append([parent])
    return groups


def _check_fresh(child: Chunk, parent: Chunk | None, parent_id: str) -> None:
    fix = f"re-ingest source {child.source_id!r} to rebuild its parents and children"
    if parent is None:
        raise StaleIndexError(
            f"chunk {child.id!r} points to parent {parent_id!r}, which is not in the store: {fix}"
        )
    cm, pm = child.metadata, parent.metadata
    if cm.get("source_hash") != pm.get("source_hash"):
        raise StaleIndexError(
            f"parent {parent_id!r} was rebuilt from a different version of {child.source_id!r} "
            f"than chunk {child.id!r}: {fix}"
        )
    if cm.get("parent_version") not in (None, pm.get("chunker_version")):
        raise StaleIndexError(
            f"parent {parent_id!r} has chunker_version {pm.get('chunker_version')!r}, "
            f"chunk {child.id!r} expected {cm.get('parent_version')!r}: {fix}"
        )
